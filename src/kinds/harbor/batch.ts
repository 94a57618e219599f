// Job metrics for Harbor trials (contract §11): one experiment per job folder (lone trials grouped
// by their config's job_id), its trials' states counted first, then per reward key a mean over
// both scored states with its coverage (the job's planned-but-absent trials included), a pass
// rate and unbiased pass@k per task; beside them what the job's own summary claims, and why it
// differs. Rules that look across trials or at the job's own files live here, never in a trial's
// stored entry. Pure: records and job records in, experiments out (a merge recomputes exactly this).

import { finding, type Code } from "../../core/codes.js";
import { firstRewardFile, unreadJob } from "./job.js";
import { placeTaskless } from "./task-place.js";
import { agreesOnlyWith } from "./rewards.js";
import { blankExperiment, HARBOR_STATES, type Experiment, type JobRecord } from "../../core/results.js";
import { own, setOwn } from "../../core/schema.js";
import { byteCompare } from "../../core/text.js";
import { harborExplained } from "./claims.js";
import { ownOf } from "./own.js";
import type { BatchRecord } from "../../core/batch/record.js";
import { copyReason } from "../../core/batch/copy-reason.js";
import { keyMetrics, type Counted } from "../../core/batch/reward-metrics.js";
import { experimentUsage } from "../../core/usage.js";

export interface HarborOptions {
  /** Invalid trials enter the reward metrics as 0 ("count") or are left out of them. */
  invalid: "count" | "exclude";
  /** Trials without a reward to count (errors, cancelled, incomplete, unverified): left out of the reward metrics, or counted as 0. */
  errors: "exclude" | "zero";
}

const SCORED = new Set(["scored", "scored-with-exception"]);
/** LOCK_UNREADABLE on a trial's own lock.json: its task is unknown to pass@k. */
const lockUnreadable = (r: BatchRecord): boolean => ownOf(r).lockUnreadable;

/** The reason of planned-but-absent trials in `missing`. */
const PLANNED_ABSENT = "planned by the job, absent from its folder";
/** JOB_PLAN_UNKNOWN's evidence. */
const PLAN_UNKNOWN =
  "the job's result.json is absent or unreadable: its plan (n_total_trials) is unknown, so coverage is unknown (only the trial folders present can be counted; trials a resume deleted cannot show), and its claims (stats.evals) cannot be checked against its trials";
/** coverage_reason when the job's plan is unknown. */
export const COVERAGE_PLAN_UNKNOWN =
  "plan unknown: the job's result.json is absent or unreadable, so n_total_trials (coverage's denominator) is unknown; covered / trials counts only the folders present";

type Keyed = Pick<BatchRecord, "profile" | "job" | "job_id" | "experiment">;

/** Which experiment a Harbor trial belongs to before it is named: its job folder, or (a lone trial) its config's job_id. */
const groupKey = (e: Keyed): string => (e.job !== null ? `job\u0000${e.job}` : `lone\u0000${e.job_id ?? ""}`);

/** A job id as §11 shortens it in names: its first 8 hex digits (the first 8 characters of an id with fewer). */
function id8(id: string | null): string {
  if (id === null) return "no-id";
  const hex = id.toLowerCase().replace(/[^0-9a-f]/g, "");
  return hex.length >= 8 ? hex.slice(0, 8) : id.slice(0, 8);
}

interface Group {
  key: string;
  /** The job folder (null: lone trials). */
  job: JobRecord | null;
  id: string | null;
  records: BatchRecord[];
}

/**
 * A run's Harbor experiments and their names, computed once over every record and job: the names
 * depend on other folders (two jobs of one name), so they are applied to the records here and to
 * the entries as the document is written (`nameOf`), never stored.
 */
export class HarborNaming {
  readonly groups: Group[];
  private readonly names = new Map<string, string | null>();

  constructor(records: readonly BatchRecord[], jobs: readonly JobRecord[]) {
    const byKey = new Map<string, Group>();
    const add = (key: string, job: JobRecord | null) => {
      const g: Group = { key, job, id: job?.id ?? null, records: [] };
      byKey.set(key, g);
      return g;
    };
    for (const j of jobs) add(groupKey({ profile: "harbor", job: j.path, job_id: null, experiment: null }), j);
    for (const r of [...records].sort((a, b) => byteCompare(a.path, b.path))) {
      if (r.profile !== "harbor") continue;
      const key = groupKey(r);
      // A trial whose job folder was not walked (a library caller's entries): its job as far as its path and name tell.
      const g = byKey.get(key) ?? add(key, r.job === null ? null : unreadJob(r.job, r.experiment ?? r.job, 0));
      g.records.push(r);
    }
    this.groups = [...byKey.values()];
    for (const g of this.groups)
      g.id ??= g.job === null ? (g.records[0]?.job_id ?? null) : commonest(g.records.map((r) => r.job_id));
    this.name();
  }

  /** §11: the job folder's name, `@id8` when another job folder has it too, `#2`, `#3` when name and id both repeat; lone trials `job@id8`, or null. */
  private name(): void {
    const jobs = this.groups.filter((g) => g.job !== null);
    const count = new Map<string, number>();
    for (const g of jobs) count.set(g.job!.name, (count.get(g.job!.name) ?? 0) + 1);
    const base = (g: Group): string | null =>
      g.job === null
        ? g.id === null
          ? null
          : `job@${id8(g.id)}`
        : count.get(g.job.name)! > 1
          ? `${g.job.name}@${id8(g.id)}`
          : g.job.name;
    const taken = new Map<string, number>();
    const order = (g: Group) => g.job?.path ?? g.records[0]?.path ?? "";
    for (const g of [...this.groups].sort((a, b) => byteCompare(order(a), order(b)))) {
      const b = base(g);
      if (b === null) {
        this.names.set(g.key, null);
        continue;
      }
      const n = (taken.get(b) ?? 0) + 1;
      taken.set(b, n);
      this.names.set(g.key, n === 1 ? b : `${b}#${n}`);
    }
  }

  /** The experiment of a Harbor entry or record (others keep theirs). */
  nameOf(e: Keyed): string | null {
    return e.profile !== "harbor" ? e.experiment : (this.names.get(groupKey(e)) ?? e.experiment);
  }
}

/** The value most records share (ties: byte order), or null. */
function commonest(values: readonly (string | null)[]): string | null {
  const n = new Map<string, number>();
  for (const v of values) if (v !== null) n.set(v, (n.get(v) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1] || byteCompare(a[0], b[0]))[0]?.[0] ?? null;
}

/** One experiment per job folder and per group of lone trials. */
export function harborExperiments(naming: HarborNaming, options: HarborOptions): Experiment[] {
  const duplicates = duplicateIds(naming.groups);
  return naming.groups.map((g) =>
    jobMetrics(
      g,
      naming.nameOf({ profile: "harbor", job: g.job?.path ?? null, job_id: g.id, experiment: null }),
      duplicates,
      options,
    ),
  );
}

/** §11: one Harbor trial id under several job folders (a copied job) is TRIAL_DUPLICATE_ID in each, with the others' paths. */
function duplicateIds(groups: readonly Group[]): Map<BatchRecord, string> {
  const byId = new Map<string, { group: string; record: BatchRecord }[]>();
  for (const g of groups)
    for (const r of g.records) {
      if (r.harbor_id === null) continue;
      const list = byId.get(r.harbor_id);
      if (list) list.push({ group: g.key, record: r });
      else byId.set(r.harbor_id, [{ group: g.key, record: r }]);
    }
  const out = new Map<BatchRecord, string>();
  for (const [id, list] of byId) {
    if (new Set(list.map((x) => x.group)).size < 2) continue;
    for (const { group, record } of list) {
      const others = list.filter((x) => x.group !== group).map((x) => x.record.path);
      out.set(
        record,
        `Harbor trial id ${id} is also ${others.slice(0, 3).join(", ")}${others.length > 3 ? ` and ${others.length - 3} more` : ""}`,
      );
    }
  }
  return out;
}

function jobMetrics(
  g: Group,
  name: string | null,
  duplicates: ReadonlyMap<BatchRecord, string>,
  options: HarborOptions,
): Experiment {
  const job = g.job;
  const all = g.records;
  const present = Math.max(job?.folders ?? 0, all.length);
  const plan = job?.plan ?? null;
  const plannedAbsent = plan === null ? 0 : Math.max(0, plan - present);
  const out = blankExperiment(name, "harbor", Math.max(plan ?? 0, present));
  out.job = job?.path ?? null;
  out.job_id = g.id;
  out.states = Object.fromEntries(HARBOR_STATES.map((s) => [s, 0]));
  out.exceptions = {};
  out.warnings = [...(job?.warnings ?? [])];
  if (plan !== null && present > plan)
    out.warnings.push(
      finding(
        "JOB_PLAN_EXCEEDED",
        "result.json",
        null,
        `the job planned ${plan} trials (n_total_trials) but its folder holds ${present}`,
      ),
    );
  if (plannedAbsent > 0) out.missing.push({ count: plannedAbsent, reason: PLANNED_ABSENT });
  // Issue 35: a lost plan is said where the figures are, not only in a warning.
  const planLost = job !== null && job.plan === null && job.warnings.some((w) => w.code === "JOB_RESULT_UNREADABLE");
  if (planLost)
    out.flags.push({ code: "JOB_PLAN_UNKNOWN", trial: "(job summary)", attempt: null, evidence: PLAN_UNKNOWN });

  // Folders claiming one trial_name: a byte-identical copy counts once; different contents under
  // one name make them all invalid (a copied pass is not a second).
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
  // Which reward file Harbor read first is the job's lock.json's to say (its trials cannot).
  const first = firstRewardFile(job?.harbor_version ?? null);

  const counted: Counted[] = [];
  for (const t of all) {
    const trial = t.trial ?? t.path;
    if (t.validity === "error") {
      out.unscored.push(trial); // a tool error: outside every numerator and denominator
      continue;
    }
    if (t.state !== null) out.states[t.state]!++;
    if (t.exception !== null)
      setOwn(out.exceptions, t.exception.type, (own(out.exceptions, t.exception.type) ?? 0) + 1);
    const dup = duplicates.get(t);
    if (dup !== undefined) out.flags.push({ code: "TRIAL_DUPLICATE_ID", trial, attempt: null, evidence: dup });
    const original = copyOf.get(t);
    if (original !== undefined) {
      out.excluded.push({ trial, reason: copyReason(original.path) });
      continue;
    }
    for (const f of t.flags)
      out.flags.push({
        code: f.code,
        trial,
        attempt: null,
        evidence: f.code === "REWARD_FILES_DISAGREE" ? readFirst(first, job?.harbor_version ?? null) : null,
      });
    const codes = new Set<Code>(t.validity === "invalid" ? t.errors.map((f) => f.code) : []);
    if (conflicting.has(t)) codes.add("TRIAL_DUPLICATE");
    // With no Harbor version to say which reward file it read, agreeing with one of two is not enough (issue 35).
    const only = agreesOnlyWith(t.reward_source);
    if (only !== null && only !== first) codes.add("REWARD_MISMATCH");
    if (codes.size > 0) {
      out.invalid.push({ trial, codes: [...codes].sort(byteCompare) });
      if (options.invalid === "count") counted.push({ trial: t, rewards: "zero", covered: true, invalid: true });
      continue;
    }
    if (SCORED.has(t.state ?? "") && t.rewards !== null)
      counted.push({ trial: t, rewards: t.rewards, covered: true, invalid: false });
    else if (ownOf(t).rewardWithoutResult) {
      // Its verifier ran: left out, the loss of its result.json would raise the mean. 0, and not covered: nothing scored it.
      counted.push({ trial: t, rewards: "zero", covered: false, invalid: false });
      out.flags.push({
        code: "REWARD_WITHOUT_RESULT",
        trial,
        attempt: null,
        evidence:
          "a reward file shows the verifier ran, but result.json is absent or cut: counted 0 under every --errors",
      });
    } else if (options.errors === "zero") counted.push({ trial: t, rewards: "zero", covered: false, invalid: false });
    else out.excluded.push({ trial, reason: t.state ?? "incomplete" });
  }
  if (job?.claims)
    for (const f of claimFlags(
      job,
      all.filter((t) => t.validity !== "error"),
    ))
      out.flags.push(f);
  // A trial whose result.json names no task is clustered with the task its config.json points at, where the job's trials name one.
  const placed = placeTaskless(all);
  for (const c of counted) c.task = placed.get(c.trial);

  // Keys from every trial that has rewards, invalid ones included, so a job whose every scored
  // trial is invalid still shows its 0; Harbor's default key when none names one, so a job none of
  // whose trials earned a reward shows its coverage of 0 rather than nothing.
  const named = new Set(
    all.flatMap((t) => (t.validity === "error" || copyOf.has(t) ? [] : Object.keys(t.rewards ?? {}))),
  );
  const trials = all.length - out.unscored.length - copyOf.size + plannedAbsent;
  const keys = named.size > 0 ? [...named].sort(byteCompare) : trials > 0 ? ["reward"] : [];
  if (keys.length > 0)
    out.rewards = Object.fromEntries(
      keys.map((k) => [k, keyMetrics(k, counted, trials, planLost ? COVERAGE_PLAN_UNKNOWN : null, lockUnreadable)]),
    );
  // A job that never finished claims live figures (JOB_IN_PROGRESS): shown, never compared as final.
  if (job?.claimed)
    out.claimed = {
      ...job.claimed,
      compared:
        job.finished === false
          ? []
          : harborExplained(
              job,
              out,
              all.filter((t) => t.validity !== "error" && !copyOf.has(t)),
              counted,
              options,
            ),
    };
  // §13.5: a byte-identical copy is one trial's spend, not a second; a success is a valid counted trial whose every reward is 1.
  const successes = counted.filter(
    (c) =>
      !c.invalid &&
      c.rewards !== "zero" &&
      Object.keys(c.rewards).length > 0 &&
      Object.values(c.rewards).every((v) => v === 1),
  ).length;
  out.usage = experimentUsage(
    all.filter((t) => !copyOf.has(t)).map((t) => t.usage),
    counted.map((c) => c.trial.usage),
    successes,
  );
  return out;
}

/** REWARD_FILES_DISAGREE in a job: which file its Harbor read (HB verifier.py:227-238; the order flipped in 0.7). */
const readFirst = (first: "json" | "txt" | null, version: string | null): string =>
  first === null
    ? "the job's lock.json names no Harbor version: either reward file may be the one Harbor read, so result.json agreeing with only one is REWARD_MISMATCH"
    : `Harbor ${version} read verifier/reward.${first} and ignored the other`;

const showRewards = (m: Readonly<Record<string, number>> | null) =>
  m === null || Object.keys(m).length === 0
    ? "no reward"
    : Object.entries(m)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ");

/**
 * §11: the job's summary must agree with its trials, as a summary with its journal. A trial it
 * names with another reward or exception type than the trial's own result.json, a trial it names
 * that no folder holds (or that has no readable result.json), and a trial with rewards or an
 * exception it names nowhere (unless the job never finished) are JOB_CLAIM_MISMATCH: flags, never
 * a trial's verdict, which its own evidence decides.
 */
function claimFlags(job: JobRecord, trials: readonly BatchRecord[]): Experiment["flags"] {
  const out: Experiment["flags"] = [];
  const flag = (trial: string, evidence: string) =>
    out.push({ code: "JOB_CLAIM_MISMATCH", trial, attempt: null, evidence });
  for (const t of trials) {
    const trial = t.trial ?? t.path;
    const rewards = t.rewards !== null && Object.keys(t.rewards).length > 0 ? t.rewards : null;
    const exception = t.exception !== null && t.exception.step === null ? t.exception.type : null;
    const c = t.claimed;
    if (c === null) {
      if ((rewards !== null || exception !== null) && job.finished !== false)
        flag(
          trial,
          `no eval of the job's result.json names it, but its result.json has ${showRewards(rewards)}${exception === null ? "" : ` and ${exception}`}`,
        );
      continue;
    }
    // A trial with no readable result.json names no task (task_name is required there).
    if (t.task === null) {
      flag(
        trial,
        `the job's result.json names it with ${showRewards(c.rewards)}${c.exception === null ? "" : ` and ${c.exception}`}, but it has no readable result.json (none)`,
      );
      continue;
    }
    const diffs: string[] = [];
    for (const k of [...new Set([...Object.keys(c.rewards ?? {}), ...Object.keys(rewards ?? {})])].sort(byteCompare)) {
      const said = c.rewards === null ? undefined : own(c.rewards, k);
      const has = rewards === null ? undefined : own(rewards, k);
      if (said !== has) diffs.push(`${k}: the job says ${said ?? "none"}, its result.json ${has ?? "none"}`);
    }
    if (c.exception !== exception)
      diffs.push(`exception: the job says ${c.exception ?? "none"}, its result.json ${exception ?? "none"}`);
    if (diffs.length > 0) flag(trial, diffs.join("; "));
  }
  const here = new Set(trials.map((t) => t.trial));
  for (const a of job.absent)
    if (!here.has(a.trial))
      flag(
        a.trial,
        `the job's result.json names it with ${showRewards(a.rewards)}${a.exception === null ? "" : ` and ${a.exception}`}, but no trial folder of the job holds it (none)`,
      );
  if (job.absent_more > 0) {
    const more = `${job.absent_more} more trials the job's result.json names have no folder either`;
    const last = out.findLast((f) => f.evidence?.endsWith("(none)"));
    if (last !== undefined) last.evidence = `${last.evidence}; ${more}`;
    else flag("(job summary)", more);
  }
  return out;
}
