// The run's claims (swe-bench/run-claims.ts, run-claim-mismatch.ts, run-instances.ts): each flag
// on each side of its line, against the fixture run (its report is make_run_report's own) and
// that report changed one field at a time.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { scratch } from "./helpers/shared.js";
import { assessInstance } from "../src/kinds/swe-bench/instance.js";
import type { FinalReport } from "../src/kinds/swe-bench/final-report.js";
import type { PredictionsSummary } from "../src/kinds/swe-bench/predictions.js";
import { MAX_FLAGS_PER_CODE, runClaims, type RunFlag } from "../src/kinds/swe-bench/run-claims.js";
import { outcomeOf, runInstances, type InstanceOutcome } from "../src/kinds/swe-bench/run-instances.js";
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
  MODEL_FOLDER,
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
const claims = (
  r: Partial<FinalReport>,
  o: InstanceOutcome[] = outcomes,
  p: PredictionsSummary | null = predictions,
): RunFlag[] =>
  runClaims({ reportName: REPORT_NAME, report: { ...report, ...r } as FinalReport, predictions: p, outcomes: o });
const brief = (flags: RunFlag[]) => flags.map((f) => `${f.code} ${f.trial}: ${f.evidence}`);
const outcome = (id: string) => outcomes.find((o) => o.id === id)!;
const withOutcome = (id: string, change: Partial<InstanceOutcome>) =>
  outcomes.map((o) => (o.id === id ? { ...o, ...change } : o));

describe("the fixture run, read end to end", () => {
  it("each folder's outcome", () => {
    expect(
      outcomes.map((o) => [
        o.id,
        o.state,
        o.reportFile,
        o.reportReadable,
        o.resolved,
        o.infra?.reason ?? null,
        o.invalid,
      ]),
    ).toEqual([
      [A, "resolved", true, true, true, null, []],
      [B, "unresolved", true, true, false, null, []],
      [E, "error", false, false, false, "network_unreachable", []],
      [F, "tests-not-run", true, true, false, "no_tests_collected", []],
    ]);
  });
  it("every instance of the run once: the folders, the empty patch and the one not submitted", () => {
    expect(runInstances(report, predictions, outcomes).map((i) => [i.id, i.state])).toEqual([
      [A, "resolved"],
      [D, "not-submitted"],
      [B, "unresolved"],
      [C, "empty-patch"],
      [E, "error"],
      [F, "tests-not-run"],
    ]);
  });
  it("the harness's own report raises no flag", () => {
    expect(claims({})).toEqual([]);
    expect(claims({}, outcomes, null)).toEqual([]);
  });
  it("a flag's shape: the instance id or the report's name as trial, attempt null", () => {
    expect(claims({ resolved_instances: 0 })).toEqual([
      {
        code: "RUN_COUNT_MISMATCH",
        trial: REPORT_NAME,
        attempt: null,
        evidence: "resolved_instances is 0 but resolved_ids lists 1",
      },
    ]);
  });
});

describe("RUN_COUNT_MISMATCH", () => {
  it("<x>_instances against the length of <x>_ids, for each of the eight lists", () => {
    for (const list of [
      "resolved",
      "unresolved",
      "empty_patch",
      "error",
      "completed",
      "infra_failure",
      "ambiguous_failure",
      "submitted",
    ] as const) {
      const n = (report[`${list}_ids`] ?? []).length;
      expect(brief(claims({ [`${list}_instances`]: n + 1 })), list).toEqual([
        `RUN_COUNT_MISMATCH ${REPORT_NAME}: ${list}_instances is ${n + 1} but ${list}_ids lists ${n}`,
      ]);
    }
  });
  it("a count without its list; a list and count both absent (an older report) is not asked", () => {
    expect(brief(claims({ infra_failure_ids: undefined }))).toContain(
      `RUN_COUNT_MISMATCH ${REPORT_NAME}: infra_failure_instances is 1 but the report has no infra_failure_ids`,
    );
    expect(
      claims({ infra_failure_ids: undefined, infra_failure_instances: undefined }).filter(
        (f) => f.code === "RUN_COUNT_MISMATCH",
      ),
    ).toEqual([]);
  });
  it("total_instances against the five partition lists' lengths", () => {
    expect(brief(claims({ total_instances: 7 }))).toEqual([
      `RUN_COUNT_MISMATCH ${REPORT_NAME}: total_instances is 7 but incomplete_ids 1 + empty_patch_ids 1 + resolved_ids 1 + unresolved_ids 2 + error_ids 1 = 6 (the harness puts each dataset instance in exactly one)`,
    ]);
    expect(claims({ total_instances: 6 })).toEqual([]);
  });
});

describe("RUN_LIST_DUPLICATE", () => {
  const dup = (r: Partial<FinalReport>) => brief(claims(r).filter((f) => f.code === "RUN_LIST_DUPLICATE"));
  it("an id twice in one list", () => {
    expect(dup({ submitted_ids: [...report.submitted_ids!, A] })).toEqual([
      `RUN_LIST_DUPLICATE ${A}: more than once in submitted_ids`,
    ]);
  });
  it("an id in two partition lists", () => {
    expect(dup({ error_ids: [E, A] })).toEqual([`RUN_LIST_DUPLICATE ${A}: in resolved_ids and error_ids`]);
  });
  it("in both failure lists; in incomplete_ids and submitted_ids", () => {
    expect(dup({ ambiguous_failure_ids: [E, F] })).toEqual([
      `RUN_LIST_DUPLICATE ${E}: in infra_failure_ids and ambiguous_failure_ids`,
    ]);
    expect(dup({ submitted_ids: [...report.submitted_ids!, D] })).toEqual([
      `RUN_LIST_DUPLICATE ${D}: in incomplete_ids and submitted_ids`,
    ]);
  });
  it("completed and resolved together are no duplicate", () => {
    expect(dup({})).toEqual([]);
  });
});

describe("RUN_CLAIM_MISMATCH, each case", () => {
  const mismatch = (r: Partial<FinalReport>, o = outcomes, p: PredictionsSummary | null = predictions) =>
    brief(claims(r, o, p).filter((f) => f.code === "RUN_CLAIM_MISMATCH"));
  it("in resolved_ids but not re-derived resolved (the report's own verdict said where it is one)", () => {
    expect(mismatch({ resolved_ids: [A, B], unresolved_ids: [F] })).toEqual([
      `RUN_CLAIM_MISMATCH ${B}: in resolved_ids, but its evidence gives unresolved`,
    ]);
    const unverified = withOutcome(A, { state: "unverified", resolved: false, reportOnly: true });
    expect(mismatch({}, unverified)).toEqual([
      `RUN_CLAIM_MISMATCH ${A}: in resolved_ids, but its evidence gives unverified, report.json's own verdict (not re-derived)`,
    ]);
    expect(mismatch({}, withOutcome(A, { state: "unverified", resolved: true, reportOnly: true }))).toEqual([]);
  });
  it("in unresolved_ids but resolved, or without a readable report.json", () => {
    expect(mismatch({ resolved_ids: [], unresolved_ids: [A, B, F] })).toEqual([
      `RUN_CLAIM_MISMATCH ${A}: in unresolved_ids, but its evidence gives resolved`,
    ]);
    expect(mismatch({}, withOutcome(B, { reportReadable: false, state: "incomplete" }))).toEqual([
      `RUN_CLAIM_MISMATCH ${B}: in unresolved_ids without a readable report.json (the harness lists those in error_ids)`,
    ]);
  });
  it("in error_ids with a readable report.json", () => {
    expect(mismatch({ unresolved_ids: [F], error_ids: [B, E] })).toEqual([
      `RUN_CLAIM_MISMATCH ${B}: in error_ids with a readable report.json (the harness lists those resolved or unresolved)`,
    ]);
    expect(mismatch({}, withOutcome(E, { reportFile: true }))).toEqual([
      `RUN_CLAIM_MISMATCH ${E}: has a report.json but is not in completed_ids`,
    ]);
  });
  it("in completed_ids without a report.json, or the reverse (only when the report has completed_ids)", () => {
    expect(mismatch({ completed_ids: [A, B, E, F] })).toEqual([
      `RUN_CLAIM_MISMATCH ${E}: in completed_ids without a report.json`,
    ]);
    expect(mismatch({ completed_ids: [A, F] })).toEqual([
      `RUN_CLAIM_MISMATCH ${B}: has a report.json but is not in completed_ids`,
    ]);
    expect(mismatch({ completed_ids: undefined })).toEqual([]);
  });
  it("in empty_patch_ids with a folder, or with a non-empty prediction", () => {
    expect(mismatch({ empty_patch_ids: [A, C] })).toEqual([
      `RUN_CLAIM_MISMATCH ${A}: in empty_patch_ids, but it has a folder (the harness runs no empty patch)`,
    ]);
    const nonEmpty: PredictionsSummary = {
      ...predictions,
      records: new Map([...predictions.records, [C, { empty: false, digest: "0".repeat(64) }]]),
    };
    expect(mismatch({}, outcomes, nonEmpty)).toEqual([
      `RUN_CLAIM_MISMATCH ${C}: in empty_patch_ids, but its prediction's model_patch is not empty`,
    ]);
    expect(mismatch({}, outcomes, null)).toEqual([]);
  });
  it("beyond §14's list: in incomplete_ids with a folder", () => {
    expect(mismatch({ incomplete_ids: [B, D] })[0]).toBe(
      `RUN_CLAIM_MISMATCH ${B}: in incomplete_ids (no prediction), but it has a folder`,
    );
  });
  it("the failure lists and failure_reasons against the logs' classification", () => {
    expect(mismatch({ infra_failure_ids: [] })).toEqual([
      `RUN_CLAIM_MISMATCH ${E}: not in infra_failure_ids, but its logs give network_unreachable (environment)`,
    ]);
    expect(mismatch({ ambiguous_failure_ids: [B, F] })).toEqual([
      `RUN_CLAIM_MISMATCH ${B}: in ambiguous_failure_ids, but its logs give no infra signature`,
    ]);
    expect(mismatch({ infra_failure_ids: [A, E] })).toEqual([
      `RUN_CLAIM_MISMATCH ${A}: in infra_failure_ids, but its logs give not classified (its evidence gives resolved, neither unresolved nor error)`,
    ]);
    expect(mismatch({ failure_reasons: { [E]: "out_of_memory", [F]: "no_tests_collected" } })).toEqual([
      `RUN_CLAIM_MISMATCH ${E}: failure_reasons says out_of_memory, its logs give network_unreachable`,
    ]);
    expect(mismatch({ failure_reasons: { [E]: "network_unreachable" } })).toEqual([
      `RUN_CLAIM_MISMATCH ${F}: failure_reasons says nothing, its logs give no_tests_collected`,
    ]);
  });
  it("classified by the re-derived verdict, as the recount is, not by the report's lists", () => {
    const oom = { reason: "out_of_memory", tier: "environment" } as const;
    // Listed resolved, re-derived unresolved with a signature: it is classified, so infra_failure_ids owes it.
    expect(mismatch({ resolved_ids: [A, B], unresolved_ids: [F] }, withOutcome(B, { infra: oom }))).toEqual([
      `RUN_CLAIM_MISMATCH ${B}: in resolved_ids, but its evidence gives unresolved; not in infra_failure_ids, but its logs give out_of_memory (environment); failure_reasons says nothing, its logs give out_of_memory`,
    ]);
    // Listed unresolved and infra, re-derived resolved: not classified, so its place in infra_failure_ids is wrong.
    const r = {
      resolved_ids: [],
      unresolved_ids: [A, B, F],
      infra_failure_ids: [A, E],
      failure_reasons: { ...report.failure_reasons, [A]: "out_of_memory" },
    };
    expect(mismatch(r, withOutcome(A, { infra: oom }))).toEqual([
      `RUN_CLAIM_MISMATCH ${A}: in unresolved_ids, but its evidence gives resolved; in infra_failure_ids, but its logs give not classified (its evidence gives resolved, neither unresolved nor error); failure_reasons says out_of_memory, its logs give no reason`,
    ]);
    // Lists that agree with the re-derivation: nothing about the failure lists.
    expect(mismatch({}, withOutcome(A, { infra: oom }))).toEqual([]);
  });
  it("an older report without the failure fields is not asked about them", () => {
    expect(
      mismatch({ infra_failure_ids: undefined, ambiguous_failure_ids: undefined, failure_reasons: undefined }),
    ).toEqual([]);
  });
});

describe("INSTANCE_MISSING and INSTANCE_UNLISTED", () => {
  const X = "pallets__flask-9999";
  it("listed as submitted, not empty, no folder: missing, its lists unchecked", () => {
    const r = {
      total_instances: 7,
      submitted_instances: 6,
      error_instances: 2,
      submitted_ids: [...report.submitted_ids!, X],
      error_ids: [E, X],
    };
    expect(brief(claims(r))).toEqual([
      `INSTANCE_MISSING ${X}: listed in error_ids, submitted_ids, not as an empty patch, but the run has no folder for it`,
    ]);
    expect(runInstances({ ...report, ...r }, predictions, outcomes).find((i) => i.id === X)?.state).toBe("missing");
  });
  it("in submitted_ids alone (no partition list), not empty, no folder: missing too", () => {
    const r = { submitted_instances: 6, submitted_ids: [...report.submitted_ids!, X] };
    expect(brief(claims(r))).toEqual([
      `INSTANCE_MISSING ${X}: listed in submitted_ids, not as an empty patch, but the run has no folder for it`,
    ]);
    expect(runInstances({ ...report, ...r }, predictions, outcomes).find((i) => i.id === X)?.state).toBe("missing");
    // The other side: its empty prediction makes it empty-patch; with a folder it is no instance missing.
    const empty: PredictionsSummary = {
      ...predictions,
      records: new Map([...predictions.records, [X, { empty: true, digest: "" }]]),
    };
    expect(claims(r, outcomes, empty).map((f) => f.code)).not.toContain("INSTANCE_MISSING");
    expect(runInstances({ ...report, ...r }, empty, outcomes).find((i) => i.id === X)?.state).toBe("empty-patch");
    expect(claims(r, [...outcomes, { ...outcome(B), id: X }]).map((f) => f.code)).toEqual(["INSTANCE_UNLISTED"]);
  });
  it("listed as an empty patch, or not submitted, without a folder: not missing", () => {
    const r = {
      total_instances: 7,
      empty_patch_instances: 2,
      submitted_instances: 6,
      submitted_ids: [...report.submitted_ids!, X],
      empty_patch_ids: [C, X],
    };
    expect(claims(r)).toEqual([]);
    expect(claims({ total_instances: 7, incomplete_ids: [D, X] })).toEqual([]);
  });
  it("an empty prediction makes a listed id without a folder empty-patch, whatever list", () => {
    const empty: PredictionsSummary = {
      ...predictions,
      records: new Map([...predictions.records, [X, { empty: true, digest: "" }]]),
    };
    const r = { ...report, total_instances: 7, error_ids: [E, X] };
    expect(runInstances(r, empty, outcomes).find((i) => i.id === X)?.state).toBe("empty-patch");
  });
  it("a folder in none of the partition lists or completed_ids is unlisted, even when submitted_ids names it", () => {
    const extra = { ...outcome(B), id: X };
    expect(brief(claims({}, [...outcomes, extra]))).toEqual([
      `INSTANCE_UNLISTED ${X}: its folder is in none of the report's lists (a later run with --instance_ids rewrites the report for its own instances only): counted by its evidence`,
    ]);
    expect(
      claims({ submitted_ids: [...report.submitted_ids!, X], submitted_instances: 6 }, [...outcomes, extra]).map(
        (f) => f.code,
      ),
    ).toEqual(["INSTANCE_UNLISTED"]);
  });
  it("at most MAX_FLAGS_PER_CODE flags of a code, the last saying how many more", () => {
    const many = Array.from({ length: MAX_FLAGS_PER_CODE + 50 }, (_, i) => ({ ...outcome(B), id: `a__b-${i}` }));
    const flags = claims({}, [...outcomes, ...many]);
    expect(flags).toHaveLength(MAX_FLAGS_PER_CODE);
    expect(flags.at(-1)?.evidence).toMatch(/; and 50 more INSTANCE_UNLISTED findings$/);
    expect(claims({}, [...outcomes, ...many.slice(0, MAX_FLAGS_PER_CODE)]).at(-1)?.evidence).toMatch(
      /counted by its evidence$/,
    );
  });
});

describe("without a report", () => {
  it("the run's instances are its folders and the model's empty predictions", () => {
    expect(runInstances(null, predictions, outcomes).map((i) => [i.id, i.state])).toEqual([
      [A, "resolved"],
      [B, "unresolved"],
      [C, "empty-patch"],
      [E, "error"],
      [F, "tests-not-run"],
    ]);
    expect(runInstances(null, null, outcomes).map((i) => i.id)).toEqual([A, B, E, F]);
  });
});

describe("an instance folder's outcome (outcomeOf)", () => {
  const { dir: tmp } = scratch("assay-swe-outcome-");
  const docOf = (id: string) =>
    JSON.parse(readFileSync(join(MODEL_FOLDER, id, "report.json"), "utf8")) as Record<string, Record<string, unknown>>;
  const outcomeWith = async (doc: unknown, folder = join(MODEL_FOLDER, A)) =>
    outcomeOf(A, (await assessInstance(folder, A, doc))!, true, null, []);
  it("a report.json whose resolved the harness reads, a field of the wrong type aside: readable, its SCHEMA hard", async () => {
    const doc = docOf(A);
    const o = await outcomeWith({ [A]: { ...doc[A], patch_exists: "yes" } });
    expect([o.reportReadable, o.invalid]).toEqual([true, ["SCHEMA"]]);
  });
  it("a report.json without the folder's entry: unreadable, its warning not a hard code", async () => {
    const o = await outcomeWith({ other: {} });
    expect([o.reportReadable, o.resolved, o.invalid]).toEqual([false, false, []]);
  });
  it("a hard check makes it invalid; a warning (EXIT_CODE_UNRECORDED) does not", async () => {
    const doc = docOf(A);
    const lists = { success: [], failure: ["tests/test_blueprints.py::test_dotted_name_not_allowed"] };
    expect(
      (
        await outcomeWith({
          [A]: { ...doc[A], tests_status: { FAIL_TO_PASS: lists, PASS_TO_PASS: { success: [], failure: [] } } },
        })
      ).invalid,
    ).toContain("REPORT_INCONSISTENT");
    const folder = join(tmp, A);
    cpSync(join(MODEL_FOLDER, A), folder, { recursive: true });
    const log = readFileSync(join(folder, "test_output.txt"), "utf8")
      .split("\n")
      .filter((l) => !l.includes("Test Exit Code"))
      .join("\n");
    writeFileSync(join(folder, "test_output.txt"), log);
    const o = await outcomeWith(doc, folder);
    expect([o.state, o.resolved, o.invalid]).toEqual(["resolved", true, []]);
  });
  it("the codes found beside the folder join its own, once each", async () => {
    const a = (await assessInstance(join(MODEL_FOLDER, A), A, docOf(A)))!;
    expect(outcomeOf(A, a, true, "d", ["PATCH_MISMATCH", "PATCH_MISMATCH"])).toMatchObject({
      patchDigest: "d",
      invalid: ["PATCH_MISMATCH"],
    });
  });
  it("unverified: the report's own resolved, said to be its own", async () => {
    const a = (await assessInstance(join(MODEL_FOLDER, A), A, docOf(A), 10))!;
    expect(outcomeOf(A, a, true, null)).toMatchObject({ state: "unverified", resolved: true, reportOnly: true });
    const b = (await assessInstance(join(MODEL_FOLDER, B), B, docOf(B), 10))!;
    expect(outcomeOf(B, b, true, null)).toMatchObject({ state: "unverified", resolved: false, reportOnly: true });
  });
});
