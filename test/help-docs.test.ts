// Every command's --help ends by naming the docs page to read next, and `assay --help` the docs
// folder (issue 16); every page named exists, in the folder the running CLI ships with.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pagesOf } from "../src/cli/docs-pages.js";
import { run, spawnCli } from "./helpers/cli.js";

const DOCS = new URL("../docs/", import.meta.url).pathname;
const COMMANDS = [
  "demo",
  "score",
  "verify",
  "merge",
  "compare",
  "seal",
  "check-task",
  "analyze",
  "narrate",
  "cache",
  "synth",
  "schema",
  "export",
];

describe("--help names the docs", () => {
  it.each(COMMANDS)("assay %s --help ends with the page to read next, which exists", async (command) => {
    const r = await run([command, "--help"]);
    expect(r.code).toBe(0);
    const more = /\nMore: (\S+)( \(also ([^)]*)\))?\n$/.exec(r.stdout);
    expect(more, r.stdout).not.toBeNull();
    expect(more![1]).toBe(join(DOCS, pagesOf(command)[0]!));
    for (const page of pagesOf(command)) expect(existsSync(join(DOCS, page)), page).toBe(true);
    expect(more![3]?.split(", ") ?? []).toEqual(pagesOf(command).slice(1));
  });
  it("assay --help (the built CLI) names the docs folder and its pages, each of which exists", () => {
    const r = spawnCli(["--help"]);
    const ref = /\nReference: (\S+) \(([^)]*)\)\n$/.exec(r.stdout);
    expect(ref, r.stdout).not.toBeNull();
    expect(ref![1]).toBe(DOCS);
    for (const page of ref![2]!.split(", ")) expect(existsSync(join(DOCS, `${page}.md`)), page).toBe(true);
  });
});
