// What the batch rules (§6, §11) read of a bundle entry. A run keeps one of these per bundle in
// memory and spills the entry itself to disk, so memory grows by a small record per bundle, not
// by its findings, details and advisory text. Pure.

import { DECLARED_PROFILES, DECLARED_STATES } from "../../kinds/declared.js";
import type { Code } from "../codes.js";
import { timeMs, timeText, type EntryIdentity } from "../identity.js";
import { INSPECT_STATUSES, type BundleEntry } from "../results.js";
import type { BatchKinds, RecordPart, Sharing } from "./kind.js";
import { NONE, Columns, Times } from "./record-columns.js";
import { cutPath, HexArena, own, segment, TextArena, trialAt } from "./record-text.js";

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

const NONE_CODES: readonly { readonly code: Code }[] = Object.freeze([]);

/**
 * What many records share (one object per value, RecordMaker makes them): the path's folder, the
 * experiment and scenario, the packed enumerations, the error codes, the dimensions, and the
 * identity without its times.
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
}

/** A record's columns (record-columns.ts), each a 32-bit integer. */
const KIN = 0; // its Kin's index
const REST = 1; // its path's rest: an offset in the text arena (≥ 0), or -1 - the index of its own string
const TRIAL = 2; // TRIAL_NULL, TRIAL_EMPTY, TRIAL_LAST or TRIAL_BEFORE (a segment of the path), or the index of its own string
const ATTEMPT = 3; // a number or null (Columns.setNumber)
const SEED = 4; // NONE (null), an offset in the hex arena (≥ 0), or -1 - the index of its own string
const TASK = 5; // NONE, or the index of its (shared) string
const PART = 6; // NONE, or the index of its kind's record part
const WIDTH = 7;
/** A record's times, in its row of the table's Times (ms; NaN: none). */
const STARTED = 0;
const FINISHED = 1;
const TRIAL_NULL = -1;
const TRIAL_EMPTY = -2;
const TRIAL_LAST = -3; // the path's last name
const TRIAL_BEFORE = -4; // the one before

/**
 * The records of one maker: what repeats across bundles in shared Kins, strings and parts, each
 * bundle's own numbers in a row of columns and its text in arenas (record-text.ts: its path's rest
 * as UTF-8, its trial as a segment of the path, its seed as bytes; its times as 64-bit floats in Times).
 */
class RecordTable {
  readonly columns = new Columns(WIDTH);
  readonly kins: Kin[] = [];
  /** Strings kept whole: a task (shared), a path's rest or trial or seed the arenas cannot hold. */
  readonly strings: string[] = [];
  readonly parts: RecordPart[] = [];
  readonly rests = new TextArena();
  readonly seeds = new HexArena();
  readonly times = new Times(2);

  rest(i: number): string {
    const at = this.columns.get(i, REST);
    return at >= 0 ? this.rests.get(at) : this.strings[-1 - at]!;
  }
  kin(i: number): Kin {
    return this.kins[this.columns.get(i, KIN)]!;
  }
  part(i: number): RecordPart | null {
    const p = this.columns.get(i, PART);
    return p === NONE ? null : this.parts[p]!;
  }
  time(i: number, column: number): number {
    return this.times.get(i, column);
  }
}

/**
 * A BatchRecord as a row of a RecordTable: an object of one field (its row), 32 bytes, where an
 * object of every field took 96; its getters read the row. Each table makes its own subclass,
 * whose prototype names the table.
 */
export abstract class Row implements BatchRecord {
  declare readonly t: RecordTable;
  constructor(private readonly i: number) {}
  get path(): string {
    const folder = this.t.kin(this.i).folder;
    const rest = this.t.rest(this.i);
    return folder === "" ? rest : folder + rest;
  }
  get trial(): string | null {
    const t = this.t.columns.get(this.i, TRIAL);
    if (t >= 0) return this.t.strings[t]!;
    return t === TRIAL_NULL ? null : t === TRIAL_EMPTY ? "" : segment(this.t.rest(this.i), t === TRIAL_LAST ? 1 : 2);
  }
  get attempt(): number | null {
    return this.t.columns.getNumber(this.i, ATTEMPT);
  }
  get seed(): string | null {
    const s = this.t.columns.get(this.i, SEED);
    return s === NONE ? null : s >= 0 ? this.t.seeds.get(s) : this.t.strings[-1 - s]!;
  }
  get task(): string | null {
    const s = this.t.columns.get(this.i, TASK);
    return s === NONE ? null : this.t.strings[s]!;
  }
  get experiment() {
    return this.t.kin(this.i).experiment;
  }
  get scenario() {
    return this.t.kin(this.i).scenario;
  }
  get errors() {
    return this.t.kin(this.i).errors;
  }
  get dimensions() {
    return this.t.kin(this.i).dimensions;
  }
  get identity(): EntryIdentity | null {
    const who = this.who;
    const clock = who?.clock ?? null;
    if (who === null || clock === null) return who;
    const text = (ms: number) => (Number.isNaN(ms) ? null : timeText(ms, clock));
    return { ...who, started_at: text(this.startedMs), finished_at: text(this.finishedMs) };
  }
  /** The identity without its times (shared by many records), and the times as ms (NaN: none): what an experiment's identity folds without a text per record. */
  get who(): EntryIdentity | null {
    return this.t.kin(this.i).who;
  }
  get startedMs(): number {
    return this.t.time(this.i, STARTED);
  }
  get finishedMs(): number {
    return this.t.time(this.i, FINISHED);
  }
  private get bits() {
    return this.t.kin(this.i).bits;
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
  private get part() {
    return this.t.part(this.i);
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
    return this.part?.flags ?? NONE_CODES;
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
    if (fs.length === 0) return NONE_CODES;
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
  private readonly kins = new Map<string, number>();
  /** Each shared string's index in the table's strings. */
  private readonly stringAt = new Map<string, number>();
  private readonly table = new RecordTable();
  /** This maker's records: rows of its table. */
  private readonly Record: new (i: number) => BatchRecord;

  /** `kinds`: whose record parts the records carry (kinds/batch.ts: the list's). */
  constructor(private readonly kinds: BatchKinds) {
    const table = this.table;
    this.Record = class extends Row {};
    Object.defineProperty(this.Record.prototype, "t", { value: table });
  }

  private errors(fs: readonly { code: Code }[]): readonly { readonly code: Code }[] {
    const list = this.codes(fs, true);
    if (list === NONE_CODES) return NONE_CODES;
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

  private kin(e: BundleEntry, folder: string, who: EntryIdentity | null): number {
    const errors = this.errors(e.errors);
    const dimensions = this.dims(e.dimensions);
    const bits = pack(e);
    const key = `${bits} ${this.id(errors)} ${this.id(dimensions)} ${this.id(who)} ${JSON.stringify([folder, e.experiment, e.scenario])}`;
    let k = this.kins.get(key);
    if (k === undefined) {
      k = this.table.kins.length;
      this.table.kins.push(
        Object.freeze({
          folder: own(folder),
          experiment: this.string(e.experiment),
          scenario: this.string(e.scenario),
          bits,
          errors,
          dimensions,
          who,
        }),
      );
      this.kins.set(key, k);
    }
    return k;
  }

  /** A string of the record's own, by its index in the table's strings. */
  private ownString(s: string): number {
    return this.table.strings.push(s) - 1;
  }

  private sharedString(s: string | null): number {
    if (s === null) return NONE;
    let at = this.stringAt.get(s);
    if (at === undefined) this.stringAt.set(s, (at = this.ownString(this.string(s))));
    return at;
  }

  record(e: BundleEntry): BatchRecord {
    const t = this.table;
    const c = t.columns;
    const i = c.add();
    t.times.add();
    const part = this.kinds.of(e.profile).recordPart?.(e, this) ?? null;
    const id = e.identity;
    const who = id === null ? null : this.one({ ...id, started_at: null, finished_at: null });
    const [folder, rest] = cutPath(e.path);
    c.set(i, KIN, this.kin(e, folder, who));
    const at = t.rests.put(rest);
    // An offset past what the column holds (an arena past 2 GiB) keeps its rest as a string, as a seed's does.
    c.set(i, REST, at >= 0 && at <= 0x7fffffff ? at : -1 - this.ownString(own(rest)));
    const trial = trialAt(e.trial, e.path);
    c.set(
      i,
      TRIAL,
      trial === null
        ? TRIAL_NULL
        : trial === ""
          ? TRIAL_EMPTY
          : trial === 1
            ? TRIAL_LAST
            : trial === 2
              ? TRIAL_BEFORE
              : this.ownString(own(trial)),
    );
    c.setNumber(i, ATTEMPT, e.attempt);
    const seed = t.seeds.put(e.seed);
    c.set(
      i,
      SEED,
      seed === null ? NONE : typeof seed === "number" && seed <= 0x7fffffff ? seed : -1 - this.ownString(own(e.seed!)),
    );
    c.set(i, TASK, this.sharedString(e.task));
    c.set(i, PART, part === null ? NONE : t.parts.push(part) - 1);
    for (const [column, time] of [
      [STARTED, id?.started_at],
      [FINISHED, id?.finished_at],
    ] as const) {
      if (time != null && id?.clock != null) t.times.set(i, column, timeMs(time, id.clock));
    }
    return new this.Record(i);
  }
}
