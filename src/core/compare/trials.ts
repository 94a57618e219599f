// Each pairing unit's value as its experiment's headline metric counts it, for the paired analysis
// of `assay compare` (contract §13.4). Pure. Entries are read one at a time and only numbers (and
// the ids they pair by) are kept per unit, never the entry; the experiment record (which lists the
// invalid, excluded and unscored trials, and names the Inspect log that decides) then decides
// which units the metric counts and how.
//
// Units across two runs: native and world trials by the `trial` of their journal's line 1 (the
// scheduled slot); Harbor tasks (`task`), each side's value the mean of its counted trials of the
// task under the key, so two jobs of one benchmark pair although trial names carry per-run
// suffixes; Inspect samples by id, their reduced value from the deciding log's entry.

import { hasOutcome } from "../batch/outcome.js";
import { isCopyReason } from "../batch/copy-reason.js";
import type { BundleEntry, Experiment, RunOptions } from "../results.js";
import { SCORED_STATES } from "../../kinds/declared.js";
import { byteCompare } from "../text.js";

export type UnitKind = "trial" | "task" | "sample";

/** One side's units of a metric: ids and values in step; `checksums` (Harbor) each task's task_checksum. */
export interface Units {
  unit: UnitKind;
  ids: string[];
  values: Float64Array;
  checksums: (string | null)[] | null;
  /** Why the side has no units to pair (an Inspect log without per-sample values), else null. */
  reason: string | null;
  /**
   * §13.7: each unit's cluster where units of one side share one (native/world trials: the deciding
   * attempt's meta.task; Inspect samples: the value of the clustered stderr's metadata key); null
   * entries are clusters of their own. Absent or null: every unit stands alone (Harbor's unit is the task).
   */
  clusters?: (string | null)[] | null;
  /** Harbor tasks: how many trials each unit's value is the mean of (the key's mean is over trials); else each unit is one. */
  trials?: Float64Array;
  /** What a reader of the pairs should know of this side's units (Inspect: clusters it could not tell). */
  notes?: string[];
  /**
   * Where each unit's evidence is, in step with `ids`: a native or world trial's deciding bundle
   * (an invalid one's lowest attempt), a Harbor task's first counted trial folder in byte order
   * (`trials` says how many its value is the mean of). Absent: see `log`, else not kept.
   */
  paths?: (string | null)[] | null;
  /** Inspect: the deciding log; each sample's evidence is `<log>#<sample id>`. */
  log?: string | null;
  /**
   * Per unit, how many of its trials (a sample: itself) count 0 for want of a score: invalid
   * evidence under --invalid count, or no reward or score under --errors zero. Absent: none.
   */
  zeroed?: Float64Array | null;
}

/** The start of an Inspect sample's cluster where it lacks its metric's key: pairs with the other side's cluster where that is told. */
export const UNTOLD_CLUSTER = "\u0000no metadata ";

/** A Harbor task whose counted trials carry different task_checksums within one run: never one unit with another run's. */
export const MIXED_CHECKSUMS = "\u0000mixed";

/** Whether two sides' task_checksums (null: not recorded) let a task be one unit on both: never where they differ or a side's are mixed. */
export const sameTask = (base: string | null, head: string | null): boolean =>
  base !== MIXED_CHECKSUMS && head !== MIXED_CHECKSUMS && (base === null || head === null || base === head);

/** Inspect's mean and accuracy metrics: the ones with per-sample values and a paired analysis. */
export const isMeanKey = (key: string): boolean => /\/(accuracy|mean)$/.test(key);

/** The headline metrics of an experiment, as compare names them (§13.6), with their unit. */
export function headlines(x: Experiment): { metric: string; unit: UnitKind }[] {
  if (x.profile === "native-game" && x.accuracy !== null) return [{ metric: "accuracy", unit: "trial" }];
  if (x.profile === "world" && x.pass !== null) return [{ metric: "pass", unit: "trial" }];
  if (SCORED_STATES.has(x.profile ?? ""))
    return Object.keys(x.rewards ?? {}).map((k) => ({ metric: `reward/${k}/mean`, unit: "task" }));
  if (x.profile === "inspect")
    return Object.keys(x.inspect ?? {})
      .filter(isMeanKey)
      .map((k) => ({ metric: `inspect/${k}/value`, unit: "sample" }));
  return [];
}

export const OLDER_INSPECT =
  "the Inspect log's entry holds no per-sample values (a document from an older assay): no paired analysis";
/** §13.7: an older document's log keeps no sample clusters, though the metric's interval was clustered. */
export const OLDER_CLUSTERS =
  "its document (from an older assay) keeps no sample clusters, though the metric's interval is clustered: these pairs are taken as independent";

/** Where a Harbor folder's unit goes: its task (null: none named) and task_checksum; `path` the folder. */
interface Place {
  task: string | null;
  checksum: string | null;
  path: string;
}
/**
 * What one Harbor trial name holds: one trial (`folders` byte-identical copies of it, counted once
 * as Harbor's job rules (kinds/harbor/batch.ts) count them), or folders that claim it with different bytes: each of those is
 * invalid (TRIAL_DUPLICATE), so only where its 0 goes is kept.
 */
type HarborTrial =
  | (Place & {
      digest: string;
      folders: number;
      scored: boolean;
      invalid: boolean;
      rewards: Record<string, number> | null;
    })
  | { conflicting: Place[] };

/** An Inspect log's per-sample values (NaN: not in the figure) under each --errors setting, per mean/accuracy key. */
interface InspectLog {
  ids: string[] | null;
  values: Map<string, { exclude: Float64Array; zero: Float64Array }>;
  /** §13.7: per mean/accuracy key clustered by a metadata key, each sample's cluster (an index into `names`, −1: none); null: a document from before. */
  clusters: Map<string, { by: string; names: string[]; of: Int32Array }> | null;
}

const nested = <V>(m: Map<string, Map<string, V>>, k: string): Map<string, V> => {
  let inner = m.get(k);
  if (inner === undefined) m.set(k, (inner = new Map()));
  return inner;
};

const floats = (xs: readonly (number | null)[]) => Float64Array.from(xs, (v) => v ?? NaN);

function unitsOf(unit: UnitKind, m: ReadonlyMap<string, number>): Units {
  return { unit, ids: [...m.keys()], values: Float64Array.from(m.values()), checksums: null, reason: null };
}

const none = (unit: UnitKind, reason: string): Units => ({
  unit,
  ids: [],
  values: new Float64Array(0),
  checksums: null,
  reason,
});

/**
 * native and world trials of one experiment, each by a slot: its lowest attempt with an outcome
 * (packed as attempt·4 + victory·2 + pass; −1: none yet), its lowest attempt of any kind, and the
 * tasks of those two (interned, +1; 0: no meta.task) packed in one number (§13.7: the cluster is the
 * deciding attempt's task; an invalid trial's, the lowest attempt's, as the bundle kind's batch rules pick it).
 */
interface AttemptSlots {
  slot: Map<string, number>;
  outcome: number[];
  first: number[];
  tasks: number[];
  /** The bundle of each slot's deciding attempt and of its lowest attempt (one string where they are one bundle). */
  decidingPath: (string | null)[];
  firstPath: (string | null)[];
}

/** Two interned task numbers in one (each below 2^26: far more distinct tasks than a heap holds). */
const TASKS = 2 ** 26;

// Kept apart by kind, as the experiments are (a Harbor job and a native experiment may share an id).
export class TrialOutcomes {
  /** native and world: per experiment, every trial's slot. */
  private readonly attempts = new Map<string, AttemptSlots>();
  /** meta.task strings, each kept once however many trials name it (index + 1 is a task's number). */
  private readonly taskIndex = new Map<string, number>();
  private readonly taskNames: string[] = [];
  /** Harbor and Terminal-Bench trials, per profile and experiment (a Harbor job and a run may share a name). */
  private readonly rewarded = new Map<string, Map<string, HarborTrial>>();
  /** Inspect: per experiment, per log path, until the experiment says which log decides. */
  private readonly inspect = new Map<string, Map<string, InspectLog>>();

  add(e: BundleEntry): void {
    if (e.experiment === null || e.validity === "error") return; // a tool error is in no metric
    const scored = SCORED_STATES.get(e.profile ?? "");
    if (scored !== undefined) {
      const trials = nested(this.rewarded, `${e.profile}\u0000${e.experiment}`);
      const name = e.trial ?? e.path;
      const seen = trials.get(name);
      const place: Place = { task: e.task, checksum: e.task_checksum, path: e.path };
      if (seen === undefined)
        trials.set(name, {
          ...place,
          digest: e.digest,
          folders: 1,
          scored: scored.has(e.state ?? ""),
          invalid: e.validity === "invalid",
          rewards: e.rewards,
        });
      else if ("conflicting" in seen) seen.conflicting.push(place);
      else if (seen.digest === e.digest) {
        seen.folders++;
        if (byteCompare(e.path, seen.path) < 0) seen.path = e.path; // copies: the first folder in byte order, whatever order the document lists them in
      }
      // Other bytes under the name: the copies seen so far conflict too (Harbor's job rules make every folder of the name invalid).
      else
        trials.set(name, {
          conflicting: [
            ...Array.from({ length: seen.folders }, () => ({
              task: seen.task,
              checksum: seen.checksum,
              path: seen.path,
            })),
            place,
          ],
        });
    } else if (e.profile === "inspect") {
      const values = new Map<string, { exclude: Float64Array; zero: Float64Array }>();
      for (const [key, m] of Object.entries(e.inspect?.metrics ?? {}))
        if (m.values !== null && isMeanKey(key))
          values.set(key, { exclude: floats(m.values.exclude), zero: floats(m.values.zero) });
      const sc = e.inspect?.sample_clusters ?? null;
      const clusters = sc === null ? null : new Map<string, { by: string; names: string[]; of: Int32Array }>();
      for (const key of values.keys()) {
        const by = sc?.by[key];
        const k = by === undefined ? undefined : sc!.keys[by];
        if (k !== undefined) clusters!.set(key, { by: by!, names: k.names, of: Int32Array.from(k.of, (i) => i ?? -1) });
      }
      nested(this.inspect, e.experiment).set(e.path, { ids: e.inspect?.sample_ids ?? null, values, clusters });
    } else if (e.trial !== null && e.attempt !== null) this.addAttempt(e.experiment, e.trial, e.attempt, e);
  }

  private addAttempt(experiment: string, trial: string, at: number, e: BundleEntry): void {
    let x = this.attempts.get(experiment);
    if (x === undefined)
      this.attempts.set(
        experiment,
        (x = { slot: new Map(), outcome: [], first: [], tasks: [], decidingPath: [], firstPath: [] }),
      );
    let i = x.slot.get(trial);
    if (i === undefined) {
      x.slot.set(trial, (i = x.outcome.length));
      x.outcome.push(-1);
      x.first.push(Infinity);
      x.tasks.push(0);
      x.decidingPath.push(null);
      x.firstPath.push(null);
    }
    // Arithmetic, not bit operations: an attempt number from evidence may exceed 32 bits.
    const attempt = Math.min(at, 2 ** 48);
    const task = this.intern(e.task);
    if (attempt < x.first[i]!) {
      x.first[i] = attempt;
      x.tasks[i] = task * TASKS + (x.tasks[i]! % TASKS);
      x.firstPath[i] = e.path;
    }
    const seen = x.outcome[i]!;
    if (hasOutcome(e) && (seen === -1 || Math.floor(seen / 4) > attempt)) {
      x.outcome[i] = attempt * 4 + (e.victory === true ? 2 : 0) + (e.pass === true ? 1 : 0);
      x.tasks[i] = Math.floor(x.tasks[i]! / TASKS) * TASKS + task;
      x.decidingPath[i] = e.path;
    }
  }

  /** A task's number (0: none); past 2^26 − 1 distinct tasks, the rest stand alone. */
  private intern(task: string | null): number {
    if (task === null) return 0;
    let n = this.taskIndex.get(task);
    if (n === undefined && this.taskNames.length < TASKS - 1) this.taskIndex.set(task, (n = this.taskNames.push(task)));
    return n ?? 0;
  }

  private taskName = (n: number): string | null => (n === 0 ? null : this.taskNames[n - 1]!);

  /**
   * The units of `x`'s headline metrics, by metric name (and the memory they took is released).
   * Invalid trials count as 0 (`--invalid count`) or are left out; excluded, unscored, missing and
   * unscheduled trials are in no metric, so in no pair.
   */
  take(x: Experiment, options: Pick<RunOptions, "invalid" | "errors">): Map<string, Units> {
    const out = new Map<string, Units>();
    if (x.experiment === null) return out;
    if (x.profile === "inspect") return this.takeInspect(x, options);
    // A copy's exclusion names its original's trial, which is counted: not outside.
    const outside = new Set<string>([
      ...x.unscored,
      ...x.excluded.filter((t) => !isCopyReason(t.reason)).map((t) => t.trial),
    ]);
    const invalid = new Set<string>();
    for (const t of x.invalid) (t.codes.length === 1 && t.codes[0] === "UNSCHEDULED" ? outside : invalid).add(t.trial);
    if (SCORED_STATES.has(x.profile ?? "")) {
      const key = `${x.profile}\u0000${x.experiment}`;
      const trials = this.rewarded.get(key);
      this.rewarded.delete(key);
      for (const { metric } of headlines(x))
        out.set(
          metric,
          harborUnits(trials, metric.slice("reward/".length, -"/mean".length), outside, invalid, options),
        );
      return out;
    }
    // Each kind from its own map: a native experiment's take leaves a same-named Harbor job's trials.
    const attempts = this.attempts.get(x.experiment);
    this.attempts.delete(x.experiment);
    if (x.profile !== "native-game" && x.profile !== "world") return out;
    out.set(
      x.profile === "world" ? "pass" : "accuracy",
      this.trialUnits(attempts, x.profile === "world" ? 1 : 2, outside, invalid, options.invalid === "count"),
    );
    return out;
  }

  /**
   * Native or world trials' units (`bit`: pass 1, victory 2) with their clusters (§13.7): a counted
   * invalid trial is a 0 in its lowest attempt's task, every other the deciding attempt's.
   */
  private trialUnits(
    x: AttemptSlots | undefined,
    bit: number,
    outside: ReadonlySet<string>,
    invalid: ReadonlySet<string>,
    counted: boolean,
  ): Units {
    const ids: string[] = [];
    const values: number[] = [];
    const clusters: (string | null)[] = [];
    const paths: (string | null)[] = [];
    const zeroed: number[] = [];
    const put = (trial: string, v: number, task: number, path: string | null, invalid: boolean) => {
      ids.push(trial);
      values.push(v);
      clusters.push(this.taskName(task));
      paths.push(path);
      zeroed.push(invalid ? 1 : 0);
    };
    if (counted)
      for (const t of invalid) {
        const i = x?.slot.get(t);
        put(
          t,
          0,
          Math.floor((i === undefined ? 0 : x!.tasks[i]!) / TASKS),
          i === undefined ? null : x!.firstPath[i]!,
          true,
        );
      }
    for (const [trial, i] of x?.slot ?? []) {
      const packed = x!.outcome[i]!;
      if (packed !== -1 && !outside.has(trial) && !invalid.has(trial))
        put(trial, Math.floor((packed % 4) / bit) % 2, x!.tasks[i]! % TASKS, x!.decidingPath[i]!, false);
    }
    return {
      unit: "trial",
      ids,
      values: Float64Array.from(values),
      checksums: null,
      reason: null,
      clusters: clusters.some((c) => c !== null) ? clusters : null,
      paths,
      zeroed: Float64Array.from(zeroed),
    };
  }

  /** The deciding log's reduced values per sample; an invalid log in the chain (--invalid count) zeroes every planned sample, as the figure does. */
  private takeInspect(x: Experiment, options: Pick<RunOptions, "invalid" | "errors">): Map<string, Units> {
    const logs = this.inspect.get(x.experiment!);
    this.inspect.delete(x.experiment!);
    const log = x.log === null ? undefined : logs?.get(x.log.path);
    const zeroed = options.invalid === "count" && x.invalid.length > 0;
    const out = new Map<string, Units>();
    for (const { metric } of headlines(x)) {
      const key = metric.slice("inspect/".length, -"/value".length);
      // No value (its log a tool error, or no sample scored): no unit, so the other side's are its own.
      if (x.inspect![key]!.value === null) out.set(metric, unitsOf("sample", new Map()));
      else if (log?.ids === null || log === undefined) out.set(metric, none("sample", OLDER_INSPECT));
      else if (zeroed)
        out.set(metric, {
          unit: "sample",
          ids: log.ids,
          values: new Float64Array(log.ids.length),
          checksums: null,
          reason: null,
          log: x.log!.path,
          zeroed: new Float64Array(log.ids.length).fill(1),
        });
      else {
        const v = log.values.get(key);
        if (v === undefined) out.set(metric, none("sample", OLDER_INSPECT));
        else if (v.exclude.length !== log.ids.length || v.zero.length !== log.ids.length)
          out.set(
            metric,
            none("sample", "the Inspect log's per-sample values are not one per sample id: no paired analysis"),
          );
        else {
          const all = options.errors === "zero" ? v.zero : v.exclude;
          const m = new Map<string, number>();
          const at: number[] = [];
          log.ids.forEach((id, i) => {
            if (!Number.isNaN(all[i]!)) (m.set(id, all[i]!), at.push(i));
          });
          // --errors zero: a sample whose value is not in the exclude figure counts 0 for its error.
          const zeroed = Float64Array.from(at, (i) => (Number.isNaN(v.exclude[i]!) ? 1 : 0));
          out.set(metric, {
            ...unitsOf("sample", m),
            ...sampleClusters(log, key, at, x.inspect![key]!),
            log: x.log!.path,
            zeroed,
          });
        }
      }
    }
    return out;
  }
}

/**
 * §13.7: the clusters of an Inspect metric's units (the samples at `at` in plan order), as its
 * interval groups them: by the metadata key its scorer's stderr(cluster=…) names. A sample lacking
 * the key is put with every other such sample of its side in one cluster (pairing takes the other
 * side's cluster for it where that is told): where its cluster cannot be told, the coarser grouping
 * is the one that holds whatever they share. A document from before keeps no clusters: its pairs
 * stand alone, and where the metric's interval was clustered a note says so.
 */
function sampleClusters(
  log: InspectLog,
  key: string,
  at: readonly number[],
  figure: NonNullable<Experiment["inspect"]>[string],
): Pick<Units, "clusters" | "notes"> {
  if (log.clusters === null) {
    const clustered =
      (figure.interval !== null && figure.interval.clusters < at.length) ||
      (figure.interval_reason ?? "").startsWith("clustered by metadata");
    return { clusters: null, notes: clustered ? [OLDER_CLUSTERS] : [] };
  }
  const c = log.clusters.get(key);
  if (c === undefined) return { clusters: null, notes: [] };
  const lacking = `${UNTOLD_CLUSTER}${JSON.stringify(c.by)}`;
  const clusters = at.map((i) => (c.of[i]! < 0 ? lacking : c.names[c.of[i]!]!));
  const missing = clusters.filter((k) => k === lacking).length;
  return {
    clusters,
    notes:
      missing === 0
        ? []
        : [
            `${missing} sample${missing === 1 ? "" : "s"} without metadata ${JSON.stringify(c.by)}: clustered as the other run names ${missing === 1 ? "it" : "them"}, else in one cluster together`,
          ],
  };
}

/**
 * A Harbor reward key's units: per task, the mean of the trials that enter the key's `mean` (a
 * scored trial's reward under the key, none: not in this key's mean; an invalid trial 0 under
 * --invalid count; a trial without rewards that is not excluded 0, as --errors zero counts it;
 * each folder of a conflicting name 0 under --invalid count, in its own task). A trial naming no
 * task is a unit of its own.
 */
function harborUnits(
  trials: ReadonlyMap<string, HarborTrial> | undefined,
  key: string,
  outside: ReadonlySet<string>,
  invalid: ReadonlySet<string>,
  options: Pick<RunOptions, "invalid">,
): Units {
  const tasks = new Map<string, { sum: number; n: number; checksum: string | null; path: string; zeroed: number }>();
  const put = (trial: string, at: Place, v: number, zeroed: boolean) => {
    const id = at.task ?? `${trial} (a trial naming no task)`;
    const seen = tasks.get(id);
    if (seen === undefined)
      tasks.set(id, { sum: v, n: 1, checksum: at.checksum, path: at.path, zeroed: zeroed ? 1 : 0 });
    else {
      seen.sum += v;
      seen.n++;
      if (seen.checksum !== at.checksum) seen.checksum = MIXED_CHECKSUMS;
      if (byteCompare(at.path, seen.path) < 0) seen.path = at.path;
      if (zeroed) seen.zeroed++;
    }
  };
  const counted = options.invalid === "count";
  for (const [trial, t] of trials ?? []) {
    if ("conflicting" in t) {
      if (counted) for (const at of t.conflicting) put(trial, at, 0, true);
      continue;
    }
    if (outside.has(trial)) continue;
    let v: number | undefined;
    let zeroed = true; // a 0 for want of a reward, unless the trial's own reward is the value
    if (invalid.has(trial) || t.invalid) v = counted ? 0 : undefined;
    else if (t.scored && t.rewards !== null) {
      v = Object.hasOwn(t.rewards, key) ? t.rewards[key] : undefined;
      zeroed = false;
    } else v = 0;
    if (v !== undefined) put(trial, t, v, zeroed);
  }
  const ids = [...tasks.keys()];
  const all = [...tasks.values()];
  return {
    unit: "task",
    ids,
    values: Float64Array.from(all, (t) => t.sum / t.n),
    checksums: all.map((t) => t.checksum),
    reason: null,
    trials: Float64Array.from(all, (t) => t.n),
    paths: all.map((t) => t.path),
    zeroed: Float64Array.from(all, (t) => t.zeroed),
  };
}
