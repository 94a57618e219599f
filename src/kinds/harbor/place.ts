// What a Harbor trial's entry takes from where it lies (contract §11), set after any store lookup
// and never stored: what `harbor analyze` wrote beside it (analysis.ts), and its task's digest from
// its job's lock.json when the trial records none of its own (Harbor before 0.20 wrote no trial
// lock.json; research §D.5). Pure.

import type { BundleEntry, ScoredBundle } from "../../core/results.js";
import { analysed } from "./analysis.js";
import type { JobLock } from "./job.js";

export interface TrialPlace {
  analysis: BundleEntry["harbor_analysis"];
  /** The job's lock.json task digests (null: several), while its trials are placed. */
  tasks: JobLock["tasks"] | null;
}

/** The entry's fields its place decides. */
export function placeTrial(
  entry: Pick<ScoredBundle, "flags" | "task" | "task_path" | "task_checksum">,
  place: TrialPlace,
): Pick<ScoredBundle, "flags" | "harbor_analysis" | "task_checksum"> {
  const own = entry.task_checksum?.startsWith("sha256:") === true;
  const t = place.tasks;
  // A trial that records its task's path is matched by it alone: a name is only a name (another task may share it).
  const fromJob =
    own || t === null || entry.task === null
      ? null
      : ((entry.task_path !== null ? t.byPath.get(entry.task_path) : t.byName.get(entry.task)) ?? null);
  return { ...analysed(entry, place.analysis), task_checksum: fromJob ?? entry.task_checksum };
}
