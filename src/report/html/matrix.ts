// The task × run matrix in the page itself (issue 40 §3): the runs this document holds of the same
// tasks, grouped as `assay compare RESULTS.json` groups them (core/compare/rank.ts: by name, recorded
// benchmark or task set), each group's unit × run matrix (core/compare/changes.ts) drawn as compare's
// HTML draws it. Where the document holds no two runs of shared tasks, the page says why instead.

import type { Side } from "../../core/compare/compare.js";
import { MATCH_BY, matchKey, runKey } from "../../core/compare/match.js";
import { kindKey } from "../../core/compare/names.js";
import { rankRuns } from "../../core/compare/rank.js";
import { TrialOutcomes } from "../../core/compare/trials.js";
import type { BundleEntry, Experiment, Results } from "../../core/results.js";
import { plural, terminalText } from "../../core/text.js";
import { HTML_ROWS, matrixHtml } from "../compare/changes.js";
import { MATCH_WORDS, metricName } from "../compare/shared.js";
import { esc } from "./escape.js";

/** Matrices drawn in one page (each up to HTML_ROWS rows); `assay compare` shows every one. */
export const MAX_MATRICES = 20;

const h = (s: string) => esc(terminalText(s));
const COMMAND = `<code>assay compare RESULTS.json</code>`;

/** Each entry's unit values as compare reads them (numbers per unit, never the entry), then the section. */
export class TaskMatrix {
  private readonly trials = new TrialOutcomes();
  /** The runs compare could put in a group: only their entries are read for a matrix. */
  private readonly wanted: ReadonlySet<string>;

  constructor(experiments: readonly Experiment[]) {
    this.wanted = matchable(experiments);
  }

  add(e: BundleEntry): void {
    if (this.wanted.size > 0 && this.wanted.has(kindKey(e.profile, e.experiment))) this.trials.add(e);
  }

  /** The section: a matrix per group of runs and headline metric, or why there is none. */
  section(run: Results["run"], experiments: readonly Experiment[]): string {
    const units = new Map(experiments.map((x) => [x, this.trials.take(x, run.options)] as const));
    const side: Side = { file: "this document", run, experiments, units };
    const doc = rankRuns([side]);
    const drawn = doc.experiments.filter((e) => e.matrix.rows.length > 0);
    const out = [`<section id="task-matrix"><h2>Tasks across runs</h2>`];
    if (drawn.length === 0) {
      out.push(`<p class="muted" id="no-task-matrix">No task × run matrix: ${h(whyNone(experiments, doc))}.</p>`);
      return `${out.join("\n")}</section>`;
    }
    out.push(
      `<p class="muted">Each ${h([...new Set(drawn.map((e) => e.unit))].join(" or "))} (a row) in each run of the same tasks in this document (a column): its value as the run's headline metric counts it, — where the run does not count it; rows whose values differ most first. ${COMMAND} ranks these runs with paired tests.</p>`,
    );
    for (const [i, e] of drawn.slice(0, MAX_MATRICES).entries()) {
      const rows = e.matrix.rows.slice(0, HTML_ROWS);
      out.push(
        `<h3 data-matrix="${i}" data-units="${e.matrix.total}">${h(e.experiment)}: ${h(metricName(e.ranking.metric))} <small>(${h(MATCH_WORDS[e.match])}; by ${h(e.unit)})</small></h3>`,
        [...matrixHtml({ ...e.matrix, rows }, e.unit)].join(""),
      );
    }
    if (drawn.length > MAX_MATRICES)
      out.push(
        `<p class="muted">${plural(drawn.length - MAX_MATRICES, "more matrix", "more matrices")} not drawn here: ${COMMAND} shows every one.</p>`,
      );
    return `${out.join("\n")}</section>`;
  }
}

/**
 * The runs (by kindKey) that share a key compare matches by (name, benchmark or task set: any of
 * them, whichever compare tries first) or their whole identity (a run given twice) with another:
 * decided from the experiments alone, before an entry is read, so a document of runs that match
 * nothing holds no entry's units for a matrix (a review: every unit of every run was held). A
 * superset of what rankRuns groups: a unit it needs is never left out.
 */
export function matchable(experiments: readonly Experiment[]): Set<string> {
  const runs = experiments.filter((x) => x.experiment !== null);
  const out = new Set<string>();
  const keys: ((x: Experiment) => string | null)[] = [
    ...MATCH_BY.map((by) => (x: Experiment) => matchKey(x, by)),
    runKey,
  ];
  for (const key of keys) {
    const holders = new Map<string, Experiment[]>();
    for (const x of runs) {
      const k = key(x);
      if (k === null) continue;
      const xs = holders.get(k);
      if (xs === undefined) holders.set(k, [x]);
      else xs.push(x);
    }
    for (const xs of holders.values()) if (xs.length > 1) for (const x of xs) out.add(kindKey(x.profile, x.experiment));
  }
  return out;
}

/** Why the document gives no matrix: one run (or none), or no two runs of the same tasks with a headline both count. */
function whyNone(experiments: readonly Experiment[], doc: ReturnType<typeof rankRuns>): string {
  const runs = experiments.filter((x) => x.experiment !== null).length;
  if (runs < 2)
    return `this document holds ${runs === 0 ? "no run" : "one run"}; a matrix needs two runs of the same tasks (score them into one document, or compare two documents: assay compare BASE.json HEAD.json)`;
  const reasons = [...new Set(doc.unscored.map((u) => `${u.experiment}: ${u.reason}`))];
  return `no two of its ${runs} runs share tasks with a headline metric both count (runs are matched by name, recorded benchmark or task set, as assay compare matches them)${reasons.length === 0 ? "" : `; ${reasons.join("; ")}`}`;
}
