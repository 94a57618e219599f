// A harness's own figure as the human formats show it (issue 40): a count (Terminal-Bench's
// n_resolved, n_unresolved…) as the whole number it is, any other figure to 3 decimals. The JSON
// document keeps every value exact; only what a person reads is rounded.

/** A metric that counts units: its last part is n_…, …_count, count or total. */
const COUNT = /(^|\/)(n_[^/]*|[^/]*_count|count|total)$/;

/** The figure as text: a count whole, else 3 decimals; NaN and ±Infinity (strings in a document) as they are. */
export function claimedText(metric: string, v: number | string): string {
  if (typeof v === "string") return v;
  return COUNT.test(metric) && Number.isInteger(v) ? String(v) : v.toFixed(3);
}

/** As claimedText, with `none` for a figure that is not there. */
export const claimedOr = (metric: string, v: number | string | null, none: string): string =>
  v === null ? none : claimedText(metric, v);
