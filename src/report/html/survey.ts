// One read of the bundle entries for what the page says beside the experiments' own figures:
// findings by code (per experiment and over all, with the codes the batch rules give a trial and
// none of its bundles holds), which world dimensions are hard, and the
// advisory judgements. Bounded however many entries: counts, names, and the first few of a list.

import type { Advisory, BundleEntry, Experiment } from "../../core/results.js";
import { forTerminal, terminalText } from "../../core/text.js";
import { shownEntry } from "../shown.js";
import { TrialIndexes, TrialOnlyCodes } from "../trial-index.js";
import { figureText, MAX_ROWS, overview, type Headline, type OverviewRow } from "../overview.js";
import { loneWhere } from "../lone.js";
import { nameOf, WORDS, wordsOf } from "../vocabulary.js";
import { esc } from "./escape.js";

/** The kinds' headline sentences (the legend's other lines are said elsewhere on the page). */
const HEADLINES = new Set(Object.values(WORDS).map((w) => w.headline));

/** Entries with a failing or errored criterion listed in the advisory section (the rest are counted). */
export const MAX_ADVISORY = 50;

export interface Survey {
  /** Bundles with each code (errors, warnings, flags), and trials with each trial-only code, over every entry and by experiment key. */
  codes: Map<string, number>;
  codesBy: Map<string, Map<string, number>>;
  /** Dimension names the evidence marks hard, by experiment key. */
  hard: Map<string, Set<string>>;
  advised: number;
  analysed: number;
  cached: number;
  first: Advisory | null;
  notAnalysed: Map<string, number>;
  /** Entries with a failing or errored criterion: the first MAX_ADVISORY (shown), and how many in all. */
  notable: BundleEntry[];
  notableCount: number;
}

/** The key an entry and its shown experiment (shown.ts) share; a name may recur under another profile. */
export const experimentKey = (profile: string | null, experiment: string | null): string =>
  `${profile ?? ""}\u0000${experiment ?? ""}`;

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

export function survey(bundles: Iterable<BundleEntry>, experiments: readonly Experiment[]): Survey {
  const s: Survey = {
    codes: new Map(),
    codesBy: new Map(),
    hard: new Map(),
    advised: 0,
    analysed: 0,
    cached: 0,
    first: null,
    notAnalysed: new Map(),
    notable: [],
    notableCount: 0,
  };
  const count = (profile: string | null, experiment: string | null, codes: Iterable<string>) => {
    const key = experimentKey(profile, experiment === null ? null : forTerminal(experiment));
    let by = s.codesBy.get(key);
    for (const c of codes) {
      if (by === undefined) s.codesBy.set(key, (by = new Map()));
      bump(s.codes, c);
      bump(by, c);
    }
  };
  const trialOnly = new TrialOnlyCodes(new TrialIndexes(experiments));
  for (const e of bundles) {
    trialOnly.see(e);
    const key = experimentKey(e.profile, e.experiment === null ? null : forTerminal(e.experiment));
    count(e.profile, e.experiment, new Set([...e.errors, ...e.warnings, ...e.flags].map((f) => f.code)));
    for (const [name, d] of Object.entries(e.dimensions ?? {}))
      if (d.hard) {
        let hard = s.hard.get(key);
        if (hard === undefined) s.hard.set(key, (hard = new Set()));
        hard.add(name);
      }
    const a = e.advisory;
    if (a === null) continue;
    s.advised++;
    s.first ??= a;
    if (a.status !== "analysed") {
      bump(s.notAnalysed, a.reason ?? "");
      continue;
    }
    s.analysed++;
    if (a.cached) s.cached++;
    if (
      Object.values(a.outcomes).some((o) => o.outcome === "fail" || o.outcome === "error") &&
      s.notableCount++ < MAX_ADVISORY
    )
      s.notable.push(shownEntry(e));
  }
  for (const t of trialOnly.codes()) count(t.experiment.profile, t.experiment.experiment, [t.code]);
  return s;
}

// The experiments table (issue 23 item 1): one row per experiment with what a reader reviewing many
// jobs asks first — kind, trials (in tasks), the headline figure and its 95% interval, coverage,
// what the harness claims and whether assay agrees, invalid, flags, cost — each row linking to its
// section. The rows, their order (problems first) and their cap are the overview's (overview.ts),
// and so is the headline each shows: one chooser for every format. Every cell carries data-sort (a
// number, or text) so the page's script can sort it.

/** Whether assay agrees, in a word; why not on hover (the section's claims table says it whole). */
function checkText(h: Headline): string {
  const word = h.agreement;
  return `<span class="${word === "agrees" ? "ok" : "warn"}"${h.why === null || word === "agrees" ? "" : ` title="${esc(terminalText(h.why))}"`}>${esc(word)}</span>`;
}

/** A cell: its text (already escaped), and the value it sorts by. */
const cell = (html: string, sort: number | string | null, cls = "") =>
  `<td${cls === "" ? "" : ` class="${cls}"`} data-sort="${sort === null ? "" : esc(String(sort))}">${html}</td>`;

export const SURVEY_COLUMNS = [
  "experiment",
  "kind",
  "trials",
  "headline (95% interval)",
  "coverage",
  "harness claims",
  "invalid",
  "flags",
  "cost",
] as const;

const muted = (t: string) => `<span class="muted">${t}</span>`;

/** The identity's columns a table shows: each only where a row records it (issue 37), so a page of runs that record neither is as before. */
export interface IdentityColumns {
  who: boolean;
  started: boolean;
}

/**
 * The experiments table's row for experiment `i` of the document, laid out from its overview row
 * (computed on the raw document, so it chose as the table and Markdown did); `e` is the experiment
 * as shown (shown.ts), and every name from the row is shown the same way here.
 */
export function surveyRow(
  e: Experiment,
  i: number,
  r: OverviewRow,
  shows: IdentityColumns = { who: false, started: false },
): string {
  const h = r.headline;
  const w = wordsOf(e.profile);
  const figure =
    r.metric === null
      ? muted("none")
      : `<b>${esc(r.figure)}</b>${r.interval.startsWith("[") ? ` ${muted(esc(r.interval))}` : ""} <small>${esc(forTerminal(r.metric))}</small>`;
  const claim =
    r.agreement === "none"
      ? cell(muted("—"), null)
      : cell(`${r.claim === "" ? "" : `${esc(r.claim)} · `}${checkText(h)}`, r.agreement, "claim");
  const name = `<a href="#exp-${i}">${esc(nameOf(e))}</a>${r.folder === null ? "" : ` ${muted(loneWhere(r.folder, (f) => `<code>${esc(forTerminal(f))}</code>`))}`}${r.note === "" ? "" : ` <span class="warn">${esc(r.note)}</span>`}`;
  const coverage = h.covered === null || h.of === null || h.of === 0 ? null : h.covered / h.of;
  return [
    `<tr id="survey-${i}">`,
    cell(name, e.experiment ?? ""),
    ...(shows.who ? [cell(r.who === "" ? muted("—") : esc(terminalText(r.who)), r.who)] : []),
    cell(esc(w.label), w.kind),
    ...(shows.started
      ? [
          cell(
            r.started === ""
              ? muted("—")
              : r.started.endsWith("*")
                ? `<span title="a local date: the harness recorded no zone">${esc(r.started)}</span>`
                : esc(r.started),
            r.started,
          ),
        ]
      : []),
    cell(`${r.trials}${r.clusters === "" ? "" : ` ${esc(r.clusters)}`}`, r.trials),
    cell(figure, typeof h.value === "number" ? h.value : null, "figure"),
    // A count over an unknown plan ("4/? (plan unknown)") is said as such, never as a share.
    cell(
      coverage === null
        ? muted(h.covered !== null && h.of === null ? esc(r.coverage) : "—")
        : esc(figureText(coverage, true)),
      coverage,
    ),
    claim,
    cell(String(r.invalid), r.invalid, r.invalid > 0 ? "warn" : ""),
    cell(String(r.flags), r.flags),
    // The overview's cost (a recorded cost, else tokens), sorted by dollars where recorded.
    cell(r.cost === "" ? muted(e.usage === null ? "—" : "not recorded") : esc(r.cost), e.usage?.spent.cost_usd ?? null),
    `</tr>`,
  ].join("");
}

/**
 * The experiments table, first on the page: sortable by a click on a header (SURVEY_SCRIPT); the
 * overview's rows (problems first, at most MAX_ROWS), saying how many it left out. The overview
 * runs on the document's own experiments (`raw`): a name shown quoted (forTerminal) would sort
 * and choose differently; each row is then laid out from its shown experiment (`shown`, same order).
 */
export function surveyTable(
  raw: readonly Experiment[],
  shown: readonly Experiment[],
  o: { errors: "exclude" | "zero"; folders: ReadonlyMap<string | null, string> },
): string {
  if (raw.length === 0) return `<nav><p class="muted">No experiment: nothing was attributed to a trial.</p></nav>`;
  const ov = overview(raw, o);
  // The count column headed as the kinds count (overview.ts): trials, an Inspect task run's planned records, or both.
  const shows: IdentityColumns = {
    who: ov.rows.some((r) => r.who !== ""),
    started: ov.rows.some((r) => r.started !== ""),
  };
  const columns = SURVEY_COLUMNS.flatMap((c) =>
    c === "experiment" && shows.who ? [c, "agent / model"] : c === "kind" && shows.started ? [c, "started"] : [c],
  );
  const th = columns.map((c) => `<th scope="col" tabindex="0">${c === "trials" ? ov.units : c}</th>`).join("");
  const capped =
    ov.omitted === 0
      ? ""
      : `<p class="warn" id="survey-cap" data-shown="${ov.rows.length}" data-left-out="${ov.omitted}">This table shows ${ov.rows.length} of ${raw.length} experiments (at most ${MAX_ROWS}: problems first, then by kind and name); ${ov.omitted} left out, each still has its section below. The JSON document has every one.</p>`;
  return [
    `<nav><h2>Experiments (${raw.length})</h2>`,
    `<p class="muted">Click a header to sort; a name leads to its section. The headline is assay's figure from the evidence, its 95% interval in brackets (each section names the method). ${esc(ov.legend.filter((l) => HEADLINES.has(l)).join(" · "))}</p>`,
    capped,
    `<div class="survey-scroll"><table id="survey"><thead><tr>${th}</tr></thead><tbody>${ov.rows.map((r) => surveyRow(shown[r.index]!, r.index, r, shows)).join("")}</tbody></table></div></nav>`,
  ].join("\n");
}
