// What the batch rules (§6, §11) read of a bundle entry. A run keeps one of these per bundle in
// memory and spills the entry itself to disk, so memory grows by a small record per bundle, not
// by its findings, details and advisory text. Pure.

import { DECLARED_PROFILES, DECLARED_STATES } from "../../kinds/declared.js";
import type { Code } from "../codes.js";
import { timeMs, timeText, type EntryIdentity } from "../identity.js";
import { INSPECT_STATUSES, type BundleEntry } from "../results.js";
import type { BatchKinds, RecordPart, Sharing } from "./kind.js";

export type BatchRecord = Pick<
  BundleEntry,
  | "path"
  | "digest"
  | "profile"
  | "experiment"
  | "trial"
  | "attempt"
  | "seed"
  | "validity"
  | "status"
  | "task"
  | "task_checksum"
  | "ending"
  | "final_score"
  | "scenario"
  | "victory"
  | "pass"
  | "state"
  | "rewards"
  | "reward_source"
  | "harbor_id"
  | "job_id"
  | "job"
  | "claimed"
  | "samples"
  | "usage"
  | "identity"
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
  /** What a kind's record part keeps for its own batch rules alone (absent on an entry given as its own record). */
  own?: unknown;
};

const PROFILES = [null, ...DECLARED_PROFILES] as const;
const VALIDITIES = ["valid", "invalid", "error"] as const;
const STATUSES = [
  null,
  "completed",
  "interrupted",
  "abnormal",
  "resource-bound",
  "unterminated",
  ...INSPECT_STATUSES,
] as const;
const STATES = [null, ...DECLARED_STATES] as const;
const TRI = [null, false, true] as const;
const ENUMS = {
  profile: PROFILES,
  validity: VALIDITIES,
  status: STATUSES,
  state: STATES,
  ending: TRI,
  final_score: TRI,
  victory: TRI,
  pass: TRI,
} as const;
type Packed = keyof typeof ENUMS;
/** Bit fields of CompactRecord.bits: [shift, width, values], each as wide as its values need (32 bits in all at most). */
const FIELDS = (() => {
  let shift = 0;
  const fields = {} as { [K in Packed]: readonly [number, number, (typeof ENUMS)[K]] };
  for (const [name, values] of Object.entries(ENUMS) as [Packed, readonly unknown[]][]) {
    const width = Math.max(1, Math.ceil(Math.log2(values.length)));
    (fields as Record<Packed, unknown>)[name] = [shift, width, values];
    shift += width;
  }
  if (shift > 31) throw new Error(`a compact record's enumerations need ${shift} bits: more than one number holds`);
  return fields;
})();
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
/**
 * A BatchRecord in about a quarter of an entry's memory: enumerations and booleans packed in one
 * number, the fields only some kinds fill in their kind's part, shared strings and code objects
 * (RecordMaker shares them).
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
    private readonly part: RecordPart | null,
    /** The entry's identity without its times (shared: one object per agent, model, benchmark…), and its times as ms (NaN: none), smaller than their text. */
    private readonly who: EntryIdentity | null,
    private readonly started: number,
    private readonly finished: number,
  ) {}
  get identity(): EntryIdentity | null {
    const clock = this.who?.clock ?? null;
    if (this.who === null || clock === null) return this.who;
    const text = (ms: number) => (Number.isNaN(ms) ? null : timeText(ms, clock));
    return { ...this.who, started_at: text(this.started), finished_at: text(this.finished) };
  }
  get profile() {
    return unpack(this.bits, "profile");
  }
  get validity() {
    return unpack(this.bits, "validity");
  }
  get status() {
    return unpack(this.bits, "status");
  }
  get state() {
    return unpack(this.bits, "state");
  }
  get ending() {
    return unpack(this.bits, "ending");
  }
  get final_score() {
    return unpack(this.bits, "final_score");
  }
  get victory() {
    return unpack(this.bits, "victory");
  }
  get pass() {
    return unpack(this.bits, "pass");
  }
  get digest() {
    return this.part?.digest ?? "";
  }
  get task_checksum() {
    return this.part?.task_checksum ?? null;
  }
  get rewards() {
    return this.part?.rewards ?? null;
  }
  get reward_source() {
    return this.part?.reward_source ?? null;
  }
  get flags() {
    return this.part?.flags ?? NONE;
  }
  get harbor_id() {
    return this.part?.harbor_id ?? null;
  }
  get job_id() {
    return this.part?.job_id ?? null;
  }
  get job() {
    return this.part?.job ?? null;
  }
  get claimed() {
    return this.part?.claimed ?? null;
  }
  get exception() {
    return this.part?.exception ?? null;
  }
  get samples() {
    return this.part?.samples ?? null;
  }
  get inspect() {
    return this.part?.inspect ?? null;
  }
  get usage() {
    return this.part?.usage ?? null;
  }
  get own() {
    return this.part?.own;
  }
}

/**
 * Makes compact records, sharing what repeats across bundles: one string for each experiment,
 * task or scenario, one object per code, one dimensions object per pattern of passes.
 */
export class RecordMaker implements Sharing {
  private readonly strings = new Map<string, string>();
  private readonly codeObjects = new Map<Code, { readonly code: Code }>();
  private readonly patterns = new Map<string, Readonly<Record<string, { readonly pass: boolean }>>>();
  /** Small objects that repeat across trials (a claim, an exception's type and step), one per value. */
  private readonly shared = new Map<string, object>();

  /** `kinds`: whose record parts the records carry (kinds/batch.ts: the list's). */
  constructor(private readonly kinds: BatchKinds) {}

  string<T extends string | null>(v: T): T {
    if (v === null) return v;
    const known = this.strings.get(v);
    if (known !== undefined) return known as T;
    this.strings.set(v, v);
    return v;
  }

  private code(c: Code): { readonly code: Code } {
    let o = this.codeObjects.get(c);
    if (o === undefined) this.codeObjects.set(c, (o = Object.freeze({ code: c })));
    return o;
  }

  codes(fs: readonly { code: Code }[], distinct: boolean): readonly { readonly code: Code }[] {
    if (fs.length === 0) return NONE;
    return (distinct ? [...new Set(fs.map((f) => f.code))] : fs.map((f) => f.code)).map((c) => this.code(c));
  }

  private dims(d: BundleEntry["dimensions"]): BatchRecord["dimensions"] {
    if (d === null) return null;
    const key = Object.entries(d)
      .map(([k, v]) => `${k}\u0000${v.pass ? 1 : 0}`)
      .join("\u0001");
    let o = this.patterns.get(key);
    if (o === undefined) {
      o = Object.freeze(Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Object.freeze({ pass: v.pass })])));
      this.patterns.set(key, o);
    }
    return o;
  }

  one<T extends object>(v: T | null): T | null {
    if (v === null) return null;
    const key = JSON.stringify(v);
    let o = this.shared.get(key) as T | undefined;
    if (o === undefined) this.shared.set(key, (o = Object.freeze(v)));
    return o;
  }

  record(e: BundleEntry): BatchRecord {
    const part = this.kinds.of(e.profile).recordPart?.(e, this) ?? null;
    const id = e.identity;
    const who = id === null ? null : this.one({ ...id, started_at: null, finished_at: null });
    const ms = (at: string | null | undefined) => (at == null || id?.clock == null ? NaN : timeMs(at, id.clock));
    return new CompactRecord(
      e.path,
      this.string(e.experiment),
      e.trial,
      e.attempt,
      e.seed,
      this.string(e.task),
      this.string(e.scenario),
      pack(e),
      this.codes(e.errors, true),
      this.dims(e.dimensions),
      part,
      who,
      ms(id?.started_at),
      ms(id?.finished_at),
    );
  }
}
