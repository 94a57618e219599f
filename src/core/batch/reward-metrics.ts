// One reward key's metrics over a container's counted trials (contract §11, §13.1): mean, pass
// rate, pass@k and pass^k per task, Wilson and cluster intervals, coverage. Harbor's job rules and
// Terminal-Bench's run rules both count their trials so. Pure.

import { intervalFields, UnitSet, type IntervalOutcome } from "../stats/interval.js";
import { own } from "../schema.js";
import type { BatchRecord } from "./record.js";
import { MAX_PASS_AT_K, passAtK, passHatK, smallestTotal, wilson95 } from "./stats.js";
import { taskKeys } from "./task-keys.js";

/** A trial in the reward metrics with its rewards ("zero": invalid, or a trial without reward under --errors zero). */
export interface Counted {
  trial: BatchRecord;
  rewards: Record<string, number> | "zero";
  /** It counts toward coverage: scored, or invalid (which earns 0 rather than vanishing). */
  covered: boolean;
  invalid: boolean;
  /** The task it is clustered under, when not its own (a Harbor trial whose result.json names none, placed by its config.json). */
  task?: Pick<BatchRecord, "task" | "task_checksum">;
}

/** An interval whose clusters hold `taskless` trials of a cluster of their own, said so: a trial naming no task is never counted as a task. */
const placedOnly = (o: IntervalOutcome, taskless: number): IntervalOutcome =>
  o.interval === null || taskless === 0 ? o : { ...o, interval: { ...o.interval, unplaced: taskless } };

/**
 * One reward key's metrics over the counted trials: mean, pass rate, pass@k and pass^k per task, Wilson and cluster intervals; `trials` is coverage's denominator.
 * `planUnknown` (why the plan is unknown): coverage is null, since folders over folders would look complete when the plan was lost (issue 35).
 * `taskUnread`: a trial whose task identity was unreadable (Harbor's LOCK_UNREADABLE), so pass@k cannot place it.
 */
export function keyMetrics(
  key: string,
  counted: Counted[],
  trials: number,
  planUnknown: string | null = null,
  taskUnread: (r: BatchRecord) => boolean = () => false,
) {
  // A valid scored trial without this key is not in this key's mean (its coverage shows it).
  const values = counted.flatMap((c) => {
    const v = c.rewards === "zero" ? 0 : own(c.rewards, key);
    return v === undefined ? [] : [{ trial: c.trial, at: c.task ?? c.trial, v, covered: c.covered }];
  });
  const n = values.length;
  const mean = n === 0 ? null : values.reduce((s, x) => s + x.v, 0) / n;
  const passRate = n === 0 ? null : values.filter((x) => x.v === 1).length / n;
  let passAtKs: Record<string, number> | null = null;
  let passHat: Record<string, number> | null = null;
  let reason: string | null = null;
  const nonBinary = values.find((x) => x.v !== 0 && x.v !== 1);
  const identity = taskKeys(values.map((x) => x.at));
  const taskless = values.filter((x) => x.at.task === null).length;
  const lockless = values.filter((x) => taskUnread(x.trial)).length;
  if (n === 0) reason = "no trial in the mean";
  else if (nonBinary !== undefined)
    reason = `rewards are not binary (${nonBinary.trial.trial ?? nonBinary.trial.path} has ${nonBinary.v}): pass@k needs 0 or 1`;
  // Leaving them out would raise pass@k over the very trials that failed to say what they were.
  else if (taskless > 0)
    reason = `${taskless} trial${taskless > 1 ? "s" : ""} in the mean name${taskless > 1 ? "" : "s"} no task (no readable result.json), so pass@k cannot place them`;
  // Its checksum instead would regroup the task with others of its name (issue 35).
  else if (lockless > 0)
    reason = `${lockless} trial${lockless > 1 ? "s" : ""} in the mean ha${lockless > 1 ? "ve" : "s"} an unreadable lock.json (LOCK_UNREADABLE), so pass@k cannot tell ${lockless > 1 ? "their tasks" : "its task"}`;
  else {
    // Independent repeats of one task: same task_name and identity (core/batch/task-keys.ts).
    const tasks = new Map<string, { passed: number; total: number }>();
    for (const { at, v } of values) {
      const id = identity.key(at)!;
      const g = tasks.get(id) ?? { passed: 0, total: 0 };
      g.total++;
      if (v === 1) g.passed++;
      tasks.set(id, g);
    }
    const kMax = Math.min(smallestTotal(tasks.values()), MAX_PASS_AT_K);
    passAtKs = {};
    for (let k = 1; k <= kMax; k++) {
      let sum = 0;
      for (const g of tasks.values()) sum += passAtK(g.passed, g.total, k);
      passAtKs[String(k)] = sum / tasks.size;
    }
    passHat = passHatK(tasks);
  }
  // §13.1: the units are the trials in the mean; a cluster is one task (as pass@k tells them), a trial naming none its own.
  const units = new UnitSet();
  for (const { at, v } of values) units.add(v, identity.key(at));
  const covered = values.filter((x) => x.covered).length;
  // §11: a Wilson interval when every value in the mean is 0 or 1 (n = that many).
  const wilson = n > 0 && nonBinary === undefined ? wilson95(values.filter((x) => x.v === 1).length, n) : null;
  return {
    mean,
    wilson95: wilson,
    coverage: planUnknown !== null ? null : trials === 0 ? 0 : covered / trials,
    ...(planUnknown === null ? {} : { coverage_reason: planUnknown }),
    covered,
    trials,
    pass_rate: passRate,
    pass_at_k: passAtKs,
    pass_at_k_reason: reason,
    pass_hat_k: passHat,
    task_identity: identity.identity,
    ...intervalFields(placedOnly(units.interval({ unit: "trial", cluster: "task" }), taskless)),
  };
}
