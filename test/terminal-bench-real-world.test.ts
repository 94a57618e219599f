// The two real `tb run` folders in ../shared/real-world/terminal-bench (tb 0.2.17, one oracle run
// and one terminus-1 run): each is recognised from the head of its results.json, every trial is
// valid with its pane re-parsed to exactly its parser_results, and every figure the run claims is
// what the evidence gives. Skipped when ../shared is absent (required under CI=true).

import { existsSync, openSync, readdirSync, readSync, closeSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recogniseRun, RUN_HEAD_BYTES } from "../src/kinds/terminal-bench/recognise.js";
import { runsWithShared, SHARED_DIR } from "./helpers/shared.js";
import { scoreRun } from "./helpers/terminal-bench.js";

const ROOT = join(SHARED_DIR, "real-world", "terminal-bench");
const HAVE = existsSync(join(ROOT, "SOURCES.md"));

/** Every folder below ROOT holding a results.json with tb.lock beside it. */
function runs(dir: string, out: string[] = []): string[] {
  if (existsSync(join(dir, "results.json")) && existsSync(join(dir, "tb.lock"))) out.push(dir);
  for (const n of readdirSync(dir)) if (statSync(join(dir, n)).isDirectory()) runs(join(dir, n), out);
  return out;
}
function head(file: string): Uint8Array {
  const buf = new Uint8Array(RUN_HEAD_BYTES);
  const fd = openSync(file, "r");
  try {
    return buf.subarray(0, readSync(fd, buf, 0, RUN_HEAD_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

describe.runIf(runsWithShared(join(ROOT, "SOURCES.md")))(
  "real Terminal-Bench runs (../shared/real-world/terminal-bench)",
  () => {
    const found = HAVE ? runs(ROOT) : [];

    it("both runs are found and recognised from the head of results.json", () => {
      expect(found.map((r) => r.split("/").at(-1)).sort()).toEqual([
        "golden_solution_log",
        "qwen3-235b-a22b-instruct-2507",
      ]);
      for (const r of found)
        expect(recogniseRun(head(join(r, "results.json")), { tbLock: true, runMetadata: true }).run).toBe(true);
    });

    it.each([
      [
        "golden_solution_log",
        { state: "resolved", pass: true, tokens: "reported-none", tests: { passed: 6, failed: 0 }, accuracy: 1 },
      ],
      [
        "qwen3-235b-a22b-instruct-2507",
        { state: "unresolved", pass: false, tokens: "recorded", tests: { passed: 0, failed: 6 }, accuracy: 0 },
      ],
    ] as const)(
      "%s: the trial's pane gives its parser_results, and the run's claims follow from the evidence",
      (name, want) => {
        const run = found.find((r) => r.endsWith(`/${name}`))!;
        const { entries, verdict } = scoreRun(run);
        expect(entries.size).toBe(1);
        const e = [...entries.values()][0]!;
        expect([e.validity, e.errors, e.warnings, e.flags]).toEqual(["valid", [], [], []]);
        expect([
          e.state,
          e.pass,
          e.attempt,
          e.terminal_bench?.pane,
          e.terminal_bench?.parser,
          e.terminal_bench?.tokens,
        ]).toEqual([want.state, want.pass, 1, "agrees", "pytest", want.tokens]);
        expect(e.terminal_bench?.tests).toMatchObject(want.tests);
        expect(verdict.findings).toEqual([]);
        expect(verdict).toMatchObject({
          version: "0.2.17",
          finalised: true,
          complete: true,
          final: true,
          plan: { planned: 1, listed: 1, folders: 1 },
        });
        expect(verdict.runId).toBe(e.trial!.split(".").at(-1)); // the folder was renamed; the run id is in the trial name
        // n_attempts 1: TB claims pass_at_k {}, and TB's k set is empty, so only the counts are compared.
        expect(verdict.figures.map((f) => [f.metric, f.claimed, f.listed, f.evidence, f.agrees])).toEqual([
          ["accuracy", want.accuracy, want.accuracy, want.accuracy, true],
          ["n_resolved", want.accuracy, want.accuracy, want.accuracy, true],
          ["n_unresolved", 1 - want.accuracy, 1 - want.accuracy, 1 - want.accuracy, true],
        ]);
      },
    );
  },
);
