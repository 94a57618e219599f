// A newcomer's path (issue 23 item 4): `assay demo --out DIR` writes exactly the folders the docs
// use, refuses to write over anything, and says what to run next; the docs' own test
// (test/docs.test.ts) runs every documented command against that folder, built by the same command.

import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run, spawnCli } from "./helpers/cli.js";
import { parsePage, REAL_WORLD, writeSandbox } from "./helpers/docs.js";
import { SCRATCH, scratch } from "./helpers/shared.js";
import { installInto } from "./helpers/install.js";
import { execFileSync } from "node:child_process";

const ROOT = new URL("..", import.meta.url).pathname;

const { dir: tmp } = scratch("assay-newcomer-", SCRATCH);
let dir: string;
let demo: ReturnType<typeof spawnCli>;

beforeAll(() => {
  dir = join(tmp, "demo");
  demo = spawnCli(["demo", "--out", dir]);
});

/** Every file under `root` (relative path → SHA-256 of its bytes), leaving out the top-level names `skip`. */
function tree(root: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of readdirSync(root, { recursive: true }).map(String).sort()) {
    if (skip.includes(rel.split("/")[0]!) || !statSync(join(root, rel)).isFile()) continue;
    out[rel] = createHash("sha256")
      .update(readFileSync(join(root, rel)))
      .digest("hex");
  }
  return out;
}

describe("assay demo --out DIR", () => {
  it("writes exactly the folders the docs use, and scores them", () => {
    expect(demo.code, demo.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["jobs", "logs", "runs", "swe", "tasks", "worlds"]);
    expect(readdirSync(join(dir, "jobs"))).toEqual(["2025-11-03__10-00-00"]);
    expect(readdirSync(join(dir, "runs"))).toEqual(["synth-native"]);
    expect(readdirSync(join(dir, "worlds"))).toEqual(["synth-world"]);
    expect(readdirSync(join(dir, "logs")).filter((f) => /\.(eval|json)$/.test(f))).toHaveLength(6);
    expect(readdirSync(join(dir, "tasks")).sort()).toEqual(["csv-merge", "hello-world"]);
    // A kind's demo folder (its line's synth part in kinds/list.ts): SWE-bench's run as the harness leaves it.
    expect(readdirSync(join(dir, "swe")).sort()).toEqual([
      "dataset.jsonl",
      "logs",
      "org__model-7b.synth-swe.json",
      "preds.jsonl",
    ]);
    for (const t of ["csv-merge", "hello-world"])
      expect(readdirSync(join(dir, "tasks", t)).sort()).toEqual(["instruction.md", "task.toml", "tests"]);
    // Scored: every experiment of every folder is in the table's overview, a line each.
    for (const e of [
      /^synth-native\s+m-1\s+native-game /m,
      /^synth-world\s+m-2\s+world /m,
      /^2025-11-03__10-00-00\s+terminus-2 \/ gpt-4o\s+harbor /m,
      /^\S.*\s+inspect\s/m,
      /^synth-swe\/org__model-7b\s+swe-bench\s/m,
    ])
      expect(demo.stdout).toMatch(e);
  });

  it("is the same, byte for byte, on every machine and every run (the docs' transcripts quote it)", () => {
    const again = join(tmp, "again");
    expect(spawnCli(["demo", "--out", again]).code).toBe(0);
    expect(tree(again)).toEqual(tree(dir));
  });

  it("ends by naming what it wrote and the commands to run next, each of which exits as it says", () => {
    const lines = demo.stderr.trimEnd().split("\n");
    expect(lines.find((l) => l.startsWith("assay demo: wrote"))).toBe(
      `assay demo: wrote ${dir}, the folders README.md and docs/ use (scored above):`,
    );
    for (const folder of ["runs/", "worlds/", "jobs/", "logs/", "swe/", "tasks/"])
      expect(
        lines.some((l) => l.startsWith(`  ${folder}`)),
        folder,
      ).toBe(true);
    const next = lines.slice(lines.findIndex((l) => l.startsWith("Next")) + 1);
    expect(next[0]).toBe(`  cd ${dir}`);
    const commands = next.slice(1);
    expect(commands.length).toBeGreaterThanOrEqual(3);
    expect(commands[0]).toMatch(/^ {2}assay score runs\s+#/);
    for (const line of commands) {
      const [command, comment = ""] = line.trim().split(/\s+#\s*/);
      const argv = command!.split(/\s+/);
      expect(argv[0]).toBe("assay");
      const r = spawnCli(argv.slice(1), { cwd: dir });
      expect(r.code, `${command}\n${r.stderr}`).toBe(Number(/^exit (\d+)/.exec(comment)?.[1] ?? 0));
    }
    rmSync(join(dir, "report.html"), { force: true });
  });

  it("quotes a folder that the shell would split", () => {
    const spaced = join(tmp, "my demo");
    const r = spawnCli(["demo", "--out", spaced]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`\n  cd '${spaced}'\n`);
  });

  it("refuses a non-empty DIR, a file, an empty name, and --keep, writing nothing", () => {
    const full = join(tmp, "full");
    mkdirSync(full);
    writeFileSync(join(full, "notes.txt"), "mine\n");
    const r = spawnCli(["demo", "--out", full]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `assay demo: ${full} is not empty: assay demo --out writes only into an empty or new folder\n`,
    );
    expect(r.stdout).toBe("");
    expect(readdirSync(full)).toEqual(["notes.txt"]);
    expect(readFileSync(join(full, "notes.txt"), "utf8")).toBe("mine\n");

    const file = join(full, "notes.txt");
    const f = spawnCli(["demo", "--out", file]);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/is not a folder/);
    expect(readFileSync(file, "utf8")).toBe("mine\n");

    const empty = spawnCli(["demo", "--out", ""], { cwd: full });
    expect(empty.code).toBe(2);
    expect(readdirSync(full)).toEqual(["notes.txt"]);

    const k = spawnCli(["demo", "--out", join(tmp, "keep"), "--keep"]);
    expect(k.code).toBe(2);
    expect(readdirSync(tmp)).not.toContain("keep");
  });

  it("makes the docs' sandbox: test/docs.test.ts runs every command against what a newcomer gets, plus only bin/ and the real archives", () => {
    const sandbox = join(tmp, "sandbox");
    writeSandbox(sandbox);
    expect(tree(sandbox, ["bin", ...Object.keys(REAL_WORLD)])).toEqual(tree(dir));
  });
});

describe("assay demo without --out", () => {
  it("names no folder it removes, and removes it; --keep keeps and names it", async () => {
    const own = mkdtempSync(join(tmp, "tmpdir-"));
    const before = process.env["TMPDIR"];
    process.env["TMPDIR"] = own; // os.tmpdir() reads it on each call: the demo's folder goes here
    try {
      const r = await run(["demo"]);
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain(own);
      expect(r.stderr.trimEnd().split("\n").at(-1)).toMatch(/^assay demo: removed the temporary folder scored above/);
      expect(r.stdout).toMatch(/^synth-native\s+m-1\s+native-game /m);
      expect(readdirSync(own)).toEqual([]);
      const kept = await run(["demo", "--keep"]);
      const [name] = readdirSync(own);
      expect(kept.stderr).toContain(`assay demo: corpus kept in ${join(own, name!)}\n`);
      expect(readdirSync(join(own, name!))).toEqual(["corpus"]);
    } finally {
      if (before === undefined) delete process.env["TMPDIR"];
      else process.env["TMPDIR"] = before;
    }
  });
});

describe("the README's first screen", () => {
  const first = readFileSync(join(ROOT, "README.md"), "utf8").split("\n## Commands")[0]!;
  it("keeps two commands for a fresh machine first: the demo on its built-in corpus, and the tests with their measured duration", () => {
    const block = /```sh norun\n([^`]*)```/.exec(first)![1]!.trim().split("\n");
    expect(block[0]).toMatch(/^npm ci && npm install -g \.\s+#/);
    expect(block[1]).toMatch(/^assay demo\s+#/);
    expect(block[2]).toMatch(/^npm test\s+#.*\d+–\d+ minutes on 2 cores \(measured/);
  });
  it("says how to follow along: the demo's folders, made by a command the docs' test runs", () => {
    expect(parsePage(first).runnable.map((c) => c.text.split("#")[0]!.trim())).toContain(
      "assay demo --out demo && cd demo",
    );
  });
});

describe("installed outside the clone (issue 40)", () => {
  it("README's `npm install -g .` (into a scratch prefix) gives an `assay` that runs from any folder: the demo and its hints, never npx", () => {
    const prefix = join(tmp, "prefix");
    mkdirSync(prefix);
    const bin = installInto(prefix);
    const away = join(tmp, "elsewhere");
    mkdirSync(away);
    const env = { ...process.env, PATH: `${bin}:${process.env["PATH"]}` };
    const r = execFileSync(
      "bash",
      ["-c", "assay demo --out d 2>&1 >/dev/null; cd d && assay score runs -q --width 80 > /dev/null; echo rc=$?"],
      { cwd: away, env, encoding: "utf8" },
    );
    expect(r).toMatch(/rc=0$/m); // invalid bundles are reported, not a failure without --fail-on
    expect(r).toContain("assay demo: wrote d,");
    expect(r).toContain("npm install -g .");
    expect(r).not.toContain("npx");
    // The hints are the same wherever --out points: only the cd line names the folder.
    const there = execFileSync("bash", ["-c", `assay demo --out ${join(tmp, "abs")} 2>&1 >/dev/null`], {
      cwd: away,
      env,
      encoding: "utf8",
    });
    const hints = (t: string) =>
      t
        .slice(t.indexOf("Next"))
        .split("\n")
        .filter((l) => !l.startsWith("  cd "));
    expect(hints(there)).toEqual(hints(r.slice(0, r.indexOf("rc="))));
  }, 300_000);

  it("no page, help text or hint tells a user to npx assay (a name the project does not own on npm)", () => {
    const pages = [
      "README.md",
      ...readdirSync(join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    for (const page of pages) expect(readFileSync(join(ROOT, page), "utf8"), page).not.toMatch(/npx assay\b/);
    const help =
      spawnCli(["--help"]).stdout +
      ["score", "demo", "slurm-script", "merge", "compare"].map((c) => spawnCli([c, "--help"]).stdout).join("");
    expect(help).not.toContain("npx");
    expect(demo.stderr).not.toContain("npx");
  });
});
