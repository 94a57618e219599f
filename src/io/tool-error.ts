// Entries for things the tool could not finish (§6 tool errors). Used in workers (a scorer that
// threw) and in the main thread (a worker that died or ran out of time returned nothing).

import { finding, type Code } from "../core/codes.js";
import { blankEntry, type BundleEntry, type ScoredBundle } from "../core/results.js";
import { declarationOf, type KindName } from "../kinds/declared.js";

/** What a unit the tool could not finish still says of itself, read leniently by its kind (FolderScorer.attribute). */
export type Attributed = Pick<ScoredBundle, "profile" | "experiment" | "trial" | "attempt" | "seed" | "task">;

/**
 * An entry for something the tool could not finish. A kind of one profile names it (a Harbor
 * trial is attributed where it lies after this; an Inspect log's identity is in the log the tool
 * could not read, so it has none); a kind of several (an assay bundle) says what it can through
 * `attribute`, and with none its profile is unknown.
 */
export function toolError(
  dir: string,
  path: string,
  code: Code,
  message: string,
  kind: KindName = "bundle",
  attribute?: (dir: string) => Attributed,
): BundleEntry {
  const { profiles } = declarationOf(kind);
  const errors = [finding(code, null, null, message)];
  if (profiles.length === 1) return { path, ...blankEntry({ profile: profiles[0], validity: "error", errors }) };
  return { path, ...blankEntry({ ...(attribute?.(dir) ?? { profile: null }), validity: "error", errors }) };
}
