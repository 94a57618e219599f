// issue 35: before compare uses an experiment's figures, those its document's own entries determine
// are recomputed from them: a document whose `mean` was edited (its entries untouched) was ranked
// on the edited figure. Pure. The headline metrics come from the units compare pairs (trials.ts:
// the same entries, counted as the metric counts them); what the experiment spent from its
// entries' usage. A figure that differs is refused by the caller, naming the document and the
// experiment. Only what the entries decide is checked: which trials an experiment lists as
// invalid, excluded or unscored is its own record (a keyed document's MAC vouches for it).

import { isDeepStrictEqual } from "node:util";
import type { BundleEntry, Experiment, RunOptions } from "../results.js";
import { chainMetric, type ChainReading } from "../inspect-metric.js";
import { wilson95 } from "../batch/stats.js";
import { UnitSet } from "../stats/interval.js";
import { addToTotal, emptyTotal, USAGE_FIELDS, type Usage, type UsageTotal } from "../usage.js";
import { headlines, type Units } from "./trials.js";

/** Equal but for the last bits a sum in another order may change. */
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
const sameValue = (a: number | null, b: number | null) => (a === null || b === null ? a === b : close(a, b));

/**
 * The figure a headline metric shows, as the document gives it: its value, for a proportion its k
 * of n, and its Wilson interval where it has one (compare recovers k of n from a mean's).
 */
function given(
  x: Experiment,
  metric: string,
): { value: number | null; k?: number; n?: number; wilson?: readonly [number, number] | null } | null {
  if (metric === "accuracy")
    return (
      x.accuracy && {
        value: x.accuracy.value,
        k: x.accuracy.victories,
        n: x.accuracy.scored,
        wilson: x.accuracy.wilson95,
      }
    );
  if (metric === "pass")
    return (
      x.pass && { value: x.pass.total === 0 ? null : x.pass.passed / x.pass.total, k: x.pass.passed, n: x.pass.total }
    );
  const reward = /^reward\/(.*)\/mean$/.exec(metric)?.[1];
  if (reward !== undefined)
    return x.rewards?.[reward] === undefined
      ? null
      : { value: x.rewards[reward].mean, wilson: x.rewards[reward].wilson95 };
  const inspect = /^inspect\/(.*)\/value$/.exec(metric)?.[1];
  return inspect === undefined || x.inspect?.[inspect] === undefined ? null : { value: x.inspect[inspect].value };
}

/** Why a headline figure is not the one the experiment's units give, or null (units that cannot say, an older document's Inspect log, are not checked). */
export function headlineProblem(x: Experiment, units: ReadonlyMap<string, Units>): string | null {
  for (const { metric } of headlines(x)) {
    const u = units.get(metric);
    const g = given(x, metric);
    if (u === undefined || u.reason !== null || g === null) continue;
    let n = 0;
    let sum = 0;
    u.values.forEach((v, i) => {
      const w = u.trials?.[i] ?? 1;
      n += w;
      sum += v * w;
    });
    const value = n === 0 ? null : sum / n;
    const counts = g.k === undefined ? "" : ` (${g.k} of ${g.n})`;
    if (!sameValue(g.value, value) || (g.k !== undefined && (g.k !== Math.round(sum) || g.n !== n)))
      return `its ${metric} ${g.value}${counts} is not what its entries give: ${value}${g.k === undefined ? "" : ` (${Math.round(sum)} of ${n})`}`;
    // A Wilson interval says its values are all 0 or 1: then it is that of their sum over their count.
    const w = g.wilson ?? null;
    const want = w === null ? null : wilson95(Math.round(sum), n);
    if (w !== null && (want === null || !close(w[0], want[0]) || !close(w[1], want[1])))
      return `its ${metric} Wilson interval [${w[0]}, ${w[1]}] is not what its entries give (${want === null ? "none" : `[${want[0]}, ${want[1]}]`})`;
  }
  return null;
}

/** One trial name's entries (Harbor): byte-identical copies spend once, as Harbor's job rules (kinds/harbor/batch.ts) count them. */
interface Named {
  digest: string;
  usages: (Usage | null)[];
  same: boolean;
}

/**
 * What every experiment's entries spent (§13.5 `usage.spent`), kept as the entries are read: per
 * Harbor trial name its usages (copies spend once), per other experiment the running total.
 * Terminal-Bench spends every trial; an Inspect run written twice spends once, so its totals are
 * at most its entries' (a bound, not a sum).
 */
export class EntrySpend {
  private readonly harbor = new Map<string, Map<string, Named>>();
  private readonly totals = new Map<string, UsageTotal>();

  add(e: BundleEntry): void {
    if (e.experiment === null) return;
    const key = `${e.profile}\u0000${e.experiment}`;
    if (e.profile === "harbor" && e.trial !== null && e.validity !== "error") {
      let names = this.harbor.get(key);
      if (names === undefined) this.harbor.set(key, (names = new Map()));
      const name = e.trial ?? e.path;
      const seen = names.get(name);
      if (seen === undefined) names.set(name, { digest: e.digest, usages: [e.usage], same: true });
      else {
        seen.usages.push(e.usage);
        seen.same &&= seen.digest === e.digest;
      }
      return;
    }
    let t = this.totals.get(key);
    if (t === undefined) this.totals.set(key, (t = emptyTotal()));
    addToTotal(t, e.usage);
  }

  /** Why `x`'s spent totals contradict its entries' usage, or null. */
  problem(x: Experiment): string | null {
    if (x.usage === null || x.experiment === null) return null;
    const key = `${x.profile}\u0000${x.experiment}`;
    const spent = x.usage.spent;
    const want = { ...(this.totals.get(key) ?? emptyTotal()) };
    for (const n of this.harbor.get(key)?.values() ?? [])
      for (const u of n.same ? n.usages.slice(0, 1) : n.usages) addToTotal(want, u);
    const bound = x.profile === "inspect";
    const fits = (have: number | null, sum: number | null) =>
      have === null
        ? bound || sum === null
        : sum !== null && (bound ? have <= sum + 1e-9 * Math.max(1, sum) : close(have, sum));
    const counts = bound
      ? spent.entries <= want.entries && spent.costed <= want.costed
      : spent.entries === want.entries && spent.costed === want.costed;
    const field = USAGE_FIELDS.find((f) => !fits(spent[f], want[f]));
    if (!counts || field !== undefined)
      return `its usage spent (${spent.entries} entries${field === undefined ? "" : `, ${field} ${spent[field]}`}) is ${bound ? "more than" : "not"} what its entries spent (${want.entries} entries${field === undefined ? "" : `, ${field} ${want[field]}`})`;
    return null;
  }
}

type LogMetrics = Pick<NonNullable<BundleEntry["inspect"]>, "plan" | "metrics"> & { clusters: string | null };

/**
 * §13.7: why a log's sample clusters are not the ones its metrics' intervals were built over, or
 * null. Each interval over as many units as the metric has per-sample values (one reduced value a
 * sample) is rebuilt from those values in their clusters, as the batch built it: clusters edited to
 * make a clustered metric's pairs look independent change it.
 */
function clustersProblem(l: NonNullable<BundleEntry["inspect"]>): string | null {
  const c = l.sample_clusters;
  if (c === null || l.sample_ids === null) return null;
  for (const [metric, m] of Object.entries(l.metrics)) {
    const key = c.by[metric];
    const k = key === undefined ? undefined : c.keys[key];
    for (const errors of ["exclude", "zero"] as const) {
      const xs = m.values?.[errors];
      const have = m[errors].interval;
      if (xs === undefined || have === null || xs.filter((v) => v !== null).length !== have.units) continue;
      const units = new UnitSet();
      let lacking = false;
      xs.forEach((v, i) => {
        if (v === null) return;
        const at = k?.of[i] ?? null;
        lacking ||= k !== undefined && at === null;
        units.add(v, at === null ? null : k!.names[at]!);
      });
      const want = lacking ? null : units.interval().interval;
      if (
        want === null ||
        want.method !== have.method ||
        want.clusters !== have.clusters ||
        !close(want.lo, have.lo) ||
        !close(want.hi, have.hi)
      )
        return `its Inspect metric ${JSON.stringify(metric)}'s ${errors} interval (${have.method}, ${have.clusters} clusters) is not what its sample clusters${key === undefined ? "" : ` by ${JSON.stringify(key)}`} give (${want === null ? "none" : `${want.method}, ${want.clusters} clusters`})`;
    }
  }
  return null;
}

/** The figures of an experiment's Inspect metric that its deciding log's entry decides. */
const figuresOf = (m: NonNullable<Experiment["inspect"]>[string]) => [
  m.value,
  m.coverage,
  m.wilson95,
  m.pass_at_k,
  m.interval,
  m.pass_hat_k,
  m.errors_zero,
];

/**
 * An Inspect experiment's figures are its deciding log's, by the batch's own rule (chainMetric):
 * kept per log as the entries are read (its metrics only, never its samples), then each figure of
 * the experiment checked against them. With an invalid log in the chain (--invalid count) every
 * planned sample counts 0. A figure withheld (a log of the run unread, or one that may be its later
 * outcome) is accepted as withheld: no figure gains nothing, and the logs that withhold it need not
 * be entries of this document.
 */
export class InspectFigures {
  private readonly logs = new Map<string, LogMetrics>();

  add(e: BundleEntry): void {
    if (e.profile !== "inspect" || e.experiment === null || e.inspect === null) return;
    // Without the per-sample values: the units (trials.ts) keep those, packed.
    const metrics = Object.fromEntries(Object.entries(e.inspect.metrics).map(([k, m]) => [k, { ...m, values: null }]));
    this.logs.set(`${e.experiment}\u0000${e.path}`, {
      plan: e.inspect.plan,
      metrics,
      clusters: clustersProblem(e.inspect),
    });
  }

  problem(x: Experiment, options: Pick<RunOptions, "invalid" | "errors">): string | null {
    if (x.profile !== "inspect" || x.inspect === null || x.experiment === null) return null;
    const log = x.log === null ? undefined : this.logs.get(`${x.experiment}\u0000${x.log.path}`);
    if (log === undefined)
      return `its figures name ${x.log === null ? "no deciding log" : `a deciding log (${x.log.path}) that is none of its entries`}`;
    if (log.clusters !== null) return log.clusters;
    const reading: ChainReading = options.invalid === "count" && x.invalid.length > 0 ? "zeroed" : "as-given";
    for (const [key, m] of Object.entries(x.inspect)) {
      const own = log.metrics[key];
      if (own === undefined) return `its Inspect metric ${JSON.stringify(key)} is none its deciding log's entry gives`;
      const have = figuresOf(m);
      const withheld = figuresOf(
        chainMetric(key, own, log.plan, { withheld: m.interval_reason ?? "" }, options.errors),
      );
      if (m.value === null && isDeepStrictEqual(have, withheld)) continue;
      const want = chainMetric(key, own, log.plan, reading, options.errors);
      if (x.unscored.length > 0 || !isDeepStrictEqual(have, figuresOf(want)))
        return `its Inspect metric ${JSON.stringify(key)} (value ${m.value}) is not what its deciding log's entry gives (value ${x.unscored.length > 0 ? null : want.value})`;
    }
    return null;
  }
}
