// A trend over runs (issue 37) as each text format shows it, from its JSON (core/compare/trend-schema.ts):
// the slope per run with its interval and verdict, the runs in order with their values, what the
// interval assumes, and what was left out. Every run name, time and note is escaped for its format.

import type { Trend } from "../../core/compare/trend-schema.js";
import { forTerminal, plural, terminalText } from "../../core/text.js";
import { esc } from "../html/escape.js";
import { md, pct, points } from "./shared.js";

/** A run's value, "—" where it holds none. */
const pctOr = (v: number | null) => (v === null ? "—" : pct(v));

const VERDICTS: Record<Trend["verdict"], string> = {
  degrading: "degrading (the interval lies below 0)",
  improving: "improving (the interval lies above 0)",
  "no trend detected": "no trend detected (the interval holds 0, which is no evidence the figure is steady)",
  "not estimated": "not estimated",
};

/** What the slope is over: "12 tasks", "40 samples in 8 clusters", "24 trials in 6 tasks". */
function over(t: Trend): string {
  const units = plural(t.units, t.unit);
  return t.clusters === t.units ? units : `${units} in ${plural(t.clusters, t.unit === "sample" ? "cluster" : "task")}`;
}

/** The trend in one sentence: the slope per run, its interval and the verdict, or why there is none. */
export function trendSentence(t: Trend): string {
  const order = t.clock === null ? "" : ` in start-time order (${t.clock === "utc" ? "UTC" : "local times, no zone"})`;
  const head = `${t.metric} trend over ${plural(t.runs.length, "run")}${order}`;
  if (t.slope === null) return `${head}: not estimated: ${t.reason}`;
  const slope = `${points(t.slope)} per run within ${over(t)}`;
  if (t.interval === null) return `${head}: ${slope}; no interval (${t.reason}): ${VERDICTS[t.verdict]}`;
  const range = `95% interval [${points(t.interval.lo)}, ${points(t.interval.hi)}] per run (cluster-robust, t on ${t.df} df)`;
  return `${head}: ${slope}, ${range}: ${VERDICTS[t.verdict]}`;
}

const HEADINGS = ["#", "started", "run", "value"];
/** What `value` is, said once under the rows. */
const valueWords = (t: Trend) =>
  `value: each run's mean over the ${t.unit}s of the trend it holds; # its place in the order (runs started at the same time share one)`;

/** Each run as a row (unescaped): place from 1, start time, run, value. */
const rows = (t: Trend): string[][] =>
  t.runs.map((r) => [
    r.position === null ? "—" : String(r.position + 1),
    r.started_at ?? "no start time",
    r.run,
    pctOr(r.value),
  ]);

/** The trend as terminal lines (no indent, no newline), names and notes made safe for a terminal. */
export function trendLines(t: Trend): string[] {
  const cells = rows(t).map(([p, s, r, v]) => [p!, forTerminal(s!), forTerminal(r!), v!]);
  const widths = HEADINGS.map((h, i) => Math.max(h.length, ...cells.map((c) => [...c[i]!].length)) + 2);
  const line = (c: readonly string[]) =>
    c.map((x, i) => (i === c.length - 1 ? x : x + " ".repeat(widths[i]! - [...x].length))).join("");
  return [
    terminalText(trendSentence(t)),
    ...[HEADINGS, ...cells].map((c) => `  ${line(c)}`),
    `  ${valueWords(t)}`,
    `  assumes: ${t.assumes}`,
    ...t.notes.map((n) => `  note: ${terminalText(n)}`),
  ];
}

/** The trend as Markdown: the sentence, a table of the runs, what it assumes, the notes. */
export function trendMd(t: Trend): string {
  const table = rows(t).map(([p, s, r, v]) => `| ${p} | ${md(s!)} | ${md(r!)} | ${v} |`);
  return [
    `**${md(trendSentence(t))}**`,
    "",
    `| ${HEADINGS.join(" | ")} |`,
    "|---:|---|---|---:|",
    ...table,
    "",
    `${md(valueWords(t))}. Assumes: ${md(t.assumes)}.`,
    ...t.notes.map((n) => `\nNote: ${md(n)}`),
    "",
  ].join("\n");
}

const h = (s: string) => esc(terminalText(s));

/** The trend as an HTML fragment (a paragraph, a table of the runs, what it assumes, the notes). */
export function trendHtml(t: Trend): string {
  const body = rows(t).map(
    ([p, s, r, v]) => `<tr><td class="n">${p}</td><td>${h(s!)}</td><td>${h(r!)}</td><td class="n">${v}</td></tr>`,
  );
  return [
    `<p class="${t.verdict === "degrading" ? "reg" : "trend"}">${h(trendSentence(t))}</p>`,
    `<table><thead><tr>${HEADINGS.map((c) => `<th>${c}</th>`).join("")}</tr></thead><tbody>`,
    ...body,
    "</tbody></table>",
    `<p><small>${h(valueWords(t))}. Assumes: ${h(t.assumes)}.</small></p>`,
    ...t.notes.map((n) => `<p>Note: ${h(n)}</p>`),
    "",
  ].join("\n");
}
