// What the batch rules (§6, §11) read of a bundle entry. A run keeps one of these per bundle in
// memory and spills the entry itself to disk, so memory grows by a small record per bundle, not
// by its findings, details and advisory text. Pure.

import type { Code } from "../codes.js";
import { HARBOR_STATES, INSPECT_STATUSES, type BundleEntry } from "../results.js";

export type BatchRecord = Pick<
  BundleEntry,
  | "path" | "digest" | "profile" | "experiment" | "trial" | "attempt" | "seed" | "validity" | "status" | "task" | "task_checksum"
  | "ending" | "final_score" | "scenario" | "victory" | "pass" | "state" | "rewards" | "reward_source"
  | "harbor_id" | "job_id" | "job" | "claimed" | "samples" | "usage"
> & {
  /** The codes of the entry's errors, each once (what makes a trial invalid). */
  errors: readonly { readonly code: Code }[];
  /** The codes of its review flags, in order (Harbor). */
  flags: readonly { readonly code: Code }[];
  /** Each dimension's pass (world). */
  dimensions: Readonly<Record<string, { readonly pass: boolean }>> | null;
  /** Harbor: the exception's type and step (its message is the entry's alone). */
  exception: { readonly type: string; readonly step: string | null } | null;
  /** Inspect: the log's identity, plan and metrics (bounded by its metrics, never its samples). */
  inspect: BundleEntry["inspect"];
};

const PROFILES = [null, "native-game", "world", "harbor", "inspect"] as const;
const VALIDITIES = ["valid", "invalid", "error"] as const;
const STATUSES = [null, "completed", "interrupted", "abnormal", "resource-bound", "unterminated", ...INSPECT_STATUSES] as const;
const STATES = [null, ...HARBOR_STATES, "complete"] as const;
const TRI = [null, false, true] as const;
/** Bit fields of CompactRecord.bits: [shift, width, values]. */
const FIELDS = {
  profile: [0, 3, PROFILES],
  validity: [3, 2, VALIDITIES],
  status: [5, 4, STATUSES],
  state: [9, 3, STATES],
  ending: [12, 2, TRI],
  final_score: [14, 2, TRI],
  victory: [16, 2, TRI],
  pass: [18, 2, TRI],
} as const;
type Packed = keyof typeof FIELDS;

function pack(e: BundleEntry): number {
  let bits = 0;
  for (const [name, [shift, , values]] of Object.entries(FIELDS) as [Packed, (typeof FIELDS)[Packed]][]) {
    const i = (values as readonly unknown[]).indexOf(e[name]);
    if (i < 0) throw new Error(`a bundle entry's ${name} has no place in a compact record: ${String(e[name])}`);
    bits |= i << shift;
  }
  return bits;
}
const unpack = <K extends Packed>(bits: number, name: K): BundleEntry[K] => {
  const [shift, width, values] = FIELDS[name];
  return (values as readonly unknown[])[(bits >> shift) & ((1 << width) - 1)] as BundleEntry[K];
};

const NONE: readonly { readonly code: Code }[] = Object.freeze([]);
/** What only Harbor trials carry. */
interface HarborPart {
  digest: string;
  task_checksum: string | null;
  rewards: Record<string, number> | null;
  reward_source: string | null;
  flags: readonly { readonly code: Code }[];
  harbor_id: string | null;
  job_id: string | null;
  job: string | null;
  claimed: BundleEntry["claimed"];
  exception: BatchRecord["exception"];
  usage: BundleEntry["usage"];
}

/**
 * A BatchRecord in about a quarter of an entry's memory: enumerations and booleans packed in one
 * number, Harbor's fields apart, shared strings and code objects (RecordMaker shares them).
 */
class CompactRecord implements BatchRecord {
  constructor(
    readonly path: string,
    readonly experiment: string | null,
    readonly trial: string | null,
    readonly attempt: number | null,
    readonly seed: string | null,
    readonly task: string | null,
    readonly scenario: string | null,
    private readonly bits: number,
    readonly errors: readonly { readonly code: Code }[],
    readonly dimensions: BatchRecord["dimensions"],
    private readonly harbor: HarborPart | null,
    private readonly inspectPart: InspectPart | null = null,
  ) {}
  get profile() { return unpack(this.bits, "profile"); }
  get validity() { return unpack(this.bits, "validity"); }
  get status() { return unpack(this.bits, "status"); }
  get state() { return unpack(this.bits, "state"); }
  get ending() { return unpack(this.bits, "ending"); }
  get final_score() { return unpack(this.bits, "final_score"); }
  get victory() { return unpack(this.bits, "victory"); }
  get pass() { return unpack(this.bits, "pass"); }
  get digest() { return this.harbor?.digest ?? this.inspectPart?.digest ?? ""; }
  get task_checksum() { return this.harbor?.task_checksum ?? null; }
  get rewards() { return this.harbor?.rewards ?? null; }
  get reward_source() { return this.harbor?.reward_source ?? null; }
  get flags() { return this.harbor?.flags ?? this.inspectPart?.flags ?? NONE; }
  get harbor_id() { return this.harbor?.harbor_id ?? null; }
  get job_id() { return this.harbor?.job_id ?? null; }
  get job() { return this.harbor?.job ?? null; }
  get claimed() { return this.harbor?.claimed ?? null; }
  get exception() { return this.harbor?.exception ?? null; }
  get samples() { return this.inspectPart?.samples ?? null; }
  get inspect() { return this.inspectPart?.inspect ?? null; }
  get usage() { return this.harbor?.usage ?? this.inspectPart?.usage ?? null; }
}

/** An Inspect log without its per-sample lists (§13.4's `sample_ids` and `values`: the entry's alone, never the batch rules'). */
function perLog(l: BundleEntry["inspect"]): BundleEntry["inspect"] {
  if (l === null) return null;
  const metrics = Object.fromEntries(Object.entries(l.metrics).map(([k, m]) => [k, m.values === null ? m : { ...m, values: null }]));
  return { ...l, sample_ids: null, metrics };
}

/** What only Inspect logs carry (one per log: a run holds far fewer logs than samples). */
interface InspectPart {
  digest: string;
  samples: BundleEntry["samples"];
  inspect: BundleEntry["inspect"];
  flags: readonly { readonly code: Code }[];
  usage: BundleEntry["usage"];
}

/**
 * Makes compact records, sharing what repeats across bundles: one string for each experiment,
 * task or scenario, one object per code, one dimensions object per pattern of passes.
 */
export class RecordMaker {
  private readonly strings = new Map<string, string>();
  private readonly codes = new Map<Code, { readonly code: Code }>();
  private readonly patterns = new Map<string, Readonly<Record<string, { readonly pass: boolean }>>>();
  /** Small objects that repeat across trials (a claim, an exception's type and step), one per value. */
  private readonly shared = new Map<string, object>();

  private s<T extends string | null>(v: T): T {
    if (v === null) return v;
    const known = this.strings.get(v);
    if (known !== undefined) return known as T;
    this.strings.set(v, v);
    return v;
  }

  private code(c: Code): { readonly code: Code } {
    let o = this.codes.get(c);
    if (o === undefined) this.codes.set(c, (o = Object.freeze({ code: c })));
    return o;
  }

  private codesOf(fs: readonly { code: Code }[], distinct: boolean): readonly { readonly code: Code }[] {
    if (fs.length === 0) return NONE;
    return (distinct ? [...new Set(fs.map((f) => f.code))] : fs.map((f) => f.code)).map((c) => this.code(c));
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

  private one<T extends object>(v: T | null): T | null {
    if (v === null) return null;
    const key = JSON.stringify(v);
    let o = this.shared.get(key) as T | undefined;
    if (o === undefined) this.shared.set(key, (o = Object.freeze(v)));
    return o;
  }

  record(e: BundleEntry): BatchRecord {
    // The digest tells byte-identical Harbor copies apart; nothing else in the batch rules reads it.
    const harbor: HarborPart | null =
      e.profile === "harbor"
        ? {
            digest: e.digest,
            task_checksum: this.s(e.task_checksum),
            rewards: e.rewards,
            reward_source: this.s(e.reward_source),
            flags: this.codesOf(e.flags, false),
            harbor_id: e.harbor_id,
            job_id: this.s(e.job_id),
            job: this.s(e.job),
            claimed: this.one(e.claimed),
            exception: this.one(e.exception === null ? null : { type: e.exception.type, step: e.exception.step }),
            usage: e.usage,
          }
        : null;
    const inspect: InspectPart | null = e.profile === "inspect" ? { digest: e.digest, samples: e.samples, inspect: perLog(e.inspect), flags: this.codesOf(e.flags, false), usage: e.usage } : null;
    return new CompactRecord(e.path, this.s(e.experiment), e.trial, e.attempt, e.seed, this.s(e.task), this.s(e.scenario), pack(e),
      this.codesOf(e.errors, true), this.dims(e.dimensions), harbor, inspect);
  }
}
