// The run's recount (swe-bench/recount.ts) and the experiment's figure (experiment-figures.ts):
// each figure on each side of its rule, on the fixture run and on it changed one thing at a time.
import { beforeAll, describe, expect, it } from "vitest";
import {
  experimentFigures,
  NOT_SUBMITTED_REASON,
  type FigureOptions,
} from "../src/kinds/swe-bench/experiment-figures.js";
import type { FinalReport } from "../src/kinds/swe-bench/final-report.js";
import type { PredictionsSummary } from "../src/kinds/swe-bench/predictions.js";
import { recount, type ComparedFigure } from "../src/kinds/swe-bench/recount.js";
import { runInstances, type InstanceOutcome } from "../src/kinds/swe-bench/run-instances.js";
import {
  A,
  B,
  C,
  D,
  E,
  F,
  fixtureOutcomes,
  fixturePredictions,
  fixtureReport,
  REPORT_NAME,
} from "./helpers/swe-bench-run.js";

let report: FinalReport;
let predictions: PredictionsSummary;
let outcomes: InstanceOutcome[];
beforeAll(async () => {
  report = fixtureReport();
  predictions = await fixturePredictions();
  outcomes = await fixtureOutcomes();
});
const withOutcome = (id: string, change: Partial<InstanceOutcome>) =>
  outcomes.map((o) => (o.id === id ? { ...o, ...change } : o));
const row = (rows: ComparedFigure[], metric: string) => rows.find((r) => r.metric === metric);

describe("recount", () => {
  it("the harness's own report: every count present, each agreeing, the counts as written", () => {
    const c = recount(REPORT_NAME, report, predictions, outcomes);
    expect(c.source).toBe(REPORT_NAME);
    expect(c.metrics).toEqual({
      total_instances: 6,
      submitted_instances: 5,
      completed_instances: 3,
      resolved_instances: 1,
      unresolved_instances: 2,
      infra_failure_instances: 1,
      ambiguous_failure_instances: 1,
      empty_patch_instances: 1,
      error_instances: 1,
    });
    expect(c.compared.every((r) => r.reason === null && r.assay === r.claimed)).toBe(true);
  });
  it("a count that differs says what the evidence gives", () => {
    const c = recount(REPORT_NAME, { ...report, resolved_instances: 2 }, predictions, outcomes);
    expect(row(c.compared, "resolved_instances")).toEqual({
      metric: "resolved_instances",
      claimed: 2,
      assay: 1,
      reason: "the evidence gives 1",
    });
  });
  it("an older report's absent counts are not compared", () => {
    const { infra_failure_instances, ambiguous_failure_instances, ...old } = report;
    const c = recount(REPORT_NAME, old as FinalReport, predictions, outcomes);
    expect(c.compared.map((r) => r.metric)).not.toContain("infra_failure_instances");
    expect(Object.keys(c.metrics)).toHaveLength(7);
  });
  it("without predictions, submitted and empty patches come from the report's lists, and say so", () => {
    const c = recount(REPORT_NAME, report, null, outcomes);
    expect(row(c.compared, "submitted_instances")).toEqual({
      metric: "submitted_instances",
      claimed: 5,
      assay: 5,
      reason: "no predictions: the report's own list",
    });
    expect(row(c.compared, "empty_patch_instances")).toMatchObject({
      assay: 1,
      reason: "no predictions: the report's listed ids without a folder",
    });
    expect(
      row(
        recount(REPORT_NAME, { ...report, submitted_ids: undefined }, null, outcomes).compared,
        "submitted_instances",
      ),
    ).toMatchObject({ assay: null, reason: "the evidence cannot give it; no predictions and no submitted_ids" });
  });
  it("with predictions, submitted and empty patches are the model's records", () => {
    const more: PredictionsSummary = {
      ...predictions,
      records: new Map([...predictions.records, ["pallets__flask-9", { empty: false, digest: "" }]]),
    };
    expect(row(recount(REPORT_NAME, report, more, outcomes).compared, "submitted_instances")).toMatchObject({
      assay: 6,
      reason: "the evidence gives 6",
    });
  });
  it("resolved: re-derived, the report's own verdict counted and said for an unverified instance", () => {
    const unverified = withOutcome(A, { state: "unverified", resolved: true, reportOnly: true });
    expect(row(recount(REPORT_NAME, report, predictions, unverified).compared, "resolved_instances")).toEqual({
      metric: "resolved_instances",
      claimed: 1,
      assay: 1,
      reason: "1 of them unverified: the report's own verdict",
    });
  });
  it("unresolved: a readable report not resolved; error: submitted, not empty, no readable report (a missing one included)", () => {
    const unreadable = withOutcome(B, { reportReadable: false, state: "incomplete" });
    const c = recount(REPORT_NAME, report, predictions, unreadable).compared;
    expect([row(c, "unresolved_instances")?.assay, row(c, "error_instances")?.assay]).toEqual([1, 2]);
    const X = "pallets__flask-9999";
    const withMissing = { ...report, error_ids: [E, X], submitted_ids: [...report.submitted_ids!, X] };
    expect(row(recount(REPORT_NAME, withMissing, predictions, outcomes).compared, "error_instances")?.assay).toBe(2);
  });
  it("completed: a report.json file, readable or not", () => {
    const c = recount(REPORT_NAME, report, predictions, withOutcome(E, { reportFile: true })).compared;
    expect(row(c, "completed_instances")?.assay).toBe(4);
  });
  it("the failure counts re-classify the recounted unresolved and error instances only", () => {
    const c = recount(
      REPORT_NAME,
      report,
      predictions,
      withOutcome(A, { infra: { reason: "out_of_memory", tier: "environment" } }),
    ).compared;
    expect(row(c, "infra_failure_instances")?.assay).toBe(1);
    const d = recount(
      REPORT_NAME,
      report,
      predictions,
      withOutcome(B, { infra: { reason: "out_of_memory", tier: "environment" } }),
    ).compared;
    expect(row(d, "infra_failure_instances")?.assay).toBe(2);
  });
  it("over D: an id in submitted_ids alone (missing) enters submitted only, as the report's own list", () => {
    const X = "pallets__flask-9999";
    const r = { ...report, submitted_ids: [...report.submitted_ids!, X] };
    const c = recount(REPORT_NAME, r, null, outcomes).compared;
    expect(["total_instances", "submitted_instances", "error_instances"].map((m) => row(c, m)?.assay)).toEqual([
      6, 6, 1,
    ]);
  });
  it("over D: an unlisted folder is not recounted", () => {
    const extra = { ...outcomes.find((o) => o.id === A)!, id: "pallets__flask-1" };
    const c = recount(REPORT_NAME, report, predictions, [...outcomes, extra]).compared;
    expect([row(c, "total_instances")?.assay, row(c, "resolved_instances")?.assay]).toEqual([6, 1]);
  });
});

describe("the experiment's figure", () => {
  const DEFAULT: FigureOptions = { errors: "exclude", invalid: "count" };
  const figures = (o = outcomes, options = DEFAULT, r: FinalReport | null = report) =>
    experimentFigures(runInstances(r, predictions, o), options, r?.total_instances ?? null);
  it("by default: the states with a verdict in the mean, errors excluded, the unsubmitted in trials only", () => {
    const f = figures();
    expect(f.states).toEqual({
      resolved: 1,
      unresolved: 1,
      "tests-not-run": 1,
      "empty-patch": 1,
      "patch-apply-failed": 0,
      "tests-timeout": 0,
      error: 1,
      incomplete: 0,
      unverified: 0,
      missing: 0,
      "not-submitted": 1,
    });
    expect(f.counted).toEqual([
      { trial: A, value: 1, invalid: false },
      { trial: B, value: 0, invalid: false },
      { trial: C, value: 0, invalid: false },
      { trial: F, value: 0, invalid: false },
    ]);
    expect([f.resolved, f.covered, f.trials, f.coverage]).toEqual([1, 4, 6, 4 / 6]);
    expect(f.excluded).toEqual([{ trial: E, reason: "error" }]);
    expect(f.missing).toEqual([{ count: 1, reason: NOT_SUBMITTED_REASON }]);
    expect(f.resolved_over_total).toEqual({ resolved: 1, total: 6, value: 1 / 6 });
  });
  it("an id in submitted_ids alone, without a folder: missing, out of the mean by default, 0 under --errors zero", () => {
    const X = "pallets__flask-9999";
    const r = { ...report, submitted_ids: [...report.submitted_ids!, X] };
    const f = figures(outcomes, DEFAULT, r);
    expect([f.states.missing, f.trials, f.covered, f.missing[0]]).toEqual([1, 7, 4, X]);
    expect(f.resolved_over_total).toEqual({ resolved: 1, total: 6, value: 1 / 6 });
    const z = figures(outcomes, { errors: "zero", invalid: "count" }, r);
    expect(z.counted.find((c) => c.trial === X)).toEqual({ trial: X, value: 0, invalid: false });
    expect(figures().states.missing).toBe(0);
  });
  it("--errors zero: every submitted instance covered, the error-like at 0, none excluded", () => {
    const f = figures(outcomes, { errors: "zero", invalid: "count" });
    expect(f.counted.map((c) => [c.trial, c.value])).toEqual([
      [A, 1],
      [B, 0],
      [C, 0],
      [E, 0],
      [F, 0],
    ]);
    expect([f.covered, f.excluded]).toEqual([5, []]);
    expect(f.counted.map((c) => c.trial)).not.toContain(D);
  });
  it("each error-like state is excluded by default and 0 under --errors zero", () => {
    for (const state of ["tests-timeout", "error", "incomplete", "unverified"] as const) {
      const o = withOutcome(B, { state });
      expect(figures(o).excluded, state).toEqual([
        { trial: B, reason: state },
        { trial: E, reason: "error" },
      ]);
      expect(
        figures(o, { errors: "zero", invalid: "count" }).counted.find((c) => c.trial === B),
        state,
      ).toEqual({ trial: B, value: 0, invalid: false });
    }
    expect(figures(withOutcome(B, { state: "patch-apply-failed" })).counted.find((c) => c.trial === B)).toEqual({
      trial: B,
      value: 0,
      invalid: false,
    });
  });
  it("missing: listed in missing, out of the mean by default, 0 under --errors zero", () => {
    const X = "pallets__flask-9999";
    const r = { ...report, error_ids: [E, X] };
    expect(figures(outcomes, DEFAULT, r).missing).toEqual([X, { count: 1, reason: NOT_SUBMITTED_REASON }]);
    expect(figures(outcomes, DEFAULT, r).counted.map((c) => c.trial)).not.toContain(X);
    expect(figures(outcomes, { errors: "zero", invalid: "count" }, r).counted.find((c) => c.trial === X)).toEqual({
      trial: X,
      value: 0,
      invalid: false,
    });
  });
  it("an invalid instance counts 0 (listed with its codes), or leaves both sides under --invalid exclude", () => {
    const o = withOutcome(A, { invalid: ["REPORT_MISMATCH"] });
    const f = figures(o);
    expect([f.counted[0], f.resolved, f.covered, f.invalid]).toEqual([
      { trial: A, value: 0, invalid: true },
      0,
      4,
      [{ trial: A, codes: ["REPORT_MISMATCH"] }],
    ]);
    const g = figures(o, { errors: "exclude", invalid: "exclude" });
    expect([g.covered, g.trials, g.invalid.length, g.excluded.map((x) => x.trial)]).toEqual([3, 6, 1, [E]]);
    // An invalid instance in an error-like state is covered at 0 too, not excluded.
    expect(figures(withOutcome(E, { invalid: ["EXIT_CODE_CONFLICT"] })).excluded).toEqual([]);
  });
  it("a report's own resolved verdict is never credited", () => {
    expect(figures(withOutcome(A, { reportOnly: true })).counted[0]).toEqual({ trial: A, value: 0, invalid: false });
  });
  it("resolved_over_total: over total_instances, else over the run's instances", () => {
    expect(figures(outcomes, DEFAULT, { ...report, total_instances: 10 }).resolved_over_total).toEqual({
      resolved: 1,
      total: 10,
      value: 0.1,
    });
    expect(figures(outcomes, DEFAULT, null).resolved_over_total).toEqual({ resolved: 1, total: 5, value: 0.2 });
    expect(experimentFigures([], DEFAULT, null)).toMatchObject({
      coverage: null,
      resolved_over_total: { resolved: 0, total: 0, value: null },
      missing: [],
    });
  });
});
