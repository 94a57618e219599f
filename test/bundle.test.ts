// The shipped CLI is the pre-bundled one (dist/bundle/, rolldown.config.mjs; package.json's bin):
// it writes what tsc's dist/cli.js writes, byte for byte apart from the start time, scoring in the
// main thread and in its own workers; its help reads the docs as dist/cli.js does. Build first.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bundle, escaped, game, killed, live, writeFiles } from "./helpers/bundle.js";
import { spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const ROOT = new URL("../", import.meta.url).pathname;
const BUNDLED = join(ROOT, "dist/bundle/cli.js");
const { dir: tmp } = scratch("assay-bundle-");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };

/** `node FILE args`: its exit code, stdout and stderr. */
function runFile(file: string, args: string[]) {
  const r = spawnSync(process.execPath, [file, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const unstarted = (text: string) => text.replace(/"started_at": "[^"]*"/, '"started_at": ""');

beforeAll(() => {
  if (!existsSync(BUNDLED)) throw new Error("the bundled CLI is built by npm run build: build first");
});

describe("the bundled CLI", () => {
  let root: string;
  beforeAll(() => {
    root = join(tmp, "runs");
    for (let i = 1; i <= 3; i++)
      writeFiles(
        join(root, "exp", `t${i}`, "a1"),
        bundle(
          game({ trial: `t${i}`, seed: String(i).padStart(32, "0"), states: [live(), i === 2 ? escaped() : killed()] }),
        ),
      );
  });

  it("is what package.json installs as assay, executable", () => {
    expect(pkg.bin["assay"]).toBe("dist/bundle/cli.js");
    expect(statSync(BUNDLED).mode & 0o111).not.toBe(0);
  });

  it("writes tsc's CLI's document, in the main thread and with workers (--bundle-timeout)", () => {
    for (const extra of [[], ["--bundle-timeout", "60"]]) {
      const args = ["score", root, "--quiet", "--format", "json", ...extra];
      const [ours, tsc] = [runFile(BUNDLED, args), spawnCli(args)];
      expect(ours.stderr).toBe("");
      expect(ours.code).toBe(0);
      expect(unstarted(ours.stdout)).toBe(unstarted(tsc.stdout));
    }
  });

  it("prints the same help, and a command's page with its docs' references", () => {
    for (const args of [["--help"], ["score", "--help"], ["help", "verify"]])
      expect(runFile(BUNDLED, args).stdout).toBe(spawnCli(args).stdout);
  });
});
