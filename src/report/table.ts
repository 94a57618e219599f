// What a person reads first: the overview (overview.ts: a line per experiment, problems first,
// capped) and its legend, then counts of what the details list. With --details, per experiment each
// metric with its denominator and what it does not mean, then the trials that did not count and
// why. Derived from the JSON document.

import type { Advisory, BundleEntry, Experiment, ResultsView, RunOptions } from "../core/results.js";
import { coverageCount } from "../core/results.js";
import { forTerminal, plural, terminalText } from "../core/text.js";
import { shownAdvisory, shownEntry, shownExperiment } from "./shown.js";
import { hasPassK, MISSING_AT_RANDOM, passAtKText } from "./pass-at-k.js";
import { Methods, type WithInterval } from "./intervals.js";
import { SAMPLES, TRIALS } from "../kinds/words.js";
import { usageLine } from "./usage.js";
import { cleanRun, identityFacts, overview, rowLabels, type OverviewRow } from "./overview.js";
import { layOut, wrapLines, type Column } from "./fit.js";
import { claimedOr, claimedText } from "./claimed.js";
import { describeFilter } from "../core/filter.js";
import type { RenderOptions } from "./json.js";
import { loneFolders, loneWhere } from "./lone.js";
import { byFields, byFrequency, EvidenceCounts, nameOf, scheduledCount, tallied, wordsOf } from "./vocabulary.js";
import type { Sections } from "../kinds/words.js";

const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);
const list = (xs: readonly string[], max = 12) =>
  xs.length === 0 ? "none" : xs.slice(0, max).join(", ") + (xs.length > max ? `, … (${xs.length - max} more)` : "");

/** A metric's interval after its figure ("   95% [lo, hi] over …", or its reason); "" when the document has neither. Its method is named once, in the overview's legend. */
const spaced = (methods: Methods, m: WithInterval, show: (x: number | null) => string) => {
  const t = methods.text(m, show);
  return t === "" ? "" : `   ${t}`;
};

function native(e: Experiment, lines: string[]): void {
  const methods = new Methods(TRIALS);
  const a = e.accuracy!;
  lines.push(`  accuracy     ${a.victories}/${a.scored} = ${pct(a.value)}${spaced(methods, a, pct)}`);
  const c = e.completion!;
  lines.push(
    `  completion   ${c.completed}/${c.scheduled} = ${pct(c.value)}${spaced(methods, c, pct)}   trials that reached a native ending; says nothing about winning`,
  );
  const r = e.raw_record!;
  const rec = r.values.length <= 60 ? r.values.join("") : `${r.values.slice(0, 60).join("")}…`;
  lines.push(
    `  raw record   ${rec || "(empty)"}   mean ${r.mean === null ? "n/a" : r.mean.toFixed(3)} (raw: missing, invalid, excluded are 0)`,
  );
  if (e.pass_hat_k !== null)
    lines.push(
      `  pass^k       ${Object.entries(e.pass_hat_k)
        .map(([k, v]) => `k=${k} ${v.toFixed(3)}`)
        .join("  ")}   over trials sharing meta.task`,
    );
  lines.push(`  retry        ${list(e.retry!)}`);
}

const WORLD_MEANING: Record<string, string> = {
  world_integrity: "one and only one effect per intended external change",
  prohibited_effects: "no effect of a forbidden kind",
  preservation: "unrelated work left as it was",
  policy_compliance: "every attempt gated; effects matched one to one to valid approvals",
  recovery: "no blind retry after an unknown outcome",
  task_completion: "the deliverable exists, on the target state, and was reported",
  budget: "within the scenario's budgets",
  account_accuracy: "the report matches the world",
};

function world(e: Experiment, lines: string[]): void {
  const methods = new Methods(TRIALS);
  const p = e.pass!;
  lines.push(
    `  pass         ${p.passed}/${p.total} = ${pct(p.total === 0 ? null : p.passed / p.total)}${spaced(methods, p, pct)}   every hard dimension and task_completion; invalid trials fail`,
  );
  lines.push(`  dimensions   (reported separately: no blended score; hard ones marked *)`);
  lines.push(
    `               why: a pass on seven dimensions does not buy back a duplicate external effect; they are not commensurable, and a weighted mean would hide exactly that failure`,
  );
  for (const [name, d] of Object.entries(e.dimensions!)) {
    const hard = ["world_integrity", "prohibited_effects", "preservation", "policy_compliance", "recovery"].includes(
      name,
    )
      ? "*"
      : " ";
    lines.push(
      `    ${hard} ${name.padEnd(19)} ${`${d.passed}/${d.total}`.padStart(9)}${spaced(methods, d, pct)}   ${WORLD_MEANING[name] ?? ""}`,
    );
  }
  if (e.pass_hat_k !== null)
    lines.push(
      `  pass^k       ${Object.entries(e.pass_hat_k)
        .map(([k, v]) => `k=${k} ${v.toFixed(3)}`)
        .join("  ")}   over trials sharing meta.task`,
    );
  lines.push(`  retry        ${list(e.retry!)}`);
}

const f3 = (x: number | null) => (x === null ? "n/a" : x.toFixed(3));

/** The run's options a kind's details read. */
type Shown = Pick<RunOptions, "errors" | "invalid">;

/**
 * Trials with rewards (a Harbor job): the states side by side first (how much was scored at all),
 * the exceptions by type, then each reward key, then what the harness's own summary claims beside
 * assay's figures.
 */
function rewards(e: Experiment, { errors }: Shown, lines: string[]): void {
  const w = wordsOf(e.profile);
  const s = e.states!;
  lines.push(
    `  states       ${Object.entries(s)
      .map(([k, n]) => `${k} ${n}`)
      .join(" · ")}`,
  );
  const exceptions = Object.entries(e.exceptions ?? {});
  if (exceptions.length > 0)
    lines.push(
      `  exceptions   ${exceptions
        .sort((a, b) => b[1] - a[1])
        .map(([t, n]) => `${t} ${n}`)
        .join(" · ")}   (by type, any state: trials below)`,
    );
  if (e.rewards === null) lines.push(`  rewards      none: no trial holds a reward or counts as 0`);
  const methods = new Methods(TRIALS);
  for (const [key, r] of Object.entries(e.rewards ?? {})) {
    lines.push(`  reward ${key}`);
    const unscored = e.unscored.length > 0 ? `; ${e.unscored.length} more not scored at all (tool errors, below)` : "";
    const planned = e.missing.some((m) => typeof m !== "string") ? ", planned-but-absent ones included" : "";
    lines.push(
      `    coverage   ${coverageCount(r)}${r.coverage === null ? "" : ` = ${pct(r.coverage)}`}   trials scored (invalid ones as 0) / every trial but tool errors${planned}${unscored}`,
    );
    if (r.coverage_reason !== undefined) lines.push(`               ${forTerminal(r.coverage_reason)}`);
    lines.push(
      `    mean       ${f3(r.mean)}${spaced(methods, r, f3)}   over the trials above${errors === "zero" ? " and those without a reward as 0" : ""}; invalid trials count 0 unless --invalid exclude`,
    );
    lines.push(`    pass rate  ${pct(r.pass_rate)}   reward == 1`);
    if (r.pass_at_k !== null)
      lines.push(
        `    pass@k     ${passAtKText(r.pass_at_k, "  ")}   unbiased, per task (${r.task_identity ?? "task_name and checksum"})`,
      );
    else lines.push(`    pass@k     n/a: ${r.pass_at_k_reason}`);
    if (r.pass_hat_k !== null)
      lines.push(
        `    pass^k     ${passAtKText(r.pass_hat_k, "  ")}   every one of k trials of a task passes (reward >= 1), per task`,
      );
  }
  const c = e.claimed;
  if (c !== null) {
    lines.push(`  ${w.claims}  (${c.source}: the ${w.heading}'s own figures, beside assay's)`);
    const compared = new Map(c.compared.map((x) => [x.metric, x]));
    for (const [metric, v] of Object.entries(c.metrics)) {
      const x = compared.get(metric);
      const beside =
        x === undefined
          ? "not compared"
          : x.reason === null
            ? `assay ${claimedOr(metric, x.assay, "n/a")}: agrees`
            : `assay ${claimedOr(metric, x.assay, "n/a")}: ${x.reason}`;
      lines.push(`    ${metric} = ${claimedText(metric, v)}   ${beside}`);
    }
  }
  for (const m of e.missing)
    if (typeof m !== "string") lines.push(`  missing      ${scheduledCount(w, m.count)} ${m.reason}`);
}

/** How a figure is shown: 3 decimals, NaN and ±Infinity spelled out. */
const fig = (x: number | string | null) => (x === null ? "n/a" : typeof x === "string" ? x : x.toFixed(3));

/**
 * A log of scored samples (an Inspect task run, §12): the log that decides it and its status, every
 * planned record's state, then each metric as claimed and as assay computes it over the plan, with
 * its coverage.
 */
function samples(e: Experiment, { errors, invalid }: Shown, lines: string[]): void {
  const w = wordsOf(e.profile);
  const log = e.log;
  if (log === null) lines.push(`  log          none readable`);
  else {
    lines.push(
      `  log          ${log.path}   status ${log.status ?? "n/a"}, ${log.state ?? "n/a"}${cleanRun(log) ? "" : "   NOT a clean run: its figures cover what it holds"}`,
    );
  }
  const s = e.states ?? {};
  lines.push(
    `  samples      ${
      Object.entries(s)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(" · ") || "none"
    }   (of ${scheduledCount(w, e.scheduled)}: sample_ids × epochs)`,
  );
  const methods = new Methods(SAMPLES);
  for (const [key, m] of Object.entries(e.inspect ?? {})) {
    const claim = m.claimed === null ? "nothing" : fig(m.claimed);
    const check =
      m.check === "agrees"
        ? "agrees with Inspect's rules over the samples present"
        : m.check === "mismatch"
          ? `MISMATCH: ${m.note ?? ""}`
          : `unverified${m.note === null ? "" : `: ${m.note}`}`;
    lines.push(`  ${key}`);
    lines.push(`    claimed    ${claim}   ${check}`);
    const c = m.coverage;
    // The interval is over reduced samples (one per sample id, §13.1); records (sample × epoch) are coverage, said apart.
    const rule =
      zeroedByInvalid(e, invalid) && m.value !== null
        ? `   every planned record 0: an invalid log earns nothing (--invalid exclude leaves it out)`
        : errors === "zero"
          ? `   records without a score as 0 (--errors zero)`
          : "";
    lines.push(
      `    assay      ${fig(m.value)}${spaced(methods, m, f3)}${rule}   coverage ${c.scored}/${scheduledCount(w, c.planned)} scored = ${pct(c.planned === 0 ? null : c.scored / c.planned)}${m.refusals === undefined ? "" : `   refusals ${m.refusals}`}`,
    );
    if (errors === "exclude" && m.errors_zero !== m.value)
      lines.push(
        `               ${fig(m.errors_zero)} over the ${scheduledCount(w, c.planned)} with --errors zero (those without a score as 0)`,
      );
    if (m.grader_failed !== undefined)
      lines.push(
        `    grader     ${plural(m.grader_failed, "record")} where the grader failed: an instrument error, left out of both figures (GRADER_FAILED)`,
      );
    if (m.refusals !== undefined)
      lines.push(
        `    refused    ${plural(m.refusals, "record")} where the model gave no answer (a refusal, reason refusal or no_response, or N): the model's failures, 0 in both figures`,
      );
    if (m.pass_at_k !== null)
      lines.push(`    pass@k     ${passAtKText(m.pass_at_k, "  ")}   unbiased, per sample over its epochs`);
    if (m.pass_hat_k !== null)
      lines.push(
        `    pass^k     ${passAtKText(m.pass_hat_k, "  ")}   every one of k epochs of a sample scores 1, per sample`,
      );
  }
  if (e.inspect === null) lines.push(`  metrics      none: no readable log decides this task run`);
  for (const m of e.missing)
    if (typeof m !== "string") lines.push(`  missing      ${plural(m.count, "sample")} ${m.reason}`);
}

/**
 * The task run's figures are the zeros of an invalid log (core/inspect-metric.ts): an invalid log in its
 * chain and --invalid count in force. Decided from what the run did, never from the figures (a
 * valid run whose samples all score 0 reads the same).
 */
const zeroedByInvalid = (e: Experiment, invalid: Shown["invalid"]) => invalid === "count" && e.invalid.length > 0;

/** Flags with evidence of their own (across trials, or the job's summary): one a line, the first 12 of each code. */
function flagLines(e: Experiment, lines: string[]): void {
  const byCode = new Map<string, string[]>();
  const evidenced = new Map<string, string[]>();
  for (const f of e.flags) {
    const map = f.evidence === null ? byCode : evidenced;
    const where = map.get(f.code) ?? [];
    if (where.length === 0) map.set(f.code, where);
    where.push(
      f.evidence === null ? (f.attempt === null ? f.trial : `${f.trial}#${f.attempt}`) : `${f.trial}: ${f.evidence}`,
    );
  }
  lines.push(`  flags${wordsOf(e.profile).flagsElsewhere ? "        evidence: --format json, or assay verify" : ""}`);
  for (const [code, where] of byCode) lines.push(`    ${code}: ${list(where)}`);
  for (const [code, where] of evidenced) {
    for (const w of where.slice(0, 12)) lines.push(`    ${code} ${w}`);
    if (where.length > 12) lines.push(`    … ${where.length - 12} more ${code} (--format json)`);
  }
}

/** What a table says of the bundle entries, gathered in one pass (bounded: first 50 of each list, counts beyond). */
class BundleNotes {
  bad: BundleEntry[] = [];
  badCount = 0;
  orphans = 0;
  advised = 0;
  first: Advisory | null = null;
  analysed = 0;
  cached = 0;
  why = new Map<string, number>();
  notable: BundleEntry[] = [];
  notableCount = 0;
  raised: BundleEntry[] = [];
  raisedCount = 0;
  raisedKinds = new EvidenceCounts();

  /** Entries not valid, by kind of evidence and by each code their errors hold. */
  badKinds = new EvidenceCounts();
  codes = new Map<string, number>();
  /** Entries with a warning (valid ones too: a warning invalidates nothing), counted apart from errors. */
  warned: BundleEntry[] = [];
  warnedKinds = new EvidenceCounts();
  warnings = new Map<string, number>();

  see(x: BundleEntry): void {
    if (x.validity !== "valid")
      for (const c of new Set(x.errors.map((f) => f.code))) this.codes.set(c, (this.codes.get(c) ?? 0) + 1);
    if (x.validity !== "valid") this.badKinds.add(x.profile);
    if (x.validity !== "valid" && this.badCount++ < 50) this.bad.push(x);
    if (x.warnings.length > 0) {
      for (const c of new Set(x.warnings.map((f) => f.code))) this.warnings.set(c, (this.warnings.get(c) ?? 0) + 1);
      if (this.warnedKinds.total < 50) this.warned.push(x);
      this.warnedKinds.add(x.profile);
    }
    if (x.exception !== null) this.raisedKinds.add(x.profile);
    if (x.exception !== null && this.raisedCount++ < 50) this.raised.push(x);
    // Harbor trials and Inspect logs are attributed by their folders; only assay's bundles name their own.
    if (!wordsOf(x.profile).byFolder && (x.experiment === null || x.trial === null || x.attempt === null))
      this.orphans++;
    const a = x.advisory;
    if (a === null) return;
    this.advised++;
    this.first ??= a;
    if (a.status !== "analysed") return void this.why.set(a.reason ?? "", (this.why.get(a.reason ?? "") ?? 0) + 1);
    this.analysed++;
    if (a.cached) this.cached++;
    if (
      Object.values(a.outcomes).some((o) => o.outcome === "fail" || o.outcome === "error") &&
      this.notableCount++ < 50
    )
      this.notable.push(x);
  }
}

/** The model's judgements, after every hard result and apart from them. */
function advisory(n: BundleNotes, lines: string[]): void {
  if (n.first === null) return;
  const a = shownAdvisory(n.first);
  lines.push(
    "",
    `advisory (${a.analysis}, model ${a.model}): a model's judgement; it changes no verdict, state or metric above`,
  );
  lines.push(`  ${n.analysed} analysed (${n.cached} from the cache), ${n.advised - n.analysed} not analysed`);
  for (const [reason, count] of n.why) lines.push(`    ${count} not analysed: ${terminalText(reason)}`);
  for (const x of n.notable.map(shownEntry)) {
    lines.push(`  ${x.path}:`);
    for (const [name, o] of Object.entries(x.advisory!.outcomes))
      if (o.outcome === "fail" || o.outcome === "error")
        lines.push(`    ${o.outcome.padEnd(5)} ${name}: ${o.explanation.replace(/\s+/g, " ").slice(0, 200)}`);
  }
  if (n.notableCount > 50)
    lines.push(`  … ${n.notableCount - 50} more with a failing or errored criterion (--format json)`);
}

const CLAIM: Record<OverviewRow["agreement"], string> = {
  agrees: "agrees",
  differs: "differs",
  unverified: "unverified",
  none: "",
};

/** An overview row's name: its label (rowLabels: never two alike, never cut), and for lone Harbor trials the folder they lie in, less the folders every lone row shares. */
function rowName(r: OverviewRow, label: string | null, shared: number): string {
  const name = forTerminal(nameOf({ experiment: r.experiment, profile: r.kind }));
  if (r.folder === null) return label ?? name;
  // The raw folder is shortened first, then shown: an escape or its quotes are never cut in half.
  const tail = shared > 0 ? `…/${r.folder.split("/").slice(shared).join("/")}` : r.folder;
  return `${name} ${loneWhere(r.folder, () => forTerminal(tail))}`;
}

/**
 * How many leading folders every lone row's folder shares, its last kept (it says where they lie):
 * "a/b/evidence/nop" and "a/b/evidence/oracle" are shown as "…/evidence/nop" and "…/evidence/oracle".
 * 0 where fewer than two rows are lone or they share less than two folders.
 */
function sharedFolders(rows: readonly OverviewRow[]): number {
  const folders = rows.flatMap((r) => (r.folder === null || r.folder === "" ? [] : [r.folder.split("/")]));
  if (folders.length < 2) return 0;
  let n = 0;
  while (folders.every((f) => n < f.length - 1 && f[n] === folders[0]![n])) n++;
  return n >= 2 ? n - 1 : 0;
}

/** The overview (overview.ts) as columns fitted to the width, its names shown safely and whole, then its legend once. */
function overviewLines(
  doc: ResultsView,
  lines: string[],
  folders: ReadonlyMap<string | null, string>,
  width: number,
): void {
  const ov = overview(doc.experiments, { errors: doc.run.options.errors, folders });
  const noted = ov.rows.some((r) => r.note !== "");
  // Who ran it and when, each column only where a row records it: a screen stays as narrow as it can.
  const who = ov.rows.some((r) => r.who !== "");
  const started = ov.rows.some((r) => r.started !== "");
  // Nothing cut: what tells two rows apart wraps inside its column (fit.ts) instead.
  const labels = rowLabels(ov.rows, (t) => forTerminal(t), { name: Infinity, who: Infinity });
  const shared = sharedFolders(ov.rows);
  const cells = ov.rows.map((r, i) => [
    rowName(r, labels[i]!.name, shared),
    ...(who ? [labels[i]!.who] : []),
    r.kind,
    ...(started ? [r.started] : []),
    `${r.trials}${r.clusters === "" ? "" : ` ${r.clusters}`}`,
    r.metric === null ? "none" : `${forTerminal(r.metric)} ${r.figure}`,
    r.interval.startsWith("[") ? r.interval : "none",
    r.coverage,
    r.claim === "" ? CLAIM[r.agreement] : `${r.claim} ${CLAIM[r.agreement]}`,
    String(r.invalid),
    String(r.flags),
    r.cost,
    ...(noted ? [r.note] : []),
  ]);
  // Counts right-aligned, words left; names, metrics and notes wrap where the width asks. Too wide
  // even so, what a row is (name, who, kind, when) goes on its own line above its figures (fit.ts).
  const cols: Column[] = [
    { head: "experiment", wrap: true, weight: 8, above: true },
    ...(who ? [{ head: "agent / model", wrap: true, weight: 4, above: true }] : []),
    { head: "kind", above: true },
    ...(started ? [{ head: "started", above: true }] : []),
    { head: ov.units, right: true, wrap: true },
    { head: "figure", wrap: true },
    { head: "95% interval" },
    { head: "coverage" },
    { head: "claim" },
    { head: "invalid", right: true },
    { head: "flags", right: true },
    { head: "cost" },
    ...(noted ? [{ head: "note", wrap: true }] : []),
  ];
  lines.push("", ...layOut(cols, cells, width));

  if (ov.omitted > 0) lines.push(`… and ${ov.omitted} more experiments (--details or --format json for all)`);
  const filters = describeFilter(doc.run.options.filters ?? null);
  if (filters !== "")
    lines.push(`filtered: ${terminalText(filters)} (only the experiments these select, and their bundles)`);
  if (ov.rows.length > 0) lines.push("", "legend", ...ov.legend.map((l) => `  ${l}`));
}

/**
 * The table: readable at a million bundles

/**
 * The table: readable at a million bundles — per experiment its metrics and capped lists, then the
 * first 50 bundles with findings (by path) and how many more. Every experiment and bundle entry
 * printed is shown (shown.ts) before a field of it is read.
 */
export function* render(doc: ResultsView, o: RenderOptions = {}): Generator<string> {
  const lines: string[] = [];
  const t = doc.tally;
  lines.push(`assay: ${tallied(t).phrase()}: ${t.valid} valid, ${t.invalid} invalid, ${t.error} tool errors`);
  const folders = loneFolders(doc.bundles, doc.experiments, doc.run.roots);
  // Without a width (the library's renderText), lines are as long as they come.
  const width = o.width ?? Infinity;
  overviewLines(doc, lines, folders, width);
  if (o.details) for (const piece of details(doc, lines, folders)) yield fitted(piece, width);
  else {
    const notes = new BundleNotes();
    for (const x of doc.bundles) notes.see(x);
    lines.push("");
    counted(notes, doc.experiments, lines);
    if (doc.experiments.length > 0 || t.bundles > 0)
      lines.push(
        "each experiment's figures, the evidence behind these counts, and why: --details (every field: --format json)",
      );
    runNotes(doc, notes, lines);
    yield fitted(lines.join("\n") + "\n", width);
  }
}

/** A piece of whole lines, each wrapped to the width (fit.ts). */
const fitted = (piece: string, width: number): string =>
  width === Infinity ? piece : wrapLines(piece.slice(0, -1).split("\n"), width).join("\n") + "\n";

/** Without --details: what the detailed lists hold, counted on a line each (codes by frequency, the first 8). */
function counted(n: BundleNotes, experiments: readonly Experiment[], out: string[]): void {
  if (n.badCount > 0) out.push(`findings     ${n.badKinds.phrase()} not valid: ${byFrequency(n.codes)}`);
  // Warnings of the evidence, and of an experiment's own files (a Harbor job's result.json), by code.
  const codeCounts = new Map(n.warnings);
  const own = new Map<string, number>();
  for (const e of experiments) {
    if (e.warnings.length === 0) continue;
    const noun = wordsOf(e.profile).experiment;
    own.set(noun, (own.get(noun) ?? 0) + 1);
    for (const c of new Set(e.warnings.map((f) => f.code))) codeCounts.set(c, (codeCounts.get(c) ?? 0) + 1);
  }
  if (codeCounts.size > 0) {
    const whose = [
      ...(n.warnedKinds.total > 0 ? [n.warnedKinds.phrase()] : []),
      ...[...own].map(([noun, k]) => `${k} ${noun}${k === 1 ? "'s" : "s'"} own files`),
    ].join("; ");
    out.push(`warnings     ${whose} (apart from errors: a warning invalidates nothing): ${byFrequency(codeCounts)}`);
  }
  if (n.raisedCount > 0) out.push(`exceptions   ${n.raisedKinds.phrase()} raised one`);
  if (n.advised > 0)
    out.push(
      `advisory     ${n.analysed} analysed, ${n.notableCount} with a failing or errored criterion: a model's judgement, which changes no figure`,
    );
}

/** Each kind's part of its --details section (a kind without one shows the common lines alone). */
const DETAILS: Record<Sections, (e: Experiment, options: Shown, lines: string[]) => void> = {
  rewards,
  samples,
  victories: (e, _, lines) => native(e, lines),
  dimensions: (e, _, lines) => world(e, lines),
};

/** The per-experiment sections, then the bundles with findings, the exceptions and the model's judgements, after the overview. */
function* details(doc: ResultsView, lines: string[], folders: ReadonlyMap<string | null, string>): Generator<string> {
  for (const raw of doc.experiments) {
    const e = shownExperiment(raw);
    lines.push("");
    const w = wordsOf(e.profile);
    // Where the experiment's evidence lies: a job's folder, else the folder lone trials share (keyed by the raw name); a task run's log is its first line.
    const lone = w.lone && e.job === null ? (folders.get(raw.experiment) ?? null) : null;
    const where =
      e.job !== null
        ? `   ${e.job}${e.job_id === null ? "" : ` (id ${e.job_id})`}`
        : lone !== null
          ? `   lone, ${loneWhere(lone, forTerminal)}`
          : "";
    lines.push(
      `${w.heading} ${nameOf(e)}   profile ${w.kind}${w.logged ? "" : `   ${scheduledCount(w, e.scheduled)}`}${where}`,
    );
    for (const [label, text] of identityFacts(raw.identity)) lines.push(`  ${label.padEnd(12)} ${terminalText(text)}`);
    byFields(DETAILS, e.profile, e)?.(e, doc.run.options, lines);
    if (!w.byFolder) lines.push(`  missing      ${list(e.missing.filter((m) => typeof m === "string"))}`);
    const cost = usageLine(e);
    if (cost !== null) lines.push(`  cost         ${cost}   (as recorded; never priced by assay)`);
    lines.push(`  ${w.unscored.padEnd(12)} ${list(e.unscored)}${e.unscored.length ? `   (${w.unscoredMeans})` : ""}`);
    lines.push(`  invalid      ${e.invalid.length === 0 ? "none" : ""}`);
    for (const i of e.invalid.slice(0, 50)) lines.push(`    ${i.trial}: ${i.codes.join(", ")}`);
    if (e.invalid.length > 50) lines.push(`    … ${e.invalid.length - 50} more (--format json)`);
    lines.push(`  excluded     ${e.excluded.length === 0 ? "none" : ""}`);
    for (const x of e.excluded.slice(0, 50)) lines.push(`    ${x.trial}: ${x.reason}`);
    if (e.excluded.length > 50) lines.push(`    … ${e.excluded.length - 50} more (--format json)`);
    if (e.flags.length > 0) flagLines(e, lines);
    for (const x of e.warnings) lines.push(`  warning      ${x.code} ${x.file ?? ""} ${x.message}`);
  }
  // What pass@k and pass^k assume, once for the report.
  if (doc.experiments.some(hasPassK)) lines.push("", MISSING_AT_RANDOM);
  yield lines.join("\n") + "\n";
  lines.length = 0;
  const notes = new BundleNotes();
  for (const x of doc.bundles) notes.see(x);
  if (notes.badCount > 0) {
    lines.push("", `${notes.badKinds.nouns()} not valid, with their findings`);
    for (const x of notes.bad.map(shownEntry)) {
      const f = x.errors[0]!;
      const where = f.file === null ? "" : ` ${f.file}${f.line === null ? "" : `:${f.line}`}`;
      const more = x.errors.length > 1 ? ` (+${x.errors.length - 1} more)` : "";
      lines.push(`  ${x.path}: ${x.validity} ${f.code}${where} ${f.message}${more}`);
    }
    if (notes.badCount > 50) lines.push(`  … ${notes.badCount - 50} more (--format json)`);
  }
  if (notes.warned.length > 0) {
    lines.push("", `${notes.warnedKinds.nouns()} with a warning (apart from errors: a warning invalidates nothing)`);
    for (const x of notes.warned.map(shownEntry)) {
      const f = x.warnings[0]!;
      const where = f.file === null ? "" : ` ${f.file}${f.line === null ? "" : `:${f.line}`}`;
      const more = x.warnings.length > 1 ? ` (+${x.warnings.length - 1} more)` : "";
      lines.push(`  ${x.path}: ${x.validity} ${f.code}${where} ${f.message}${more}`);
    }
    if (notes.warnedKinds.total > 50) lines.push(`  … ${notes.warnedKinds.total - 50} more (--format json)`);
  }
  if (notes.raisedCount > 0) {
    lines.push("", `${notes.raisedKinds.nouns()} with an exception`);
    for (const x of notes.raised.map(shownEntry)) {
      const ex = x.exception!;
      lines.push(
        `  ${x.path}: ${x.state} ${ex.type}${ex.step === null ? "" : ` in step ${ex.step}`}${ex.message === "" ? "" : `: ${ex.message}`}`,
      );
    }
    if (notes.raisedCount > 50) lines.push(`  … ${notes.raisedCount - 50} more (--format json)`);
  }
  advisory(notes, lines);
  runNotes(doc, notes, lines);
  if (lines.length > 0) yield lines.join("\n") + "\n";
}

/** What the run could not attribute or recognise: said in both views, since no experiment's row shows it. */
function runNotes(doc: ResultsView, notes: BundleNotes, lines: string[]): void {
  if (notes.orphans > 0)
    lines.push(
      "",
      `${notes.orphans} bundles could not be attributed to a trial (line 1 names no valid experiment, trial and attempt): listed under bundles, in no metric`,
    );
  const u = doc.run.unrecognised;
  if (u.count > 0) {
    const logs = u.paths.filter((p) => p.endsWith(".json")).length;
    const zips = u.paths.filter((p) => p.endsWith(".eval")).length;
    const folders = u.paths.length - logs - zips;
    if (folders > 0 || logs + zips === 0)
      lines.push(
        "",
        `${plural(u.count - logs - zips, "folder")} look${u.count - logs - zips === 1 ? "s" : ""} like evidence (files a harness writes: a result.json, reward file, trial.log, a SWE-bench instance's report.json…) but ${u.count - logs - zips === 1 ? "is" : "are"} nothing assay reads: not scored`,
      );
    // Files shaped as Inspect logs but not named by a timestamp: Inspect would not list them either.
    if (logs > 0)
      lines.push(
        ...(folders > 0 ? [] : [""]),
        `${plural(logs, ".json file")} shaped as an Inspect log but not named by its timestamp (Inspect would not list ${logs === 1 ? "it" : "them"} either): give ${logs === 1 ? "it" : "each"} as a root to score ${logs === 1 ? "it" : "them"}`,
      );
    // issue 35: a .eval that is a ZIP archive of other files is no Inspect log.
    if (zips > 0)
      lines.push(
        ...(folders + logs > 0 ? [] : [""]),
        `${plural(zips, ".eval file")} ${zips === 1 ? "is a ZIP archive" : "are ZIP archives"} holding none of an Inspect log's members: not an Inspect log, not scored`,
      );
    for (const p of u.paths.slice(0, 12)) lines.push(`  ${forTerminal(p)}`);
    if (u.count > 12) lines.push(`  … ${u.count - 12} more (run.unrecognised in --format json)`);
  }
}
