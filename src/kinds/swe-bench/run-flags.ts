// The run-level flags' shape (§14: `{code, trial, attempt: null, evidence}`) and the final report's
// lists by id, shared by the claims checks.

import { idsOf, PARTITION_LISTS, type FinalReport, type ListName } from "./final-report.js";

export type RunFlagCode =
  "RUN_COUNT_MISMATCH" | "RUN_LIST_DUPLICATE" | "RUN_CLAIM_MISMATCH" | "INSTANCE_MISSING" | "INSTANCE_UNLISTED";

export interface RunFlag {
  code: RunFlagCode;
  /** The instance id, or the report's file name for a report-wide finding. */
  trial: string;
  attempt: null;
  evidence: string;
}

export const flag = (code: RunFlagCode, trial: string, evidence: string): RunFlag => ({
  code,
  trial,
  attempt: null,
  evidence,
});

/** Every list of ids the report may hold. */
export const ALL_LISTS: readonly ListName[] = [
  ...PARTITION_LISTS,
  "completed",
  "submitted",
  "infra_failure",
  "ambiguous_failure",
];

/** Each id of the report → the lists naming it. */
export function membership(report: FinalReport): Map<string, Set<ListName>> {
  const out = new Map<string, Set<ListName>>();
  for (const list of ALL_LISTS) {
    for (const id of idsOf(report, list)) {
      const s = out.get(id) ?? new Set<ListName>();
      s.add(list);
      out.set(id, s);
    }
  }
  return out;
}
