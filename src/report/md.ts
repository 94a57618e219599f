// A compact Markdown summary for $GITHUB_STEP_SUMMARY and pull-request comments: a headline line,
// one table per experiment (each figure with what it is over; Harbor's and Inspect's own claims
// beside assay's), what did not count, and the findings grouped by code. Capped, saying what was
// left out: GitHub takes 1 MiB of step summary, and a reader a screenful. Every name and text from
// evidence is escaped (md-text.ts): a folder named `| x |` or `<img>` is text, never markup.

import type { Experiment, ResultsView } from "../core/results.js";
import { coverageCount } from "../core/results.js";
import { byteCompare, plural } from "../core/text.js";
import { mdName, mdText } from "./md-text.js";
import { TrialIndexes, TrialOnlyCodes } from "./trial-index.js";
import { relativeTo } from "./where.js";
import { hasPassK, MISSING_AT_RANDOM, passAtKText } from "./pass-at-k.js";
import { Methods, type WithInterval } from "./intervals.js";
import { usageLine } from "./usage.js";
import { cleanRun, cutMiddle, identityFacts, overview, rowLabels, type OverviewRow } from "./overview.js";
import { describeFilter } from "../core/filter.js";
import type { RenderOptions } from "./json.js";
import { claimedOr, claimedText } from "./claimed.js";
import { folderTail, loneFolders, loneWhere } from "./lone.js";
import { byFields, nameOf, scheduledCount, shownAs, tallied, wordsOf } from "./vocabulary.js";
import type { Sections } from "../kinds/words.js";

/** Experiments given a table; codes in the findings table; names listed per line. */
const MAX_EXPERIMENTS = 50;
const MAX_CODES = 25;
const MAX_LISTED = 10;
const EXAMPLES = 3;

const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);
const f3 = (x: number | string | null) => (x === null ? "n/a" : typeof x === "string" ? x : x.toFixed(3));
const ratio = (n: number, d: number) => `${n}/${d} = ${pct(d === 0 ? null : n / d)}`;
/**
 * A metric's interval after its figure (" · 95% \[lo, hi\] over …", or its reason), noted in the
 * section's legend. Brackets escaped: a "[…]" followed by "(…)" in evidence-derived text beside it
 * must never read as a link; the reason may name a metadata key, so it is text.
 */
const interval = (methods: Methods, m: WithInterval, f: (x: number) => string) => {
  const t = methods.text(m, f, { open: "\\[", close: "\\]", reason: (r) => mdText(r) });
  return t === "" ? "" : ` · ${t}`;
};
const ks = (m: Record<string, number>) => passAtKText(m, " · ");

type Row = string[];
const table = (head: Row, rows: Row[]): string[] => [
  `| ${head.join(" | ")} |`,
  `|${head.map(() => "---").join("|")}|`,
  ...rows.map((r) => `| ${r.join(" | ")} |`),
];

function native(e: Experiment, invalid: "count" | "exclude", methods: Methods): Row[] {
  const a = e.accuracy!;
  const c = e.completion;
  const rows: Row[] = [
    [
      "accuracy",
      `**${pct(a.value)}** (${a.victories}/${a.scored})${interval(methods, a, pct)}`,
      `victories / scored trials; invalid trials ${invalid === "count" ? "count as non-victories" : "left out (--invalid exclude)"}`,
    ],
  ];
  if (c !== null)
    rows.push([
      "completion",
      `${ratio(c.completed, c.scheduled)}${interval(methods, c, pct)}`,
      "trials that reached a native ending: says nothing about winning",
    ]);
  if (e.pass_hat_k !== null)
    rows.push(["pass^k", ks(e.pass_hat_k), "every one of k repeats of a task wins (trials sharing meta.task)"]);
  return rows;
}

function world(e: Experiment, invalid: "count" | "exclude", methods: Methods): Row[] {
  const p = e.pass!;
  const hard = shownAs("dimensions", e.profile)?.hardDimensions;
  const rows: Row[] = [
    [
      "pass",
      `**${ratio(p.passed, p.total)}**${interval(methods, p, pct)}`,
      `every hard dimension and task_completion; invalid trials ${invalid === "count" ? "fail" : "left out (--invalid exclude)"}`,
    ],
  ];
  for (const [name, d] of Object.entries(e.dimensions!))
    rows.push([
      `${mdName(name, true)}${hard?.has(name) === true ? " (hard)" : ""}`,
      `${d.passed}/${d.total}${interval(methods, d, pct)}`,
      "reported apart: no blended score",
    ]);
  if (e.pass_hat_k !== null) rows.push(["pass^k", ks(e.pass_hat_k), "every one of k repeats of a task passes"]);
  return rows;
}

/** Trials with rewards (a Harbor job), beside what the harness claims. */
function rewards(e: Experiment, errors: "exclude" | "zero", invalid: "count" | "exclude", methods: Methods): Row[] {
  const w = wordsOf(e.profile);
  const states =
    Object.entries(e.states ?? {})
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(" · ") || "none";
  const rows: Row[] = [
    [
      "states",
      states,
      errors === "zero"
        ? "trials without a reward count 0 (--errors zero)"
        : "trials without a reward are left out of every mean (--errors zero counts them 0)",
      "",
    ],
  ];
  for (const [key, r] of Object.entries(e.rewards ?? {})) {
    rows.push([
      `reward ${mdName(key, true)}`,
      `**${f3(r.mean)}**${interval(methods, r, f3)}`,
      `coverage ${r.coverage === null ? coverageCount(r) : ratio(r.covered, r.trials)}: trials scored (invalid ones ${invalid === "count" ? "as 0" : "left out: --invalid exclude"}) / every trial but tool errors`,
      "",
    ]);
    rows.push(["pass rate", pct(r.pass_rate), "reward == 1", ""]);
    rows.push([
      "pass@k",
      r.pass_at_k === null ? "n/a" : ks(r.pass_at_k),
      r.pass_at_k === null ? mdText(r.pass_at_k_reason ?? "") : "unbiased, per task",
      "",
    ]);
    if (r.pass_hat_k !== null)
      rows.push(["pass^k", ks(r.pass_hat_k), "every one of k trials of a task passes (reward >= 1), per task", ""]);
  }
  // Every figure the job claims, beside assay's where assay computes one (capped: a job of many evals claims many).
  const c = e.claimed;
  const compared = new Map((c?.compared ?? []).map((x) => [x.metric, x]));
  const claims = Object.entries(c?.metrics ?? {});
  for (const [metric, v] of claims.slice(0, MAX_LISTED)) {
    const x = compared.get(metric);
    const beside =
      x === undefined ? "not compared: assay computes no such figure" : x.reason === null ? "agrees" : mdText(x.reason);
    rows.push([
      `${w.label}'s ${mdName(metric, true)}`,
      x === undefined ? "" : claimedOr(metric, x.assay, "n/a"),
      beside,
      claimedText(metric, v),
    ]);
  }
  if (claims.length > MAX_LISTED)
    rows.push(["…", "", `and ${claims.length - MAX_LISTED} more figures the ${w.heading} claims (--format json)`, ""]);
  return rows;
}

/** A log of scored samples (an Inspect task run). */
function samples(e: Experiment, errors: "exclude" | "zero", methods: Methods, roots: readonly string[]): Row[] {
  const w = wordsOf(e.profile);
  const log = e.log;
  const clean = log !== null && cleanRun(log);
  const rows: Row[] = [
    [
      "log",
      log === null ? "none readable" : mdName(relativeTo(log.path, roots), true),
      log === null
        ? ""
        : `status ${log.status ?? "n/a"}, ${log.state ?? "n/a"}${clean ? "" : ": **not a clean run**, its figures cover what it holds"}`,
      "",
    ],
    [
      "samples",
      Object.entries(e.states ?? {})
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(" · ") || "none",
      `of ${scheduledCount(w, e.scheduled)}; ${errors === "zero" ? "those without a score count 0 (--errors zero)" : "those without a score are left out (--errors zero counts them 0)"}`,
      "",
    ],
  ];
  for (const [key, m] of Object.entries(e.inspect ?? {})) {
    const c = m.coverage;
    const passAt =
      (m.pass_at_k === null ? "" : ` · pass@k ${ks(m.pass_at_k)}`) +
      (m.pass_hat_k === null ? "" : ` · pass^k ${ks(m.pass_hat_k)}`);
    const check =
      m.check === "agrees"
        ? "agrees"
        : `${m.check === "mismatch" ? "**mismatch**" : "unverified"}${m.note === null ? "" : `: ${mdText(m.note)}`}`;
    rows.push([
      mdName(key, true),
      `**${f3(m.value)}**${interval(methods, m, f3)}${passAt}`,
      `coverage ${ratio(c.scored, c.planned)} (scored / planned records: sample × epoch)`,
      `${m.claimed === null ? "nothing" : f3(m.claimed)} (${check})`,
    ]);
  }
  return rows;
}

/** What did not count, one line each, the first names of each list. */
function notCounted(e: Experiment, roots: readonly string[]): string[] {
  const w = wordsOf(e.profile);
  const name = (t: string) => mdName(w.trialsArePaths ? relativeTo(t, roots) : t);
  const listed = <T>(xs: readonly T[], show: (x: T) => string) =>
    xs.slice(0, MAX_LISTED).map(show).join(", ") +
    (xs.length > MAX_LISTED ? `, and ${xs.length - MAX_LISTED} more` : "");
  const lines: string[] = [];
  if (e.invalid.length > 0)
    lines.push(
      `- **invalid** ${e.invalid.length}: ${listed(e.invalid, (i) => `${name(i.trial)} (${i.codes.join(", ")})`)}`,
    );
  if (e.excluded.length > 0)
    lines.push(
      `- **excluded** ${e.excluded.length}: ${listed(e.excluded, (x) => `${name(x.trial)} (${mdText(x.reason, 80)})`)}`,
    );
  const missing = e.missing.reduce((n, m) => n + (typeof m === "string" ? 1 : m.count), 0);
  if (missing > 0)
    lines.push(
      `- **missing** ${missing}: ${listed(e.missing, (m) => (typeof m === "string" ? name(m) : `${m.count} ${mdText(m.reason, 80)}`))}`,
    );
  if (e.unscored.length > 0)
    lines.push(`- **${w.unscored}** ${e.unscored.length} (${w.unscoredMeans}): ${listed(e.unscored, name)}`);
  return lines;
}

/** Each kind's table of figures: its rows, under a claims column where the harness claims figures of its own. */
const TABLES: Record<
  Sections,
  (
    e: Experiment,
    errors: "exclude" | "zero",
    invalid: "count" | "exclude",
    methods: Methods,
    roots: readonly string[],
  ) => Row[]
> = {
  rewards: (e, errors, invalid, methods) => rewards(e, errors, invalid, methods),
  samples: (e, errors, _, methods, roots) => samples(e, errors, methods, roots),
  victories: (e, _, invalid, methods) => native(e, invalid, methods),
  dimensions: (e, _, invalid, methods) => world(e, invalid, methods),
};

function experiment(e: Experiment, doc: ResultsView, folders: ReadonlyMap<string | null, string>): string[] {
  const o = doc.run.options;
  const w = wordsOf(e.profile);
  const title = e.experiment === null ? nameOf(e) : mdName(e.experiment);
  const lone = w.lone && e.job === null ? folders.get(e.experiment) : undefined;
  const lines = ["", `### ${title} · ${w.kind} · ${scheduledCount(w, e.scheduled)}`, ""];
  if (lone !== undefined) lines.push(`${w.evidencePlural} in no job folder, ${loneWhere(lone, (f) => mdName(f))}`, "");
  lines.push(
    identityFacts(e.identity)
      .map(([label, text]) => `**${label}** ${mdText(text, 400)}`)
      .join("  \n"),
    "",
  );
  const methods = new Methods(w.units);
  const rows = byFields(TABLES, e.profile, e)?.(e, o.errors, o.invalid, methods, doc.run.roots) ?? [];
  if (rows.length > 0) lines.push(...table(["", "assay", "over", ...(w.claims === null ? [] : [w.claims])], rows));
  // The methods named once, under the table: a reader meets them where the intervals are.
  const legend = methods.legend();
  if (legend !== null) lines.push("", legend);
  const cost = usageLine(e);
  if (cost !== null) lines.push("", `**cost** (as recorded; never priced by assay): ${cost.replace(/\$/g, "\\$")}`);
  const rest = notCounted(e, doc.run.roots);
  if (rest.length > 0) lines.push("", ...rest);
  return lines;
}

interface Seen {
  kind: "error" | "warning" | "flag";
  count: number;
  examples: string[];
}

/** What the advisory records say, counted. */
interface Advised {
  advised: number;
  analysed: number;
  cached: number;
  failing: number;
}

/** Findings by code over every bundle and experiment, and the advisory records, in one pass over the entries. */
function gather(doc: ResultsView): { by: Map<string, Seen>; advice: Advised } {
  const by = new Map<string, Seen>();
  const advice: Advised = { advised: 0, analysed: 0, cached: 0, failing: 0 };
  const see = (code: string, kind: Seen["kind"], where: string) => {
    const s = by.get(`${kind}\u0000${code}`) ?? { kind, count: 0, examples: [] };
    by.set(`${kind}\u0000${code}`, s);
    s.count++;
    if (s.examples.length < EXAMPLES) s.examples.push(where);
  };
  const roots = doc.run.roots;
  const trialOnly = new TrialOnlyCodes(new TrialIndexes(doc.experiments));
  for (const b of doc.bundles) {
    trialOnly.see(b);
    const where = relativeTo(b.path, roots);
    for (const code of new Set(b.errors.map((f) => f.code))) see(code, "error", where);
    for (const code of new Set(b.warnings.map((f) => f.code))) see(code, "warning", where);
    // An experiment of trials with rewards (Harbor) lists its trials' flags (below); the others' entries hold their own.
    if (wordsOf(b.profile).sections !== "rewards")
      for (const code of new Set(b.flags.map((f) => f.code))) see(code, "flag", where);
    const a = b.advisory;
    if (a === null) continue;
    advice.advised++;
    if (a.status !== "analysed") continue;
    advice.analysed++;
    if (a.cached) advice.cached++;
    if (Object.values(a.outcomes).some((o) => o.outcome === "fail" || o.outcome === "error")) advice.failing++;
  }
  // What the batch rules found across a trial's bundles (SEED_MISMATCH…), in none of them: the trial is its example.
  for (const t of trialOnly.codes())
    see(t.code, "error", wordsOf(t.experiment.profile).trialsArePaths ? relativeTo(t.trial, roots) : t.trial);
  for (const e of doc.experiments) {
    for (const w of e.warnings) see(w.code, "warning", nameOf(e));
    for (const f of e.flags)
      see(f.code, "flag", wordsOf(e.profile).trialsArePaths ? relativeTo(f.trial, roots) : f.trial);
  }
  return { by, advice };
}

const ORDER = { error: 0, warning: 1, flag: 2 };
const sorted = (by: Map<string, Seen>) =>
  [...by.entries()].sort(([a, x], [b, y]) => ORDER[x.kind] - ORDER[y.kind] || y.count - x.count || byteCompare(a, b));

/** Without --details: after the overview, the findings counted on a line, and where the rest is. */
function* short(doc: ResultsView, lines: string[]): Generator<string> {
  const { by } = gather(doc);
  const count = (kind: Seen["kind"]) => [...by.values()].filter((s) => s.kind === kind).length;
  const [errors, warnings, flags] = [count("error"), count("warning"), count("flag")];
  if (errors + warnings + flags > 0)
    lines.push(
      "",
      `**Findings**: ${[
        errors > 0 ? plural(errors, "error code") : "",
        warnings > 0 ? plural(warnings, "warning code") : "",
        flags > 0 ? plural(flags, "flag code") : "",
      ]
        .filter((x) => x !== "")
        .join(" · ")} (most frequent first: ${sorted(by)
        .slice(0, 5)
        .map(([key, s]) => `${mdName(key.split("\u0000")[1]!, true)} ${s.count}`)
        .join(", ")})`,
    );
  if (doc.experiments.length > 0 || doc.tally.bundles > 0)
    lines.push(
      "",
      "Each experiment's figures, the findings by code and what did not count: `--details` (every field: `--format json`).",
    );
  yield lines.join("\n") + "\n";
}

const CLAIM: Record<OverviewRow["agreement"], string> = {
  agrees: "agrees",
  differs: "**differs**",
  unverified: "unverified",
  none: "",
};

/** The overview (overview.ts) as one table, then its legend in one paragraph (assay's own words: no evidence text, so no escaping): each explanation once. */
function overviewLines(doc: ResultsView, folders: ReadonlyMap<string | null, string>): string[] {
  const ov = overview(doc.experiments, { errors: doc.run.options.errors, folders });
  if (ov.rows.length === 0) return [];
  const noted = ov.rows.some((r) => r.note !== "");
  // Who ran it and when, each column only where a row records it.
  const who = ov.rows.some((r) => r.who !== "");
  const started = ov.rows.some((r) => r.started !== "");
  const labels = rowLabels(ov.rows, (t, max) => mdName(cutMiddle(t, max), true, Infinity), { name: 60, who: 40 });
  const rows = ov.rows.map((r, i) => [
    (labels[i]!.name ?? nameOf({ experiment: null, profile: r.kind })) +
      (r.folder === null ? "" : ` ${loneWhere(r.folder, (f) => mdName(folderTail(f, 60), true))}`),
    ...(who ? [r.who === "" ? "" : labels[i]!.who] : []),
    r.kind,
    ...(started ? [r.started.replace("*", "\\*")] : []),
    `${r.trials}${r.clusters === "" ? "" : ` ${r.clusters}`}`,
    r.metric === null ? "none" : `${mdName(r.metric, true, 30)} **${r.figure}**`,
    r.interval.startsWith("[") ? r.interval.replace("[", "\\[").replace("]", "\\]") : "none",
    r.coverage,
    [r.claim, CLAIM[r.agreement]].filter((x) => x !== "").join(" "),
    String(r.invalid),
    String(r.flags),
    r.cost.replace(/\$/g, "\\$"),
    ...(noted ? [r.note === "" ? "" : `**${r.note}**`] : []),
  ]);
  const out = [
    "",
    ...table(
      [
        "experiment",
        ...(who ? ["agent / model"] : []),
        "kind",
        ...(started ? ["started"] : []),
        ov.units,
        "figure",
        "95% interval",
        "coverage",
        "claim",
        "invalid",
        "flags",
        "cost",
        ...(noted ? ["note"] : []),
      ],
      rows,
    ),
  ];
  if (ov.omitted > 0)
    out.push("", `… and ${ov.omitted} more experiments (--format json has them all; --format html a section for each)`);
  const filters = describeFilter(doc.run.options.filters ?? null);
  if (filters !== "")
    out.push("", `**Filtered**: ${mdName(filters)} (only the experiments these select, and their bundles)`);
  out.push("", `**Legend**: ${ov.legend.join(" · ")}`);
  return out;
}

/**
 * The Markdown report: the overview alone (what a $GITHUB_STEP_SUMMARY or a PR comment wants), or
 * with `details` (score --details, as the table) each experiment's section and the findings by code.
 */
export function* render(doc: ResultsView, o: RenderOptions = {}): Generator<string> {
  const t = doc.tally;
  const folders = loneFolders(doc.bundles, doc.experiments, doc.run.roots);
  const lines = [
    "## assay results",
    "",
    `**${tallied(t).phrase()}**: ${t.valid} valid, ${t.invalid} invalid, ${t.error} tool errors` +
      (doc.run.complete ? "" : " · **incomplete**: the run was stopped before all its evidence was scored"),
    "",
    `assay ${doc.run.tool_version}, scoring version ${doc.run.scoring_version} · --invalid ${doc.run.options.invalid} · --errors ${doc.run.options.errors} · --resource-bound ${doc.run.options.resource_bound}`,
    ...overviewLines(doc, folders),
  ];
  if (o.details !== true) return yield* short(doc, lines);
  for (const e of doc.experiments.slice(0, MAX_EXPERIMENTS)) lines.push(...experiment(e, doc, folders));
  // What pass@k and pass^k assume, once for the report.
  if (doc.experiments.slice(0, MAX_EXPERIMENTS).some(hasPassK)) lines.push("", MISSING_AT_RANDOM);
  if (doc.experiments.length > MAX_EXPERIMENTS)
    lines.push(
      "",
      `… and ${doc.experiments.length - MAX_EXPERIMENTS} more experiments (--format json has them all; --format html a section for each)`,
    );
  yield lines.join("\n") + "\n";

  const { by, advice } = gather(doc);
  const seen = sorted(by);
  const out = ["", "### Findings", ""];
  if (seen.length === 0) out.push("none");
  else {
    const rows = seen.slice(0, MAX_CODES).map(([key, s]) => {
      const more = s.count > s.examples.length ? ", …" : "";
      return [
        mdName(key.split("\u0000")[1]!, true),
        s.kind === "flag" ? "flag (for review: changes no figure)" : s.kind,
        String(s.count),
        s.examples.map((x) => mdName(x, true)).join(", ") + more,
      ];
    });
    out.push(...table(["code", "kind", "count", "e.g."], rows));
    if (seen.length > MAX_CODES)
      out.push("", `… and ${seen.length - MAX_CODES} more codes (--format json has every finding)`);
  }
  const u = doc.run.unrecognised;
  if (u.count > 0)
    out.push(
      "",
      `${plural(u.count, "path")} looked like evidence but ${u.count === 1 ? "was" : "were"} not recognised: not scored (run.unrecognised in --format json)`,
    );
  // The model's judgements: a section of their own, after every hard figure.
  if (advice.advised > 0)
    out.push(
      "",
      "### Advisory: a model's judgement, which changes no figure above",
      "",
      `${advice.analysed} analysed (${advice.cached} from the cache), ${advice.advised - advice.analysed} not analysed; ${plural(advice.failing, "trial")} with a failing or errored criterion (--format json has each explanation)`,
    );
  yield out.join("\n") + "\n";
}
