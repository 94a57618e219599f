// An Inspect log's samples as rows of the trial table (issue 40 §3), from what the document holds
// of each: the planned sample ids and, per accuracy or mean metric, each sample's value reduced over
// its epochs under both --errors settings (§13.4: what `assay compare` pairs). The document holds no
// value per epoch and no state per sample, and the page is rendered from the document alone (logs
// are never read again here): a row is one sample over its epochs, and its state is told from its
// two values (scored; no score, left out or counted 0; in neither figure).

import { isMeanKey } from "../../core/compare/trials.js";
import type { BundleEntry, RunOptions } from "../../core/results.js";
import { forTerminal } from "../../core/text.js";
import { wordsOf } from "../vocabulary.js";

/** One scorer's per-sample values (its accuracy and mean share them), named as the row shows it. */
interface Scores {
  label: string;
  exclude: readonly (number | null)[];
  zero: readonly (number | null)[];
}

/** An Inspect entry's samples as the document holds them, or why it holds none. */
export type Samples = { ids: readonly string[]; epochs: number; scores: Scores[] } | { why: string };

/** Whether the entry is an Inspect log (a kind shown by its samples), whose samples the table may list. */
export const hasSamples = (e: BundleEntry): boolean => wordsOf(e.profile).sections === "samples";

/** The entry's samples, or why the document holds none of them (null: not an Inspect log). */
export function samplesOf(e: BundleEntry): Samples | null {
  if (!hasSamples(e)) return null;
  const l = e.inspect;
  if (l === null)
    return { why: e.validity === "error" ? "the log could not be read: no sample" : "the log's samples were not read" };
  const held = Object.entries(l.metrics).filter(([k, m]) => isMeanKey(k) && m.values !== null);
  if (l.sample_ids === null || held.length === 0) {
    const note = Object.values(l.metrics).find((m) => m.note !== null)?.note ?? null;
    return {
      why: `no per-sample values in the document: assay recomputes no accuracy or mean metric of this log${note === null ? "" : ` (${forTerminal(note)})`}`,
    };
  }
  const ids = l.sample_ids;
  // Metrics of one scorer and reducer share one list: shown once, by the scorer's name where that tells them apart.
  const byPrefix = new Map<string, Scores>();
  for (const [k, m] of held) {
    const prefix = k.slice(0, k.lastIndexOf("/"));
    if (m.values!.exclude.length !== ids.length || m.values!.zero.length !== ids.length)
      return { why: "the document's per-sample values are not one per sample id" };
    if (!byPrefix.has(prefix)) byPrefix.set(prefix, { label: prefix, ...m.values! });
  }
  const scores = [...byPrefix.values()];
  const scorer = (s: Scores) => s.label.slice(0, s.label.lastIndexOf("/"));
  if (new Set(scores.map(scorer)).size === scores.length) for (const s of scores) s.label = scorer(s);
  return { ids: ids.map(forTerminal), epochs: l.plan.epochs, scores };
}

/** Values shown to 4 decimals at most (a mean of 3 epochs is 0.6667, not 0.6666666666666666). */
const shown = (v: number) => Number(v.toFixed(4)).toString();

/** A sample's state under the run's --errors: scored, no score (left out, or counted 0), or in neither figure (its grader failed, or it stopped early). */
function stateOf(s: Scores, i: number, errors: RunOptions["errors"]): string {
  if (s.exclude[i] !== null) return "scored";
  if (s.zero[i] === null) return "in neither figure";
  return errors === "zero" ? "no score: counted 0" : "no score: left out";
}

/** One sample's cells: its state (every scorer's, once each) and its values as the run's figure counts them. */
export function sampleCells(
  x: Extract<Samples, { ids: unknown }>,
  i: number,
  errors: RunOptions["errors"],
): { state: string; score: string } {
  const state = [...new Set(x.scores.map((s) => stateOf(s, i, errors)))].join("; ");
  const score = x.scores
    .map((s) => {
      const v = (errors === "zero" ? s.zero : s.exclude)[i] ?? null;
      return `${x.scores.length === 1 ? "" : `${forTerminal(s.label)}=`}${v === null ? "—" : shown(v)}`;
    })
    .join(" ");
  return { state, score };
}

/** Worth a reader's look: a sample some scorer gave no score. */
export const notableSample = (x: Extract<Samples, { ids: unknown }>, i: number): boolean =>
  x.scores.some((s) => s.exclude[i] === null);
