// Where lone Harbor trials lie (issue 23). A trial folder in no job folder is grouped by its
// config's job id (`job@0813c23b`, §11) or under no name: neither says where it is. The document's
// experiment records no folder, its entries do: one pass over them finds, per lone group, the
// folder its trials share (the trial's own for one), relative to the roots as Inspect paths are.

import type { BundleEntry, Experiment } from "../core/results.js";
import { relativeTo } from "./where.js";
import { wordsOf } from "./vocabulary.js";

const isLone = (x: { profile: string | null; job: string | null }) => wordsOf(x.profile).lone && x.job === null;

/**
 * A raw folder cut from the left to about `max` characters (its last folders say most), never
 * inside a surrogate pair; a format escapes the cut path after (forTerminal keeps its quotes whole).
 */
export function folderTail(p: string, max: number): string {
  if (p.length <= max) return p;
  let from = p.length - max + 1;
  const c = p.charCodeAt(from);
  if (c >= 0xdc00 && c <= 0xdfff) from++; // the low half of a pair: start after it
  return `…${p.slice(from)}`;
}

/** Where a lone group lies, in prose: "in <folder>" (the folder as `show` escapes it), or "in several roots" when its trials share none. */
export const loneWhere = (folder: string, show: (p: string) => string): string =>
  folder === "" ? "in several roots" : `in ${show(folder)}`;

/** The longest folder both paths lie in (or are). */
function shared(a: string, b: string): string {
  const x = a.split("/");
  const y = b.split("/");
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return x.slice(0, i).join("/");
}

/**
 * Each lone Harbor group's folder, by experiment name (null for trials without a job id), "" where
 * its trials lie under several roots and share no folder; empty, without reading an entry, when
 * the document has no lone trials. One string per group is held.
 */
export function loneFolders(
  bundles: Iterable<BundleEntry>,
  experiments: readonly Experiment[],
  roots: readonly string[],
): Map<string | null, string> {
  const out = new Map<string | null, string>();
  const absolute = new Set<string | null>();
  if (!experiments.some(isLone)) return out;
  for (const e of bundles) {
    if (!isLone(e)) continue;
    const had = out.get(e.experiment);
    out.set(e.experiment, had === undefined ? e.path : shared(had, e.path));
    if (e.path.startsWith("/")) absolute.add(e.experiment);
  }
  // Nothing shared: "/" where the paths are absolute; trials under several relative roots (`score r1 r2`) share no folder: "" (loneWhere says so).
  for (const [k, p] of out) out.set(k, p !== "" ? relativeTo(p, roots) : absolute.has(k) ? "/" : "");
  return out;
}
