// What the batch rules (§6, §11) read of a bundle entry. A run keeps one of these per bundle in
// memory and spills the entry itself to disk, so memory grows by a small record per bundle, not
// by its findings, details and advisory text. Pure.

import type { Code } from "../codes.js";
import type { BundleEntry } from "../results.js";

export type BatchRecord = Pick<
  BundleEntry,
  | "path" | "digest" | "profile" | "experiment" | "trial" | "attempt" | "seed" | "validity" | "status" | "task" | "task_checksum"
  | "ending" | "final_score" | "scenario" | "victory" | "pass" | "state" | "rewards"
> & {
  /** The codes of the entry's errors, each once (what makes a trial invalid). */
  errors: readonly { readonly code: Code }[];
  /** The codes of its review flags, in order (Harbor). */
  flags: readonly { readonly code: Code }[];
  /** Each dimension's pass (world). */
  dimensions: Readonly<Record<string, { readonly pass: boolean }>> | null;
};

/**
 * Makes compact records, sharing what repeats across bundles: one string for each experiment,
 * task, status or scenario, one object per code, one dimensions object per pattern of passes.
 */
export class RecordMaker {
  private readonly strings = new Map<string, string>();
  private readonly codes = new Map<Code, { readonly code: Code }>();
  private readonly patterns = new Map<string, Readonly<Record<string, { readonly pass: boolean }>>>();

  private s<T extends string | null>(v: T): T {
    if (v === null) return v;
    const known = this.strings.get(v);
    if (known !== undefined) return known as T;
    // A flat copy: a string sliced from a large text would keep that text alive.
    const copy = (v.length > 12 ? JSON.parse(JSON.stringify(v)) : v) as T & string;
    this.strings.set(copy, copy);
    return copy;
  }

  private code(c: Code): { readonly code: Code } {
    let o = this.codes.get(c);
    if (o === undefined) this.codes.set(c, (o = Object.freeze({ code: c })));
    return o;
  }

  private dims(d: BundleEntry["dimensions"]): BatchRecord["dimensions"] {
    if (d === null) return null;
    const key = Object.entries(d).map(([k, v]) => `${k}\u0000${v.pass ? 1 : 0}`).join("\u0001");
    let o = this.patterns.get(key);
    if (o === undefined) {
      o = Object.freeze(Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Object.freeze({ pass: v.pass })])));
      this.patterns.set(key, o);
    }
    return o;
  }

  record(e: BundleEntry): BatchRecord {
    const harbor = e.profile === "harbor";
    return {
      path: e.path,
      // The digest tells byte-identical Harbor copies apart; nothing else in the batch rules reads it.
      digest: harbor ? e.digest : "",
      profile: e.profile,
      experiment: this.s(e.experiment),
      trial: e.trial,
      attempt: e.attempt,
      seed: e.seed,
      validity: e.validity,
      status: e.status,
      task: this.s(e.task),
      task_checksum: this.s(e.task_checksum),
      ending: e.ending,
      final_score: e.final_score,
      scenario: this.s(e.scenario),
      victory: e.victory,
      pass: e.pass,
      state: e.state,
      rewards: e.rewards,
      errors: [...new Set(e.errors.map((f) => f.code))].map((c) => this.code(c)),
      flags: e.flags.map((f) => this.code(f.code)),
      dimensions: this.dims(e.dimensions),
    };
  }
}
