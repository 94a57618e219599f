// One found thing (a bundle, a Harbor trial, an Inspect log…) → its entry, by its kind's scorer.
// Runs in pool workers (and in-process for `assay verify`).

import type { BundleOptions } from "../core/bundle.js";
import type { BundleEntryInfo } from "../core/folder.js";
import type { BundleEntry } from "../core/results.js";
import { diskBundle } from "../io/bundle-source.js";
import type { PartResult } from "../io/inspect.js";
import { toolError } from "../io/tool-error.js";
import type { KindName } from "../kinds/declared.js";
import type { FileScorer, FolderScorer } from "../kinds/scorer.js";
import { SCORERS } from "../kinds/scorers.js";

/** A failure of the tool, not the evidence: IO_ERROR when the file system refused a read, WORKER_FAILED for anything else (a defect). */
function failed(dir: string, path: string, e: unknown, kind: KindName): BundleEntry {
  const err = e as NodeJS.ErrnoException;
  return typeof err.code === "string" && err.code.startsWith("E")
    ? toolError(dir, path, "IO_ERROR", err.message, kind)
    : toolError(dir, path, "WORKER_FAILED", `internal error: ${err.message}`, kind);
}

/**
 * A folder of a folder kind → its entry; a failure of the tool becomes validity "error". `options`
 * (the seal key) apply to the kinds that are sealed (§8).
 */
export function scoreDirectory(dir: string, path: string, entries?: BundleEntryInfo[], kind: KindName = "bundle", options: BundleOptions = {}): BundleEntry {
  try {
    return { path, ...(SCORERS[kind] as FolderScorer).score(diskBundle(dir, entries), options) };
  } catch (e) {
    return failed(dir, path, e, kind);
  }
}

/** A file of a file kind (or one part of it: its tool error stands for the whole file) → what its scorer answers. */
export function scoreFile(file: string, path: string, kind: KindName, task: unknown): BundleEntry | PartResult {
  try {
    return (SCORERS[kind] as FileScorer).score(file, path, task);
  } catch (e) {
    return failed(file, path, e, kind);
  }
}
