// The compare row of `npm run bench` (`npm run bench -- --compare` runs it alone): two results
// documents of 200,000 entries each — 198,000 native trials of one experiment and 2,000 Inspect
// logs (an experiment each) of 100 samples with per-sample values (200,000 samples) — written to
// disk in chunks, never held, then `assay compare` on them in a child under a 96 MiB heap cap:
// wall time and the child's peak RSS (main thread included), beside the documents' size. The
// comparison streams both documents and keeps per unit a number (and its id), never an entry.

import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { wilson95 } from "../core/batch/stats.js";
import { blankEntry, blankExperiment, type Results } from "../core/results.js";
import { MAXRSS } from "./million.js";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const HEAP_MB = 96;

export interface BigCompareShape {
  /** Native trials of experiment "big", then Inspect logs of `samples` samples each: `trials + logs` entries. */
  trials: number;
  logs: number;
  samples: number;
}

export const BENCH_SHAPE: BigCompareShape = { trials: 198_000, logs: 2_000, samples: 100 };

const RUN: Results["run"] = {
  tool_version: "0.1.0",
  scoring_version: 7,
  started_at: "2026-12-01T00:00:00.000Z",
  complete: true,
  shard: null,
  roots: ["big"],
  options: {
    invalid: "count",
    resource_bound: "default",
    errors: "exclude",
    schedules: [],
    hmac_key: null,
    filters: null,
  },
  jobs: [],
  unrecognised: { count: 0, paths: [] },
};

/**
 * A results document written in chunks: native trial i wins unless `lost(i)`; Inspect log j's
 * sample k scores 1 unless `lost(j * samples + k)`. Every figure is what the units give.
 */
export function writeBigCompareDocument(file: string, shape: BigCompareShape, lost: (i: number) => boolean): void {
  const fd = openSync(file, "w");
  let held: string[] = [];
  const put = (s: string) => {
    held.push(s);
    if (held.length >= 1000) {
      writeSync(fd, held.join(""));
      held = [];
    }
  };
  put(`{"format":"assay.results/1","run":${JSON.stringify(RUN)},"bundles":[`);
  let victories = 0;
  const id = (i: number) => `t${String(i).padStart(7, "0")}`;
  for (let i = 0; i < shape.trials; i++) {
    const victory = !lost(i);
    if (victory) victories++;
    const e = blankEntry({
      validity: "valid",
      errors: [],
      profile: "native-game",
      experiment: "big",
      trial: id(i),
      attempt: 1,
      digest: id(i),
      status: "completed",
      ending: true,
      final_score: true,
      victory,
      late: false,
    });
    put(`${i === 0 ? "" : ","}${JSON.stringify({ path: `big/${id(i)}/a1`, ...e })}`);
  }
  const logs: string[] = [];
  for (let j = 0; j < shape.logs; j++) {
    const values: number[] = Array.from({ length: shape.samples }, (_, k) => (lost(j * shape.samples + k) ? 0 : 1));
    const k = values.reduce((a, b) => a + b, 0);
    const n = shape.samples;
    const figure = {
      value: k / n,
      n,
      wilson95: wilson95(k, n),
      pass_at_k: null,
      interval: null,
      interval_reason: null,
      pass_hat_k: null,
    };
    const path = `big/logs/${id(j)}.eval`;
    const e = blankEntry({
      validity: "valid",
      errors: [],
      profile: "inspect",
      experiment: `task-${id(j)} (model)`,
      digest: id(j),
      status: "success",
      samples: { complete: n },
      inspect: {
        format: "eval",
        log_version: 2,
        inspect_version: "0.3.100",
        eval_id: id(j),
        run_id: id(j),
        task_id: id(j),
        model: "model",
        created: null,
        completed_at: null,
        plan: { records: n, ids: n, epochs: 1, source: "sample_ids" },
        total_samples: n,
        sample_ids: values.map((_, s) => `s${s}`),
        sample_clusters: { by: {}, keys: {} },
        metrics: {
          "match/-/accuracy": {
            claimed: k / n,
            check: "agrees",
            note: null,
            coverage: { scored: n, planned: n },
            exclude: figure,
            zero: figure,
            values: { exclude: values, zero: values },
          },
        },
      },
    });
    put(`,${JSON.stringify({ path, ...e })}`);
    const x = blankExperiment(`task-${id(j)} (model)`, "inspect", n);
    x.log = { path, status: "success", state: "complete" };
    x.inspect = {
      "match/-/accuracy": {
        claimed: k / n,
        value: k / n,
        coverage: { scored: n, planned: n },
        wilson95: wilson95(k, n),
        pass_at_k: null,
        check: "agrees",
        note: null,
        errors_zero: k / n,
        interval: null,
        interval_reason: null,
        pass_hat_k: null,
      },
    };
    logs.push(JSON.stringify(x));
  }
  const x = blankExperiment("big", "native-game", shape.trials);
  x.accuracy = {
    value: victories / shape.trials,
    victories,
    scored: shape.trials,
    wilson95: wilson95(victories, shape.trials),
    interval: null,
    interval_reason: null,
  };
  x.completion = { value: 1, completed: shape.trials, scheduled: shape.trials, interval: null, interval_reason: null };
  x.retry = [];
  put(`],"experiments":[${JSON.stringify(x)}`);
  for (const l of logs) put(`,${l}`);
  put("]}\n");
  writeSync(fd, held.join(""));
  closeSync(fd);
}

/** HEAD loses every tenth unit BASE wins; both documents compared in a child under a heap cap. */
export function compareBench(dir: string, shape: BigCompareShape = BENCH_SHAPE): void {
  const [base, head, out, rss] = ["base.json", "head.json", "compare.json", "maxrss"].map((f) => join(dir, f)) as [
    string,
    string,
    string,
    string,
  ];
  writeBigCompareDocument(base, shape, (i) => i % 3 === 0);
  writeBigCompareDocument(head, shape, (i) => i % 3 === 0 || i % 10 === 1);
  const t = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, "--import", MAXRSS, CLI, "compare", base, head, "--out", out],
    { encoding: "utf8", env: { ...process.env, MAXRSS_FILE: rss } },
  );
  const secs = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0) throw new Error(`assay compare: exit ${r.status}: ${r.stderr}`);
  const mb = statSync(base).size / 2 ** 20;
  const peak = Number(readFileSync(rss, "utf8")) / 1024;
  const entries = shape.trials + shape.logs;
  console.log(
    `compare of 2 × ${entries.toLocaleString("en")} entries (${mb.toFixed(0)} MiB each; ${(shape.logs * shape.samples).toLocaleString("en")} Inspect samples with values): ${secs.toFixed(1)} s, peak RSS ${peak.toFixed(0)} MiB under a ${HEAP_MB} MiB heap`,
  );
}
