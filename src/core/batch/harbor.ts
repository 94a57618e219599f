// Job metrics for Harbor trials (contract §11): per reward key, a mean over both scored states
// with its coverage, a pass rate, and unbiased pass@k per task when rewards are binary; every
// trial's state counted first, so how much of a job was actually scored is read before any mean.
// Pure: entries in, experiments out (a merge of shards recomputes exactly this).

import type { Code } from "../codes.js";
import { HARBOR_STATES } from "../harbor/trial.js";
import type { BundleEntry, Experiment } from "../results.js";
import { byteCompare } from "../text.js";
import { passAtK } from "./stats.js";

export interface HarborOptions {
  /** Invalid trials enter the reward metrics as 0 ("count") or are left out of them. */
  invalid: "count" | "exclude";
  /** Infrastructure errors and incomplete trials: left out of the reward metrics, or counted as 0. */
  errors: "exclude" | "zero";
}

const SCORED = new Set(["scored", "scored-with-exception"]);

/** One experiment per job folder (lone trials: experiment null). */
export function harborExperiments(entries: readonly BundleEntry[], options: HarborOptions): Experiment[] {
  const jobs = new Map<string | null, BundleEntry[]>();
  for (const e of [...entries].sort((a, b) => byteCompare(a.path, b.path))) jobs.set(e.experiment, [...(jobs.get(e.experiment) ?? []), e]);
  return [...jobs.entries()].map(([job, trials]) => jobMetrics(job, trials, options));
}

function jobMetrics(job: string | null, all: BundleEntry[], options: HarborOptions): Experiment {
  const out: Experiment = {
    experiment: job,
    profile: "harbor",
    scheduled: 0,
    invalid: [],
    missing: [],
    excluded: [],
    unscored: [],
    flags: [],
    accuracy: null,
    raw_record: null,
    completion: null,
    retry: null,
    dimensions: null,
    pass: null,
    pass_hat_k: null,
    rewards: null,
    states: Object.fromEntries(HARBOR_STATES.map((s) => [s, 0])),
  };
  // Two folders claiming one trial_name: neither may count (a copied passing trial is not a second pass).
  const byName = new Map<string, number>();
  for (const t of all) if (t.trial !== null) byName.set(t.trial, (byName.get(t.trial) ?? 0) + 1);

  const counted: Counted[] = [];
  out.scheduled = all.length;
  for (const t of all) {
    const trial = t.trial ?? t.path;
    if (t.validity === "error") {
      out.unscored.push(trial); // a tool error: outside every numerator and denominator
      continue;
    }
    if (t.state !== null) out.states![t.state]!++;
    for (const f of t.flags) out.flags.push({ code: f.code, trial, attempt: null });
    const codes = new Set<Code>(t.validity === "invalid" ? t.errors.map((f) => f.code) : []);
    if ((byName.get(trial) ?? 0) > 1) codes.add("TRIAL_DUPLICATE");
    if (codes.size > 0) {
      out.invalid.push({ trial, codes: [...codes].sort(byteCompare) });
      if (options.invalid === "count") counted.push({ trial: t, rewards: "zero", covered: true });
      continue;
    }
    if (SCORED.has(t.state ?? "") && t.rewards !== null) counted.push({ trial: t, rewards: t.rewards, covered: true });
    else if (options.errors === "zero") counted.push({ trial: t, rewards: "zero", covered: false });
    else out.excluded.push({ trial, reason: `${t.state}: no reward to count (--errors zero counts it as 0)` });
  }

  const keys = [...new Set(counted.flatMap((c) => (c.rewards === "zero" ? [] : Object.keys(c.rewards))))].sort(byteCompare);
  const trials = all.length - out.unscored.length;
  if (keys.length > 0) out.rewards = Object.fromEntries(keys.map((k) => [k, keyMetrics(k, counted, trials)]));
  return out;
}

/**
 * A trial in the reward metrics with its rewards ("zero": invalid, or an error under --errors zero).
 * `covered`: it counts toward coverage — scored, or invalid (which earns 0 rather than vanishing);
 * an error counted as 0 under --errors zero is in the mean but was never scored.
 */
interface Counted {
  trial: BundleEntry;
  rewards: Record<string, number> | "zero";
  covered: boolean;
}

function keyMetrics(key: string, counted: Counted[], trials: number) {
  // A valid scored trial without this key is not in this key's mean (its coverage shows it).
  const values = counted.flatMap((c) => {
    const v = c.rewards === "zero" ? 0 : c.rewards[key];
    return v === undefined ? [] : [{ trial: c.trial, v, covered: c.covered }];
  });
  const n = values.length;
  const mean = n === 0 ? null : values.reduce((s, x) => s + x.v, 0) / n;
  const passRate = n === 0 ? null : values.filter((x) => x.v === 1).length / n;
  let passAtKs: Record<string, number> | null = null;
  let reason: string | null = null;
  const nonBinary = values.find((x) => x.v !== 0 && x.v !== 1);
  if (nonBinary !== undefined) reason = `rewards are not binary (${nonBinary.trial.trial ?? nonBinary.trial.path} has ${nonBinary.v}): pass@k needs 0 or 1`;
  else {
    // Independent repeats of one task: same task_name and task_checksum.
    const tasks = new Map<string, { passed: number; total: number }>();
    for (const { trial, v } of values) {
      if (trial.task === null) continue;
      const id = `${trial.task}\u0000${trial.task_checksum ?? ""}`;
      const g = tasks.get(id) ?? { passed: 0, total: 0 };
      g.total++;
      if (v === 1) g.passed++;
      tasks.set(id, g);
    }
    if (tasks.size === 0) reason = n === 0 ? "no trial has this reward" : "no trial names its task";
    else {
      const kMax = Math.min(...[...tasks.values()].map((g) => g.total));
      passAtKs = {};
      for (let k = 1; k <= kMax; k++) {
        let sum = 0;
        for (const g of tasks.values()) sum += passAtK(g.passed, g.total, k);
        passAtKs[String(k)] = sum / tasks.size;
      }
    }
  }
  const covered = values.filter((x) => x.covered).length;
  return { mean, coverage: trials === 0 ? 0 : covered / trials, covered, trials, pass_rate: passRate, pass_at_k: passAtKs, pass_at_k_reason: reason };
}
