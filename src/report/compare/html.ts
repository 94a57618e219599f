// A comparison as one self-contained HTML page: no script, no request of any kind (the CSP says
// so to the browser too), every name and note escaped. Two runs: a table of differences with their
// intervals and each headline metric's paired difference. Several: per ranking a forest plot of
// the runs' intervals (inline SVG, drawn here: the page runs nothing) and the matrix of pairs.
import type {
  Comparison,
  ExperimentComparison,
  RankedExperiment,
  Ranking,
  RankingDocument,
} from "../../core/compare/schema.js";
import { uncomparedPairs } from "../../core/compare/compare.js";
import { uncompared } from "../../core/compare/rank.js";
import { terminalText } from "../../core/text.js";
import { esc } from "../html/escape.js";
import { trendHtml } from "./trend.js";
import { claimedOr } from "../claimed.js";
import { changesHtml, HTML_ROWS, matrixHtml } from "./changes.js";
import {
  capped,
  difference,
  differenceMethods,
  figure,
  interval,
  headlineLine,
  mcnemarLine,
  metricName,
  pairedLine,
  pairedMethod,
  rankedFigure,
  rankedName,
  rankedPair,
  rankedUsageRows,
  rankingWords,
  USAGE_HEAD,
  MATCH_WORDS,
  who,
  startedText,
  memberOf,
  duplicatesLine,
  usageRows,
  USAGE_NOTE,
  withoutInterval,
} from "./shared.js";

/** Text as HTML shows it literally: hidden characters (controls, bidi overrides) escaped as on a terminal, markup as entities. */
export const h = (s: string): string => esc(terminalText(s));

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:1.5rem;max-width:70rem;color:#1b1b1b;background:#fff}
table{border-collapse:collapse;margin:.5rem 0;width:100%}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}svg.forest{max-width:44rem;width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:currentColor}
svg .axis{stroke:#999}svg .ci{stroke:#0072B2;stroke-width:2}svg .pt{fill:#0072B2}svg .rk{fill:none;stroke:#D55E00;stroke-width:1.5}.reg{color:#b35806;font-weight:600}.ok{color:#1b7837}
@media (prefers-color-scheme:dark){body{color:#e8e8e8;background:#161616}th,td{border-color:#555}.reg{color:#fdb863}.ok{color:#a6dba0}}
@media print{body{margin:0}}`;

function* experiment(e: ExperimentComparison): Generator<string> {
  const title = e.base === e.head ? h(e.base) : `${h(e.base)} → ${h(e.head)}`;
  yield `<section><h2>${title} <small>(${h(e.profile.head ?? "no profile")})</small></h2>\n`;
  yield `<p>${h(MATCH_WORDS[e.match])}; BASE ${h(who(e.identity.base))}, started ${h(startedText(e.identity.base))}; HEAD ${h(who(e.identity.head))}, started ${h(startedText(e.identity.head))}.</p>\n`;
  // The regression column only where a figure regressed: a column every row leaves empty says nothing (issue 40).
  const regressed = e.metrics.some((m) => m.regression);
  yield `<table><thead><tr><th>metric</th><th>BASE</th><th>HEAD</th><th>HEAD − BASE</th><th>95% interval</th>${regressed ? "<th>regression</th>" : ""}</tr></thead><tbody>\n`;
  for (const m of e.metrics)
    yield `<tr><td>${h(metricName(m.metric))}</td><td class="n">${h(figure(m.base))}</td><td class="n">${h(figure(m.head))}</td><td class="n">${h(difference(m))}</td><td>${h(interval(m))}</td>${regressed ? `<td>${m.regression ? '<span class="reg">regression</span>' : ""}</td>` : ""}</tr>\n`;
  const spend = usageRows(e);
  for (const [what, b, hd] of spend)
    yield `<tr><td>${what}</td><td class="n">${h(b)}</td><td class="n">${h(hd)}</td><td></td><td></td>${regressed ? "<td></td>" : ""}</tr>\n`;
  yield "</tbody></table>\n";
  if (spend.length > 0) yield `<p>${h(USAGE_NOTE)}.</p>\n`;
  const methods = differenceMethods(e);
  if (methods !== null) yield `<p>${h(methods)}.</p>\n`;
  for (const [note, metrics] of withoutInterval(e))
    yield `<p>No interval for ${metrics.map((m) => h(metricName(m))).join(", ")}: ${h(note)}.</p>\n`;
  const method = pairedMethod(e);
  if (method !== null) yield `<p>Paired (${h(method)}):</p>\n<ul>\n`;
  for (const m of e.metrics) {
    const p = m.paired;
    if (p === null) continue;
    yield `<li>${h(metricName(m.metric))} ${h(pairedLine(p))}${p.unpaired.length > 0 ? `; pairing: ${h(p.unpaired.join("; "))}` : ""}`;
    const headline = headlineLine(m);
    if (headline !== null) yield `<br>${h(headline)}`;
    if (p.mcnemar !== null) {
      yield `<br>${h(mcnemarLine(p.mcnemar, p))}`;
      for (const [label, list] of [
        ["pass → fail", p.mcnemar.flipped.pass_to_fail],
        ["fail → pass", p.mcnemar.flipped.fail_to_pass],
      ] as const) {
        if (list.length === 0) continue;
        const c = capped(list);
        yield `<br>${label}: ${c.shown.map(h).join(", ")}${c.more > 0 ? ` and ${c.more} more (the JSON lists all)` : ""}`;
      }
    }
    yield "</li>\n";
  }
  if (method !== null) yield "</ul>\n";
  yield* changesHtml(e);
  if (e.claimed.length > 0) {
    yield "<table><thead><tr><th>the harness claimed</th><th>BASE</th><th>HEAD</th><th>HEAD − BASE</th></tr></thead><tbody>\n";
    for (const c of e.claimed)
      yield `<tr><td>${h(c.metric)}</td><td class="n">${h(claimedOr(c.metric, c.base, "—"))}</td><td class="n">${h(claimedOr(c.metric, c.head, "—"))}</td><td class="n">${c.difference === null ? "—" : c.difference.toFixed(4)}</td></tr>\n`;
    yield "</tbody></table>\n";
  }
  yield "</section>\n";
}

const HEAD = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n`;

/**
 * Each run's headline and its 95% interval (a dot on a line) and its ranked figure (a diamond) on
 * one axis (0 to 1, wider for a reward beyond it), best first: a forest plot. The interval is the
 * headline's own: the contract defines none for the ranked figure.
 */
function forest(r: Ranking): string {
  const [left, width, row] = [240, 360, 22];
  const ends = r.runs.flatMap((run) => [
    run.value ?? 0,
    run.headline.value ?? 0,
    run.interval?.lo ?? 0,
    run.interval?.hi ?? 0,
  ]);
  const [lo, hi] = [Math.min(0, ...ends), Math.max(1, ...ends)];
  const x = (v: number) => (left + ((v - lo) / (hi - lo)) * width).toFixed(1);
  const height = row * r.runs.length + 30;
  const rows = r.runs.map((run, i) => {
    const y = 14 + i * row;
    const ci =
      run.interval === null
        ? ""
        : `<line class="ci" x1="${x(run.interval.lo)}" x2="${x(run.interval.hi)}" y1="${y}" y2="${y}"/>`;
    const pt = run.headline.value === null ? "" : `<circle class="pt" cx="${x(run.headline.value)}" cy="${y}" r="4"/>`;
    const cx = run.value === null ? 0 : Number(x(run.value));
    const rk =
      run.value === null
        ? ""
        : `<polygon class="rk" points="${cx},${y - 6} ${cx + 5},${y} ${cx},${y + 6} ${cx - 5},${y}"/>`;
    const label = run.run.length > 36 ? `…${run.run.slice(-35)}` : run.run;
    return `<text x="0" y="${y + 4}">${h(`${run.group ?? "—"}  ${label}`)}</text>${ci}${pt}${rk}`;
  });
  const axisY = height - 14;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const t = lo + f * (hi - lo);
    return `<line class="axis" x1="${x(t)}" x2="${x(t)}" y1="${axisY - 4}" y2="${axisY}"/><text x="${x(t)}" y="${axisY + 12}" text-anchor="middle">${Number((t * 100).toFixed(1))}%</text>`;
  });
  const label = `${r.metric}: each run's headline and its 95% interval (dot and line) and its ranked figure, the mean over ${r.units} paired units (diamond), best first`;
  return `<svg class="forest" viewBox="0 0 ${left + width + 20} ${height + 2}" role="img" aria-label="${h(label)}"><line class="axis" x1="${x(lo)}" x2="${x(hi)}" y1="${axisY}" y2="${axisY}"/>${ticks.join("")}${rows.join("")}</svg>\n<p><small>● headline and its 95% interval · ◆ ranked figure</small></p>\n`;
}

/** Every pair of ranked runs as a matrix in ranking order: row − column in points, the test and Holm's p. */
function* matrix(e: RankedExperiment): Generator<string> {
  const runs = e.ranking.runs.filter((r) => r.group !== null).map((r) => r.run);
  if (runs.length === 0) return;
  const cell = (row: string, col: string) => {
    const p = e.ranking.pairs.find((q) => (q.a === row && q.b === col) || (q.a === col && q.b === row));
    if (p === undefined) return "—";
    const f = rankedPair({ ...p, mean_diff: p.mean_diff === null ? null : p.a === row ? -p.mean_diff : p.mean_diff });
    return `${h(f.diff)}<br><small>${h(f.test)}, p (Holm) ${h(f.holm)}</small>`;
  };
  yield `<table><thead><tr><th>row − column (${h(rankedName(e))})</th>${runs.map((r) => `<th>${h(r)}</th>`).join("")}</tr></thead><tbody>\n`;
  for (const row of runs)
    yield `<tr><th>${h(row)}</th>${runs.map((col) => `<td class="n">${row === col ? "" : cell(row, col)}</td>`).join("")}</tr>\n`;
  yield "</tbody></table>\n";
}

function* ranked(e: RankedExperiment, before?: RankedExperiment): Generator<string> {
  const r = e.ranking;
  yield `<section><h2>${h(e.experiment)} <small>(${h(e.profile ?? "no profile")})</small>: ${h(metricName(r.metric))}</h2>\n`;
  const dupes = duplicatesLine(e.duplicates);
  yield `<p>${[MATCH_WORDS[e.match], ...rankingWords(e), ...(dupes === null ? [] : [dupes])].map((w) => `${h(w)}.`).join("<br>")}</p>\n`;
  yield forest(r);
  yield `<table><thead><tr><th>group</th><th>run</th><th>agent / model</th><th>started</th><th>${h(rankedName(e))}</th><th>headline</th><th>headline 95% interval</th></tr></thead><tbody>\n`;
  for (const x of r.runs)
    yield `<tr><td class="n">${x.group ?? "—"}</td><td>${h(x.run)}</td><td>${h(who(memberOf(e, x.run)))}</td><td>${h(startedText(memberOf(e, x.run)))}</td><td class="n">${h(rankedFigure(x).value)}</td><td class="n">${h(rankedFigure(x).headline)}</td><td>${h(rankedFigure(x).interval)}</td></tr>\n`;
  yield "</tbody></table>\n";
  yield* matrix(e);
  if (e.matrix.rows.length > 0) yield* matrixHtml({ ...e.matrix, rows: e.matrix.rows.slice(0, HTML_ROWS) }, e.unit);
  if (e.trend !== null) yield trendHtml(e.trend);
  for (const n of e.notes) yield `<p>Note: ${h(n)}</p>\n`;
  const spend = rankedUsageRows(e, before);
  if (spend.length > 0) {
    yield `<table><thead><tr>${USAGE_HEAD.map((c) => `<th>${c}</th>`).join("")}</tr></thead><tbody>\n`;
    for (const [run, ...rest] of spend)
      yield `<tr><td>${h(run)}</td>${rest.map((c) => `<td class="n">${h(c)}</td>`).join("")}</tr>\n`;
    yield `</tbody></table>\n<p>${h(USAGE_NOTE)}.</p>\n`;
  }
  yield "</section>\n";
}

function* rankingDocument(doc: RankingDocument): Generator<string> {
  const what = doc.runs.length === 1 ? `the runs within ${doc.runs[0]!.file}` : `${doc.runs.length} documents`;
  yield `${HEAD}<title>assay compare: ${h(what)}</title>\n<style>${STYLE}</style></head><body>\n`;
  yield `<h1>assay compare</h1>\n<p>${h(what)}, R1 ${doc.runs.length === 1 ? "each group's first" : h(doc.runs[0]!.file)}, scoring version ${doc.runs[0]!.scoring_version}</p>\n`;
  const nothing = uncompared(doc);
  if (nothing.length > 0)
    yield `<p class="reg">Nothing compared (--fail-on regression fails): ${nothing.map(h).join("; ")}</p>\n`;
  if (doc.experiments.length > 0)
    yield doc.regressions.length === 0
      ? "<p class=\"ok\">No regression: no run significantly below its group's R1 after Holm's adjustment.</p>\n"
      : `<p class="reg">${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}: ${doc.regressions.map((r) => `${h(r.run)} ${h(r.experiment)} ${h(metricName(r.metric))}`).join(", ")}</p>\n`;
  for (const [i, e] of doc.experiments.entries()) yield* ranked(e, doc.experiments[i - 1]);
  for (const u of doc.unscored) {
    yield `<section><h2>${h(u.experiment)}: not ranked</h2>\n<p>${h(MATCH_WORDS[u.match])}; ${h(u.reason)}.</p>\n<table><thead><tr><th>run</th><th>agent / model</th><th>started</th></tr></thead><tbody>\n`;
    for (const m of u.members)
      yield `<tr><td>${h(m.run)}</td><td>${h(who(m.identity))}</td><td>${h(startedText(m.identity))}</td></tr>\n`;
    yield "</tbody></table></section>\n";
  }
  if (doc.single.length > 0)
    yield `<p>${doc.runs.length === 1 ? "Alone in its group" : "In one run only"} (not ranked): ${doc.single.map(h).join(", ")}</p>\n`;
  if (doc.unranked.length > 0)
    yield `<p>Held but without a figure (not ranked): ${doc.unranked.map((u) => h(`${u.run}: ${u.experiment} ${u.metric}`)).join(", ")}</p>\n`;
  for (const n of doc.notes) yield `<p><em>${h(n)}</em></p>\n`;
  yield "</body></html>\n";
}

export function* render(doc: Comparison | RankingDocument): Generator<string> {
  if (doc.format === "assay.compare-runs/1") return yield* rankingDocument(doc);
  yield `${HEAD}<title>assay compare: ${h(doc.base.file)} → ${h(doc.head.file)}</title>\n<style>${STYLE}</style></head><body>\n`;
  yield `<h1>assay compare</h1>\n<p>BASE ${h(doc.base.file)} (assay ${h(doc.base.tool_version)}) → HEAD ${h(doc.head.file)} (assay ${h(doc.head.tool_version)}), scoring version ${doc.base.scoring_version}</p>\n`;
  const nothing = uncomparedPairs(doc);
  if (nothing.length > 0)
    yield `<p class="reg">Nothing compared (--fail-on regression fails): ${nothing.map(h).join("; ")}</p>\n`;
  if (doc.experiments.length > 0)
    yield doc.regressions.length === 0
      ? '<p class="ok">No regression: no figure dropped beyond chance (the paired test where units pair, else the unpaired 95% interval).</p>\n'
      : `<p class="reg">${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}: ${doc.regressions.map((r) => `${h(r.head)} ${h(metricName(r.metric))}`).join(", ")}</p>\n`;
  for (const e of doc.experiments) yield* experiment(e);
  if (doc.only_base.length > 0) yield `<p>Only in BASE (not compared): ${doc.only_base.map(h).join(", ")}</p>\n`;
  if (doc.only_head.length > 0) yield `<p>Only in HEAD (not compared): ${doc.only_head.map(h).join(", ")}</p>\n`;
  for (const a of doc.ambiguous)
    yield `<p>Ambiguous by ${a.by} (not guessed, not compared): ${h(a.key)}: BASE ${a.base.map(h).join(", ")}; HEAD ${a.head.map(h).join(", ")}.</p>\n`;
  for (const n of doc.notes) yield `<p><em>${h(n)}</em></p>\n`;
  yield "</body></html>\n";
}
