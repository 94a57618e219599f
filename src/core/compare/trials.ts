// Each trial's outcome as its experiment's metric counts it, for the paired analysis of `assay
// compare`. Pure. Entries are read one at a time and only a number (or a Harbor trial's rewards)
// is kept per trial, never the entry; the experiment record (which lists the invalid, excluded
// and unscored trials) then decides which trials the metric counts and how.
//
// A trial is identified across two runs by its experiment (matched by kind and id, or --pair) and
// its id within it: native and world trials by the `trial` of their journal's line 1 (the scheduled
// slot), Harbor trials by their trial name (`trial_name`; a trial without a readable result.json
// by its path). Inspect logs carry no per-sample score in the document: no pairing.

import { hasOutcome } from "../batch/experiments.js";
import { isCopyReason } from "../batch/harbor.js";
import type { BundleEntry, Experiment, RunOptions } from "../results.js";

/** A trial's outcome in one metric: 0 or 1 (a Harbor reward may be any number). */
export type Outcomes = Map<string, number>;

/** A Harbor trial name two folders of one job share with different bytes: a conflict, not one trial to pair. */
const TWICE = Symbol("twice");
type HarborTrial = { digest: string; scored: boolean; rewards: Record<string, number> | null } | typeof TWICE;
const SCORED = new Set(["scored", "scored-with-exception"]);

const nested = <V>(m: Map<string, Map<string, V>>, k: string): Map<string, V> => {
  let inner = m.get(k);
  if (inner === undefined) m.set(k, (inner = new Map()));
  return inner;
};

// Kept apart by kind, as the experiments are (a Harbor job and a native experiment may share an id).
export class TrialOutcomes {
  /** native and world: per experiment and trial, the lowest attempt with an outcome, packed as attempt·4 + victory·2 + pass. */
  private readonly attempts = new Map<string, Map<string, number>>();
  private readonly harbor = new Map<string, Map<string, HarborTrial>>();

  add(e: BundleEntry): void {
    if (e.experiment === null || e.validity === "error") return; // a tool error is in no metric
    if (e.profile === "harbor") {
      const trials = nested(this.harbor, e.experiment);
      const name = e.trial ?? e.path;
      const seen = trials.get(name);
      // A byte-identical copy is the one trial its experiment counts once (batch/harbor.ts): keep the first.
      if (seen === undefined) trials.set(name, { digest: e.digest, scored: SCORED.has(e.state ?? ""), rewards: e.rewards });
      else if (seen !== TWICE && seen.digest !== e.digest) trials.set(name, TWICE);
    } else if (e.trial !== null && e.attempt !== null && hasOutcome(e)) {
      const trials = nested(this.attempts, e.experiment);
      const seen = trials.get(e.trial);
      // Arithmetic, not bit operations: an attempt number from evidence may exceed 32 bits.
      const attempt = Math.min(e.attempt, 2 ** 48);
      if (seen === undefined || Math.floor(seen / 4) > attempt) trials.set(e.trial, attempt * 4 + (e.victory === true ? 2 : 0) + (e.pass === true ? 1 : 0));
    }
  }

  /**
   * The outcomes of `x`'s trials in each of its paired metrics (and the memory they took is
   * released). Invalid trials count as 0 (`--invalid count`) or are left out; excluded, unscored,
   * missing and unscheduled trials are in no metric, so in no pair.
   */
  take(x: Experiment, options: Pick<RunOptions, "invalid">): Map<string, Outcomes> {
    const out = new Map<string, Outcomes>();
    if (x.experiment === null) return out;
    // A copy's exclusion names its original's trial, which is counted: not outside.
    const outside = new Set<string>([...x.unscored, ...x.excluded.filter((t) => !isCopyReason(t.reason)).map((t) => t.trial)]);
    const invalid = new Set<string>();
    for (const t of x.invalid) (t.codes.length === 1 && t.codes[0] === "UNSCHEDULED" ? outside : invalid).add(t.trial);
    const start = (): Outcomes => new Map(options.invalid === "count" ? [...invalid].map((t) => [t, 0]) : []);
    // Each kind from its own map: a native experiment's take leaves a same-named Harbor job's trials.
    const attempts = x.profile === "harbor" || x.profile === "inspect" ? undefined : this.attempts.get(x.experiment);
    if (attempts !== undefined) this.attempts.delete(x.experiment);
    if (x.profile === "native-game" || x.profile === "world") {
      const bit = x.profile === "world" ? 1 : 2;
      const m = start();
      for (const [trial, packed] of attempts ?? []) if (!outside.has(trial) && !invalid.has(trial)) m.set(trial, Math.floor((packed % 4) / bit) % 2);
      out.set(x.profile === "world" ? "pass" : "accuracy", m);
    } else if (x.profile === "harbor") {
      const harbor = this.harbor.get(x.experiment);
      this.harbor.delete(x.experiment);
      for (const key of Object.keys(x.rewards ?? {})) {
        const m = start();
        for (const [trial, t] of harbor ?? []) {
          if (t === TWICE || outside.has(trial) || invalid.has(trial)) continue;
          // As the reward mean counts it: a scored trial's reward under the key (none: not in this
          // key's mean); a trial without one that is not excluded counts 0 (--errors zero).
          if (t.scored && t.rewards !== null) {
            const v = t.rewards[key];
            if (v !== undefined && Object.hasOwn(t.rewards, key)) m.set(trial, v);
          } else m.set(trial, 0);
        }
        out.set(`reward/${key}/mean`, m);
      }
    }
    return out;
  }
}
