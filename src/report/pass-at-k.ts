// pass@k as text for the table and Markdown: every k when there are few, else the first five and
// the last (a log may plan up to 1,000 epochs; the JSON document holds every k).

import type { Experiment } from "../core/results.js";

const MAX_LISTED = 8;

export function passAtKText(m: Record<string, number>, sep: string): string {
  const all = Object.entries(m);
  const shown = (xs: [string, number][]) => xs.map(([k, v]) => `k=${k} ${v.toFixed(3)}`);
  if (all.length <= MAX_LISTED) return shown(all).join(sep);
  return [...shown(all.slice(0, 5)), `… ${all.length - 6} more k (--format json) …`, ...shown(all.slice(-1))].join(sep);
}

/** What pass@k and pass^k assume (§13.7 "words"), said once in a report that shows either. */
export const MISSING_AT_RANDOM =
  "pass@k, pass^k: they assume an attempt's absence (an infrastructure error, an excluded trial) is unrelated to its outcome (missing at random)";

/** Whether an experiment holds a pass@k or pass^k figure (of any kind). */
export function hasPassK(e: Experiment): boolean {
  const any = (m: Record<string, { pass_at_k: unknown; pass_hat_k: unknown }> | null) =>
    Object.values(m ?? {}).some((x) => x.pass_at_k !== null || x.pass_hat_k !== null);
  return e.pass_hat_k !== null || any(e.rewards) || any(e.inspect);
}
