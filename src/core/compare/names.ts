// How `assay compare` tells experiments apart. A document's experiments are unique by kind and id,
// not by id alone: a Harbor job folder or an Inspect task may share its name with a native
// experiment (results.ts keeps them apart, as JUnit and HTML do). Compare matches by (kind, id) and
// names an experiment by its id, or `profile:id` where its id recurs in its document.

import { kindOfProfile } from "../../kinds/declared.js";
import type { Experiment } from "../results.js";

/** Each kind's experiments apart (native-game and world are one kind, assay bundles'); a profile this version does not know is taken as a bundle's. */
export const kindOf = (x: Experiment): string => kindOfProfile(x.profile) ?? "bundle";

/** The key an experiment and its bundle entries share, by profile and id: its kind and its id (the filters select entries with their experiment by it). */
export const kindKey = (profile: string | null, experiment: string | null): string =>
  JSON.stringify([kindOfProfile(profile) ?? "bundle", experiment]);

/** The key two runs' experiments match by (null: an experiment without an id, never compared). */
export const keyOf = (x: Experiment): string | null =>
  x.experiment === null ? null : kindKey(x.profile, x.experiment);

/** Each experiment with an id, by the name compare shows it under (and --pair takes). */
export function namesOf(experiments: readonly Experiment[]): Map<Experiment, string> {
  const seen = new Map<string, number>();
  for (const x of experiments) if (x.experiment !== null) seen.set(x.experiment, (seen.get(x.experiment) ?? 0) + 1);
  const out = new Map<Experiment, string>();
  for (const x of experiments)
    if (x.experiment !== null)
      out.set(x, seen.get(x.experiment)! > 1 ? `${x.profile ?? "unknown"}:${x.experiment}` : x.experiment);
  return out;
}
