// A comparison on a terminal. Every name from evidence or the file system passes forTerminal, and
// every note terminalText, so none reaches the terminal raw.
import type { Comparison, ExperimentComparison, RankedExperiment, RankingDocument } from "../../core/compare/schema.js";
import { uncomparedPairs } from "../../core/compare/compare.js";
import { uncompared } from "../../core/compare/rank.js";
import { forTerminal as name, terminalText as text } from "../../core/text.js";
import { trendLines } from "./trend.js";
import { changesTable } from "./changes.js";
import { layOut, wrapLines, type Column } from "../fit.js";
import { claimedOr } from "../claimed.js";
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

/**
 * A table in the width (fit.ts): names (the first column, and any headed "run", "a" or "b") and notes wrap; too
 * wide, what tells its rows apart (the runs, who ran them and when) goes on a line above the rest, else its rows stacked.
 */
function* columns(head: string[], rows: string[][], width: number, indent = "  "): Generator<string> {
  const names = new Set(["run", "a", "b", "agent / model", "headline 95% interval", "test"]);
  const above = new Set(["run", "a", "b", "agent / model", "started"]);
  const cols: Column[] = head.map((h, i) => ({
    head: h,
    wrap: i === 0 || names.has(h),
    weight: i === 0 ? 8 : 1,
    above: above.has(h),
  }));
  for (const l of layOut(cols, rows, width, indent)) yield `${l}\n`;
}

function* experiment(e: ExperimentComparison, width: number): Generator<string> {
  const title = e.base === e.head ? name(e.base) : `${name(e.base)} → ${name(e.head)}`;
  yield `\nexperiment ${title}   profile ${e.profile.base ?? "none"}${e.profile.head === e.profile.base ? "" : ` → ${e.profile.head ?? "none"}`}   ${MATCH_WORDS[e.match]}\n`;
  const [wb, wh] = [who(e.identity.base), who(e.identity.head)];
  if (wb !== "—" || wh !== "—")
    yield `  BASE ${name(wb)}, started ${name(startedText(e.identity.base))}; HEAD ${name(wh)}, started ${name(startedText(e.identity.head))}\n`;
  const rows = e.metrics.map((m) => [
    name(metricName(m.metric)),
    figure(m.base),
    figure(m.head),
    difference(m),
    interval(m),
    m.regression ? "REGRESSION" : "",
  ]);
  const spend = usageRows(e);
  // Spend beside the metrics, its own columns empty where a difference and interval would be.
  for (const [what, b, h] of spend) rows.push([what, b, h, "", "", ""]);
  yield* columns(["metric", "BASE", "HEAD", "HEAD − BASE", "95% interval", ""], rows, width);
  if (spend.length > 0) yield `  ${USAGE_NOTE}\n`;
  const methods = differenceMethods(e);
  if (methods !== null) yield `  ${methods}\n`;
  for (const [note, metrics] of withoutInterval(e))
    yield `  no interval for ${metrics.map((m) => name(metricName(m))).join(", ")}: ${text(note)}\n`;
  const method = pairedMethod(e);
  if (method !== null) yield `  paired (${method}):\n`;
  for (const m of e.metrics) {
    const p = m.paired;
    if (p === null) continue;
    yield `    ${name(metricName(m.metric))} ${text(pairedLine(p))}\n`;
    const headline = headlineLine(m);
    if (headline !== null) yield `      ${text(headline)}\n`;
    if (p.unpaired.length > 0) yield `      pairing: ${text(p.unpaired.join("; "))}\n`;
    if (p.mcnemar === null) continue;
    yield `      ${mcnemarLine(p.mcnemar, p)}\n`;
    for (const [label, list] of [
      ["pass→fail", p.mcnemar.flipped.pass_to_fail],
      ["fail→pass", p.mcnemar.flipped.fail_to_pass],
    ] as const) {
      if (list.length === 0) continue;
      const c = capped(list);
      yield `      ${label}: ${c.shown.map(name).join(", ")}${c.more > 0 ? ` and ${c.more} more (--format json lists all)` : ""}\n`;
    }
  }
  yield* changesTable(e);
  for (const c of e.claimed)
    yield `  ${name(c.metric)}: BASE ${claimedOr(c.metric, c.base, "none")}, HEAD ${claimedOr(c.metric, c.head, "none")}${c.difference === null ? "" : `, HEAD − BASE ${c.difference.toFixed(4)}`} (the harness's own figure; no interval)\n`;
}

function* ranked(e: RankedExperiment, width: number, before?: RankedExperiment): Generator<string> {
  const r = e.ranking;
  yield `\nexperiment ${name(e.experiment)}   profile ${e.profile ?? "none"}   ${name(metricName(r.metric))}   ${MATCH_WORDS[e.match]}\n`;
  for (const line of rankingWords(e)) yield `  ${line}\n`;
  const dupes = duplicatesLine(e.duplicates);
  if (dupes !== null) yield `  ${name(dupes)}\n`;
  yield* columns(
    ["group", "run", "agent / model", "started", rankedName(e), "headline", "headline 95% interval"],
    r.runs.map((x) => [
      x.group === null ? "—" : String(x.group),
      name(x.run),
      name(who(memberOf(e, x.run))),
      name(startedText(memberOf(e, x.run))),
      rankedFigure(x).value,
      rankedFigure(x).headline,
      text(rankedFigure(x).interval),
    ]),
    width,
  );
  if (r.pairs.length > 0)
    yield* columns(
      ["a", "b", "b − a", "test", "p", "p (Holm)"],
      r.pairs.map((p) => [
        name(p.a),
        name(p.b),
        rankedPair(p).diff,
        rankedPair(p).test,
        rankedPair(p).p,
        rankedPair(p).holm,
      ]),
      width,
    );
  if (e.trend !== null) for (const line of trendLines(e.trend)) yield `  ${line}\n`;
  for (const n of e.notes) yield `  note: ${text(n)}\n`;
  const spend = rankedUsageRows(e, before);
  if (spend.length > 0) {
    yield* columns(
      USAGE_HEAD,
      spend.map(([run, ...rest]) => [name(run), ...rest]),
      width,
    );
    yield `  ${USAGE_NOTE}\n`;
  }
}

function* rankingDocument(doc: RankingDocument, width: number): Generator<string> {
  yield doc.runs.length === 1
    ? `assay compare: the runs within ${name(doc.runs[0]!.file)}, grouped by name, recorded benchmark or task set (R1: each group's first)\n`
    : `assay compare: ${doc.runs.length} documents (R1 ${name(doc.runs[0]!.file)})\n`;
  const o = doc.runs[0]!.options;
  yield `all scored under scoring version ${doc.runs[0]!.scoring_version}, --invalid ${o.invalid}, --resource-bound ${o.resource_bound}, --errors ${o.errors}\n`;
  for (const [i, e] of doc.experiments.entries()) yield* ranked(e, width, doc.experiments[i - 1]);
  for (const u of doc.unscored) {
    yield `\nexperiment ${name(u.experiment)}   ${MATCH_WORDS[u.match]}   not ranked: ${text(u.reason)}\n`;
    yield* columns(
      ["run", "agent / model", "started"],
      u.members.map((m) => [name(m.run), name(who(m.identity)), name(startedText(m.identity))]),
      width,
    );
  }
  if (doc.single.length > 0)
    yield `\n${doc.runs.length === 1 ? "alone in its group" : "in one run only"} (not ranked): ${doc.single.map(name).join(", ")}\n`;
  if (doc.unranked.length > 0)
    yield `held but without a figure (not ranked): ${doc.unranked.map((u) => `${name(u.run)}: ${name(u.experiment)} ${u.metric}`).join(", ")}\n`;
  for (const n of doc.notes) yield `note: ${text(n)}\n`;
  const nothing = uncompared(doc);
  if (nothing.length > 0) yield `\nnothing compared (--fail-on regression fails): ${nothing.map(text).join("; ")}\n`;
  if (doc.experiments.length === 0) return; // nothing compared: said above, never "no regression"
  yield doc.regressions.length === 0
    ? "\nno regression: no run significantly below its group's R1 after Holm's adjustment\n"
    : `\n${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}: ${doc.regressions.map((r) => `${name(r.run)} ${name(r.experiment)} ${name(metricName(r.metric))}`).join(", ")}\n`;
}

/** The comparison on a terminal `width` columns wide (absent: lines as long as they come), every line fitted (fit.ts). */
export function* render(doc: Comparison | RankingDocument, o: { width?: number | undefined } = {}): Generator<string> {
  const width = o.width ?? Infinity;
  for (const piece of pieces(doc, width))
    yield width === Infinity ? piece : wrapLines(piece.slice(0, -1).split("\n"), width).join("\n") + "\n";
}

function* pieces(doc: Comparison | RankingDocument, width: number): Generator<string> {
  if (doc.format === "assay.compare-runs/1") return yield* rankingDocument(doc, width);
  yield `assay compare: BASE ${name(doc.base.file)} (assay ${name(doc.base.tool_version)}) → HEAD ${name(doc.head.file)} (assay ${name(doc.head.tool_version)})\n`;
  const o = doc.base.options;
  yield `both scored under scoring version ${doc.base.scoring_version}, --invalid ${o.invalid}, --resource-bound ${o.resource_bound}, --errors ${o.errors}\n`;
  for (const e of doc.experiments) yield* experiment(e, width);
  if (doc.only_base.length > 0) yield `\nonly in BASE (not compared): ${doc.only_base.map(name).join(", ")}\n`;
  if (doc.only_head.length > 0) yield `\nonly in HEAD (not compared): ${doc.only_head.map(name).join(", ")}\n`;
  for (const a of doc.ambiguous)
    yield `\nambiguous by ${a.by} (not guessed, not compared): ${name(a.key)}: BASE ${a.base.map(name).join(", ")}; HEAD ${a.head.map(name).join(", ")} (name them with --pair)\n`;
  for (const n of doc.notes) yield `note: ${text(n)}\n`;
  const nothing = uncomparedPairs(doc);
  if (nothing.length > 0) yield `\nnothing compared (--fail-on regression fails): ${nothing.map(text).join("; ")}\n`;
  if (doc.experiments.length === 0) return;
  yield doc.regressions.length === 0
    ? "\nno regression: no figure dropped beyond chance (the paired test where units pair, else the unpaired 95% interval)\n"
    : `\n${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}: ${doc.regressions.map((r) => `${name(r.head)} ${name(metricName(r.metric))}`).join(", ")}\n`;
}
