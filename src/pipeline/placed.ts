// Where a bundle lies decides part of its entry (contract §7): set after scoring, never stored.
import type { BundleEntry } from "../core/results.js";
import { parentPath, type Found } from "../io/discover.js";
import { withRun } from "../core/run-identity.js";

/**
 * The entry as results show it: its path, and for a container's member its container (the
 * experiment, until the run names it; the container folder's path as `job`), its folder's name as
 * the trial when its own files did not name it, what its container's summary says of it where the
 * container has one (a Harbor job's result.json, by trial name, else folder name), and what its
 * kind takes from where it lies (`member.place`: Harbor's analysis and task digest). These come
 * from where the folder lies, so they are set here, on fresh and stored entries alike, and never
 * stored.
 */
export function placed(found: Found, scored: Omit<BundleEntry, "path">): BundleEntry {
  const entry = { path: found.path, ...scored };
  const h = found.member;
  if (h) {
    entry.experiment = h.container;
    entry.trial ??= h.folder;
    entry.job = h.container === null ? null : (h.containerPath ?? parentPath(found.path));
    // A container whose summary names its members' claims (a Harbor job's result.json) decides
    // them, null for a member it names nowhere; without one (a Terminal-Bench run, a SWE-bench model
    // folder) the member's own claim, scored from its own files (results.json, report.json), stands.
    if (h.claims !== undefined) entry.claimed = h.claims.get(entry.trial) ?? h.claims.get(h.folder) ?? null;
    if (h.place) Object.assign(entry, h.place(entry));
    if (h.identity) entry.identity = withRun(entry.identity, h.identity);
  }
  return entry;
}
