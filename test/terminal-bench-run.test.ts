// The run-level rules of Terminal-Bench runs (docs/terminal-bench.md rules 12–18), each on
// both sides of its line: run folders written to a temp dir as TB writes them, every trial folder
// scored from disk, then the run's own files checked beside the entries.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kValues, passAtK } from "../src/kinds/terminal-bench/figures.js";
import { MAX_LISTED_TRIALS, readRun } from "../src/kinds/terminal-bench/record.js";
import type { RunVerdict } from "../src/kinds/terminal-bench/run.js";
import { SCRATCH, scratch } from "./helpers/shared.js";
import {
  json,
  pane,
  RUN_ID,
  scoreRun,
  tbLock,
  tbMetadata,
  tbRunResults,
  tbTrial,
  trialName,
  writeRun,
  writeRunFiles,
  writeTbTrial,
  type RunSpec,
  type TbTrialSpec,
} from "./helpers/terminal-bench.js";

const { dir: ROOT } = scratch("assay-tb-run-", SCRATCH);

let n = 0;
const run = (spec: RunSpec): ReturnType<typeof scoreRun> => scoreRun(writeRun(join(ROOT, `run${++n}`), spec));
const codes = (v: RunVerdict) => v.findings.map((f) => f.code);
const figure = (v: RunVerdict, metric: string) => v.figures.find((f) => f.metric === metric);
const FAILED = { parserResults: { test_a: "passed", test_b: "failed" } };

// ---------------------------------------------------------------------------------------------

describe("a run whose claims follow from its trials", () => {
  it("every figure agrees, with the list and with the evidence, and the run is final", () => {
    const { verdict } = run({ trials: [{ task: "a" }, { task: "b", ...FAILED }, { task: "c" }] });
    expect(verdict.findings).toEqual([]);
    expect(verdict).toMatchObject({
      runId: RUN_ID,
      version: "0.2.17",
      finalised: true,
      complete: true,
      final: true,
      plan: { planned: 3, listed: 3, folders: 3 },
    });
    expect(verdict.figures.map((f) => [f.metric, f.claimed, f.listed, f.evidence, f.agrees, f.reason])).toEqual([
      ["accuracy", 2 / 3, 2 / 3, 2 / 3, true, null],
      ["n_resolved", 2, 2, 2, true, null],
      ["n_unresolved", 1, 1, 1, true, null],
    ]);
    expect(verdict.formula).toContain("no pass@1");
  });

  it("a test timeout, a parse error and a harness exception count unresolved in TB's accuracy, as TB counts them", () => {
    const { verdict } = run({
      trials: [
        { task: "a" },
        { task: "b", failureMode: "test_timeout", parserResults: null },
        { task: "c", failureMode: "parse_error", parserResults: null },
        { task: "d", harness: true },
      ],
      absent: [3],
    });
    expect(verdict.findings).toEqual([]);
    expect(figure(verdict, "accuracy")).toMatchObject({ claimed: 0.25, listed: 0.25, evidence: 0.25, agrees: true });
    expect(verdict.harnessExceptions).toEqual({ names: [trialName({ task: "d" })], count: 1 });
  });
});

describe("rules 12–13: the claims against a recount (RUN_CLAIM_MISMATCH)", () => {
  it.each([
    [
      "accuracy",
      (r: Record<string, any>) => (r["accuracy"] = 1.0),
      "accuracy claimed 1 but its results list gives 0.5",
    ],
    [
      "n_resolved",
      (r: Record<string, any>) => (r["n_resolved"] = 2),
      "n_resolved claimed 2 but its results list gives 1",
    ],
    ["n_unresolved", (r: Record<string, any>) => (r["n_unresolved"] = 0), "n_unresolved claimed 0"],
    [
      "resolved_ids",
      (r: Record<string, any>) => (r["resolved_ids"] = ["a", "b"]),
      "resolved_ids differs from the results list for b (1 claimed, 0 listed)",
    ],
    ["unresolved_ids", (r: Record<string, any>) => (r["unresolved_ids"] = []), "unresolved_ids differs"],
  ])("%s that does not follow from the list", (_, edit, message) => {
    const { verdict } = run({
      trials: [{ task: "a" }, { task: "b", ...FAILED }],
      results: edit,
      metadata: { accuracy: null },
    });
    expect(codes(verdict)).toEqual(["RUN_CLAIM_MISMATCH"]);
    expect(verdict.findings[0]!.message).toContain(message);
  });

  it("floats agree within 1e-12 (numpy's rounding), and differ beyond it", () => {
    const near = run({
      trials: [{ task: "a" }, { task: "b", ...FAILED }],
      results: (r) => (r["accuracy"] = 0.5000000000000001),
    });
    expect(near.verdict.findings).toEqual([]);
    const far = run({
      trials: [{ task: "a" }, { task: "b", ...FAILED }],
      results: (r) => (r["accuracy"] = 0.500001),
      metadata: { accuracy: null },
    });
    expect(codes(far.verdict)).toEqual(["RUN_CLAIM_MISMATCH"]);
  });

  const five = (task: string, resolved: number): TbTrialSpec[] =>
    [1, 2, 3, 4, 5].map((k) => ({ task, attempt: k, of: 5, ...(k <= resolved ? {} : FAILED) }));
  it("pass@k with TB's k set: 5 attempts give 2, 4, 5 and no pass@1", () => {
    const { verdict } = run({ trials: [...five("a", 2), ...five("b", 0)], passAtK: { "2": 0.35, "4": 0.5, "5": 0.5 } });
    expect(verdict.findings).toEqual([]);
    expect(
      verdict.figures.filter((f) => f.metric.startsWith("pass_at_k")).map((f) => [f.metric, f.listed, f.agrees]),
    ).toEqual([
      ["pass_at_k/2", 0.35, true],
      ["pass_at_k/4", 0.5, true],
      ["pass_at_k/5", 0.5, true],
    ]);
  });

  it("a wrong pass@k value, a pass@1 key (a fork's k set), or a k left out are mismatches", () => {
    const wrong = run({
      trials: [...five("a", 2), ...five("b", 0)],
      passAtK: { "2": 0.4, "4": 0.5, "5": 0.5 },
      metadata: { pass_at_k: null },
    });
    expect(codes(wrong.verdict)).toEqual(["RUN_CLAIM_MISMATCH"]);
    expect(wrong.verdict.findings[0]!.message).toContain("pass_at_k/2 claimed 0.4 but its results list gives 0.35");
    const fork = run({
      trials: [...five("a", 2), ...five("b", 0)],
      passAtK: { "1": 0.2, "2": 0.35, "4": 0.5, "5": 0.5 },
      metadata: { pass_at_k: null },
    });
    expect(figure(fork.verdict, "pass_at_k/1")).toMatchObject({
      agrees: false,
      reason: expect.stringContaining("fork"),
    });
    const short = run({
      trials: [...five("a", 2), ...five("b", 0)],
      passAtK: { "2": 0.35 },
      metadata: { pass_at_k: null },
    });
    expect(figure(short.verdict, "pass_at_k/4")).toMatchObject({
      agrees: false,
      claimed: null,
      reason: expect.stringContaining("not claimed"),
    });
  });

  it("TB's formula: k = 2, 4, 8 … ≤ m, then 5, 10; the values TB's numpy code gives", () => {
    expect([kValues(1), kValues(3), kValues(5), kValues(10)]).toEqual([[], [2], [2, 4, 5], [2, 4, 8, 5, 10]]);
    const ten = Array.from({ length: 10 }, (_, i) => ({ task: "a", resolved: i < 3 }));
    const p = passAtK(ten);
    expect([...p.keys()]).toEqual([2, 4, 8, 5, 10]);
    [0.5333333333333332, 0.8333333333333334, 1.0, 0.9166666666666666, 1.0].forEach((v, i) =>
      expect(p.get([2, 4, 8, 5, 10][i]!)).toBeCloseTo(v, 12),
    );
    expect(
      passAtK([
        { task: "a", resolved: true },
        { task: "b", resolved: false },
      ]),
    ).toEqual(new Map());
  });
});

describe("rules 14–15: listed trials without a file, and files the list lacks", () => {
  it("a listed trial in the harness-exception shape with no file is expected; any other is TRIAL_MISSING and the evidence cannot give TB's figure", () => {
    const { verdict } = run({ trials: [{ task: "a" }, { task: "b" }, { task: "c", harness: true }], absent: [1, 2] });
    expect(codes(verdict)).toEqual(["TRIAL_MISSING"]);
    expect(verdict.missing).toEqual({ names: [trialName({ task: "b" })], count: 1 });
    expect(verdict.harnessExceptions.count).toBe(1);
    expect(figure(verdict, "accuracy")).toMatchObject({
      agrees: true,
      evidence: null,
      reason: expect.stringContaining("1 listed trial without a trial file"),
    });
  });

  it("a trial folder holding only commands.txt (TB raised mid-trial) counts as no file", () => {
    const dir = join(ROOT, "midtrial");
    const listed = [tbTrial({ task: "a" }), tbTrial({ task: "b", harness: true })];
    writeRunFiles(dir, {
      results: tbRunResults(listed),
      metadata: tbMetadata({ task_ids: ["a", "b"], dataset_size: 2, accuracy: 0.5 }),
      lock: tbLock({ task_ids: ["a", "b"] }),
    });
    writeTbTrial(dir, { task: "a" });
    writeTbTrial(dir, { task: "b" }, { result: null });
    const { verdict, entries } = scoreRun(dir);
    expect(verdict.findings).toEqual([]);
    expect(entries.get(`b/${trialName({ task: "b" })}`)?.state).toBe("incomplete");
    expect(verdict.harnessExceptions.count).toBe(1);
  });

  it("a trial folder with results.json the list lacks is TRIAL_UNLISTED, and the evidence counts it", () => {
    const { verdict } = run({
      trials: [{ task: "a" }],
      unlisted: [{ task: "b", ...FAILED }],
      metadata: { task_ids: ["a", "b"], dataset_size: 2 },
      lock: tbLock({ task_ids: ["a", "b"] }),
    });
    expect(codes(verdict)).toContain("TRIAL_UNLISTED");
    expect(verdict.unlisted.names).toEqual([trialName({ task: "b" })]);
    expect(figure(verdict, "accuracy")).toMatchObject({ claimed: 1, listed: 1, evidence: 0.5 });
  });

  it("a trial file that differs from its run entry is TRIAL_RUN_MISMATCH, naming the fields; identical ones are not", () => {
    const { verdict } = run({
      trials: [{ task: "a" }, { task: "b" }],
      editTrial: { 1: (t) => ((t["total_input_tokens"] = 5), (t["instruction"] = "other")) },
    });
    expect(codes(verdict)).toEqual(["TRIAL_RUN_MISMATCH"]);
    expect(verdict.findings[0]).toMatchObject({
      file: `b/${trialName({ task: "b" })}`,
      message: expect.stringContaining("instruction, total_input_tokens"),
    });
  });

  it("when a trial's evidence gives another verdict than the list, the evidence figure differs and says for which trial", () => {
    const { verdict, entries } = run({
      trials: [{ task: "a" }, { task: "b" }],
      editTrial: { 1: (t) => ((t["parser_results"] = { test_a: "failed" }), (t["is_resolved"] = false)) },
    });
    expect(codes(verdict)).toEqual(["TRIAL_RUN_MISMATCH"]);
    expect(entries.get(`b/${trialName({ task: "b" })}`)?.pass).toBe(false);
    expect(figure(verdict, "accuracy")).toMatchObject({
      claimed: 1,
      listed: 1,
      evidence: 0.5,
      agrees: true,
      reason: expect.stringContaining(`another verdict than the list for ${trialName({ task: "b" })}`),
    });
  });
});

describe("rules 16–17: plan, completeness, finalisation, run_metadata's copies", () => {
  it("end_time null: not final, and a null accuracy there is no mismatch (RUN_NOT_FINAL)", () => {
    const { verdict } = run({ trials: [{ task: "a" }], metadata: { end_time: null, accuracy: null, pass_at_k: null } });
    expect(codes(verdict)).toEqual(["RUN_NOT_FINAL"]);
    expect([verdict.finalised, verdict.final]).toEqual([false, false]);
    expect(verdict.findings[0]!.message).toContain("not a mismatch");
  });

  it("fewer trials listed than planned: in progress or incomplete (RUN_NOT_FINAL); more: RUN_PLAN_EXCEEDED", () => {
    const short = run({ trials: [{ task: "a" }], metadata: { dataset_size: 3, task_ids: ["a", "b", "c"] } });
    expect(codes(short.verdict)).toEqual(["RUN_NOT_FINAL"]);
    expect([short.verdict.complete, short.verdict.final, short.verdict.plan.planned]).toEqual([false, false, 3]);
    const over = run({ trials: [{ task: "a" }, { task: "b" }], metadata: { dataset_size: 1 } });
    expect(codes(over.verdict)).toEqual(["RUN_PLAN_EXCEEDED"]);
  });

  it("without run_metadata.json the plan comes from tb.lock; without either there is none, and results.json alone is judged", () => {
    const lockOnly = run({ trials: [{ task: "a" }], metadata: null, lock: tbLock({ task_ids: ["a", "b"] }) });
    expect([lockOnly.verdict.plan.planned, lockOnly.verdict.plan.source, codes(lockOnly.verdict)]).toEqual([
      2,
      "tb.lock dataset.task_ids × run_config.n_attempts",
      ["RUN_NOT_FINAL"],
    ]);
    const bare = run({ trials: [{ task: "a" }], metadata: null, lock: null });
    expect(bare.verdict).toMatchObject({ findings: [], finalised: null, complete: null, final: true, version: null });
  });

  it("run_metadata.json's accuracy or pass_at_k differing from results.json's is RUN_METADATA_MISMATCH", () => {
    const { verdict } = run({ trials: [{ task: "a" }], metadata: { accuracy: 0.5, pass_at_k: { "2": 1 } } });
    expect(codes(verdict)).toEqual(["RUN_METADATA_MISMATCH", "RUN_METADATA_MISMATCH"]);
  });

  it.each([
    [
      "of-N other than n_attempts",
      {
        trials: [
          { task: "a", of: 2 },
          { task: "a", attempt: 2, of: 2 },
        ],
        lock: tbLock({ n_attempts: 3, task_ids: ["a"] }),
        metadata: { n_attempts: 3, dataset_size: 1 },
      },
      "of-2, but n_attempts is 3",
    ],
    [
      "a suffix other than the run_id",
      { trials: [{ task: "a", runId: "2025-01-01__00-00-00" }] },
      `but the run_id is ${RUN_ID}`,
    ],
    [
      "attempts with a gap",
      {
        trials: [
          { task: "a", of: 3 },
          { task: "a", attempt: 3, of: 3 },
        ],
        metadata: { dataset_size: 1, n_attempts: 2 },
      },
      "attempts 1, 3, not 1..3",
    ],
  ] as [string, RunSpec, string][])("TRIAL_NAME_MISMATCH: %s", (_, spec, message) => {
    const { verdict } = run(spec);
    expect(codes(verdict)).toContain("TRIAL_NAME_MISMATCH");
    expect(verdict.findings.find((f) => f.code === "TRIAL_NAME_MISMATCH")!.message).toContain(message);
  });

  it("a trial folder named otherwise than its results.json's trial_name, or under another task folder", () => {
    const dir = join(ROOT, "renamed");
    const t = tbTrial({ task: "a" });
    writeRunFiles(dir, {
      results: tbRunResults([t]),
      metadata: tbMetadata({ task_ids: ["a"] }),
      lock: tbLock({ task_ids: ["a"] }),
    });
    mkdirSync(join(dir, "b", "copy"), { recursive: true });
    writeFileSync(join(dir, "b", "copy", "results.json"), json(t));
    const { verdict } = scoreRun(dir);
    const names = verdict.findings.find((f) => f.code === "TRIAL_NAME_MISMATCH")!.message;
    expect(names).toContain(`b/copy: its results.json names ${trialName({ task: "a" })}`);
    expect(names).toContain("names task a, not its task folder");
  });

  it("two trial folders claiming one trial_name (a copy) are TRIAL_DUPLICATE, both named", () => {
    const dir = join(ROOT, "copied");
    const t = tbTrial({ task: "a" });
    writeRunFiles(dir, {
      results: tbRunResults([t]),
      metadata: tbMetadata({ task_ids: ["a"] }),
      lock: tbLock({ task_ids: ["a"] }),
    });
    writeTbTrial(dir, { task: "a" });
    writeTbTrial(dir, { task: "a" }, { folder: "a.1-of-1.copy" });
    const { verdict } = scoreRun(dir);
    expect(verdict.findings.filter((f) => f.code === "TRIAL_DUPLICATE")).toEqual([
      expect.objectContaining({
        file: "a/a.1-of-1.copy",
        message: expect.stringContaining(`as a/${trialName({ task: "a" })} does`),
      }),
    ]);
  });

  it("0.2.7's names without a run id are fine", () => {
    const { verdict } = run({ trials: [{ task: "a", runId: null, legacy: true }], metadata: null, lock: null });
    expect(verdict.findings).toEqual([]);
  });
});

describe("run files that cannot be read (RUN_FILE_UNREADABLE)", () => {
  it("a malformed results.json: no list, no claims, nothing compared; said", () => {
    const dir = join(ROOT, "badrun");
    writeRunFiles(dir, { results: '{"results": [', metadata: tbMetadata(), lock: tbLock() });
    writeTbTrial(dir, { task: "hello" });
    const { verdict } = scoreRun(dir);
    expect(codes(verdict)).toEqual(["RUN_FILE_UNREADABLE"]);
    expect([verdict.figures, verdict.unlisted.count, verdict.plan.listed]).toEqual([[], 0, 0]);
  });

  it("a list entry of the wrong type is said, and the rest of the run is still judged", () => {
    const { verdict } = run({ trials: [{ task: "a" }], results: (r) => (r["results"][0]["is_resolved"] = "yes") });
    expect(codes(verdict)).toContain("RUN_FILE_UNREADABLE");
    expect(verdict.findings.find((f) => f.code === "RUN_FILE_UNREADABLE")!.message).toContain("results[0]");
  });

  it(`a list of more than ${MAX_LISTED_TRIALS} trials is refused, said; one of exactly that many is read`, () => {
    const listOf = (count: number) =>
      new TextEncoder().encode(
        json({
          results: Array.from({ length: count }, (_, i) => ({
            trial_name: `t${i}.1-of-1`,
            task_id: `t${i}`,
            instruction: "",
            is_resolved: true,
          })),
        }),
      );
    const over = readRun({ results: listOf(MAX_LISTED_TRIALS + 1), metadata: null, lock: null });
    expect([over.listed, over.warnings.map((w) => w.code)]).toEqual([null, ["RUN_FILE_UNREADABLE"]]);
    const at = readRun({ results: listOf(MAX_LISTED_TRIALS), metadata: null, lock: null });
    expect([at.listed?.length, at.warnings]).toEqual([MAX_LISTED_TRIALS, []]);
  });

  it("a well-formed run says nothing", () => expect(run({ trials: [{ task: "a" }] }).verdict.findings).toEqual([]));
});

describe("a real pane through the whole run", () => {
  it("the pane's verdict, the trial's and the run's agree", () => {
    const dir = join(ROOT, "pane-run");
    const t = tbTrial({
      task: "fifo",
      parserResults: { test_fifo_exists: "passed", test_summary_json: "passed", test_rotations: "passed" },
    });
    writeRunFiles(dir, {
      results: tbRunResults([t]),
      metadata: tbMetadata({ task_ids: ["fifo"] }),
      lock: tbLock({ task_ids: ["fifo"] }),
    });
    writeTbTrial(dir, { task: "fifo" }, { result: json(t), pane: pane("pass.txt") });
    const { verdict, entries } = scoreRun(dir);
    expect(verdict.findings).toEqual([]);
    expect([...entries.values()][0]!.terminal_bench?.pane).toBe("agrees");
  });
});
