// The run's claims (§14 "The run's claims"): the final report's counts against its lists, its lists
// against each other, and each listed id against its folder's evidence — every finding an
// experiment flag. An instance's own validity is never decided here: its evidence decides it.

import { COUNTED_LISTS, idsOf, PARTITION_LISTS, type FinalReport, type ListName } from "./final-report.js";
import type { PredictionsSummary } from "./predictions.js";
import { claimMismatches } from "./run-claim-mismatch.js";
import { ALL_LISTS, flag, membership, type RunFlag, type RunFlagCode } from "./run-flags.js";
import { listedIds, runInstances, type InstanceOutcome } from "./run-instances.js";

export type { RunFlag, RunFlagCode } from "./run-flags.js";

/** At most this many flags of one code; the last kept says how many more there were. */
export const MAX_FLAGS_PER_CODE = 100;

export interface RunClaimsInput {
  /** The final report's file name (a report-wide flag's trial). */
  reportName: string;
  report: FinalReport;
  predictions: PredictionsSummary | null;
  outcomes: readonly InstanceOutcome[];
}

export function runClaims(input: RunClaimsInput): RunFlag[] {
  const { reportName, report, predictions, outcomes } = input;
  const flags: RunFlag[] = [
    ...countMismatches(reportName, report),
    ...listDuplicates(report),
    ...claimMismatches(report, predictions, outcomes),
    ...missingAndUnlisted(report, predictions, outcomes),
  ];
  return capPerCode(flags);
}

/** `<x>_instances` against the length of `<x>_ids`, and total_instances against the partition. */
export function countMismatches(reportName: string, report: FinalReport): RunFlag[] {
  const out: RunFlag[] = [];
  for (const list of COUNTED_LISTS) {
    const claimed = report[`${list}_instances`];
    if (claimed === undefined) continue;
    const ids = report[`${list}_ids`];
    if (ids === undefined)
      out.push(
        flag("RUN_COUNT_MISMATCH", reportName, `${list}_instances is ${claimed} but the report has no ${list}_ids`),
      );
    else if (claimed !== ids.length)
      out.push(
        flag("RUN_COUNT_MISMATCH", reportName, `${list}_instances is ${claimed} but ${list}_ids lists ${ids.length}`),
      );
  }
  const parts = PARTITION_LISTS.map((l) => idsOf(report, l).length);
  const sum = parts.reduce((a, b) => a + b, 0);
  if (sum !== report.total_instances) {
    const terms = PARTITION_LISTS.map((l, i) => `${l}_ids ${parts[i]}`).join(" + ");
    out.push(
      flag(
        "RUN_COUNT_MISMATCH",
        reportName,
        `total_instances is ${report.total_instances} but ${terms} = ${sum} (the harness puts each dataset instance in exactly one)`,
      ),
    );
  }
  return out;
}

/** An id twice in a list, in two partition lists, in both failure lists, or incomplete and submitted. */
export function listDuplicates(report: FinalReport): RunFlag[] {
  const why = new Map<string, string[]>();
  const add = (id: string, reason: string) => why.set(id, [...(why.get(id) ?? []), reason]);
  for (const list of ALL_LISTS) {
    const seen = new Set<string>();
    const twice = new Set<string>();
    for (const id of idsOf(report, list)) (seen.has(id) ? twice : seen).add(id);
    for (const id of twice) add(id, `more than once in ${list}_ids`);
  }
  const exclusive: (readonly ListName[])[] = [
    PARTITION_LISTS,
    ["infra_failure", "ambiguous_failure"],
    ["incomplete", "submitted"],
  ];
  for (const group of exclusive) {
    const where = new Map<string, ListName[]>();
    for (const list of group)
      for (const id of new Set(idsOf(report, list))) where.set(id, [...(where.get(id) ?? []), list]);
    for (const [id, lists] of where) if (lists.length > 1) add(id, `in ${lists.map((l) => `${l}_ids`).join(" and ")}`);
  }
  return [...why].map(([id, reasons]) => flag("RUN_LIST_DUPLICATE", id, reasons.join("; ")));
}

/** INSTANCE_MISSING for each missing instance; INSTANCE_UNLISTED for each folder outside D. */
export function missingAndUnlisted(
  report: FinalReport,
  predictions: PredictionsSummary | null,
  outcomes: readonly InstanceOutcome[],
): RunFlag[] {
  const out: RunFlag[] = [];
  const lists = membership(report);
  for (const i of runInstances(report, predictions, outcomes)) {
    if (i.state !== "missing") continue;
    const names = [...(lists.get(i.id) ?? [])].map((l) => `${l}_ids`);
    out.push(
      flag(
        "INSTANCE_MISSING",
        i.id,
        `listed in ${names.join(", ")}, not as an empty patch, but the run has no folder for it`,
      ),
    );
  }
  const d = listedIds(report);
  for (const o of outcomes) {
    if (!d.has(o.id))
      out.push(
        flag(
          "INSTANCE_UNLISTED",
          o.id,
          "its folder is in none of the report's lists (a later run with --instance_ids rewrites the report for its own instances only): counted by its evidence",
        ),
      );
  }
  return out;
}

function capPerCode(flags: RunFlag[]): RunFlag[] {
  const kept = new Map<RunFlagCode, RunFlag[]>();
  const more = new Map<RunFlagCode, number>();
  for (const f of flags) {
    const list = kept.get(f.code) ?? [];
    if (list.length < MAX_FLAGS_PER_CODE) kept.set(f.code, [...list, f]);
    else more.set(f.code, (more.get(f.code) ?? 0) + 1);
  }
  for (const [code, n] of more) {
    const last = kept.get(code)!.at(-1)!;
    last.evidence = `${last.evidence}; and ${n} more ${code} finding${n > 1 ? "s" : ""}`;
  }
  return [...kept.values()].flat();
}
