// What every text format of a comparison shows the same way: numbers, differences, intervals.

import type {
  ExperimentComparison,
  MetricComparison,
  PairedComparison,
  RankedExperiment,
  Ranking,
} from "../../core/compare/schema.js";
import { whoOf } from "../overview.js";
import { dollars, tokens } from "../usage.js";
import { plural, terminalText } from "../../core/text.js";

/** Flipped trials a table, Markdown or HTML report shows per direction (the JSON lists them all). */
export const FLIPPED_SHOWN = 10;

/**
 * A name or note as Markdown shows it literally: hidden characters escaped, every character that
 * could start emphasis, code, a link, a cell, math or a mention backslashed, `<` and `&` as entities.
 */
export const md = (s: string): string =>
  terminalText(s)
    .replace(/[\\`*_{}[\]|~>$@:]/g, (c) => `\\${c}`)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/\r?\n/g, " ");

const isProportion = (m: MetricComparison) => m.base.n !== null && m.head.n !== null;
/** A proportion in percent, to a tenth. */
export const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
/** A difference's sign: +, −, or ± for none. */
export const signOf = (v: number) => (v > 0 ? "+" : v < 0 ? "−" : "±");
const signed = (v: number, digits: number) => `${signOf(v)}${Math.abs(v).toFixed(digits)}`;
/** A value that is no proportion: to four places, no trailing zeros. */
export const number = (v: number) => Number(v.toFixed(4)).toString();

/** A side's figure: `k/n = p%` for a proportion, else its value. */
export function figure(f: MetricComparison["base"]): string {
  if (f.value === null) return f.n === 0 ? "0/0" : "—";
  return f.k !== null && f.n !== null ? `${f.k}/${f.n} = ${pct(f.value)}` : number(f.value);
}

/** HEAD − BASE: in percentage points for proportions. */
export function difference(m: MetricComparison): string {
  if (m.difference === null) return "—";
  return isProportion(m) ? `${signed(m.difference * 100, 1)} pts` : signed(m.difference, 4);
}

/** The 95% interval in percentage points ("—" without one: withoutInterval says why); † marks a cluster-robust one. */
export function interval(m: MetricComparison): string {
  if (m.interval95 === null) return "—";
  const [lo, hi] = isProportion(m)
    ? [`${signed(m.interval95[0] * 100, 1)}`, `${signed(m.interval95[1] * 100, 1)}`]
    : [signed(m.interval95[0], 4), signed(m.interval95[1], 4)];
  return `[${lo}, ${hi}]${isProportion(m) ? " pts" : ""}${m.interval_method === "cluster-t" ? " †" : ""}`;
}

/** The unpaired intervals' methods, named once per experiment (null when it shows none). */
export function differenceMethods(e: ExperimentComparison): string | null {
  const used = new Set(e.metrics.map((m) => m.interval_method));
  const parts = [
    ...(used.has("newcombe") ? ["Newcombe's for two proportions of independent trials"] : []),
    ...(used.has("cluster-t")
      ? [
          "† where a side's trials repeat tasks, the difference of two cluster-robust means (t over the fewer clusters − 1)",
        ]
      : []),
  ];
  return parts.length === 0
    ? null
    : `95% intervals of HEAD − BASE, the runs taken as independent samples: ${parts.join("; ")}`;
}

/** A metric's name for people: `pass_hat_k/2` as pass^2, `…/pass_at_k/2` as pass@2. */
export const metricName = (name: string): string =>
  name.replace(/(^|\/)pass_hat_k\/(\d+)$/, "$1pass^$2").replace(/\/pass_at_k\/(\d+)$/, "/pass@$1");

/** A p-value as people read it (below 1e-300: the floor core/stats/binomial.ts gives a tail a double cannot hold). */
export const pValue = (p: number | null): string =>
  p === null ? "= —" : p < 1e-300 ? "< 1e-300" : `= ${p < 1e-4 ? p.toExponential(1) : p.toFixed(4)}`;

/** A difference of proportions in percentage points, to a tenth. */
export const points = (v: number) => `${signed(v * 100, 1)} pts`;

/** The paired figure, named once per experiment (§13.7: one estimand, the one compared and tested). */
export const pairedMethod = (e: ExperimentComparison): string | null => {
  const units = [...new Set(e.metrics.flatMap((m) => (m.paired === null ? [] : [m.paired.unit])))];
  return units.length === 0
    ? null
    : `the figure compared and tested: the mean of HEAD − BASE over the ${units.map((u) => `${u}s`).join(" and ")} both runs count`;
};

/** What a cluster of pairing units is: trials repeat a task; samples share a cluster key's value. */
const clusterNoun = (unit: PairedComparison["unit"]) => (unit === "sample" ? "cluster" : "task");

const TESTS: Record<PairedComparison["test"], string> = {
  "paired-t": "paired t",
  "cluster-paired-t": "cluster-paired t",
  mcnemar: "exact McNemar",
  sign: "exact sign test",
  none: "no test",
};

/** mde80 as people read it: approximate, since it takes the observed spread as the true one (§13.7). */
const mdeText = (mde: number) =>
  `; it cannot see differences smaller than about ${(mde * 100).toFixed(1)} pts (mde80, approximate: it takes the observed spread as the true one)`;

/**
 * One metric's paired difference: "mean over N paired units", HEAD − BASE, its interval with the
 * method, the test that decided and its p, and what the comparison cannot see.
 */
export function pairedLine(p: PairedComparison): string {
  if (p.mean_diff === null) return `no paired ${p.unit}: ${p.reason}`;
  const over = `mean over ${plural(p.pairs, `paired ${p.unit}`)}`;
  const diff = `${over}: HEAD − BASE ${points(p.mean_diff)}`;
  // No interval: the reason says why (and, for the sign test, its p); McNemar may still decide.
  if (p.interval === null)
    return `${diff} (${p.reason})${p.test === "mcnemar" ? `; exact McNemar p ${pValue(p.p)} decides` : ""}`;
  const by =
    p.interval.method === "cluster-paired-t"
      ? `cluster-paired t over ${plural(p.clusters ?? 0, clusterNoun(p.unit))}`
      : "paired t";
  const range = `95% interval [${signed(p.interval.lo * 100, 1)}, ${signed(p.interval.hi * 100, 1)}] pts (${by})`;
  return `${diff}, ${range}; ${TESTS[p.test]} p ${pValue(p.p)} decides${p.mde80 === null ? "" : mdeText(p.mde80)}`;
}

/**
 * Each run's own headline beside the paired figure, named as the headline (§13.7). Harbor's
 * headline weighs tasks by their trials, the paired figure each task once: said where the two
 * differ, and said louder where they point different ways.
 */
export function headlineLine(m: MetricComparison): string | null {
  const p = m.paired;
  if (p === null || m.difference === null) return null;
  const line = `headline (each run's own figure, as in the table): BASE ${figure(m.base)}, HEAD ${figure(m.head)}, HEAD − BASE ${difference(m)}`;
  // Only where the two figures differ is there a weighting to explain.
  if (p.unit !== "task" || p.mean_diff === null || Math.abs(p.mean_diff - m.difference) <= 1e-9) return line;
  const apart = Math.sign(p.mean_diff) * Math.sign(m.difference) < 0;
  return `${line}; the headline weighs each task by its trials, the paired figure weighs every task once${apart ? " — here they point different ways: the paired figure is the one tested" : ""}`;
}

/** McNemar's exact test of the flipped units; where units repeat a task it is shown, not deciding (§13.7). */
export const mcnemarLine = (
  m: NonNullable<PairedComparison["mcnemar"]>,
  p: Pick<PairedComparison, "test" | "clusters">,
): string =>
  `${m.both_pass} pass on both, ${m.both_fail} fail on both, ${m.pass_to_fail} pass→fail, ${m.fail_to_pass} fail→pass; exact McNemar p ${pValue(m.p)}${notDeciding(p)}`;

/** Why McNemar's p, shown, is not the test that decides. */
const notDeciding = (p: Pick<PairedComparison, "test" | "clusters">): string =>
  p.test === "mcnemar"
    ? ""
    : p.clusters === null
      ? " (not deciding: a single pair holds no information)"
      : p.test === "none"
        ? " (not deciding: every unit is in one task, and no test decides from a single task)"
        : " (not deciding: the units repeat tasks, so the cluster-paired test decides)";

/** A ranked run's ranked figure, and its own headline with the headline's interval, in percent. */
export function rankedFigure(r: Ranking["runs"][number]): { value: string; headline: string; interval: string } {
  return {
    value: r.value === null ? "—" : pct(r.value),
    headline: r.headline.value === null ? "—" : pct(r.headline.value),
    interval:
      r.interval === null
        ? `— (${r.interval_reason ?? "no interval"})`
        : `[${pct(r.interval.lo)}, ${pct(r.interval.hi)}] ${r.interval.method}`,
  };
}

/** The test that gave a ranked pair's p, as people read it. */
const TEST_NAMES: Record<Ranking["pairs"][number]["test"], string> = {
  mcnemar: "exact McNemar",
  "paired-t": "paired t",
  "cluster-paired-t": "cluster-paired t",
  sign: "exact sign test",
  none: "none (no information: p = 1)",
};

/** A pair of ranked runs: b − a in points, the test, p and Holm's p. */
export const rankedPair = (p: Ranking["pairs"][number]): { diff: string; test: string; p: string; holm: string } => ({
  diff: p.mean_diff === null ? "—" : points(p.mean_diff),
  test: `${TEST_NAMES[p.test]}${p.clusters === null ? "" : ` (${plural(p.clusters, "cluster")})`}`,
  p: pValue(p.p).replace(/^= /, ""),
  holm: pValue(p.p_holm).replace(/^= /, ""),
});

/** The ranked figure, named: "mean over 8 paired tasks". */
export const rankedName = (e: RankedExperiment): string =>
  e.ranking.reason !== null
    ? "ranked figure"
    : `mean over ${e.ranking.units} paired ${e.unit}${e.ranking.units === 1 ? "" : "s"}`;

/** What a ranking orders by and what its groups say (§13.7: never that runs are the same). */
export function rankingWords(e: RankedExperiment): string[] {
  const r = e.ranking;
  if (r.reason !== null) return [`not ranked: ${r.reason}; each run's headline as its document gives it`];
  const harbor = e.unit === "task" ? " (each task's value the mean of its trials)" : "";
  return [
    `ranked by the ${rankedName(e)}${harbor}: the ${e.unit}s every ranked run holds; each run's headline (its document's own figure and interval) beside it`,
    `group: runs not distinguished at 95% (Holm over ${plural(r.pairs.length, "pair")}); a group is no evidence that its runs perform alike`,
  ];
}

/** The first FLIPPED_SHOWN of a list, and how many more the JSON holds. */
export const capped = (xs: readonly string[]): { shown: readonly string[]; more: number } => ({
  shown: xs.slice(0, FLIPPED_SHOWN),
  more: Math.max(0, xs.length - FLIPPED_SHOWN),
});

/** The metrics without an interval, grouped by why. */
export function withoutInterval(e: ExperimentComparison): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of e.metrics)
    if (m.interval95 === null && m.note !== null) out.set(m.note, [...(out.get(m.note) ?? []), m.metric]);
  return out;
}

/** Why compare gives spend no difference or interval: it is each side's recorded total, not an estimate. */
export const USAGE_NOTE = "cost as each run recorded it (never priced by assay); a total, not an estimate: no interval";

type Usage = ExperimentComparison["usage"]["base"];
const money = (x: number | null | undefined) => (x === null || x === undefined ? "—" : dollars(x));
const spentTokens = (u: Usage) => {
  const t = u?.spent;
  if (t === undefined || (t.input_tokens === null && t.output_tokens === null)) return "—";
  return `${t.input_tokens === null ? "—" : tokens(t.input_tokens)} in / ${t.output_tokens === null ? "—" : tokens(t.output_tokens)} out`;
};

/**
 * Each side's spend and cost per success (§13.5), as rows of [what, BASE, HEAD]; none when
 * neither side's evidence records usage.
 */
export function usageRows(e: ExperimentComparison): [string, string, string][] {
  const { base, head } = e.usage;
  if (base === null && head === null) return [];
  return [
    ["cost spent", money(base?.spent.cost_usd), money(head?.spent.cost_usd)],
    ["cost counted", money(base?.counted.cost_usd), money(head?.counted.cost_usd)],
    ["cost per success", money(base?.cost_per_success), money(head?.cost_per_success)],
    ["tokens spent", spentTokens(base), spentTokens(head)],
  ];
}

/**
 * Ranked runs' spend (§13.5), as rows of [run, spent, counted, per success, tokens] in the
 * ranking's order; none when no run records usage, or when the ranking `before` (a Harbor job's
 * other reward key) already showed this experiment's.
 */
export function rankedUsageRows(
  e: RankedExperiment,
  before?: RankedExperiment,
): [string, string, string, string, string][] {
  if (e.usage.every((r) => r.usage === null) || (before?.experiment === e.experiment && before.profile === e.profile))
    return [];
  return e.usage.map((r) => [
    r.run,
    money(r.usage?.spent.cost_usd),
    money(r.usage?.counted.cost_usd),
    money(r.usage?.cost_per_success),
    spentTokens(r.usage),
  ]);
}
export const USAGE_HEAD = ["run", "cost spent", "cost counted", "cost per success", "tokens spent"];

type IdentityOf = RankedExperiment["members"][number]["identity"];
/** Who ran a run: "agent / model" as recorded, every value of a list, "—" where neither is. */
export const who = (id: IdentityOf): string => whoOf(id, (xs) => (xs.length === 0 ? null : xs.join(", "))) || "—";

/** When a run started, as recorded (a local time says so: it has no zone). */
export const startedText = (id: IdentityOf): string =>
  id?.started_at == null ? "—" : `${id.started_at}${id.clock === "local" ? " (local time)" : ""}`;

/** How runs were matched, for people. */
export const MATCH_WORDS: Record<RankedExperiment["match"], string> = {
  name: "matched by name",
  benchmark: "matched by recorded benchmark",
  tasks: "matched by task set (the same tasks, no benchmark recorded)",
  pair: "paired with --pair",
};

/** A ranked run's agent / model and start, by its label (the ranking's runs are a group's members). */
export const memberOf = (e: Pick<RankedExperiment, "members">, run: string): IdentityOf =>
  e.members.find((m) => m.run === run)?.identity ?? null;

/** The same run given twice, as a line (null: none). */
export const duplicatesLine = (d: RankedExperiment["duplicates"]): string | null =>
  d.length === 0
    ? null
    : `the same run given twice, ranked once: ${d.map((x) => `${x.run} (= ${x.same_as})`).join(", ")}`;
