// Each metric of a log (contract §12; which they are: specs.ts): what `results` claims, whether
// Inspect's own rules give that over the samples present (METRIC_MISMATCH, COUNT_MISMATCH), and
// assay's own figures over the plan, for both --errors settings (the experiment picks one): the
// value, its interval over the reduced samples in their clusters (§13.2), pass^k over epochs
// (§13.3) and each planned sample's reduced value for paired comparison (§13.4). Pure.

import { MAX_PASS_AT_K, passAtK, passHatK, wilson95 } from "../../core/batch/stats.js";
import { finding, type Finding } from "../../core/codes.js";
import { UnitSet, type Interval, type IntervalOutcome } from "../../core/stats/interval.js";
import { MAX_METADATA_KEY_LENGTH, MAX_METADATA_KEYS, metadataCluster, type SampleRecord } from "./sample.js";
import { specs, type Spec } from "./specs.js";
import {
  agree,
  clusteredStderr,
  exactMeanOf,
  isBuiltInMetric,
  reduceWeighted,
  weightedMetric,
  type Reducer,
  type Weighted,
} from "./stats.js";
import { leaf, showValue, valueToFloat } from "./value.js";
import { noAnswer, outcomeOf, type Outcome } from "./attribution.js";
import { atLeast, SINCE } from "./version.js";

/** assay's figures for one metric under one --errors setting. */
export interface Figures {
  value: number | null;
  /** Samples (reduced) the value is over. */
  n: number;
  wilson95: [number, number] | null;
  pass_at_k: Record<string, number> | null;
  interval: Interval | null;
  interval_reason: string | null;
  pass_hat_k: Record<string, number> | null;
}

export type Claimed = number | "NaN" | "Infinity" | "-Infinity" | null;

export interface LogMetric {
  claimed: Claimed;
  check: "agrees" | "mismatch" | "unverified";
  /** Why it is unverified, or what Inspect's rules give instead (null when it agrees). */
  note: string | null;
  coverage: { scored: number; planned: number };
  exclude: Figures;
  zero: Figures;
  /** Each planned sample's reduced value, aligned with the plan's ids (null: not in that figure); mean and accuracy metrics only. */
  values: { exclude: (number | null)[]; zero: (number | null)[] } | null;
  /** Planned records whose score from this scorer is the grader's failure: in neither figure (present only when some are). */
  grader_failed?: number;
  /** Planned records where the model gave no answer (a refusal, reason refusal/no_response, or `N`): 0 in both figures (present only when some are). */
  refusals?: number;
}

/** The plan: sample ids (as Inspect compares them) × epochs, and the early-stopped records. */
export interface Plan {
  ids: readonly string[];
  epochs: number;
  source: "sample_ids" | "samples present";
  earlyStopped: ReadonlySet<string>;
}

export interface MetricInput {
  results: Record<string, unknown> | null;
  /** `eval.scorers` as the header declares them (null when absent). */
  scorers: unknown;
  epochsReducer: unknown;
  version: readonly number[] | null;
  /** Every record (duplicates included), and the last per (id, epoch). */
  records: readonly SampleRecord[];
  byKey: ReadonlyMap<string, SampleRecord>;
  plan: Plan;
  /** No sample evidence is behind the log's claims (no sample record, or fewer than results.completed_samples and none scored). */
  noEvidence: boolean;
  /** It holds some: the note says so. */
  someRecords: boolean;
  /** The log is cut short: the samples behind its claims cannot all be read. */
  truncated: boolean;
  /** The file results lives in (for findings). */
  file: string;
}

const claimedOf = (v: unknown): Claimed =>
  typeof v !== "number"
    ? null
    : Number.isNaN(v)
      ? "NaN"
      : v === Infinity
        ? "Infinity"
        : v === -Infinity
          ? "-Infinity"
          : v;

/**
 * §13.7: the clusters compare pairs each mean/accuracy metric's samples in: per metric key the
 * metadata key its scorer's `stderr(cluster=…)` names, and per metadata key each planned sample's
 * cluster in plan order, an index into `names` (null: the sample has no such metadata).
 */
export interface SampleClusters {
  by: Record<string, string>;
  keys: Record<string, { names: string[]; of: (number | null)[] }>;
}

export interface MetricsOutcome {
  metrics: Record<string, LogMetric>;
  clusters: SampleClusters;
  findings: Finding[];
  /** Records whose value Inspect maps to 0 only through its fallback, with what was read. */
  unconvertible: Map<SampleRecord, string>;
}

/** Every metric of the log, checked and recomputed. */
export function logMetrics(input: MetricInput): MetricsOutcome {
  const out: MetricsOutcome = { metrics: {}, clusters: { by: {}, keys: {} }, findings: [], unconvertible: new Map() };
  const unreduced = Array.isArray(input.epochsReducer) && input.epochsReducer.length === 0;
  const countsChecked = new Set<Record<string, unknown>>();
  const index = planIndex(input);
  const all = specs(input);
  // The metrics of one scorer key and reducer (one results entry's, consecutive here: accuracy and
  // stderr, say) differ only in the metric applied last: what they are derived from is derived once.
  for (let i = 0; i < all.length;) {
    let j = i + 1;
    while (
      j < all.length &&
      all[j]!.scorer === all[i]!.scorer &&
      all[j]!.sub === all[i]!.sub &&
      all[j]!.reducerName === all[i]!.reducerName
    )
      j++;
    sourceMetrics(all.slice(i, j), input, index, unreduced, countsChecked, out);
    i = j;
  }
  return out;
}

/** How one scorer key's records are read: its value, whose its outcome is, and as a float. */
interface Reads {
  valueOf: (r: SampleRecord) => unknown;
  /** Whose the record's outcome is (attribution.ts); a planned record with no record is `none`. */
  outcome: (r: SampleRecord | undefined) => Outcome;
  toFloat: (r: SampleRecord, v: unknown) => number;
}

function readsOf(s: Spec, input: MetricInput, unconvertible: Map<SampleRecord, string>): Reads {
  const valueOf = (r: SampleRecord): unknown =>
    Object.hasOwn(r.scores, s.scorer) ? leaf(r.scores[s.scorer], s.sub) : undefined;
  const outcome = (r: SampleRecord | undefined): Outcome =>
    r === undefined ? "none" : outcomeOf(r, s.scorer, valueOf(r), input.version);
  const toFloat = (r: SampleRecord, v: unknown): number => {
    const f = valueToFloat(v, input.version);
    if (f.fallback && !unconvertible.has(r))
      unconvertible.set(r, `scores.${s.scorer}${s.sub === null ? "" : `.${s.sub}`}: ${showValue(v).slice(0, 80)}`);
    return f.x;
  };
  return { valueOf, outcome, toFloat };
}

/** The metrics of one scorer key and reducer (`run`), into `out`. */
function sourceMetrics(
  run: readonly Spec[],
  input: MetricInput,
  index: PlanIndex,
  unreduced: boolean,
  countsChecked: Set<Record<string, unknown>>,
  out: MetricsOutcome,
): void {
  const s0 = run[0]!;
  const reads = readsOf(s0, input, out.unconvertible);
  const coverage = { scored: 0, planned: input.plan.ids.length * input.plan.epochs };
  let failed = 0;
  let refusals = 0;
  for (const list of index.records.values())
    for (const r of list) {
      const o = reads.outcome(r);
      // A refusal is a verdict of 0: in the figure, so in coverage.
      if (o === "verdict" || o === "refused") coverage.scored++;
      else if (o === "grader") failed++;
      if (noAnswer(r, s0.scorer, o, reads.valueOf(r))) refusals++;
    }
  const counts = { ...(failed > 0 ? { grader_failed: failed } : {}), ...(refusals > 0 ? { refusals } : {}) };
  const ms = run.map((s): LogMetric => ({
    claimed: claimedOf(s.claimed),
    check: "unverified",
    note: null,
    coverage: { ...coverage },
    exclude: NO_FIGURES,
    zero: NO_FIGURES,
    values: null,
    ...counts,
  }));
  // Inspect's rules over the samples present: built once a claim is checked, freed before assay's own figures build theirs.
  let claim: ClaimDerivation | null = null;
  run.forEach((s, i) => {
    const m = ms[i]!;
    if (typeof s.claimed === "number" && !Number.isNaN(s.claimed) && !Number.isFinite(s.claimed))
      out.findings.push(finding("NOT_FINITE", input.file, null, `${s.path}: ${s.claimed}`));
    const verifiable = s.builtIn && s.reducer !== null && !input.noEvidence && !input.truncated;
    if (!verifiable)
      m.note = input.noEvidence
        ? input.someRecords
          ? "the log lacks the samples behind it (results.completed_samples), and none it holds scored"
          : "no sample record behind it"
        : input.truncated
          ? "the log is cut short: not every sample behind it can be read"
          : !s.builtIn
            ? "not a built-in metric with default options"
            : `reducer ${s.reducerName} is not one assay recomputes`;
    else
      checkClaim(s, input, m, (claim ??= claimDerivationOf(s, input, reads, unreduced)), countsChecked, out.findings);
  });
  claim = null;
  // Cut short, no claim is checked, but assay's own figures stand over what can be read: excluding
  // the unscored records, then counting them 0; each reduction built once and freed before the next.
  const own = run.map((s) => s.builtIn && s.reducer !== null && !input.noEvidence);
  const values: ((number | null)[] | null)[] = [null, null];
  if (own.includes(true))
    for (const zero of [false, true]) {
      const got = reduction(run[0]!.reducer!, unreduced, input.version, reads.toFloat);
      planGroups(input, index, zero, reads, got.add);
      run.forEach((s, i) => {
        if (!own[i]) return;
        const clusterOf = clusterResolver(s.clusterBy, (id) => index.records.get(id) ?? [], unreduced);
        ms[i]![zero ? "zero" : "exclude"] = figures(s, got, input.plan.epochs, clusterOf, unreduced);
        if (isMeanMetric(s.metric)) values[zero ? 1 : 0] ??= planValues(input.plan.ids, got);
      });
    }
  run.forEach((s, i) => {
    const m = ms[i]!;
    if (own[i] && isMeanMetric(s.metric)) {
      m.values = { exclude: values[0]!, zero: values[1]! };
      if (s.clusterBy !== null) {
        out.clusters.by[s.key] = s.clusterBy;
        out.clusters.keys[s.clusterBy] ??= planClusters(
          input.plan.ids,
          clusterResolver(s.clusterBy, (id) => index.records.get(id) ?? [], unreduced),
        );
      }
    } else if (!own[i] && isMeanMetric(s.metric))
      m.exclude = m.zero = { ...NO_FIGURES, interval_reason: `assay computes no value of its own: ${m.note}` };
    out.metrics[s.key] = m;
  });
}

/** Each planned sample's reduced value, aligned with the plan's ids (null: not in the figure); bySample follows the plan's order (planGroups walks it), so one pass pairs them. */
function planValues(ids: readonly string[], got: ReducedSamples): (number | null)[] {
  let j = 0;
  return ids.map((id) => {
    const x = got.bySample[j];
    if (x?.id !== id) return null;
    j++;
    return Number.isNaN(x.value) ? null : x.value;
  });
}

/** Each planned sample's cluster by `clusterOf` (the interval's own grouping), as an index into the distinct names; null where it cannot be told. */
function planClusters(ids: readonly string[], clusterOf: ClusterOf): { names: string[]; of: (number | null)[] } {
  const index = new Map<string, number>();
  const of = ids.map((id) => {
    const c = clusterOf(id);
    if ("reason" in c || c.cluster === null) return null;
    let k = index.get(c.cluster);
    if (k === undefined) index.set(c.cluster, (k = index.size));
    return k;
  });
  return { names: [...index.keys()], of };
}

/** Inspect's rules over the samples present, for one scorer key and reducer: each sample's records with a value, each reduced. */
interface ClaimDerivation {
  groups: Group;
  derived: PerSample[];
  kept: PerSample[];
  keptCount: number;
}

function claimDerivationOf(s: Spec, input: MetricInput, reads: Reads, unreduced: boolean): ClaimDerivation {
  const errorsCount = atLeast(input.version, SINCE.erroredScored);
  const groups: Group = new Map();
  for (const rec of input.records) {
    const v = reads.valueOf(rec);
    if (v === undefined || (rec.error !== null && !errorsCount)) continue;
    const g = groups.get(rec.id) ?? [];
    if (g.length === 0) groups.set(rec.id, g);
    g.push({ r: rec, v, n: 1 });
  }
  const reduced = reduction(s.reducer!, unreduced, input.version, reads.toFloat);
  for (const [id, list] of groups) reduced.add(id, list);
  const derived = reduced.perSample;
  const kept = derived.filter((x) => !Number.isNaN(x.v));
  return { groups, derived, kept, keptCount: kept.reduce((a, x) => a + x.n, 0) };
}

/** What Inspect's rules give (`d`) against the claim: METRIC_MISMATCH, and COUNT_MISMATCH once per results entry. */
function checkClaim(
  s: Spec,
  input: MetricInput,
  m: LogMetric,
  d: ClaimDerivation,
  countsChecked: Set<Record<string, unknown>>,
  findings: Finding[],
): void {
  const { kept, keptCount } = d;
  const claim = claimDerivation(s, kept, d.groups);
  if (claim.unverified !== null) m.note = claim.unverified;
  else if (typeof s.claimed === "number") {
    // ±Infinity is NOT_FINITE above: never an agreement.
    const infinite = !Number.isNaN(s.claimed) && !Number.isFinite(s.claimed);
    // One cluster: numpy's 0/0 is NaN; Inspect's own value (0) is the claim, and it stands (§13.6).
    const oneCluster = claim.clusters === 1 && (s.claimed === 0 || Number.isNaN(s.claimed));
    m.check = !infinite && (oneCluster || agree(s.claimed, claim.expected)) ? "agrees" : "mismatch";
    if (m.check === "mismatch") {
      m.note = `Inspect's rules give ${showValue(claim.expected)} over ${keptCount} scored sample${keptCount === 1 ? "" : "s"} present`;
      if (!infinite)
        findings.push(
          finding("METRIC_MISMATCH", input.file, null, `${s.path}: claimed ${showValue(s.claimed)}; ${m.note}`),
        );
    }
  } else if (s.entry !== null) m.note = "claimed value is not a number";
  else m.note = "results claims nothing for this scorer";
  if (s.entry !== null && !countsChecked.has(s.entry)) {
    countsChecked.add(s.entry);
    const derivedCount = d.derived.reduce((a, x) => a + x.n, 0);
    for (const [field, n] of [
      ["scored_samples", keptCount],
      ["unscored_samples", derivedCount - keptCount],
    ] as const) {
      const c = s.entry[field];
      if (typeof c === "number" && c !== n)
        findings.push(
          finding(
            "COUNT_MISMATCH",
            input.file,
            null,
            `${s.path.replace(/\.metrics\..*$/, "")}.${field}: claimed ${c}, a recount gives ${n}`,
          ),
        );
    }
  }
}

const NO_FIGURES: Figures = {
  value: null,
  n: 0,
  wilson95: null,
  pass_at_k: null,
  interval: null,
  interval_reason: null,
  pass_hat_k: null,
};

/** What Inspect's metric gives over the reduced samples present (clustered `stderr` by its key), or why assay cannot say. */
function claimDerivation(
  s: Spec,
  kept: readonly PerSample[],
  groups: Group,
): { expected: number; clusters: number | null; unverified: string | null } {
  if (s.metric !== "stderr" || s.cluster === null)
    return { expected: weightedMetric(s.metric as BuiltInName, kept), clusters: null, unverified: null };
  const clusterOf = clusterResolver(s.cluster, (id) => groups.get(id)!.map((x) => x.r!), false);
  const units: (Weighted & { cluster: string })[] = [];
  for (const x of kept) {
    const c = clusterOf(x.id);
    if ("reason" in c)
      return { expected: NaN, clusters: null, unverified: `clustered by metadata "${s.cluster}", but ${c.reason}` };
    units.push({ v: x.v, n: x.n, cluster: c.cluster ?? x.id }); // a key was given: never null
  }
  const r = clusteredStderr(units);
  return { expected: r.se, clusters: r.clusters, unverified: null };
}

type BuiltInName = Parameters<typeof weightedMetric>[0];

/**
 * The cluster of a sample's units (§13.1): its `metadata[key]`; without a key the sample itself —
 * null (a cluster of its own, nothing kept per sample) when it is one reduced unit, its id when
 * it is several unreduced epochs. Else why it cannot be told.
 */
type ClusterOf = (id: string) => { cluster: string | null } | { reason: string };

function clusterResolver(
  key: string | null,
  recordsOf: (id: string) => readonly SampleRecord[],
  unreduced: boolean,
): ClusterOf {
  if (key === null) return unreduced ? (id) => ({ cluster: id }) : () => ({ cluster: null });
  return (id) => {
    const recs = recordsOf(id);
    let cut = false;
    for (const r of recs) {
      const c = metadataCluster(r, key);
      if (c !== undefined) return { cluster: c };
      cut ||= r.metadataCut;
    }
    const who = `sample ${JSON.stringify(id)}`;
    if (recs.length === 0) return { reason: `${who} has no record to read its metadata "${key}" from` };
    if (cut)
      return {
        reason: `${who}'s metadata "${key}" was not kept (assay keeps up to ${MAX_METADATA_KEYS} scalar metadata values per sample, keys up to ${MAX_METADATA_KEY_LENGTH} characters)`,
      };
    return { reason: `${who} has no metadata "${key}" (Inspect's clustered stderr raises on such a sample)` };
  };
}

/** One sample's epoch values in epoch order; `n` > 1 only for a run of records counted 0 (`r` null). */
type GroupList = { r: SampleRecord | null; v: unknown; n: number }[];
/** Each sample's GroupList, by id. */
type Group = Map<string, GroupList>;

/** A reduced value (unreduced: an epoch's value) and the sample id it is of. */
type PerSample = Weighted & { id: string };

/** The planned records present, by id in epoch order, and the early-stopped epochs by id: what a walk over the plan visits. */
interface PlanIndex {
  records: Map<string, SampleRecord[]>;
  stops: Map<string, number[]>;
}

function planIndex(input: MetricInput): PlanIndex {
  const ids = new Set(input.plan.ids);
  const records = new Map<string, SampleRecord[]>();
  for (const r of input.byKey.values()) {
    if (!ids.has(r.id) || r.epoch > input.plan.epochs) continue;
    const list = records.get(r.id);
    if (list === undefined) records.set(r.id, [r]);
    else list.push(r);
  }
  for (const list of records.values()) list.sort((a, b) => a.epoch - b.epoch);
  const stops = new Map<string, number[]>();
  for (const k of input.plan.earlyStopped) {
    const cut = k.indexOf("\u0000");
    const epoch = Number(k.slice(0, cut));
    const id = k.slice(cut + 1);
    const list = stops.get(id);
    if (list === undefined) stops.set(id, [epoch]);
    else list.push(epoch);
  }
  for (const list of stops.values()) list.sort((a, b) => a - b);
  return { records, stops };
}

interface ReducedSamples {
  /** What Inspect's metric sees: each sample reduced, or (unreduced) each epoch value alone. */
  perSample: PerSample[];
  /** Per sample: its epoch values as floats, and its one value (the reduced value; unreduced, the mean of its epochs). */
  bySample: { id: string; floats: Weighted[]; value: number }[];
}

/** Reduces samples one at a time (`add`), into ReducedSamples. */
function reduction(
  r: Reducer,
  unreduced: boolean,
  version: readonly number[] | null,
  toFloat: (rec: SampleRecord, v: unknown) => number,
): ReducedSamples & { add: (id: string, list: GroupList) => void } {
  const perSample: PerSample[] = [];
  const bySample: ReducedSamples["bySample"] = [];
  const add = (id: string, list: GroupList): void => {
    const floats = list.map((x) => ({ v: x.r === null ? (x.v as number) : toFloat(x.r, x.v), n: x.n }));
    let value: number;
    if (unreduced) {
      for (const x of floats) perSample.push({ ...x, id });
      const scored = floats.filter((x) => !Number.isNaN(x.v));
      value = scored.length === 0 ? NaN : exactMeanOf(scored);
    } else perSample.push({ v: (value = reduceWeighted(r, list, version)), n: 1, id });
    bySample.push({ id, floats, value });
  };
  return { perSample, bySample, add };
}

/**
 * Each planned sample's epoch values that enter one of assay's figures, in plan order: the scored
 * planned records and the model's refusals (as 0), or (`zero`) every planned record but the
 * early-stopped and grader-failed ones, those without a numeric score as 0 before reduction. The plan is walked by the records present:
 * the epochs between them enter as one zero of their count. Each sample's list goes to `into` as it
 * is made: reduced at once, none outlives its reduction.
 */
function planGroups(
  input: MetricInput,
  index: PlanIndex,
  zero: boolean,
  reads: Reads,
  into: (id: string, list: GroupList) => void,
): void {
  const epochs = input.plan.epochs;
  const none: never[] = [];
  for (const id of input.plan.ids) {
    const list: GroupList = [];
    const recs = index.records.get(id) ?? none;
    const stops = index.stops.size === 0 ? none : (index.stops.get(id) ?? none);
    let zeros = 0;
    let next = 1;
    let i = 0;
    let j = 0;
    while (i < recs.length || j < stops.length) {
      const ep = Math.min(recs[i]?.epoch ?? Infinity, stops[j] ?? Infinity);
      if (zero) zeros += ep - next; // the epochs before it: no record, not early-stopped
      const rec = recs[i]?.epoch === ep ? recs[i++] : undefined;
      const stopped = stops[j] === ep;
      if (stopped) j++;
      const o = reads.outcome(rec);
      if (o === "verdict") {
        if (zeros > 0) list.push({ r: null, v: 0, n: zeros });
        zeros = 0;
        list.push({ r: rec!, v: reads.valueOf(rec!), n: 1 });
      } else if (o === "refused" || (zero && !stopped && o !== "grader")) zeros++;
      next = ep + 1;
    }
    if (zero) zeros += epochs - next + 1;
    if (zeros > 0) list.push({ r: null, v: 0, n: zeros });
    if (list.length > 0) into(id, list);
  }
}

const isMeanMetric = (name: string) => name === "accuracy" || name === "mean";
const binary = (x: Weighted) => x.v === 0 || x.v === 1;
const weight = (xs: readonly Weighted[]) => xs.reduce((a, x) => a + x.n, 0);
const passes = (xs: readonly Weighted[]) => xs.reduce((a, x) => a + (x.v === 1 ? x.n : 0), 0);

/** The interval of a mean over the reduced samples (§13.2), each in its cluster. */
function unitInterval(
  xs: readonly PerSample[],
  clusterOf: ClusterOf,
  key: string | null,
  unreduced: boolean,
): IntervalOutcome {
  const units = new UnitSet();
  for (const x of xs) {
    const c = clusterOf(x.id);
    if ("reason" in c) return { interval: null, reason: `clustered by metadata "${key}", but ${c.reason}` };
    units.add(x.v, c.cluster, x.n);
  }
  // Unreduced, the units are epoch scores and a sample is their cluster.
  return units.interval(
    key === null && unreduced
      ? { unit: "epoch score", cluster: "sample" }
      : { unit: "sample", cluster: key ?? "sample" },
  );
}

/**
 * The value over the reduced samples; for accuracy and mean its interval (§13.2), its Wilson
 * interval (binary values) and, across epochs of binary values, pass@k and pass^k (k ≤ MAX_PASS_AT_K).
 */
function figures(s: Spec, got: ReducedSamples, epochs: number, clusterOf: ClusterOf, unreduced: boolean): Figures {
  const xs = got.perSample.filter((x) => !Number.isNaN(x.v));
  const n = weight(xs);
  const mean = isMeanMetric(s.metric);
  const iv = mean ? unitInterval(xs, clusterOf, s.clusterBy, unreduced) : { interval: null, reason: null };
  if (n === 0 || !isBuiltInMetric(s.metric))
    return { ...NO_FIGURES, n, interval: iv.interval, interval_reason: iv.reason };
  const value = weightedMetric(s.metric, xs);
  let passAt: Record<string, number> | null = null;
  let passHat: Record<string, number> | null = null;
  const per = got.bySample.map((x) => x.floats).filter((f) => f.length > 0);
  if (mean && epochs > 1 && per.length > 0 && per.every((f) => f.every(binary))) {
    passAt = {};
    let kMax = MAX_PASS_AT_K;
    for (const f of per) kMax = Math.min(kMax, weight(f));
    const sizes = per.map((f) => ({ passed: passes(f), total: weight(f) }));
    for (let k = 1; k <= kMax; k++)
      passAt[String(k)] = sizes.reduce((sum, f) => sum + passAtK(f.passed, f.total, k), 0) / sizes.length;
    passHat = passHatK(new Map(sizes.map((f, i) => [String(i), f])));
  }
  return {
    value,
    n,
    wilson95: mean && xs.every(binary) ? wilson95(passes(xs), n) : null,
    pass_at_k: passAt,
    interval: iv.interval,
    interval_reason: iv.reason,
    pass_hat_k: passHat,
  };
}
