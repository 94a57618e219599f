// Terminal-Bench `tb run` folders for tests, written as TB 0.2.17 writes them (model_dump_json,
// indent 4, fields in TrialResults' order), and scored the way discovery will: each
// `<task>/<trial>/` folder from disk, then the run's own files beside the entries.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { diskBundle } from "../../src/io/bundle-source.js";
import { readRun } from "../../src/kinds/terminal-bench/record.js";
import { checkRun, type RunVerdict, type TrialOnDisk } from "../../src/kinds/terminal-bench/run.js";
import { scoreTerminalBenchTrial, type TerminalBenchEntry } from "../../src/kinds/terminal-bench/trial.js";

export const TB_FIXTURES = new URL("../fixtures/terminal-bench/", import.meta.url).pathname;
export const pane = (name: string): string => readFileSync(join(TB_FIXTURES, name), "utf8");

export const RUN_ID = "2025-08-25__16-36-35";
const T = (m: number) => `2025-08-25T11:${String(m).padStart(2, "0")}:00.000000+00:00`;

export interface TbTrialSpec {
  task?: string;
  attempt?: number;
  of?: number;
  /** null: 0.2.7's names, without the run id. */
  runId?: string | null;
  resolved?: boolean | null;
  failureMode?: string;
  parserResults?: Record<string, string> | null;
  tokens?: [number | null, number | null];
  /** 0.2.7: `uuid` for `id`, no timestamps. */
  legacy?: boolean;
  /** TB's entry for a harness exception: unknown_agent_error, everything else null. */
  harness?: boolean;
  extra?: Record<string, unknown>;
}

export const trialName = (s: TbTrialSpec) =>
  `${s.task ?? "hello"}.${s.attempt ?? 1}-of-${s.of ?? 1}${s.runId === null ? "" : `.${s.runId ?? RUN_ID}`}`;

/** A TrialResults object in TB's field order. */
export function tbTrial(s: TbTrialSpec = {}): Record<string, unknown> {
  const pr = s.parserResults === undefined ? { test_a: "passed", test_b: "passed" } : s.parserResults;
  const resolved =
    s.resolved !== undefined ? s.resolved : pr === null ? null : Object.values(pr).every((v) => v === "passed");
  const harness = s.harness === true;
  const stamps =
    s.legacy || harness
      ? {}
      : {
          trial_started_at: T(0),
          trial_ended_at: T(9),
          agent_started_at: T(1),
          agent_ended_at: T(5),
          test_started_at: T(6),
          test_ended_at: T(8),
        };
  const nullStamps =
    harness && !s.legacy
      ? Object.fromEntries(
          [
            "trial_started_at",
            "trial_ended_at",
            "agent_started_at",
            "agent_ended_at",
            "test_started_at",
            "test_ended_at",
          ].map((k) => [k, null]),
        )
      : {};
  return {
    // Unique per trial, as TB's uuid4 is: the task's hash and the attempt.
    [s.legacy ? "uuid" : "id"]: `${(s.attempt ?? 1).toString(16).padStart(8, "0")}-aaaa-4bbb-8ccc-${createHash("sha256")
      .update(s.task ?? "hello")
      .digest("hex")
      .slice(0, 12)}`,
    trial_name: trialName(s),
    task_id: s.task ?? "hello",
    instruction: "Say hello.",
    is_resolved: harness ? null : resolved,
    failure_mode: harness ? "unknown_agent_error" : (s.failureMode ?? "unset"),
    parser_results: harness ? null : pr,
    recording_path: null,
    total_input_tokens: harness ? null : s.tokens === undefined ? 0 : s.tokens[0],
    total_output_tokens: harness ? null : s.tokens === undefined ? 0 : s.tokens[1],
    ...stamps,
    ...nullStamps,
    ...s.extra,
  };
}

export const json = (v: unknown) => JSON.stringify(v, null, 4);

/** A trial folder below `run`: results.json (unless `result` is null), commands.txt, and the pane when given. */
export function writeTbTrial(
  run: string,
  s: TbTrialSpec,
  files: { pane?: string | Buffer; result?: string | null; folder?: string } = {},
): string {
  const dir = join(run, s.task ?? "hello", files.folder ?? trialName(s));
  mkdirSync(join(dir, "panes"), { recursive: true });
  writeFileSync(join(dir, "commands.txt"), "['bash ', '/tests/run-tests.sh', 'Enter']\n");
  if (files.result !== null) writeFileSync(join(dir, "results.json"), files.result ?? json(tbTrial(s)));
  if (files.pane !== undefined) writeFileSync(join(dir, "panes", "post-test.txt"), files.pane);
  return dir;
}

/** BenchmarkResults as TB computes it, counted here plainly (pass_at_k given by the test: {} for one attempt). */
export function tbRunResults(
  trials: Record<string, unknown>[],
  passAtK: Record<string, number> = {},
): Record<string, unknown> {
  const resolved = trials.filter((t) => t["is_resolved"] === true);
  return {
    id: "ca9c48cd-6b21-402a-9f46-945be303a83a",
    results: trials,
    pass_at_k: passAtK,
    n_resolved: resolved.length,
    n_unresolved: trials.length - resolved.length,
    resolved_ids: resolved.map((t) => t["task_id"]),
    unresolved_ids: trials.filter((t) => t["is_resolved"] !== true).map((t) => t["task_id"]),
    accuracy: trials.length === 0 ? 0 : resolved.length / trials.length,
  };
}

export function tbMetadata(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    run_id: RUN_ID,
    uuid: "e595984c-744a-4103-bf02-bc5bff987d3d",
    dataset_path: "/tasks",
    dataset_name: null,
    dataset_version: null,
    output_path: "/runs",
    agent_name: "oracle",
    no_rebuild: false,
    cleanup: false,
    log_level: 20,
    task_ids: ["hello"],
    exclude_task_ids: null,
    n_tasks: null,
    n_concurrent_trials: 4,
    n_attempts: 1,
    dataset_size: 1,
    accuracy: 1.0,
    model_name: "Oracle",
    start_time: T(0),
    end_time: T(10),
    commit_hash: "unknown",
    username: "someone",
    s3_bucket: null,
    agent_kwargs: null,
    pass_at_k: {},
    resumed_at: null,
    ...over,
  };
}

export function tbLock(
  over: { n_attempts?: number; task_ids?: string[]; run_id?: string } = {},
): Record<string, unknown> {
  return {
    lockfile_version: "1.0",
    created_at: "2025-08-25T17:06:06.741543+05:30",
    invocation: { command: "tb", args: ["run", "--agent", "oracle"] },
    harness: { package: "terminal-bench", version: "0.2.17", is_editable_installation: false },
    agent: {
      name: "oracle",
      import_path: "terminal_bench.agents.oracle_agent:OracleAgent",
      model_name: "Oracle",
      extra_kwargs: {},
    },
    run_config: {
      log_level: "info",
      livestream: false,
      n_concurrent_trials: 4,
      n_attempts: over.n_attempts ?? 1,
      no_rebuild: false,
      cleanup: false,
      global_timeout_multiplier: 1.0,
      global_agent_timeout_sec: null,
      global_test_timeout_sec: null,
    },
    dataset: {
      name: null,
      version: null,
      local_path: "/tasks",
      task_ids: over.task_ids ?? ["hello"],
      registry_url: null,
      local_registry_path: null,
    },
    local_config: { output_path: "runs", run_id: over.run_id ?? RUN_ID, upload_results: false },
  };
}

/** The run-level files; a value of null leaves that file out. */
export function writeRunFiles(run: string, files: { results?: unknown; metadata?: unknown; lock?: unknown }): void {
  mkdirSync(run, { recursive: true });
  const put = (name: string, v: unknown) =>
    v !== null && v !== undefined && writeFileSync(join(run, name), typeof v === "string" ? v : json(v));
  put("results.json", files.results);
  put("run_metadata.json", files.metadata);
  put("tb.lock", files.lock);
}

/** A run written by `writeRun`: its trials, listed and on disk unless the spec says otherwise. */
export interface RunSpec {
  /** Trials listed in results.json and written to disk (unless their index is in `absent`). */
  trials: TbTrialSpec[];
  absent?: number[];
  /** Trial folders written but not listed. */
  unlisted?: TbTrialSpec[];
  /** An edit of the run's results.json (its claims) after it is counted. */
  results?: (r: Record<string, any>) => void;
  /** Over run_metadata.json's fields (null: no file). */
  metadata?: Record<string, unknown> | null;
  /** tb.lock in place of the one the trials give (null: no file). */
  lock?: Record<string, unknown> | null;
  /** A trial file's edit (its list entry unchanged), by index in `trials`. */
  editTrial?: Record<number, (t: Record<string, unknown>) => void>;
  passAtK?: Record<string, number>;
}

/** A run folder at `dir`, its own files consistent with its trials unless the spec says otherwise. */
export function writeRun(dir: string, spec: RunSpec): string {
  const results = tbRunResults(
    spec.trials.map((t) => tbTrial(t)),
    spec.passAtK,
  );
  spec.results?.(results);
  const tasks = [...new Set(spec.trials.map((t) => t.task ?? "hello"))];
  const attempts = Math.max(1, ...spec.trials.map((t) => t.of ?? 1));
  writeRunFiles(dir, {
    results,
    metadata:
      spec.metadata === null
        ? null
        : tbMetadata({
            task_ids: tasks,
            dataset_size: tasks.length,
            n_attempts: attempts,
            accuracy: results["accuracy"],
            pass_at_k: results["pass_at_k"],
            ...spec.metadata,
          }),
    lock: spec.lock === null ? null : (spec.lock ?? tbLock({ n_attempts: attempts, task_ids: tasks })),
  });
  spec.trials.forEach((t, i) => {
    if (spec.absent?.includes(i)) return;
    const doc = tbTrial(t);
    spec.editTrial?.[i]?.(doc);
    writeTbTrial(dir, t, { result: json(doc) });
  });
  for (const t of spec.unlisted ?? []) writeTbTrial(dir, t);
  return dir;
}

export interface ScoredRun {
  entries: Map<string, TerminalBenchEntry>;
  verdict: RunVerdict;
}

/** Every `<task>/<trial>/` folder scored from disk, then the run's files checked beside them. */
export function scoreRun(run: string): ScoredRun {
  const read = (f: string) => (existsSync(join(run, f)) ? readFileSync(join(run, f)) : null);
  const record = readRun({ results: read("results.json"), metadata: read("run_metadata.json"), lock: read("tb.lock") });
  const entries = new Map<string, TerminalBenchEntry>();
  const trials: TrialOnDisk[] = [];
  for (const task of readdirSync(run).sort()) {
    if (!statSync(join(run, task)).isDirectory()) continue;
    for (const folder of readdirSync(join(run, task)).sort()) {
      const e = scoreTerminalBenchTrial(diskBundle(join(run, task, folder)));
      const path = `${task}/${folder}`;
      entries.set(path, e);
      trials.push({
        trial: e.trial,
        task: e.task,
        pass: e.pass,
        state: e.state,
        path,
        fields: e.terminal_bench?.fields ?? null,
      });
    }
  }
  return { entries, verdict: checkRun(record, trials) };
}
