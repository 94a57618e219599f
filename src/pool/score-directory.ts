// One found thing (a bundle, a Harbor trial, an Inspect log…) → its entry, by its kind's scorer from
// the whole registry: in-process scoring (`assay verify`, `assay seal`, the library). Pool workers
// load their kinds' scorers one by one (worker.ts).

import type { BundleEntryInfo, BundleOptions } from "../core/folder.js";
import type { BundleEntry } from "../core/results.js";
import type { KindName } from "../kinds/declared.js";
import type { FileScorer, FolderScorer, PartResult } from "../kinds/scorer.js";
import { SCORERS } from "../kinds/scorers.js";
import { scoreFolder, scoreLog } from "./scoring.js";

/** A folder of a folder kind → its entry; a failure of the tool becomes validity "error". `options` (the seal key) apply to the kinds that are sealed (§8). */
export function scoreDirectory(
  dir: string,
  path: string,
  entries?: BundleEntryInfo[],
  kind: KindName = "bundle",
  options: BundleOptions = {},
): BundleEntry {
  return scoreFolder(SCORERS[kind] as FolderScorer, kind, dir, path, entries, options);
}

/** A file of a file kind (or one part of it: its tool error stands for the whole file) → what its scorer answers. */
export function scoreFile(file: string, path: string, kind: KindName, task: unknown): BundleEntry | PartResult {
  return scoreLog(SCORERS[kind] as FileScorer, kind, file, path, task);
}
