// The instances of one run (§14): what each instance folder gave (InstanceOutcome, filled by the
// caller from assessInstance), and every instance of the run once — D (the ids of the final
// report's five partition lists and completed_ids), submitted_ids and its folders — with the state
// of those without a folder: empty-patch, missing or not-submitted.

import type { FinalReport } from "./final-report.js";
import { idsOf, PARTITION_LISTS } from "./final-report.js";
import type { InfraClass } from "./infra.js";
import type { InstanceAssessment } from "./instance.js";
import type { PredictionsSummary } from "./predictions.js";
import type { FolderState } from "./state.js";

/** One instance folder, as the run's checks and figures need it. */
export interface InstanceOutcome {
  id: string;
  state: FolderState;
  /** report.json is there, readable or not (make_run_report's completed_ids: the file exists). */
  reportFile: boolean;
  /** make_run_report could read its verdict (not empty, JSON, `report[id]["resolved"]`): it lists the id resolved or unresolved, not error. */
  reportReadable: boolean;
  /**
   * The verdict: re-derived resolved; where the state has its verdict from report.json alone
   * (unverified, or a report without test_output.txt) the report's own `resolved`, never credited.
   */
  resolved: boolean;
  /** `resolved` is the report's own verdict, not re-derived (stated beside every figure it enters). */
  reportOnly: boolean;
  /** infra_failure.py's classification of test_output.txt then run_instance.log, whatever the state. */
  infra: InfraClass | null;
  /** SHA-256 hex of patch.diff; null: none. */
  patchDigest: string | null;
  /** The codes of its hard findings: the entry is invalid when there is one. */
  invalid: readonly string[];
}

/** Findings that leave an entry valid: warnings and tool errors (the rest are hard checks). */
const NOT_HARD: ReadonlySet<string> = new Set([
  "EXIT_CODE_UNRECORDED",
  "LOG_TOO_LARGE",
  "REPORT_UNREADABLE",
  "LOG_UNREADABLE",
]);

/**
 * An instance folder's outcome from its assessment. `reportFile`: report.json is there (an empty or
 * cut one included); `patchDigest`: patch.diff's; `extraInvalid`: hard codes found beside the
 * folder (PATCH_MISMATCH, DATASET_MISMATCH).
 */
export function outcomeOf(
  id: string,
  a: InstanceAssessment,
  reportFile: boolean,
  patchDigest: string | null,
  extraInvalid: readonly string[] = [],
): InstanceOutcome {
  const { state, reportOnly } = a.decision;
  const entry = a.report;
  // make_run_report reads only `report[id]["resolved"]`: a wrong type elsewhere still gives it a verdict.
  const reportReadable = entry !== null && entry.entry !== "unreadable";
  const ownVerdict = entry?.entry === "ok" && entry.report.resolved;
  return {
    id,
    state,
    reportFile,
    reportReadable,
    resolved: state === "resolved" || (state === "unverified" && ownVerdict),
    reportOnly,
    infra: a.logs.infra,
    patchDigest,
    invalid: [...new Set([...a.findings.map((f) => f.code).filter((c) => !NOT_HARD.has(c)), ...extraInvalid])],
  };
}

export type RunState = FolderState | "empty-patch" | "missing" | "not-submitted";

export interface RunInstance {
  id: string;
  state: RunState;
  /** Its folder's outcome; null for the states without a folder. */
  outcome: InstanceOutcome | null;
}

const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** D: the distinct ids of the five partition lists and completed_ids (§14 "Recount"). */
export function listedIds(report: FinalReport): Set<string> {
  const d = new Set<string>();
  for (const list of [...PARTITION_LISTS, "completed"] as const) for (const id of idsOf(report, list)) d.add(id);
  return d;
}

/**
 * Every instance of the run once, in byte order of id. Without a folder: in incomplete_ids →
 * not-submitted; in empty_patch_ids, or an empty prediction → empty-patch; any other id of D or of
 * submitted_ids → missing (submitted, not empty: §14's INSTANCE_MISSING). Without a report, the model's empty
 * predictions are its empty-patch instances (the harness runs none of them).
 */
export function runInstances(
  report: FinalReport | null,
  predictions: PredictionsSummary | null,
  outcomes: readonly InstanceOutcome[],
): RunInstance[] {
  const folders = new Map(outcomes.map((o) => [o.id, o]));
  const out: RunInstance[] = outcomes.map((o) => ({ id: o.id, state: o.state, outcome: o }));
  const noFolder = new Set<string>();
  if (report) for (const id of listedIds(report)) if (!folders.has(id)) noFolder.add(id);
  // Submitted but in no partition list (a cut or hand-edited report): still an instance the run owes.
  if (report) for (const id of idsOf(report, "submitted")) if (!folders.has(id)) noFolder.add(id);
  if (!report && predictions)
    for (const [id, p] of predictions.records) if (p.empty && !folders.has(id)) noFolder.add(id);
  const incomplete = new Set(report ? idsOf(report, "incomplete") : []);
  const empty = new Set(report ? idsOf(report, "empty_patch") : []);
  for (const id of noFolder) {
    const state: RunState = incomplete.has(id)
      ? "not-submitted"
      : empty.has(id) || predictions?.records.get(id)?.empty
        ? "empty-patch"
        : "missing";
    out.push({ id, state, outcome: null });
  }
  return out.sort((a, b) => byteOrder(a.id, b.id));
}
