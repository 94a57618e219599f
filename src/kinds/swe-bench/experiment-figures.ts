// §14 "The experiment's figure" `rewards.resolved`, as plain data: where every instance of the run
// goes (states, covered, excluded, missing, invalid), the list the mean is taken over (each 0 or
// 1) and its denominators. The mean, Wilson interval and pass@k are the kind-neutral keyMetrics'
// over `counted` (one attempt per instance: pass@1 is the mean).

import type { RunInstance, RunState } from "./run-instances.js";

export interface FigureOptions {
  /** exclude (default): error-like states leave the mean; zero: they count 0 (the harness's denominator). */
  errors: "exclude" | "zero";
  /** count (default): an invalid instance counts 0; exclude: it leaves both sides of the mean. */
  invalid: "count" | "exclude";
}

export interface CountedInstance {
  trial: string;
  /** 1: resolved, valid and re-derived; else 0. */
  value: 0 | 1;
  invalid: boolean;
}

export interface ExperimentFigures {
  /** Every instance of the run, each once, by state. */
  states: Record<RunState, number>;
  /** The instances in the mean (all covered), in byte order of id. */
  counted: CountedInstance[];
  /** Instances whose value is 1. */
  resolved: number;
  covered: number;
  /** Every instance of the run (= scheduled; not-submitted included). */
  trials: number;
  /** covered / trials; null for a run without instances. */
  coverage: number | null;
  excluded: { trial: string; reason: RunState }[];
  /** Missing ids, then how many instances the dataset has that were not submitted. */
  missing: (string | { count: number; reason: string })[];
  invalid: { trial: string; codes: string[] }[];
  /** The leaderboard's "% resolved": resolved over total_instances (else over the run's instances). */
  resolved_over_total: { resolved: number; total: number; value: number | null };
}

/** States with a verdict: in the mean under either --errors. */
const VERDICT: ReadonlySet<RunState> = new Set([
  "resolved",
  "unresolved",
  "tests-not-run",
  "empty-patch",
  "patch-apply-failed",
]);
/** States without one: excluded, or 0 under --errors zero. */
const ERROR_LIKE: ReadonlySet<RunState> = new Set(["tests-timeout", "error", "incomplete", "unverified", "missing"]);
const STATES: readonly RunState[] = [
  "resolved",
  "unresolved",
  "tests-not-run",
  "empty-patch",
  "patch-apply-failed",
  "tests-timeout",
  "error",
  "incomplete",
  "unverified",
  "missing",
  "not-submitted",
];
export const NOT_SUBMITTED_REASON = "in the dataset, not submitted (incomplete_ids)";

/** `instances`: runInstances' list; `totalInstances`: the final report's total_instances, when read. */
export function experimentFigures(
  instances: readonly RunInstance[],
  options: FigureOptions,
  totalInstances: number | null,
): ExperimentFigures {
  const states = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<RunState, number>;
  const counted: CountedInstance[] = [];
  const excluded: ExperimentFigures["excluded"] = [];
  const missing: string[] = [];
  const invalid: ExperimentFigures["invalid"] = [];
  for (const i of instances) {
    states[i.state]++;
    if (i.state === "missing") missing.push(i.id);
    const codes = i.outcome?.invalid ?? [];
    if (codes.length > 0) invalid.push({ trial: i.id, codes: [...codes] });
    const inMean =
      codes.length > 0
        ? options.invalid === "count"
        : VERDICT.has(i.state) || (ERROR_LIKE.has(i.state) && options.errors === "zero");
    if (inMean) counted.push({ trial: i.id, value: creditOf(i), invalid: codes.length > 0 });
    else if (ERROR_LIKE.has(i.state) && i.state !== "missing" && codes.length === 0)
      excluded.push({ trial: i.id, reason: i.state });
  }
  const resolved = counted.filter((c) => c.value === 1).length;
  const trials = instances.length;
  const total = totalInstances ?? trials;
  const credited = instances.filter((i) => creditOf(i) === 1).length;
  return {
    states,
    counted,
    resolved,
    covered: counted.length,
    trials,
    coverage: trials === 0 ? null : counted.length / trials,
    excluded,
    missing: [
      ...missing,
      ...(states["not-submitted"] > 0 ? [{ count: states["not-submitted"], reason: NOT_SUBMITTED_REASON }] : []),
    ],
    invalid,
    resolved_over_total: { resolved: credited, total, value: total === 0 ? null : credited / total },
  };
}

/** 1 only for a valid instance re-derived resolved: a report's own verdict is never credited. */
const creditOf = (i: RunInstance): 0 | 1 =>
  i.state === "resolved" && i.outcome !== null && i.outcome.invalid.length === 0 && !i.outcome.reportOnly ? 1 : 0;
