// pass@k as text for the table and Markdown: every k when there are few, else the first five and
// the last (a log may plan up to 1,000 epochs; the JSON document holds every k).

const MAX_LISTED = 8;

export function passAtKText(m: Record<string, number>, sep: string): string {
  const all = Object.entries(m);
  const shown = (xs: [string, number][]) => xs.map(([k, v]) => `k=${k} ${v.toFixed(3)}`);
  if (all.length <= MAX_LISTED) return shown(all).join(sep);
  return [...shown(all.slice(0, 5)), `… ${all.length - 6} more k (--format json) …`, ...shown(all.slice(-1))].join(sep);
}
