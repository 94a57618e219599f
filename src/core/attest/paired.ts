// Paired criteria (`HEAD - BASE METRIC COMPARATOR THRESHOLD`): the figure is HEAD − BASE over the
// units both experiments count, as `assay compare` pairs them (core/compare: same units, same test,
// same interval), so "B beats A by 0.05" is decided on the pairs, never on two independent means.
// The units come from the document's entries (or a recount's), not from the statement: a verifier
// recomputes them as it recomputes every figure.

import { pairedComparison } from "../compare/paired.js";
import { TrialOutcomes, type Units } from "../compare/trials.js";
import type { BundleEntry, Experiment, RunOptions } from "../results.js";
import type { ExperimentProjection, Statement } from "./statement.js";

/** What a statement records of one paired rule's comparison (camelCase, as the predicate is). */
export interface PairedRecord {
  /** What one pair is: a trial (native, world), a task (Harbor, Terminal-Bench, SWE-bench: its trials' mean), a sample (Inspect). */
  unit: string | null;
  pairs: number;
  onlyBase: number;
  onlyHead: number;
  clusters: number | null;
  meanDiff: number | null;
  interval: { method: string; lo: number; hi: number } | null;
  test: string;
  p: number;
  /** What the interval takes for granted, or why there is none. */
  assumes: string;
  /** Why there is no figure (no such experiment or metric, other kinds, no pair), else null. */
  reason: string | null;
  /** Why units did not pair ("only in BASE: 3 tasks", …). */
  unpaired: string[];
}

/** Each experiment's units, per compare key, by the experiment's name and profile. */
export type UnitsOf = (experiment: string | null, profile: string | null) => ReadonlyMap<string, Units> | undefined;

const keyOf = (experiment: string | null, profile: string | null) => JSON.stringify([experiment, profile]);

/** Every entry's unit values, gathered while a document (or a recount) streams by; `finish` once its experiments are known. */
export class CriteriaUnits {
  private readonly trials = new TrialOutcomes();
  add(e: BundleEntry): void {
    this.trials.add(e);
  }
  finish(experiments: readonly Experiment[], options: Pick<RunOptions, "invalid" | "errors">): UnitsOf {
    const by = new Map(experiments.map((x) => [keyOf(x.experiment, x.profile), this.trials.take(x, options)]));
    return (experiment, profile) => by.get(keyOf(experiment, profile));
  }
}

/** Whether a statement has paired criteria: only then are a document's (or recount's) unit values worth gathering. */
export const hasPairedRules = (s: Statement | null): boolean =>
  s?.predicate.criteria?.rules.some((r) => r.baseline !== undefined) ?? false;

/** The §15.4 metric name's key among compare's headline metrics (null: a metric compare does not pair). */
function compareKey(name: string): string | null {
  if (name === "accuracy" || name === "pass") return name;
  if (name.startsWith("rewards/")) return `reward/${name.slice("rewards/".length)}/mean`;
  if (name.startsWith("inspect/")) return `${name}/value`;
  return null;
}

function assumptions(unit: string, pairs: number, clusters: number | null, method: string | null, why: string | null) {
  if (method === null) return `no interval: ${why ?? "none"}`;
  const each = `HEAD − BASE per ${unit}, over the ${pairs} ${unit}s both count, matched by id`;
  const averaged = unit === "task" ? " (a task's trials are averaged into its value first)" : "";
  return method === "cluster-paired-t"
    ? `${each}${averaged}; cluster-paired t over ${clusters} clusters: ${unit}s in one cluster are not taken as independent, clusters are`
    : `${each}${averaged}; paired t: the ${unit}s are taken as independent of one another`;
}

const nothing = (reason: string): PairedRecord => ({
  unit: null,
  pairs: 0,
  onlyBase: 0,
  onlyHead: 0,
  clusters: null,
  meanDiff: null,
  interval: null,
  test: "none",
  p: 1,
  assumes: `no interval: ${reason}`,
  reason,
  unpaired: [],
});

/**
 * One paired rule's figure: the mean difference HEAD − BASE of METRIC, or with `.lo` / `.hi` its
 * interval's bound (a metric named as written wins, as in single rules). Null, with the reason,
 * where nothing pairs: a rule that compared nothing never passes.
 */
export function observePaired(
  experiments: readonly ExperimentProjection[],
  head: string,
  base: string,
  name: string,
  units: UnitsOf | undefined,
): { observed: number | null; paired: PairedRecord } {
  const [h, b] = [head, base].map((n) => experiments.find((x) => x.experiment === n));
  const missing = [h === undefined ? head : null, b === undefined ? base : null].filter((n) => n !== null);
  if (missing.length > 0)
    return { observed: null, paired: nothing(`no experiment ${missing.map((n) => JSON.stringify(n)).join(" or ")}`) };
  if (h!.profile !== b!.profile)
    return {
      observed: null,
      paired: nothing(
        `HEAD is ${h!.profile ?? "no profile"}, BASE ${b!.profile ?? "no profile"}: units of different kinds do not pair`,
      ),
    };
  const exact = h!.metrics.some((m) => m.name === name);
  const bound = exact ? null : ((/\.(lo|hi)$/.exec(name)?.[1] as "lo" | "hi" | undefined) ?? null);
  const metric = bound === null ? name : name.slice(0, -3);
  const key = compareKey(metric);
  const [uh, ub] = [h!, b!].map((x) => (key === null ? undefined : units?.(x.experiment, x.profile)?.get(key)));
  if (uh === undefined || ub === undefined)
    return {
      observed: null,
      paired: nothing(
        `${JSON.stringify(metric)} has no units to pair in both experiments (paired rules take a headline metric: accuracy, pass, rewards/KEY, inspect/…/mean or …/accuracy)`,
      ),
    };
  const binary = h!.profile === "native-game" || h!.profile === "world";
  const c = pairedComparison(ub, uh, binary);
  const paired: PairedRecord = {
    unit: c.unit,
    pairs: c.pairs,
    onlyBase: c.only_base,
    onlyHead: c.only_head,
    clusters: c.clusters,
    meanDiff: c.mean_diff,
    interval: c.interval,
    test: c.test,
    p: c.p,
    assumes: assumptions(c.unit, c.pairs, c.clusters, c.interval?.method ?? null, c.reason),
    reason: c.reason,
    unpaired: c.unpaired,
  };
  return { observed: bound === null ? c.mean_diff : (c.interval?.[bound] ?? null), paired };
}
