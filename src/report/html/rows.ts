// The trial table's rows: one per bundle entry, its hard result in a few short fields. A page
// embeds at most MAX_ROWS of them; entries with something to look at (not valid, findings,
// flags, an exception) are taken first, then the rest in path order, so a cap never hides a problem
// row behind clean ones.

import { basename } from "node:path";
import type { BundleEntry } from "../../core/results.js";
import { shownEntry } from "../shown.js";

/** Rows embedded in one page: beyond this a browser spends more on parsing than a reader gains. */
export const MAX_ROWS = 25_000;

/** [path, experiment, trial, attempt, validity, outcome, codes, flags]: arrays keep the embedded JSON small. */
export type Row = [string, string, string, number | null, string, string, string, string];

const yes = (b: boolean | null, t: string, f: string) => (b === null ? null : b ? t : f);
const rewards = (r: Record<string, number> | null) => (r === null ? "" : Object.entries(r).map(([k, v]) => `${k}=${v}`).join(" "));

/** What the trial came to, in the words its profile uses (never an advisory judgement). */
export function outcome(e: BundleEntry): string {
  if (e.validity === "error") return "tool error";
  switch (e.profile) {
    case "native-game":
      return [e.status, yes(e.victory, "victory", "no victory"), e.late ? "late" : null].filter(Boolean).join(", ");
    case "world":
      return [e.status, yes(e.pass, "pass", "fail")].filter(Boolean).join(", ");
    case "harbor":
      return [e.state, rewards(e.rewards)].filter(Boolean).join(" ");
    case "inspect":
      return [e.status, e.state].filter(Boolean).join(", ");
    default:
      return e.status ?? "";
  }
}

const codes = (e: BundleEntry) => [...new Set([...e.errors, ...e.warnings].map((f) => f.code))].join(" ");

/** A path shown from its root's own name on (`corpus/game/t1`, not `/tmp/…/corpus/game/t1`): the page's header names the roots. */
export function shortPath(path: string, roots: readonly string[]): string {
  for (const root of roots) {
    const r = root.replace(/\/+$/, "");
    if (r !== "" && path.startsWith(`${r}/`)) return `${basename(r)}/${path.slice(r.length + 1)}`;
  }
  return path;
}

export const rowOf = (e: BundleEntry, roots: readonly string[]): Row => [
  shortPath(e.path, roots),
  e.experiment ?? "",
  e.trial ?? "",
  e.attempt,
  e.validity,
  outcome(e),
  codes(e),
  [...new Set(e.flags.map((f) => f.code))].join(" "),
];

/** Worth a reader's look: a cap keeps these before clean rows. */
export const notable = (e: BundleEntry): boolean => e.validity !== "valid" || e.errors.length + e.warnings.length + e.flags.length > 0 || e.exception !== null;

/** The rows to embed, notable ones first: two reads of the entries, neither held whole; each shown (shown.ts) so no hidden character disguises a name. */
export function* rows(bundles: Iterable<BundleEntry>, roots: readonly string[], cap = MAX_ROWS): Generator<Row> {
  let n = 0;
  for (const pick of [notable, (e: BundleEntry) => !notable(e)])
    for (const e of bundles) {
      if (n === cap) return;
      if (pick(e)) (n++, yield rowOf(shownEntry(e), roots));
    }
}
