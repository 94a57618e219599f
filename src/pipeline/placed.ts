// Where a bundle lies decides part of its entry (contract §7): set after scoring, never stored.
import type { BundleEntry } from "../core/results.js";
import type { Found } from "../io/discover.js";

/**
 * The entry as results show it: its path, and for a Harbor trial its job (the experiment) and, when
 * result.json did not name it, its folder's name as the trial. These come from where the folder
 * lies, so they are set here, on fresh and stored entries alike, and never stored.
 */
export function placed(found: Found, scored: Omit<BundleEntry, "path">): BundleEntry {
  const entry = { path: found.path, ...scored };
  if (found.harbor) {
    entry.experiment = found.harbor.job;
    entry.trial ??= found.harbor.folder;
  }
  return entry;
}
