// A comparison on a terminal. Every name from evidence or the file system passes forTerminal, and
// every note terminalText, so none reaches the terminal raw.
import type { Comparison, ExperimentComparison } from "../../core/compare/schema.js";
import { forTerminal as name, terminalText as text } from "../../core/text.js";
import { capped, difference, figure, interval, metricName, pairedLine, withoutInterval } from "./shared.js";

const pad = (s: string, n: number) => s + " ".repeat(Math.max(1, n - [...s].length));

function* experiment(e: ExperimentComparison): Generator<string> {
  const title = e.base === e.head ? name(e.base) : `${name(e.base)} → ${name(e.head)}`;
  yield `\nexperiment ${title}   profile ${e.profile.base ?? "none"}${e.profile.head === e.profile.base ? "" : ` → ${e.profile.head ?? "none"}`}\n`;
  const rows = e.metrics.map((m) => [name(metricName(m.metric)), figure(m.base), figure(m.head), difference(m), interval(m), m.regression ? "REGRESSION" : ""]);
  const head = ["metric", "BASE", "HEAD", "HEAD − BASE", "95% interval (Newcombe)", ""];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]!].length)) + 2);
  for (const r of [head, ...rows]) yield `  ${r.map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i]!))).join("").trimEnd()}\n`;
  for (const [note, metrics] of withoutInterval(e)) yield `  no interval for ${metrics.map((m) => name(metricName(m))).join(", ")}: ${text(note)}\n`;
  for (const p of e.paired) {
    yield `  paired ${name(metricName(p.metric))}: ${pairedLine(p)}\n`;
    for (const [label, list] of [["pass→fail", p.flipped.pass_to_fail], ["fail→pass", p.flipped.fail_to_pass]] as const) {
      if (list.length === 0) continue;
      const c = capped(list);
      yield `    ${label}: ${c.shown.map(name).join(", ")}${c.more > 0 ? ` and ${c.more} more (--format json lists all)` : ""}\n`;
    }
  }
  if (e.paired_note !== null) yield `  paired: ${text(e.paired_note)}\n`;
  for (const c of e.claimed)
    yield `  ${name(c.metric)}: BASE ${c.base ?? "none"}, HEAD ${c.head ?? "none"}${c.difference === null ? "" : `, HEAD − BASE ${c.difference.toFixed(4)}`} (the harness's own figure; no interval)\n`;
}

export function* render(doc: Comparison): Generator<string> {
  yield `assay compare: BASE ${name(doc.base.file)} (assay ${name(doc.base.tool_version)}) → HEAD ${name(doc.head.file)} (assay ${name(doc.head.tool_version)})\n`;
  const o = doc.base.options;
  yield `both scored under scoring version ${doc.base.scoring_version}, --invalid ${o.invalid}, --resource-bound ${o.resource_bound}, --errors ${o.errors}\n`;
  for (const e of doc.experiments) yield* experiment(e);
  if (doc.only_base.length > 0) yield `\nonly in BASE (not compared): ${doc.only_base.map(name).join(", ")}\n`;
  if (doc.only_head.length > 0) yield `\nonly in HEAD (not compared): ${doc.only_head.map(name).join(", ")}\n`;
  for (const n of doc.notes) yield `note: ${text(n)}\n`;
  yield doc.regressions.length === 0
    ? "\nno regression: no figure dropped with a 95% interval that excludes 0\n"
    : `\n${doc.regressions.length} regression${doc.regressions.length > 1 ? "s" : ""}: ${doc.regressions.map((r) => `${name(r.head)} ${name(metricName(r.metric))}`).join(", ")}\n`;
}
