// One bundle (or Harbor trial) directory → its entry. Runs in pool workers (and in-process for
// `assay verify`).

import { scoreBundle, type BundleOptions } from "../core/bundle.js";
import type { BundleEntryInfo } from "../core/folder.js";
import { scoreTrial } from "../core/harbor/trial.js";
import type { BundleEntry } from "../core/results.js";
import { diskBundle } from "../io/bundle-source.js";
import { readPart, scoreInspectLog, type InspectTask, type PartResult } from "../io/inspect.js";
import { toolError } from "../io/tool-error.js";

/**
 * A failure of the tool, not the evidence, becomes validity "error": IO_ERROR when the file
 * system refused a read, WORKER_FAILED for anything else (a defect). `options` apply to assay
 * bundles only: Harbor trials carry no seal (§8).
 */
export function scoreDirectory(dir: string, path: string, entries?: BundleEntryInfo[], kind?: "harbor", options: BundleOptions = {}): BundleEntry {
  try {
    const source = diskBundle(dir, entries);
    return { path, ...(kind === "harbor" ? scoreTrial(source) : scoreBundle(source, options)) };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return typeof err.code === "string" && err.code.startsWith("E")
      ? toolError(dir, path, "IO_ERROR", err.message, kind)
      : toolError(dir, path, "WORKER_FAILED", `internal error: ${err.message}`, kind);
  }
}

/** An Inspect log's failure to be read, as a tool error (IO_ERROR, or WORKER_FAILED for a defect). */
function logFailed(file: string, path: string, e: unknown): BundleEntry {
  const err = e as NodeJS.ErrnoException;
  return typeof err.code === "string" && err.code.startsWith("E")
    ? toolError(file, path, "IO_ERROR", err.message, "inspect")
    : toolError(file, path, "WORKER_FAILED", `internal error: ${err.message}`, "inspect");
}

/** One Inspect log file → its entry (§12); a failure of the tool is validity "error", as above. */
export function scoreLog(file: string, path: string, format: "eval" | "json"): BundleEntry {
  try {
    return { path, ...scoreInspectLog(file, format) };
  } catch (e) {
    return logFailed(file, path, e);
  }
}

/** One part of a large .eval (its tool error stands for the whole log). */
export function scoreLogPart(file: string, path: string, task: Exclude<InspectTask, { part: "whole" }>): PartResult | BundleEntry {
  try {
    return readPart(file, path, task);
  } catch (e) {
    return logFailed(file, path, e);
  }
}
