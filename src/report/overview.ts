// The overview every human format shows first (issue 23): one row per experiment — its kind, how
// many trials, the headline figure with its 95% interval, coverage, the harness's own claim and
// whether assay agrees, invalid, flags, cost — computed once from the canonical document, so the
// table, Markdown and HTML say the same. Plain values here; each format escapes and lays them out.
//
// Order: problems first (a claim assay disputes, invalid trials, an Inspect log that is not a clean
// run), then by kind, then by name — what needs a look on a Monday morning is at the top, and the
// rest is in a stable order. Capped: at 10,000 experiments the overview stays MAX_ROWS rows and
// says how many it left out.

import { valuesOf, type Identity } from "../core/identity.js";
import type { Experiment, IntervalField } from "../core/results.js";
import { byteCompare, plural } from "../core/text.js";
import { Methods } from "./intervals.js";
import type { Nouns } from "../kinds/words.js";
import { dollars, tokens } from "./usage.js";
import { claimSources, wordsOf } from "./vocabulary.js";

/** Rows an overview shows at most. */
export const MAX_ROWS = 50;

/** Whether assay agrees with the harness's own figure: "none" where the harness claims nothing assay compares. */
export type Agreement = "agrees" | "differs" | "unverified" | "none";

export interface OverviewRow {
  /** The experiment's position in the list given to overview(): a format's link to its section. */
  index: number;
  /** The experiment's name (raw: each format escapes it); null for lone trials or unreadable logs. */
  experiment: string | null;
  /** The profile: harbor, inspect, native-game, world (or "unknown"). */
  kind: string;
  /** Lone Harbor trials (in no job folder): the folder they lie in, relative to the roots; else null. */
  folder: string | null;
  /** Trials scheduled (Inspect: planned records, sample × epoch). */
  trials: number;
  /** "in 12 tasks" where the headline interval clusters its units, else "". */
  clusters: string;
  /** The headline metric's name (a Harbor reward key, an Inspect metric, accuracy, pass); null when none. */
  metric: string | null;
  /** The headline figure as text ("0.750", "62.5%", "n/a"). */
  figure: string;
  /** Its 95% interval as text ("[0.342, 1.000]"), or why there is none; "" when the document records neither. */
  interval: string;
  /** Units counted / units there are, as text ("2/2"); "" when the kind has no such count. */
  coverage: string;
  /** The harness's own figure beside assay's ("0.500"), "" when it claims none. */
  claim: string;
  agreement: Agreement;
  invalid: number;
  flags: number;
  /** Cost as recorded ("$0.23"), else tokens ("455.1k tok"), else "". Never priced by assay. */
  cost: string;
  /** Why a row is first that its other cells do not say: an Inspect log that is not a clean run ("log started, incomplete"); else "". */
  note: string;
  /** Something to look at first: a disputed claim, invalid trials, an Inspect log that is not a clean run. */
  problem: boolean;
  /** The headline the row is laid out from (raw names): the HTML experiments table lays out its cells from it, never choosing again. */
  headline: Headline;
  /** Who ran it (raw): "agent / model", either alone, the first of several with how many more ("a +1"); "" where the evidence records neither. */
  who: string;
  /** The experiment's name without its " (model)" tail (an Inspect task run's) where `who` shows exactly that model; null otherwise. */
  shortName: string | null;
  /** When it started: the date ("2025-06-01", UTC), a local date marked "*" (no zone recorded); "" where no start is recorded. */
  started: string;
}

export interface Overview {
  /** The rows shown, at most MAX_ROWS, problems first. */
  rows: OverviewRow[];
  /** Experiments left out by the cap. */
  omitted: number;
  /** The legend: each explanation once, for the kinds and interval methods the document holds. */
  legend: string[];
  /** The header of the `trials` column, as the kinds count them: "trials", "records", or "trials/records" where both are shown. */
  units: string;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number) => x.toFixed(3);
/** "in 3 tasks", or "in 3 tasks + 1 unknown": a unit whose cluster nothing names is never counted as one (issue 35). */
const inClusters = (known: number, unplaced: number, cluster: string) =>
  `in ${known} ${cluster}${known === 1 ? "" : "s"}${unplaced === 0 ? "" : ` + ${unplaced} unknown`}`;
/** A figure as text: a proportion as a percentage, a mean to 3 decimals; NaN and ±Infinity (strings in the document) as they are. */
export const figureText = (x: number | string | null, percent: boolean): string =>
  x === null ? "n/a" : typeof x === "string" ? x : percent ? pct(x) : f3(x);

/**
 * An experiment's headline (issue 23): the one figure that answers "how did it do?", with its
 * interval, coverage and the harness's claim beside it. Numbers only: the overview's rows and the
 * HTML experiments table each lay out their text from it, so they never choose differently.
 */
export interface Headline {
  /** The metric's name (accuracy, pass, a Harbor reward key, an Inspect metric); null when the experiment has none. */
  metric: string | null;
  /** The figure; a string where the document spells a non-finite one (NaN); null when nothing was counted. */
  value: number | string | null;
  /** Shown as a percentage (a proportion: accuracy, pass), else to 3 decimals. */
  percent: boolean;
  /** Its 95% interval (null: none, `reason` says why). */
  lo: number | null;
  hi: number | null;
  reason: string | null;
  /** Of the clusters, units whose cluster nothing names (issue 35: never counted as tasks). */
  unplaced: number;
  /** Units and clusters the interval is over (null: no interval). */
  units: number | null;
  clusters: number | null;
  /** Units counted, of those there are (null: the kind has no such count; `of` null beside a count: the plan is unknown). */
  covered: number | null;
  of: number | null;
  /**
   * The harness's figure beside the headline (null: none, or several), and how many of its figures
   * the claim stands for: 1 (an Inspect metric's own, a Harbor job's one figure), more (a Harbor
   * job's figures, per eval: "4 figures").
   */
  claim: number | string | null;
  claims: number;
  /** Whether assay agrees with every figure the harness claims (worst of them), and why not (the first disagreement or doubt). */
  agreement: Agreement;
  why: string | null;
}

type Metric = { interval?: IntervalField | null; interval_reason?: string | null };

const NONE: Headline = {
  metric: null,
  value: null,
  percent: false,
  lo: null,
  hi: null,
  reason: null,
  units: null,
  clusters: null,
  unplaced: 0,
  covered: null,
  of: null,
  claim: null,
  claims: 0,
  agreement: "none",
  why: null,
};

const withInterval = (
  metric: string,
  value: number | string | null,
  percent: boolean,
  m: Metric,
  covered: number,
  of: number | null,
): Headline => {
  const i = m.interval ?? null;
  return {
    ...NONE,
    metric,
    value,
    percent,
    lo: i?.lo ?? null,
    hi: i?.hi ?? null,
    reason: i === null ? (m.interval_reason ?? null) : null,
    units: i?.units ?? null,
    clusters: i?.clusters ?? null,
    unplaced: i?.unplaced ?? 0,
    covered,
    of,
  };
};

/** A dispersion, never a headline: `…/stderr`, `…/std`, `…/var`. */
const DISPERSION = /(^|\/)(stderr|std|var)$/;
/** The first key that is an accuracy or a mean, else the first that is no dispersion, else the first. */
const inspectKey = (keys: readonly string[]): string | undefined =>
  keys.find((k) => /(^|\/)(accuracy|mean)$/.test(k)) ?? keys.find((k) => !DISPERSION.test(k)) ?? keys[0];

/** The experiment's headline: native accuracy, world pass, Harbor's reward key ("reward", else the first), Inspect's first accuracy or mean. */
export function headline(e: Experiment): Headline {
  if (e.accuracy !== null)
    return withInterval("accuracy", e.accuracy.value, true, e.accuracy, e.accuracy.scored, e.scheduled);
  if (e.pass !== null)
    return withInterval(
      "pass",
      e.pass.total === 0 ? null : e.pass.passed / e.pass.total,
      true,
      e.pass,
      e.pass.total,
      e.scheduled,
    );
  if (e.rewards !== null) {
    const keys = Object.keys(e.rewards);
    const key = keys.includes("reward") ? "reward" : keys[0];
    if (key === undefined) return NONE;
    const r = e.rewards[key]!;
    const h = withInterval(key, r.mean, false, r, r.covered, r.coverage === null ? null : r.trials);
    // The job's figures are per eval, not per key: its one figure beside the headline, else how many; the agreement over every figure compared.
    const compared = e.claimed?.compared ?? [];
    if (compared.length === 0) return h;
    // A figure assay could not give (assay null) was not compared: unverified, never "differs".
    const differs =
      compared.find((x) => x.reason !== null && x.assay !== null) ?? compared.find((x) => x.assay === null);
    // The one figure is shown beside the headline only when it is a figure of the headline's key (core's rule: `…/<key>`, or `…/mean` of a job's only key).
    const only = compared.length === 1 ? compared[0]! : undefined;
    const last = only?.metric.slice(only.metric.lastIndexOf("/") + 1);
    const beside = only !== undefined && (last === key || (last === "mean" && keys.length === 1)) ? only.claimed : null;
    const agreement: Agreement = differs === undefined ? "agrees" : differs.assay === null ? "unverified" : "differs";
    return { ...h, claim: beside, claims: compared.length, agreement, why: differs?.reason ?? null };
  }
  if (e.inspect !== null) {
    const key = inspectKey(Object.keys(e.inspect));
    if (key === undefined) return NONE;
    const m = e.inspect[key]!;
    const h = withInterval(key, m.value, false, m, m.coverage.scored, m.coverage.planned);
    const all = Object.entries(e.inspect);
    const worst = all.find(([, x]) => x.check === "mismatch") ?? all.find(([, x]) => x.check !== "agrees");
    const agreement: Agreement =
      worst === undefined ? "agrees" : worst[1].check === "mismatch" ? "differs" : "unverified";
    const why = worst === undefined ? null : `${worst[0]}: ${worst[1].note ?? worst[1].check}`;
    return { ...h, claim: m.claimed, claims: m.claimed === null ? 0 : 1, agreement, why };
  }
  return NONE;
}

/** Whether an Inspect log ran clean: Inspect's status success and state complete. Every format asks here. */
export const cleanRun = (log: NonNullable<Experiment["log"]>): boolean =>
  log.status === "success" && log.state === "complete";

/** Why an Inspect task run is not a clean run ("log started, incomplete", "no readable log"); null when it is, or is no task run. */
function unclean(e: Experiment): string | null {
  if (!wordsOf(e.profile).logged) return null;
  const log = e.log;
  if (log === null) return "no readable log";
  return cleanRun(log) ? null : `log ${log.status ?? "n/a"}, ${log.state ?? "n/a"}`;
}

function costOf(e: Experiment): string {
  const s = e.usage?.spent;
  if (s === undefined) return "";
  if (s.cost_usd !== null) return dollars(s.cost_usd);
  const t = (s.input_tokens ?? 0) + (s.output_tokens ?? 0);
  return s.input_tokens === null && s.output_tokens === null ? "" : `${tokens(t)} tok`;
}

/** Every interval the experiment's details show, noted for the legend (the details name no method of their own). */
function seeEvery(e: Experiment, methods: Methods): void {
  for (const m of [
    e.accuracy,
    e.completion,
    e.pass,
    ...Object.values(e.dimensions ?? {}),
    ...Object.values(e.rewards ?? {}),
    ...Object.values(e.inspect ?? {}),
  ])
    if (m !== null) methods.see(m);
}

/** One experiment's row; `methods` notes its intervals' methods for the legend. */
function rowOf(
  e: Experiment,
  index: number,
  methods: Methods,
  folders: ReadonlyMap<string | null, string>,
): OverviewRow {
  const h = headline(e);
  const w = wordsOf(e.profile);
  seeEvery(e, methods);
  const show = (x: number | string | null) => figureText(x, h.percent);
  const interval = h.lo !== null && h.hi !== null ? `[${show(h.lo)}, ${show(h.hi)}]` : (h.reason ?? "");
  // The claim was checked against the log as written; invalid evidence then counts 0, so a figure
  // beside an "agrees" may differ from the claim: the row says why (the JSON's `check` is unchanged).
  const zeroed =
    h.agreement === "agrees" && e.invalid.length > 0 && h.claim !== null && show(h.claim) !== show(h.value)
      ? "invalid: counts 0; claim checked on the log as written"
      : null;
  const note = unclean(e) ?? zeroed;
  return {
    index,
    experiment: e.experiment,
    kind: w.kind,
    folder: w.lone && e.job === null ? (folders.get(e.experiment) ?? null) : null,
    trials: e.scheduled,
    clusters:
      h.clusters !== null && h.units !== null && h.clusters < h.units
        ? inClusters(h.clusters - h.unplaced, h.unplaced, w.units.cluster)
        : "",
    metric: h.metric,
    figure: show(h.value),
    interval,
    coverage: h.covered === null ? "" : `${h.covered}/${h.of ?? "? (plan unknown)"}`,
    claim: h.claim !== null ? show(h.claim) : h.claims > 0 ? `${h.claims} figure${h.claims === 1 ? "" : "s"}` : "",
    agreement: h.agreement,
    invalid: e.invalid.length,
    flags: e.flags.length,
    cost: costOf(e),
    note: note ?? "",
    problem: h.agreement === "differs" || e.invalid.length > 0 || note !== null,
    headline: h,
    who: whoOf(e.identity),
    shortName: nameBeside(e.experiment, e.identity),
    started: startedOf(e.identity),
  };
}

/** A list field of an identity as one cell: its value, or the first of several and how many more. */
const firstOf = (xs: readonly string[]): string | null =>
  xs.length === 0 ? null : xs.length === 1 ? xs[0]! : `${xs[0]} +${xs.length - 1}`;

/** "agent / model", either alone, or "" where the evidence records neither; `cell` writes a list field (the overview: its first and how many more). */
export function whoOf(id: Identity | null, cell: (xs: readonly string[]) => string | null = firstOf): string {
  if (id === null) return "";
  return [cell(valuesOf(id.agent)), cell(valuesOf(id.model))].filter((x) => x !== null).join(" / ");
}

/** The start's date; a local one (no zone recorded) marked "*", since it is no UTC date; "" where none is recorded. */
export const startedOf = (id: Identity | null): string =>
  id === null || id.started_at === null ? "" : `${id.started_at.slice(0, 10)}${id.clock === "local" ? "*" : ""}`;

/** The name without its " (model)" tail where the identity records exactly that one model (an Inspect task run's name carries it). */
export function nameBeside(name: string | null, id: Identity | null): string | null {
  const models = valuesOf(id?.model ?? null);
  if (name === null || models.length !== 1) return null;
  const tail = ` (${models[0]})`;
  return name.endsWith(tail) && name.length > tail.length ? name.slice(0, -tail.length) : null;
}

/**
 * `s` cut to `max` characters in the middle ("openrouter/deeps…-qwen-14b"): names of one family
 * differ at their ends (a model's size, a date), which a cut at the end would lose.
 */
export function cutMiddle(s: string, max: number): string {
  if (s.length <= max) return s;
  const tail = Math.floor(max / 2);
  return `${s.slice(0, Math.max(1, max - tail - 1))}…${s.slice(s.length - tail)}`;
}

/** A row's name and who cells as a format shows them (`cut`: its escaping, cut to at most `max` characters). */
export interface RowLabel {
  /** Null for an experiment without a name: the format names it its own way. */
  name: string | null;
  who: string;
}

/**
 * Each row's name and who cells, cut to fit, never two rows alike: where two rows of a kind would
 * show the same cells, their cells are shown whole, and if still alike, with the name's model tail
 * kept. Two experiments can then always be told apart on screen (issue 37: Inspect names cut at 50
 * characters could not).
 */
export function rowLabels(
  rows: readonly OverviewRow[],
  cut: (text: string, max: number) => string,
  max: { name: number; who: number },
): RowLabel[] {
  const level = rows.map(() => 0);
  const labelOf = (r: OverviewRow, l: number): RowLabel => ({
    name:
      r.experiment === null
        ? null
        : cut(l < 2 ? (r.shortName ?? r.experiment) : r.experiment, l === 0 ? max.name : Infinity),
    who: cut(r.who, l === 0 ? max.who : Infinity),
  });
  for (;;) {
    const labels = rows.map((r, i) => labelOf(r, level[i]!));
    const seen = new Map<string, number[]>();
    rows.forEach((r, i) => {
      if (r.experiment === null) return; // told apart by their folders
      const key = JSON.stringify([r.kind, labels[i]!.name, labels[i]!.who]);
      seen.set(key, [...(seen.get(key) ?? []), i]);
    });
    let raised = false;
    for (const group of seen.values())
      if (group.length > 1) for (const i of group) if (level[i]! < 2) [level[i], raised] = [level[i]! + 1, true];
    if (!raised) return labels;
  }
}

/**
 * What an experiment's identity says, as three lines of label and raw text (each format escapes
 * them): who ran it with which harness, on which benchmark and tasks, when. A field the evidence
 * does not record is said to be so, never left for a reader to guess.
 */
export function identityFacts(id: Identity | null): [string, string][] {
  const NONE = "not recorded";
  if (id === null) return [["identity", "none recorded in the evidence"]];
  const list = (xs: readonly string[]) => (xs.length === 0 ? NONE : xs.join(", "));
  const benchmarks = valuesOf(id.benchmark).map(
    (b) =>
      `${b.name}${b.version === null ? "" : ` ${b.version}`}${b.dataset === null ? "" : ` (dataset ${b.dataset})`}`,
  );
  const harnesses = valuesOf(id.harness).map((h) => `${h.name}${h.version === null ? "" : ` ${h.version}`}`);
  // The digest's first 12 hex digits tell two task sets apart at a glance; the JSON has it whole.
  const tasks =
    id.tasks === null
      ? `tasks ${NONE}`
      : `${plural(id.tasks.count, id.tasks.unit)} ${id.tasks.digest.slice(0, "sha256:".length + 12)}…`;
  const clock = id.clock === "local" ? " (local time: no zone recorded)" : id.clock === "utc" ? " (UTC)" : "";
  return [
    ["run", `agent ${list(valuesOf(id.agent))} · model ${list(valuesOf(id.model))} · harness ${list(harnesses)}`],
    ["benchmark", `${list(benchmarks)} · ${tasks}`],
    ["time", `started ${id.started_at ?? NONE} · finished ${id.finished_at ?? NONE}${clock}`],
  ];
}

const byProblemKindName = (a: OverviewRow, b: OverviewRow) =>
  Number(b.problem) - Number(a.problem) ||
  byteCompare(a.kind, b.kind) ||
  byteCompare(a.experiment ?? "", b.experiment ?? "");

/**
 * The overview of a document's experiments: the first MAX_ROWS rows in order (problems, kind,
 * name), how many were left out, and the legend that explains the rows once. `folders`: where
 * lone Harbor trials lie, by experiment name (loneFolders), so a row names more than `job@id8`.
 */
export function overview(
  experiments: readonly Experiment[],
  o: { errors: "exclude" | "zero"; max?: number; folders?: ReadonlyMap<string | null, string> },
): Overview {
  const max = o.max ?? MAX_ROWS;
  const folders = o.folders ?? new Map<string | null, string>();
  const methods = new Map<Nouns, Methods>();
  const methodsOf = (n: Nouns) => methods.get(n) ?? methods.set(n, new Methods(n)).get(n)!;
  const all = experiments
    .map((e, i) => rowOf(e, i, methodsOf(wordsOf(e.profile).units), folders))
    .sort(byProblemKindName);
  const rows = all.slice(0, max);
  // The legend explains every experiment of the document, those past the cap too (--details shows them).
  const kinds = [...new Set(all.map((r) => wordsOf(r.kind)))].sort((a, b) => byteCompare(a.kind, b.kind));
  const legend = kinds.flatMap((w) => (w.headline === null ? [] : [w.headline]));
  for (const w of kinds) if (w.errorsRule !== null) legend.push(w.errorsRule(o.errors));
  for (const u of new Set(kinds.map((w) => w.units))) {
    const l = methods.get(u)?.legend() ?? null;
    if (l !== null) legend.push(l);
  }
  if (all.some((r) => r.interval !== "" && !r.interval.startsWith("[")))
    legend.push(
      "no interval: a single trial or sample, all of them in one task or group, or none counted (the details say which)",
    );
  // The sources of the kinds the document holds (a kind added to assay changes no other kind's report).
  const sources = claimSources(kinds);
  legend.push(
    sources === ""
      ? "claim: none of these kinds' harnesses records a figure of its own to check"
      : `claim: the harness's own figure (${sources}); agrees, differs (the details say why) or unverified`,
  );
  legend.push(
    "flags: for review, they change no state and no figure; cost: as recorded (tokens where no cost is), never priced by assay",
  );
  // Explained for the rows shown: the note column is shown only when one of them has a note.
  if (rows.some((r) => r.note !== ""))
    legend.push(
      "note: what a row's other cells do not say (an Inspect log that is not a clean run: its figures cover what it holds; an invalid log beside a claim that agrees: the claim was checked on the log as written, the figure counts it 0)",
    );
  // The identity columns say what they hold in their headings; only a local date needs its mark explained.
  if (rows.some((r) => r.started.endsWith("*")))
    legend.push(
      "started: the earliest start, a UTC date; * a local date (the harness recorded no zone); agent / model: a list shows its first and how many more (every one in the details)",
    );
  // The count column is headed, and explained, as the rows shown count.
  const shownKinds = kinds.filter((w) => rows.some((r) => r.kind === w.kind));
  if (shownKinds.some((w) => w.column === "records"))
    legend.push("records: an Inspect task run's planned records (sample × epoch)");
  const units = [...new Set(shownKinds.map((w) => w.column))].join("/") || "trials";
  return { rows, omitted: all.length - rows.length, legend, units };
}
