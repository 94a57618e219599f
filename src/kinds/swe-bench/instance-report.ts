// report.json, the harness's per-instance verdict (grading.py get_eval_report: one key, the
// instance id), and the deciding tests it carries (§14: only the report has the dataset's lists).

import { z } from "zod";
import type { DecidingTests } from "./tests.js";

const lists = z.looseObject({ success: z.array(z.string()), failure: z.array(z.string()) });

export const instanceReportSchema = z.looseObject({
  patch_is_None: z.boolean().optional(),
  patch_exists: z.boolean().optional(),
  patch_successfully_applied: z.boolean().optional(),
  resolved: z.boolean(),
  infra_failure: z.boolean().optional(),
  infra_failure_reason: z.string().optional(),
  tests_status: z
    .looseObject({
      FAIL_TO_PASS: lists,
      PASS_TO_PASS: lists,
      FAIL_TO_FAIL: lists.optional(),
      PASS_TO_FAIL: lists.optional(),
    })
    .optional(),
});
export type InstanceReport = z.infer<typeof instanceReportSchema>;

export type ReportEntry =
  | { entry: "ok"; report: InstanceReport }
  /** What the harness's make_run_report cannot read (its error_ids): warning REPORT_UNREADABLE. */
  | { entry: "unreadable"; why: string }
  /** A known field of the wrong type (§2's SCHEMA): field path → message. */
  | { entry: "schema"; issues: { path: string; message: string }[] };

/** The folder's entry of a parsed report.json document. */
export function reportEntryOf(doc: unknown, instanceId: string): ReportEntry {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    return { entry: "unreadable", why: "report.json is not an object keyed by instance id" };
  if (!Object.hasOwn(doc, instanceId))
    return { entry: "unreadable", why: `report.json has no entry for ${instanceId}` };
  const value: unknown = (doc as Record<string, unknown>)[instanceId];
  // The harness reads `report[id]["resolved"]`: without it the instance is its error.
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, "resolved"))
    return { entry: "unreadable", why: `report.json's ${instanceId} has no resolved` };
  const parsed = instanceReportSchema.safeParse(value);
  if (parsed.success) return { entry: "ok", report: parsed.data };
  return {
    entry: "schema",
    issues: parsed.error.issues.map((i) => ({
      path: [instanceId, ...i.path.map(String)].join("."),
      message: i.message,
    })),
  };
}

/** The report's deciding tests: each list's success then failure; null without tests_status. */
export function decidingOf(report: InstanceReport): DecidingTests | null {
  const t = report.tests_status;
  if (!t) return null;
  return {
    FAIL_TO_PASS: [...t.FAIL_TO_PASS.success, ...t.FAIL_TO_PASS.failure],
    PASS_TO_PASS: [...t.PASS_TO_PASS.success, ...t.PASS_TO_PASS.failure],
  };
}
