// `assay compare R1 R2 R3 …` (contract §13.4, §13.6, §13.7), pure: per experiment held by two runs
// or more and per headline metric, the runs ranked by one figure — each run's mean over the pairing
// units every ranked run holds (§13.7 readings 15, 16), so that order, difference and test are of
// the same estimand — with each run's own headline beside it; every pair of runs compared over those
// units (core/stats/paired.ts: McNemar, the cluster-paired or paired t, the sign test, p = 1 without
// information), Holm-adjusted over all pairs, and the groups of runs not distinguished down the
// ranking. A regression: a run whose difference from R1 is below 0 with an adjusted p below 0.05
// (reading 18). No common unit: not ranked, and said so.

import type { Experiment, IntervalField } from "../results.js";
import { holm, pairedDifference, tieGroups } from "../stats/paired.js";
import { runNotes, sideOf, type Side } from "./compare.js";
import { describeKey, groupRuns, runKey, sameRun, type Group, type MatchBy, type Member } from "./match.js";
import { namesOf } from "./names.js";
import { unitMatrix } from "./changes.js";
import { trendOf, type TrendRun } from "./trend.js";
import { pairing, unpairedNotes } from "./paired.js";
import type { RankedExperiment, Ranking, RankingDocument } from "./schema.js";
import { headlines, MIXED_CHECKSUMS, type Units } from "./trials.js";
import { plural } from "../text.js";

/** A headline metric's value and §13.2 interval, as the run's document gives them. */
function figureOf(
  x: Experiment,
  metric: string,
): { value: number | null; interval: IntervalField | null; interval_reason: string | null } | null {
  const of = (o: { interval: IntervalField | null; interval_reason: string | null }, value: number | null) => ({
    value,
    interval: o.interval,
    interval_reason: o.interval_reason,
  });
  if (metric === "accuracy" && x.accuracy !== null) return of(x.accuracy, x.accuracy.value);
  if (metric === "pass" && x.pass !== null) return of(x.pass, x.pass.total === 0 ? null : x.pass.passed / x.pass.total);
  const reward = /^reward\/(.*)\/mean$/.exec(metric)?.[1];
  if (reward !== undefined && x.rewards?.[reward] !== undefined) return of(x.rewards[reward], x.rewards[reward].mean);
  const inspect = /^inspect\/(.*)\/value$/.exec(metric)?.[1];
  if (inspect !== undefined && x.inspect?.[inspect] !== undefined)
    return of(x.inspect[inspect], x.inspect[inspect].value);
  return null;
}

/** One run's part in a ranking: its index on the command line, its experiment and its units of the metric. */
interface Held {
  run: number;
  x: Experiment;
  units: Units | undefined;
}

/** Why a run's units cannot enter a ranking (null: they can). */
const lacking = (u: Units | undefined, metric: string): string | null =>
  u === undefined ? `no units of ${metric}` : (u.reason ?? (u.ids.length === 0 ? `no ${u.unit} counted` : null));

/**
 * The ids every run holds as one unit, in the first run's order: a Harbor task whose task_checksum
 * differs between runs (or within one) is not one unit, so it is left out (`changed`).
 */
function commonIds(units: readonly Units[]): { ids: string[]; changed: number } {
  const indexes = units.map((u) => new Map(u.ids.map((id, i) => [id, i])));
  const ids: string[] = [];
  let changed = 0;
  for (const id of units[0]!.ids) {
    const at = indexes.map((m) => m.get(id));
    if (at.some((i) => i === undefined)) continue;
    const sums = new Set(at.flatMap((i, r) => units[r]!.checksums?.[i!] ?? []));
    if (sums.has(MIXED_CHECKSUMS) || sums.size > 1) changed++;
    else ids.push(id);
  }
  return { ids, changed };
}

/** A run's units restricted to `ids` (each of which it holds), in that order. */
function restrict(u: Units, ids: readonly string[]): Units {
  const index = new Map(u.ids.map((id, i) => [id, i]));
  const at = ids.map((id) => index.get(id)!);
  const pick = <T>(xs: ArrayLike<T> | null | undefined) =>
    xs === null || xs === undefined ? null : at.map((i) => xs[i]!);
  return {
    unit: u.unit,
    ids: [...ids],
    values: Float64Array.from(at, (i) => u.values[i]!),
    checksums: pick(u.checksums),
    clusters: pick(u.clusters),
    reason: null,
  };
}

const meanOf = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;

/**
 * Why no ranking: fewer than two runs with units, or no unit every one of them holds. (One common
 * unit is compared, and says nothing: §13.7 gives each pair p = 1, so every run is in one group.)
 */
function unrankedReason(runs: number, common: number, unit: string): string | null {
  if (runs < 2) return `fewer than two runs hold ${unit}s of this metric: nothing compared, not ranked`;
  if (common === 0) return `no ${unit} is held by every run: nothing compared, not ranked`;
  return null;
}

/** The runs that can be ranked and the units all of them hold, with notes on what is left out. */
function commonSet(
  held: readonly Held[],
  metric: string,
  unit: string,
  file: (h: Held) => string,
): { counted: Held[]; ids: string[]; reason: string | null; notes: string[] } {
  const notes: string[] = [];
  const counted = held.filter((h) => {
    const why = lacking(h.units, metric);
    if (why !== null) notes.push(`${metric}, ${file(h)}: ${why}: not ranked`);
    return why === null;
  });
  const common = counted.length < 2 ? { ids: [], changed: 0 } : commonIds(counted.map((h) => h.units!));
  if (common.changed > 0)
    notes.push(
      `${metric}: task_checksum differs between runs for ${plural(common.changed, unit)}: left out (a changed task is not one unit)`,
    );
  for (const h of counted) {
    const out = h.units!.ids.length - common.ids.length;
    if (out > 0)
      notes.push(
        `${metric}, ${file(h)}: ${plural(out, unit)} not held by every ranked run, left out of the ranked figure`,
      );
  }
  if (common.ids.length === 1)
    notes.push(
      `${metric}: one ${unit} held by every ranked run: no test can tell runs apart from one pair (every p = 1)`,
    );
  return { counted, ids: common.ids, reason: unrankedReason(counted.length, common.ids.length, unit), notes };
}

type Pair = Ranking["pairs"][number] & { ra: number; rb: number };

/** Every pair of ranked runs (command-line order) tested over the same units, Holm-adjusted over all of them. */
function testPairs(
  ranked: readonly Held[],
  units: ReadonlyMap<number, Units>,
  value: ReadonlyMap<number, number>,
  metric: string,
  file: (h: Held) => string,
): { pairs: Pair[]; notes: string[] } {
  const pairs: Pair[] = [];
  const notes: string[] = [];
  for (let i = 0; i < ranked.length; i++)
    for (let j = i + 1; j < ranked.length; j++) {
      const [a, b] = [ranked[i]!, ranked[j]!];
      const p = pairing(units.get(a.run)!, units.get(b.run)!);
      const d = pairedDifference(p, units.get(a.run)!.unit);
      // The same figure as the order: the difference of the two ranked values (the mean of b − a over the same units).
      pairs.push({
        ra: a.run,
        rb: b.run,
        a: file(a),
        b: file(b),
        units: d.pairs,
        mean_diff: value.get(b.run)! - value.get(a.run)!,
        test: d.test,
        clusters: d.clusters,
        p: d.p,
        p_holm: 1,
      });
      const why = unpairedNotes(p, units.get(a.run)!.unit, [file(a), file(b)]);
      if (why.length > 0) notes.push(`${metric}, ${file(a)} vs ${file(b)}: ${why.join("; ")}`);
    }
  holm(pairs.map((p) => p.p)).forEach((q, k) => (pairs[k]!.p_holm = q));
  return { pairs, notes };
}

/** One experiment's metric over the runs (by their index on the command line) that hold it. */
function rank(
  metric: string,
  held: readonly Held[],
  file: (h: Held) => string,
): { unit: Units["unit"]; ranking: Ranking; notes: string[]; below: string[] } {
  const unit = headlines(held[0]!.x).find((h) => h.metric === metric)!.unit;
  const { counted, ids, reason, notes } = commonSet(held, metric, unit, file);
  const ranked = reason === null ? counted : [];
  const units = new Map(ranked.map((h) => [h.run, restrict(h.units!, ids)]));
  const value = new Map([...units].map(([run, u]) => [run, meanOf(u.values)]));
  const order = [...ranked].sort((a, b) => value.get(b.run)! - value.get(a.run)! || a.run - b.run);
  const tested = testPairs(ranked, units, value, metric, file);
  const pairs = tested.pairs;
  const pHolm = new Map(pairs.map((p) => [`${p.ra} ${p.rb}`, p.p_holm]));
  const groups = tieGroups(
    order.map((h) => h.run),
    (a, b) => pHolm.get(a < b ? `${a} ${b}` : `${b} ${a}`) ?? 1,
  );
  // R1 is the group's first run (command-line order, then document order); where it holds no figure, nothing is below it.
  const first = 0;
  const below = pairs.flatMap((p) => (p.ra === first && p.mean_diff! < 0 && p.p_holm < 0.05 ? [p.b] : []));
  const rankedRuns = new Set(ranked.map((h) => h.run));
  const listed = [...order, ...held.filter((h) => !rankedRuns.has(h.run))];
  return {
    unit,
    ranking: {
      metric,
      units: ids.length,
      reason,
      runs: listed.map((h) => {
        const f = figureOf(h.x, metric)!;
        return {
          run: file(h),
          value: value.get(h.run) ?? null,
          headline: { value: f.value, interval: f.interval },
          interval: f.interval,
          interval_reason: f.interval_reason,
          group: groups.get(h.run) ?? null,
        };
      }),
      pairs: pairs.map(({ ra: _a, rb: _b, ...p }) => p),
    },
    notes: [...notes, ...tested.notes],
    below,
  };
}

/**
 * What each run of a group is called in the ranking: its document where every run of the group
 * is in a document of its own under one name (R1 R2 R3 of one experiment), its name where all are
 * in one document, else both; made unique where a document is given twice.
 */
function labelsOf(g: Group, sides: readonly Side[], names: readonly ReadonlyMap<Experiment, string>[]): string[] {
  const distinctSides = new Set(g.members.map((m) => m.side)).size === g.members.length;
  const oneSide = new Set(g.members.map((m) => m.side)).size === 1;
  const raw = g.members.map((m) => {
    const [file, name] = [sides[m.side]!.file, names[m.side]!.get(m.x)!];
    return g.how === "name" && distinctSides ? file : oneSide ? name : `${file}: ${name}`;
  });
  const seen = new Map<string, number>();
  for (const l of raw) seen.set(l, (seen.get(l) ?? 0) + 1);
  return raw.map((l, i) => (seen.get(l)! > 1 ? `${l} (R${g.members[i]!.side + 1})` : l));
}

/** A group's name: the experiment's where it is matched by name, else what its runs share. */
function groupName(g: Group, names: readonly ReadonlyMap<Experiment, string>[]): string {
  const x = g.members[0]!.x;
  if (g.how === "name") return names[g.members[0]!.side]!.get(x)!;
  if (g.how === "pair") return g.members.map((m) => names[m.side]!.get(m.x)!).join(" = ");
  return describeKey(x, g.how);
}

/**
 * Runs that are an earlier run given again (an Inspect log as .eval and as .json, a copied job
 * folder, a document given twice): the same identity, start and finish included (match.ts runKey),
 * the same figures and the same value on every unit. Each maps to the earlier run; a run is never ranked against itself.
 */
function duplicatesOf(runs: readonly Member[], sides: readonly Side[]): Map<Experiment, Member> {
  const seen = new Map<string, Member[]>();
  const out = new Map<Experiment, Member>();
  const unitsOf = (m: Member) => sides[m.side]!.units.get(m.x);
  for (const m of runs) {
    const k = runKey(m.x);
    if (k === null) continue;
    const earlier = seen.get(k) ?? [];
    const same = earlier.find((e) => sameRun(e.x, unitsOf(e), m.x, unitsOf(m)));
    if (same !== undefined) out.set(m.x, same);
    else seen.set(k, [...earlier, m]);
  }
  return out;
}

export interface RankOptions {
  /** `--pair`: groups named on the command line, each a list of runs. */
  pairs?: readonly (readonly Member[])[];
  /** `--by`: one criterion, else name, benchmark and tasks in turn (match.ts). */
  by?: MatchBy;
  /** `--trend`: each ranking's runs ordered by their start, with the slope over them. */
  trend?: boolean;
}

/** Runs ranked: one document's experiments of one benchmark, or three or more documents' (match.ts groups them). */
export function rankRuns(sides: readonly Side[], options: RankOptions = {}): RankingDocument {
  const names = sides.map((s) => namesOf(s.experiments));
  const all = sides.flatMap((s, side) => s.experiments.filter((x) => x.experiment !== null).map((x) => ({ side, x })));
  // The same run given again is set aside before grouping, so that it neither forms a group nor keeps its twin out of one.
  const dupOf = duplicatesOf(all, sides);
  const runs = all.filter((m) => !dupOf.has(m.x));
  const pairs = (options.pairs ?? []).map((p) => p.filter((m) => !dupOf.has(m.x)));
  const { groups, single } = groupRuns(runs, pairs, options.by);
  const twinsOf = new Map<Experiment, Member[]>();
  for (const d of all) {
    const of = dupOf.get(d.x);
    if (of !== undefined) twinsOf.set(of.x, [...(twinsOf.get(of.x) ?? []), d]);
  }
  const twins = (m: Member) => twinsOf.get(m.x) ?? [];
  // A run alone but given more than once is a group of itself: listed, with nothing to rank.
  const alone = single.filter((m) => twins(m).length > 0);
  const experiments: RankedExperiment[] = [];
  const regressions: RankingDocument["regressions"] = [];
  const unranked: RankingDocument["unranked"] = [];
  const unscored: RankingDocument["unscored"] = [];
  for (const g of [...groups, ...alone.map((m): Group => ({ how: "name", members: [m] }))]) {
    const distinct = g.members.length;
    const withTwins: Group = { how: g.how, members: [...g.members, ...g.members.flatMap(twins)] };
    const name = groupName(withTwins, names);
    const labels = labelsOf(withTwins, sides, names);
    const members = withTwins.members.map((m, i) => ({
      run: labels[i]!,
      file: sides[m.side]!.file,
      experiment: names[m.side]!.get(m.x)!,
      identity: m.x.identity,
    }));
    const dupes = withTwins.members.slice(distinct).map((d, i) => ({
      run: labels[distinct + i]!,
      same_as: labels[withTwins.members.findIndex((m) => m.x === dupOf.get(d.x)?.x)]!,
    }));
    // Held's `run`: the member's index in the group, so that order and pairs follow the group's order.
    const held = g.members.map((m, i) => ({ run: i, x: m.x }));
    const file = (h: { run: number }) => labels[h.run]!;
    const metrics = [...new Set(held.flatMap(({ x }) => headlines(x).map((h) => h.metric)))];
    let rankedAny = false;
    for (const metric of held.length < 2 ? [] : metrics) {
      const holding = held
        .filter(({ x }) => figureOf(x, metric) !== null)
        .map((h) => ({ ...h, units: sides[g.members[h.run]!.side]!.units.get(h.x)?.get(metric) }));
      if (holding.length < 2) continue;
      rankedAny = true;
      for (const h of held)
        if (!holding.some((x) => x.run === h.run)) unranked.push({ experiment: name, metric, run: file(h) });
      const { unit, ranking, notes, below } = rank(metric, holding, file);
      const trend = options.trend === true ? trendOf(metric, trendRuns(holding, file, unit)) : null;
      // The whole matrix (every unit): the Markdown and HTML show its first rows.
      const matrix = unitMatrix(
        holding.flatMap((h) => (h.units === undefined ? [] : [{ label: file(h), units: h.units }])),
        Infinity,
      );
      experiments.push({
        experiment: name,
        match: g.how,
        profile: held[0]!.x.profile,
        unit,
        ranking,
        matrix,
        trend,
        members,
        duplicates: dupes,
        notes,
        usage: ranking.runs.map((r) => ({ run: r.run, usage: g.members[labels.indexOf(r.run)]!.x.usage })),
      });
      for (const run of below) regressions.push({ experiment: name, metric, run });
    }
    if (!rankedAny)
      unscored.push({
        experiment: name,
        match: g.how,
        members,
        duplicates: dupes,
        reason: unscoredReason(held.map((h) => h.x)),
      });
  }
  const singles = single
    .filter((m) => !alone.includes(m))
    .map((m) =>
      sides.length === 1 ? names[m.side]!.get(m.x)! : `${sides[m.side]!.file}: ${names[m.side]!.get(m.x)!}`,
    );
  return {
    format: "assay.compare-runs/1",
    runs: sides.map(sideOf),
    experiments,
    single: singles,
    unranked,
    unscored,
    regressions,
    notes: runNotes(sides),
  };
}

/** A ranking's runs as `--trend` takes them: each with its recorded start and its units (a run without units of the metric is said, not guessed). */
function trendRuns(holding: readonly Held[], file: (h: { run: number }) => string, unit: Units["unit"]): TrendRun[] {
  return holding.map((h) => ({
    run: file(h),
    started_at: h.x.identity?.started_at ?? null,
    clock: h.x.identity?.clock ?? null,
    units: h.units ?? {
      unit,
      ids: [],
      values: new Float64Array(0),
      checksums: null,
      reason: lacking(h.units, "the metric"),
    },
  }));
}

/** Why a group of runs has no ranking at all. */
function unscoredReason(xs: readonly Experiment[]): string {
  if (xs.length < 2)
    return "every run of the group is the same run given more than once (the same identity and times, figures and units): nothing to rank";
  if (xs.every((x) => headlines(x).length === 0))
    return "no run of the group records a score (no scorer, or nothing scored): listed, not ranked";
  return "no headline metric is held by two runs of the group: nothing compared, not ranked";
}

/**
 * What a ranking document compared nothing on, as lines for people: no experiment ranked at all, a
 * ranking without a common unit, or R1 left out of one. `--fail-on regression` fails on
 * these: a gate that compared nothing has not passed.
 */
export function uncompared(doc: RankingDocument): string[] {
  const unscored = doc.unscored.map((u) => `${u.experiment}: ${u.reason}`);
  if (doc.experiments.length === 0)
    return [...unscored, ...(unscored.length === 0 ? ["no experiment is held by two runs: nothing compared"] : [])];
  const r1 = new Map(doc.experiments.map((e) => [e.experiment, e.members[0]!.run]));
  const withoutR1 = doc.unranked
    .filter((u) => u.run === r1.get(u.experiment))
    .map((u) => `${u.experiment} ${u.metric}: R1 holds the experiment but no figure of it: not compared with R1`);
  return [
    ...doc.experiments.flatMap((e) => {
      const r = e.ranking;
      if (r.reason !== null) return [`${e.experiment} ${r.metric}: ${r.reason}`];
      return r.runs.some((x) => x.run === e.members[0]!.run && x.group === null)
        ? [`${e.experiment} ${r.metric}: R1 holds no ${e.unit} of it: not compared with R1`]
        : [];
    }),
    ...withoutR1,
    ...unscored,
  ];
}
