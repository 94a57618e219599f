// Inspect evaluation logs (contract §12) for the demo, tests and the benchmark: realistic logs in
// both formats (.eval with Deflate or zstd members, and .json), each a labelled case with the
// verdict assay must reach — among them the headline Inspect writes when errored samples leave
// its denominator. Results are computed here as Inspect computes them (over the samples that
// returned scores), so a clean log's claims agree. A log is written a member at a time.

import { createHash } from "node:crypto";
import { transcript } from "./inspect-transcript.js";
import { Random } from "./random.js";
import { ZipWriter, type Method } from "./zip.js";

export const INSPECT_CASES = [
  "clean",
  "errors-hidden",
  "epochs",
  "metric-inflated",
  "summary-edited",
  "killed",
  "truncated",
  "corrupt-member",
  "limits-and-edits",
  "retried-error",
  "retried-success",
] as const;
export type InspectCase = (typeof INSPECT_CASES)[number];

/** What assay must say of each case (the log's own verdict, state and the code that marks it). */
export const INSPECT_EXPECT: Record<
  InspectCase,
  { validity: "valid" | "invalid"; code: string | null; status: string; state: "complete" | "incomplete" }
> = {
  clean: { validity: "valid", code: null, status: "success", state: "complete" },
  "errors-hidden": { validity: "valid", code: null, status: "success", state: "complete" },
  epochs: { validity: "valid", code: null, status: "success", state: "complete" },
  "metric-inflated": { validity: "invalid", code: "METRIC_MISMATCH", status: "success", state: "complete" },
  "summary-edited": { validity: "invalid", code: "SUMMARY_MISMATCH", status: "success", state: "complete" },
  killed: { validity: "valid", code: null, status: "started", state: "incomplete" },
  truncated: { validity: "valid", code: "EVAL_TRUNCATED", status: "started", state: "incomplete" },
  "corrupt-member": { validity: "invalid", code: "EVAL_CORRUPT", status: "success", state: "complete" },
  "limits-and-edits": { validity: "valid", code: "SCORE_EDITED", status: "success", state: "complete" },
  "retried-error": { validity: "valid", code: "SUPERSEDED", status: "error", state: "complete" },
  "retried-success": { validity: "valid", code: null, status: "success", state: "complete" },
};

export interface InspectSpec {
  task: string;
  model: string;
  case: InspectCase;
  /** Samples planned (ids 1..n) and epochs. */
  samples: number;
  epochs: number;
  format: "eval" | "json";
  method: Method;
  /** zstd frames per member (Inspect splits members past 200 MiB of input). */
  frames?: number;
  seed: string;
  /** Minutes after a fixed start: the log's creation time. */
  offset: number;
  /** Transcript text per sample, in bytes (the benchmark's samples are large). */
  padding?: number;
  /**
   * "realistic": each sample's transcript as Inspect writes it (inspect-transcript.ts), its
   * summaries as full as Inspect's, and journal summaries flushed as Inspect's recorder flushes
   * them (every ten samples past 30); "padded" (the default): two messages and `padding`, one
   * journal summary file.
   */
  shape?: "padded" | "realistic";
  /** The task run (shared by an eval-retry chain); derived from the task and model when absent. */
  taskId?: string;
}

const BASE = Date.UTC(2025, 10, 3, 10, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "+00:00");
/** An Inspect id (shortuuid-like, 22 characters) fixed by its inputs. */
const shortId = (...parts: string[]) =>
  createHash("sha256")
    .update(parts.join("\u0000"))
    .digest("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 22);
const WORDS =
  "the agent reads the task plans a search calls a tool inspects the output compares it with the target and answers".split(
    " ",
  );

/** The file name Inspect's recorder gives a log: `{created}_{task}_{task_id}.{eval|json}`. */
export const inspectFileName = (s: InspectSpec): string =>
  `${iso(BASE + s.offset * 60_000).replace(/:/g, "-")}_${s.task}_${taskIdOf(s)}.${s.format}`;
const taskIdOf = (s: InspectSpec) => s.taskId ?? shortId("task", s.task, s.model, String(s.offset), s.case);

interface Made {
  record: Record<string, unknown>;
  /** The value the scorer gave (null: errored without a score). */
  value: string | null;
  error: boolean;
}

/** One sample record, as Inspect's recorder writes it. */
function sample(s: InspectSpec, r: Random, id: number, epoch: number, t0: number): Made {
  const errored = (s.case === "errors-hidden" && id % 5 === 0) || (s.case === "retried-error" && id % 2 === 0);
  const correct = r.next() < 0.7;
  const value = errored ? null : correct ? "C" : "I";
  const input = `Question ${id}: what does the tool report for case ${id}?`;
  const answer = correct ? `answer-${id}` : `guess-${r.hex(2)}`;
  let pad = "";
  while (pad.length < (s.padding ?? 0)) pad += `${WORDS[r.int(WORDS.length)]} `;
  const start = t0 + (id * 7 + epoch) * 1000;
  const score =
    value === null
      ? undefined
      : { value, answer, explanation: `the answer ${correct ? "matches" : "differs from"} the target` };
  const scoreEvent =
    score === undefined
      ? []
      : [
          {
            event: "score",
            timestamp: iso(start + 400),
            score,
            target: `answer-${id}`,
            intermediate: false,
            scorer: "match",
          },
        ];
  const scores = score === undefined ? {} : { match: score };
  const uuid = shortId("uuid", s.seed, String(id), String(epoch));
  const record: Record<string, unknown> =
    s.shape === "realistic"
      ? realistic()
      : {
          id,
          epoch,
          input,
          target: `answer-${id}`,
          messages: [
            { role: "user", content: input, source: "input" },
            { role: "assistant", content: `${pad}${answer}`, source: "generate", model: s.model },
          ],
          output: {
            model: s.model,
            choices: [{ message: { role: "assistant", content: answer }, stop_reason: "stop" }],
            usage: { input_tokens: 40, output_tokens: 8, total_tokens: 48 },
          },
          scores,
          metadata: {},
          store: {},
          events: [
            { event: "sample_init", timestamp: iso(start) },
            { event: "model", timestamp: iso(start + 200), model: s.model },
            ...scoreEvent,
          ],
          model_usage: { [s.model]: { input_tokens: 40, output_tokens: 8, total_tokens: 48 } },
          started_at: iso(start),
          completed_at: iso(start + 500),
          total_time: 0.5,
          working_time: 0.4,
          uuid,
        };
  if (errored)
    record["error"] = {
      message: "RuntimeError('sandbox exited with code 137')",
      traceback: "Traceback (most recent call last): …",
      traceback_ansi: "",
    };
  if (s.case === "limits-and-edits" && id === 1) record["limit"] = { type: "token", limit: 4096 };
  if (s.case === "limits-and-edits" && id === 2 && score !== undefined) {
    const was = score.value === "C" ? "I" : "C";
    (record["scores"] as Record<string, unknown>)["match"] = {
      ...score,
      history: [
        {
          value: was,
          answer,
          provenance: { timestamp: iso(start + 9000), author: "reviewer", reason: "hand-checked" },
        },
      ],
    };
    (record["events"] as unknown[]).push({
      event: "score_edit",
      score_name: "match",
      edit: {
        value: score.value,
        provenance: { timestamp: iso(start + 9000), author: "reviewer", reason: "hand-checked" },
      },
    });
  }
  return { record, value, error: errored };

  /** The record of the realistic shape: the same scores, a transcript as Inspect condenses it. */
  function realistic(): Record<string, unknown> {
    const t = transcript(r, s.model, id, epoch, start, input, answer, scoreEvent);
    const usage = { input_tokens: 4100, output_tokens: 380, total_tokens: 4480 };
    return {
      id,
      epoch,
      input,
      target: `answer-${id}`,
      messages: t.messages,
      output: {
        model: s.model,
        choices: [{ message: t.messages[t.messages.length - 1], stop_reason: "stop" }],
        usage,
        time: 6.2,
      },
      scores,
      metadata: t.metadata,
      store: t.store,
      events: t.events,
      events_data: t.events_data,
      attachments: t.attachments,
      model_usage: { [s.model]: usage },
      started_at: iso(start),
      completed_at: iso(start + 12_500),
      total_time: 12.5,
      working_time: 11.2,
      uuid,
      error_retries: [],
    };
  }
}

/** Samples a journal summary file holds in the realistic shape: Inspect's flush threshold over `n` records (eval.py). */
const flushEvery = (n: number) => Math.max(1, Math.min(Math.floor(n / 3), 10));

/** What Inspect's EvalSampleSummary holds beside the fields every shape writes (about 950 bytes in all). */
function fullSummary(m: Made, s: InspectSpec, t0: number): Record<string, unknown> {
  const id = m.record["id"] as number;
  const start = t0 + (id * 7 + (m.record["epoch"] as number)) * 1000;
  return {
    input: `Question ${id}: what does the tool report for case ${id}?`,
    uuid: shortId("uuid", s.seed, String(id), String(m.record["epoch"])),
    metadata: { difficulty: id % 3, category: WORDS[id % WORDS.length], source: `case_${id}` },
    model_usage: {
      [s.model]: {
        input_tokens: 4100,
        output_tokens: 380,
        total_tokens: 4480,
        input_tokens_cache_read: 1200,
        reasoning_tokens: 0,
      },
    },
    started_at: iso(start),
    completed_at: iso(start + 12_500),
    total_time: 12.5,
    working_time: 11.2,
    message_count: 5,
    error_retries: [],
  };
}

/** Inspect's figures over the samples that returned a score: the mean per sample over its epochs, then accuracy and stderr. */
function inspectResults(made: readonly Made[]): {
  accuracy: number;
  stderr: number;
  scored: number;
  reduced: Map<number, number>;
} {
  const byId = new Map<number, number[]>();
  for (const m of made) {
    if (m.value === null) continue;
    const id = m.record["id"] as number;
    byId.set(id, [...(byId.get(id) ?? []), m.value === "C" ? 1 : 0]);
  }
  const reduced = new Map([...byId].map(([id, xs]) => [id, xs.reduce((a, b) => a + b, 0) / xs.length]));
  const xs = [...reduced.values()];
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return { accuracy: mean, stderr: xs.length < 2 ? 0 : sd / Math.sqrt(xs.length), scored: xs.length, reduced };
}

/**
 * Write a log through `out`, a member (or a .json log's piece) at a time. Samples are made once to
 * write and once more for the results (the same seed): a log of 100,000 samples is never held.
 */
export function writeInspectLog(s: InspectSpec, out: (b: Uint8Array) => void): void {
  const t0 = BASE + s.offset * 60_000;
  const taskId = taskIdOf(s);
  const ids = Array.from({ length: s.samples }, (_, i) => i + 1);
  const evalSpec = {
    eval_id: shortId("eval", taskId, s.case),
    run_id: shortId("run", taskId, s.case),
    created: iso(t0),
    task: s.task,
    task_id: taskId,
    task_version: 0,
    task_file: `tasks/${s.task}.py`,
    task_args: {},
    dataset: { name: s.task, location: `${s.task}.jsonl`, samples: s.samples, sample_ids: ids, shuffled: false },
    model: s.model,
    model_args: {},
    config: {
      epochs: s.epochs,
      epochs_reducer: ["mean"],
      fail_on_error: s.case === "retried-error",
      log_samples: true,
    },
    packages: { inspect_ai: "0.3.255" },
    scorers: [
      {
        name: "match",
        options: {},
        metrics: [
          { name: "inspect_ai/accuracy", options: {} },
          { name: "inspect_ai/stderr", options: {} },
        ],
        metadata: {},
      },
    ],
  };
  const plan = { name: "plan", steps: [{ solver: "generate", params: {} }], config: {} };
  const each = function* (): Generator<Made> {
    const r = new Random(`${s.seed}:${s.case}:${s.task}`);
    for (const epoch of Array.from({ length: s.epochs }, (_, i) => i + 1))
      for (const id of ids) yield sample(s, r, id, epoch, t0);
  };
  // Small records of every sample for results and summaries (never the samples themselves).
  const made: Made[] = [];
  for (const m of each())
    made.push({
      record: {
        id: m.record["id"],
        epoch: m.record["epoch"],
        scores: m.record["scores"],
        error: m.error ? "RuntimeError" : undefined,
        limit: m.record["limit"],
      },
      value: m.value,
      error: m.error,
    });
  const res = inspectResults(made);
  const errors = made.filter((m) => m.error).length;
  const status = s.case === "retried-error" ? "error" : "success";
  const results = {
    total_samples: s.samples * s.epochs,
    completed_samples: made.length - errors,
    scores: [
      {
        name: "match",
        scorer: "match",
        reducer: "mean",
        scored_samples: res.scored,
        unscored_samples: 0,
        params: {},
        metrics: {
          accuracy: {
            name: "accuracy",
            value: s.case === "metric-inflated" ? Math.min(1, res.accuracy + 0.1) : res.accuracy,
            params: {},
          },
          stderr: { name: "stderr", value: res.stderr, params: {} },
        },
      },
    ],
  };
  const stats = {
    started_at: iso(t0),
    completed_at: iso(t0 + (s.samples * 7 + s.epochs + 10) * 1000),
    model_usage: {},
  };
  const header = {
    version: 2,
    status,
    eval: evalSpec,
    plan,
    results,
    stats,
    ...(status === "error"
      ? { error: { message: "RuntimeError('sandbox exited with code 137')", traceback: "", traceback_ansi: "" } }
      : {}),
  };
  const summaries = made.map((m, i) => ({
    id: m.record["id"],
    epoch: m.record["epoch"],
    input: `Question ${String(m.record["id"])}`,
    target: `answer-${String(m.record["id"])}`,
    scores:
      s.case === "summary-edited" && i === 0 ? { match: { value: m.value === "C" ? "I" : "C" } } : m.record["scores"],
    ...(m.error ? { error: "RuntimeError('sandbox exited with code 137')" } : {}),
    ...(m.record["limit"] ? { limit: "token" } : {}),
    retries: 0,
    completed: true,
    ...(s.shape === "realistic" ? fullSummary(m, s, t0) : {}),
  }));
  const reductions = [
    { scorer: "match", reducer: "mean", samples: [...res.reduced].map(([id, value]) => ({ value, sample_id: id })) },
  ];
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));

  if (s.format === "json") {
    out(
      Buffer.from(
        `{"version": 2, "status": ${JSON.stringify(status)}, "eval": ${JSON.stringify(evalSpec)}, "plan": ${JSON.stringify(plan)}, "results": ${JSON.stringify(results)}, "stats": ${JSON.stringify(stats)}, "samples": [`,
      ),
    );
    let first = true;
    for (const m of each()) {
      out(Buffer.from(`${first ? "" : ", "}${JSON.stringify(m.record)}`));
      first = false;
    }
    out(Buffer.from(`], "reductions": ${JSON.stringify(reductions)}}\n`));
    return;
  }
  const z = new ZipWriter(out);
  const o = { frames: s.frames ?? 1 };
  z.add("_journal/start.json", json({ version: 2, eval: evalSpec, plan }), s.method, o);
  // Inspect's recorder flushes its buffered samples, then their summaries, every few samples.
  const flush = s.shape === "realistic" ? flushEvery(made.length) : Infinity;
  let n = 0;
  let flushed = 0;
  let k = 0;
  for (const m of each()) {
    const data = json(m.record);
    // The first sample's CRC in the directory is not its bytes' (a bit flipped on disk).
    if (s.case === "corrupt-member" && n === 0) {
      z.add(`samples/${String(m.record["id"])}_epoch_${String(m.record["epoch"])}.json`, data, s.method, {
        ...o,
        crc: 0xdeadbeef,
      });
    } else z.add(`samples/${String(m.record["id"])}_epoch_${String(m.record["epoch"])}.json`, data, s.method, o);
    n++;
    if (n % flush === 0) {
      z.add(`_journal/summaries/${++k}.json`, json(summaries.slice(flushed, n)), s.method, o);
      flushed = n;
    }
  }
  if (flushed < n || k === 0) z.add(`_journal/summaries/${++k}.json`, json(summaries.slice(flushed)), s.method, o);
  if (s.case === "killed" || s.case === "truncated") return; // a killed writer: no header, no directory
  z.add("summaries.json", json(summaries), s.method, o);
  z.add("reductions.json", json(reductions), s.method, o);
  z.add("header.json", json(header), s.method, o);
  z.end();
}

/** A whole log in memory (small logs): a truncated one cut in the middle of its last member. */
export function inspectLogBytes(s: InspectSpec): Buffer {
  const parts: Uint8Array[] = [];
  writeInspectLog(s, (b) => parts.push(b));
  const whole = Buffer.concat(parts);
  if (s.case !== "truncated") return whole;
  const last = parts[parts.length - 1]!.length;
  return whole.subarray(0, whole.length - Math.ceil(last / 2));
}
