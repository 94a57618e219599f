// The batch rules of a run (contract §6, §11, §12): each kind's over its own records, through the
// kinds' registry. Pure: entries in, experiments out, so a merge of shards can recompute exactly
// this. assay bundles' own rules are in their kind's folder (kinds/bundle/batch.ts).

import type { Finding } from "../codes.js";
import type { BundleEntry, Containers, Experiment, JobRecord } from "../results.js";
import { IdentityBuilder, NO_ENTRY_IDENTITY, timeText } from "../identity.js";
import { byteCompare } from "../text.js";
import type { BatchKinds, KindBatch } from "./kind.js";
import { Row, type BatchRecord } from "./record.js";
import type { Schedule } from "./schedule.js";

export interface BatchOptions {
  /** Invalid trials count as non-victories ("count", the default) or are left out. */
  invalid: "count" | "exclude";
  /**
   * Resource-bound runs without a game ending: "default" is each profile's research rule (native:
   * excluded; world: scored on their own dimensions, budget among them), or force either.
   */
  resourceBound: "default" | "exclude" | "loss";
  /** Harbor trials without a reward to count (errors, cancelled, incomplete, unverified), Inspect samples without a score (error, cancelled, missing, unscored, invalidated): left out of the metrics, or 0. */
  errors: "exclude" | "zero";
}
export const DEFAULT_BATCH: BatchOptions = { invalid: "count", resourceBound: "default", errors: "exclude" };

/** A run's batch rules, each kind's over its own records: the names its experiments take (a name may depend on other folders), and the experiments. */
export interface RunBatch {
  /** The experiment an entry (or record) is shown under. */
  nameOf(e: BatchRecord): string | null;
  /** Every experiment, by name in byte order; those without a name (Harbor's lone trials, unread Inspect logs) last. */
  experiments(): Experiment[];
  /** The hard findings the batch rules add to an entry (none for most): one verdict in bundles[] and in its experiment. */
  errorsOf(e: BatchRecord): readonly Finding[];
}

/**
 * The batch rules of a run over its records (bundle entries, or their compact records:
 * batch/record.ts), with the container folders found (Harbor's jobs: their plans and claims), by
 * the given kinds (kinds/batch.ts binds the list's).
 */
export function runBatchOf(
  kinds: BatchKinds,
  entries: readonly BatchRecord[],
  schedules: readonly Schedule[],
  options: BatchOptions,
  jobs: readonly JobRecord[] = [],
  containers: Containers = {},
): RunBatch {
  const byKind = new Map(kinds.all.map((k) => [k, [] as BatchRecord[]]));
  for (const e of entries) byKind.get(kinds.of(e.profile))!.push(e);
  const batches = new Map(
    kinds.all.map((k): [string, KindBatch] => [
      k.name,
      k.batch(byKind.get(k)!, { schedules, options, jobs, containers }),
    ]),
  );
  const batchOf = (e: BatchRecord) => batches.get(kinds.of(e.profile).name)!;
  return {
    nameOf: (e) => batchOf(e).nameOf(e),
    errorsOf: (e) => batchOf(e).errorsOf?.(e) ?? [],
    // Stable: experiments of one name keep the kinds' order.
    experiments: () =>
      withIdentities(
        [...batches.entries()].flatMap(([kind, b]) => b.experiments().map((x) => ({ kind, x }))),
        byKind,
        (e) => batchOf(e).nameOf(e),
      ).sort((a, b) =>
        a.experiment === null || b.experiment === null
          ? Number(a.experiment === null) - Number(b.experiment === null)
          : byteCompare(a.experiment, b.experiment),
      ),
  };
}

/**
 * Each named experiment with its identity: the union of its records' (core/identity.ts), whatever
 * its kind. A compact record's identity is folded without its times' text: its shared part once a
 * record, its times as the earliest and latest ms of each clock, given as text once an experiment
 * (one clock's times order as their text does: identity keeps them in one spelling).
 */
function withIdentities(
  experiments: readonly { kind: string; x: Experiment }[],
  byKind: ReadonlyMap<{ name: string; trialTasks: boolean }, readonly BatchRecord[]>,
  nameOf: (e: BatchRecord) => string | null,
): Experiment[] {
  const builders = new Map<string, Map<string, Folded>>();
  for (const [k, records] of byKind) {
    const mine = builders.get(k.name) ?? builders.set(k.name, new Map()).get(k.name)!;
    for (const e of records) {
      const name = nameOf(e);
      if (name === null) continue;
      let f = mine.get(name);
      if (f === undefined) mine.set(name, (f = new Folded()));
      const unit = !k.trialTasks ? null : e.task !== null ? "task" : e.scenario !== null ? "scenario" : null;
      f.add(e, unit);
    }
  }
  return experiments.map(({ kind, x }) => {
    const f = x.experiment === null ? undefined : builders.get(kind)?.get(x.experiment);
    return f === undefined ? x : { ...x, identity: f.identity() };
  });
}

/** An experiment's identity folded from its records (IdentityBuilder's), a compact record's times as ms. */
class Folded {
  private readonly b = new IdentityBuilder();
  /** Per clock, the earliest start and latest finish (ms) of the compact records folded. */
  private readonly times = new Map<"utc" | "local", { started: number; finished: number }>();

  add(e: BatchRecord, unit: "task" | "scenario" | null): void {
    const task = e.task ?? e.scenario;
    if (!(e instanceof Row)) return this.b.add(e.identity ?? null, task, unit);
    const who = e.who;
    this.b.add(who, task, unit);
    if (who?.clock == null) return;
    const [s, f] = [e.startedMs, e.finishedMs];
    if (Number.isNaN(s) && Number.isNaN(f)) return;
    const t = this.times.get(who.clock) ?? this.times.set(who.clock, { started: NaN, finished: NaN }).get(who.clock)!;
    if (!Number.isNaN(s) && !(s >= t.started)) t.started = s;
    if (!Number.isNaN(f) && !(f <= t.finished)) t.finished = f;
  }

  identity(): ReturnType<IdentityBuilder["identity"]> {
    for (const [clock, { started, finished }] of this.times) {
      const text = (ms: number) => (Number.isNaN(ms) ? null : timeText(ms, clock));
      this.b.add({ ...NO_ENTRY_IDENTITY, clock, started_at: text(started), finished_at: text(finished) }, null, null);
    }
    this.times.clear();
    return this.b.identity();
  }
}

/** An entry with the hard findings the batch rules add (each code once, so a merge re-judging it adds none twice): invalid where it was valid. */
export function judgedEntry(e: BundleEntry, added: readonly Finding[]): BundleEntry {
  const fresh = added.filter((f) => !e.errors.some((x) => x.code === f.code));
  if (fresh.length === 0) return e;
  return { ...e, errors: [...e.errors, ...fresh], validity: e.validity === "valid" ? "invalid" : e.validity };
}
