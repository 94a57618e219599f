// `assay compare`: two results documents' experiments side by side, pure. Per metric the
// difference HEAD − BASE with Newcombe's interval where both figures are proportions of counted
// trials; per headline metric the paired analysis over the units both sides count (§13.4, §13.7:
// mean difference, (cluster-)paired t interval, mde80, and the test that decides: McNemar, t or
// the sign test); what each harness claimed beside it. A regression is a drop that is not chance:
// the paired test decides where the metric has a paired analysis, else Newcombe's interval.

import type { Experiment, IntervalField, Results, RunOptions } from "../results.js";
import { describeFilter, selectExperiments, type ExperimentFilter } from "../filter.js";
import { byteCompare } from "../text.js";
import { unitChanges } from "./changes.js";
import { matchTwo, sameRun, type MatchBy, type MatchHow } from "./match.js";
import { namesOf } from "./names.js";
import { pairedComparison } from "./paired.js";
import type {
  ClaimedComparison,
  Comparison,
  ExperimentComparison,
  MetricComparison,
  PairedComparison,
} from "./schema.js";
import { tQuantile } from "../stats/student-t.js";
import { countsOf, newcombe95 } from "./stats.js";
import type { Units } from "./trials.js";

/**
 * One side's figure for a metric: a proportion (k of n) when it is one, else a value with why no
 * interval; and the metric's own §13.2 interval, whose SE and clusters a difference needs when
 * trials repeat tasks.
 */
type Figure = {
  value: number | null;
  k: number | null;
  n: number | null;
  why: string | null;
  interval: IntervalField | null;
};

const NOT_PROPORTION = "a mean over tasks of each task's chance, not a count of independent trials";
const proportion = (k: number, n: number, interval: IntervalField | null = null): Figure => ({
  value: n === 0 ? null : k / n,
  k,
  n,
  why: n === 0 ? "no trial counted" : null,
  interval,
});
const valueOnly = (value: number | null, why: string, interval: IntervalField | null = null): Figure => ({
  value,
  k: null,
  n: null,
  why,
  interval,
});

/** A mean the document gives with a Wilson interval when its values are all 0 or 1: its k of n, recovered from the interval. */
function meanFigure(
  value: number | null,
  wilson: readonly [number, number] | null,
  most: number,
  why: string,
  interval: IntervalField | null,
): Figure {
  if (value === null) return valueOnly(null, "no trial counted");
  const c = wilson === null ? null : countsOf(value, wilson, most);
  return c === null ? valueOnly(value, why, interval) : { value, k: c.k, n: c.n, why: null, interval };
}

/** Intervals whose units repeat tasks: their SE is over clusters, with C − 1 degrees of freedom (§13.7 adds Korn–Graubard's). */
const CLUSTERED: ReadonlySet<string> = new Set(["cluster-t", "korn-graubard"]);
const isClustered = (i: IntervalField | null) => i !== null && CLUSTERED.has(i.method);

/**
 * A side's SE and degrees of freedom for a difference: its cluster-robust SE over C − 1 (Korn–Graubard's
 * `se` is max(SE_c, SE_i), so never below the independent one), else the independent one over n − 1.
 * A side at 0% or 100% has an SE of 0, which would make its figure exact in the difference: it takes
 * the SE its own interval implies, (hi − lo)/(2·t(0.975, df)), instead (80/80 in 10 tasks is not certain).
 */
function spread(f: Figure): { se: number; df: number } | null {
  const i = f.interval;
  if (i === null || f.value === null) return null;
  const clustered = isClustered(i) || i.method === "t";
  if (clustered && i.se === null) return null;
  const df = (clustered ? (i.method === "t" ? i.units : i.clusters) : i.units) - 1;
  const se = clustered ? i.se! : Math.sqrt((f.value * (1 - f.value)) / i.units);
  return { se: se > 0 || df < 1 ? se : (i.hi - i.lo) / (2 * tQuantile(0.975, df)), df };
}

/** §13.2 for a difference of two runs whose trials repeat tasks: d ± t(0.975, df)·√(SE_b² + SE_h²), df the smaller. */
function clusteredDifference(b: Figure, h: Figure, d: number): [number, number] | null {
  const [sb, sh] = [spread(b), spread(h)];
  if (sb === null || sh === null) return null;
  const se = Math.sqrt(sb.se ** 2 + sh.se ** 2);
  const df = Math.min(sb.df, sh.df);
  if (se === 0 || df < 1) return null;
  const half = tQuantile(0.975, df) * se;
  return [d - half, d + half];
}

function perK(prefix: string, m: Record<string, number> | null, out: Map<string, Figure>): void {
  for (const [k, v] of Object.entries(m ?? {})) out.set(`${prefix}/${k}`, valueOnly(v, NOT_PROPORTION));
}

/** Every figure of an experiment's honest headline, by metric name. */
function figures(x: Experiment): Map<string, Figure> {
  const out = new Map<string, Figure>();
  if (x.accuracy) out.set("accuracy", proportion(x.accuracy.victories, x.accuracy.scored, x.accuracy.interval));
  if (x.completion)
    out.set("completion", proportion(x.completion.completed, x.completion.scheduled, x.completion.interval));
  if (x.pass) out.set("pass", proportion(x.pass.passed, x.pass.total, x.pass.interval));
  for (const [d, c] of Object.entries(x.dimensions ?? {}))
    out.set(`dimension/${d}`, proportion(c.passed, c.total, c.interval));
  perK("pass_hat_k", x.pass_hat_k, out);
  for (const [key, r] of Object.entries(x.rewards ?? {})) {
    out.set(
      `reward/${key}/mean`,
      meanFigure(
        r.mean,
        r.wilson95,
        r.trials,
        "rewards are not all 0 or 1: a mean of scores, not a proportion",
        r.interval,
      ),
    );
    // A plan that could not be read leaves coverage unknown: never compared as complete (issue 35).
    out.set(
      `reward/${key}/coverage`,
      r.coverage === null ? valueOnly(null, r.coverage_reason ?? "coverage unknown") : proportion(r.covered, r.trials),
    );
    perK(`reward/${key}/pass_at_k`, r.pass_at_k, out);
  }
  for (const [key, m] of Object.entries(x.inspect ?? {})) {
    const most = Math.max(m.coverage.planned, m.coverage.scored);
    out.set(
      `inspect/${key}/value`,
      meanFigure(m.value, m.wilson95, most, "not a proportion of 0/1 scores", m.interval),
    );
    out.set(
      `inspect/${key}/coverage`,
      m.coverage.scored <= m.coverage.planned
        ? proportion(m.coverage.scored, m.coverage.planned)
        : valueOnly(null, "more samples scored than planned"),
    );
    perK(`inspect/${key}/pass_at_k`, m.pass_at_k, out);
  }
  return out;
}

/** The JSON's `paired`: the analysis without its verdict, which the metric's `regression` carries. */
function analysis({ regression: _verdict, ...paired }: PairedComparison & { regression: boolean }): PairedComparison {
  return paired;
}

/** `tested`: the metric's paired analysis and whether its test finds a regression (§13.7), null for a metric without one. */
function metric(
  name: string,
  b: Figure,
  h: Figure,
  tested: (PairedComparison & { regression: boolean }) | null,
): Omit<MetricComparison, "changes"> {
  const difference = b.value === null || h.value === null ? null : h.value - b.value;
  // Where either side's trials repeat tasks, Newcombe's interval (independent trials) would be too
  // narrow: the difference of the two cluster-robust means instead.
  const clustered = isClustered(b.interval) || isClustered(h.interval);
  const interval95 =
    difference === null
      ? null
      : clustered
        ? clusteredDifference(b, h, difference)
        : b.k === null || b.n === null || h.k === null || h.n === null
          ? null
          : newcombe95(h.k, h.n, b.k, b.n);
  const note =
    difference === null || interval95 !== null
      ? null
      : clustered
        ? "trials repeat tasks, and a side has no cluster-robust spread to build the difference from"
        : (b.why ?? h.why);
  // §13.7 reading 13: where units pair, the paired test alone decides (below two pairs: no
  // regression, never the unpaired interval's verdict); the unpaired rule only for the other metrics.
  const regression =
    tested !== null
      ? tested.regression
      : difference !== null && difference < 0 && interval95 !== null && interval95[1] < 0;
  return {
    metric: name,
    base: { value: b.value, k: b.k, n: b.n },
    head: { value: h.value, k: h.k, n: h.n },
    difference,
    interval95,
    interval_method: interval95 === null ? null : clustered ? "cluster-t" : "newcombe",
    note,
    regression,
    paired: tested === null ? null : analysis(tested),
  };
}

/** What each harness claimed of itself: Harbor's job summary metrics, Inspect's own metric values. */
function claims(x: Experiment): Map<string, number | string | null> {
  const out = new Map<string, number | string | null>();
  for (const [k, v] of Object.entries(x.claimed?.metrics ?? {})) out.set(`claimed/${k}`, v);
  for (const [k, m] of Object.entries(x.inspect ?? {})) out.set(`claimed/${k}`, m.claimed);
  return out;
}

function claimedRows(b: Experiment, h: Experiment): ClaimedComparison[] {
  const cb = claims(b);
  const ch = claims(h);
  return [...cb.keys()]
    .filter((k) => ch.has(k))
    .sort(byteCompare)
    .map((k) => {
      const [vb, vh] = [cb.get(k) ?? null, ch.get(k) ?? null];
      return {
        metric: k,
        base: vb,
        head: vh,
        difference: typeof vb === "number" && typeof vh === "number" ? vh - vb : null,
      };
    });
}

/** One side as compare reads it: its run, its experiments and each experiment's pairing units. */
export interface Side {
  file: string;
  run: Results["run"];
  experiments: readonly Experiment[];
  /** Per experiment, per headline metric, the units it counts (trials, tasks or samples). */
  units: ReadonlyMap<Experiment, ReadonlyMap<string, Units>>;
}

/** The side with only the experiments the filter keeps, and how many it left out only for an unknown start time (--since). */
export function filterSide(side: Side, f: ExperimentFilter): { side: Side; unknownTime: number } {
  const { kept, unknownTime } = selectExperiments(side.experiments, f);
  return { side: { ...side, experiments: kept }, unknownTime };
}

/** Two experiments compared; `names` says what each is called in its document. */
function compareExperiments(
  b: Experiment,
  h: Experiment,
  how: MatchHow,
  base: Side,
  head: Side,
  names: ReadonlyMap<Experiment, string>,
): ExperimentComparison {
  const fb = figures(b);
  const fh = figures(h);
  const ub = base.units.get(b);
  const uh = head.units.get(h);
  const metrics = [...fb.keys()]
    .filter((k) => fh.has(k))
    .map((k) => {
      const [x, y] = [ub?.get(k), uh?.get(k)];
      // Native and world trials pass or fail: McNemar's exact test beside the paired t.
      const paired =
        x === undefined || y === undefined
          ? null
          : pairedComparison(x, y, b.profile === h.profile && (b.profile === "native-game" || b.profile === "world"));
      return {
        ...metric(k, fb.get(k)!, fh.get(k)!, paired),
        changes: x === undefined || y === undefined ? null : unitChanges(x, y),
      };
    });
  return {
    base: names.get(b)!,
    head: names.get(h)!,
    match: how,
    identity: { base: b.identity, head: h.identity },
    profile: { base: b.profile, head: h.profile },
    metrics,
    claimed: claimedRows(b, h),
    usage: { base: b.usage, head: h.usage },
  };
}

/** The options that change results and differ between the two runs, as `name: base vs head` (schedules aside: their paths say nothing of their content). */
export function differingOptions(a: RunOptions, b: RunOptions): string[] {
  const names = {
    invalid: "--invalid",
    resource_bound: "--resource-bound",
    errors: "--errors",
    hmac_key: "--hmac-key-file (key fingerprint)",
  } as const;
  return (Object.keys(names) as (keyof typeof names)[])
    .filter((k) => a[k] !== b[k])
    .map((k) => `${names[k]} ${a[k] ?? "none"} vs ${b[k] ?? "none"}`);
}

/** Filters only select experiments, never change one's figures: documents filtered differently compare, and say so. */
const filtersOf = (o: RunOptions) => describeFilter(o.filters ?? null) || "none";

export const sideOf = (s: Side) => ({
  file: s.file,
  tool_version: s.run.tool_version,
  scoring_version: s.run.scoring_version,
  started_at: s.run.started_at,
  complete: s.run.complete,
  options: s.run.options,
});

/** `pairs`: the experiments `--pair` names, each of its side; `by`: the one criterion `--by` names (match.ts), else all in turn. */
export function compareRuns(
  base: Side,
  head: Side,
  pairs: readonly (readonly [Experiment, Experiment])[],
  by?: MatchBy,
): Comparison {
  const names = new Map([...namesOf(base.experiments), ...namesOf(head.experiments)]);
  const { matched, onlyBase, onlyHead, ambiguous } = matchTwo(base.experiments, head.experiments, pairs, by, names);
  const experiments = matched.map(({ base: b, head: h, how }) => compareExperiments(b, h, how, base, head, names));
  const same = matched
    .filter(({ base: b, head: h }) => sameRun(b, base.units.get(b), h, head.units.get(h)))
    .map(
      ({ base: b }) =>
        `${names.get(b)}: BASE and HEAD record the same run (the same identity and times, figures and units): a run compared with itself`,
    );
  const only = (xs: readonly Experiment[]) =>
    xs.flatMap((x) => (names.has(x) ? [names.get(x)!] : [])).sort(byteCompare);
  return {
    format: "assay.compare/2",
    base: sideOf(base),
    head: sideOf(head),
    experiments,
    only_base: only(onlyBase),
    only_head: only(onlyHead),
    ambiguous,
    regressions: experiments.flatMap((e) =>
      e.metrics.filter((m) => m.regression).map((m) => ({ base: e.base, head: e.head, metric: m.metric })),
    ),
    notes: [...runNotes([base, head]), ...same],
  };
}

/**
 * What a two-run comparison compared nothing on, as lines for people: no experiment on both
 * sides, or a headline metric with no unit on both sides (different trial ids, a document without
 * per-sample values). `--fail-on regression` fails on these: a gate that compared nothing has not passed.
 */
export function uncomparedPairs(doc: Comparison): string[] {
  if (doc.experiments.length === 0) return ["no experiment is on both sides: nothing compared"];
  const metrics = doc.experiments.flatMap((e) => {
    // Matched, but no metric on both sides (a reward key renamed, another kind --pair'ed): nothing of it compared.
    if (e.metrics.length === 0) return [`${e.base}: no metric on both sides: nothing compared`];
    return e.metrics.flatMap((m) =>
      m.paired !== null && m.paired.pairs === 0
        ? [`${e.base} ${m.metric}: ${m.paired.reason ?? `no ${m.paired.unit} on both sides`}: nothing compared`]
        : [],
    );
  });
  // An ambiguous key is a comparison assay could have made and would not guess.
  const ambiguous = doc.ambiguous.map(
    (a) =>
      `by ${a.by}, ${a.key}: BASE ${a.base.join(", ")} and HEAD ${a.head.join(", ")} are ambiguous: not compared (name them with --pair)`,
  );
  return [...metrics, ...ambiguous];
}

/** What every comparison says of its runs: partial runs, experiments without an id, different schedule files. */
export function runNotes(sides: readonly Side[]): string[] {
  const notes: string[] = [];
  for (const s of sides)
    if (!s.run.complete)
      notes.push(`${s.file}: its run was stopped before every bundle was scored; its figures are partial`);
  const unnamed = (s: Side) => s.experiments.filter((x) => x.experiment === null).length;
  for (const s of sides)
    if (unnamed(s) > 0)
      notes.push(
        `${s.file}: ${unnamed(s)} experiment(s) without an id (Harbor trials without a job, unreadable Inspect logs) are not compared`,
      );
  if (new Set(sides.map((s) => JSON.stringify(s.run.options.schedules))).size > 1)
    notes.push("the runs were given different schedule files");
  if (new Set(sides.map((s) => filtersOf(s.run.options))).size > 1)
    notes.push(
      `the documents were filtered differently (${sides.map((s) => `${s.file}: ${filtersOf(s.run.options)}`).join("; ")}): each holds only the experiments its filters select`,
    );
  return notes;
}
