// `assay compare R1 R2 R3 …` (contract §13.4, §13.6), pure: per experiment held by two runs or
// more and per headline metric, the runs ranked by the metric with their own intervals, every pair
// of runs compared by the paired t over the units both count, Holm-adjusted over all pairs, and
// the tie groups down the ranking. A regression: a run whose difference from R1 is below 0 with an
// adjusted p below 0.05.

import type { Experiment, IntervalField } from "../results.js";
import { holm, pairedDifference, tieGroups } from "../stats/paired.js";
import { runNotes, sideOf, type Side } from "./compare.js";
import { keyOf, namesOf } from "./names.js";
import { pairing, unpairedNotes } from "./paired.js";
import type { RankedExperiment, RankingDocument } from "./schema.js";
import { headlines } from "./trials.js";

/** A headline metric's value and §13.2 interval, as the run's document gives them. */
function figureOf(x: Experiment, metric: string): { value: number | null; interval: IntervalField | null; interval_reason: string | null } | null {
  const of = (o: { interval: IntervalField | null; interval_reason: string | null }, value: number | null) => ({ value, interval: o.interval, interval_reason: o.interval_reason });
  if (metric === "accuracy" && x.accuracy !== null) return of(x.accuracy, x.accuracy.value);
  if (metric === "pass" && x.pass !== null) return of(x.pass, x.pass.total === 0 ? null : x.pass.passed / x.pass.total);
  const reward = /^reward\/(.*)\/mean$/.exec(metric)?.[1];
  if (reward !== undefined && x.rewards?.[reward] !== undefined) return of(x.rewards[reward], x.rewards[reward].mean);
  const inspect = /^inspect\/(.*)\/value$/.exec(metric)?.[1];
  if (inspect !== undefined && x.inspect?.[inspect] !== undefined) return of(x.inspect[inspect], x.inspect[inspect].value);
  return null;
}

/** One experiment's metric over the runs (by their index on the command line) that hold it. */
function rank(name: string, metric: string, held: readonly { run: number; x: Experiment }[], sides: readonly Side[]): { ranked: RankedExperiment; below: string[] } {
  const runs = held.map(({ run, x }) => ({ run, x, ...figureOf(x, metric)! }));
  const order = [...runs].sort((a, b) => (b.value ?? -Infinity) - (a.value ?? -Infinity) || a.run - b.run);
  const pairs: { a: number; b: number; units: number; mean_diff: number | null; p: number }[] = [];
  const notes: string[] = [];
  for (let i = 0; i < runs.length; i++)
    for (let j = i + 1; j < runs.length; j++) {
      const [ua, ub] = [sides[runs[i]!.run]!.units.get(runs[i]!.x)?.get(metric), sides[runs[j]!.run]!.units.get(runs[j]!.x)?.get(metric)];
      // §13.6: Holm over all R(R−1)/2 pairs; a pair with no units of this metric is in the family at p = 1.
      if (ua === undefined || ub === undefined) {
        pairs.push({ a: runs[i]!.run, b: runs[j]!.run, units: 0, mean_diff: null, p: 1 });
        continue;
      }
      const p = pairing(ua, ub);
      const d = pairedDifference(p, ua.unit);
      pairs.push({ a: runs[i]!.run, b: runs[j]!.run, units: d.pairs, mean_diff: d.mean_diff, p: d.p });
      const [fa, fb] = [sides[runs[i]!.run]!.file, sides[runs[j]!.run]!.file];
      const why = [...(p.reason === null ? [] : [p.reason]), ...unpairedNotes(p, ua.unit, [fa, fb])];
      if (why.length > 0) notes.push(`${metric}, ${fa} vs ${fb}: ${why.join("; ")}`);
    }
  const adjusted = holm(pairs.map((p) => p.p));
  const pHolm = new Map(pairs.map((p, k) => [`${p.a} ${p.b}`, adjusted[k]!]));
  // A pair with no units on both sides is p = 1 (pairedDifference): no evidence of a difference.
  const groups = tieGroups(order.map((r) => r.run), (a, b) => pHolm.get(a < b ? `${a} ${b}` : `${b} ${a}`) ?? 1);
  const unit = headlines(held[0]!.x).find((h) => h.metric === metric)!.unit;
  const below = pairs.flatMap((p, k) => (p.a === 0 && p.mean_diff !== null && p.mean_diff < 0 && adjusted[k]! < 0.05 ? [sides[p.b]!.file] : []));
  return {
    ranked: {
      experiment: name,
      profile: held[0]!.x.profile,
      unit,
      ranking: {
        metric,
        runs: order.map((r) => ({ run: sides[r.run]!.file, value: r.value, interval: r.interval, interval_reason: r.interval_reason, group: groups.get(r.run)! })),
        pairs: pairs.map((p, k) => ({ a: sides[p.a]!.file, b: sides[p.b]!.file, units: p.units, mean_diff: p.mean_diff, p: p.p, p_holm: adjusted[k]! })),
      },
      notes,
      usage: order.map((r) => ({ run: sides[r.run]!.file, usage: r.x.usage })),
    },
    below,
  };
}

/** Three or more runs ranked; experiments are matched by kind and id (names.ts). */
export function rankRuns(sides: readonly Side[]): RankingDocument {
  const byKey = new Map<string, { name: string; held: { run: number; x: Experiment }[] }>();
  sides.forEach((s, run) => {
    const names = namesOf(s.experiments);
    for (const x of s.experiments) {
      const k = keyOf(x);
      if (k === null) continue;
      const g = byKey.get(k) ?? { name: names.get(x)!, held: [] };
      byKey.set(k, g);
      g.held.push({ run, x });
    }
  });
  const experiments: RankedExperiment[] = [];
  const regressions: RankingDocument["regressions"] = [];
  const single: string[] = [];
  for (const { name, held } of byKey.values()) {
    if (held.length < 2) {
      single.push(`${sides[held[0]!.run]!.file}: ${name}`);
      continue;
    }
    const metrics = [...new Set(held.flatMap(({ x }) => headlines(x).map((h) => h.metric)))];
    for (const metric of metrics) {
      const holding = held.filter(({ x }) => figureOf(x, metric) !== null);
      if (holding.length < 2) continue;
      const { ranked, below } = rank(name, metric, holding, sides);
      experiments.push(ranked);
      for (const run of below) regressions.push({ experiment: name, metric, run });
    }
  }
  return { format: "assay.compare-runs/1", runs: sides.map(sideOf), experiments, single, regressions, notes: runNotes(sides) };
}
