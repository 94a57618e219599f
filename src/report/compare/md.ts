// A comparison as GitHub-flavoured Markdown (a step summary, a PR comment). Every name and note
// is escaped: no evidence can open a link, an image, HTML or a table cell of its own.
import type { Comparison, ExperimentComparison } from "../../core/compare/schema.js";
import { terminalText } from "../../core/text.js";
import { capped, difference, figure, interval, metricName, pairedLine, withoutInterval } from "./shared.js";

/**
 * A name or note as Markdown shows it literally: hidden characters escaped, every character that
 * could start emphasis, code, a link, a cell, math or a mention backslashed, `<` and `&` as entities.
 */
export const md = (s: string): string =>
  terminalText(s)
    .replace(/[\\`*_{}[\]|~>$@:]/g, (c) => `\\${c}`)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/\r?\n/g, " ");

function* experiment(e: ExperimentComparison): Generator<string> {
  const title = e.base === e.head ? md(e.base) : `${md(e.base)} → ${md(e.head)}`;
  yield `\n### ${title} (${e.profile.head ?? "no profile"})\n\n`;
  yield "| metric | BASE | HEAD | HEAD − BASE | 95% interval (Newcombe) | |\n|---|---:|---:|---:|---|---|\n";
  for (const m of e.metrics)
    yield `| ${md(metricName(m.metric))} | ${figure(m.base)} | ${figure(m.head)} | ${difference(m)} | ${interval(m)} | ${m.regression ? "**regression**" : ""} |\n`;
  for (const [note, metrics] of withoutInterval(e)) yield `\nNo interval for ${metrics.map((m) => md(metricName(m))).join(", ")}: ${md(note)}.\n`;
  for (const p of e.paired) {
    yield `\nPaired ${md(metricName(p.metric))}: ${pairedLine(p)}\n`;
    for (const [label, list] of [["pass → fail", p.flipped.pass_to_fail], ["fail → pass", p.flipped.fail_to_pass]] as const) {
      if (list.length === 0) continue;
      const c = capped(list);
      yield `- ${label}: ${c.shown.map(md).join(", ")}${c.more > 0 ? ` and ${c.more} more (the JSON lists all)` : ""}\n`;
    }
  }
  if (e.paired_note !== null) yield `\nPaired: ${md(e.paired_note)}\n`;
  if (e.claimed.length > 0) {
    yield "\n| the harness claimed | BASE | HEAD | HEAD − BASE |\n|---|---:|---:|---:|\n";
    for (const c of e.claimed) yield `| ${md(c.metric)} | ${md(String(c.base ?? "—"))} | ${md(String(c.head ?? "—"))} | ${c.difference === null ? "—" : c.difference.toFixed(4)} |\n`;
  }
}

export function* render(doc: Comparison): Generator<string> {
  yield `## assay compare: ${md(doc.base.file)} → ${md(doc.head.file)}\n\n`;
  yield doc.regressions.length === 0
    ? "**No regression**: no figure dropped with a 95% interval that excludes 0.\n"
    : `**${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}**: ${doc.regressions.map((r) => `${md(r.head)} ${md(metricName(r.metric))}`).join(", ")}\n`;
  for (const e of doc.experiments) yield* experiment(e);
  if (doc.only_base.length > 0) yield `\nOnly in BASE (not compared): ${doc.only_base.map(md).join(", ")}\n`;
  if (doc.only_head.length > 0) yield `\nOnly in HEAD (not compared): ${doc.only_head.map(md).join(", ")}\n`;
  for (const n of doc.notes) yield `\n> ${md(n)}\n`;
}
