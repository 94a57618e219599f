// What every text format of a comparison shows the same way: numbers, differences, intervals.

import type { ExperimentComparison, MetricComparison, PairedComparison } from "../../core/compare/schema.js";

/** Flipped trials a table, Markdown or HTML report shows per direction (the JSON lists them all). */
export const FLIPPED_SHOWN = 10;

const isProportion = (m: MetricComparison) => m.base.n !== null && m.head.n !== null;
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const signed = (v: number, digits: number) => `${v > 0 ? "+" : v < 0 ? "−" : "±"}${Math.abs(v).toFixed(digits)}`;

/** A side's figure: `k/n = p%` for a proportion, else its value. */
export function figure(f: MetricComparison["base"]): string {
  if (f.value === null) return f.n === 0 ? "0/0" : "—";
  return f.k !== null && f.n !== null ? `${f.k}/${f.n} = ${pct(f.value)}` : Number(f.value.toFixed(4)).toString();
}

/** HEAD − BASE: in percentage points for proportions. */
export function difference(m: MetricComparison): string {
  if (m.difference === null) return "—";
  return isProportion(m) ? `${signed(m.difference * 100, 1)} pts` : signed(m.difference, 4);
}

/** The 95% interval in percentage points ("—" without one: withoutInterval says why). */
export function interval(m: MetricComparison): string {
  if (m.interval95 === null) return "—";
  return `[${signed(m.interval95[0] * 100, 1)}, ${signed(m.interval95[1] * 100, 1)}] pts`;
}

/** A metric's name for people: `pass_hat_k/2` as pass^2, `…/pass_at_k/2` as pass@2. */
export const metricName = (name: string): string => name.replace(/(^|\/)pass_hat_k\/(\d+)$/, "$1pass^$2").replace(/\/pass_at_k\/(\d+)$/, "/pass@$1");

/** A p-value as people read it (0 is a tail below the smallest number a double holds). */
export const pValue = (p: number | null): string => (p === null ? "= —" : p === 0 ? "< 1e-300" : `= ${p < 1e-4 ? p.toExponential(1) : p.toFixed(4)}`);

/** One line of a paired analysis: how many pairs, how many flipped each way, McNemar's p. */
export const pairedLine = (p: PairedComparison): string =>
  `${p.pairs} trials counted on both sides: ${p.both_pass} pass on both, ${p.both_fail} fail on both, ` +
  `${p.pass_to_fail} pass→fail, ${p.fail_to_pass} fail→pass; exact McNemar p ${pValue(p.mcnemar_p)}` +
  (p.base_only + p.head_only > 0 ? ` (${p.base_only} counted in BASE only, ${p.head_only} in HEAD only: not paired)` : "");

/** The first FLIPPED_SHOWN of a list, and how many more the JSON holds. */
export const capped = (xs: readonly string[]): { shown: readonly string[]; more: number } => ({ shown: xs.slice(0, FLIPPED_SHOWN), more: Math.max(0, xs.length - FLIPPED_SHOWN) });

/** The metrics without an interval, grouped by why. */
export function withoutInterval(e: ExperimentComparison): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of e.metrics) if (m.interval95 === null && m.note !== null) out.set(m.note, [...(out.get(m.note) ?? []), m.metric]);
  return out;
}
