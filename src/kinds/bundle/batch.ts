// Batch rules (contract §6) over assay bundles' entries: attribution, trial findings, adjudication,
// and the native and world metrics. Pure: records in, experiments out. Imports no registry (the
// bundle kind's batch calls this: kinds/bundle/kind.ts).

import type { Code } from "../../core/codes.js";
import { blankExperiment, PROFILES, type Experiment, type Profile } from "../../core/results.js";
import { byteCompare } from "../../core/text.js";
import { DIMENSIONS } from "./world/dimensions.js";
import type { BatchOptions } from "../../core/batch/experiments.js";
import { hasOutcome } from "../../core/batch/outcome.js";
import type { BatchRecord } from "../../core/batch/record.js";
import { indexSchedules, type Schedule } from "../../core/batch/schedule.js";
import { passHatK, wilson95 } from "../../core/batch/stats.js";
import { intervalFields, UnitSet } from "../../core/stats/interval.js";

type Attempt = BatchRecord & { experiment: string; trial: string; attempt: number };
type Flag = Experiment["flags"][number];

const attributed = (e: BatchRecord): e is Attempt => e.experiment !== null && e.trial !== null && e.attempt !== null;

/** §6: assay bundles' experiments, grouped by the names their journals give (each bundle's experiment, trial and attempt), with their schedules. */
export function assayExperiments(
  entries: readonly BatchRecord[],
  schedules: readonly Schedule[],
  options: BatchOptions,
): Experiment[] {
  const bySchedule = indexSchedules(schedules);
  const groups = new Map<string, Attempt[]>();
  // In the order given: each trial's attempts are sorted below (by attempt, then path), and the
  // rest is order-free or sorted itself (a sort by path first cost a path's text per comparison).
  for (const e of entries) {
    if (!attributed(e)) continue;
    const g = groups.get(e.experiment);
    if (g) g.push(e);
    else groups.set(e.experiment, [e]);
  }
  const ids = [...new Set([...groups.keys(), ...bySchedule.keys()])].sort(byteCompare);
  return ids.map((id) => experiment(id, groups.get(id) ?? [], bySchedule.get(id) ?? null, options));
}

function experiment(id: string, bundles: Attempt[], schedule: Schedule | null, options: BatchOptions): Experiment {
  const profile = majorityProfile(bundles);
  const byTrial = new Map<string, Attempt[]>();
  for (const b of bundles) {
    const t = byTrial.get(b.trial);
    if (t) t.push(b);
    else byTrial.set(b.trial, [b]);
  }
  for (const list of byTrial.values()) list.sort((a, b) => a.attempt - b.attempt || byteCompare(a.path, b.path));

  const scheduledSeed = new Map(schedule?.trials.map((t) => [t.trial, t.seed]) ?? []);
  const scheduledScenario = new Map(schedule?.trials.map((t) => [t.trial, t.scenario]) ?? []);
  const isWorld = profile === "world";
  const excludeResourceBound = options.resourceBound === "exclude" || (options.resourceBound === "default" && !isWorld);
  const dims = new Map<string, { passed: number; total: number; units: UnitSet }>();
  // §13.1: a metric's units are its counted trials; trials sharing a task form one cluster.
  const units = { won: new UnitSet(), completed: new UnitSet() };
  /** A world trial that enters the totals: its dimensions (null: invalid, failing every one). */
  const countWorld = (d: BatchRecord["dimensions"], cluster: string | null) => {
    for (const name of DIMENSIONS) {
      const g = dims.get(name) ?? { passed: 0, total: 0, units: new UnitSet() };
      g.total++;
      if (d?.[name]?.pass) g.passed++;
      g.units.add(d?.[name]?.pass ? 1 : 0, cluster);
      dims.set(name, g);
    }
  };
  const trialIds = schedule ? schedule.trials.map((t) => t.trial) : [...byTrial.keys()].sort(byteCompare);
  const unscheduled = schedule ? [...byTrial.keys()].filter((t) => !scheduledSeed.has(t)).sort(byteCompare) : [];

  // SEED_COLLISION looks across the experiment's trials (the scheduled ones). A seed's first trial
  // is kept as a string; only a seed two trials share gets a set (a million trials: a million
  // sets was a hundred megabytes).
  const trialsBySeed = new Map<string, string | Set<string>>();
  for (const t of trialIds)
    for (const a of byTrial.get(t) ?? []) {
      if (a.seed === null) continue;
      const seen = trialsBySeed.get(a.seed);
      if (seen === undefined) trialsBySeed.set(a.seed, t);
      else if (typeof seen === "string") {
        if (seen !== t) trialsBySeed.set(a.seed, new Set([seen, t]));
      } else seen.add(t);
    }
  const collided = new Set<string>();
  for (const s of trialsBySeed.values()) if (typeof s !== "string") for (const t of s) collided.add(t);

  const out = blankExperiment(id, profile, trialIds.length);
  const raw: (0 | 1)[] = [];
  const retry: string[] = [];
  const repeats = new Map<string, { passed: number; total: number }>();
  let victories = 0;
  let scored = 0;
  let completed = 0;
  const countRepeat = (task: string | null, passed: boolean) => {
    if (task === null) return;
    const g = repeats.get(task) ?? { passed: 0, total: 0 };
    g.total++;
    if (passed) g.passed++;
    repeats.set(task, g);
  };

  for (const trial of trialIds) {
    const attempts = byTrial.get(trial) ?? [];
    if (attempts.some((a) => a.validity === "error")) {
      out.unscored.push(trial);
      continue;
    }
    // §13.1: the cluster is the task of the attempt that decides (the lowest for an invalid or
    // unadjudicated trial); a trial without meta.task is a cluster of its own (null).
    let cluster = attempts[0]?.task ?? null;
    const countScored = (won: boolean) => {
      scored++;
      if (won) victories++;
      units.won.add(won ? 1 : 0, cluster);
    };
    if (attempts.length === 0) {
      out.missing.push(trial);
      retry.push(trial);
      raw.push(0);
      units.completed.add(0, cluster);
      continue;
    }
    const codes = trialFindings(
      attempts,
      profile,
      scheduledSeed.get(trial),
      scheduledScenario.get(trial),
      collided.has(trial),
    );
    if (codes.length > 0) {
      out.invalid.push({ trial, codes });
      raw.push(0);
      units.completed.add(0, cluster);
      if (options.invalid === "count") {
        countScored(false);
        if (isWorld) countWorld(null, cluster);
        countRepeat(attempts[0]!.task, false);
      }
      continue;
    }
    const adj = adjudicate(attempts, trial, out.flags);
    if (adj === null) {
      out.excluded.push({
        trial,
        reason:
          "no adjudicated attempt: every attempt is abnormal, or unterminated with neither a native ending nor a final score",
      });
      retry.push(trial);
      raw.push(0);
      units.completed.add(0, cluster);
      continue;
    }
    cluster = adj.task;
    if (adj.ending) completed++;
    units.completed.add(adj.ending ? 1 : 0, cluster);
    if (adj.status === "resource-bound" && !adj.ending && excludeResourceBound) {
      out.excluded.push({
        trial,
        reason: isWorld
          ? "resource-bound (--resource-bound exclude)"
          : "resource-bound without a native ending (--resource-bound loss scores it as a loss)",
      });
      raw.push(0);
      continue;
    }
    if (isWorld) countWorld(adj.dimensions, cluster);
    const won = isWorld ? adj.pass === true : adj.victory === true;
    countScored(won);
    raw.push(won ? 1 : 0);
    countRepeat(adj.task, won);
  }
  for (const trial of unscheduled) out.invalid.push({ trial, codes: ["UNSCHEDULED"] });

  if (isWorld) {
    out.dimensions = Object.fromEntries(
      DIMENSIONS.map((n) => {
        const g = dims.get(n);
        return [
          n,
          {
            passed: g?.passed ?? 0,
            total: g?.total ?? 0,
            ...intervalFields((g?.units ?? new UnitSet()).interval(TRIALS)),
          },
        ];
      }),
    );
    out.pass = { passed: victories, total: scored, ...intervalFields(units.won.interval(TRIALS)) };
    out.retry = retry;
    out.pass_hat_k = passHatK(repeats);
  } else {
    const counted = trialIds.length - out.unscored.length;
    out.accuracy = {
      value: scored === 0 ? null : victories / scored,
      victories,
      scored,
      wilson95: wilson95(victories, scored),
      ...intervalFields(units.won.interval(TRIALS)),
    };
    out.raw_record = {
      values: raw,
      mean: raw.length === 0 ? null : raw.reduce<number>((s, v) => s + v, 0) / raw.length,
    };
    out.completion = {
      value: counted === 0 ? null : completed / counted,
      completed,
      scheduled: counted,
      ...intervalFields(units.completed.interval(TRIALS)),
    };
    out.retry = retry;
    out.pass_hat_k = passHatK(repeats);
  }
  return out;
}

/** What a native or world metric's units and clusters are called in a reason. */
const TRIALS = { unit: "trial", cluster: "task" };

/**
 * The experiment's profile: the one most of its bundles declare (ties: the contract's order), so
 * one stray bundle cannot turn a native experiment into something else and erase its metrics.
 */
function majorityProfile(bundles: readonly Attempt[]): Profile | null {
  const counts = new Map<Profile, number>();
  for (const b of bundles) if (b.profile !== null) counts.set(b.profile, (counts.get(b.profile) ?? 0) + 1);
  let best: Profile | null = null;
  for (const p of PROFILES) if ((counts.get(p) ?? 0) > (best === null ? 0 : counts.get(best)!)) best = p;
  return best;
}

/** Codes that make a trial invalid (§6 trial findings), sorted. */
function trialFindings(
  attempts: Attempt[],
  profile: Profile | null,
  scheduledSeed: string | undefined,
  scheduledScenario: string | undefined,
  collided: boolean,
): Code[] {
  const codes = new Set<Code>();
  for (const a of attempts) {
    if (a.validity === "invalid") for (const f of a.errors) codes.add(f.code);
    if (a.profile !== null && a.profile !== profile) codes.add("PROFILE_MIXED");
  }
  if (!attempts.every((a, i) => a.attempt === i + 1)) codes.add("ATTEMPT_SEQUENCE");
  const seeds = new Set(attempts.map((a) => a.seed));
  if (seeds.size > 1 || (scheduledSeed !== undefined && !seeds.has(scheduledSeed))) codes.add("SEED_MISMATCH");
  if (collided) codes.add("SEED_COLLISION");
  if (scheduledScenario !== undefined && attempts.some((a) => a.scenario !== scheduledScenario))
    codes.add("SCENARIO_NOT_SCHEDULED");
  return [...codes].sort(byteCompare);
}

/**
 * The adjudicated attempt: the lowest one with an outcome (a native ending, or completed,
 * interrupted — an unterminated run with a final score counts so — or resource-bound).
 * Lower attempts are superseded; higher ones are retries of a scored trial and are ignored.
 */
function adjudicate(attempts: Attempt[], trial: string, flags: Flag[]): Attempt | null {
  const i = attempts.findIndex(hasOutcome);
  if (i === -1) return null;
  const adj = attempts[i]!;
  attempts.forEach((a, j) => {
    if (j < i) flags.push({ code: "SUPERSEDED", trial, attempt: a.attempt, evidence: null });
    if (j > i) flags.push({ code: "RETRY_AFTER_OUTCOME", trial, attempt: a.attempt, evidence: null });
  });
  if (adj.ending === true && adj.status === "unterminated")
    flags.push({ code: "UNTERMINATED_WITH_ENDING", trial, attempt: adj.attempt, evidence: null });
  if (adj.ending === true && adj.status !== "completed" && adj.status !== "unterminated")
    flags.push({ code: "ENDING_OVERRIDES_STATUS", trial, attempt: adj.attempt, evidence: null });
  return adj;
}
