// A Harbor job folder's own files (contract §11), as a pure function of their bytes: the plan
// (`n_total_trials`), the claims of its summary (`stats.evals`: metrics, and which trials it names
// with which reward or exception), the Harbor version (lock.json). A malformed result.json is a
// warning, JOB_RESULT_UNREADABLE: never a trial finding, and the plan and claims are then unknown.

import { z } from "zod";
import { finding, type Finding } from "../codes.js";
import { decodeDocument, isPlainObject } from "../json/decode.js";
import { textTooDeep } from "../json/strict.js";
import { MAX_JOB_LIST, type JobRecord } from "../results.js";
import { describeIssues, finiteNumber, int, record } from "../schema.js";
import { byteCompare } from "../text.js";

/** What the job's summary says of one trial it names. */
export interface Claim {
  rewards: Record<string, number> | null;
  exception: string | null;
}

/** A job's files: each one's bytes, null when absent, or why it could not be read. */
export interface JobFiles {
  result: Uint8Array | null | { unreadable: string };
  lock: Uint8Array | null;
}

const evalSchema = z.looseObject({
  metrics: z.array(record(z.string(), z.unknown())).nullable().optional(),
  reward_stats: record(z.string(), record(z.string(), z.array(z.string()))).nullable().optional(),
  exception_stats: record(z.string(), z.array(z.string())).nullable().optional(),
  pass_at_k: record(z.string(), z.unknown()).nullable().optional(),
});
const jobResultSchema = z.looseObject({
  id: z.string().nullable().optional(),
  n_total_trials: int(0),
  finished_at: z.string().nullable().optional(),
  stats: z.looseObject({ evals: record(z.string(), evalSchema).nullable().optional() }),
});
type JobResult = z.output<typeof jobResultSchema>;

/** `claimed.source`: where the job's own figures come from. */
const CLAIM_SOURCE = "job result.json stats.evals";

/**
 * The job's record (what the job-level rules need, bounded in size) and its claims by trial name
 * (as long as its trials are being placed: they go onto each trial's entry).
 */
export function readJob(path: string, name: string, folders: readonly string[], files: JobFiles): { record: JobRecord; claims: Map<string, Claim> } {
  const warnings: Finding[] = [];
  const unreadable = (why: string) => warnings.push(finding("JOB_RESULT_UNREADABLE", "result.json", null, `${why}: the job's plan and claims are unknown`));
  let doc: JobResult | null = null;
  if (files.result !== null && "unreadable" in files.result) unreadable(files.result.unreadable);
  else if (files.result !== null) {
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
      for (const [metric, v] of Object.entries(m)) if (finiteNumber.safeParse(v).success) metrics[`${key}/${i}/${metric}`] = finiteNumber.parse(v);
    });
    for (const [k, v] of Object.entries(ev.pass_at_k ?? {})) if (finiteNumber.safeParse(v).success) metrics[`${key}/pass_at_k/${k}`] = finiteNumber.parse(v);
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
    for (const [type, trials] of Object.entries(ev.exception_stats ?? {})) for (const t of trials) claim(t).exception = type;
  }
  const here = new Set(folders);
  const absent = [...claims.keys()].filter((t) => !here.has(t)).sort(byteCompare);
  const record: JobRecord = {
    path,
    name,
    id: doc?.id ?? null,
    plan: doc?.n_total_trials ?? null,
    folders: folders.length,
    finished: doc === null ? null : (doc.finished_at ?? null) !== null,
    harbor_version: harborVersion(files.lock),
    claims: evals !== null,
    evals: Object.keys(evals ?? {}).length,
    claimed: Object.keys(metrics).length === 0 ? null : { source: CLAIM_SOURCE, metrics },
    absent: absent.slice(0, MAX_JOB_LIST).map((trial) => ({ trial, ...claims.get(trial)! })),
    absent_more: Math.max(0, absent.length - MAX_JOB_LIST),
    warnings,
  };
  return { record, claims };
}

/** lock.json's `harbor.version`, or null (absent or unreadable: the version is then unknown, which only widens what may agree). */
function harborVersion(lock: Uint8Array | null): string | null {
  if (lock === null) return null;
  try {
    const text = Buffer.from(lock).toString("utf8");
    if (textTooDeep(text)) return null; // JSON.parse would build every level on the main thread first
    const v = (JSON.parse(text) as { harbor?: { version?: unknown } } | null)?.harbor?.version;
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
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
  path, name, id: null, plan: null, folders, finished: null, harbor_version: null, claims: false, evals: 0, claimed: null, absent: [], absent_more: 0, warnings: [],
});
