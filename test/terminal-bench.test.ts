// The per-trial rules of Terminal-Bench runs (docs/terminal-bench.md), each on both sides of its
// line: trial folders written to a temp dir as TB writes them and scored from disk; TB's parsers
// on fixture panes whose expected results come from running TB's own parser code on them.

import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Finding } from "../src/core/codes.js";
import { MAX_DOCUMENT_BYTES } from "../src/core/json/decode.js";
import { bundleEntrySchema } from "../src/core/results.js";
import { diskBundle } from "../src/io/bundle-source.js";
import { readJson } from "../src/kinds/terminal-bench/models.js";
import {
  candidates,
  MAX_PANE_BYTES,
  parseMlebench,
  parsePytest,
  parseSwebench,
  parseSweperf,
  parseSwelancer,
} from "../src/kinds/terminal-bench/panes.js";
import { isTaskFolder, parseTrialName, recogniseRun, RUN_HEAD_BYTES } from "../src/kinds/terminal-bench/recognise.js";
import { scoreTerminalBenchTrial, type TerminalBenchEntry } from "../src/kinds/terminal-bench/trial.js";
import { SCRATCH, scratch } from "./helpers/shared.js";
import { json, pane, tbTrial, writeTbTrial, type TbTrialSpec } from "./helpers/terminal-bench.js";

const { dir: ROOT } = scratch("assay-tb-", SCRATCH);

let n = 0;
/** A trial folder written from `spec` (with the pane and results.json text given), scored from disk. */
function trial(
  spec: TbTrialSpec = {},
  files: Parameters<typeof writeTbTrial>[2] = {},
  after?: (dir: string) => void,
): TerminalBenchEntry {
  const dir = writeTbTrial(join(ROOT, `r${++n}`), spec, files);
  after?.(dir);
  return scoreTerminalBenchTrial(diskBundle(dir));
}
const codes = (fs: readonly { code: string }[]) => fs.map((f) => f.code);
const withCode = (fs: Finding[], code: string) => fs.filter((f) => f.code === code);
const PASS3: Record<string, "passed" | "failed"> = {
  test_fifo_exists: "passed",
  test_summary_json: "passed",
  test_rotations: "passed",
};
const FAIL_WRAPPED = {
  test_fifo_exists: "failed",
  test_summary_json: "passed",
  "test_rotations - AssertionError: need ≥2 distinct users": "failed",
};

function expectValid(e: TerminalBenchEntry): void {
  expect(e.errors).toEqual([]);
  expect(e.validity).toBe("valid");
}

// ---------------------------------------------------------------------------------------------

describe("TB's pytest parser, re-run on the pane's bytes", () => {
  // Every expectation below is what TB's own PytestParser returns for the same file.
  const asObject = (p: ReturnType<typeof parsePytest>) => (p === null ? null : Object.fromEntries(p.results));

  it("splits at the header, reads PASSED lines after it, ignores the rest", () => {
    expect(asObject(parsePytest(pane("pass.txt")))).toEqual(PASS3);
  });

  it("does not unwrap tmux's hard wraps, and cuts a FAILED line's message at its last ' - '", () => {
    expect(asObject(parsePytest(pane("fail-wrapped.txt")))).toEqual(FAIL_WRAPPED);
  });

  it("counts SKIPPED passed, keyed by the whole line when there is no ::", () => {
    const p = parsePytest(pane("skipped.txt"))!;
    expect(asObject(p)).toEqual({
      test_service_process_running: "passed",
      "[1] ../tests/test_outputs.py:48: Bitcoin service does not appear to be running": "passed",
      "[1] ../tests/test_outputs.py:61: Bitcoin service does not appear to be running": "passed",
    });
    expect(p.skippedAsPassed).toBe(2);
  });

  it("lets a later line of the same name win, and counts the overwrite", () => {
    const p = parsePytest(pane("duplicate.txt"))!;
    expect(asObject(p)).toEqual({ test_flaky: "passed", test_other: "passed" });
    expect(p.duplicates).toBe(1);
    expect(parsePytest(pane("pass.txt"))!.duplicates).toBe(0);
  });

  it("follows Python to the letter: case folding, whitespace, line breaks, colons, UNKNOWN, empty names, the first header", () => {
    expect(asObject(parsePytest(pane("edge.txt")))).toEqual({
      test_colons: "passed",
      test_xpass: "failed",
      test_xfail: "passed",
      "../tests/x.py - ModuleNotFoundError": "failed",
      test_ideographic_space: "passed",
      test_a: "passed",
      test_after_formfeed: "passed",
      "test_b\u001fstill_one_line": "passed",
      "test_c::param[x::y]": "passed",
      test_indented: "passed",
      "test_dash - msg": "failed",
      test_after_second_header: "passed",
    });
  });

  it("in time linear in the pane: runs of '=', spaces and colons that make backtracking patterns quadratic", () => {
    const n = 4_000_000;
    const started = Date.now();
    expect(parsePytest("=".repeat(n) + " short test summary inf")).toBeNull();
    expect(parsePytest(`== short test summary info ==\nPASSED ${" ".repeat(n)}x`)!.results.get("x")).toBe("passed");
    expect(
      parsePytest(`== short test summary info ==\n${":".repeat(n)}PASSED${":".repeat(n)} t::y`)!.results.get("y"),
    ).toBe("passed");
    expect(Date.now() - started).toBeLessThan(20_000); // quadratic would be hours
  });

  it("no header is TB's parse error (null); a header with no test line is {}", () => {
    expect(parsePytest(pane("no-header.txt"))).toBeNull();
    expect(parsePytest("== short test summary info ==\n== 0 passed ==\n")!.results.size).toBe(0);
  });
});

describe("TB's marker parsers", () => {
  it("SWE-bench and SWE-Perf: PASSED between the markers passes, anything else fails, a missing marker raises", () => {
    expect(parseSwebench(pane("swebench.txt"))!.results).toEqual(new Map([["tests", "passed"]]));
    expect(
      parseSwebench("SWEBench results starts here\nFAILED\nSWEBench results ends here")!.results.get("tests"),
    ).toBe("failed");
    expect(parseSwebench("SWEBench results starts here\nPASSED\n")).toBeNull();
    expect(
      parseSweperf("SWE-Perf results starts here\n PASSED \nSWE-Perf results ends here")!.results.get("tests"),
    ).toBe("passed");
    expect(parseSweperf(pane("swebench.txt"))).toBeNull();
  });

  it("MLE-bench never raises: ALL TESTS PASSED between its markers passes, else (markers or not) fails", () => {
    expect(
      parseMlebench("MLEBench results starts here\nALL TESTS PASSED\nMLEBench results ends here").results.get("tests"),
    ).toBe("passed");
    expect(parseMlebench("ALL TESTS PASSED but no markers, and more").results.get("tests")).toBe("failed");
  });

  it("SWE-Lancer: success beats failure beats user_tool + completed", () => {
    expect(parseSwelancer("SWE Lancer Success").results.get("swelancer_task")).toBe("passed");
    expect(parseSwelancer("swe lancer failure, user_tool completed").results.get("swelancer_task")).toBe("failed");
    expect(parseSwelancer("user_tool ... completed").results.get("swelancer_task")).toBe("passed");
    expect(parseSwelancer("nothing").results.get("swelancer_task")).toBe("failed");
  });

  it("the claim's shape picks the family: {tests} the marker parsers, anything else pytest", () => {
    expect(candidates(pane("swebench.txt"), { tests: "passed" }).map((p) => p.parser)).toEqual([
      "swebench",
      "mlebench",
    ]);
    expect(candidates(pane("pass.txt"), PASS3).map((p) => p.parser)).toEqual(["pytest"]);
    expect(candidates(pane("pass.txt"), { swelancer_task: "passed" }).map((p) => p.parser)).toEqual([
      "swelancer",
      "pytest",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("a trial's entry", () => {
  it("a clean resolved trial: its identity, verdict from the pane, state, reward, claim, digest", () => {
    const e = trial({ task: "fifo", parserResults: PASS3 }, { pane: pane("pass.txt") });
    expectValid(e);
    expect(() => bundleEntrySchema.parse({ ...e, path: "x", profile: null })).not.toThrow(); // every other field is the results document's
    expect(e).toMatchObject({
      profile: "terminal-bench",
      trial: "fifo.1-of-1.2025-08-25__16-36-35",
      attempt: 1,
      task: "fifo",
      pass: true,
      state: "resolved",
      rewards: { resolved: 1 },
      reward_source: "panes/post-test.txt (pytest)",
      claimed: { rewards: { resolved: 1 }, exception: null },
      exception: null,
      flags: [],
      warnings: [],
    });
    expect(e.terminal_bench).toMatchObject({
      failure_mode: "unset",
      parser: "pytest",
      pane: "agrees",
      tests: { passed: 3, failed: 0, skipped_as_passed: 0, duplicates: 0 },
    });
    expect(e.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("the digest covers every file of the trial (a changed commands.txt changes it)", () => {
    const a = trial({}, {});
    const b = trial({}, {}, (dir) => writeFileSync(join(dir, "commands.txt"), "['rm -rf /tests', 'Enter']\n"));
    expect(a.digest).not.toBe(b.digest);
    expect(trial({}, {}).digest).toBe(a.digest);
  });

  it("a failing trial is unresolved, its reward 0", () => {
    const e = trial({ parserResults: FAIL_WRAPPED }, { pane: pane("fail-wrapped.txt") });
    expectValid(e);
    expect([e.pass, e.state, e.rewards, e.terminal_bench?.tests]).toEqual([
      false,
      "unresolved",
      { resolved: 0 },
      { passed: 1, failed: 2, skipped_as_passed: 0, duplicates: 0 },
    ]);
  });

  it("0.2.7's shape (uuid, no timestamps, no run id in the name) and a fork's extra fields are read", () => {
    const e = trial({
      legacy: true,
      runId: null,
      attempt: 2,
      of: 5,
      extra: { n_commands: 12, long_cli: { turns: 3 } },
    });
    expectValid(e);
    expect([e.trial, e.attempt, e.state]).toEqual(["hello.2-of-5", 2, "resolved"]);
  });

  it("a field of the wrong type is SCHEMA (invalid), its state still shown", () => {
    const e = trial({}, { result: json({ ...tbTrial(), is_resolved: "yes", total_input_tokens: -1 }) });
    expect(codes(e.errors)).toEqual(["SCHEMA"]);
    expect(e.errors[0]!.message).toMatch(/is_resolved/);
    expect(e.validity).toBe("invalid");
    expect(e.state).toBe("resolved");
  });

  it("strict JSON: a duplicate key is an error; a results.json over 64 MiB is refused before it is read", () => {
    const text = json(tbTrial()).replace('"task_id": "hello",', '"task_id": "hello",\n    "task_id": "other",');
    expect(codes(trial({}, { result: text }).errors)).toEqual(["JSON_DUPLICATE_KEY"]);
    const big = trial({}, {}, (dir) => truncateSync(join(dir, "results.json"), MAX_DOCUMENT_BYTES + 1));
    expect(codes(big.errors)).toEqual(["FILE_TOO_LARGE"]);
    expect(big.state).toBe("incomplete");
    const out: Finding[] = [];
    expect(readJson(new Uint8Array(MAX_DOCUMENT_BYTES + 1), "x.json", out)).toEqual({ ok: false, truncated: false });
    expect(codes(out)).toEqual(["FILE_TOO_LARGE"]);
  });
});

describe("states (rule 3): none collapsed into a silent 0", () => {
  it("a test timeout and a parse error have no verdict, no reward", () => {
    const t = trial(
      { failureMode: "test_timeout", parserResults: null, resolved: null },
      { pane: pane("no-header.txt") },
    );
    expectValid(t);
    expect([t.state, t.pass, t.rewards, t.exception?.type]).toEqual(["test-timeout", null, null, "test_timeout"]);
    const p = trial(
      { failureMode: "parse_error", parserResults: null, resolved: null },
      { pane: pane("no-header.txt") },
    );
    expectValid(p);
    expect([p.state, p.pass, p.terminal_bench?.pane]).toEqual(["parse-error", null, "agrees"]);
  });

  it("TB's harness-exception entry is harness-error; the same mode with timestamps (the agent ran) is incomplete", () => {
    const h = trial({ harness: true });
    expectValid(h);
    expect([h.state, h.pass, h.exception?.type]).toEqual(["harness-error", null, "unknown_agent_error"]);
    const legacy = trial({ harness: true, legacy: true, runId: null });
    expect(legacy.state).toBe("harness-error");
    const ran = trial(
      {},
      { result: json({ ...tbTrial(), is_resolved: null, parser_results: null, failure_mode: "unknown_agent_error" }) },
    );
    expect(ran.state).toBe("incomplete");
  });

  it("a folder with only commands.txt (TB raised mid-trial) is incomplete; so is one a killed writer left half-written", () => {
    const e = trial({}, { result: null });
    expectValid(e);
    expect([e.state, e.trial, e.terminal_bench?.fields]).toEqual(["incomplete", null, null]);
    const cut = trial({}, { result: json(tbTrial()).slice(0, 200) });
    expectValid(cut);
    expect([cut.state, codes(cut.warnings)]).toEqual(["incomplete", ["RESULT_TRUNCATED"]]);
    const corrupt = trial({}, { result: json(tbTrial()).replace("{", "{]") });
    expect(codes(corrupt.errors)).toEqual(["JSON_SYNTAX"]);
  });

  it("resolved under a failure mode is resolved-with-failure-mode (flagged); unresolved under one is unresolved", () => {
    const r = trial({ failureMode: "agent_timeout", parserResults: PASS3 }, { pane: pane("pass.txt") });
    expectValid(r);
    expect([r.state, r.rewards, codes(r.flags), r.exception?.type]).toEqual([
      "resolved-with-failure-mode",
      { resolved: 1 },
      ["RESOLVED_WITH_FAILURE_MODE"],
      "agent_timeout",
    ]);
    const u = trial({ failureMode: "agent_timeout", parserResults: FAIL_WRAPPED }, { pane: pane("fail-wrapped.txt") });
    expect([u.state, codes(u.flags)]).toEqual(["unresolved", []]);
  });
});

describe("rule 4: is_resolved follows from parser_results (RESOLVED_MISMATCH)", () => {
  it.each([
    [
      "true with a failed test",
      { resolved: true, parserResults: { a: "passed", b: "failed" } },
      "is_resolved is true but parser_results (1 failed of 2) give false",
    ],
    ["false with every test passed", { resolved: false, parserResults: { a: "passed" } }, "give true"],
    ["true with parser_results null", { resolved: true, parserResults: null }, "parser_results (null) give null"],
    ["null with parser_results set", { resolved: null, parserResults: { a: "failed" } }, "is_resolved is null"],
  ] as [string, TbTrialSpec, string][])("%s is a mismatch", (_, spec, message) => {
    const e = trial(spec);
    expect(codes(e.errors)).toEqual(["RESOLVED_MISMATCH"]);
    expect(e.errors[0]!.message).toContain(message);
    expect(e.validity).toBe("invalid");
  });

  it.each(["test_timeout", "parse_error"])(
    "a verdict under %s, where TB stops before parsing, is a mismatch",
    (mode) => {
      const e = trial({ failureMode: mode, parserResults: { a: "passed" } });
      expect(codes(e.errors)).toEqual(["RESOLVED_MISMATCH"]);
      expect(e.errors[0]!.message).toContain(`failure_mode ${mode}, yet parser_results are set`);
    },
  );

  it("the verdict is re-derived, not taken: a claimed true over a failed test is unresolved (and, invalid, credited with no pass)", () => {
    const e = trial({ resolved: true, parserResults: { a: "passed", b: "failed" } });
    expect([e.validity, e.state, e.rewards, e.pass]).toEqual(["invalid", "unresolved", { resolved: 0 }, null]);
  });

  it.each([
    ["true, every test passed", { resolved: true, parserResults: { a: "passed" } }],
    ["false, one failed", { resolved: false, parserResults: { a: "passed", b: "failed" } }],
    ["null, none parsed", { resolved: null, parserResults: null, failureMode: "parse_error" }],
  ] as [string, TbTrialSpec][])("%s agrees", (_, spec) => expectValid(trial(spec)));
});

describe("rule 5: resolved with no test parsed (NO_TESTS_PARSED)", () => {
  it("parser_results {} with is_resolved true is invalid, though TB's rule gives true", () => {
    const e = trial({ resolved: true, parserResults: {} }, { pane: "== short test summary info ==\n" });
    expect(codes(e.errors)).toEqual(["NO_TESTS_PARSED"]);
    expect([e.validity, e.state, e.pass]).toEqual(["invalid", "resolved", null]); // TB's verdict kept as the state, never credited
  });
  it("one passing test is not", () => expectValid(trial({ resolved: true, parserResults: { a: "passed" } })));
});

describe("rule 6: parser_results against the pane (PANE_MISMATCH)", () => {
  it("a claim the pane does not show is a mismatch naming the difference; the verdict follows the pane", () => {
    const e = trial({ parserResults: PASS3 }, { pane: pane("fail-wrapped.txt") });
    expect(codes(e.errors)).toEqual(["PANE_MISMATCH"]);
    expect(e.errors[0]!.message).toContain('"test_fifo_exists": passed in parser_results, failed in the pane');
    expect([e.pass, e.state, e.terminal_bench?.pane]).toEqual([null, "unresolved", "differs"]);
  });

  it("a pytest-shaped claim beside a pane with no summary header: TB's parser would have raised", () => {
    const e = trial({ parserResults: { test_a: "passed" } }, { pane: pane("no-header.txt") });
    expect(codes(e.errors)).toEqual(["PANE_MISMATCH"]);
    expect(e.errors[0]!.message).toContain("no short test summary info header");
  });

  it("a marker parser's claim agrees with its markers; the same claim against the opposite marker fails", () => {
    const ok = trial({ parserResults: { tests: "passed" } }, { pane: pane("swebench.txt") });
    expectValid(ok);
    expect([ok.terminal_bench?.parser, ok.reward_source]).toEqual(["swebench", "panes/post-test.txt (swebench)"]);
    const bad = trial(
      { parserResults: { tests: "passed" } },
      { pane: pane("swebench.txt").replace("\nPASSED\n", "\nFAILED\n") },
    );
    expect(codes(bad.errors)).toEqual(["PANE_MISMATCH"]);
  });

  it("a parse error beside a pane with no format agrees; beside a pytest summary it is said (the task's parser is unrecorded)", () => {
    expectValid(
      trial({ failureMode: "parse_error", resolved: null, parserResults: null }, { pane: pane("no-header.txt") }),
    );
    const e = trial({ failureMode: "parse_error", resolved: null, parserResults: null }, { pane: pane("pass.txt") });
    expectValid(e);
    expect(codes(e.warnings)).toEqual(["PANE_NOT_REDERIVED"]);
    expect(e.terminal_bench?.pane).toBe("not-rederived");
  });
});

describe("rule 7: a pane that cannot be re-derived (PANE_NOT_REDERIVED) leaves the claim unchecked, never a pass by default", () => {
  it("absent: said when there was a claim to check; the verdict rests on parser_results", () => {
    const e = trial({ parserResults: PASS3 });
    expectValid(e);
    expect([codes(e.warnings), e.terminal_bench?.pane, e.pass, e.reward_source]).toEqual([
      ["PANE_NOT_REDERIVED"],
      "absent",
      true,
      "results.json parser_results",
    ]);
    expect(codes(trial({ harness: true }).warnings)).toEqual([]);
  });

  // Rule 7a (issue 35): TB writes no such pane, so a resolved claim it would check earns no credit (PANE_UNREADABLE); a failed one stands.
  it("not UTF-8", () => {
    const bad = Buffer.concat([Buffer.from(pane("pass.txt")), Buffer.from([0xff, 0xfe])]);
    const e = trial({ parserResults: FAIL_WRAPPED as Record<string, "passed" | "failed"> }, { pane: bad });
    expectValid(e);
    expect(withCode(e.warnings, "PANE_NOT_REDERIVED")[0]!.message).toContain("not UTF-8");
    const resolved = trial({ parserResults: PASS3 }, { pane: bad });
    expect([resolved.validity, codes(resolved.errors), resolved.pass]).toEqual(["invalid", ["PANE_UNREADABLE"], null]);
  });

  it(`over ${MAX_PANE_BYTES} bytes is not read; at the limit it is`, () => {
    const big = trial({ parserResults: FAIL_WRAPPED as Record<string, "passed" | "failed"> }, { pane: "" }, (dir) =>
      truncateSync(join(dir, "panes", "post-test.txt"), MAX_PANE_BYTES + 1),
    );
    expectValid(big);
    expect(withCode(big.warnings, "PANE_NOT_REDERIVED")[0]!.message).toContain(`${MAX_PANE_BYTES + 1} bytes`);
    const bigResolved = trial({ parserResults: PASS3 }, { pane: "" }, (dir) =>
      truncateSync(join(dir, "panes", "post-test.txt"), MAX_PANE_BYTES + 1),
    );
    expect(codes(bigResolved.errors)).toEqual(["PANE_UNREADABLE"]);
    const text = pane("pass.txt");
    const atLimit = trial(
      { parserResults: PASS3 },
      { pane: text + " ".repeat(MAX_PANE_BYTES - Buffer.byteLength(text)) },
    );
    expectValid(atLimit);
    expect([atLimit.warnings, atLimit.terminal_bench?.pane]).toEqual([[], "agrees"]);
  });
});

describe("rule 8: a test timeout's partial summary is information (PANE_PARTIAL_SUMMARY)", () => {
  it("results in the pane of a timed-out trial are reported, not counted", () => {
    const e = trial(
      { failureMode: "test_timeout", resolved: null, parserResults: null },
      { pane: pane("timeout-partial.txt") },
    );
    expectValid(e);
    expect([codes(e.warnings), e.state, e.pass, e.terminal_bench?.pane]).toEqual([
      ["PANE_PARTIAL_SUMMARY"],
      "test-timeout",
      null,
      "ignored",
    ]);
    expect(e.warnings[0]!.message).toContain("2 test results (pytest)");
  });
  it("a timed-out trial whose pane holds no result says nothing", () => {
    const e = trial(
      { failureMode: "test_timeout", resolved: null, parserResults: null },
      { pane: pane("no-header.txt") },
    );
    expect([e.warnings, e.terminal_bench?.pane]).toEqual([[], "ignored"]);
  });
});

describe("rule 9: review flags never change the verdict", () => {
  const SKIPPED = {
    test_service_process_running: "passed",
    "[1] ../tests/test_outputs.py:48: Bitcoin service does not appear to be running": "passed",
    "[1] ../tests/test_outputs.py:61: Bitcoin service does not appear to be running": "passed",
  };
  it("SKIPPED_AS_PASSED on a trial resolved with skipped tests", () => {
    const e = trial({ parserResults: SKIPPED }, { pane: pane("skipped.txt") });
    expectValid(e);
    expect([e.state, e.flags]).toEqual([
      "resolved",
      [
        {
          code: "SKIPPED_AS_PASSED",
          evidence: "2 of 3 tests passed only as SKIPPED or XFAIL lines in panes/post-test.txt",
        },
      ],
    ]);
  });
  it("not on a trial that failed anyway, nor one with no skip", () => {
    const pane2 = pane("skipped.txt").replace(
      "PASSED ../tests/test_outputs.py::test_service_process_running",
      "FAILED ../tests/test_outputs.py::test_service_process_running",
    );
    expect(
      codes(trial({ parserResults: { ...SKIPPED, test_service_process_running: "failed" } }, { pane: pane2 }).flags),
    ).toEqual([]);
    expect(codes(trial({ parserResults: PASS3 }, { pane: pane("pass.txt") }).flags)).toEqual([]);
  });
  it("DUPLICATE_TEST_NAME when a summary line overwrote an earlier one", () => {
    const e = trial({ parserResults: { test_flaky: "passed", test_other: "passed" } }, { pane: pane("duplicate.txt") });
    expectValid(e);
    expect([e.pass, codes(e.flags)]).toEqual([true, ["DUPLICATE_TEST_NAME"]]);
  });
});

describe("rule 10: tokens as recorded; 0 and 0 is not a measured zero", () => {
  it.each([
    ["recorded", [205026, 10208], { input_tokens: 205026, output_tokens: 10208 }],
    ["recorded", [1200, 0], { input_tokens: 1200, output_tokens: 0 }],
    ["reported-none", [0, 0], { input_tokens: null, output_tokens: null }],
    ["not-recorded", [null, null], { input_tokens: null, output_tokens: null }],
  ] as [string, [number | null, number | null], object][])("%s: %j", (tokens, given, usage) => {
    const e = trial({ tokens: given });
    expect(e.terminal_bench?.tokens).toBe(tokens);
    expect(e.usage).toEqual({ ...usage, cache_read_tokens: null, cost_usd: null });
  });
});

// ---------------------------------------------------------------------------------------------

describe("rule 1: recognising a run from the head of its results.json", () => {
  const head = (s: string) => new TextEncoder().encode(s);
  const none = { tbLock: false, runMetadata: false };
  it("results listing trials is a run, alone or beside its files", () => {
    const text = json({ id: "x", results: [tbTrial()], pass_at_k: {} });
    expect(recogniseRun(head(text), none)).toMatchObject({ run: true });
    expect(recogniseRun(head(text), { tbLock: true, runMetadata: true }).reason).toContain(
      "beside tb.lock and run_metadata.json",
    );
    // 0.2.7: no id, trials with uuid; fields before results; strings holding brackets, quotes and escapes.
    expect(
      recogniseRun(
        head(
          `{"note": "a \\"[{\\" ]}", "n": [1, {"x": "}"}], "results": [{"uuid": "u", "trial_name": "t.1-of-1", "task_id": "t"}]}`,
        ),
        none,
      ).run,
    ).toBe(true);
  });
  it(`decided from the head read: within the first ${RUN_HEAD_BYTES} bytes, or a longer read asked for (issue 35)`, () => {
    const at = (pad: number) =>
      head(`{"id": "${"x".repeat(pad)}", "results": [{"id": "u", "trial_name": "t.1-of-1", "task_id": "t"}]}`).subarray(
        0,
        RUN_HEAD_BYTES,
      );
    expect(recogniseRun(at(RUN_HEAD_BYTES - 200), none).run).toBe(true);
    expect(recogniseRun(at(RUN_HEAD_BYTES), none)).toMatchObject({ run: false, more: true });
  });
  it("an empty list is a run only beside tb.lock or run_metadata.json", () => {
    expect(recogniseRun(head('{"id": "x", "results": []}'), { tbLock: true, runMetadata: false }).run).toBe(true);
    expect(recogniseRun(head('{"id": "x", "results": []}'), none).run).toBe(false);
  });
  it.each([
    ["a Harbor job's result.json", json({ id: "x", n_total_trials: 1, stats: {} })],
    ["results of other objects", json({ results: [{ name: "x", score: 1 }] })],
    ["results not at the top level", json({ run: { results: [tbTrial()] } })],
    ["a list at the top", json([tbTrial()])],
    ["a head cut before the answer", json({ id: "x", results: [tbTrial()] }).slice(0, 40)],
    ["not JSON", "results trial_name task_id"],
  ])("%s is not", (_, text) => expect(recogniseRun(head(text), { tbLock: true, runMetadata: true }).run).toBe(false));
});

describe("trial folder names", () => {
  it("<task>.<k>-of-<n>.<run_id>, and 0.2.7's without the run id", () => {
    expect(parseTrialName("fifo.2-of-5.2025-08-25__16-36-35")).toEqual({
      task: "fifo",
      attempt: 2,
      of: 5,
      runId: "2025-08-25__16-36-35",
    });
    expect(parseTrialName("security-vulhub-minio.2-of-5")).toEqual({
      task: "security-vulhub-minio",
      attempt: 2,
      of: 5,
      runId: null,
    });
  });
  it("a task id with dots: its folder name decides the prefix", () => {
    const name = "incompatible-python-fasttext.base_with_hint.3-of-5.run1";
    expect(parseTrialName(name, "incompatible-python-fasttext.base_with_hint")).toMatchObject({
      attempt: 3,
      of: 5,
      runId: "run1",
    });
    expect(parseTrialName(name, "other")).toBeNull();
  });
  it("a run's subfolder is a task folder when it holds its trials; a run nested inside is not", () => {
    expect(isTaskFolder("fifo", ["fifo.1-of-1.2025-08-25__16-36-35"])).toBe(true);
    expect(isTaskFolder("2025-08-15__16-23-45", ["fifo", "hello"])).toBe(false);
    expect(isTaskFolder("fifo", ["hello.1-of-1"])).toBe(false);
  });
  it.each(["fifo", "fifo.x-of-5", ".1-of-1", "fifo.1-of-"])("%s is not a trial name", (name) =>
    expect(parseTrialName(name)).toBeNull(),
  );
});
