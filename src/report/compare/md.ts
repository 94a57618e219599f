// A comparison as GitHub-flavoured Markdown (a step summary, a PR comment). Every name and note
// is escaped: no evidence can open a link, an image, HTML or a table cell of its own.
import type { Comparison, ExperimentComparison, RankedExperiment, RankingDocument } from "../../core/compare/schema.js";
import { uncomparedPairs } from "../../core/compare/compare.js";
import { uncompared } from "../../core/compare/rank.js";
import { trendMd } from "./trend.js";
import { claimedOr } from "../claimed.js";
import { changesMarkdown, matrixMarkdown, MARKDOWN_ROWS } from "./changes.js";
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
  md,
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

function* experiment(e: ExperimentComparison): Generator<string> {
  const title = e.base === e.head ? md(e.base) : `${md(e.base)} → ${md(e.head)}`;
  yield `\n### ${title} (${e.profile.head ?? "no profile"})\n\n${md(MATCH_WORDS[e.match])}; BASE ${md(who(e.identity.base))}, started ${md(startedText(e.identity.base))}; HEAD ${md(who(e.identity.head))}, started ${md(startedText(e.identity.head))}.\n\n`;
  yield "| metric | BASE | HEAD | HEAD − BASE | 95% interval | |\n|---|---:|---:|---:|---|---|\n";
  for (const m of e.metrics)
    yield `| ${md(metricName(m.metric))} | ${figure(m.base)} | ${figure(m.head)} | ${difference(m)} | ${interval(m)} | ${m.regression ? "**regression**" : ""} |\n`;
  const spend = usageRows(e);
  for (const [what, b, h] of spend) yield `| ${what} | ${md(b)} | ${md(h)} | | | |\n`;
  if (spend.length > 0) yield `\n${md(USAGE_NOTE)}.\n`;
  const methods = differenceMethods(e);
  if (methods !== null) yield `\n${md(methods)}.\n`;
  for (const [note, metrics] of withoutInterval(e))
    yield `\nNo interval for ${metrics.map((m) => md(metricName(m))).join(", ")}: ${md(note)}.\n`;
  const method = pairedMethod(e);
  if (method !== null) yield `\nPaired (${method}):\n\n`;
  for (const m of e.metrics) {
    const p = m.paired;
    if (p === null) continue;
    yield `- ${md(metricName(m.metric))} ${md(pairedLine(p))}${p.unpaired.length > 0 ? `; pairing: ${md(p.unpaired.join("; "))}` : ""}\n`;
    const headline = headlineLine(m);
    if (headline !== null) yield `  - ${md(headline)}\n`;
    if (p.mcnemar === null) continue;
    yield `  - ${md(mcnemarLine(p.mcnemar, p))}\n`;
    for (const [label, list] of [
      ["pass → fail", p.mcnemar.flipped.pass_to_fail],
      ["fail → pass", p.mcnemar.flipped.fail_to_pass],
    ] as const) {
      if (list.length === 0) continue;
      const c = capped(list);
      yield `  - ${label}: ${c.shown.map(md).join(", ")}${c.more > 0 ? ` and ${c.more} more (the JSON lists all)` : ""}\n`;
    }
  }
  yield* changesMarkdown(e);
  if (e.claimed.length > 0) {
    yield "\n| the harness claimed | BASE | HEAD | HEAD − BASE |\n|---|---:|---:|---:|\n";
    for (const c of e.claimed)
      yield `| ${md(c.metric)} | ${md(claimedOr(c.metric, c.base, "—"))} | ${md(claimedOr(c.metric, c.head, "—"))} | ${c.difference === null ? "—" : c.difference.toFixed(4)} |\n`;
  }
}

function* ranked(e: RankedExperiment, before?: RankedExperiment): Generator<string> {
  const r = e.ranking;
  const dupes = duplicatesLine(e.duplicates);
  yield `\n### ${md(e.experiment)} (${e.profile ?? "no profile"}): ${md(metricName(r.metric))}\n\n${[MATCH_WORDS[e.match], ...rankingWords(e), ...(dupes === null ? [] : [dupes])].map((w) => `${md(w)}.`).join("\n\n")}\n\n`;
  yield `| group | run | agent / model | started | ${rankedName(e)} | headline | headline 95% interval |\n|---:|---|---|---|---:|---:|---|\n`;
  for (const x of r.runs)
    yield `| ${x.group ?? "—"} | ${md(x.run)} | ${md(who(memberOf(e, x.run)))} | ${md(startedText(memberOf(e, x.run)))} | ${rankedFigure(x).value} | ${rankedFigure(x).headline} | ${md(rankedFigure(x).interval)} |\n`;
  if (r.pairs.length > 0) yield "\n| a | b | b − a | test | p | p (Holm) |\n|---|---|---:|---|---:|---:|\n";
  for (const p of r.pairs)
    yield `| ${md(p.a)} | ${md(p.b)} | ${rankedPair(p).diff} | ${rankedPair(p).test} | ${rankedPair(p).p} | ${rankedPair(p).holm} |\n`;
  if (e.matrix.rows.length > 0)
    yield* matrixMarkdown({ ...e.matrix, rows: e.matrix.rows.slice(0, MARKDOWN_ROWS) }, e.unit);
  if (e.trend !== null) yield `\n${trendMd(e.trend)}`;
  for (const n of e.notes) yield `\nNote: ${md(n)}\n`;
  const spend = rankedUsageRows(e, before);
  if (spend.length > 0) {
    yield `\n| ${USAGE_HEAD.join(" | ")} |\n|---|---:|---:|---:|---:|\n`;
    for (const row of spend) yield `| ${row.map(md).join(" | ")} |\n`;
    yield `\n${md(USAGE_NOTE)}.\n`;
  }
}

function* rankingDocument(doc: RankingDocument): Generator<string> {
  yield doc.runs.length === 1
    ? `## assay compare: the runs within ${md(doc.runs[0]!.file)}\n\n`
    : `## assay compare: ${doc.runs.length} documents (R1 ${md(doc.runs[0]!.file)})\n\n`;
  const nothing = uncompared(doc);
  if (nothing.length > 0) yield `**Nothing compared** (--fail-on regression fails): ${nothing.map(md).join("; ")}\n\n`;
  if (doc.experiments.length > 0)
    yield doc.regressions.length === 0
      ? "**No regression**: no run significantly below its group's R1 after Holm's adjustment.\n"
      : `**${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}**: ${doc.regressions.map((r) => `${md(r.run)} ${md(r.experiment)} ${md(metricName(r.metric))}`).join(", ")}\n`;
  for (const [i, e] of doc.experiments.entries()) yield* ranked(e, doc.experiments[i - 1]);
  for (const u of doc.unscored) {
    yield `\n### ${md(u.experiment)}: not ranked\n\n${md(MATCH_WORDS[u.match])}; ${md(u.reason)}.\n\n| run | agent / model | started |\n|---|---|---|\n`;
    for (const m of u.members) yield `| ${md(m.run)} | ${md(who(m.identity))} | ${md(startedText(m.identity))} |\n`;
  }
  if (doc.single.length > 0)
    yield `\n${doc.runs.length === 1 ? "Alone in its group" : "In one run only"} (not ranked): ${doc.single.map(md).join(", ")}\n`;
  if (doc.unranked.length > 0)
    yield `\nHeld but without a figure (not ranked): ${doc.unranked.map((u) => md(`${u.run}: ${u.experiment} ${u.metric}`)).join(", ")}\n`;
  for (const n of doc.notes) yield `\n> ${md(n)}\n`;
}

export function* render(doc: Comparison | RankingDocument): Generator<string> {
  if (doc.format === "assay.compare-runs/1") return yield* rankingDocument(doc);
  yield `## assay compare: ${md(doc.base.file)} → ${md(doc.head.file)}\n\n`;
  const nothing = uncomparedPairs(doc);
  if (nothing.length > 0) yield `**Nothing compared** (--fail-on regression fails): ${nothing.map(md).join("; ")}\n\n`;
  if (doc.experiments.length > 0)
    yield doc.regressions.length === 0
      ? "**No regression**: no figure dropped beyond chance (the paired test where units pair, else the unpaired 95% interval).\n"
      : `**${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}**: ${doc.regressions.map((r) => `${md(r.head)} ${md(metricName(r.metric))}`).join(", ")}\n`;
  for (const e of doc.experiments) yield* experiment(e);
  if (doc.only_base.length > 0) yield `\nOnly in BASE (not compared): ${doc.only_base.map(md).join(", ")}\n`;
  if (doc.only_head.length > 0) yield `\nOnly in HEAD (not compared): ${doc.only_head.map(md).join(", ")}\n`;
  for (const a of doc.ambiguous)
    yield `\nAmbiguous by ${a.by} (not guessed, not compared): ${md(a.key)}: BASE ${a.base.map(md).join(", ")}; HEAD ${a.head.map(md).join(", ")}.\n`;
  for (const n of doc.notes) yield `\n> ${md(n)}\n`;
}
