// The run's predictions file (§14 "Predictions"; utils.py get_predictions_from_file and
// run_evaluation.py main at 7a21e05), streamed a record at a time: per instance of this model only
// whether its patch is empty and the SHA-256 of `model_patch or ""` (what patch.diff must hold),
// never a patch. As the harness's `{pred["instance_id"]: pred for pred in predictions}`, a later
// record of an instance replaces an earlier one, whichever model it names.

import { createHash } from "node:crypto";
import type { Finding } from "./checks.js";
import { readRecords } from "./json-records.js";

export interface PredictedPatch {
  /** `model_patch` is "", null or absent: never run (the harness's empty_patch_ids). */
  empty: boolean;
  /** SHA-256 hex of the UTF-8 bytes of `model_patch or ""`. */
  digest: string;
}

export interface PredictionsSummary {
  file: string;
  /** This model's instances, each once (the last record of its id), in the file's order. */
  records: Map<string, PredictedPatch>;
  /** Instances whose last record names another model (the harness would grade them there). */
  otherModels: number;
}

export type PredictionsRead =
  | { read: "ok"; summary: PredictionsSummary }
  /** Not a predictions file: absent, or its first record lacks `instance_id` or `model_patch`. */
  | { read: "not-predictions"; why: string }
  /** A predictions file the harness could not load, or §2 refuses. */
  | { read: "unreadable"; finding: Finding };

/** run_instance's folder name for a prediction's model: `model_name_or_path` (default "None"), `/` → `__`. */
export const modelFolderOf = (record: Record<string, unknown>): unknown => {
  const m = Object.hasOwn(record, "model_name_or_path") ? record["model_name_or_path"] : "None";
  return typeof m === "string" ? m.replaceAll("/", "__") : m;
};

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** One record: its instance and what it says, or why the harness could not take it. */
function predictionOf(value: unknown): { id: string; model: string; patch: PredictedPatch } | string {
  if (!isRecord(value)) return "a prediction that is not an object";
  const id = value["instance_id"];
  if (typeof id !== "string") return "a prediction without a string instance_id";
  const model = modelFolderOf(value);
  if (typeof model !== "string") return `${id}: model_name_or_path is not a string`;
  const patch = Object.hasOwn(value, "model_patch") ? value["model_patch"] : null;
  if (patch !== null && typeof patch !== "string") return `${id}: model_patch is neither a string nor null`;
  return { id, model, patch: { empty: patch === null || patch === "", digest: sha256(patch ?? "") } };
}

/** The records of `model` (a model folder's name) in `file`, a `.json` or `.jsonl` predictions file. */
export function readPredictions(file: string, model: string, maxJsonBytes?: number): PredictionsRead {
  const last = new Map<string, { model: string; patch: PredictedPatch }>();
  // Set in the sink: an object, so the checks below are not narrowed to the initial values.
  const seen: { first: boolean; refused: string | null } = { first: true, refused: null };
  const read = readRecords(
    file,
    (value, at) => {
      // Recognition (§14): the first record has both fields, else the file is something else.
      if (
        seen.first &&
        !(isRecord(value) && Object.hasOwn(value, "instance_id") && Object.hasOwn(value, "model_patch"))
      ) {
        seen.refused = `its first record (${at}) has no instance_id and model_patch`;
        return "stop";
      }
      seen.first = false;
      const p = predictionOf(value);
      if (typeof p === "string") {
        seen.refused = `${at}: ${p}`;
        return "stop";
      }
      last.set(p.id, { model: p.model, patch: p.patch });
      return "more";
    },
    maxJsonBytes,
  );
  if (read.read === "absent") return { read: "not-predictions", why: "absent" };
  if (read.read === "unreadable") return seen.first ? { read: "not-predictions", why: read.finding.message } : read;
  if (seen.refused !== null)
    return seen.first
      ? { read: "not-predictions", why: seen.refused }
      : { read: "unreadable", finding: { code: "SCHEMA", message: seen.refused } };
  if (seen.first) return { read: "not-predictions", why: "it holds no record" };
  const records = new Map<string, PredictedPatch>();
  let otherModels = 0;
  for (const [id, r] of last) {
    if (r.model === model) records.set(id, r.patch);
    else otherModels++;
  }
  return { read: "ok", summary: { file, records, otherModels } };
}

/** PATCH_MISMATCH (§14, an instance's hard check): patch.diff is not the prediction's `model_patch or ""`. */
export function patchMismatch(
  id: string,
  patchDigest: string | null,
  predictions: PredictionsSummary | null,
): Finding | null {
  const predicted = predictions?.records.get(id);
  // Without patch.diff, or a prediction of this model for the instance, there is nothing to compare.
  if (!predicted || patchDigest === null || patchDigest === predicted.digest) return null;
  return {
    code: "PATCH_MISMATCH",
    message: `patch.diff (sha256 ${patchDigest}) is not the prediction's model_patch in ${predictions!.file} (sha256 ${predicted.digest})`,
  };
}
