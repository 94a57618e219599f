// One read of the bundle entries for what the page says beside the experiments' own figures:
// findings by code (per experiment and over all, with the codes the batch rules give a trial and
// none of its bundles holds), which world dimensions are hard, and the
// advisory judgements. Bounded however many entries: counts, names, and the first few of a list.

import type { Advisory, BundleEntry, Experiment } from "../../core/results.js";
import { forTerminal } from "../../core/text.js";
import { shownEntry } from "../shown.js";
import { TrialIndexes, TrialOnlyCodes } from "../trial-index.js";
import type { WithInterval } from "../intervals.js";
import { dollars } from "../usage.js";
import { esc } from "./escape.js";

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
export const experimentKey = (profile: string | null, experiment: string | null): string => `${profile ?? ""}\u0000${experiment ?? ""}`;

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

export function survey(bundles: Iterable<BundleEntry>, experiments: readonly Experiment[]): Survey {
  const s: Survey = { codes: new Map(), codesBy: new Map(), hard: new Map(), advised: 0, analysed: 0, cached: 0, first: null, notAnalysed: new Map(), notable: [], notableCount: 0 };
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
    if (Object.values(a.outcomes).some((o) => o.outcome === "fail" || o.outcome === "error") && s.notableCount++ < MAX_ADVISORY) s.notable.push(shownEntry(e));
  }
  for (const t of trialOnly.codes()) count(t.experiment.profile, t.experiment.experiment, [t.code]);
  return s;
}

// The experiments table (issue 23 item 1): one row per experiment with what a reader reviewing many
// jobs asks first — kind, trials (in tasks), the headline figure and its 95% interval, coverage,
// what the harness claims and whether assay agrees, invalid, flags, cost — each row linking to its
// section. Every cell carries data-sort (a number, or text) so the page's script can sort it.

/** One experiment's headline: the figure that answers "how did it do?", and what its claim says of it. */
export interface Headline {
  name: string;
  value: number | null;
  lo: number | null;
  hi: number | null;
  /** Over how many units and clusters its interval is (null: no interval). */
  units: number | null;
  clusters: number | null;
  coverage: number | null;
  claimed: number | string | null;
  /** agrees, mismatch, unverified, or the reason a Harbor claim differs; null: nothing claimed. */
  check: string | null;
}

const head = (name: string, value: number | null, m: WithInterval, coverage: number | null): Headline => ({
  name,
  value,
  lo: m.interval?.lo ?? null,
  hi: m.interval?.hi ?? null,
  units: m.interval?.units ?? null,
  clusters: m.interval?.clusters ?? null,
  coverage,
  claimed: null,
  check: null,
});

/** The first key a Harbor job or an Inspect log reports, a proportion (`reward`, `…/accuracy`, `…/mean`) preferred. */
const firstKey = (keys: string[], preferred: RegExp): string | undefined => keys.find((k) => preferred.test(k)) ?? keys[0];

/** An experiment's headline figure, by its profile; null when nothing was scored. */
export function headlineOf(e: Experiment): Headline | null {
  if (e.accuracy !== null) return head("accuracy", e.accuracy.value, e.accuracy, e.scheduled === 0 ? null : e.accuracy.scored / e.scheduled);
  if (e.pass !== null) return head("pass", e.pass.total === 0 ? null : e.pass.passed / e.pass.total, e.pass, e.scheduled === 0 ? null : e.pass.total / e.scheduled);
  if (e.rewards !== null) {
    const key = firstKey(Object.keys(e.rewards), /^reward$/);
    if (key === undefined) return null;
    const r = e.rewards[key]!;
    const h = head(`${key} mean`, r.mean, r, r.coverage);
    // The claim beside the headline (the job's figure for this key, else its first); "agrees" only when every compared claim does.
    const compared = e.claimed?.compared ?? [];
    const c = compared.find((x) => x.metric.includes(key)) ?? compared[0];
    const differs = compared.find((x) => x.reason !== null);
    if (c !== undefined) Object.assign(h, { claimed: c.claimed, check: differs === undefined ? "agrees" : `differs: ${differs.reason}` });
    return h;
  }
  if (e.inspect !== null) {
    const key = firstKey(Object.keys(e.inspect), /\/(accuracy|mean)$/);
    if (key === undefined) return null;
    const m = e.inspect[key]!;
    return { ...head(key, m.value, m, m.coverage.planned === 0 ? null : m.coverage.scored / m.coverage.planned), claimed: m.claimed, check: m.claimed === null ? null : m.check };
  }
  return null;
}

const KIND: Record<string, string> = { "native-game": "game", world: "world", harbor: "Harbor job", inspect: "Inspect log" };
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number) => x.toFixed(3);
/** A proportion as a percentage; a mean that may leave [0, 1] (a Harbor reward, an Inspect mean) to 3 decimals. */
const shows = (h: Headline) => (h.name === "accuracy" || h.name === "pass" || h.name.endsWith("/accuracy") ? pct : f3);

/** Whether assay agrees, in a word; why not on hover (the section's claims table says it whole). */
function checkText(check: string): string {
  const [word, why] = check.startsWith("differs: ") ? ["differs", check.slice(9)] : [check, null];
  return `<span class="${word === "agrees" ? "ok" : "warn"}"${why === null ? "" : ` title="${esc(why)}"`}>${esc(word)}</span>`;
}

/** A cell: its text (already escaped), and the value it sorts by. */
const cell = (html: string, sort: number | string | null, cls = "") => `<td${cls === "" ? "" : ` class="${cls}"`} data-sort="${sort === null ? "" : esc(String(sort))}">${html}</td>`;

export const SURVEY_COLUMNS = ["experiment", "kind", "trials", "headline (95% interval)", "coverage", "harness claims", "invalid", "flags", "cost"] as const;

/** The experiments table's row for experiment `i` (already shown: shown.ts). */
export function surveyRow(e: Experiment, i: number): string {
  const h = headlineOf(e);
  const show = h === null ? f3 : shows(h);
  const tasks = h !== null && h.clusters !== null && h.units !== null && h.clusters < h.units ? ` in ${h.clusters} tasks` : "";
  const figure =
    h === null || h.value === null
      ? `<span class="muted">not scored</span>`
      : `<b>${esc(show(h.value))}</b>${h.lo === null || h.hi === null ? "" : ` <span class="muted">[${esc(show(h.lo))}, ${esc(show(h.hi))}]</span>`} <small>${esc(h.name)}</small>`;
  const claim =
    h === null || h.check === null
      ? cell(`<span class="muted">—</span>`, null)
      : cell(`${esc(typeof h.claimed === "number" ? show(h.claimed) : String(h.claimed))} · ${checkText(h.check)}`, h.check, "claim");
  const cost = e.usage?.spent.cost_usd ?? null;
  return [
    `<tr id="survey-${i}">`,
    cell(`<a href="#exp-${i}">${esc(e.experiment ?? "(none)")}</a>`, e.experiment ?? ""),
    cell(esc(KIND[e.profile ?? ""] ?? e.profile ?? "unknown"), e.profile ?? ""),
    cell(`${e.scheduled}${tasks}`, e.scheduled),
    cell(figure, h?.value ?? null, "figure"),
    cell(h?.coverage == null ? `<span class="muted">—</span>` : esc(pct(h.coverage)), h?.coverage ?? null),
    claim,
    cell(String(e.invalid.length), e.invalid.length, e.invalid.length > 0 ? "warn" : ""),
    cell(String(e.flags.length), e.flags.length),
    cell(cost === null ? `<span class="muted">${e.usage === null ? "—" : "not recorded"}</span>` : esc(dollars(cost)), cost),
    `</tr>`,
  ].join("");
}

/** The experiments table, first on the page: sortable by a click on a header (SURVEY_SCRIPT). */
export function surveyTable(experiments: readonly Experiment[]): string {
  if (experiments.length === 0) return `<nav><p class="muted">No experiment: nothing was attributed to a trial.</p></nav>`;
  const th = SURVEY_COLUMNS.map((c) => `<th scope="col" tabindex="0">${c}</th>`).join("");
  return [
    `<nav><h2>Experiments (${experiments.length})</h2>`,
    `<p class="muted">Click a header to sort; a name leads to its section. The headline is assay's figure from the evidence, its 95% interval in brackets (each section names the method).</p>`,
    `<div class="survey-scroll"><table id="survey"><thead><tr>${th}</tr></thead><tbody>${experiments.map(surveyRow).join("")}</tbody></table></div></nav>`,
  ].join("\n");
}
