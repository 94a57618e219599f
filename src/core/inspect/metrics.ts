// Each metric of a log (contract §12): what `results` claims, whether Inspect's own rules give that
// over the samples present (METRIC_MISMATCH, COUNT_MISMATCH), and assay's own figures over the
// plan, for both --errors settings (the experiment picks one). Pure.

import { wilson95 } from "../batch/stats.js";
import { finding, type Finding } from "../codes.js";
import { isPlainObject } from "../json/decode.js";
import type { SampleRecord } from "./sample.js";
import { agree, isBuiltInMetric, metric, parseReducer, reduce, type Reducer } from "./stats.js";
import { recordKey } from "./summary.js";
import { isNaNValue, leaf, showValue, valueToFloat } from "./value.js";
import { atLeast, SINCE } from "./version.js";
import { passAtK } from "../batch/stats.js";

/** assay's figures for one metric under one --errors setting. */
export interface Figures {
  value: number | null;
  /** Samples (reduced) the value is over. */
  n: number;
  wilson95: [number, number] | null;
  pass_at_k: Record<string, number> | null;
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
  for (const s of specs(input)) {
    const toFloat = (r: SampleRecord, v: unknown): number => {
      const f = valueToFloat(v, input.version);
      if (f.fallback && !unconvertible.has(r)) unconvertible.set(r, `scores.${s.scorer}${s.sub === null ? "" : `.${s.sub}`}: ${showValue(v).slice(0, 80)}`);
      return f.x;
    };
    const valueOf = (r: SampleRecord): unknown => (Object.hasOwn(r.scores, s.scorer) ? leaf(r.scores[s.scorer], s.sub) : undefined);
    const scoredIn = (r: SampleRecord | undefined): r is SampleRecord => r !== undefined && !r.invalidated && valueOf(r) !== undefined && !isNaNValue(valueOf(r));
    const coverage = { scored: 0, planned: input.plan.ids.length * input.plan.epochs };
    for (const id of input.plan.ids) for (let ep = 1; ep <= input.plan.epochs; ep++) if (scoredIn(input.byKey.get(recordKey(id, ep)))) coverage.scored++;
    const verifiable = s.builtIn && s.reducer !== null && !input.noEvidence && !input.truncated;
    const none: Figures = { value: null, n: 0, wilson95: null, pass_at_k: null };
    const m: LogMetric = { claimed: claimedOf(s.claimed), check: "unverified", note: null, coverage, exclude: none, zero: none };
    if (typeof s.claimed === "number" && !Number.isNaN(s.claimed) && !Number.isFinite(s.claimed)) findings.push(finding("NOT_FINITE", input.file, null, `${s.path}: ${s.claimed}`));
    if (!verifiable)
      m.note = input.noEvidence ? "no sample record behind it"
        : input.truncated ? "the log is cut short: not every sample behind it can be read"
        : !s.builtIn ? "not a built-in metric with default options"
        : `reducer ${s.reducerName} is not one assay recomputes`;
    if (!verifiable && s.builtIn && s.reducer !== null && !input.noEvidence) {
      // Cut short: no claim is checked, but assay's own figures stand over what can be read.
      m.exclude = ownFigures(s, input, false, toFloat, valueOf, scoredIn, unreduced);
      m.zero = ownFigures(s, input, true, toFloat, valueOf, scoredIn, unreduced);
    } else if (verifiable) {
      // What Inspect's rules give over the samples present: the claim's own derivation.
      const errorsCount = atLeast(input.version, SINCE.erroredScored);
      const claimGroups = new Map<string, { r: SampleRecord; v: unknown }[]>();
      for (const rec of input.records) {
        const v = valueOf(rec);
        if (v === undefined || (rec.error !== null && !errorsCount)) continue;
        const g = claimGroups.get(rec.id) ?? [];
        if (g.length === 0) claimGroups.set(rec.id, g);
        g.push({ r: rec, v });
      }
      const derived = reduceAll(claimGroups, s.reducer!, unreduced, input.version, toFloat).perSample;
      const kept = derived.filter((x) => !Number.isNaN(x));
      const expected = isBuiltInMetric(s.metric) ? metric(s.metric, kept) : NaN;
      if (typeof s.claimed === "number") {
        // ±Infinity is NOT_FINITE above: never an agreement.
        const infinite = !Number.isNaN(s.claimed) && !Number.isFinite(s.claimed);
        m.check = !infinite && agree(s.claimed, expected) ? "agrees" : "mismatch";
        if (m.check === "mismatch") {
          m.note = `Inspect's rules give ${showValue(expected)} over ${kept.length} scored sample${kept.length === 1 ? "" : "s"} present`;
          if (!infinite) findings.push(finding("METRIC_MISMATCH", input.file, null, `${s.path}: claimed ${showValue(s.claimed)}; ${m.note}`));
        }
      } else if (s.entry !== null) m.note = "claimed value is not a number";
      else m.note = "results claims nothing for this scorer";
      if (s.entry !== null && !countsChecked.has(s.entry)) {
        countsChecked.add(s.entry);
        for (const [field, n] of [["scored_samples", kept.length], ["unscored_samples", derived.length - kept.length]] as const) {
          const c = s.entry[field];
          if (typeof c === "number" && c !== n) findings.push(finding("COUNT_MISMATCH", input.file, null, `${s.path.replace(/\.metrics\..*$/, "")}.${field}: claimed ${c}, a recount gives ${n}`));
        }
      }
      m.exclude = ownFigures(s, input, false, toFloat, valueOf, scoredIn, unreduced);
      m.zero = ownFigures(s, input, true, toFloat, valueOf, scoredIn, unreduced);
    }
    metrics[s.key] = m;
  }
  return { metrics, findings, unconvertible };
}

type Group = Map<string, { r: SampleRecord | null; v: unknown }[]>;

/** Each sample's epoch values reduced (or, unreduced, each value alone), and the epoch values as floats. */
function reduceAll(groups: Group, r: Reducer, unreduced: boolean, version: readonly number[] | null, toFloat: (rec: SampleRecord, v: unknown) => number): { perSample: number[]; floats: number[][] } {
  const perSample: number[] = [];
  const floats: number[][] = [];
  for (const list of groups.values()) {
    const xs = list.map((x) => (x.r === null ? (x.v as number) : toFloat(x.r, x.v)));
    if (unreduced) for (const x of xs) perSample.push(x);
    else perSample.push(reduce(r, list.map((x) => x.v), version));
    floats.push(xs);
  }
  return { perSample, floats };
}

/**
 * assay's own figures over the plan: the scored planned records, or (`zero`) every planned record
 * but the early-stopped ones, those without a numeric score as 0 before reduction.
 */
function ownFigures(s: Spec, input: MetricInput, zero: boolean, toFloat: (rec: SampleRecord, v: unknown) => number, valueOf: (r: SampleRecord) => unknown, scoredIn: (r: SampleRecord | undefined) => r is SampleRecord, unreduced: boolean): Figures {
  const groups: Group = new Map();
  for (const id of input.plan.ids) {
    const list: { r: SampleRecord | null; v: unknown }[] = [];
    for (let ep = 1; ep <= input.plan.epochs; ep++) {
      const k = recordKey(id, ep);
      const rec = input.byKey.get(k);
      if (scoredIn(rec)) list.push({ r: rec, v: valueOf(rec) });
      else if (zero && !input.plan.earlyStopped.has(k)) list.push({ r: null, v: 0 });
    }
    if (list.length > 0) groups.set(id, list);
  }
  return figures(s.metric, reduceAll(groups, s.reducer!, unreduced, input.version, toFloat), input.plan.epochs);
}

const binary = (x: number) => x === 0 || x === 1;

/** The value over the reduced samples, its Wilson interval (binary accuracy or mean), and pass@k across epochs (binary values). */
function figures(name: string, got: { perSample: number[]; floats: number[][] }, epochs: number): Figures {
  const xs = got.perSample.filter((x) => !Number.isNaN(x));
  if (xs.length === 0 || !isBuiltInMetric(name)) return { value: null, n: xs.length, wilson95: null, pass_at_k: null };
  const value = metric(name, xs);
  const proportion = (name === "accuracy" || name === "mean") && xs.every(binary);
  let passAt: Record<string, number> | null = null;
  const per = got.floats.filter((f) => f.length > 0);
  if ((name === "accuracy" || name === "mean") && epochs > 1 && per.length > 0 && per.every((f) => f.every(binary))) {
    passAt = {};
    const kMax = Math.min(...per.map((f) => f.length));
    for (let k = 1; k <= kMax; k++) passAt[String(k)] = per.reduce((sum, f) => sum + passAtK(f.filter((x) => x === 1).length, f.length, k), 0) / per.length;
  }
  return { value, n: xs.length, wilson95: proportion ? wilson95(xs.reduce<number>((a, b) => a + b, 0), xs.length) : null, pass_at_k: passAt };
}
