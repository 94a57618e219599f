// What the batch rules (§6, §11) read of a bundle entry. A run keeps one of these per bundle in
// memory and spills the entry itself to disk, so memory grows by a small record per bundle, not
// by its findings, details and advisory text. Pure.

import { DECLARED_PROFILES, DECLARED_STATES } from "../../kinds/declared.js";
import type { Code } from "../codes.js";
import { timeMs, timeText, type EntryIdentity } from "../identity.js";
import { INSPECT_STATUSES, type BundleEntry } from "../results.js";
import type { BatchKinds, RecordPart, Sharing } from "./kind.js";
import { cutPath, Epoch, HexArena, own, segment, trialAt } from "./record-text.js";

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
 * What many records share (one object per value, RecordMaker makes them): the path's folder, the
 * experiment and scenario, the packed enumerations, the error codes, the dimensions, the identity
 * without its times, and the reading of the times and seeds.
 */
interface Kin {
  readonly folder: string;
  readonly experiment: string | null;
  readonly scenario: string | null;
  readonly bits: number;
  readonly errors: readonly { readonly code: Code }[];
  readonly dimensions: BatchRecord["dimensions"];
  /** The entry's identity without its times (one object per agent, model, benchmark…). */
  readonly who: EntryIdentity | null;
  readonly epoch: Epoch;
  readonly seeds: HexArena;
}

/**
 * A BatchRecord in 96 bytes and its path's rest: what repeats across bundles in a shared Kin, the
 * fields only some kinds fill in their kind's part, and the bundle's own text compact
 * (record-text.ts: its trial as a segment of the path, its seed as bytes, its times as offsets).
 * A heap snapshot at 80,000 native bundles: 180 bytes a bundle in all, where whole strings and
 * boxed times took 340.
 */
class CompactRecord implements BatchRecord {
  constructor(
    private readonly kin: Kin,
    private readonly rest: string,
    private readonly trialKept: string | null | 1 | 2,
    readonly attempt: number | null,
    private readonly seedKept: string | number | null,
    readonly task: string | null,
    private readonly part: RecordPart | null,
    private readonly started: number | null,
    private readonly finished: number | null,
  ) {}
  get path(): string {
    return this.kin.folder === "" ? this.rest : this.kin.folder + this.rest;
  }
  get trial(): string | null {
    const t = this.trialKept;
    return typeof t === "number" ? segment(this.path, t) : t;
  }
  get seed(): string | null {
    return this.kin.seeds.get(this.seedKept);
  }
  get experiment() {
    return this.kin.experiment;
  }
  get scenario() {
    return this.kin.scenario;
  }
  get errors() {
    return this.kin.errors;
  }
  get dimensions() {
    return this.kin.dimensions;
  }
  get identity(): EntryIdentity | null {
    const { who, epoch } = this.kin;
    const clock = who?.clock ?? null;
    if (who === null || clock === null) return who;
    const text = (kept: number | null) => (kept === null ? null : timeText(epoch.get(kept), clock));
    return { ...who, started_at: text(this.started), finished_at: text(this.finished) };
  }
  get profile() {
    return unpack(this.kin.bits, "profile");
  }
  get validity() {
    return unpack(this.kin.bits, "validity");
  }
  get status() {
    return unpack(this.kin.bits, "status");
  }
  get state() {
    return unpack(this.kin.bits, "state");
  }
  get ending() {
    return unpack(this.kin.bits, "ending");
  }
  get final_score() {
    return unpack(this.kin.bits, "final_score");
  }
  get victory() {
    return unpack(this.kin.bits, "victory");
  }
  get pass() {
    return unpack(this.kin.bits, "pass");
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
 * task or scenario, one object per code, one dimensions object per pattern of passes, one Kin per
 * folder, experiment, scenario, enumerations, codes, dimensions and identity.
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

  /** One list per set of error codes (in the order first found), and an id per shared object (a Kin's key). */
  private readonly errorLists = new Map<string, readonly { readonly code: Code }[]>();
  private readonly ids = new Map<object, number>();
  private readonly kins = new Map<string, Kin>();
  private readonly epoch = new Epoch();
  private readonly seeds = new HexArena();

  private errors(fs: readonly { code: Code }[]): readonly { readonly code: Code }[] {
    const list = this.codes(fs, true);
    if (list === NONE) return NONE;
    const key = list.map((f) => f.code).join(" ");
    const known = this.errorLists.get(key);
    if (known !== undefined) return known;
    this.errorLists.set(key, Object.freeze(list));
    return list;
  }

  private id(o: object | null): number {
    if (o === null) return -1;
    let n = this.ids.get(o);
    if (n === undefined) this.ids.set(o, (n = this.ids.size));
    return n;
  }

  private kin(e: BundleEntry, folder: string, who: EntryIdentity | null): Kin {
    const errors = this.errors(e.errors);
    const dimensions = this.dims(e.dimensions);
    const bits = pack(e);
    const key = `${bits} ${this.id(errors)} ${this.id(dimensions)} ${this.id(who)} ${JSON.stringify([folder, e.experiment, e.scenario])}`;
    let k = this.kins.get(key);
    if (k === undefined) {
      k = Object.freeze({
        folder: own(folder),
        experiment: this.string(e.experiment),
        scenario: this.string(e.scenario),
        bits,
        errors,
        dimensions,
        who,
        epoch: this.epoch,
        seeds: this.seeds,
      });
      this.kins.set(key, k);
    }
    return k;
  }

  record(e: BundleEntry): BatchRecord {
    const part = this.kinds.of(e.profile).recordPart?.(e, this) ?? null;
    const id = e.identity;
    const who = id === null ? null : this.one({ ...id, started_at: null, finished_at: null });
    const ms = (at: string | null | undefined) =>
      this.epoch.put(at == null || id?.clock == null ? NaN : timeMs(at, id.clock));
    const [folder, rest] = cutPath(e.path);
    return new CompactRecord(
      this.kin(e, folder, who),
      rest,
      trialAt(e.trial, e.path),
      e.attempt,
      this.seeds.put(e.seed),
      this.string(e.task),
      part,
      ms(id?.started_at),
      ms(id?.finished_at),
    );
  }
}
