// One experiment's part of the page: its name and where it comes from, its headline figures, its
// charts, what the run claims beside assay's figure, and the trials that did not count and why.

import type { Experiment, ResultsView } from "../../core/results.js";
import { esc } from "./escape.js";
import { claims, figures } from "./figures.js";

/** Items of a list shown in a page (the JSON document has every one). */
export const MAX_LIST = 50;

function list(title: string, items: readonly string[]): string {
  if (items.length === 0) return "";
  const more = items.length > MAX_LIST ? `<li class="muted">… ${items.length - MAX_LIST} more (the JSON document has them all)</li>` : "";
  return `<details><summary>${esc(title)} (${items.length})</summary><ul class="list">${items.slice(0, MAX_LIST).map((i) => `<li>${esc(i)}</li>`).join("")}${more}</ul></details>`;
}

function heading(e: Experiment): string {
  const name = e.experiment ?? (e.profile === "harbor" ? "(lone trials)" : e.profile === "inspect" ? "(logs the tool could not read)" : "(none)");
  const what = e.profile === "harbor" ? "Harbor job" : e.profile === "inspect" ? "Inspect task run" : "experiment";
  const where = e.job !== null ? ` · <code>${esc(e.job)}</code>` : e.log !== null ? ` · <code>${esc(e.log.path)}</code> (${esc(e.log.status ?? "n/a")}, ${esc(e.log.state ?? "n/a")})` : "";
  return `<h2>${what} ${esc(name)}</h2><p class="muted">profile ${esc(e.profile ?? "unknown")} · ${e.scheduled} scheduled${where}</p>`;
}

/** The lists under an experiment's figures (each capped; `e` is already shown: shown.ts). */
function lists(e: Experiment): string {
  return [
    list("invalid", e.invalid.map((i) => `${i.trial}: ${i.codes.join(", ")}`)),
    list("missing", e.missing.map((m) => (typeof m === "string" ? m : `${m.count} ${m.reason}`))),
    list("excluded", e.excluded.map((x) => `${x.trial}: ${x.reason}`)),
    list("unscored (tool errors: outside every metric)", e.unscored),
    list("flags (for review: they change no state and no metric)", e.flags.map((f) => `${f.code} ${f.trial}${f.attempt === null ? "" : `#${f.attempt}`}${f.evidence === null ? "" : `: ${f.evidence}`}`)),
    list("retry", e.retry ?? []),
    list("warnings", e.warnings.map((w) => `${w.code} ${w.file ?? ""} ${w.message}`)),
    list("exceptions by type", Object.entries(e.exceptions ?? {}).map(([t, n]) => `${t}: ${n}`)),
  ].join("");
}

/** The section of experiment `i` of the document; `charts` are SVG strings drawn for it (none past the chart cap). */
export function experimentSection(e: Experiment, i: number, charts: readonly string[], doc: ResultsView): string {
  const rule = e.profile === "harbor" || e.profile === "inspect" ? `<p class="muted">--errors ${doc.run.options.errors}: ${doc.run.options.errors === "zero" ? "trials or samples without a score count 0" : "trials or samples without a score are left out of every mean"}</p>` : "";
  return [
    `<section class="experiment" id="exp-${i}" data-experiment="${i}">`,
    heading(e),
    figures(e, doc.run.options.invalid),
    rule,
    charts.length > 0 ? `<div class="charts">${charts.map((c) => `<figure class="chart">${c}</figure>`).join("")}</div>` : "",
    claims(e),
    lists(e),
    `</section>`,
  ].join("\n");
}
