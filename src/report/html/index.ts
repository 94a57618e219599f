// The HTML report: one self-contained page (no request of any kind: its CSP allows none), readable
// offline, on a phone and in print. Per experiment the headline figures and charts (static SVG,
// drawn here), then every trial (and Inspect sample) in a sortable, filterable table, the task × run
// matrix of the runs of the same tasks, then the advisory judgements in
// a section of their own. Charts are drawn first (Vega renders asynchronously); the page is then
// written in pieces, its rows read from the entries as they are written, never held whole.

import type { Experiment, ResultsView } from "../../core/results.js";
import { forTerminal, plural, terminalText } from "../../core/text.js";
import { describeFilter } from "../../core/filter.js";
import { shownExperiment } from "../shown.js";
import { advisorySection } from "./advisory.js";
import * as chart from "./charts.js";
import { esc, scriptJson } from "./escape.js";
import { experimentSection } from "./experiment.js";
import { COLUMNS, MAX_ROWS, rows, sampleRowsOf } from "./rows.js";
import { TaskMatrix } from "./matrix.js";

type Column = (typeof COLUMNS)[number];
/** The trial table's columns as shown: what a trial came to first, its folder (the widest) last, so the rest fit the screen. */
const SHOWN: readonly Column[] = [
  "experiment",
  "trial",
  "sample",
  "task",
  "attempt",
  "epochs",
  "validity",
  "reward",
  "score",
  "victory",
  "pass",
  "outcome",
  "codes",
  "flags",
  "path",
  "evidence",
];
import { STYLES } from "./styles.js";
import { loneFolders } from "../lone.js";
import { hasPassK, MISSING_AT_RANDOM } from "../pass-at-k.js";
import { tallied } from "../vocabulary.js";
import { SURVEY_SCRIPT, TABLE_SCRIPT } from "./script.js";
import { experimentKey, survey, surveyTable, type Survey } from "./survey.js";

/** Experiments drawn with charts; the rest keep their figures and lists (a page of thousands of charts helps no one). */
export const MAX_CHARTED = 100;

/** Nothing is fetched, nothing is connected to: inline style and script, and images only from data: URLs. */
export const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

async function chartsOf(e: Experiment, i: number, s: Survey): Promise<string[]> {
  const key = experimentKey(e.profile, e.experiment);
  const codes = s.codesBy.get(key);
  const specs = [
    chart.headline(e),
    chart.states(e),
    chart.dimensions(e, s.hard.get(key) ?? new Set()),
    chart.claimed(e),
    codes === undefined ? null : chart.findings(codes),
  ];
  const out: string[] = [];
  for (const spec of specs) if (spec !== null) out.push(await chart.svg(spec, `e${i}c${out.length}`));
  return out;
}

function head(doc: ResultsView): string {
  const r = doc.run;
  const t = doc.tally;
  const tile = (name: string, n: number, label: string, detail = "") =>
    `<div class="metric" data-metric="${name}" data-value="${n}"><b>${n}</b><span>${label}</span>${detail === "" ? "" : `<small>${detail}</small>`}</div>`;
  // The evidence as it is: bundles, Harbor trials, Inspect logs; a tile counting several kinds says so.
  const kinds = tallied(t);
  const o = r.options;
  return [
    `<!doctype html>`,
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>assay report</title><style>${STYLES}</style></head><body>`,
    `<header><h1>assay report</h1>`,
    `<p class="muted">assay ${esc(r.tool_version)} · scoring version ${r.scoring_version} · started ${esc(r.started_at)}${r.shard === null ? "" : ` · shard ${esc(r.shard)}`} · roots ${r.roots.map((x) => `<code>${esc(forTerminal(x))}</code>`).join(", ")}</p>`,
    `<p class="muted">options: --invalid ${o.invalid} · --resource-bound ${o.resource_bound} · --errors ${o.errors}${o.schedules.length > 0 ? ` · ${plural(o.schedules.length, "schedule")}` : ""}${o.hmac_key === null ? "" : " · seals checked"}</p>`,
    r.complete
      ? ""
      : `<p class="warn">This run was stopped before all its evidence was scored: its figures cover what was scored.</p>`,
    `<div class="metrics" id="tally">${tile("bundles", t.bundles, esc(kinds.nouns(t.bundles)), kinds.mixed ? esc(kinds.phrase()) : "")}${tile("valid", t.valid, "valid")}${tile("invalid", t.invalid, "invalid")}${tile("error", t.error, "tool errors")}</div>`,
    `<p class="muted">Every figure is computed from the evidence (the JSON document, <code>--format json</code>, is canonical). Invalid evidence earns no credit.</p>`,
    filtered(doc),
    `</header>`,
  ].join("\n");
}

/** A filtered document says so first: its page holds only the experiments the filters selected. */
function filtered(doc: ResultsView): string {
  const f = describeFilter(doc.run.options.filters ?? null);
  return f === ""
    ? ""
    : `<p class="warn" id="filtered">Filtered: <code>${esc(terminalText(f))}</code>. Only the experiments these select, and their bundles, are in this page.</p>`;
}

/** The trial table's head; `samples`: the Inspect samples' rows beside one row per entry. */
function tableHead(entries: number, samples: number): string {
  const total = entries + samples;
  const embedded = Math.min(total, MAX_ROWS);
  const of = samples === 0 ? "" : ` (${plural(entries, "entry", "entries")} and ${plural(samples, "Inspect sample")})`;
  const capped =
    total > MAX_ROWS
      ? `<p class="warn" id="trial-cap" data-embedded="${embedded}" data-left-out="${total - embedded}">This page holds ${embedded} of ${total} rows${of} (at most ${MAX_ROWS}): those not counted as valid or with findings, flags or an exception first, then samples without a score, then the other entries, then the other samples, in path order; ${total - embedded} left out. The JSON document has every one.</p>`
      : `<p class="muted" id="trial-cap" data-embedded="${embedded}" data-left-out="0">All ${total} rows${of}.</p>`;
  const filter = (id: string, label: string) =>
    `<label data-col="${COLUMNS.indexOf(id as Column)}">${label}<input id="f-${id}" type="search" autocomplete="off"></label>`;
  return [
    `<section id="trials"><h2>Trials</h2>`,
    capped,
    `<div class="filters">${filter("text", "path, experiment, trial, sample or task")}<label>validity<select id="f-validity"><option value="">any</option><option>valid</option><option>invalid</option><option>error</option><option>not counted</option></select></label>${filter("outcome", "outcome")}${filter("codes", "codes")}${filter("flags", "flags")}</div>`,
    `<p id="trial-count" class="muted" aria-live="polite"></p><p class="print-only muted">Printed: only the rows in view; the JSON document has every trial.</p>`,
    `<div id="trial-scroll"><table id="trial-table"><colgroup>${SHOWN.map((c) => `<col class="c-${c}" data-col="${COLUMNS.indexOf(c)}">`).join("")}</colgroup>`,
    `<thead><tr>${SHOWN.map((c) => `<th scope="col" data-col="${COLUMNS.indexOf(c)}">${c}</th>`).join("")}</tr></thead><tbody></tbody></table></div>`,
    `<noscript><p>The trial table needs JavaScript; the JSON document has every trial.</p></noscript>`,
    `<p class="muted" id="evidence-note">Evidence links open the trial's file or log from the folder this page was written in; an Inspect sample's row gives the <code>inspect view</code> command and the address that shows the sample once it runs. The task × run matrix is below: <a href="#task-matrix">tasks across runs</a>.</p></section>`,
  ].join("\n");
}

/** The page, in pieces. */
export async function render(doc: ResultsView): Promise<Iterable<string>> {
  const s = survey(doc.bundles, doc.experiments);
  // One more read of the entries: compare's units for the task × run matrix, and how many sample rows there are.
  const matrix = new TaskMatrix(doc.experiments);
  let samples = 0;
  for (const e of doc.bundles) (matrix.add(e), (samples += sampleRowsOf(e)));
  const tasks = matrix.section(doc.run, doc.experiments);
  const experiments = doc.experiments.map(shownExperiment);
  const charts: string[][] = [];
  for (const [i, e] of experiments.slice(0, MAX_CHARTED).entries()) charts.push(await chartsOf(e, i, s));
  const overall = chart.findings(s.codes, "Findings by code, over all the evidence");
  const findings = overall === null ? null : await chart.svg(overall, "all");
  const folders = loneFolders(doc.bundles, doc.experiments, doc.run.roots);
  return page(doc, experiments, charts, findings, s, folders, { samples, tasks });
}

function* page(
  doc: ResultsView,
  experiments: Experiment[],
  charts: string[][],
  findings: string | null,
  s: Survey,
  folders: ReadonlyMap<string | null, string>,
  table: { samples: number; tasks: string },
): Generator<string> {
  yield head(doc);
  yield surveyTable(doc.experiments, experiments, { errors: doc.run.options.errors, folders });
  if (findings !== null) yield `<section id="findings"><figure class="chart">${findings}</figure></section>`;
  if (experiments.length > MAX_CHARTED)
    yield `<p class="muted">Charts are drawn for the first ${MAX_CHARTED} of ${experiments.length} experiments; the others show their figures and lists.</p>`;
  yield `<main id="experiments">`;
  // Lone trials' folders are keyed by the raw name: looked up on the document's own experiment, not the shown one.
  for (const [i, e] of experiments.entries())
    yield experimentSection(e, i, charts[i] ?? [], doc, folders.get(doc.experiments[i]!.experiment) ?? null);
  // What pass@k and pass^k assume, once for the page.
  if (experiments.some(hasPassK)) yield `<p class="muted legend" id="missing-at-random">${esc(MISSING_AT_RANDOM)}</p>`;
  yield `</main>`;
  yield tableHead(doc.tally.bundles, table.samples);
  yield table.tasks;
  yield advisorySection(s);
  yield `<script type="application/json" id="trial-data">[`;
  let first = true;
  const options = { errors: doc.run.options.errors, samples: table.samples > 0 };
  for (const r of rows(doc.bundles, doc.experiments, doc.run.roots.map(forTerminal), MAX_ROWS, options)) {
    yield `${first ? "" : ","}${scriptJson(r)}`;
    first = false;
  }
  yield `]</script>\n<script>${SURVEY_SCRIPT}${TABLE_SCRIPT}</script>\n</body></html>\n`;
}
