// The run's final report `<model>.<run_id>.json` (§14 "The final report"; reporting.py
// make_run_report at 7a21e05) and where it is looked for. Loose: each harness version wrote its own
// fields (schema_version 2 and the failure lists came later; unstopped_* only with a Docker client),
// so only the fields assay reads are typed, and only total_instances and resolved_ids are required.

import { posix } from "node:path";
import { z } from "zod";
import { FINAL_REPORT_FIELDS } from "./entry.js";

export const finalReportSchema = z.looseObject(FINAL_REPORT_FIELDS);
export type FinalReport = z.infer<typeof finalReportSchema>;

/** make_run_report's nine counts, in its order: `claimed.metrics`. */
export const REPORT_COUNTS = [
  "total_instances",
  "submitted_instances",
  "completed_instances",
  "resolved_instances",
  "unresolved_instances",
  "infra_failure_instances",
  "ambiguous_failure_instances",
  "empty_patch_instances",
  "error_instances",
] as const;
export type ReportCount = (typeof REPORT_COUNTS)[number];

/** The lists with a count of their own (`<x>_instances` is the length of `<x>_ids`). */
export const COUNTED_LISTS = [
  "resolved",
  "unresolved",
  "empty_patch",
  "error",
  "completed",
  "infra_failure",
  "ambiguous_failure",
  "submitted",
] as const;
/** The harness puts each dataset instance in exactly one of these (total_instances counts them). */
export const PARTITION_LISTS = ["incomplete", "empty_patch", "resolved", "unresolved", "error"] as const;
export type ListName = (typeof COUNTED_LISTS)[number] | (typeof PARTITION_LISTS)[number];

export const idsOf = (r: FinalReport, list: ListName): readonly string[] => r[`${list}_ids`] ?? [];

export type FinalReportParse = { ok: true; report: FinalReport } | { ok: false; why: string };

/** A parsed document (§2) as the final report, or why it is none (RUN_REPORT_UNREADABLE). */
export function finalReportOf(doc: unknown): FinalReportParse {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return { ok: false, why: "not a JSON object" };
  for (const key of ["total_instances", "resolved_ids"])
    if (!Object.hasOwn(doc, key)) return { ok: false, why: `no ${key}` };
  const parsed = finalReportSchema.safeParse(doc);
  if (parsed.success) return { ok: true, report: parsed.data };
  const i = parsed.error.issues[0]!;
  return { ok: false, why: `${i.path.map(String).join(".")}: ${i.message}` };
}

/** `<model>.<run_id>.json`, make_run_report's file name. */
export const finalReportName = (model: string, runId: string): string => `${model}.${runId}.json`;

/**
 * Where the final report may be, first first (§14): the folder holding `logs/` when the model
 * folder's path ends `logs/run_evaluation/<run_id>/<model>` (make_run_report's default report_dir is
 * the working directory), then the run folder, then the model folder. Paths, not reads.
 */
export function finalReportPlaces(modelFolder: string): { runId: string; model: string; files: string[] } {
  const model = posix.basename(modelFolder);
  const runFolder = posix.dirname(modelFolder);
  const runId = posix.basename(runFolder);
  const name = finalReportName(model, runId);
  const folders: string[] = [];
  const evaluation = posix.dirname(runFolder);
  const logs = posix.dirname(evaluation);
  if (posix.basename(evaluation) === "run_evaluation" && posix.basename(logs) === "logs")
    folders.push(posix.dirname(logs));
  folders.push(runFolder, modelFolder);
  return { runId, model, files: [...new Set(folders)].map((f) => posix.join(f, name)) };
}
