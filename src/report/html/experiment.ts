// One experiment's part of the page: its name and where it comes from, its headline figures, its
// charts, what the run claims beside assay's figure, and the trials that did not count and why.

import type { Experiment, ResultsView } from "../../core/results.js";
import { esc } from "./escape.js";
import { claims, figures } from "./figures.js";
import { forTerminal, terminalText } from "../../core/text.js";
import { identityFacts } from "../overview.js";
import { loneWhere } from "../lone.js";
import { nameOf, scheduledCount, wordsOf } from "../vocabulary.js";

/** Items of a list shown in a page (the JSON document has every one). */
export const MAX_LIST = 50;

function list(title: string, items: readonly string[]): string {
  if (items.length === 0) return "";
  const more =
    items.length > MAX_LIST
      ? `<li class="muted">… ${items.length - MAX_LIST} more (the JSON document has them all)</li>`
      : "";
  return `<details><summary>${esc(title)} (${items.length})</summary><ul class="list">${items
    .slice(0, MAX_LIST)
    .map((i) => `<li>${esc(i)}</li>`)
    .join("")}${more}</ul></details>`;
}

function heading(e: Experiment, folder: string | null): string {
  const w = wordsOf(e.profile);
  const lone = w.lone && e.job === null ? folder : null;
  const where =
    e.job !== null
      ? ` · <code>${esc(e.job)}</code>`
      : lone !== null
        ? ` · in no job folder, ${loneWhere(lone, (f) => `<code>${esc(forTerminal(f))}</code>`)}`
        : e.log !== null
          ? ` · <code>${esc(e.log.path)}</code> (${esc(e.log.status ?? "n/a")}, ${esc(e.log.state ?? "n/a")})`
          : "";
  const facts = identityFacts(e.identity)
    .map(([label, text]) => `<b>${esc(label)}</b> ${esc(terminalText(text))}`)
    .join("<br>");
  return `<h2>${w.experiment} ${esc(nameOf(e))}</h2><p class="muted">profile ${esc(w.kind)} · ${esc(scheduledCount(w, e.scheduled))}${where}</p><p class="muted identity">${facts}</p>`;
}

/** The lists under an experiment's figures (each capped; `e` is already shown: shown.ts). */
function lists(e: Experiment): string {
  const w = wordsOf(e.profile);
  return [
    list(
      "invalid",
      e.invalid.map((i) => `${i.trial}: ${i.codes.join(", ")}`),
    ),
    list(
      "missing",
      e.missing.map((m) => (typeof m === "string" ? m : `${m.count} ${m.reason}`)),
    ),
    list(
      "excluded",
      e.excluded.map((x) => `${x.trial}: ${x.reason}`),
    ),
    list(`${w.unscored} (${w.unscoredMeans})`, e.unscored),
    list(
      "flags (for review: they change no state and no metric)",
      e.flags.map(
        (f) =>
          `${f.code} ${f.trial}${f.attempt === null ? "" : `#${f.attempt}`}${f.evidence === null ? "" : `: ${f.evidence}`}`,
      ),
    ),
    list("retry", e.retry ?? []),
    list(
      "warnings",
      e.warnings.map((w) => `${w.code} ${w.file ?? ""} ${w.message}`),
    ),
    list(
      "exceptions by type",
      Object.entries(e.exceptions ?? {}).map(([t, n]) => `${t}: ${n}`),
    ),
  ].join("");
}

/** The section of experiment `i` of the document; `charts` are SVG strings drawn for it (none past the chart cap); `folder`: where its lone trials lie (lone.ts), else null. */
export function experimentSection(
  e: Experiment,
  i: number,
  charts: readonly string[],
  doc: ResultsView,
  folder: string | null,
): string {
  const rule = wordsOf(e.profile).errorsRule?.(doc.run.options.errors) ?? null;
  return [
    `<section class="experiment" id="exp-${i}" data-experiment="${i}">`,
    heading(e, folder),
    figures(e, doc.run.options.invalid),
    rule === null ? "" : `<p class="muted">--errors ${doc.run.options.errors}: ${esc(rule)}</p>`,
    charts.length > 0
      ? `<div class="charts">${charts.map((c) => `<figure class="chart">${c}</figure>`).join("")}</div>`
      : "",
    claims(e),
    lists(e),
    `</section>`,
  ].join("\n");
}
