// A comparison as one self-contained HTML page: no script, no request of any kind (the CSP says
// so to the browser too), every name and note escaped. A table of differences with their intervals.
import type { Comparison, ExperimentComparison } from "../../core/compare/schema.js";
import { terminalText } from "../../core/text.js";
import { esc } from "../html/escape.js";
import { capped, difference, figure, interval, metricName, pairedLine, withoutInterval } from "./shared.js";

/** Text as HTML shows it literally: hidden characters (controls, bidi overrides) escaped as on a terminal, markup as entities. */
export const h = (s: string): string => esc(terminalText(s));

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:1.5rem;max-width:70rem;color:#1b1b1b;background:#fff}
table{border-collapse:collapse;margin:.5rem 0;width:100%}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}.reg{color:#b35806;font-weight:600}.ok{color:#1b7837}
@media (prefers-color-scheme:dark){body{color:#e8e8e8;background:#161616}th,td{border-color:#555}.reg{color:#fdb863}.ok{color:#a6dba0}}
@media print{body{margin:0}}`;

function* experiment(e: ExperimentComparison): Generator<string> {
  const title = e.base === e.head ? h(e.base) : `${h(e.base)} → ${h(e.head)}`;
  yield `<section><h2>${title} <small>(${h(e.profile.head ?? "no profile")})</small></h2>\n`;
  yield "<table><thead><tr><th>metric</th><th>BASE</th><th>HEAD</th><th>HEAD − BASE</th><th>95% interval (Newcombe)</th><th></th></tr></thead><tbody>\n";
  for (const m of e.metrics)
    yield `<tr><td>${h(metricName(m.metric))}</td><td class="n">${h(figure(m.base))}</td><td class="n">${h(figure(m.head))}</td><td class="n">${h(difference(m))}</td><td>${h(interval(m))}</td><td>${m.regression ? '<span class="reg">regression</span>' : ""}</td></tr>\n`;
  yield "</tbody></table>\n";
  for (const [note, metrics] of withoutInterval(e)) yield `<p>No interval for ${metrics.map((m) => h(metricName(m))).join(", ")}: ${h(note)}.</p>\n`;
  for (const p of e.paired) {
    yield `<p>Paired ${h(metricName(p.metric))}: ${h(pairedLine(p))}</p>\n`;
    for (const [label, list] of [["pass → fail", p.flipped.pass_to_fail], ["fail → pass", p.flipped.fail_to_pass]] as const) {
      if (list.length === 0) continue;
      const c = capped(list);
      yield `<p>${label}: ${c.shown.map(h).join(", ")}${c.more > 0 ? ` and ${c.more} more (the JSON lists all)` : ""}</p>\n`;
    }
  }
  if (e.paired_note !== null) yield `<p>Paired: ${h(e.paired_note)}</p>\n`;
  if (e.claimed.length > 0) {
    yield "<table><thead><tr><th>the harness claimed</th><th>BASE</th><th>HEAD</th><th>HEAD − BASE</th></tr></thead><tbody>\n";
    for (const c of e.claimed)
      yield `<tr><td>${h(c.metric)}</td><td class="n">${h(String(c.base ?? "—"))}</td><td class="n">${h(String(c.head ?? "—"))}</td><td class="n">${c.difference === null ? "—" : c.difference.toFixed(4)}</td></tr>\n`;
    yield "</tbody></table>\n";
  }
  yield "</section>\n";
}

export function* render(doc: Comparison): Generator<string> {
  yield `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">\n`;
  yield `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>assay compare: ${h(doc.base.file)} → ${h(doc.head.file)}</title>\n<style>${STYLE}</style></head><body>\n`;
  yield `<h1>assay compare</h1>\n<p>BASE ${h(doc.base.file)} (assay ${h(doc.base.tool_version)}) → HEAD ${h(doc.head.file)} (assay ${h(doc.head.tool_version)}), scoring version ${doc.base.scoring_version}</p>\n`;
  yield doc.regressions.length === 0
    ? '<p class="ok">No regression: no figure dropped with a 95% interval that excludes 0.</p>\n'
    : `<p class="reg">${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}: ${doc.regressions.map((r) => `${h(r.head)} ${h(metricName(r.metric))}`).join(", ")}</p>\n`;
  for (const e of doc.experiments) yield* experiment(e);
  if (doc.only_base.length > 0) yield `<p>Only in BASE (not compared): ${doc.only_base.map(h).join(", ")}</p>\n`;
  if (doc.only_head.length > 0) yield `<p>Only in HEAD (not compared): ${doc.only_head.map(h).join(", ")}</p>\n`;
  for (const n of doc.notes) yield `<p><em>${h(n)}</em></p>\n`;
  yield "</body></html>\n";
}
