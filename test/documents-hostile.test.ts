// Results documents built to hurt their readers (issue 21 items 5 and 7, found by review): a value
// nested millions of levels deep inside an entry line made compare build it (5.2 GB for a 100 MB
// line) before any schema looked at it; one in `run` overflowed the stack when its MAC
// re-serialised it ("internal error"). Both are refused in one line naming the document. And a
// JSON Lines document whose run line is past the first MiB (a run over thousands of Harbor jobs)
// was read as JSON and refused: it reads as the JSON Lines it is.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run, spawnMeasured } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const { at } = scratch("assay-docs-hostile-");
const keyFile = at("key.bin");

beforeAll(async () => {
  expect((await run(["synth", "--out", at("runs"), "--n", "4"])).code).toBe(0);
  writeFileSync(keyFile, "a key of some bytes", { mode: 0o600 });
  for (const format of ["json", "jsonl"]) {
    const r = await run([
      "score",
      at("runs"),
      "--format",
      format,
      "--out",
      at(`whole.${format}`),
      "--quiet",
      "--hmac-key-file",
      keyFile,
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
});

const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("a value nested millions of levels deep", () => {
  it("in a JSON Lines entry: refused from its text before JSON.parse builds it, in bounded memory", () => {
    const lines = readFileSync(at("whole.jsonl"), "utf8").split("\n");
    const i = lines.findIndex((l) => l.startsWith('{"type":"bundle"'));
    lines[i] = lines[i]!.replace(/^\{"type":"bundle",/, `{"type":"bundle","x":${deep(4_000_000)},`);
    writeFileSync(at("deep-entry.jsonl"), lines.join("\n"));
    const r = spawnMeasured(["compare", at("whole.jsonl"), at("deep-entry.jsonl")], ["--max-old-space-size=96"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `assay compare: ${at("deep-entry.jsonl")} is not a document assay could have written: line ${i + 1} at byte ${lines.slice(0, i).join("\n").length + 1} is nested deeper than 512 arrays and objects\n`,
    );
    expect(r.maxRssKb).toBeLessThan(300 * 1024);
  });

  it("in the run, with a key (its MAC re-serialises the run) and without: one line, never an internal error", async () => {
    const doc = readFileSync(at("whole.json"), "utf8").replace('"run": {', `"run": {\n    "x": ${deep(1_000_000)},`);
    writeFileSync(at("deep-run.json"), doc);
    for (const key of [["--hmac-key-file", keyFile], []]) {
      const r = await run(["compare", at("whole.json"), at("deep-run.json"), ...key]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^assay compare: ${at("deep-run.json").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is not a document assay could have written: "run" at byte \\d+ is nested deeper than 512 arrays and objects\\n$`,
        ),
      );
    }
  });
});

describe("a JSON Lines document whose run line is longer than a MiB", () => {
  it("is read as JSON Lines by compare and narrate (4,200 Harbor jobs listed in its run)", async () => {
    const jobs = at("jobs");
    for (let i = 0; i < 4200; i++) {
      const job = join(jobs, `2025-11-03__10-00-00-a-job-of-the-nightly-sweep-${String(i).padStart(4, "0")}`);
      mkdirSync(job, { recursive: true });
      writeFileSync(join(job, "job.log"), "");
    }
    const scored = await run([
      "score",
      jobs,
      "--format",
      "jsonl",
      "--out",
      at("many.jsonl"),
      "--allow-empty",
      "--quiet",
    ]);
    expect(scored.code, scored.stderr).toBe(0);
    expect(readFileSync(at("many.jsonl"), "utf8").indexOf("\n")).toBeGreaterThan(1 << 20);
    const r = await run(["compare", at("many.jsonl"), at("many.jsonl"), "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const n = await run(["narrate", at("many.jsonl"), "--offline", "--format", "json", "--cache", at("cache.sqlite")]);
    expect(n.stderr).not.toMatch(/not an assay results document/);
  }, 120_000);
});
