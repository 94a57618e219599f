// The one reader of a run's own files beside its instance folders: the final report (first found,
// §14), the predictions file (a `*.json`/`*.jsonl` beside the report or in the run folder), run.json,
// and a patch.diff's digest. Everything else in this folder is pure.

import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { posix } from "node:path";
import type { Finding as JsonFinding } from "../../core/codes.js";
import { decodeDocument, isPlainObject, MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import { readChunks } from "../../io/bundle-source.js";
import { readSmallFile } from "../../io/small-file.js";
import type { Finding } from "./checks.js";
import { finalReportOf, finalReportPlaces, type FinalReportParse } from "./final-report.js";
import { readPredictions, type PredictionsSummary } from "./predictions.js";

/** A JSON document read as §2 says, or why not (the first finding); null when absent. */
function readDocument(file: string): { value: unknown } | { why: string } | null {
  const bytes = readSmallFile(file, MAX_DOCUMENT_BYTES);
  if (bytes === null) return null;
  if (!(bytes instanceof Uint8Array)) return { why: bytes.unreadable };
  const problems: JsonFinding[] = [];
  const value = decodeDocument(bytes, posix.basename(file), problems);
  const first = problems[0];
  return first ? { why: `${first.code}: ${first.message}` } : { value };
}

export interface FinalReportFound {
  /** The file found first; null: none (RUN_REPORT_ABSENT). */
  path: string | null;
  /** Its reading; not ok: RUN_REPORT_UNREADABLE, no claims. */
  parse: FinalReportParse | null;
}

export function readFinalReport(modelFolder: string): FinalReportFound {
  for (const file of finalReportPlaces(modelFolder).files) {
    const doc = readDocument(file);
    if (doc === null) continue;
    return { path: file, parse: "why" in doc ? { ok: false, why: doc.why } : finalReportOf(doc.value) };
  }
  return { path: null, parse: null };
}

export interface PredictionsFound {
  summary: PredictionsSummary | null;
  /** Predictions files the harness could not load (a warning's evidence), whichever model they hold. */
  unreadable: { file: string; finding: Finding }[];
}

/**
 * The first predictions file (beside the report, then in the run folder; names in byte order)
 * holding a record of `model`. Not the report itself, nor run.json.
 */
export function findPredictions(modelFolder: string, reportPath: string | null): PredictionsFound {
  const { model } = finalReportPlaces(modelFolder);
  const folders = [
    ...new Set([...(reportPath === null ? [] : [posix.dirname(reportPath)]), posix.dirname(modelFolder)]),
  ];
  const unreadable: PredictionsFound["unreadable"] = [];
  for (const folder of folders) {
    for (const file of candidates(folder, reportPath)) {
      const read = readPredictions(file, model);
      if (read.read === "unreadable") unreadable.push({ file, finding: read.finding });
      if (read.read === "ok" && read.summary.records.size > 0) return { summary: read.summary, unreadable };
    }
  }
  return { summary: null, unreadable };
}

function candidates(folder: string, reportPath: string | null): string[] {
  let names: string[];
  try {
    names = readdirSync(folder, { withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => d.name);
  } catch {
    return []; // a folder that cannot be listed holds no predictions assay can read
  }
  const files = names
    .filter((n) => (n.endsWith(".json") || n.endsWith(".jsonl")) && n !== "run.json")
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map((n) => posix.join(folder, n));
  return files.filter((f) => f !== reportPath);
}

/** run.json's dataset and split (newer harnesses, run_evaluation.py write_run_metadata); null when absent or unreadable. */
export function readRunMetadata(runFolder: string): { dataset: string | null; split: string | null } | null {
  const doc = readDocument(posix.join(runFolder, "run.json"));
  if (doc === null || "why" in doc || !isPlainObject(doc.value)) return null;
  const text = (k: string) =>
    typeof (doc.value as Record<string, unknown>)[k] === "string"
      ? ((doc.value as Record<string, string>)[k] ?? null)
      : null;
  return { dataset: text("dataset"), split: text("split") };
}

/** SHA-256 hex of a file's bytes (patch.diff, for PATCH_MISMATCH), streamed; null when absent or unreadable. */
export function fileDigest(file: string): string | null {
  const hash = createHash("sha256");
  try {
    for (const chunk of readChunks(file)) hash.update(chunk);
  } catch {
    return null;
  }
  return hash.digest("hex");
}
