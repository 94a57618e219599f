// The trial table's rows: one per bundle entry, its hard result in a few short fields, as its
// experiment counts it (trial-index.ts): a valid bundle of an invalid, excluded, unscored or
// superseded trial says so, and shows no win; and one per sample of an Inspect log (samples.ts),
// each with the viewer's address of that sample. A page embeds at most MAX_ROWS of them: entries
// with something to look at (not counted, findings, flags, an exception) are taken first, then
// samples without a score, then the other entries, then the other samples, each in path order, so a
// cap never hides a problem row behind clean ones, nor a log's row behind its many samples.

import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BundleEntry, Experiment, RunOptions } from "../../core/results.js";
import { forTerminal, plural, terminalText } from "../../core/text.js";
import { kindOf } from "../../kinds/registry.js";
import { shownEntry } from "../shown.js";
import { wordsOf } from "../vocabulary.js";
import { TrialIndexes, type Verdict } from "../trial-index.js";
import { notableSample, sampleCells, samplesOf, type Samples } from "./samples.js";

/** Rows embedded in one page: beyond this a browser spends more on parsing than a reader gains. */
export const MAX_ROWS = 25_000;

/** The trial table's columns, in a row's order; the page shows only those some row fills (a job of one kind has no victory or pass). */
export const COLUMNS = [
  "path",
  "experiment",
  "trial",
  "attempt",
  "validity",
  "reward",
  "victory",
  "pass",
  "outcome",
  "codes",
  "flags",
  "task",
  "evidence",
  "sample",
  "epochs",
  "score",
] as const;

/**
 * One value per COLUMNS entry (arrays keep the embedded JSON small), then the evidence's link: a
 * file: URL the page's script makes the evidence cell's link (never a request: opened on a click).
 */
export type Row = [
  string,
  string,
  string,
  number | null,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  number | null,
  string,
  string | null,
];

const yes = (b: boolean | null, t: string, f: string) => (b === null ? "" : b ? t : f);
const rewards = (r: Record<string, number> | null) =>
  r === null
    ? ""
    : Object.entries(r)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ");

/**
 * What the trial came to, in the words its kind uses (never an advisory judgement): its reward,
 * victory or pass, each in its own column, and the state or status it ended in. A win its
 * experiment does not count (`counted` false) is "no credit".
 */
export function result(
  e: BundleEntry,
  counted: boolean,
): { reward: string; victory: string; pass: string; outcome: string } {
  const r = { reward: "", victory: "", pass: "", outcome: "" };
  if (e.validity === "error") return { ...r, outcome: "tool error" };
  // By the sections the entry's kind is shown in; a profile this version does not know shows its status alone.
  switch (kindOf(e.profile) === null ? null : wordsOf(e.profile).sections) {
    case "victories":
      return {
        ...r,
        victory: yes(e.victory, counted ? "victory" : "no credit", "no victory"),
        outcome: [e.status, e.late ? "late" : null].filter(Boolean).join(", "),
      };
    case "dimensions":
      return { ...r, pass: yes(e.pass, counted ? "pass" : "no credit", "fail"), outcome: e.status ?? "" };
    case "rewards":
      return {
        ...r,
        reward: counted ? rewards(e.rewards) : e.rewards === null ? "" : "no credit",
        outcome: e.state ?? "",
      };
    case "samples":
      return { ...r, outcome: [e.status, e.state].filter(Boolean).join(", ") };
    default:
      return { ...r, outcome: e.status ?? "" };
  }
}

const codes = (e: BundleEntry, v: Verdict) =>
  [
    ...new Set([
      ...e.errors.map((f) => f.code),
      ...(v.kind === "failure" ? (v.trialCodes ?? []) : []),
      ...e.warnings.map((f) => f.code),
    ]),
  ].join(" ");

/** The validity column: the bundle's own, or what its experiment makes of a valid bundle (`invalid (trial: SEED_MISMATCH)`, `excluded: …`, `superseded`). */
function validity(e: BundleEntry, v: Verdict): string {
  if (e.validity !== "valid") return e.validity;
  if (v.kind === "failure") return `invalid (trial: ${(v.trialCodes ?? []).join(", ")})`;
  return v.kind === "skipped" ? terminalText(v.state) : "valid";
}

/** A path shown from its root's own name on (`corpus/game/t1`, not `/tmp/…/corpus/game/t1`): the page's header names the roots. */
export function shortPath(path: string, roots: readonly string[]): string {
  for (const root of roots) {
    const r = root.replace(/\/+$/, "");
    if (r !== "" && path.startsWith(`${r}/`)) return `${basename(r)}/${path.slice(r.length + 1)}`;
  }
  return path;
}

/**
 * Where an entry's evidence is (issue 40 §3), as its kind says: the file to open first under its
 * folder (a Harbor trial's trajectory, a Terminal-Bench pane) or the log, with the command that
 * opens it in its harness's viewer; and its file: URL, from the folder the document was written in.
 */
export function evidenceOf(
  e: BundleEntry,
  roots: readonly string[],
  rawPath = e.path,
  unit?: { id: string; epoch: number },
): { text: string; href: string | null } {
  const ev = kindOf(e.profile)?.evidence?.(rawPath, unit) ?? { file: null, open: null };
  const text = ev.file === null ? shortPath(e.path, roots) : `${shortPath(e.path, roots)}/${ev.file}`;
  const at = ev.file === null ? rawPath : `${rawPath}/${ev.file}`;
  // A unit's viewer address (an Inspect sample's) after the command that serves it.
  const open = [ev.open, ev.at ?? null].filter((x) => x !== null).map(forTerminal);
  return {
    text: [unit === undefined ? text : `${text} #${forTerminal(unit.id)}`, ...open].join(" · "),
    href: pathToFileURL(resolve(at)).href,
  };
}

/**
 * The row of an entry already shown (shown.ts), with its verdict (read from the entry as the
 * document has it); `rawPath`: its path before shownEntry escaped it, for the evidence's link.
 */
export function rowOf(
  e: BundleEntry,
  v: Verdict,
  roots: readonly string[],
  rawPath = e.path,
  samples: Samples | null = samplesOf(e),
): Row {
  const r = result(e, v.kind === "passed");
  const ev = evidenceOf(e, roots, rawPath);
  return [
    shortPath(e.path, roots),
    e.experiment ?? "",
    e.trial ?? "",
    e.attempt,
    validity(e, v),
    r.reward,
    r.victory,
    r.pass,
    r.outcome,
    codes(e, v),
    [...new Set(e.flags.map((f) => f.code))].join(" "),
    e.task ?? "",
    ev.text,
    // An Inspect log's row says how many sample rows it has, or why it has none.
    samples === null ? "" : "why" in samples ? samples.why : plural(samples.ids.length, "sample"),
    samples === null || "why" in samples ? null : samples.epochs,
    "",
    ev.href,
  ];
}

/**
 * Sample `i` of a log's entry (already shown) as a row: the log's path, experiment, validity and
 * task; the sample id, its epochs, its state and values (no credit where its log is not counted);
 * its evidence the log with `inspect view` and the address that shows the sample (its first epoch:
 * the viewer steps through the others).
 */
export function sampleRow(
  e: BundleEntry,
  v: Verdict,
  roots: readonly string[],
  rawPath: string,
  x: Extract<Samples, { ids: unknown }>,
  i: number,
  errors: RunOptions["errors"],
  rawId: string,
): Row {
  const cells = sampleCells(x, i, errors);
  const ev = evidenceOf(e, roots, rawPath, { id: rawId, epoch: 1 });
  return [
    shortPath(e.path, roots),
    e.experiment ?? "",
    "",
    null,
    validity(e, v),
    "",
    "",
    "",
    cells.state,
    "",
    "",
    e.task ?? "",
    ev.text,
    x.ids[i]!,
    x.epochs,
    v.kind === "passed" ? cells.score : "no credit",
    ev.href,
  ];
}

/** Worth a reader's look: a cap keeps these before clean rows. */
export const notable = (e: BundleEntry, v: Verdict): boolean =>
  v.kind !== "passed" ||
  e.validity !== "valid" ||
  e.errors.length + e.warnings.length + e.flags.length > 0 ||
  e.exception !== null;

/**
 * The rows to embed, in four reads of the entries (none held whole): notable entries, samples
 * without a score, the other entries, the other samples (the sample reads skipped where the
 * document holds none: `samples` false); each shown (shown.ts) so no hidden character disguises a name.
 */
export function* rows(
  bundles: Iterable<BundleEntry>,
  experiments: readonly Experiment[],
  roots: readonly string[],
  cap = MAX_ROWS,
  options: { errors: RunOptions["errors"]; samples: boolean } = { errors: "exclude", samples: true },
): Generator<Row> {
  const indexes = new TrialIndexes(experiments);
  let n = 0;
  for (const first of [true, false])
    for (const ofSamples of options.samples ? [false, true] : [false])
      for (const e of bundles) {
        if (n === cap) return;
        const v = indexes.of(e).verdict(e);
        const x = samplesOf(e);
        if (!ofSamples) {
          if (notable(e, v) === first) (n++, yield rowOf(shownEntry(e), v, roots, e.path, x));
          continue;
        }
        if (x === null || "why" in x) continue;
        const shown = shownEntry(e);
        const raw = e.inspect!.sample_ids!;
        for (let i = 0; i < x.ids.length && n < cap; i++)
          if (notableSample(x, i) === first)
            (n++, yield sampleRow(shown, v, roots, e.path, x, i, options.errors, raw[i]!));
      }
}

/** How many sample rows an entry gives (beside its own row). */
export function sampleRowsOf(e: BundleEntry): number {
  const x = samplesOf(e);
  return x === null || "why" in x ? 0 : x.ids.length;
}
