// Harbor-shaped job and trial folders for tests, built from contract §11's field list: a
// TrialResult as Harbor's pydantic models write it (indent 4, floats as `1.0`, NaN as Python's
// json writes it or as null), reward files, trajectories, steps, logs.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** A job id as Harbor makes one (a UUID), fixed by the job's name. */
export const jobIdOf = (job: string): string => {
  const h = createHash("sha256").update(`job:${job}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** Real ATIF trajectories written by Harbor's own agents (copied into test/fixtures/harbor). */
export const REAL_TRAJECTORIES = {
  timeout: "terminus_2--hello-world-timeout.trajectory.json",
  summarization: "terminus_2--hello-world-context-summarization.trajectory.json",
  openhands: "openhands--hello-world.trajectory.json",
} as const;
export const FIXTURES = new URL("../fixtures/harbor/", import.meta.url).pathname;
export const realTrajectory = (name: keyof typeof REAL_TRAJECTORIES): string =>
  readFileSync(join(FIXTURES, REAL_TRAJECTORIES[name]), "utf8");

/** A float as Python writes it (`1.0`, not `1`). */
export class PyFloat {
  constructor(readonly value: number) {}
}
export const float = (v: number) => new PyFloat(v);

/** JSON as Python's json / pydantic writes it: NaN and Infinity as bare tokens, PyFloat with a fraction. */
export function pyJson(v: unknown, indent = 4, depth = 0): string {
  const pad = (d: number) => (indent > 0 ? "\n" + " ".repeat(indent * d) : "");
  if (v instanceof PyFloat) return Number.isInteger(v.value) ? v.value.toFixed(1) : String(v.value);
  if (typeof v === "number")
    return Number.isNaN(v) ? "NaN" : v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : JSON.stringify(v);
  if (Array.isArray(v))
    return v.length === 0
      ? "[]"
      : `[${v.map((x) => pad(depth + 1) + pyJson(x, indent, depth + 1)).join(",")}${pad(depth)}]`;
  if (typeof v === "object" && v !== null) {
    const kv = Object.entries(v).filter(([, x]) => x !== undefined);
    return kv.length === 0
      ? "{}"
      : `{${kv.map(([k, x]) => `${pad(depth + 1)}${JSON.stringify(k)}: ${pyJson(x, indent, depth + 1)}`).join(",")}${pad(depth)}}`;
  }
  return JSON.stringify(v);
}

export type Rewards = Record<string, number | PyFloat | null>;
export interface Span {
  started_at?: string | null;
  finished_at?: string | null;
}
export interface ExceptionSpec {
  type: string;
  message: string;
}
export interface StepSpec {
  name: string;
  rewards?: Rewards | null;
  exception?: ExceptionSpec | null;
  agent_execution?: Span | null;
  verifier?: Span | null;
  /** Reward files in steps/<name>/verifier/ (default: derived from `rewards`). */
  rewardFiles?: Record<string, string | Buffer> | null;
  trajectory?: string;
}
export interface TrialSpec {
  /** Folder name and trial_name (unless trial_name is given). */
  name: string;
  trial_name?: string;
  task?: string;
  checksum?: string;
  /** verifier_result.rewards; null: verifier_result null; default { reward: 1.0 }. */
  rewards?: Rewards | null;
  exception?: ExceptionSpec | null;
  /** Phase timings to override (default: a clean, ordered run). */
  timing?: Partial<Record<"trial" | "environment_setup" | "agent_setup" | "agent_execution" | "verifier", Span | null>>;
  steps?: StepSpec[];
  /** agent/trajectory.json content (default: none). */
  trajectory?: string;
  /** Extra top-level TrialResult fields (a newer Harbor's). */
  extra?: Record<string, unknown>;
  /** Replace result.json with these bytes; null: no result.json at all. */
  result?: string | Buffer | null;
  /** Reward files at verifier/ (default: reward.txt derived from `rewards`); null: none. */
  rewardFiles?: Record<string, string | Buffer> | null;
  /** Any other files (path → content). */
  files?: Record<string, string | Buffer>;
}

const T0 = Date.UTC(2025, 10, 3, 10, 0, 0);
/** A naive ISO time (Harbor writes naive local times) `s` seconds after the trial starts. */
export const at = (s: number) =>
  new Date(T0 + s * 1000)
    .toISOString()
    .replace("Z", "")
    .replace(/\.(\d{3})$/, ".$1000");

const CLEAN = {
  trial: { started_at: at(0), finished_at: at(300) },
  environment_setup: { started_at: at(1), finished_at: at(60) },
  agent_setup: { started_at: at(60), finished_at: at(90) },
  agent_execution: { started_at: at(90), finished_at: at(240) },
  verifier: { started_at: at(240), finished_at: at(299) },
};

const exceptionInfo = (e: ExceptionSpec | null | undefined) =>
  e
    ? {
        exception_type: e.type,
        exception_message: e.message,
        exception_traceback: `Traceback (most recent call last):\n  ...\n${e.type}: ${e.message}`,
        occurred_at: at(200),
      }
    : null;

/** reward.txt for a single `reward` key, reward.json otherwise (what a verifier would have written). */
function derivedRewardFiles(r: Rewards | null | undefined): Record<string, string> {
  if (!r || Object.keys(r).length === 0) return {};
  const plain = (v: number | PyFloat | null) => (v instanceof PyFloat ? v.value : v);
  if (Object.keys(r).length === 1 && "reward" in r) {
    const v = plain(r["reward"]!);
    return { "reward.txt": `${v === null ? "nan" : v}\n` };
  }
  return { "reward.json": pyJson(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? NaN : v])), 0) };
}

/** The TrialResult object (§11 fields) for a spec. */
export function trialResult(spec: TrialSpec): Record<string, unknown> {
  const t = { ...CLEAN, ...spec.timing };
  const rewards = spec.rewards === undefined ? { reward: float(1) } : spec.rewards;
  return {
    id: `00000000-0000-4000-8000-${spec.name
      .replace(/[^0-9a-f]/g, "")
      .padEnd(12, "0")
      .slice(0, 12)}`,
    task_name: spec.task ?? "hello-world",
    trial_name: spec.trial_name ?? spec.name,
    trial_uri: `file:///jobs/job/${spec.name}`,
    task_id: { path: `tasks/${spec.task ?? "hello-world"}` },
    source: null,
    task_checksum: spec.checksum ?? "c0ffee",
    config: { trial_name: spec.trial_name ?? spec.name, timeout_multiplier: float(1) },
    agent_info: { name: "terminus-2", version: "2.0.0", model_info: { name: "gpt-4o", provider: "openai" } },
    agent_result: {
      n_input_tokens: 982,
      n_cache_tokens: 0,
      n_output_tokens: 145,
      cost_usd: 0.0039050000000000005,
      rollout_details: null,
      metadata: null,
    },
    verifier_result: rewards === null ? null : { rewards },
    exception_info: exceptionInfo(spec.exception),
    started_at: t.trial?.started_at ?? null,
    finished_at: t.trial?.finished_at ?? null,
    environment_setup: t.environment_setup,
    agent_setup: t.agent_setup,
    agent_execution: t.agent_execution,
    verifier: t.verifier,
    ...(spec.steps
      ? {
          // Steps run one after another: step i's agent from 100 + 20i s, its verifier 10 s later.
          step_results: spec.steps.map((s, i) => ({
            step_name: s.name,
            agent_result: { n_input_tokens: 100, n_cache_tokens: 0, n_output_tokens: 10, cost_usd: 0.001 },
            verifier_result: s.rewards === undefined || s.rewards === null ? null : { rewards: s.rewards },
            exception_info: exceptionInfo(s.exception),
            agent_execution:
              s.agent_execution === undefined
                ? { started_at: at(100 + 20 * i), finished_at: at(110 + 20 * i) }
                : s.agent_execution,
            verifier:
              s.verifier === undefined ? { started_at: at(110 + 20 * i), finished_at: at(120 + 20 * i) } : s.verifier,
          })),
        }
      : {}),
    ...spec.extra,
  };
}

/** The trial folder's files (relative path → content). */
export function trialFiles(spec: TrialSpec): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {
    "config.json": JSON.stringify(
      { trial_name: spec.trial_name ?? spec.name, task: { path: `tasks/${spec.task ?? "hello-world"}` } },
      null,
      4,
    ),
    "trial.log": "trial started\n",
  };
  if (spec.result !== null) files["result.json"] = spec.result ?? pyJson(trialResult(spec));
  const rewards = spec.rewards === undefined ? { reward: float(1) } : spec.rewards;
  const rf = spec.rewardFiles === undefined ? derivedRewardFiles(rewards) : (spec.rewardFiles ?? {});
  for (const [name, body] of Object.entries(rf)) files[`verifier/${name}`] = body;
  if (Object.keys(rf).length > 0) files["verifier/test-stdout.txt"] = "===== 1 passed in 0.01s =====\n";
  if (spec.trajectory !== undefined) files["agent/trajectory.json"] = spec.trajectory;
  if (spec.exception) files["exception.txt"] = `${spec.exception.type}: ${spec.exception.message}\n`;
  for (const s of spec.steps ?? []) {
    const srf = s.rewardFiles === undefined ? derivedRewardFiles(s.rewards) : (s.rewardFiles ?? {});
    for (const [name, body] of Object.entries(srf)) files[`steps/${s.name}/verifier/${name}`] = body;
    if (s.trajectory !== undefined) files[`steps/${s.name}/agent/trajectory.json`] = s.trajectory;
    files[`steps/${s.name}/artifacts/.keep`] = "";
  }
  return { ...files, ...spec.files };
}

export function writeTree(dir: string, files: Record<string, string | Buffer>): void {
  for (const [rel, body] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, body);
  }
}

/** A lone trial folder at `dir`. */
export const writeTrial = (dir: string, spec: TrialSpec): string => {
  writeTree(dir, trialFiles(spec));
  return dir;
};

/** A job folder `root/job` (config.json, job.log, result.json with its plan, an id fixed by the name, stats without evals) holding the trials. */
export function writeJob(root: string, job: string, trials: TrialSpec[]): string {
  const dir = join(root, job);
  writeTree(dir, {
    "config.json": JSON.stringify({ job_name: job, n_attempts: 1 }, null, 4),
    "job.log": "job started\n",
    "result.json": JSON.stringify(
      {
        id: jobIdOf(job),
        finished_at: "2025-11-03T11:00:00.000000",
        n_total_trials: trials.length,
        stats: { n_trials: trials.length, n_errors: 0 },
      },
      null,
      4,
    ),
  });
  for (const t of trials) writeTrial(join(dir, t.name), t);
  return dir;
}

/** A trajectory (ATIF) with one more agent step whose tool call runs `keystrokes` in the terminal. */
export function withAgentCommand(trajectory: string, keystrokes: string): string {
  const doc = JSON.parse(trajectory) as { steps: Record<string, unknown>[] };
  const id = doc.steps.length + 1;
  doc.steps.push({
    step_id: id,
    source: "agent",
    model_name: "gpt-4o",
    message: "Analysis: almost there.\nPlan: make the check pass.",
    tool_calls: [
      { tool_call_id: `call_${id}`, function_name: "bash_command", arguments: { keystrokes, duration: 0.1 } },
    ],
    observation: { results: [{ content: `root@CONTAINER_ID:/app# ${keystrokes}` }] },
  });
  return JSON.stringify(doc, null, 2);
}

/**
 * Issue 37: a Harbor job that records no run identity: every trial's result.json (under `job`)
 * without `agent_info`, `started_at` and `finished_at`, so neither agent, model nor start is
 * recorded (Harbor's own evidence then names only the harness). The synth's config names no agent.
 */
export function withoutIdentity(job: string): void {
  for (const name of readdirSync(job)) {
    const file = join(job, name, "result.json");
    if (!existsSync(file)) continue;
    const result = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    for (const k of ["agent_info", "started_at", "finished_at"]) delete result[k];
    writeFileSync(file, JSON.stringify(result, null, 4));
  }
}
