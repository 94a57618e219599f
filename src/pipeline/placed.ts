// Where a bundle lies decides part of its entry (contract §7): set after scoring, never stored.
import type { BundleEntry } from "../core/results.js";
import { parentPath, type Found } from "../io/discover.js";
import { withRun } from "../core/run-identity.js";

/**
 * The entry as results show it: its path, and for a Harbor trial its job (the experiment, until
 * the run names it; the job folder's path) and, when result.json did not name it, its folder's
 * name as the trial, what its job's result.json says of it (by trial name, else folder name), and
 * what its kind takes from where it lies (`member.place`: Harbor's analysis and task digest).
 * These come from where the folder lies, so they are set here, on fresh and stored entries alike,
 * and never stored.
 */
export function placed(found: Found, scored: Omit<BundleEntry, "path">): BundleEntry {
  const entry = { path: found.path, ...scored };
  const h = found.member;
  if (h) {
    entry.experiment = h.container;
    entry.trial ??= h.folder;
    entry.job = h.container === null ? null : (h.containerPath ?? parentPath(found.path));
    entry.claimed = h.claims?.get(entry.trial) ?? h.claims?.get(h.folder) ?? null;
    if (h.place) Object.assign(entry, h.place(entry));
    if (h.identity) entry.identity = withRun(entry.identity, h.identity);
  }
  return entry;
}
