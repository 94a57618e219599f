// The statistics bench's evidence: Inspect .json logs (contract §12) as Inspect 0.3 writes them,
// one per simulated experiment, whose samples are C tasks × m attempts under metadata.task and
// whose scorer declares `stderr(cluster="task")`, so assay clusters the attempts of one task.
// Chosen over native bundles by throughput: one file per experiment instead of one folder and hash
// chain per trial. The log's own claims (mean, clustered stderr) are Inspect's figures, as Inspect
// computes them, so every log is valid and assay's figures come from the samples alone.

import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface LogSpec {
  /** The task run's name: the experiment `<task> (bench/model)`, the same in every run that pairs with it. */
  task: string;
  /** Distinct per log within one run. */
  taskId: string;
  values: ArrayLike<number>;
  /** Attempts per task (samples t·m … t·m + m − 1 belong to task t); null: each sample its own task, no cluster key. */
  attempts: number | null;
}

const METRIC = "mean";

/** Inspect's clustered stderr: √(C/(C−1) · Σ_c (Σ_{i∈c}(x_i − x̄))²) / n; its plain one s/√n where unclustered. */
function stderr(xs: ArrayLike<number>, attempts: number | null): number {
  const n = xs.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += xs[i]!;
  const mean = sum / n;
  if (attempts === null) {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (xs[i]! - mean) ** 2;
    return n < 2 ? 0 : Math.sqrt(ss / (n - 1) / n);
  }
  const clusters = n / attempts;
  let total = 0;
  for (let c = 0; c < clusters; c++) {
    let dev = 0;
    for (let a = 0; a < attempts; a++) dev += xs[c * attempts + a]! - mean;
    total += dev * dev;
  }
  return Math.sqrt((clusters / (clusters - 1)) * total) / n;
}

/** The log's JSON text. */
export function logText(s: LogSpec): string {
  const n = s.values.length;
  const ids = Array.from({ length: n }, (_, i) => `s${i + 1}`);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += s.values[i]!;
  const params = s.attempts === null ? {} : { cluster: "task" };
  const metrics = [
    { name: `inspect_ai/${METRIC}`, options: {} },
    { name: "inspect_ai/stderr", options: params },
  ];
  const log = {
    version: 2,
    status: "success",
    eval: {
      eval_id: `e-${s.taskId}`,
      run_id: `r-${s.taskId}`,
      created: "2026-12-01T10:00:00+00:00",
      task: s.task,
      task_id: s.taskId,
      model: "bench/model",
      dataset: { name: "bench", samples: n, sample_ids: ids },
      config: { epochs: 1, epochs_reducer: ["mean"] },
      packages: { inspect_ai: "0.3.255" },
      scorers: [{ name: "match", options: {}, metrics, metadata: {} }],
    },
    results: {
      total_samples: n,
      completed_samples: n,
      scores: [
        {
          name: "match",
          scorer: "match",
          reducer: "mean",
          params: {},
          metrics: {
            [METRIC]: { name: METRIC, value: sum / n, params: {} },
            stderr: { name: "stderr", value: stderr(s.values, s.attempts), params },
          },
        },
      ],
    },
    stats: { started_at: "2026-12-01T10:00:00+00:00", completed_at: "2026-12-01T10:05:00+00:00" },
    samples: ids.map((id, i) => ({
      id,
      epoch: 1,
      input: "q",
      target: "a",
      scores: { match: { value: s.values[i] } },
      metadata: s.attempts === null ? {} : { task: `t${Math.floor(i / s.attempts)}` },
    })),
  };
  return JSON.stringify(log);
}

/** Write the log into `dir` under an Inspect-style file name. */
export function writeLog(dir: string, s: LogSpec): string {
  const file = join(dir, `2026-12-01T10-00-00+00-00_${s.task}_${s.taskId}.json`);
  writeFileSync(file, logText(s));
  return file;
}
