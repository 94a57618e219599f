// RUN_CLAIM_MISMATCH (§14): a listed id its evidence contradicts, each case as make_run_report
// (reporting.py at 7a21e05) fills the list — resolved/unresolved from report.json's `resolved`,
// error when it could not be read or is absent, completed when the file exists, empty_patch for an
// empty prediction (never run, so no folder), and the failure lists from infra_failure.py over the
// unresolved and error instances only (assay's re-derived ones, as the recount's). Ids without a folder are INSTANCE_MISSING's, not checked here.

import { idsOf, type FinalReport, type ListName } from "./final-report.js";
import type { PredictionsSummary } from "./predictions.js";
import { flag, membership, type RunFlag } from "./run-flags.js";
import { listedIds, type InstanceOutcome } from "./run-instances.js";

export function claimMismatches(
  report: FinalReport,
  predictions: PredictionsSummary | null,
  outcomes: readonly InstanceOutcome[],
): RunFlag[] {
  const lists = membership(report);
  const d = listedIds(report);
  const out: RunFlag[] = [];
  const folders = new Set<string>();
  for (const o of outcomes) {
    folders.add(o.id);
    const listed = lists.get(o.id);
    if (!listed || !d.has(o.id)) continue; // a folder outside the partition and completed_ids: INSTANCE_UNLISTED
    const why = [...verdictMismatches(o, listed, report), ...infraMismatches(o, listed, report)];
    if (why.length > 0) out.push(flag("RUN_CLAIM_MISMATCH", o.id, why.join("; ")));
  }
  for (const id of new Set(idsOf(report, "empty_patch"))) {
    const p = predictions?.records.get(id);
    if (!folders.has(id) && p && !p.empty)
      out.push(flag("RUN_CLAIM_MISMATCH", id, "in empty_patch_ids, but its prediction's model_patch is not empty"));
  }
  return out;
}

const verdictOf = (o: InstanceOutcome): string =>
  `${o.state}${o.reportOnly ? ", report.json's own verdict (not re-derived)" : ""}`;

/** The partition's lists and completed_ids against the folder. */
function verdictMismatches(o: InstanceOutcome, listed: ReadonlySet<ListName>, report: FinalReport): string[] {
  const why: string[] = [];
  if (listed.has("resolved") && !o.resolved) why.push(`in resolved_ids, but its evidence gives ${verdictOf(o)}`);
  if (listed.has("unresolved") && o.resolved) why.push(`in unresolved_ids, but its evidence gives ${verdictOf(o)}`);
  if (listed.has("unresolved") && !o.reportReadable)
    why.push("in unresolved_ids without a readable report.json (the harness lists those in error_ids)");
  if (listed.has("error") && o.reportReadable)
    why.push("in error_ids with a readable report.json (the harness lists those resolved or unresolved)");
  if (listed.has("completed") && !o.reportFile) why.push("in completed_ids without a report.json");
  if (report.completed_ids !== undefined && !listed.has("completed") && o.reportFile)
    why.push("has a report.json but is not in completed_ids");
  if (listed.has("empty_patch")) why.push("in empty_patch_ids, but it has a folder (the harness runs no empty patch)");
  // Beyond §14's list: incomplete_ids names dataset instances without a prediction, which are never run.
  if (listed.has("incomplete")) why.push("in incomplete_ids (no prediction), but it has a folder");
  return why;
}

/**
 * The failure lists and failure_reasons (reports with infra_failure_ids, schema_version 2 from
 * #586) against the folder's classification: only instances the evidence makes unresolved or error
 * are classified, as the recount's infra_failure_instances counts them.
 */
function infraMismatches(o: InstanceOutcome, listed: ReadonlySet<ListName>, report: FinalReport): string[] {
  if (
    report.infra_failure_ids === undefined &&
    report.ambiguous_failure_ids === undefined &&
    report.failure_reasons === undefined
  )
    return [];
  // Classified as the recount classifies (recount.ts): assay's own unresolved and error instances
  // (a readable report.json not resolved, or none readable), not the report's lists, which may be wrong.
  const classified = !o.reportReadable || !o.resolved;
  const infra = classified ? o.infra : null;
  const why: string[] = [];
  const expect = (list: "infra_failure" | "ambiguous_failure", should: boolean) => {
    if (report[`${list}_ids`] === undefined || listed.has(list) === should) return;
    const was = infra
      ? `${infra.reason} (${infra.tier})`
      : classified
        ? "no infra signature"
        : `not classified (its evidence gives ${verdictOf(o)}, neither unresolved nor error)`;
    why.push(`${should ? "not " : ""}in ${list}_ids, but its logs give ${was}`);
  };
  expect("infra_failure", infra?.tier === "environment");
  expect("ambiguous_failure", infra?.tier === "ambiguous");
  const reasons = report.failure_reasons;
  if (reasons !== undefined) {
    const claimed = Object.hasOwn(reasons, o.id) ? reasons[o.id] : undefined;
    if (claimed !== infra?.reason)
      why.push(`failure_reasons says ${claimed ?? "nothing"}, its logs give ${infra?.reason ?? "no reason"}`);
  }
  return why;
}
