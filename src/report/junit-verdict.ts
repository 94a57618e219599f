// What a JUnit testcase says of a bundle entry: does its evidence count, and if not, why. The
// bundle's own validity decides first; then what its experiment says of its trial (the batch
// rules: a seed collision, an attempt sequence, a tool error on another attempt, an exclusion, a
// superseded attempt, a log another one decides). Each experiment's lists are indexed once.

import { copyReason, isCopyReason } from "../core/batch/harbor.js";
import type { BundleEntry, Experiment } from "../core/results.js";

export type Verdict =
  | { kind: "passed" }
  | { kind: "skipped"; message: string }
  /** `trialCodes`: the trial's codes when they are not all the bundle's own (null: none beyond them). */
  | { kind: "failure" | "error"; message: string; trialCodes: readonly string[] | null };

/** Flags that say an entry is not the one its trial or task run counts. */
const NOT_COUNTED: Record<string, string> = {
  SUPERSEDED: "superseded: a later attempt of its trial is the one scored",
  RETRY_AFTER_OUTCOME: "a retry after its trial's outcome: ignored (best-of-n never counts)",
  DUPLICATE_LOG: "a second log of one run: the other is kept",
};

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
  readonly notCounted = new Map<string, string>();
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
      const why = e!.profile === "inspect" && f.code in NOT_COUNTED ? "not the log its task run's figures come from" : NOT_COUNTED[f.code];
      if (why !== undefined) this.notCounted.set(key, f.evidence === null ? why : `${why} (${f.evidence})`);
      else add(this.review, key, `flag ${f.code}${f.evidence === null ? "" : `: ${f.evidence}`}`);
    }
  }

  /** How the experiment's lists name the entry's trial. */
  static trialOf(e: BundleEntry): string | null {
    return e.profile === "inspect" ? e.path : e.profile === "harbor" ? (e.trial ?? e.path) : e.trial;
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
      return { kind: "skipped", message: "not attributed to a trial (line 1 names no valid experiment, trial and attempt): in no figure" };
    if (this.unscored.has(trial)) return { kind: "skipped", message: `unscored: another attempt of trial ${trial} is a tool error, which puts the trial outside every figure` };
    const excluded = this.exclusion(trial, e.path);
    if (excluded !== null) return { kind: "skipped", message: `excluded: ${excluded}` };
    const why = this.notCounted.get(`${trial}\u0000${e.profile === "harbor" || e.profile === "inspect" ? "" : (e.attempt ?? "")}`);
    if (why !== undefined) return { kind: "skipped", message: why };
    return { kind: "passed" };
  }

  /** The experiment's review flags on the entry's trial (or attempt). */
  reviewOf(e: BundleEntry): readonly string[] {
    const trial = TrialIndex.trialOf(e);
    if (trial === null) return [];
    return this.review.get(`${trial}\u0000${e.profile === "harbor" || e.profile === "inspect" ? "" : (e.attempt ?? "")}`) ?? [];
  }
}
