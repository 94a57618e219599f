// What a run cost (§13.5) as every report says it: one line per experiment, spent (every entry)
// then counted (the counted units) then cost per success. Recorded figures only: a field no entry
// records is "not recorded", never $0.

import type { Experiment } from "../core/results.js";
import { wordsOf } from "./vocabulary.js";

type Total = NonNullable<Experiment["usage"]>["spent"];

/** Dollars to the cent, or to 4 significant digits below a cent (a cheap model's run). */
export const dollars = (x: number): string => (x >= 0.01 || x === 0 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`);

/** A token count compactly (1.2M, 30.1k), exact below 10,000. */
export function tokens(n: number): string {
  if (n < 10_000) return String(n);
  const [d, s] = n >= 1e9 ? [1e9, "G"] : n >= 1e6 ? [1e6, "M"] : [1e3, "k"];
  return `${(n / d).toFixed(1)}${s}`;
}

const unitOf = (e: Pick<Experiment, "profile">, n: number) =>
  `${n} ${wordsOf(e.profile).usageUnit}${n === 1 ? "" : "s"}`;

/** One total: its entries, its cost (how many record one), its tokens. */
export function totalText(e: Pick<Experiment, "profile">, t: Total): string {
  const cost =
    t.cost_usd === null
      ? "no cost recorded"
      : `${dollars(t.cost_usd)}${t.costed < t.entries ? ` (${t.costed} of ${t.entries} record a cost)` : ""}`;
  const parts = [
    t.input_tokens === null ? null : `${tokens(t.input_tokens)} in`,
    t.output_tokens === null ? null : `${tokens(t.output_tokens)} out`,
    t.cache_read_tokens === null ? null : `${tokens(t.cache_read_tokens)} cache read`,
  ].filter((p) => p !== null);
  return `${unitOf(e, t.entries)}, ${cost}, ${parts.length === 0 ? "no tokens recorded" : `tokens ${parts.join(" / ")}`}`;
}

/** Cost per success, or why there is none. */
export function perSuccessText(u: NonNullable<Experiment["usage"]>): string {
  if (u.cost_per_success !== null) return `${dollars(u.cost_per_success)} per success (${u.successes})`;
  return u.spent.cost_usd === null ? "cost per success: no cost recorded" : "cost per success: no success";
}

/** The experiment's usage in one line (null for the profiles whose evidence records none). */
export function usageLine(e: Pick<Experiment, "profile" | "usage">): string | null {
  const u = e.usage;
  if (u === null) return null;
  const s = u.spent;
  if (s.cost_usd === null && s.input_tokens === null && s.output_tokens === null && s.cache_read_tokens === null)
    return `not recorded (${unitOf(e, s.entries)})`;
  const same = JSON.stringify(s) === JSON.stringify(u.counted);
  return `spent${same ? " (all counted)" : ""}: ${totalText(e, s)}${same ? "" : ` · counted: ${totalText(e, u.counted)}`} · ${perSuccessText(u)}`;
}
