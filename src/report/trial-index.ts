// What an experiment says of each of its bundle entries: does the entry's evidence count, and if
// not, why. The bundle's own validity decides first; then what its experiment says of its trial
// (the batch rules: a seed collision, an attempt sequence, a tool error on another attempt, an
// exclusion, a superseded attempt, a log another one decides). Each experiment's lists are indexed
// once. Every report that shows a trial reads it here (JUnit's testcases, the HTML table's rows, the
// findings of Markdown and HTML), so none shows a win its experiment does not count.

import { copyReason, isCopyReason } from "../core/batch/copy-reason.js";
import type { BundleEntry, Experiment } from "../core/results.js";
import { wordsOf } from "./vocabulary.js";

export type Verdict =
  | { kind: "passed" }
  /** `state`: the short form a table shows (`excluded: …`, `superseded`). */
  | { kind: "skipped"; message: string; state: string }
  /** `trialCodes`: the trial's codes when they are not all the bundle's own (null: none beyond them). */
  | { kind: "failure" | "error"; message: string; trialCodes: readonly string[] | null };

/** Flags that say an entry is not the one its trial or task run counts. */
const NOT_COUNTED: Record<string, [state: string, why: string]> = {
  SUPERSEDED: ["superseded", "superseded: a later attempt of its trial is the one scored"],
  RETRY_AFTER_OUTCOME: ["retry after outcome", "a retry after its trial's outcome: ignored (best-of-n never counts)"],
  DUPLICATE_LOG: ["duplicate log", "a second log of one run: the other is kept"],
};
const NOT_THE_LOG: [string, string] = ["not the counted log", "not the log its task run's figures come from"];

/** An entry's attempt as its experiment's lists key it: none for kinds whose evidence is one folder or log a trial. */
const attemptOf = (e: BundleEntry): string => (wordsOf(e.profile).byFolder ? "" : String(e.attempt ?? ""));

function add(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** An experiment's lists, by trial (a Harbor trial's name, an Inspect log's path, a native or world trial id). */
export class TrialIndex {
  readonly invalid = new Map<string, readonly string[]>();
  readonly excluded = new Map<string, string[]>();
  readonly unscored: ReadonlySet<string>;
  /** `trial\0attempt` (attempt empty for Harbor and Inspect) → why it is not counted. */
  readonly notCounted = new Map<string, [state: string, why: string]>();
  /** `trial\0attempt` → the experiment's flags for review on it, as lines. */
  readonly review = new Map<string, string[]>();

  constructor(readonly experiment: Experiment | null) {
    const e = experiment;
    this.unscored = new Set(e?.unscored ?? []);
    for (const i of e?.invalid ?? []) this.invalid.set(i.trial, i.codes);
    for (const x of e?.excluded ?? []) add(this.excluded, x.trial, x.reason);
    for (const f of e?.flags ?? []) {
      const key = `${f.trial}\u0000${f.attempt ?? ""}`;
      // An Inspect task run's figures come from one log of its chain (§12).
      const not = wordsOf(e!.profile).logged && f.code in NOT_COUNTED ? NOT_THE_LOG : NOT_COUNTED[f.code];
      if (not !== undefined)
        this.notCounted.set(key, [not[0], f.evidence === null ? not[1] : `${not[1]} (${f.evidence})`]);
      else add(this.review, key, `flag ${f.code}${f.evidence === null ? "" : `: ${f.evidence}`}`);
    }
  }

  /** How the experiment's lists name the entry's trial. */
  static trialOf(e: BundleEntry): string | null {
    const w = wordsOf(e.profile);
    return w.trialsArePaths ? e.path : w.byFolder ? (e.trial ?? e.path) : e.trial;
  }

  /** Why the entry is excluded: a copy of a trial name is excluded as one, its original (which the copy's reason names) only for a reason of its own. */
  private exclusion(trial: string, path: string): string | null {
    const reasons = this.excluded.get(trial) ?? [];
    const mine = copyReason(path);
    return reasons.find((r) => isCopyReason(r) && r !== mine) ?? reasons.find((r) => !isCopyReason(r)) ?? null;
  }

  verdict(e: BundleEntry): Verdict {
    const trial = TrialIndex.trialOf(e);
    const codes = trial === null ? undefined : this.invalid.get(trial);
    const own: string[] = [...new Set(e.errors.map((f) => f.code))];
    const beyond = codes !== undefined && codes.some((c) => !own.includes(c)) ? codes : null;
    if (e.validity === "error") return { kind: "error", message: own.join(", ") || "tool error", trialCodes: null };
    if (e.validity === "invalid") return { kind: "failure", message: own.join(", "), trialCodes: beyond };
    if (codes !== undefined) return { kind: "failure", message: codes.join(", "), trialCodes: codes };
    if (trial === null || this.experiment === null)
      return {
        kind: "skipped",
        message: "not attributed to a trial (line 1 names no valid experiment, trial and attempt): in no figure",
        state: "unattributed",
      };
    if (this.unscored.has(trial))
      return {
        kind: "skipped",
        message: `unscored: another attempt of trial ${trial} is a tool error, which puts the trial outside every figure`,
        state: "unscored: a tool error on another attempt",
      };
    const excluded = this.exclusion(trial, e.path);
    if (excluded !== null) return { kind: "skipped", message: `excluded: ${excluded}`, state: `excluded: ${excluded}` };
    const not = this.notCounted.get(`${trial}\u0000${attemptOf(e)}`);
    if (not !== undefined) return { kind: "skipped", message: not[1], state: not[0] };
    return { kind: "passed" };
  }

  /** The experiment's review flags on the entry's trial (or attempt). */
  reviewOf(e: BundleEntry): readonly string[] {
    const trial = TrialIndex.trialOf(e);
    if (trial === null) return [];
    return this.review.get(`${trial}\u0000${attemptOf(e)}`) ?? [];
  }
}

const keyOf = (kind: string, experiment: string | null) => JSON.stringify([kind, experiment]);
/** The experiment an entry belongs to: Harbor and Inspect experiments are named apart from assay's; an entry naming no trial belongs to none. */
export const entryKey = (e: BundleEntry) =>
  wordsOf(e.profile).byFolder
    ? keyOf(e.profile!, e.experiment)
    : e.experiment !== null && e.trial !== null && e.attempt !== null
      ? keyOf("assay", e.experiment)
      : keyOf("none", null);
export const experimentKey = (x: Experiment) => keyOf(wordsOf(x.profile).byFolder ? x.profile! : "assay", x.experiment);

/** Every experiment's index, found by an entry. */
export class TrialIndexes {
  readonly byKey = new Map<string, TrialIndex>();
  private readonly none = new TrialIndex(null);

  constructor(experiments: readonly Experiment[]) {
    for (const x of experiments)
      if (!this.byKey.has(experimentKey(x))) this.byKey.set(experimentKey(x), new TrialIndex(x));
  }

  of(e: BundleEntry): TrialIndex {
    return this.byKey.get(entryKey(e)) ?? this.none;
  }
}

/**
 * Codes an experiment gives a trial (its `invalid` list) that none of the trial's bundles holds as
 * an error of its own: what the batch rules found across bundles (SEED_MISMATCH, TRIAL_DUPLICATE,
 * UNSCHEDULED…), which a count of the bundles' findings alone never shows. Fed the entries one at a
 * time; holds only the own codes of invalid trials' entries.
 */
export class TrialOnlyCodes {
  private readonly own = new Map<TrialIndex, Map<string, Set<string>>>();

  constructor(private readonly indexes: TrialIndexes) {}

  see(e: BundleEntry): void {
    const index = this.indexes.of(e);
    const trial = TrialIndex.trialOf(e);
    if (trial === null || !index.invalid.has(trial)) return;
    let trials = this.own.get(index);
    if (trials === undefined) this.own.set(index, (trials = new Map()));
    const codes = trials.get(trial) ?? new Set();
    trials.set(trial, codes);
    for (const f of e.errors) codes.add(f.code);
  }

  /** After every entry is seen: each trial-only code, with its experiment and trial. */
  *codes(): Generator<{ experiment: Experiment; trial: string; code: string }> {
    for (const index of this.indexes.byKey.values())
      for (const [trial, codes] of index.invalid)
        for (const code of codes)
          if (!this.own.get(index)?.get(trial)?.has(code)) yield { experiment: index.experiment!, trial, code };
  }
}
