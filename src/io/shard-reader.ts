// Reading results documents for `assay merge` (and `assay compare`, which takes their experiments
// too, and `assay narrate`), streamed: a JSON document (`--format json`) member by member and its
// bundle entries one at a time, or a JSON Lines document (`--format jsonl`) line by line. Memory
// holds one entry at a time, whatever the document's size, and no value or line past
// MAX_VALUE_BYTES is ever held: it is refused as soon as it passes the cap. A file that is not
// assay's own results document is a one-line usage error naming the file and the byte where it
// goes wrong.
//
// A document is trusted as given, but never beyond what assay could have written (§8 "keyed
// documents"): an entry that credits invalid evidence, a count outside its bounds, a path that is
// not normalised or lies under none of the run's roots (in merge: outside its shard's partition),
// and one bundle twice under any spelling are refused, naming the document and where. With a key,
// the document's MAC (core/results.ts DocumentMac) is checked as it is read; ShardRun.mac says how
// that went, and the caller refuses (after saying which key, if another, scored it).

import { hash, timingSafeEqual } from "node:crypto";
import { posix } from "node:path";
import {
  DocumentMac,
  bundleEntrySchema,
  experimentSchema,
  resultsSchema,
  type BundleEntry,
  type Experiment,
  type IntervalField,
  type Results,
} from "../core/results.js";
import { describeIssues } from "../core/schema.js";
import { MembersError, MembersReader } from "../core/json/members.js";
import { MAX_JSON_DEPTH, textTooDeep } from "../core/json/strict.js";
import { forTerminal } from "../core/text.js";
import { USAGE_FIELDS } from "../core/usage.js";
import { UsageError } from "../errors.js";
import { inShard, inShardHashed, parseShard, type Shard } from "../pipeline/shard.js";
import { readChunks } from "./bundle-source.js";
import { displayRoot } from "./discover.js";
import { PathLog } from "./path-log.js";

/**
 * The largest JSON value (a member, a bundle entry, an experiment) or JSON Lines line read: past
 * it a document is refused before the value is held whole. An experiment of a million listed
 * trials is about 100 MB; V8's longest string is about 512 MiB.
 */
export const MAX_VALUE_BYTES = 256 * 1024 * 1024;
/** How assay's JSON Lines documents begin. */
const LINES_PREFIX = Buffer.from('{"type":"run",');
/** A JSON document is fed to its reader this much at a time, so a value is refused within this much of the cap. */
const SLICE = 1024 * 1024;

const FORMAT = "assay.results/1";
const runSchema = resultsSchema.shape.run;

/** What a shard document says of its run; its entries went to `onEntry`, in the document's order. */
export interface ShardRun {
  run: Results["run"];
  entries: number;
  /**
   * With a key: "valid" (the document's MAC is the one the key gives), "mismatch" (it is not:
   * edited, or written under another key) or "absent" (the document carries none). Without one:
   * "unchecked".
   */
  mac: "valid" | "mismatch" | "absent" | "unchecked";
  /**
   * The first bundle this document shares with one read before it under the same `seen` (a merge:
   * one bundle in two shards), or null; said by the caller once it has checked the runs (the same
   * shard given twice shares every bundle, and is better named so).
   */
  twice: { path: string; earlier: string } | null;
}

/** How a document is read beyond its format. */
export interface ReadOptions {
  /** The file's bytes as read (narrate digests the document so). */
  onBytes?: (chunk: Uint8Array) => void;
  /** The key's bytes: the document's MAC is checked under it (ShardRun.mac). */
  key?: Uint8Array | undefined;
  /** The bundles of the documents read so far, for a merge (one bundle in two shards); else each document has its own. */
  seen?: BundleSet;
  /** merge: every entry must lie in its shard's partition (pipeline/shard.ts). */
  partition?: boolean;
}

/**
 * The bundles seen, by their path once normalised (`./runs/a` and `runs//a` are one folder), in
 * bounded memory: per bundle, a slot of an open-addressed table (32 bits of the path's SHA-256,
 * which also say where its probe starts, and where the path lies in a PathLog: 12 bytes a slot, at
 * most 2/3 of the slots used, so 18 to 36 bytes a bundle), and the path itself, with the number of
 * the document that held it first, in the PathLog (on disk past its first megabyte). A path is one
 * seen only when the paths are the same: a slot whose 32 bits match another path's (rare: 2⁻³² a
 * pair) is told apart by reading its path back.
 */
export class BundleSet {
  private fp = new Uint32Array(1 << 12);
  private at = new Float64Array(1 << 12);
  private size = 0;
  private readonly files: string[] = [];
  private readonly paths: PathLog;

  /** `dir`: where the paths' file goes, once one is needed (ASSAY_TMPDIR, else the system's temporary folder). */
  constructor(dir?: string) {
    this.paths = new PathLog(dir);
  }

  /** A document begins: its number, for add(). */
  document(file: string): number {
    return this.files.push(file) - 1;
  }

  /** Add a path seen in document `doc`; the document that held it before (`doc` itself, when that one did), or null. */
  add(path: string, doc: number): { doc: number; file: string } | null {
    const folder = sameFolder(path);
    return this.addHashed(folder, sha256Of(folder), doc);
  }

  /** add(), given the path once normalised (sameFolder) and its SHA-256. */
  addHashed(folder: string, digest: Buffer, doc: number): { doc: number; file: string } | null {
    if (this.fp.length === 0) throw new Error("a BundleSet was added to after close()"); // no slot would ever be free
    const fp = digest.readUInt32BE(4) || 1; // 0 marks an empty slot
    const mask = this.fp.length - 1;
    for (let i = fp & mask; ; i = (i + 1) & mask) {
      if (this.fp[i] === 0) {
        this.fp[i] = fp;
        this.at[i] = this.paths.append(folder, doc);
        if (++this.size * 3 > this.fp.length * 2) this.grow();
        return null;
      }
      if (this.fp[i] !== fp) continue;
      const seen = this.paths.read(this.at[i]!);
      if (seen.path === folder) return { doc: seen.n, file: this.files[seen.n]! };
    }
  }

  private grow(): void {
    const [fp, at] = [this.fp, this.at];
    this.fp = new Uint32Array(fp.length * 2);
    this.at = new Float64Array(fp.length * 2);
    const mask = this.fp.length - 1;
    for (let j = 0; j < fp.length; j++) {
      if (fp[j] === 0) continue;
      let i = fp[j]! & mask;
      while (this.fp[i] !== 0) i = (i + 1) & mask;
      this.fp[i] = fp[j]!;
      this.at[i] = at[j]!;
    }
  }

  /** Done with: the table let go, and the paths' file, if one was made, removed. */
  close(): void {
    this.fp = new Uint32Array(0);
    this.at = new Float64Array(0);
    this.paths.close();
  }
}

const sha256Of = (s: string): Buffer => hash("sha256", s, "buffer");
/** The folder a path names, however spelled: `.` and empty segments gone, `..` applied (as the roots are spelled). */
const sameFolder = (path: string): string =>
  path !== "" && !NOT_ONE_WAY.test(path) ? path : posix.normalize(path).replace(/(.)\/+$/, "$1");
/** What sameFolder changes (`//`, a `.` or `..` name, a trailing `/`): a path with none is its own (posix.normalize costs a microsecond). */
const NOT_ONE_WAY = /\/\/|(?:^|\/)\.\.?(?:\/|$)|\/$/;

class NotResults extends UsageError {
  constructor(file: string, what: string) {
    super(`${forTerminal(file)} is not an assay results document: ${what}`);
  }
}

/** A document assay could not have written, though it reads as one: edited, or made by hand. */
class NotAssays extends UsageError {
  constructor(file: string, what: string) {
    super(`${forTerminal(file)} is not a document assay could have written: ${what}`);
  }
}

/**
 * A value's bytes as JSON (assay's own output: plain JSON.parse, then the schema decides). Its
 * depth is read from the text first when JSON.parse could build too much of it (a long text: ~100
 * bytes of heap a level), or, `walked`, whatever its length when the value is walked before any
 * schema bounds it (the run, which its MAC re-serialises): assay writes nothing that deep.
 */
function parsed(file: string, bytes: Buffer, offset: number, what: string, walked = false): unknown {
  const text = bytes.toString("utf8");
  if (textTooDeep(text, walked))
    throw new NotAssays(file, `${what} at byte ${offset} is nested deeper than ${MAX_JSON_DEPTH} arrays and objects`);
  try {
    return JSON.parse(text);
  } catch {
    throw new NotResults(file, `${what} at byte ${offset} is not JSON`);
  }
}

function entryOf(file: string, value: unknown, offset: number): BundleEntry {
  const r = bundleEntrySchema.safeParse(value);
  if (!r.success) throw new NotResults(file, `the bundle entry at byte ${offset}: ${describeIssues(r.error.issues)}`);
  return r.data;
}

function experimentOf(file: string, value: unknown, offset: number): Experiment {
  const r = experimentSchema.safeParse(value);
  if (!r.success) throw new NotResults(file, `the experiment at byte ${offset}: ${describeIssues(r.error.issues)}`);
  return r.data;
}

const macSchema = resultsSchema.shape.mac.unwrap();

function macOf(file: string, value: unknown, where: string): string {
  const r = macSchema.safeParse(value);
  if (!r.success) throw new NotResults(file, `its MAC (${where}): ${describeIssues(r.error.issues)}`);
  return r.data.value;
}

/** Where the experiments go, when the reader wants them (compare does; a merge computes its own). */
type OnExperiment = ((x: Experiment) => void) | undefined;

function runOf(file: string, value: unknown, offset: number): Results["run"] {
  // A shard scored before keyed seals existed checked none: its key is null.
  const options = (value as { options?: Record<string, unknown> } | null)?.options;
  if (typeof options === "object" && options !== null && !Object.hasOwn(options, "hmac_key"))
    options["hmac_key"] = null;
  const r = runSchema.safeParse(value);
  if (!r.success) throw new NotResults(file, `"run" at byte ${offset}: ${describeIssues(r.error.issues)}`);
  return r.data;
}

// ---------------------------------------------------------------------------------------------
// What assay could have written. Each check says what is wrong in words; the caller names where.

/** Why an entry's path is not one assay writes (the root as given, then normalised names), or null. */
export function pathProblem(path: string, roots: readonly string[]): string | null {
  // A lone surrogate is in no file name assay reads (they decode to U+FFFD), and no set of paths
  // kept as UTF-8 could tell it from itself.
  if (!path.isWellFormed()) return "its path holds a lone surrogate: assay writes no such path";
  let under = false;
  for (const root of roots) {
    const shown = displayRoot(root);
    if (path === shown) return null;
    if (!path.startsWith(`${shown}/`)) continue;
    under = true;
    if (
      path
        .slice(shown.length + 1)
        .split("/")
        .every((n) => n !== "" && n !== "." && n !== "..")
    )
      return null;
  }
  return under
    ? "its path is not normalised below its root (a '.' or '..' name, '//', or a trailing '/'): assay writes each folder's path one way"
    : `its path lies under none of the run's roots (${roots.map((r) => JSON.stringify(r)).join(", ") || "none"})`;
}

/** Why an entry credits what its evidence cannot earn, or says what assay never writes, or null. */
export function entryProblem(e: BundleEntry): string | null {
  if (e.validity !== "valid") {
    const what = e.validity === "error" ? "a tool error" : "invalid evidence";
    if (e.victory === true) return `it is ${what} credited with a victory (invalid evidence earns nothing)`;
    if (e.pass === true) return `it is ${what} credited with a pass (invalid evidence earns nothing)`;
    if (e.validity === "error" && e.rewards !== null)
      return "it is a tool error credited with rewards (a bundle the tool could not finish has none)";
    if (e.errors.length === 0) return `it is ${what} but names no error (its trial would count as valid)`;
  }
  for (const [state, n] of Object.entries(e.samples ?? {}))
    if (n < 0) return `its count of ${JSON.stringify(state)} samples is negative`;
  const plan = e.inspect?.plan;
  if (plan !== undefined && (plan.records < 0 || plan.ids < 0 || plan.epochs < 0))
    return "its Inspect plan has a negative count";
  for (const [k, m] of Object.entries(e.inspect?.metrics ?? {})) {
    if (m.coverage.scored < 0 || m.coverage.planned < 0)
      return `its Inspect metric ${JSON.stringify(k)} has a negative coverage count`;
    for (const f of [m.exclude, m.zero]) {
      const bad =
        f.n < 0
          ? "a negative count"
          : (intervalProblem(f.wilson95) ?? chancesProblem(f.pass_at_k) ?? chancesProblem(f.pass_hat_k));
      if (bad !== null) return `its Inspect metric ${JSON.stringify(k)} has ${bad}`;
    }
  }
  return e.inspect === null ? null : sampleClustersProblem(e.inspect);
}

/** §13.7: sample clusters only beside sample ids, one per id, each naming one of its key's distinct names, each for a metric the entry has. */
function sampleClustersProblem(l: NonNullable<BundleEntry["inspect"]>): string | null {
  const c = l.sample_clusters;
  if (c === null) return null;
  if (l.sample_ids === null) return "its Inspect sample clusters stand beside no sample ids";
  for (const [metric, key] of Object.entries(c.by)) {
    if (l.metrics[metric]?.values == null)
      return `its Inspect sample clusters name metric ${JSON.stringify(metric)}, which has no per-sample values`;
    if (!Object.hasOwn(c.keys, key))
      return `its Inspect metric ${JSON.stringify(metric)} is clustered by ${JSON.stringify(key)}, whose sample clusters it lacks`;
  }
  for (const [key, k] of Object.entries(c.keys)) {
    const where = `its Inspect sample clusters by ${JSON.stringify(key)}`;
    if (k.of.length !== l.sample_ids.length)
      return `${where} are ${k.of.length}, not one per sample id (${l.sample_ids.length})`;
    if (new Set(k.names).size !== k.names.length) return `${where} name one cluster twice`;
    if (k.of.some((i) => i !== null && i >= k.names.length)) return `${where} point past their ${k.names.length} names`;
  }
  return null;
}

const EPS = 1e-12;
const inUnit = (v: number) => v >= -EPS && v <= 1 + EPS;
function intervalProblem(w: readonly [number, number] | null): string | null {
  return w === null || (inUnit(w[0]) && inUnit(w[1]) && w[0] <= w[1])
    ? null
    : `an interval [${w[0]}, ${w[1]}] outside [0, 1]`;
}
function chancesProblem(m: Record<string, number> | null): string | null {
  for (const [k, v] of Object.entries(m ?? {}))
    if (!inUnit(v)) return `a chance ${v} (at ${JSON.stringify(k)}) outside [0, 1]`;
  return null;
}
/**
 * §13.2, §13.7: an interval assay could have written — lo ≤ hi around its value, at least two
 * clusters, no more clusters than units, Wilson or t only where every cluster is one unit,
 * cluster-t or Korn–Graubard only where one is not; Korn–Graubard only over 0/1 units (its value
 * a whole number of successes over them). A cluster-t interval over 0/1 units is not refused:
 * assay wrote those before §13.7, and compare reads older documents.
 */
function metricIntervalProblem(name: string, value: number | null, i: IntervalField | null): string | null {
  if (i === null) return null;
  const clustered = i.method === "cluster-t" || i.method === "korn-graubard";
  const bad = !(i.lo <= i.hi)
    ? `lo ${i.lo} above hi ${i.hi}`
    : i.clusters < 2 || i.clusters > i.units
      ? `${i.clusters} clusters of ${i.units} units`
      : clustered === (i.clusters === i.units)
        ? `a ${i.method} interval over ${i.units} units in ${i.clusters} clusters`
        : i.method === "korn-graubard" && value !== null && !wholeSuccesses(value, i.units)
          ? `a korn-graubard interval over units that are not 0/1 (value ${value} of ${i.units} units)`
          : value !== null && (value < i.lo - EPS || value > i.hi + EPS)
            ? `an interval [${i.lo}, ${i.hi}] that leaves out its value ${value}`
            : null;
  return bad === null ? null : `its ${name} interval has ${bad}`;
}

/** Whether a mean over `units` 0/1 values could be `value`: value · units a whole number (to rounding). */
const wholeSuccesses = (value: number, units: number) =>
  Math.abs(value * units - Math.round(value * units)) < 1e-6 * Math.max(1, units);

/** k of n: both counts, k within 0…n; value, when given, k/n (null when n is 0). */
function countProblem(name: string, k: number, n: number, value?: number | null): string | null {
  if (k < 0 || n < 0) return `its ${name} has a negative count (${k} of ${n})`;
  if (k > n) return `its ${name} counts ${k} of ${n}: more than the whole`;
  if (value !== undefined && value !== (n === 0 ? null : k / n)) return `its ${name} value ${value} is not ${k}/${n}`;
  return null;
}

/** Why an experiment's figures are outside what any run gives, or null. */
export function experimentProblem(x: Experiment): string | null {
  const problems: (string | null)[] = [x.scheduled < 0 ? "its scheduled count is negative" : null];
  for (const m of x.missing) if (typeof m !== "string" && m.count < 0) problems.push("its missing count is negative");
  if (x.accuracy) {
    const a = x.accuracy;
    problems.push(
      countProblem("accuracy", a.victories, a.scored, a.value),
      intervalProblem(a.wilson95),
      metricIntervalProblem("accuracy", a.value, a.interval),
    );
    if ((a.scored === 0) !== (a.wilson95 === null))
      problems.push("its accuracy has an interval without trials, or trials without one");
  }
  if (x.raw_record && x.raw_record.mean !== null && !inUnit(x.raw_record.mean))
    problems.push(`its raw record's mean ${x.raw_record.mean} is outside [0, 1]`);
  if (x.completion)
    problems.push(
      countProblem("completion", x.completion.completed, x.completion.scheduled, x.completion.value),
      metricIntervalProblem("completion", x.completion.value, x.completion.interval),
    );
  if (x.pass)
    problems.push(
      countProblem("pass", x.pass.passed, x.pass.total),
      metricIntervalProblem("pass", x.pass.total === 0 ? null : x.pass.passed / x.pass.total, x.pass.interval),
    );
  for (const [d, c] of Object.entries(x.dimensions ?? {}))
    problems.push(
      countProblem(`dimension ${JSON.stringify(d)}`, c.passed, c.total),
      metricIntervalProblem(`dimension ${JSON.stringify(d)}`, c.total === 0 ? null : c.passed / c.total, c.interval),
    );
  problems.push(chancesProblem(x.pass_hat_k));
  for (const [key, r] of Object.entries(x.rewards ?? {})) {
    const name = `reward ${JSON.stringify(key)}`;
    problems.push(
      countProblem(`${name} coverage`, r.covered, r.trials),
      intervalProblem(r.wilson95),
      chancesProblem(r.pass_at_k),
      chancesProblem(r.pass_hat_k),
      metricIntervalProblem(`${name} mean`, r.mean, r.interval),
    );
    if (r.coverage !== null && !inUnit(r.coverage))
      problems.push(`its ${name} coverage ${r.coverage} is outside [0, 1]`);
    if (r.pass_rate !== null && !inUnit(r.pass_rate))
      problems.push(`its ${name} pass rate ${r.pass_rate} is outside [0, 1]`);
  }
  for (const [k, n] of [...Object.entries(x.states ?? {}), ...Object.entries(x.exceptions ?? {})])
    if (n < 0) problems.push(`its count of ${JSON.stringify(k)} is negative`);
  for (const [k, m] of Object.entries(x.inspect ?? {})) {
    if (m.coverage.scored < 0 || m.coverage.planned < 0)
      problems.push(`its Inspect metric ${JSON.stringify(k)} has a negative coverage count`);
    problems.push(
      intervalProblem(m.wilson95),
      chancesProblem(m.pass_at_k),
      chancesProblem(m.pass_hat_k),
      metricIntervalProblem(`Inspect metric ${JSON.stringify(k)}`, m.value, m.interval),
    );
  }
  problems.push(usageProblem(x.usage));
  return problems.find((p) => p !== null) ?? null;
}

/** A sum `part` of the same entries as `whole` can hold (float sums in another order may differ in the last bits). */
const withinSum = (part: number, whole: number) => part <= whole + 1e-9 * Math.max(1, whole);

/**
 * §13.5: totals assay could have written — counts within their whole, what the counted units spent
 * within what every entry spent (they are some of those entries), and cost per success = spent / successes.
 */
function usageProblem(u: Experiment["usage"]): string | null {
  if (u === null) return null;
  for (const [name, t] of [
    ["spent", u.spent],
    ["counted", u.counted],
  ] as const)
    if (t.entries < 0 || t.costed < 0 || t.costed > t.entries)
      return `its usage ${name} counts ${t.costed} costed of ${t.entries} entries`;
  if (u.counted.entries > u.spent.entries)
    return `its usage counts ${u.counted.entries} entries counted of ${u.spent.entries} spent: more than the whole`;
  for (const f of USAGE_FIELDS) {
    const [c, s] = [u.counted[f], u.spent[f]];
    if (c !== null && (s === null || !withinSum(c, s)))
      return `its usage counted ${f} ${c} is more than the ${s ?? "none"} spent`;
  }
  if (u.successes < 0) return `its usage counts ${u.successes} successes`;
  const expected = u.spent.cost_usd === null || u.successes === 0 ? null : u.spent.cost_usd / u.successes;
  if (
    expected === null
      ? u.cost_per_success !== null
      : u.cost_per_success === null || Math.abs(u.cost_per_success - expected) > 1e-9 * Math.max(1, expected)
  )
    return `its cost per success ${u.cost_per_success} is not ${u.spent.cost_usd ?? "no cost"} / ${u.successes} successes`;
  return null;
}

/** The checks of one document, as its run, entries and experiments are read. */
class Checks {
  private roots: readonly string[] | null = null;
  private shard: Shard | null = null;
  readonly mac: DocumentMac | null;
  readonly seen: BundleSet;
  private readonly doc: number;
  twice: ShardRun["twice"] = null;

  constructor(
    private readonly file: string,
    private readonly o: ReadOptions,
  ) {
    this.mac = o.key === undefined ? null : new DocumentMac(o.key);
    this.seen = o.seen ?? new BundleSet();
    this.doc = this.seen.document(file);
  }

  /** The run, decoded (the MAC took it as written). */
  run(run: Results["run"]): void {
    this.roots = run.roots;
    if (this.o.partition && run.shard !== null) {
      try {
        this.shard = parseShard(run.shard);
      } catch {
        throw new NotResults(this.file, `its run's shard ${JSON.stringify(run.shard)} is not i/n`);
      }
    }
  }

  entry(e: BundleEntry, where: string): void {
    const refuse = (what: string): never => {
      throw new NotAssays(this.file, `the bundle entry ${where} (${forTerminal(e.path)}): ${what}`);
    };
    if (this.roots === null)
      throw new NotAssays(this.file, `the bundle entry ${where} comes before its run (assay writes the run first)`);
    const folder = sameFolder(e.path);
    const digest = sha256Of(folder);
    const earlier = this.seen.addHashed(folder, digest, this.doc);
    if (earlier?.doc === this.doc)
      refuse(
        "an earlier entry of it names the same bundle (the same folder once its path is normalised): assay lists a bundle once",
      );
    if (earlier !== null) {
      this.twice ??= { path: e.path, earlier: earlier.file };
      return;
    }
    const problem = pathProblem(e.path, this.roots) ?? entryProblem(e);
    if (problem !== null) refuse(problem);
    // The path is normalised by now (pathProblem), its digest the partition's, unless a root is spelled otherwise.
    if (this.shard !== null && !(folder === e.path ? inShardHashed(digest, this.shard) : inShard(e.path, this.shard)))
      refuse(
        `it does not belong to shard ${this.shard.index}/${this.shard.count}, whose document holds it (its path hashes to another shard)`,
      );
  }

  experiment(x: Experiment, where: string): void {
    const problem = experimentProblem(x);
    if (problem !== null)
      throw new NotAssays(
        this.file,
        `the experiment ${where}${x.experiment === null ? "" : ` (${forTerminal(x.experiment)})`}: ${problem}`,
      );
  }

  /** How the document's MAC compares with the one the key gives. */
  verdict(given: string | null): ShardRun["mac"] {
    if (this.mac === null) return "unchecked";
    if (given === null) return "absent";
    const want = Buffer.from(this.mac.digest(), "hex");
    const have = Buffer.from(given, "hex");
    return have.length === want.length && timingSafeEqual(have, want) ? "valid" : "mismatch";
  }
}

/**
 * With a key, each document must have been scored with that very key (by fingerprint: said first,
 * since it names the key that did) and carry the MAC that key gives its bytes (§8 "keyed documents").
 */
export function checkKeyOf(file: string, run: Results["run"], fingerprint: string): void {
  const theirs = run.options.hmac_key;
  if (theirs === null)
    throw new UsageError(
      `${forTerminal(file)} was scored without this key: its seals were not checked (score it with --hmac-key-file)`,
    );
  if (theirs !== fingerprint)
    throw new UsageError(
      `${forTerminal(file)} was scored with another key (fingerprint ${theirs}, not ${fingerprint})`,
    );
}

/** The MAC half of the check (after checkKeyOf): a document whose MAC fails or is absent is refused. */
export function checkMacOf(file: string, r: ShardRun): void {
  if (r.mac === "absent")
    throw new UsageError(
      `${forTerminal(file)} carries no MAC: its figures cannot be checked under this key (written by an older assay, or its MAC was removed; score it again)`,
    );
  if (r.mac === "mismatch")
    throw new UsageError(`${forTerminal(file)} fails its MAC under this key: it was changed after assay wrote it`);
}

/**
 * Read one shard document (JSON or JSON Lines, told apart by its first line), handing each bundle
 * entry to `onEntry` (and each experiment to `onExperiment`), each checked as it is read.
 */
export function readShard(
  file: string,
  onEntry: (e: BundleEntry) => void,
  onExperiment?: (x: Experiment) => void,
  o: ReadOptions = {},
): ShardRun {
  const chunks = (o.onBytes === undefined ? readable(file) : observed(readable(file), o.onBytes))[Symbol.iterator]();
  // The first line decides: a JSON Lines document's is a complete object of type "run".
  const parts: Uint8Array[] = [];
  let length = 0;
  let next = chunks.next();
  for (let ended = false; !next.done && !ended && length < 1 << 20; next = chunks.next()) {
    parts.push(next.value);
    length += next.value.length;
    ended = next.value.indexOf(0x0a) !== -1;
  }
  const head = Buffer.concat(parts, length);
  const rest = function* (): Generator<Buffer> {
    try {
      yield head;
      // A view, not a copy: each chunk is a buffer of its own (readChunks allocates every read anew).
      for (; !next.done; next = chunks.next())
        yield Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    } finally {
      chunks.return?.(undefined); // a document refused part way: its file is closed now, not at exit
    }
  };
  const nl = head.indexOf(0x0a);
  let first: unknown = null;
  try {
    first = JSON.parse(head.subarray(0, nl === -1 ? head.length : nl).toString("utf8"));
  } catch {
    // not a complete object on one line: a JSON document
  }
  // Or, its first line longer than was gathered (a run of thousands of Harbor jobs), the prefix assay writes it with.
  const isLines =
    (typeof first === "object" && first !== null && (first as { type?: unknown }).type === "run") ||
    head.subarray(0, LINES_PREFIX.length).equals(LINES_PREFIX);
  const checks = new Checks(file, o);
  try {
    return isLines
      ? readLines(file, rest(), onEntry, onExperiment, checks)
      : readDocument(file, rest(), onEntry, onExperiment, checks);
  } finally {
    if (o.seen === undefined) checks.seen.close(); // its own set: done with
  }
}

/** The file's chunks; a file that cannot be read is the user's to fix, said in one line. */
function* readable(file: string): Generator<Uint8Array> {
  try {
    yield* readChunks(file);
  } catch (e) {
    // The file system's refusals (they name a syscall); anything else is a defect, not the user's.
    const { code, syscall } = e as NodeJS.ErrnoException;
    if (typeof code !== "string" || syscall === undefined) throw e;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "it is a folder"
          : code === "EACCES"
            ? "permission denied"
            : code === "ENOTDIR"
              ? "a part of its path is not a folder"
              : (e as Error).message.replace(/, \w+ '[\s\S]*$/, "");
    throw new UsageError(`cannot read ${forTerminal(file)}: ${why}`);
  }
}

function* observed(chunks: Iterable<Uint8Array>, see: (chunk: Uint8Array) => void): Generator<Uint8Array> {
  for (const c of chunks) {
    see(c);
    yield c;
  }
}

const tooLong = (what: string) =>
  `${what} is longer than ${MAX_VALUE_BYTES} bytes (${MAX_VALUE_BYTES / 2 ** 20} MiB), more than assay writes in one value: refused before it is read whole`;

function readDocument(
  file: string,
  chunks: Iterable<Buffer>,
  onEntry: (e: BundleEntry) => void,
  onExperiment: OnExperiment,
  checks: Checks,
): ShardRun {
  let format: unknown;
  let run: Results["run"] | null = null;
  let mac: string | null = null;
  const arrays = new Set<string>();
  let entries = 0;
  /** A value was handed over during the slice being fed (the cap counts from there). */
  let moved = false;
  const reader = new MembersReader(new Set(["bundles", "experiments"]), {
    member: (key, bytes, offset) => {
      moved = true;
      if (key === "format") format = parsed(file, bytes, offset, '"format"');
      else if (key === "run") {
        const raw = parsed(file, bytes, offset, '"run"', true);
        checks.mac?.setRun(raw); // before runOf fills in what older documents lack: the MAC covers the run as written
        run = runOf(file, raw, offset);
        checks.run(run);
      } else if (key === "mac") mac = macOf(file, parsed(file, bytes, offset, '"mac"'), `at byte ${offset}`);
      else if (key === "bundles" || key === "experiments")
        throw new NotResults(file, `"${key}" at byte ${offset} is not an array`);
    },
    open: (key) => {
      moved = true;
      arrays.add(key);
    },
    element: (key, bytes, offset) => {
      moved = true;
      if (key === "experiments") {
        checks.mac?.add("experiments", bytes);
        if (onExperiment === undefined) return;
        const x = experimentOf(file, parsed(file, bytes, offset, "an experiment"), offset);
        checks.experiment(x, `at byte ${offset}`);
        return onExperiment(x);
      }
      if (key !== "bundles") return;
      checks.mac?.add("bundles", bytes);
      entries++;
      const e = entryOf(file, parsed(file, bytes, offset, "a bundle entry"), offset);
      checks.entry(e, `at byte ${offset}`);
      onEntry(e);
    },
  });
  // Fed a slice at a time: a value that runs on past the cap is refused there, never held whole.
  let fed = 0;
  let since = 0;
  try {
    for (const c of chunks) {
      for (let at = 0; at < c.length; at += SLICE) {
        if (format !== undefined && format !== FORMAT)
          throw new NotResults(file, `its format is ${JSON.stringify(format)}, not ${FORMAT}`);
        const slice = c.subarray(at, at + SLICE);
        moved = false;
        reader.feed(slice);
        since = moved ? 0 : since + slice.length;
        fed += slice.length;
        if (since > MAX_VALUE_BYTES) throw new NotResults(file, tooLong(`the value going on at byte ${fed}`));
      }
    }
    reader.end();
  } catch (e) {
    if (e instanceof MembersError) throw new NotResults(file, e.message);
    throw e;
  }
  if (format !== FORMAT)
    throw new NotResults(
      file,
      format === undefined ? `it has no "format"` : `its format is ${JSON.stringify(format)}, not ${FORMAT}`,
    );
  if (run === null) throw new NotResults(file, `it has no "run"`);
  for (const key of ["bundles", "experiments"])
    if (!arrays.has(key)) throw new NotResults(file, `it has no "${key}" array`);
  return { run, entries, mac: checks.verdict(mac), twice: checks.twice };
}

function readLines(
  file: string,
  chunks: Iterable<Buffer>,
  onEntry: (e: BundleEntry) => void,
  onExperiment: OnExperiment,
  checks: Checks,
): ShardRun {
  let run: Results["run"] | null = null;
  /** What the run line announces (documents written before it was added announce nothing). */
  let announced: { bundles: number; experiments: number } | null = null;
  let mac: string | null = null;
  let entries = 0;
  let experiments = 0;
  let line = 0;
  let offset = 0; // of the line being assembled
  let held: Buffer[] = [];
  let heldBytes = 0;
  const take = (bytes: Buffer) => {
    line++;
    const where = `at line ${line} (byte ${offset})`;
    if (bytes.length === 0) throw new NotResults(file, `line ${line} (byte ${offset}) is empty`);
    if (mac !== null)
      throw new NotResults(file, `line ${line} (byte ${offset}) follows its MAC, which ends a document`);
    const v = parsed(file, bytes, offset, `line ${line}`, line === 1) as { type?: unknown } | null;
    const type = typeof v === "object" && v !== null ? v.type : undefined;
    if (line === 1) {
      const head = v as { format?: unknown; run?: unknown; lines?: unknown };
      if (head.format !== FORMAT)
        throw new NotResults(file, `its format is ${JSON.stringify(head.format)}, not ${FORMAT}`);
      checks.mac?.setRun(head.run); // before runOf fills in what older documents lack
      run = runOf(file, head.run, offset);
      announced = head.lines === undefined ? null : linesOf(file, head.lines);
      checks.run(run);
    } else if (type === "bundle") {
      checks.mac?.add("bundles", bytes);
      const { type: _t, ...entry } = v as Record<string, unknown>;
      entries++;
      const e = entryOf(file, entry, offset);
      checks.entry(e, where);
      onEntry(e);
    } else if (type === "experiment") {
      checks.mac?.add("experiments", bytes);
      experiments++;
      if (onExperiment === undefined) return;
      const { type: _t, ...x } = v as Record<string, unknown>;
      const experiment = experimentOf(file, x, offset);
      checks.experiment(experiment, where);
      onExperiment(experiment);
    } else if (type === "mac") {
      const { type: _t, ...m } = v as Record<string, unknown>;
      mac = macOf(file, m, `line ${line}`);
    } else
      throw new NotResults(
        file,
        `line ${line} (byte ${offset}) is ${type === "run" ? "a second run" : "neither a bundle nor an experiment"}`,
      );
  };
  for (const chunk of chunks) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      if (heldBytes + nl - from > MAX_VALUE_BYTES) break; // refused below, before the line is assembled
      held.push(chunk.subarray(from, nl));
      const bytes = held.length === 1 ? held[0]! : Buffer.concat(held);
      held = [];
      heldBytes = 0;
      take(bytes);
      offset += bytes.length + 1;
      from = nl + 1;
    }
    // What is left of the chunk begins a line that goes on: held, unless that passes the cap.
    heldBytes += chunk.length - from;
    if (heldBytes > MAX_VALUE_BYTES) throw new NotResults(file, tooLong(`line ${line + 1} (byte ${offset})`));
    if (from < chunk.length) held.push(chunk.subarray(from));
  }
  if (held.length > 0)
    throw new NotResults(file, `its last line (byte ${offset}) has no line end: the document is cut short`);
  if (run === null) throw new NotResults(file, "the file is empty");
  const a = announced as { bundles: number; experiments: number } | null;
  if (a !== null && (entries !== a.bundles || experiments !== a.experiments))
    throw new NotResults(
      file,
      `its first line announces ${a.bundles} bundle and ${a.experiments} experiment lines, and ${entries} and ${experiments} follow: the document is cut short or was edited`,
    );
  return { run, entries, mac: checks.verdict(mac), twice: checks.twice };
}

function linesOf(file: string, value: unknown): { bundles: number; experiments: number } {
  const v = value as { bundles?: unknown; experiments?: unknown } | null;
  const count = (x: unknown) => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;
  if (typeof v !== "object" || v === null || !count(v.bundles) || !count(v.experiments))
    throw new NotResults(file, `the "lines" of its first line are not two counts`);
  return v as { bundles: number; experiments: number };
}
