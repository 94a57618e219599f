// What changed, by unit, in the text formats of a comparison (issue 37): the table lists the first
// few changes per headline metric, Markdown and HTML a unit × run matrix of the changed units (two
// runs: BASE and HEAD with the change and each side's evidence); the JSON holds every one. Every
// unit id and path comes from evidence: each passes the format's escaping.

import type { UnitMatrix } from "../../core/compare/changes.js";
import type { ExperimentComparison, MetricComparison, UnitChange } from "../../core/compare/schema.js";
import { forTerminal, plural, terminalText } from "../../core/text.js";
import { esc } from "../html/escape.js";
import { md, metricName, number, signOf } from "./shared.js";

/** Changes the table shows per metric. */
export const CHANGES_SHOWN = 10;
/** Rows a Markdown matrix shows (a step summary or a PR comment has a size limit). */
export const MARKDOWN_ROWS = 50;
/** Rows an HTML matrix shows (a page stays readable in a browser). */
export const HTML_ROWS = 500;

type UnitSide = NonNullable<UnitChange["base"]>;
type Unit = NonNullable<MetricComparison["paired"]>["unit"];

const LABELS: Record<UnitChange["change"], string> = {
  pass_to_fail: "pass→fail",
  fail_to_pass: "fail→pass",
  moved: "moved",
  checksum_changed: "task_checksum changed",
  only_base: "only in BASE",
  only_head: "only in HEAD",
};

const signed = (v: number) => `${signOf(v)}${number(Math.abs(v))}`;

/** A side's value, with what it is made of: a Harbor task's trials, and the 0s no score earned. */
function valueText(s: UnitSide | null): string {
  if (s === null) return "—";
  if (s.trials > 1)
    return `${number(s.value)} (mean of ${s.trials} trials${s.zeroed > 0 ? `, ${s.zeroed} counted 0 without a valid score` : ""})`;
  return `${number(s.value)}${s.zeroed > 0 ? " (counted 0 without a valid score)" : ""}`;
}

/** Where a side's evidence is: a Harbor task's first trial folder names how many more there are. */
function evidenceText(s: UnitSide | null): string {
  if (s === null) return "—";
  if (s.evidence === null) return "not recorded";
  return s.trials > 1 ? `${s.evidence} (first of ${s.trials} trials)` : s.evidence;
}

/** A change's kind, with HEAD − BASE where the unit is one on both sides. */
const changeText = (c: UnitChange) => (c.change === "moved" ? `moved ${signed(c.delta!)}` : LABELS[c.change]);

/** How many units changed, by kind: "2 pass→fail, 1 moved, 3 only in BASE". */
function changeSummary(changes: readonly UnitChange[]): string {
  const counts = new Map<UnitChange["change"], number>();
  for (const c of changes) counts.set(c.change, (counts.get(c.change) ?? 0) + 1);
  return (Object.keys(LABELS) as UnitChange["change"][])
    .flatMap((k) => (counts.has(k) ? [`${counts.get(k)} ${LABELS[k]}`] : []))
    .join(", ");
}

/** The headline metrics that list changes, with their unit. */
const listed = (e: ExperimentComparison) =>
  e.metrics.flatMap((m) =>
    m.changes === null || m.paired === null ? [] : [{ metric: m.metric, unit: m.paired.unit, changes: m.changes }],
  );
const changed = (e: ExperimentComparison) => listed(e).filter((m) => m.changes.length > 0);

/** The headline metrics where no unit changed, said once per experiment (a Harbor job may have many reward keys); null: none. */
function unchangedLine(e: ExperimentComparison): string | null {
  const same = listed(e).filter((m) => m.changes.length === 0);
  if (same.length === 0) return null;
  const units = [...new Set(same.map((m) => m.unit))].join(" or ");
  return `nothing changed, by ${units}, in ${same.map((m) => metricName(m.metric)).join(", ")}: every ${units} both runs count has the same value, and neither counts one the other does not`;
}

const more = (n: number, unit: Unit) =>
  n > 0 ? `and ${plural(n, `more changed ${unit}`)} (complete in --format json)` : null;

/** The table's lines: per headline metric, a count by kind and the first CHANGES_SHOWN changes with each side's value and evidence. */
export function* changesTable(e: ExperimentComparison): Generator<string> {
  const same = unchangedLine(e);
  if (same !== null) yield `  ${terminalText(same)}\n`;
  for (const { metric, unit, changes } of changed(e)) {
    yield `  what changed, by ${unit}: ${forTerminal(metricName(metric))}: ${terminalText(changeSummary(changes))}\n`;
    for (const c of changes.slice(0, CHANGES_SHOWN)) {
      yield `    ${forTerminal(c.unit)} ${changeText(c)}: BASE ${terminalText(valueText(c.base))} → HEAD ${terminalText(valueText(c.head))}\n`;
      yield `      BASE ${forTerminal(evidenceText(c.base))} · HEAD ${forTerminal(evidenceText(c.head))}\n`;
    }
    const rest = more(changes.length - CHANGES_SHOWN, unit);
    if (rest !== null) yield `    ${rest}\n`;
  }
}

/** Markdown: per headline metric a heading, the count by kind, and the changed units as a unit × run matrix (BASE, HEAD, the change, evidence). */
export function* changesMarkdown(e: ExperimentComparison): Generator<string> {
  const same = unchangedLine(e);
  if (same !== null) yield `\n${md(same)}.\n`;
  for (const { metric, unit, changes } of changed(e)) {
    yield `\n#### What changed, by ${unit}: ${md(metricName(metric))}\n\n${md(changeSummary(changes))}.\n`;
    yield `\n| ${unit} | change | BASE | HEAD | evidence (BASE) | evidence (HEAD) |\n|---|---|---:|---:|---|---|\n`;
    for (const c of changes.slice(0, MARKDOWN_ROWS))
      yield `| ${md(c.unit)} | ${md(changeText(c))} | ${md(valueText(c.base))} | ${md(valueText(c.head))} | ${md(evidenceText(c.base))} | ${md(evidenceText(c.head))} |\n`;
    const rest = more(changes.length - MARKDOWN_ROWS, unit);
    if (rest !== null) yield `\n${md(rest)}.\n`;
  }
}

const h = (s: string) => esc(terminalText(s));

/** HTML: per headline metric a heading, the count by kind, and the changed units as a unit × run matrix (BASE, HEAD, the change, evidence). */
export function* changesHtml(e: ExperimentComparison): Generator<string> {
  const same = unchangedLine(e);
  if (same !== null) yield `<p>${h(same)}.</p>\n`;
  for (const { metric, unit, changes } of changed(e)) {
    yield `<h3>What changed, by ${unit}: ${h(metricName(metric))}</h3>\n<p>${h(changeSummary(changes))}.</p>\n`;
    yield `<table><thead><tr><th>${unit}</th><th>change</th><th>BASE</th><th>HEAD</th><th>evidence (BASE)</th><th>evidence (HEAD)</th></tr></thead><tbody>\n`;
    for (const c of changes.slice(0, HTML_ROWS))
      yield `<tr><td>${h(c.unit)}</td><td>${h(changeText(c))}</td><td class="n">${h(valueText(c.base))}</td><td class="n">${h(valueText(c.head))}</td><td>${h(evidenceText(c.base))}</td><td>${h(evidenceText(c.head))}</td></tr>\n`;
    yield "</tbody></table>\n";
    const rest = more(changes.length - HTML_ROWS, unit);
    if (rest !== null) yield `<p>${h(rest)}.</p>\n`;
  }
}

const cell = (v: number | null) => (v === null ? "—" : number(v));
/** A matrix row's unit, marked where its values are of different tasks. */
const rowName = (r: UnitMatrix["rows"][number]) =>
  r.same_task ? r.unit : `${r.unit} (task_checksum differs between runs: not one task)`;
const notShown = (m: UnitMatrix, unit: Unit) =>
  m.total > m.rows.length
    ? `${plural(m.total - m.rows.length, `more ${unit}`)} not shown (those whose values differ least)`
    : null;

/** A unit × run matrix (many runs) in Markdown: a row per unit, a column per run; — where a run does not count the unit. */
export function* matrixMarkdown(m: UnitMatrix, unit: Unit): Generator<string> {
  yield `\n| ${unit} | ${m.labels.map(md).join(" | ")} |\n|---|${m.labels.map(() => "---:").join("|")}|\n`;
  for (const r of m.rows) yield `| ${md(rowName(r))} | ${r.values.map(cell).join(" | ")} |\n`;
  const rest = notShown(m, unit);
  if (rest !== null) yield `\n${md(rest)}.\n`;
}

/** A unit × run matrix (many runs) as an HTML table: a row per unit, a column per run; — where a run does not count the unit. */
export function* matrixHtml(m: UnitMatrix, unit: Unit): Generator<string> {
  yield `<table><thead><tr><th>${unit}</th>${m.labels.map((l) => `<th>${h(l)}</th>`).join("")}</tr></thead><tbody>\n`;
  for (const r of m.rows)
    yield `<tr><td>${h(rowName(r))}</td>${r.values.map((v) => `<td class="n">${cell(v)}</td>`).join("")}</tr>\n`;
  yield "</tbody></table>\n";
  const rest = notShown(m, unit);
  if (rest !== null) yield `<p>${h(rest)}.</p>\n`;
}
