// One found thing (a bundle, a Harbor trial, an Inspect log…) → its entry, by the scorer given; a
// failure of the tool becomes validity "error". Workers pass the scorer they loaded for its kind
// (worker.ts); in-process scoring passes it from the whole registry (score-directory.ts).

import type { BundleEntryInfo, BundleOptions } from "../core/folder.js";
import type { BundleEntry } from "../core/results.js";
import { diskBundle } from "../io/bundle-source.js";
import { toolError } from "../io/tool-error.js";
import type { KindName } from "../kinds/declared.js";
import type { FileScorer, FolderScorer, PartResult, Scorer } from "../kinds/scorer.js";

/** A failure of the tool, not the evidence: IO_ERROR when the file system refused a read, WORKER_FAILED for anything else (a defect). */
function failed(dir: string, path: string, e: unknown, kind: KindName, scorer: Scorer): BundleEntry {
  const err = e as NodeJS.ErrnoException;
  const attribute = scorer.form === "folder" ? scorer.attribute : undefined;
  return typeof err.code === "string" && err.code.startsWith("E")
    ? toolError(dir, path, "IO_ERROR", err.message, kind, attribute)
    : toolError(dir, path, "WORKER_FAILED", `internal error: ${err.message}`, kind, attribute);
}

/** A folder of a folder kind → its entry. `options` (the seal key) apply to the kinds that are sealed (§8). */
export function scoreFolder(
  scorer: FolderScorer,
  kind: KindName,
  dir: string,
  path: string,
  entries: BundleEntryInfo[] | undefined,
  options: BundleOptions,
): BundleEntry {
  try {
    return { path, ...scorer.score(diskBundle(dir, entries), options) };
  } catch (e) {
    return failed(dir, path, e, kind, scorer);
  }
}

/** A file of a file kind (or one part of it: its tool error stands for the whole file) → what its scorer answers. */
export function scoreLog(
  scorer: FileScorer,
  kind: KindName,
  file: string,
  path: string,
  task: unknown,
): BundleEntry | PartResult {
  try {
    return scorer.score(file, path, task);
  } catch (e) {
    return failed(file, path, e, kind, scorer);
  }
}
