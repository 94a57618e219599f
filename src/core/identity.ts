// Run identity (issue 37): who ran what, on which benchmark and tasks, with which harness, when.
// Read from each kind's own evidence and never guessed: a field the evidence does not record is
// null. A bundle entry carries its own (`BundleEntry.identity`); an experiment's is the union of
// its entries' (IdentityBuilder, folded by core/batch/experiments.ts), so a merge of shards
// recomputes exactly this. Pure.

import { createHash } from "node:crypto";
import { z } from "zod";
import { byteCompare } from "./text.js";

const benchmarkSchema = z.object({
  /** The benchmark as its harness names it: an Inspect task, a Harbor or Terminal-Bench dataset, a native scenario set. */
  name: z.string(),
  /** Its version where the evidence records one (Inspect's task_version, a dataset's version). */
  version: z.string().nullable(),
  /** The dataset it draws on where that is recorded apart from the name (Inspect's eval.dataset.name). */
  dataset: z.string().nullable(),
});
export type Benchmark = z.infer<typeof benchmarkSchema>;

const harnessSchema = z.object({ name: z.string(), version: z.string().nullable() });
export type Harness = z.infer<typeof harnessSchema>;

/** The set of units a run covers, as a count and a digest: two runs of the same tasks have the same digest. */
const tasksSchema = z.object({
  count: z.int().min(0),
  /** `sha256:` of the distinct ids in byte order, one per line (tasksDigest). */
  digest: z.string(),
  /** What the ids are: Harbor and Terminal-Bench tasks, Inspect samples, native and world scenarios. */
  unit: z.enum(["task", "sample", "scenario"]),
});
export type Tasks = z.infer<typeof tasksSchema>;

/**
 * A time as the evidence gives it: an instant (ISO 8601 with `Z`, normalised from any offset), or a
 * local time with no zone (`clock: "local"`, to the millisecond, no zone): never shifted to UTC by
 * guessing a zone (normaliseTime).
 */
const timeSchema = z.string().nullable();

/** What one bundle's evidence says of its run (a trial, a log). */
export const entryIdentitySchema = z.object({
  agent: z.string().nullable(),
  model: z.string().nullable(),
  benchmark: benchmarkSchema.nullable(),
  harness: harnessSchema.nullable(),
  /** The units this bundle covers when it is a whole run (an Inspect log's planned samples); null for a trial, whose unit is the entry's `task`. */
  tasks: tasksSchema.nullable(),
  started_at: timeSchema,
  finished_at: timeSchema,
  /** "utc": the times are instants; "local": naive times (no zone recorded); null: no time. */
  clock: z.enum(["utc", "local"]).nullable(),
});
export type EntryIdentity = z.infer<typeof entryIdentitySchema>;

const oneOrMany = z.union([z.string(), z.array(z.string())]).nullable();

/** An experiment's identity: the union of its entries'. */
export const identitySchema = z.object({
  /** The agent (Harbor's agent name; Inspect's solver given to the run, eval.solver: a task's own plan names none); a list, in byte order, where its entries name several. */
  agent: oneOrMany,
  /** The model; a list where its entries name several. */
  model: oneOrMany,
  /** The benchmark; a list where its entries name several (a job over two datasets). */
  benchmark: z.union([benchmarkSchema, z.array(benchmarkSchema)]).nullable(),
  /** The set of tasks (or samples, or scenarios) it covers. */
  tasks: tasksSchema.nullable(),
  harness: z.union([harnessSchema, z.array(harnessSchema)]).nullable(),
  /** The earliest start and the latest finish of its entries (`clock` says whether they are instants). */
  started_at: timeSchema,
  finished_at: timeSchema,
  clock: z.enum(["utc", "local"]).nullable(),
});
export type Identity = z.infer<typeof identitySchema>;

export const NO_ENTRY_IDENTITY: EntryIdentity = Object.freeze({
  agent: null,
  model: null,
  benchmark: null,
  harness: null,
  tasks: null,
  started_at: null,
  finished_at: null,
  clock: null,
});

/** `sha256:` of the distinct ids in byte order, one per line: the same set gives the same digest, whatever its order or repeats. */
export function tasksDigest(ids: Iterable<string>): { count: number; digest: string } {
  const distinct = [...new Set(ids)].sort(byteCompare);
  const h = createHash("sha256");
  for (const id of distinct) h.update(`${id}\n`);
  return { count: distinct.length, digest: `sha256:${h.digest("hex")}` };
}

const ZONED = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})$/i;
const NAIVE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/**
 * A recorded time as identity keeps it: with a zone or offset, the instant in UTC (`…Z`, to the
 * millisecond); without one, the local time to the millisecond with no zone, and `local` (never
 * shifted by a guessed zone); anything else, null (never guessed).
 */
export function normaliseTime(v: unknown): { at: string; clock: "utc" | "local" } | null {
  if (typeof v !== "string") return null;
  const s = v.trim();
  if (ZONED.test(s)) {
    const ms = Date.parse(s.replace(" ", "T"));
    return Number.isFinite(ms) ? { at: new Date(ms).toISOString(), clock: "utc" } : null;
  }
  const local = NAIVE.test(s) ? Date.parse(`${s.replace(" ", "T")}Z`) : NaN;
  // One spelling (to the millisecond, "T"), so local times compare as text and as numbers alike.
  return Number.isFinite(local) ? { at: localText(local), clock: "local" } : null;
}

/** A local time's text from its reading as if it were UTC (ms): ISO 8601 to the millisecond, no zone. */
export const localText = (ms: number): string => new Date(ms).toISOString().slice(0, 23);

/** A kept time (identity's `…Z` instant, or local text, "T" or a space) as ms, local read as if UTC: what orders times of one clock. */
export const timeMs = (at: string, clock: "utc" | "local"): number =>
  Date.parse(clock === "utc" ? at : `${at.replace(" ", "T")}Z`);

/** A time from its ms (timeMs's inverse). */
export const timeText = (ms: number, clock: "utc" | "local"): string =>
  clock === "utc" ? new Date(ms).toISOString() : localText(ms);

/** An entry's start and finish, normalised; a pair on two clocks keeps neither (they cannot be ordered). */
export function timesOf(
  started: unknown,
  finished: unknown,
): Pick<EntryIdentity, "started_at" | "finished_at" | "clock"> {
  const [s, f] = [normaliseTime(started), normaliseTime(finished)];
  if (s !== null && f !== null && s.clock !== f.clock)
    return { started_at: s.clock === "utc" ? s.at : null, finished_at: f.clock === "utc" ? f.at : null, clock: "utc" };
  return { started_at: s?.at ?? null, finished_at: f?.at ?? null, clock: s?.clock ?? f?.clock ?? null };
}

/** A string field as identity keeps it: trimmed, null when empty or not a string. */
export const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

const one = <T>(xs: readonly T[]): T | T[] | null => (xs.length === 0 ? null : xs.length === 1 ? xs[0]! : [...xs]);

/** The key two benchmarks are the same by (name, version and dataset). */
export const benchmarkKey = (b: Benchmark): string => JSON.stringify([b.name, b.version, b.dataset]);

/**
 * An experiment's identity from its entries' (each null for an entry whose evidence records none),
 * folded one at a time: small whatever the number of entries (distinct values and task ids only).
 */
export class IdentityBuilder {
  private readonly agents = new Set<string>();
  private readonly models = new Set<string>();
  private readonly benchmarks = new Map<string, Benchmark>();
  private readonly harnesses = new Map<string, Harness>();
  private readonly ids = new Set<string>();
  private readonly runTasks = new Map<string, Tasks>();
  private unit: Tasks["unit"] | null = null;
  private started: { at: string; clock: "utc" | "local" } | null = null;
  private finished: { at: string; clock: "utc" | "local" } | null = null;
  private clocks = new Set<"utc" | "local">();
  private any = false;

  /** One entry: its identity, and its own task (a trial's), which the experiment's task set is made of. */
  add(identity: EntryIdentity | null, task: string | null, unit: Tasks["unit"] | null): void {
    if (task !== null && unit !== null && (identity === null || identity.tasks === null)) {
      this.ids.add(task);
      this.unit ??= unit;
      this.any = true;
    }
    if (identity === null) return;
    this.any = true;
    if (identity.agent !== null) this.agents.add(identity.agent);
    if (identity.model !== null) this.models.add(identity.model);
    if (identity.benchmark !== null) this.benchmarks.set(benchmarkKey(identity.benchmark), identity.benchmark);
    if (identity.harness !== null)
      this.harnesses.set(JSON.stringify([identity.harness.name, identity.harness.version]), identity.harness);
    if (identity.tasks !== null) this.runTasks.set(identity.tasks.digest, identity.tasks);
    if (identity.clock !== null) this.clocks.add(identity.clock);
    const at = (t: string | null) => (t === null || identity.clock === null ? null : { at: t, clock: identity.clock });
    const [s, f] = [at(identity.started_at), at(identity.finished_at)];
    // One clock's times in one spelling (normaliseTime): as text they order as in time.
    if (s !== null && (this.started === null || s.at < this.started.at)) this.started = s;
    if (f !== null && (this.finished === null || f.at > this.finished.at)) this.finished = f;
  }

  /** Null when no entry recorded anything of its run. */
  identity(): Identity | null {
    if (!this.any) return null;
    const sorted = <T>(m: ReadonlyMap<string, T>) => [...m.keys()].sort(byteCompare).map((k) => m.get(k)!);
    // Two clocks in one experiment cannot be ordered against each other: no time rather than a wrong one.
    const mixed = this.clocks.size > 1;
    return {
      agent: one([...this.agents].sort(byteCompare)),
      model: one([...this.models].sort(byteCompare)),
      benchmark: one(sorted(this.benchmarks)),
      tasks: this.tasks(),
      harness: one(sorted(this.harnesses)),
      started_at: mixed ? null : (this.started?.at ?? null),
      finished_at: mixed ? null : (this.finished?.at ?? null),
      clock: mixed ? null : (this.started?.clock ?? this.finished?.clock ?? null),
    };
  }

  /** A whole run's task set (one log's plan), or the digest of its trials' tasks; two different run sets are not one set: null. */
  private tasks(): Tasks | null {
    if (this.runTasks.size === 1 && this.ids.size === 0) return [...this.runTasks.values()][0]!;
    if (this.runTasks.size > 0 || this.ids.size === 0 || this.unit === null) return null;
    return { ...tasksDigest(this.ids), unit: this.unit };
  }
}

/** Every value of an identity field that may be one or a list, as a list. */
export const valuesOf = <T>(v: T | readonly T[] | null): readonly T[] =>
  v === null ? [] : Array.isArray(v) ? (v as readonly T[]) : [v as T];
