// `--trend` (issue 37), pure: one experiment's paired figure over the matched runs in start-time
// order, and the within-unit slope of it per run with a cluster-robust interval
// (core/stats/trend.ts). "degrading" only where the interval lies below 0. Runs that cannot be put
// in one order (a run with no start time, local times beside instants) give no slope: an order
// guessed would make any slope a guess.

import { timeMs } from "../identity.js";
import { plural } from "../text.js";
import { withinSlope, verdictOf, type UnitSeries } from "../stats/trend.js";
import type { Trend } from "./trend-schema.js";
import { MIXED_CHECKSUMS, UNTOLD_CLUSTER, type UnitKind, type Units } from "./trials.js";

/** One matched run: its name (the document's path as given), its start time and clock (its experiment's identity), its units of the metric. */
export interface TrendRun {
  run: string;
  started_at: string | null;
  clock: "utc" | "local" | null;
  units: Units;
}

/** What every trend's interval takes for granted (its JSON's `assumes`). */
export const TREND_ASSUMES =
  "the runs in start-time order, one step per run (their spacing ignored); the slope is the average straight-line change per run within units (each unit's own level absorbed: only its change from run to run counts); units of one cluster (a task's repeats) move together, clusters independently of one another, with no shock shared by every unit of one run (a run-wide outage reads as part of the trend); the interval is for the population of tasks these were drawn from, and needs two clusters or more";

/**
 * The runs in start-time order with their positions (runs started at the same time share one), or
 * as given with why they cannot be ordered.
 */
function ordered(runs: readonly TrendRun[]): {
  runs: TrendRun[];
  positions: number[] | null;
  ties: number;
  reason: string | null;
} {
  const refuse = (reason: string) => ({ runs: [...runs], positions: null, ties: 0, reason });
  if (runs.length < 2) return refuse("fewer than two runs: no trend");
  const untimed = runs.filter(
    (r) => r.started_at === null || r.clock === null || Number.isNaN(timeMs(r.started_at, r.clock)),
  );
  if (untimed.length > 0)
    return refuse(
      `${untimed.map((r) => r.run).join(", ")} ${untimed.length === 1 ? "records" : "record"} no start time: the runs cannot be ordered, no trend`,
    );
  if (new Set(runs.map((r) => r.clock)).size > 1)
    return refuse(
      "some runs' start times are instants (UTC), others local times with no zone: they cannot be ordered against each other, no trend",
    );
  const timed = runs.map((r) => ({ r, ms: timeMs(r.started_at!, r.clock!) })).sort((a, b) => a.ms - b.ms);
  const distinct = [...new Set(timed.map((x) => x.ms))];
  if (distinct.length < 2) return refuse("every run started at the same time: no order, no trend");
  return {
    runs: timed.map((x) => x.r),
    positions: timed.map((x) => distinct.indexOf(x.ms)),
    ties: runs.length - distinct.length,
    reason: null,
  };
}

/** A told cluster (not an Inspect sample's that lacks its key, which gives way to a told one). */
const told = (k: string | null): k is string => k !== null && !k.startsWith(UNTOLD_CLUSTER);

/**
 * Each unit's cluster over all runs: where runs put one unit in different clusters, those clusters
 * are one (the coarser grouping holds whatever they share); a unit no run clusters stands alone.
 */
function clustersOf(runs: readonly Units[]): Map<string, string> {
  const parent = new Map<string, string>();
  const root = (k: string): string => {
    if (!parent.has(k)) parent.set(k, k);
    let r = k;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(k, r);
    return r;
  };
  const join = (a: string, b: string) => parent.set(root(a), root(b));
  const named = new Map<string, string[]>();
  for (const u of runs)
    u.ids.forEach((id, i) => {
      const k = u.clusters?.[i] ?? null;
      if (k !== null) named.set(id, [...(named.get(id) ?? []), k]);
    });
  for (const [id, ks] of named) {
    const own = ks.filter(told);
    for (const k of own.length > 0 ? own : ks) join(`u ${id}`, `c ${k}`);
  }
  const out = new Map<string, string>();
  for (const u of runs) for (const id of u.ids) out.set(id, root(`u ${id}`));
  return out;
}

/** A unit whose task_checksum differs between runs (or within one) is not one unit over them. */
function changedUnits(runs: readonly Units[]): Set<string> {
  const sums = new Map<string, Set<string>>();
  for (const u of runs)
    u.ids.forEach((id, i) => {
      const c = u.checksums?.[i] ?? null;
      if (c !== null) sums.set(id, (sums.get(id) ?? new Set()).add(c));
    });
  return new Set([...sums].filter(([, s]) => s.has(MIXED_CHECKSUMS) || s.size > 1).map(([id]) => id));
}

/** Every unit but the changed ones, each with its series over the runs' positions (the slope takes those held by two runs). */
function panelOf(
  runs: readonly Units[],
  positions: readonly number[],
): { series: Map<string, UnitSeries>; changed: number } {
  const changed = changedUnits(runs);
  const cluster = clustersOf(runs);
  const series = new Map<string, UnitSeries & { at: number[]; values: number[] }>();
  runs.forEach((u, r) =>
    u.ids.forEach((id, i) => {
      if (changed.has(id)) return;
      const s = series.get(id) ?? { cluster: cluster.get(id)!, at: [], values: [] };
      series.set(id, s);
      s.at.push(positions[r]!);
      s.values.push(u.values[i]!);
    }),
  );
  return { series, changed: changed.size };
}

/** Each run's mean over the units (of `used`) it holds; null where it holds none. */
function valuesOf(runs: readonly Units[], used: ReadonlySet<string>): (number | null)[] {
  return runs.map((u) => {
    let sum = 0;
    let n = 0;
    u.ids.forEach((id, i) => used.has(id) && ((sum += u.values[i]!), n++));
    return n === 0 ? null : sum / n;
  });
}

/** The trend of `metric` over `runs` (any order: they are put in start-time order here). */
export function trendOf(metric: string, runs: readonly TrendRun[]): Trend {
  const order = ordered(runs);
  const unit: UnitKind = runs.find((r) => r.units.reason === null)?.units.unit ?? runs[0]?.units.unit ?? "task";
  const notes: string[] = order.runs.flatMap((r) =>
    r.units.reason === null ? [] : [`${r.run}: ${r.units.reason}: not in the trend`],
  );
  const holding = order.runs.map((r) =>
    r.units.reason === null ? r.units : { ...r.units, ids: [], values: new Float64Array(0) },
  );
  // Unordered runs still give each its value (and the units are counted): only the slope needs the order.
  const { series, changed } = panelOf(holding, order.positions ?? holding.map((_, i) => i));
  if (changed > 0)
    notes.push(
      `task_checksum differs between runs for ${plural(changed, unit)}: left out (a changed task is not one unit)`,
    );
  const used = [...series].filter(([, s]) => s.at.length >= 2);
  const values = valuesOf(holding, new Set(used.map(([id]) => id)));
  if (order.ties > 0)
    notes.push(`${plural(order.ties, "run")} started at the same time as another: they share a position`);
  const withUnits = holding.filter((u) => u.ids.length > 0).length;
  if (used.some(([, s]) => s.at.length < withUnits))
    notes.push(
      `not every ${unit} is held by every run: each run's value is over the ${unit}s it holds; the slope compares each ${unit} only with itself`,
    );
  const fit = withinSlope([...series.values()]);
  const slope =
    order.positions === null ? { slope: null, interval: null, se: null, df: null, reason: order.reason } : fit;
  return {
    metric,
    unit,
    clock: order.positions === null ? null : runs[0]!.clock,
    runs: order.runs.map((r, i) => ({
      run: r.run,
      started_at: r.started_at,
      position: order.positions?.[i] ?? null,
      value: values[i]!,
    })),
    slope: slope.slope,
    interval: slope.interval,
    se: slope.se,
    df: slope.df,
    verdict: verdictOf(slope.interval),
    reason: slope.reason,
    units: fit.units,
    clusters: fit.clusters,
    left_out: fit.left_out + changed,
    assumes: TREND_ASSUMES,
    notes,
  };
}
