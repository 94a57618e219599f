// An instance folder of a SWE-bench run, short of the registry: repo → parser, infra signatures,
// run_instance.log's facts, report.json's entry, the hard checks and the state (swe-bench/*.ts),
// on the folders of fixtures/swe-bench/instances (the harness's layout and formats at 7a21e05).
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchInTest } from "./helpers/shared.js";
import { exitCodeFindings, inconsistencies, instanceFindings, type Finding } from "../src/kinds/swe-bench/checks.js";
import { rederive, TestOutputScan, type LogEvaluation } from "../src/kinds/swe-bench/grade.js";
import { InfraScan } from "../src/kinds/swe-bench/infra.js";
import { decidingOf, reportEntryOf, type InstanceReport } from "../src/kinds/swe-bench/instance-report.js";
import { assessInstance } from "../src/kinds/swe-bench/instance.js";
import { linesOf } from "../src/kinds/swe-bench/python-text.js";
import { INSTANCE_ID_RE, repoOf } from "../src/kinds/swe-bench/repo.js";
import { RunLogScan } from "../src/kinds/swe-bench/run-log.js";
import { decideState } from "../src/kinds/swe-bench/state.js";
import { harnessCases } from "./swe-bench-cases.js";

const MODEL = new URL("fixtures/swe-bench/instances/logs/run_evaluation/demo-run/org__model-7b/", import.meta.url)
  .pathname;
const S = ">>>>> Start Test Output";
const E = ">>>>> End Test Output";
const codes = (fs: Finding[]) => fs.map((f) => f.code);

describe("an instance id names its repo and parser", () => {
  it("owner before the first __, name up to the last -", () => {
    expect(repoOf("pvlib__pvlib-python-1072")).toEqual({ repo: "pvlib/pvlib-python", parser: "pytest" });
    expect(repoOf("scikit-learn__scikit-learn-10297")).toEqual({
      repo: "scikit-learn/scikit-learn",
      parser: "pytest_v2",
    });
    expect(repoOf("django__django-11099")).toEqual({ repo: "django/django", parser: "django" });
    expect(repoOf("psf__requests-2317")?.parser).toBe("pytest_options");
    expect(repoOf("mwaskom__seaborn-3190")?.parser).toBe("seaborn");
    expect(repoOf("matplotlib__matplotlib-23314")?.parser).toBe("matplotlib");
    expect(repoOf("sympy__sympy-20590")?.parser).toBe("sympy");
  });
  it("a repo outside the seven parsers is unsupported", () => {
    expect(repoOf("gin-gonic__gin-1805")).toEqual({ repo: "gin-gonic/gin", parser: null });
    expect(repoOf("django__djangoo-1")?.parser).toBe(null);
  });
  it("a name not shaped like an id is none", () => {
    for (const bad of ["django-11099", "django__django", "django__django-", "_x__y-1", "a__b-1a", "a__b c-1"])
      expect(repoOf(bad), bad).toBe(null);
    for (const good of ["a__b-1", "a.b__c_d-e-12", "a__b__c-3"]) expect(INSTANCE_ID_RE.test(good), good).toBe(true);
  });
});

describe("infra signatures: what the harness's classify_text gives", () => {
  for (const c of harnessCases.infra) {
    it(c.name, () => {
      const scan = new InfraScan();
      for (const l of linesOf(c.text)) scan.line(l);
      expect(scan.result()).toEqual(c.expected);
    });
  }
  it("test_output.txt and run_instance.log are separate lines (joined by \\n)", () => {
    const scan = new InfraScan();
    for (const l of [...linesOf("x\nKil"), ...linesOf("led\n")]) scan.line(l);
    expect(scan.result()).toBe(null);
  });
});

describe("run_instance.log's facts", () => {
  const facts = (file: string) => {
    const scan = new RunLogScan();
    for (const l of linesOf(readFileSync(join(MODEL, file, "run_instance.log"), "utf8"))) scan.line(l);
    return scan.result();
  };
  it("a patch none of the apply commands took, and the EvaluationError raised for it", () => {
    expect(facts("django__django-11099")).toMatchObject({
      patchApplyFailed: "2026-08-20 10:01:02,400 - INFO - >>>>> Patch Apply Failed:",
      exceptionType: "EvaluationError",
      exceptionMessage: expect.stringMatching(
        /^swebench\.harness\.utils\.EvaluationError: Error in evaluation for django__django-11099/,
      ),
    });
  });
  it("a chained traceback names its last exception's class", () => {
    expect(facts("psf__requests-2317")).toMatchObject({
      patchApplyFailed: null,
      exceptionType: "APIError",
      exceptionLine: expect.stringMatching(/Error in evaluating model/),
    });
  });
  it("a graded instance records none; a killed one neither", () => {
    expect(facts("astropy__astropy-12907")).toEqual({
      patchApplyFailed: null,
      exceptionLine: null,
      exceptionType: null,
      exceptionMessage: null,
    });
    expect(facts("pydata__xarray-4094")).toEqual({
      patchApplyFailed: null,
      exceptionLine: null,
      exceptionType: null,
      exceptionMessage: null,
    });
  });
});

describe("report.json's entry", () => {
  const good = { resolved: false, patch_is_None: false, patch_exists: true, patch_successfully_applied: true };
  it("the folder's id keys a report with resolved", () => {
    expect(reportEntryOf({ "x__y-1": good }, "x__y-1")).toEqual({ entry: "ok", report: good });
  });
  it("unreadable as the harness's make_run_report finds it: not an object, no key, no resolved", () => {
    expect(reportEntryOf([good], "x__y-1")).toMatchObject({ entry: "unreadable" });
    expect(reportEntryOf({ "x__y-2": good }, "x__y-1")).toMatchObject({
      entry: "unreadable",
      why: "report.json has no entry for x__y-1",
    });
    expect(reportEntryOf({ "x__y-1": { patch_exists: true } }, "x__y-1")).toMatchObject({ entry: "unreadable" });
    expect(reportEntryOf({ "x__y-1": null }, "x__y-1")).toMatchObject({ entry: "unreadable" });
  });
  it("a known field of the wrong type is a schema finding naming it", () => {
    expect(reportEntryOf({ "x__y-1": { resolved: "yes" } }, "x__y-1")).toEqual({
      entry: "schema",
      issues: [{ path: "x__y-1.resolved", message: expect.any(String) }],
    });
    const bad = {
      resolved: true,
      tests_status: { FAIL_TO_PASS: { success: "a", failure: [] }, PASS_TO_PASS: { success: [], failure: [] } },
    };
    expect(reportEntryOf({ "x__y-1": bad }, "x__y-1")).toMatchObject({
      entry: "schema",
      issues: [{ path: "x__y-1.tests_status.FAIL_TO_PASS.success" }],
    });
  });
  it("its deciding tests: success then failure; none without tests_status", () => {
    const r = {
      resolved: false,
      tests_status: { FAIL_TO_PASS: { success: ["a"], failure: ["b"] }, PASS_TO_PASS: { success: [], failure: ["c"] } },
    };
    expect(decidingOf(r)).toEqual({ FAIL_TO_PASS: ["a", "b"], PASS_TO_PASS: ["c"] });
    expect(decidingOf({ resolved: false })).toBe(null);
  });
});

const lists = (f2pFail: string[] = []) => ({
  FAIL_TO_PASS: { success: ["f"], failure: f2pFail },
  PASS_TO_PASS: { success: [], failure: [] },
});

describe("REPORT_INCONSISTENT", () => {
  it("resolved with its own failure, with the patch not applied, without tests_status", () => {
    expect(inconsistencies({ resolved: true, tests_status: lists(["g"]) })).toHaveLength(1);
    expect(inconsistencies({ resolved: true, patch_successfully_applied: false, tests_status: lists() })).toHaveLength(
      1,
    );
    expect(inconsistencies({ resolved: true })[0]?.message).toMatch(/without tests_status/);
  });
  it("patch_exists must be the negation of patch_is_None", () => {
    expect(codes(inconsistencies({ resolved: false, patch_exists: true, patch_is_None: true }))).toEqual([
      "REPORT_INCONSISTENT",
    ]);
  });
  it("a report the harness could write is consistent (an unresolved one may list failures)", () => {
    expect(
      inconsistencies({
        resolved: true,
        patch_successfully_applied: true,
        patch_exists: true,
        patch_is_None: false,
        tests_status: lists(),
      }),
    ).toEqual([]);
    expect(inconsistencies({ resolved: false, patch_successfully_applied: true, tests_status: lists(["g"]) })).toEqual(
      [],
    );
  });
});

function evaluate(text: string, parser: "pytest" | "django" = "pytest"): LogEvaluation {
  const s = new TestOutputScan(parser);
  for (const l of linesOf(text)) s.line(l);
  return s.finish();
}
function findings(report: InstanceReport, text: string): Finding[] {
  const evaluation = evaluate(text);
  const rederivation = rederive(evaluation, decidingOf(report) ?? { FAIL_TO_PASS: [], PASS_TO_PASS: [] });
  return instanceFindings({ report, testOutputPresent: true, evaluation, rederivation });
}

describe("REPORT_MISMATCH names the field and the rule an older harness lacked", () => {
  const ts = (
    f2p: { success: string[]; failure: string[] },
    p2p = { success: [] as string[], failure: [] as string[] },
  ) => ({ FAIL_TO_PASS: f2p, PASS_TO_PASS: p2p });
  it("an agreeing report: none", () => {
    const r = { resolved: true, patch_successfully_applied: true, tests_status: ts({ success: ["a"], failure: [] }) };
    expect(findings(r, `${S}\nPASSED a\n${E}\n>>>>> Test Exit Code: 0\n`)).toEqual([]);
  });
  it("applied by a harness without SUITE_RAN", () => {
    const r = { resolved: true, patch_successfully_applied: true, tests_status: ts({ success: [], failure: [] }) };
    const fs = findings(r, `${S}\nnothing ran\n${E}\n>>>>> Test Exit Code: 0\n`);
    expect(codes(fs)).toEqual(["REPORT_MISMATCH", "REPORT_MISMATCH"]);
    expect(fs[0]?.message).toMatch(/patch_successfully_applied is true, .* gives false \(.*SUITE_RAN/);
    expect(fs[1]?.message).toMatch(/resolved is true, .* gives false \(as patch_successfully_applied\)/);
  });
  it("forged passes graded by a harness without #620: the contradiction too", () => {
    const r = { resolved: true, patch_successfully_applied: true, tests_status: ts({ success: ["a"], failure: [] }) };
    const fs = findings(r, `${S}\nPASSED a\n${E}\n>>>>> Test Exit Code: 1\n`);
    expect(codes(fs)).toEqual(["REPORT_MISMATCH", "REPORT_MISMATCH", "EXIT_CODE_CONTRADICTION"]);
    expect(fs[0]?.message).toMatch(/#620/);
  });
  it("not applied by a harness without #402's fallback", () => {
    const r = { resolved: false, patch_successfully_applied: false };
    const fs = findings(r, `PASSED a\n${S}\n${E}\n>>>>> Test Exit Code: 0\n`);
    expect(codes(fs)).toEqual(["REPORT_MISMATCH"]);
    expect(fs[0]?.message).toMatch(/patch_successfully_applied is false, .* gives true \(.*#402/);
  });
  it("a skipped FAIL_TO_PASS test a harness before #598 counted as passed", () => {
    const r = {
      resolved: true,
      patch_successfully_applied: true,
      tests_status: ts({ success: ["a", "b"], failure: [] }),
    };
    const fs = findings(r, `${S}\nPASSED a\nSKIPPED b\n${E}\n>>>>> Test Exit Code: 0\n`);
    expect(codes(fs)).toEqual(["REPORT_MISMATCH", "REPORT_MISMATCH"]);
    expect(fs[1]?.message).toMatch(/FAIL_TO_PASS places 1 test\(s\) .*"b" success → failure \(status SKIPPED: .*#598/);
  });
  it("a truncated id a harness before #290 failed", () => {
    const r = {
      resolved: false,
      patch_successfully_applied: true,
      tests_status: ts({ success: [], failure: ["t[a-b"] }),
    };
    const fs = findings(r, `${S}\nPASSED t[a-b-c]\n${E}\n>>>>> Test Exit Code: 0\n`);
    expect(fs.map((f) => f.message).join("\n")).toMatch(/"t\[a-b" failure → success \(status PASSED, .*#290/);
  });
  it("a report without tests_status: only a verdict without results is checked", () => {
    expect(
      findings(
        { resolved: false, patch_successfully_applied: true },
        `${S}\nPASSED a\n${E}\n>>>>> Test Exit Code: 0\n`,
      ),
    ).toEqual([]);
    expect(codes(findings({ resolved: true, patch_successfully_applied: false }, `${S}\n${E}\n`))).toContain(
      "REPORT_MISMATCH",
    );
  });
});

describe("exit-code findings", () => {
  it("EXIT_CODE_CONFLICT: two values; the set -x trace of the real one is none", () => {
    expect(
      codes(exitCodeFindings(evaluate(`${S}\nFAILED a\n>>>>> Test Exit Code: 0\n${E}\n>>>>> Test Exit Code: 1\n`))),
    ).toEqual(["EXIT_CODE_CONFLICT"]);
    expect(
      exitCodeFindings(evaluate(`${S}\nFAILED a\n${E}\n+ echo '>>>>> Test Exit Code: 1'\n>>>>> Test Exit Code: 1\n`)),
    ).toEqual([]);
  });
  it("EXIT_CODE_UNRECORDED: results and no exit code; none when not found", () => {
    expect(codes(exitCodeFindings(evaluate(`${S}\nPASSED a\n${E}\n`)))).toEqual(["EXIT_CODE_UNRECORDED"]);
    expect(exitCodeFindings(evaluate(`${S}\nnothing\n${E}\n`))).toEqual([]);
  });
  it("TEST_OUTPUT_MISSING: a report.json with no test_output.txt", () => {
    expect(
      codes(
        instanceFindings({
          report: { resolved: false },
          testOutputPresent: false,
          evaluation: null,
          rederivation: null,
        }),
      ),
    ).toEqual(["TEST_OUTPUT_MISSING"]);
    expect(instanceFindings({ report: null, testOutputPresent: false, evaluation: null, rederivation: null })).toEqual(
      [],
    );
  });
});

describe("each fixture folder assessed from its files", () => {
  async function assess(id: string, maxLogBytes?: number) {
    let doc: unknown = undefined;
    try {
      doc = JSON.parse(readFileSync(join(MODEL, id, "report.json"), "utf8"));
    } catch {
      doc = undefined;
    }
    const a = await assessInstance(join(MODEL, id), id, doc, maxLogBytes);
    return a && { ...a.decision, log: a.log, codes: codes(a.findings), infra: a.infra };
  }
  it("resolved: report and log agree", async () => {
    expect(await assess("astropy__astropy-12907")).toEqual({
      state: "resolved",
      exception: null,
      reportOnly: false,
      log: "agrees",
      codes: [],
      infra: null,
    });
  });
  it("patch-apply-failed: the marker in run_instance.log, no test output", async () => {
    expect(await assess("django__django-11099")).toMatchObject({
      state: "patch-apply-failed",
      log: "absent",
      exception: { type: "PatchApplyFailed", message: "2026-08-20 10:01:02,400 - INFO - >>>>> Patch Apply Failed:" },
    });
  });
  it("tests-timeout: the timeout line ends test_output.txt, though run_instance.log holds a traceback", async () => {
    expect(await assess("sympy__sympy-20590")).toMatchObject({
      state: "tests-timeout",
      exception: { type: "TestsTimeout", message: "Timeout error: 1800 seconds exceeded." },
      infra: { reason: "tests_timed_out", tier: "ambiguous" },
    });
  });
  it("error: no report.json, the harness's exception logged", async () => {
    expect(await assess("psf__requests-2317")).toMatchObject({
      state: "error",
      exception: { type: "APIError", message: expect.stringMatching(/^docker\.errors\.APIError: 500/) },
    });
  });
  it("incomplete: no report.json, no recorded failure", async () => {
    expect(await assess("pydata__xarray-4094")).toMatchObject({ state: "incomplete", exception: null, codes: [] });
  });
  it("forged passes: unresolved, the report contradicted", async () => {
    expect(await assess("pytest-dev__pytest-5103")).toMatchObject({
      state: "unresolved",
      log: "differs",
      codes: ["REPORT_MISMATCH", "REPORT_MISMATCH", "EXIT_CODE_CONTRADICTION"],
    });
  });
  it("unverified: an unsupported repo's report kept, never re-derived", async () => {
    expect(await assess("gin-gonic__gin-1805")).toMatchObject({
      state: "unverified",
      reportOnly: true,
      log: "unverified",
      codes: [],
    });
  });
  it("a log over the limit: unverified, LOG_TOO_LARGE", async () => {
    expect(await assess("astropy__astropy-12907", 1000)).toMatchObject({
      state: "unverified",
      log: "unverified",
      codes: ["LOG_TOO_LARGE", "LOG_TOO_LARGE"],
    });
  });
  it("run_instance.log alone over the limit: unverified too, never credited (test_output.txt 1,518 bytes read, the log 1,874 not)", async () => {
    expect(await assess("astropy__astropy-12907", 1600)).toMatchObject({
      state: "unverified",
      reportOnly: true,
      codes: ["LOG_TOO_LARGE"],
    });
    // Its other side: at 1,874 bytes both are read, and the instance is re-derived.
    expect(await assess("astropy__astropy-12907", 1874)).toMatchObject({ state: "resolved", codes: [] });
  });
  it("an error's run_instance.log over the limit: unverified, its exception unknown (not incomplete)", async () => {
    expect(await assess("psf__requests-2317", 1000)).toMatchObject({
      state: "unverified",
      exception: null,
      reportOnly: false,
      codes: ["LOG_TOO_LARGE"],
    });
  });
  it("a report.json without the folder's id: REPORT_UNREADABLE, the state from the other files", async () => {
    const a = await assessInstance(join(MODEL, "astropy__astropy-12907"), "astropy__astropy-12907", { other: {} });
    expect(a && [a.decision.state, codes(a.findings)]).toEqual(["incomplete", ["REPORT_UNREADABLE"]]);
  });
  it("a test_output.txt that cannot be read: unverified, LOG_UNREADABLE (a tool error)", async () => {
    const { dir } = scratchInTest("assay-swe-");
    mkdirSync(join(dir, "test_output.txt"));
    const a = await assessInstance(dir, "astropy__astropy-12907", {
      "astropy__astropy-12907": { resolved: true, tests_status: lists() },
    });
    expect(a && [a.decision.state, a.log, codes(a.findings)]).toEqual(["unverified", "unverified", ["LOG_UNREADABLE"]]);
  });
  it("a folder not named like an instance id is none", async () => {
    expect(await assessInstance(MODEL, "org__model-7b", undefined)).toBe(null);
  });
});

describe("the state's order and each side of its lines", () => {
  const report = { resolved: true, tests_status: lists() };
  const facts = {
    patchApplyFailed: ">>>>> Patch Apply Failed:",
    exceptionLine: "Traceback (most recent call last):",
    exceptionType: "EvaluationError",
    exceptionMessage: "x.EvaluationError: boom",
  };
  const none = {
    report: null,
    testOutput: "absent" as const,
    evaluation: null,
    rederivation: null,
    supported: true,
    runLog: null,
  };
  const ev = (text: string) => evaluate(text);
  it("patch-apply-failed only where no test output was written (the patch is logged once applied)", () => {
    expect(decideState({ ...none, runLog: facts }).state).toBe("patch-apply-failed");
    expect(decideState({ ...none, runLog: facts, testOutput: "read", evaluation: ev(`${S}\n${E}\n`) }).state).toBe(
      "error",
    );
  });
  it("tests-timeout comes before a report.json", () => {
    const evaluation = ev(`${S}\nPASSED f\n\nTimeout error: 60 seconds exceeded.`);
    expect(
      decideState({
        ...none,
        report,
        testOutput: "read",
        evaluation,
        rederivation: rederive(evaluation, decidingOf(report) ?? { FAIL_TO_PASS: [], PASS_TO_PASS: [] }),
      }).state,
    ).toBe("tests-timeout");
  });
  it("a readable report: unverified when unsupported or the log too large", () => {
    expect(decideState({ ...none, report, testOutput: "read", supported: false }).state).toBe("unverified");
    expect(decideState({ ...none, report, testOutput: "too-large" })).toMatchObject({
      state: "unverified",
      reportOnly: true,
    });
    expect(decideState({ ...none, report, testOutput: "unreadable" })).toMatchObject({
      state: "unverified",
      reportOnly: true,
    });
  });
  it("a readable report without test_output.txt: its own verdict, never credited", () => {
    expect(decideState({ ...none, report })).toEqual({ state: "resolved", exception: null, reportOnly: true });
    expect(decideState({ ...none, report: { resolved: false } })).toMatchObject({
      state: "unresolved",
      reportOnly: true,
    });
  });
  it("re-derived: resolved, unresolved, tests-not-run, and step 5's unresolved", () => {
    const state = (text: string, r: InstanceReport = report) => {
      const evaluation = ev(text);
      return decideState({
        ...none,
        report: r,
        testOutput: "read",
        evaluation,
        rederivation: rederive(evaluation, decidingOf(r) ?? { FAIL_TO_PASS: [], PASS_TO_PASS: [] }),
      }).state;
    };
    expect(state(`${S}\nPASSED f\n${E}\n`)).toBe("resolved");
    expect(state(`${S}\nFAILED f\n${E}\n`)).toBe("unresolved");
    expect(state(`${S}\nnothing\n${E}\n`)).toBe("tests-not-run");
    expect(state(`${S}\nPASSED f\n`)).toBe("tests-not-run");
    expect(state(`${S}\nPASSED f\n${E}\n>>>>> Test Exit Code: 1\n`)).toBe("unresolved");
    // Results but no tests_status: the deciding tests are unknown, nothing credited.
    expect(state(`${S}\nPASSED f\n${E}\n`, { resolved: true })).toBe("unresolved");
  });
  it("no readable report: error with a recorded exception (its class, else error), else incomplete", () => {
    expect(decideState({ ...none, runLog: { ...facts, patchApplyFailed: null } }).exception).toEqual({
      type: "EvaluationError",
      message: "x.EvaluationError: boom",
    });
    expect(
      decideState({
        ...none,
        runLog: {
          patchApplyFailed: null,
          exceptionLine: "Error creating container for x",
          exceptionType: null,
          exceptionMessage: null,
        },
      }).exception,
    ).toEqual({
      type: "error",
      message: "Error creating container for x",
    });
    expect(
      decideState({
        ...none,
        runLog: { patchApplyFailed: null, exceptionLine: null, exceptionType: null, exceptionMessage: null },
      }).state,
    ).toBe("incomplete");
    expect(decideState(none).state).toBe("incomplete");
  });
  it("an exception's message is its first 200 characters", () => {
    const long = "é".repeat(300);
    expect(
      decideState({ ...none, runLog: { ...facts, patchApplyFailed: null, exceptionMessage: long } }).exception?.message,
    ).toBe("é".repeat(200));
  });
});
