// An Inspect task run's metric from its deciding log's (contract §12): the one rule the kind's batch
// (kinds/inspect/batch.ts) and compare's check of a document (compare/checked.ts) both apply. In
// core because compare is, and core imports no kind.

import type { BatchRecord } from "./batch/record.js";
import { MAX_PASS_AT_K, wilson95 } from "./batch/stats.js";
import type { Experiment } from "./results.js";
import { intervalFields, UnitSet } from "./stats/interval.js";

/** §13.6: the Inspect metrics that are proportions (a mean or accuracy): they carry an interval and pass^k. */
export const PROPORTION_METRIC = /\/(accuracy|mean)$/;

type LogMetric = NonNullable<BatchRecord["inspect"]>["metrics"][string];
type LogPlan = NonNullable<BatchRecord["inspect"]>["plan"];

/**
 * How a task run's figures come from its deciding log: as the log gives them, every planned record
 * 0 (an invalid log in the chain, --invalid count), or withheld (why: a log of the run unread).
 */
export type ChainReading = "as-given" | "zeroed" | { withheld: string };

/** One metric of a task run from its deciding log's (the one rule for the batch and for compare's check of a document). */
export function chainMetric(
  key: string,
  m: LogMetric,
  plan: LogPlan,
  reading: ChainReading,
  errors: "exclude" | "zero",
): NonNullable<Experiment["inspect"]>[string] {
  const f = errors === "zero" ? m.zero : m.exclude;
  const base = {
    claimed: m.claimed,
    check: m.check,
    note: m.note,
    ...(m.grader_failed === undefined ? {} : { grader_failed: m.grader_failed }),
    ...(m.refusals === undefined ? {} : { refusals: m.refusals }),
  };
  const proportion = PROPORTION_METRIC.test(key);
  if (typeof reading === "object")
    return {
      ...base,
      value: null,
      coverage: m.coverage,
      wilson95: null,
      pass_at_k: null,
      errors_zero: null,
      interval: null,
      interval_reason: proportion ? reading.withheld : null,
      pass_hat_k: null,
    };
  if (reading === "zeroed") {
    const zeros =
      plan.epochs > 1
        ? Object.fromEntries(Array.from({ length: Math.min(plan.epochs, MAX_PASS_AT_K) }, (_, k) => [String(k + 1), 0]))
        : null;
    const value = plan.records > 0 ? 0 : null;
    return {
      // Coverage stays what the evidence scored: the zeros are the verdict on the log, not scored records.
      ...base,
      value,
      coverage: m.coverage,
      wilson95: proportion && plan.records > 0 ? wilson95(0, plan.records) : null,
      pass_at_k: zeros,
      errors_zero: value,
      ...(proportion
        ? { ...zeroInterval(plan.ids), pass_hat_k: zeros }
        : { interval: null, interval_reason: null, pass_hat_k: null }),
    };
  }
  return {
    ...base,
    value: f.value,
    coverage: m.coverage,
    wilson95: f.wilson95,
    pass_at_k: f.pass_at_k,
    errors_zero: m.zero.value,
    interval: f.interval,
    interval_reason: f.interval_reason,
    pass_hat_k: f.pass_hat_k,
  };
}

/**
 * The interval of an invalid chain's zeros (§13.2): every planned sample a unit of 0, each its own
 * cluster — Wilson's for 0 of n, computed, never enumerated (n is the log's word).
 */
function zeroInterval(samples: number) {
  if (samples < 2) {
    const none = new UnitSet();
    if (samples === 1) none.add(0, null);
    return intervalFields(none.interval({ unit: "sample", cluster: "sample" }));
  }
  const [lo, hi] = wilson95(0, samples)!;
  return {
    interval: { method: "wilson" as const, lo, hi, units: samples, clusters: samples, se: null, design_effect: null },
    interval_reason: null,
  };
}
