// Each metric of a log (contract §12): what `results` claims, whether Inspect's own rules give that
// over the samples present (METRIC_MISMATCH, COUNT_MISMATCH), and assay's own figures over the
// plan, for both --errors settings (the experiment picks one). Pure.

import { MAX_PASS_AT_K, passAtK, wilson95 } from "../batch/stats.js";
import { finding, type Finding } from "../codes.js";
import type { Interval } from "../stats/interval.js";
import { isPlainObject } from "../json/decode.js";
import type { SampleRecord } from "./sample.js";
import { agree, isBuiltInMetric, parseReducer, reduceWeighted, weightedMetric, type Reducer, type Weighted } from "./stats.js";
import { isNaNValue, leaf, showValue, valueToFloat } from "./value.js";
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
  values: { exclude: (number | null)[]; zero: (number | null)[] } | null;
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
  /** The log holds no sample record at all. */
  noEvidence: boolean;
  /** The log is cut short: the samples behind its claims cannot all be read. */
  truncated: boolean;
  /** The file results lives in (for findings). */
  file: string;
}

interface Spec {
  key: string;
  /** The record's scores key, and the dict key below it (a dict-valued scorer). */
  scorer: string;
  sub: string | null;
  reducer: Reducer | null;
  reducerName: string | null;
  metric: string;
  builtIn: boolean;
  claimed: unknown;
  path: string;
  /** The results entry (for its counts), or null for a declared scorer results lacks. */
  entry: Record<string, unknown> | null;
}

const claimedOf = (v: unknown): Claimed =>
  typeof v !== "number" ? null : Number.isNaN(v) ? "NaN" : v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : v;

const emptyParams = (m: Record<string, unknown>): boolean => {
  const p = m["params"] ?? m["options"];
  return p === undefined || p === null || (isPlainObject(p) && Object.keys(p).length === 0);
};

/** `eval.scorers` entry by name → the built-in metrics it declares with empty options. */
function declared(scorers: unknown): Map<string, Set<string>> | null {
  if (!Array.isArray(scorers)) return null;
  const out = new Map<string, Set<string>>();
  for (const s of scorers) {
    if (!isPlainObject(s) || typeof s["name"] !== "string") continue;
    const lists = Array.isArray(s["metrics"]) ? [s["metrics"]] : isPlainObject(s["metrics"]) ? Object.values(s["metrics"]).filter(Array.isArray) : [];
    const names = new Set<string>();
    for (const list of lists as unknown[][])
      for (const m of list) {
        if (!isPlainObject(m) || typeof m["name"] !== "string" || !emptyParams(m)) continue;
        const short = /^inspect_ai\/(.+)$/.exec(m["name"])?.[1];
        if (short !== undefined && isBuiltInMetric(short)) names.add(short);
      }
    out.set(s["name"], names);
  }
  return out;
}

/** The metric entries: `results.scores[]`, plus the built-ins of scorers declared but absent from results. */
function specs(input: MetricInput): Spec[] {
  const decl = declared(input.scorers);
  const out: Spec[] = [];
  const scores = Array.isArray(input.results?.["scores"]) ? (input.results!["scores"] as unknown[]) : [];
  const present = new Set<string>();
  const hasKey = (k: string) => input.records.some((r) => Object.hasOwn(r.scores, k));
  scores.forEach((e, i) => {
    if (!isPlainObject(e) || typeof e["name"] !== "string" || !isPlainObject(e["metrics"])) return;
    const name = e["name"];
    const scorer = typeof e["scorer"] === "string" ? e["scorer"] : name;
    present.add(scorer).add(name);
    const reducerName = typeof e["reducer"] === "string" ? e["reducer"] : null;
    // A dict-valued scorer has one results entry per key, named by the key.
    const direct = name === scorer || hasKey(name);
    const label = name === scorer ? scorer : `${scorer}.${name}`;
    for (const [mk, m] of Object.entries(e["metrics"])) {
      if (!isPlainObject(m)) continue;
      const mname = typeof m["name"] === "string" ? m["name"] : mk;
      const fromDecl = decl?.get(scorer) ?? decl?.get(name);
      const builtIn = isBuiltInMetric(mname) && (fromDecl !== undefined ? fromDecl.has(mname) : mk === mname && emptyParams(m));
      out.push({
        key: `${label}/${reducerName ?? "-"}/${mk}`,
        scorer: direct ? name : scorer,
        sub: direct ? null : name,
        reducer: parseReducer(reducerName),
        reducerName,
        metric: mname,
        builtIn,
        claimed: m["value"],
        path: `results.scores[${i}].metrics.${mk}.value`,
        entry: e,
      });
    }
  });
  // A --no-score run: the scorers are declared, results holds none of them.
  const reducers = Array.isArray(input.epochsReducer) ? input.epochsReducer.filter((r): r is string => typeof r === "string") : [];
  for (const [name, metrics] of decl ?? [])
    if (!present.has(name))
      for (const mname of metrics)
        out.push({ key: `${name}/-/${mname}`, scorer: name, sub: null, reducer: parseReducer(reducers[0] ?? null), reducerName: reducers[0] ?? null, metric: mname, builtIn: true, claimed: undefined, path: "", entry: null });
  return out;
}

export interface MetricsOutcome {
  metrics: Record<string, LogMetric>;
  findings: Finding[];
  /** Records whose value Inspect maps to 0 only through its fallback, with what was read. */
  unconvertible: Map<SampleRecord, string>;
}

/** Every metric of the log, checked and recomputed. */
export function logMetrics(input: MetricInput): MetricsOutcome {
  const findings: Finding[] = [];
  const unconvertible = new Map<SampleRecord, string>();
  const metrics: Record<string, LogMetric> = {};
  const unreduced = Array.isArray(input.epochsReducer) && input.epochsReducer.length === 0;
  const countsChecked = new Set<Record<string, unknown>>();
  const index = planIndex(input);
  for (const s of specs(input)) {
    const toFloat = (r: SampleRecord, v: unknown): number => {
      const f = valueToFloat(v, input.version);
      if (f.fallback && !unconvertible.has(r)) unconvertible.set(r, `scores.${s.scorer}${s.sub === null ? "" : `.${s.sub}`}: ${showValue(v).slice(0, 80)}`);
      return f.x;
    };
    const valueOf = (r: SampleRecord): unknown => (Object.hasOwn(r.scores, s.scorer) ? leaf(r.scores[s.scorer], s.sub) : undefined);
    const scoredIn = (r: SampleRecord | undefined): r is SampleRecord => r !== undefined && !r.invalidated && valueOf(r) !== undefined && !isNaNValue(valueOf(r));
    const coverage = { scored: 0, planned: input.plan.ids.length * input.plan.epochs };
    for (const list of index.records.values()) for (const r of list) if (scoredIn(r)) coverage.scored++;
    const verifiable = s.builtIn && s.reducer !== null && !input.noEvidence && !input.truncated;
    const none: Figures = { value: null, n: 0, wilson95: null, pass_at_k: null, interval: null, interval_reason: null, pass_hat_k: null };
    const m: LogMetric = { claimed: claimedOf(s.claimed), check: "unverified", note: null, coverage, exclude: none, zero: none, values: null };
    if (typeof s.claimed === "number" && !Number.isNaN(s.claimed) && !Number.isFinite(s.claimed)) findings.push(finding("NOT_FINITE", input.file, null, `${s.path}: ${s.claimed}`));
    if (!verifiable)
      m.note = input.noEvidence ? "no sample record behind it"
        : input.truncated ? "the log is cut short: not every sample behind it can be read"
        : !s.builtIn ? "not a built-in metric with default options"
        : `reducer ${s.reducerName} is not one assay recomputes`;
    if (!verifiable && s.builtIn && s.reducer !== null && !input.noEvidence) {
      // Cut short: no claim is checked, but assay's own figures stand over what can be read.
      m.exclude = ownFigures(s, input, index, false, toFloat, valueOf, scoredIn, unreduced);
      m.zero = ownFigures(s, input, index, true, toFloat, valueOf, scoredIn, unreduced);
    } else if (verifiable) {
      // What Inspect's rules give over the samples present: the claim's own derivation.
      const errorsCount = atLeast(input.version, SINCE.erroredScored);
      const claimGroups: Group = new Map();
      for (const rec of input.records) {
        const v = valueOf(rec);
        if (v === undefined || (rec.error !== null && !errorsCount)) continue;
        const g = claimGroups.get(rec.id) ?? [];
        if (g.length === 0) claimGroups.set(rec.id, g);
        g.push({ r: rec, v, n: 1 });
      }
      const derived = reduceAll(claimGroups, s.reducer!, unreduced, input.version, toFloat).perSample;
      const kept = derived.filter((x) => !Number.isNaN(x.v));
      const keptCount = kept.reduce((a, x) => a + x.n, 0);
      const expected = isBuiltInMetric(s.metric) ? weightedMetric(s.metric, kept) : NaN;
      if (typeof s.claimed === "number") {
        // ±Infinity is NOT_FINITE above: never an agreement.
        const infinite = !Number.isNaN(s.claimed) && !Number.isFinite(s.claimed);
        m.check = !infinite && agree(s.claimed, expected) ? "agrees" : "mismatch";
        if (m.check === "mismatch") {
          m.note = `Inspect's rules give ${showValue(expected)} over ${keptCount} scored sample${keptCount === 1 ? "" : "s"} present`;
          if (!infinite) findings.push(finding("METRIC_MISMATCH", input.file, null, `${s.path}: claimed ${showValue(s.claimed)}; ${m.note}`));
        }
      } else if (s.entry !== null) m.note = "claimed value is not a number";
      else m.note = "results claims nothing for this scorer";
      if (s.entry !== null && !countsChecked.has(s.entry)) {
        countsChecked.add(s.entry);
        const derivedCount = derived.reduce((a, x) => a + x.n, 0);
        for (const [field, n] of [["scored_samples", keptCount], ["unscored_samples", derivedCount - keptCount]] as const) {
          const c = s.entry[field];
          if (typeof c === "number" && c !== n) findings.push(finding("COUNT_MISMATCH", input.file, null, `${s.path.replace(/\.metrics\..*$/, "")}.${field}: claimed ${c}, a recount gives ${n}`));
        }
      }
      m.exclude = ownFigures(s, input, index, false, toFloat, valueOf, scoredIn, unreduced);
      m.zero = ownFigures(s, input, index, true, toFloat, valueOf, scoredIn, unreduced);
    }
    metrics[s.key] = m;
  }
  return { metrics, findings, unconvertible };
}

/** One sample's epoch values in epoch order; `n` > 1 only for a run of records counted 0 (`r` null). */
type Group = Map<string, { r: SampleRecord | null; v: unknown; n: number }[]>;

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

/** Each sample's epoch values reduced (or, unreduced, each value alone), and the epoch values as floats. */
function reduceAll(groups: Group, r: Reducer, unreduced: boolean, version: readonly number[] | null, toFloat: (rec: SampleRecord, v: unknown) => number): { perSample: Weighted[]; floats: Weighted[][] } {
  const perSample: Weighted[] = [];
  const floats: Weighted[][] = [];
  for (const list of groups.values()) {
    const xs = list.map((x) => ({ v: x.r === null ? (x.v as number) : toFloat(x.r, x.v), n: x.n }));
    if (unreduced) for (const x of xs) perSample.push(x);
    else perSample.push({ v: reduceWeighted(r, list, version), n: 1 });
    floats.push(xs);
  }
  return { perSample, floats };
}

/**
 * assay's own figures over the plan: the scored planned records, or (`zero`) every planned record
 * but the early-stopped ones, those without a numeric score as 0 before reduction. The plan is
 * walked by the records present: the epochs between them enter as one zero of their count.
 */
function ownFigures(s: Spec, input: MetricInput, index: PlanIndex, zero: boolean, toFloat: (rec: SampleRecord, v: unknown) => number, valueOf: (r: SampleRecord) => unknown, scoredIn: (r: SampleRecord | undefined) => r is SampleRecord, unreduced: boolean): Figures {
  const groups: Group = new Map();
  const epochs = input.plan.epochs;
  for (const id of input.plan.ids) {
    const list: { r: SampleRecord | null; v: unknown; n: number }[] = [];
    const recs = index.records.get(id) ?? [];
    const stops = index.stops.get(id) ?? [];
    let zeros = 0;
    const flush = () => {
      if (zeros > 0) list.push({ r: null, v: 0, n: zeros });
      zeros = 0;
    };
    let next = 1;
    let i = 0;
    let j = 0;
    while (i < recs.length || j < stops.length) {
      const ep = Math.min(recs[i]?.epoch ?? Infinity, stops[j] ?? Infinity);
      if (zero) zeros += ep - next; // the epochs before it: no record, not early-stopped
      const rec = recs[i]?.epoch === ep ? recs[i++] : undefined;
      const stopped = stops[j] === ep;
      if (stopped) j++;
      if (scoredIn(rec)) {
        flush();
        list.push({ r: rec, v: valueOf(rec), n: 1 });
      } else if (zero && !stopped) zeros++;
      next = ep + 1;
    }
    if (zero) zeros += epochs - next + 1;
    flush();
    if (list.length > 0) groups.set(id, list);
  }
  return figures(s.metric, reduceAll(groups, s.reducer!, unreduced, input.version, toFloat), epochs);
}

const binary = (x: Weighted) => x.v === 0 || x.v === 1;
const weight = (xs: readonly Weighted[]) => xs.reduce((a, x) => a + x.n, 0);
const passes = (xs: readonly Weighted[]) => xs.reduce((a, x) => a + (x.v === 1 ? x.n : 0), 0);

/** The value over the reduced samples, its Wilson interval (binary accuracy or mean), and pass@k across epochs (binary values; k ≤ MAX_PASS_AT_K). */
function figures(name: string, got: { perSample: Weighted[]; floats: Weighted[][] }, epochs: number): Figures {
  const xs = got.perSample.filter((x) => !Number.isNaN(x.v));
  const n = weight(xs);
  if (n === 0 || !isBuiltInMetric(name)) return { value: null, n, wilson95: null, pass_at_k: null, interval: null, interval_reason: null, pass_hat_k: null };
  const value = weightedMetric(name, xs);
  const proportion = (name === "accuracy" || name === "mean") && xs.every(binary);
  let passAt: Record<string, number> | null = null;
  const per = got.floats.filter((f) => f.length > 0);
  if ((name === "accuracy" || name === "mean") && epochs > 1 && per.length > 0 && per.every((f) => f.every(binary))) {
    passAt = {};
    let kMax = MAX_PASS_AT_K;
    for (const f of per) kMax = Math.min(kMax, weight(f));
    const sizes = per.map((f) => ({ c: passes(f), n: weight(f) }));
    for (let k = 1; k <= kMax; k++) passAt[String(k)] = sizes.reduce((sum, f) => sum + passAtK(f.c, f.n, k), 0) / sizes.length;
  }
  return { value, n, wilson95: proportion ? wilson95(passes(xs), n) : null, pass_at_k: passAt, interval: null, interval_reason: null, pass_hat_k: null };
}
