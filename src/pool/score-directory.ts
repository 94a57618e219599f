// One bundle (or Harbor trial) directory → its entry. Runs in pool workers (and in-process for
// `assay verify`).

import { scoreBundle, type BundleOptions } from "../core/bundle.js";
import type { BundleEntryInfo } from "../core/folder.js";
import { scoreTrial } from "../core/harbor/trial.js";
import type { BundleEntry } from "../core/results.js";
import { diskBundle } from "../io/bundle-source.js";
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
