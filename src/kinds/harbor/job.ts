// A Harbor job folder's own files (contract §11), as a pure function of their bytes: the plan
// (`n_total_trials`), the claims of its summary (`stats.evals`: metrics, and which trials it names
// with which reward or exception), the Harbor version and each task's digest (lock.json). A
// malformed result.json is a warning, JOB_RESULT_UNREADABLE: never a trial finding, and the plan
// and claims are then unknown. Harbor rewrites result.json on every trial's start and end and sets
// `finished_at` only in its last write (HB job.py:628-809): without it the job is in progress, or
// was stopped, and its figures are live ones (JOB_IN_PROGRESS), never compared as final.

import { z } from "zod";
import { finding, type Finding } from "../../core/codes.js";
import { decodeDocument, isPlainObject } from "../../core/json/decode.js";
import { textTooDeep } from "../../core/json/strict.js";
import { MAX_JOB_LIST, type JobRecord } from "../../core/results.js";
import { describeIssues, finiteNumber, int, record } from "../../core/schema.js";
import { byteCompare } from "../../core/text.js";
import { text } from "../../core/identity.js";

/** What the job's summary says of one trial it names. */
export interface Claim {
  rewards: Record<string, number> | null;
  exception: string | null;
}

/** A job's files: each one's bytes, null when absent, or why it could not be read. */
export interface JobFiles {
  result: Uint8Array | null | { unreadable: string };
  lock: Uint8Array | null | { unreadable: string };
}

const evalSchema = z.looseObject({
  metrics: z.array(record(z.string(), z.unknown())).nullable().optional(),
  reward_stats: record(z.string(), record(z.string(), z.array(z.string())))
    .nullable()
    .optional(),
  exception_stats: record(z.string(), z.array(z.string())).nullable().optional(),
  pass_at_k: record(z.string(), z.unknown()).nullable().optional(),
});
const count = int(0).nullable().optional();
const jobResultSchema = z.looseObject({
  id: z.string().nullable().optional(),
  n_total_trials: int(0),
  finished_at: z.string().nullable().optional(),
  stats: z.looseObject({
    evals: record(z.string(), evalSchema).nullable().optional(),
    // Harbor's live counts (n_trials is the name before n_completed_trials, HB result.py:245-298).
    n_completed_trials: count,
    n_trials: count,
    n_running_trials: count,
    n_pending_trials: count,
  }),
});
type JobResult = z.output<typeof jobResultSchema>;

/** `claimed.source`: where the job's own figures come from. */
const CLAIM_SOURCE = "job result.json stats.evals";
const LIVE_SOURCE = `${CLAIM_SOURCE}, live (no finished_at; never compared as final)`;

/**
 * What lock.json says: the Harbor version, and each task's digest by its path and by its name
 * (null: several digests, or none). A TrialLock names no trial, only its task; Harbor 0.13 names a
 * local task by its folder (`hello-world`) where result.json has `harbor/hello-world`, so a trial
 * is matched by its task_id.path first, its task_name only where no path is recorded.
 */
export interface JobLock {
  version: string | null;
  tasks: { byPath: ReadonlyMap<string, string | null>; byName: ReadonlyMap<string, string | null> };
  /** The agent and model every trial it names was configured with (`trials[].agent`); null where they name several, or none. */
  agent: string | null;
  model: string | null;
}

/**
 * The job's record (what the job-level rules need, bounded in size; `digest`: its own files', as
 * the book hashed them) and its claims by trial name (as long as its trials are being placed: they
 * go onto each trial's entry).
 */
export function readJob(
  path: string,
  name: string,
  folders: readonly string[],
  files: JobFiles,
  digest: string | null,
): { record: JobRecord; claims: Map<string, Claim>; tasks: JobLock["tasks"]; lock: JobLock } {
  const warnings: Finding[] = [];
  const lock = readLock(files.lock);
  if (lock.unreadable !== null)
    warnings.push(
      finding(
        "LOCK_UNREADABLE",
        "lock.json",
        null,
        `${lock.unreadable}: the Harbor version is unknown, so which reward file it read cannot be told (a trial whose result.json agrees with only one of two is REWARD_MISMATCH), and tasks are grouped by what their trials record`,
      ),
    );
  const unreadable = (why: string) =>
    warnings.push(
      finding("JOB_RESULT_UNREADABLE", "result.json", null, `${why}: the job's plan and claims are unknown`),
    );
  let doc: JobResult | null = null;
  // Harbor writes it when the job starts: one absent was lost, and the plan with it (issue 35).
  if (files.result === null) unreadable("result.json is absent (Harbor writes it when a job starts)");
  else if ("unreadable" in files.result) unreadable(files.result.unreadable);
  else {
    const problems: Finding[] = [];
    const value = decodeDocument(files.result, "result.json", problems);
    if (value === undefined) unreadable(`${problems[0]!.code}: ${problems[0]!.message}`);
    else {
      const r = jobResultSchema.safeParse(value);
      if (r.success) doc = r.data;
      else unreadable(isPlainObject(value) ? describeIssues(r.error.issues) : "not a JobResult object");
    }
  }
  const claims = new Map<string, Claim>();
  const metrics: Record<string, number> = {};
  const evals = doc?.stats.evals ?? null;
  for (const [key, ev] of Object.entries(evals ?? {})) {
    (ev.metrics ?? []).forEach((m, i) => {
      for (const [metric, v] of Object.entries(m))
        if (finiteNumber.safeParse(v).success) metrics[`${key}/${i}/${metric}`] = finiteNumber.parse(v);
    });
    for (const [k, v] of Object.entries(ev.pass_at_k ?? {}))
      if (finiteNumber.safeParse(v).success) metrics[`${key}/pass_at_k/${k}`] = finiteNumber.parse(v);
    const claim = (trial: string) => {
      let c = claims.get(trial);
      if (c === undefined) claims.set(trial, (c = { rewards: null, exception: null }));
      return c;
    };
    for (const [rewardKey, byValue] of Object.entries(ev.reward_stats ?? {}))
      for (const [value, trials] of Object.entries(byValue)) {
        // Harbor keys reward_stats by the value's text ("1.0", "1"): compared as a number.
        const n = Number(value);
        if (value.trim() === "" || !Number.isFinite(n)) continue;
        for (const t of trials) (claim(t).rewards ??= {})[rewardKey] = n;
      }
    for (const [type, trials] of Object.entries(ev.exception_stats ?? {}))
      for (const t of trials) claim(t).exception = type;
  }
  const finished = doc === null ? null : (doc.finished_at ?? null) !== null;
  if (doc !== null && !finished) warnings.push(finding("JOB_IN_PROGRESS", "result.json", null, inProgress(doc)));
  const here = new Set(folders);
  const absent = [...claims.keys()].filter((t) => !here.has(t)).sort(byteCompare);
  const record: JobRecord = {
    path,
    name,
    digest,
    id: doc?.id ?? null,
    plan: doc?.n_total_trials ?? null,
    folders: folders.length,
    finished,
    harbor_version: lock.version,
    claims: evals !== null,
    evals: Object.keys(evals ?? {}).length,
    claimed:
      Object.keys(metrics).length === 0 ? null : { source: finished === false ? LIVE_SOURCE : CLAIM_SOURCE, metrics },
    absent: absent.slice(0, MAX_JOB_LIST).map((trial) => ({ trial, ...claims.get(trial)! })),
    absent_more: Math.max(0, absent.length - MAX_JOB_LIST),
    warnings,
  };
  return { record, claims, tasks: lock.tasks, lock };
}

/** The message of JOB_IN_PROGRESS: how far the live figures reach. */
function inProgress(doc: JobResult): string {
  const s = doc.stats;
  const done = s.n_completed_trials ?? s.n_trials ?? null;
  const live = [
    s.n_running_trials ? `${s.n_running_trials} running` : "",
    s.n_pending_trials ? `${s.n_pending_trials} pending` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const reach =
    done === null
      ? ""
      : `; its figures are live ones over ${done} of ${doc.n_total_trials} trials${live === "" ? "" : ` (${live})`}`;
  return `no finished_at: the job is in progress, or was stopped before its last write${reach}, not compared as final`;
}

/** A TaskLock digest as Harbor writes it (HB lock.py: `sha256:<64 hex>`). */
export const LOCK_DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * lock.json's `harbor.version` and `trials[].task` digests by task name, or nothing (absent, or
 * unreadable and then why: the version is unknown, and tasks are grouped by what their trials
 * record). An unknown version never lets either reward file agree (issue 35: batch.ts).
 */
export function readLock(lock: JobFiles["lock"]): JobLock & { unreadable: string | null } {
  const byPath = new Map<string, string | null>();
  const byName = new Map<string, string | null>();
  const tasks = { byPath, byName };
  const none = (unreadable: string | null) => ({ version: null, tasks, agent: null, model: null, unreadable });
  if (lock === null) return none(null);
  if (!(lock instanceof Uint8Array)) return none(lock.unreadable);
  let doc: unknown;
  try {
    const text = Buffer.from(lock).toString("utf8");
    if (textTooDeep(text)) return none("nested too deep to read"); // JSON.parse would build every level on the main thread first
    doc = JSON.parse(text);
  } catch (e) {
    return none(`does not parse (${(e as Error).message})`);
  }
  if (!isPlainObject(doc)) return none("not an object");
  const harbor = doc["harbor"];
  const v = isPlainObject(harbor) ? harbor["version"] : undefined;
  const agents = new Set<string | null>();
  const models = new Set<string | null>();
  for (const t of Array.isArray(doc["trials"]) ? doc["trials"] : []) {
    const agent = isPlainObject(t) ? t["agent"] : undefined;
    agents.add(isPlainObject(agent) ? text(agent["name"]) : null);
    models.add(isPlainObject(agent) ? text(agent["model_name"]) : null);
    const task = isPlainObject(t) ? t["task"] : undefined;
    if (!isPlainObject(task)) continue;
    const digest = typeof task["digest"] === "string" && LOCK_DIGEST.test(task["digest"]) ? task["digest"] : null;
    // One path or name with several digests (or one without) names no single task: its trials fall back.
    const note = (m: Map<string, string | null>, key: unknown) => {
      if (typeof key !== "string") return;
      const known = m.get(key);
      m.set(key, known === undefined || known === digest ? digest : null);
    };
    note(byPath, task["path"]);
    note(byName, task["name"]);
  }
  const only = (values: ReadonlySet<string | null>) => (values.size === 1 ? [...values][0]! : null);
  return {
    version: typeof v === "string" ? v : null,
    tasks,
    agent: only(agents),
    model: only(models),
    unreadable: null,
  };
}

/** Harbor read reward.txt first up to 0.6.x, reward.json first from 0.7.0; null when the version says nothing. */
export function firstRewardFile(version: string | null): "json" | "txt" | null {
  const m = version === null ? null : /^v?(\d+)\.(\d+)/.exec(version);
  if (m === null) return null;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 0 || minor >= 7 ? "json" : "txt";
}

/** A job's record when only its name is known (a trial given as a root, or an entry whose job was not walked). */
export const unreadJob = (path: string, name: string, folders: number): JobRecord => ({
  path,
  name,
  digest: null,
  id: null,
  plan: null,
  folders,
  finished: null,
  harbor_version: null,
  claims: false,
  evals: 0,
  claimed: null,
  absent: [],
  absent_more: 0,
  warnings: [],
});
