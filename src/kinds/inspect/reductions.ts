// REDUCTION_MISMATCH (contract §12): each reduced value in the log must be what its reducer gives
// over that sample's epoch scores, for the same set of samples. Pure.

import { finding, type Finding } from "../../core/codes.js";
import { isPlainObject } from "../../core/json/decode.js";
import type { SampleRecord } from "./sample.js";
import { agree, parseReducer, reduce } from "./stats.js";
import type { ReductionSet } from "./summary.js";
import { showValue, valueToFloat } from "./value.js";
import { atLeast, SINCE } from "./version.js";

export function checkReductions(
  sets: readonly ReductionSet[],
  records: readonly SampleRecord[],
  version: readonly number[] | null,
  file: string,
): Finding[] {
  const out: Finding[] = [];
  const errorsCount = atLeast(version, SINCE.erroredScored);
  for (const set of sets) {
    const r = parseReducer(set.reducer);
    if (r === null) continue; // a reducer assay does not recompute: unverified, never a mismatch
    const label = `${set.scorer}${set.reducer === null ? "" : ` (${set.reducer})`}`;
    // The epoch scores Inspect reduced: records with this scorer's score, grouped by str(id).
    const groups = new Map<string, unknown[]>();
    for (const rec of records) {
      if (!Object.hasOwn(rec.scores, set.scorer) || (rec.error !== null && !errorsCount)) continue;
      const g = groups.get(rec.id) ?? [];
      if (g.length === 0) groups.set(rec.id, g);
      g.push(rec.scores[set.scorer]);
    }
    const bad: string[] = [];
    for (const id of set.values.keys())
      if (!groups.has(id)) bad.push(`sample ${JSON.stringify(id)} is reduced but has no scored record`);
    for (const id of groups.keys())
      if (!set.values.has(id)) bad.push(`sample ${JSON.stringify(id)} has scored records but no reduction`);
    for (const [id, claimed] of set.values) {
      const epochs = groups.get(id);
      if (epochs === undefined) continue;
      // A dict-valued score is reduced key by key.
      const keys = isPlainObject(claimed) ? Object.keys(claimed) : [null];
      for (const k of keys) {
        const raw =
          k === null
            ? epochs
            : epochs
                .map((v) => (isPlainObject(v) && Object.hasOwn(v, k) ? v[k] : undefined))
                .filter((v) => v !== undefined && v !== null);
        const expected = reduce(r, raw, version);
        const said = valueToFloat(k === null ? claimed : (claimed as Record<string, unknown>)[k], version).x; // k is one of claimed's own keys
        if (!agree(said, expected))
          bad.push(
            `sample ${JSON.stringify(id)}${k === null ? "" : ` key ${k}`}: ${showValue(said)} reduced, ${showValue(expected)} from its ${epochs.length} epoch score${epochs.length === 1 ? "" : "s"}`,
          );
      }
    }
    for (const b of bad) out.push(finding("REDUCTION_MISMATCH", file, null, `${label}: ${b}`));
  }
  return out;
}
