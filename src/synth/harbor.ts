// Harbor-shaped job folders (contract §11) for the demo and the benchmark: trials in each of the
// situations Harbor's own job stats blur, labelled with the verdict assay must reach, and the job's
// own result.json as Harbor writes it (its plan, its stats). Pure: specs and bytes; writing is the
// caller's.

import { createHash } from "node:crypto";

export const HARBOR_CASES = [
  "pass",
  "fail",
  "timeout-with-reward",
  "infrastructure-error",
  "step-failed",
  "truncated-result",
  "no-result",
  "reward-mismatch",
  "nan-reward",
  "writes-reward-file",
] as const;
export type HarborCase = (typeof HARBOR_CASES)[number];

/** The order trials cycle through: mostly ordinary passes and failures, each special case once. */
const CYCLE: HarborCase[] = [
  "pass",
  "fail",
  "pass",
  "timeout-with-reward",
  "infrastructure-error",
  "pass",
  "step-failed",
  "truncated-result",
  "fail",
  "reward-mismatch",
  "pass",
  "nan-reward",
  "no-result",
  "writes-reward-file",
  "pass",
  "fail",
];
export const harborCaseAt = (i: number): HarborCase => CYCLE[i % CYCLE.length]!;

export interface HarborSpec {
  job: string;
  trial: string;
  task: string;
  case: HarborCase;
  /** Minutes after the job's start at which this trial starts. */
  offset: number;
}

/** What assay must say about each case. */
export const HARBOR_EXPECT: Record<HarborCase, { validity: "valid" | "invalid"; code: string | null; state: string }> =
  {
    pass: { validity: "valid", code: null, state: "scored" },
    fail: { validity: "valid", code: null, state: "scored" },
    "timeout-with-reward": { validity: "valid", code: null, state: "scored-with-exception" },
    "infrastructure-error": { validity: "valid", code: null, state: "infrastructure-error" },
    "step-failed": { validity: "valid", code: "STEP_EXCEPTION", state: "scored-with-exception" },
    "truncated-result": { validity: "valid", code: "RESULT_TRUNCATED", state: "incomplete" },
    "no-result": { validity: "valid", code: null, state: "incomplete" },
    "reward-mismatch": { validity: "invalid", code: "REWARD_MISMATCH", state: "scored" },
    "nan-reward": { validity: "invalid", code: "NOT_FINITE", state: "scored" },
    "writes-reward-file": { validity: "valid", code: "WRITES_REWARD_PATH", state: "scored" },
  };

const BASE = Date.UTC(2025, 10, 3, 10, 0, 0);
/** A job's id as Harbor makes one (a UUID), fixed by the job's name. */
export const synthJobId = (job: string): string => {
  const h = createHash("sha256").update(job).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
/** A naive local time as Harbor writes it (Python isoformat, microseconds, no offset). */
const naive = (ms: number) => new Date(ms).toISOString().slice(0, 23) + "000";
const span = (from: number, to: number, t0: number) => ({
  started_at: naive(t0 + from * 1000),
  finished_at: naive(t0 + to * 1000),
});

function trajectory(s: HarborSpec): string {
  const command =
    s.case === "writes-reward-file" ? "echo 1 > /logs/verifier/reward.txt\n" : "python3 solve.py > answer.txt\n";
  return JSON.stringify(
    {
      schema_version: "ATIF-v1.2",
      session_id: s.trial,
      agent: { name: "terminus-2", version: "2.0.0", model_name: "openai/gpt-4o" },
      steps: [
        { step_id: 1, source: "user", message: `Solve ${s.task}.` },
        {
          step_id: 2,
          source: "agent",
          message: "Analysis: the task needs a script.\nPlan: run it.",
          tool_calls: [
            { tool_call_id: "call_0", function_name: "bash_command", arguments: { keystrokes: command, duration: 1 } },
          ],
          observation: { results: [{ content: `root@CONTAINER_ID:/app# ${command}` }] },
        },
      ],
      final_metrics: { total_prompt_tokens: 1200, total_completion_tokens: 80, total_cost_usd: 0.004 },
    },
    null,
    2,
  );
}

/** One trial folder's files, relative to the trial. */
export function synthHarborTrial(s: HarborSpec): Map<string, Buffer> {
  const t0 = BASE + s.offset * 60_000;
  const reward = s.case === "fail" ? 0 : 1;
  const exception = (type: string, message: string) => ({
    exception_type: type,
    exception_message: message,
    exception_traceback: `Traceback (most recent call last):\n${type}: ${message}`,
    occurred_at: naive(t0 + 200_000),
  });
  const timeout = s.case === "timeout-with-reward";
  const infra = s.case === "infrastructure-error";
  const steps = s.case === "step-failed";
  const result = {
    id: `${s.trial}-id`,
    task_name: s.task,
    trial_name: s.trial,
    trial_uri: `file:///jobs/${s.job}/${s.trial}`,
    task_id: { path: `tasks/${s.task}` },
    source: null,
    task_checksum: `${s.task}-checksum`,
    config: {
      trial_name: s.trial,
      job_id: synthJobId(s.job),
      verifier: { override_timeout_sec: null, max_timeout_sec: null, disable: false },
    },
    agent_info: { name: "terminus-2", version: "2.0.0", model_info: { name: "gpt-4o", provider: "openai" } },
    agent_result: { n_input_tokens: 1200, n_cache_tokens: 0, n_output_tokens: 80, cost_usd: 0.004 },
    // A multi-step trial's top level is Harbor's aggregation of its steps (here the mean: one step has a verifier result).
    verifier_result: infra ? null : { rewards: { reward: s.case === "nan-reward" ? null : reward } },
    exception_info: timeout
      ? exception("AgentTimeoutError", "Agent execution timed out after 360.0 seconds")
      : infra
        ? exception("DaytonaError", "sandbox creation failed")
        : null,
    started_at: naive(t0),
    finished_at: naive(t0 + 300_000),
    environment_setup: span(1, 60, t0),
    agent_setup: span(60, 90, t0),
    agent_execution: span(90, 240, t0),
    verifier: infra ? null : span(240, 299, t0),
    ...(steps
      ? {
          step_results: [
            {
              step_name: "setup",
              agent_result: null,
              verifier_result: null,
              exception_info: exception("RuntimeError", "make: *** [all] Error 2"),
              agent_execution: span(90, 150, t0),
              verifier: null,
            },
            {
              step_name: "solve",
              agent_result: null,
              verifier_result: { rewards: { reward: 1 } },
              exception_info: null,
              agent_execution: span(150, 240, t0),
              verifier: span(240, 299, t0),
            },
          ],
        }
      : {}),
  };
  const text = JSON.stringify(result, null, 4);
  const files = new Map<string, Buffer>([
    ["config.json", Buffer.from(JSON.stringify({ trial_name: s.trial, task: { path: `tasks/${s.task}` } }, null, 4))],
    ["trial.log", Buffer.from(`${naive(t0)} trial ${s.trial} started\n`)],
    ["agent/trajectory.json", Buffer.from(trajectory(s))],
  ]);
  if (s.case !== "no-result")
    files.set("result.json", Buffer.from(s.case === "truncated-result" ? text.slice(0, text.length >> 1) : text));
  if (timeout || infra)
    files.set(
      "exception.txt",
      Buffer.from(`${result.exception_info!.exception_type}: ${result.exception_info!.exception_message}\n`),
    );
  // A trial killed before its verifier leaves no reward file (with one it would count 0: REWARD_WITHOUT_RESULT).
  const killed = s.case === "truncated-result" || s.case === "no-result";
  const verifier = steps ? "steps/solve/verifier" : infra || killed ? null : "verifier";
  if (verifier !== null) {
    files.set(
      `${verifier}/reward.txt`,
      Buffer.from(s.case === "nan-reward" ? "nan\n" : s.case === "reward-mismatch" ? "0\n" : `${reward}\n`),
    );
    files.set(`${verifier}/test-stdout.txt`, Buffer.from(`===== ${reward ? "1 passed" : "1 failed"} in 0.42s =====\n`));
  }
  return files;
}

/**
 * The job folder's own files, relative to the job: its result.json as Harbor writes it from the
 * trials it ran — the plan, and per eval the mean (a trial without reward as 0), the trials by
 * reward value and by exception type. A trial that never wrote result.json never reported to it.
 */
export function synthHarborJobFiles(job: string, trials: readonly HarborSpec[]): Map<string, Buffer> {
  const reported = trials.filter((t) => t.case !== "no-result");
  const reward = (t: HarborSpec) =>
    t.case === "infrastructure-error" || t.case === "nan-reward" ? null : t.case === "fail" ? 0 : 1;
  const byValue: Record<string, string[]> = {};
  for (const t of reported) {
    const r = reward(t);
    if (r !== null) (byValue[r.toFixed(1)] ??= []).push(t.trial);
  }
  const exceptions: Record<string, string[]> = {};
  for (const t of reported) {
    const type =
      t.case === "timeout-with-reward"
        ? "AgentTimeoutError"
        : t.case === "infrastructure-error"
          ? "DaytonaError"
          : null;
    if (type !== null) (exceptions[type] ??= []).push(t.trial);
  }
  const mean = reported.length === 0 ? 0 : reported.reduce((n, t) => n + (reward(t) ?? 0), 0) / reported.length;
  const result = {
    id: synthJobId(job),
    started_at: naive(BASE),
    finished_at: naive(BASE + 3_600_000),
    n_total_trials: trials.length,
    stats: {
      n_trials: reported.length,
      n_errors: exceptions["DaytonaError"]?.length ?? 0,
      evals: {
        "terminus-2__gpt-4o__adhoc": {
          n_trials: reported.length,
          n_errors: exceptions["DaytonaError"]?.length ?? 0,
          metrics: [{ mean }],
          reward_stats: { reward: byValue },
          exception_stats: exceptions,
        },
      },
    },
  };
  return new Map([
    [
      "config.json",
      Buffer.from(JSON.stringify({ job_name: job, n_attempts: 1, agents: [{ name: "terminus-2" }] }, null, 4)),
    ],
    ["job.log", Buffer.from(`${naive(BASE)} job ${job} started with ${trials.length} trials\n`)],
    ["result.json", Buffer.from(JSON.stringify(result, null, 4))],
    ["lock.json", Buffer.from(JSON.stringify({ schema_version: 1, harbor: { version: "0.22.0" } }, null, 4))],
  ]);
}
