// Job metrics for Harbor trials (contract §11): per reward key, a mean over both scored states
// with its coverage, a pass rate, and unbiased pass@k per task when rewards are binary; every
// trial's state counted first, so how much of a job was actually scored is read before any mean.
// Pure: entries in, experiments out (a merge of shards recomputes exactly this).

import type { Code } from "../codes.js";
import { HARBOR_STATES } from "../harbor/trial.js";
import { blankExperiment, type Experiment } from "../results.js";
import { own } from "../schema.js";
import { byteCompare } from "../text.js";
import type { BatchRecord } from "./record.js";
import { passAtK } from "./stats.js";

export interface HarborOptions {
  /** Invalid trials enter the reward metrics as 0 ("count") or are left out of them. */
  invalid: "count" | "exclude";
  /** Infrastructure errors and incomplete trials: left out of the reward metrics, or counted as 0. */
  errors: "exclude" | "zero";
}

const SCORED = new Set(["scored", "scored-with-exception"]);

/** The `excluded` reason of a byte-identical copy, and the original it names (read back by analyze). */
export const copyReason = (originalPath: string) => `a byte-identical copy of ${originalPath} (counted once, there)`;
export const copiedFrom = (reason: string): string | null => /^a byte-identical copy of (.*) \(counted once, there\)$/.exec(reason)?.[1] ?? null;

/** One experiment per job folder (lone trials: experiment null). */
export function harborExperiments(entries: readonly BatchRecord[], options: HarborOptions): Experiment[] {
  const jobs = new Map<string | null, BatchRecord[]>();
  for (const e of [...entries].sort((a, b) => byteCompare(a.path, b.path))) {
    const g = jobs.get(e.experiment);
    if (g) g.push(e);
    else jobs.set(e.experiment, [e]);
  }
  return [...jobs.entries()].map(([job, trials]) => jobMetrics(job, trials, options));
}

function jobMetrics(job: string | null, all: BatchRecord[], options: HarborOptions): Experiment {
  const out = blankExperiment(job, "harbor", all.length);
  out.states = Object.fromEntries(HARBOR_STATES.map((s) => [s, 0]));
  // Folders claiming one trial_name: a byte-identical copy (the same job archived twice) counts
  // once; different contents under one name make them all invalid (a copied pass is not a second).
  const byName = new Map<string, BatchRecord[]>();
  for (const t of all) {
    if (t.trial === null || t.validity === "error") continue;
    const same = byName.get(t.trial);
    if (same) same.push(t);
    else byName.set(t.trial, [t]);
  }
  const copyOf = new Map<BatchRecord, BatchRecord>();
  const conflicting = new Set<BatchRecord>();
  for (const same of byName.values()) {
    if (same.length < 2) continue;
    if (same.every((t) => t.digest === same[0]!.digest)) for (const t of same.slice(1)) copyOf.set(t, same[0]!);
    else for (const t of same) conflicting.add(t);
  }

  const counted: Counted[] = [];
  for (const t of all) {
    const trial = t.trial ?? t.path;
    if (t.validity === "error") {
      out.unscored.push(trial); // a tool error: outside every numerator and denominator
      continue;
    }
    const original = copyOf.get(t);
    if (original !== undefined) {
      out.excluded.push({ trial, reason: copyReason(original.path) });
      continue;
    }
    if (t.state !== null) out.states![t.state]!++;
    for (const f of t.flags) out.flags.push({ code: f.code, trial, attempt: null });
    const codes = new Set<Code>(t.validity === "invalid" ? t.errors.map((f) => f.code) : []);
    if (conflicting.has(t)) codes.add("TRIAL_DUPLICATE");
    if (codes.size > 0) {
      out.invalid.push({ trial, codes: [...codes].sort(byteCompare) });
      if (options.invalid === "count") counted.push({ trial: t, rewards: "zero", covered: true });
      continue;
    }
    if (SCORED.has(t.state ?? "") && t.rewards !== null) counted.push({ trial: t, rewards: t.rewards, covered: true });
    else if (options.errors === "zero") counted.push({ trial: t, rewards: "zero", covered: false });
    else out.excluded.push({ trial, reason: `${t.state}: no reward to count (--errors zero counts it as 0)` });
  }

  // Keys from every trial that has rewards, invalid ones included, so a job whose every scored
  // trial is invalid still shows its 0; Harbor's default key when none names one.
  const named = new Set(all.flatMap((t) => (t.validity === "error" || copyOf.has(t) ? [] : Object.keys(t.rewards ?? {}))));
  const keys = named.size > 0 ? [...named].sort(byteCompare) : counted.length > 0 ? ["reward"] : [];
  const trials = all.length - out.unscored.length - copyOf.size;
  if (keys.length > 0) out.rewards = Object.fromEntries(keys.map((k) => [k, keyMetrics(k, counted, trials)]));
  return out;
}

/**
 * A trial in the reward metrics with its rewards ("zero": invalid, or an error under --errors zero).
 * `covered`: it counts toward coverage — scored, or invalid (which earns 0 rather than vanishing);
 * an error counted as 0 under --errors zero is in the mean but was never scored.
 */
interface Counted {
  trial: BatchRecord;
  rewards: Record<string, number> | "zero";
  covered: boolean;
}

function keyMetrics(key: string, counted: Counted[], trials: number) {
  // A valid scored trial without this key is not in this key's mean (its coverage shows it).
  const values = counted.flatMap((c) => {
    const v = c.rewards === "zero" ? 0 : own(c.rewards, key);
    return v === undefined ? [] : [{ trial: c.trial, v, covered: c.covered }];
  });
  const n = values.length;
  const mean = n === 0 ? null : values.reduce((s, x) => s + x.v, 0) / n;
  const passRate = n === 0 ? null : values.filter((x) => x.v === 1).length / n;
  let passAtKs: Record<string, number> | null = null;
  let reason: string | null = null;
  const nonBinary = values.find((x) => x.v !== 0 && x.v !== 1);
  const taskless = values.filter((x) => x.trial.task === null).length;
  if (n === 0) reason = "no trial in the mean";
  else if (nonBinary !== undefined) reason = `rewards are not binary (${nonBinary.trial.trial ?? nonBinary.trial.path} has ${nonBinary.v}): pass@k needs 0 or 1`;
  // Leaving them out would raise pass@k over the very trials that failed to say what they were.
  else if (taskless > 0) reason = `${taskless} trial${taskless > 1 ? "s" : ""} in the mean name${taskless > 1 ? "" : "s"} no task (no readable result.json), so pass@k cannot place them`;
  else {
    // Independent repeats of one task: same task_name and task_checksum.
    const tasks = new Map<string, { passed: number; total: number }>();
    for (const { trial, v } of values) {
      const id = `${trial.task}\u0000${trial.task_checksum ?? ""}`;
      const g = tasks.get(id) ?? { passed: 0, total: 0 };
      g.total++;
      if (v === 1) g.passed++;
      tasks.set(id, g);
    }
    const kMax = Math.min(...[...tasks.values()].map((g) => g.total));
    passAtKs = {};
    for (let k = 1; k <= kMax; k++) {
      let sum = 0;
      for (const g of tasks.values()) sum += passAtK(g.passed, g.total, k);
      passAtKs[String(k)] = sum / tasks.size;
    }
  }
  const covered = values.filter((x) => x.covered).length;
  return { mean, coverage: trials === 0 ? 0 : covered / trials, covered, trials, pass_rate: passRate, pass_at_k: passAtKs, pass_at_k_reason: reason };
}
