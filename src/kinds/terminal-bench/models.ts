// Terminal-Bench's files as zod schemas and views (docs/terminal-bench.md, research §A.1–A.9):
// the trial `results.json` (TrialResults), the run `results.json` (BenchmarkResults),
// `run_metadata.json` (RunMetadata) and `tb.lock` (RunLock). Known fields are type-checked; unknown
// ones (forks add `n_commands`, `long_cli*`, `pass_rate`) are kept. 0.2.7 writes `uuid` for `id` and
// no timestamps, and neither `id` nor `resumed_at` is required. Views take only well-typed values,
// so a file with a schema error still says what it can.

import { z } from "zod";
import { finding, type Finding } from "../../core/codes.js";
import { sha256 } from "../../core/folder.js";
import { parseTimestamp } from "../../core/timestamp.js";
import { encodingProblem, isPlainObject, MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import { JsonDecimal, parseStrictJsonNoting, type JsonIssue } from "../../core/json/strict.js";
import { finiteNumber, int, record, setOwn } from "../../core/schema.js";
import { fieldPath } from "../../core/text.js";

const stamp = z.string().refine((s) => parseTimestamp(s) !== null, "expected an ISO 8601 timestamp");
const when = stamp.nullable().optional();
const count = int(0).nullable().optional();
const claimedPassAtK = record(z.string(), finiteNumber.nullable()).nullable().optional();

/** The six timestamps of a trial (all null on a harness exception; absent before 0.2.12). */
export const STAMPS = [
  "trial_started_at",
  "trial_ended_at",
  "agent_started_at",
  "agent_ended_at",
  "test_started_at",
  "test_ended_at",
] as const;

export const trialResultsSchema = z.looseObject({
  id: z.string().optional(),
  uuid: z.string().optional(),
  trial_name: z.string(),
  task_id: z.string(),
  instruction: z.string(),
  is_resolved: z.boolean().nullable().optional(),
  // A string, not TB's enum: a fork's failure mode is still a failure mode.
  failure_mode: z.string().optional(),
  parser_results: record(z.string(), z.enum(["passed", "failed"]))
    .nullable()
    .optional(),
  recording_path: z.string().nullable().optional(),
  total_input_tokens: count,
  total_output_tokens: count,
  ...Object.fromEntries(STAMPS.map((k) => [k, when])),
});

export const benchmarkResultsSchema = z.looseObject({
  id: z.string().optional(),
  results: z.array(z.unknown()),
  pass_at_k: claimedPassAtK,
  n_resolved: int(0).optional(),
  n_unresolved: int(0).optional(),
  resolved_ids: z.array(z.string()).nullable().optional(),
  unresolved_ids: z.array(z.string()).nullable().optional(),
  accuracy: finiteNumber.optional(),
});

export const runMetadataSchema = z.looseObject({
  run_id: z.string().optional(),
  task_ids: z.array(z.string()).nullable().optional(),
  n_attempts: int(1).optional(),
  dataset_size: int(0).optional(),
  accuracy: finiteNumber.nullable().optional(),
  pass_at_k: claimedPassAtK,
  start_time: when,
  end_time: when,
  resumed_at: when,
});

export const runLockSchema = z.looseObject({
  lockfile_version: z.string().optional(),
  harness: z.looseObject({ package: z.string().optional(), version: z.string().optional() }).optional(),
  run_config: z.looseObject({ n_attempts: int(1).optional() }).optional(),
  dataset: z.looseObject({ task_ids: z.array(z.string()).nullable().optional() }).optional(),
  local_config: z.looseObject({ run_id: z.string().optional() }).optional(),
});

// ---------------------------------------------------------------------------------------------

export type Obj = Record<string, unknown>;
export type Read = { ok: true; value: unknown } | { ok: false; truncated: boolean };

/**
 * A JSON document under §2 (strict, UTF-8, bounded): its value, or its findings pushed to `out`.
 * `truncated`: empty, or ending where a value was still being read — what a killed writer leaves
 * (TB writes every file in place).
 */
export function readJson(bytes: Uint8Array, file: string, out: Finding[]): Read {
  if (bytes.length > MAX_DOCUMENT_BYTES) {
    out.push(finding("FILE_TOO_LARGE", file, null, `${bytes.length} bytes exceeds ${MAX_DOCUMENT_BYTES}`));
    return { ok: false, truncated: false };
  }
  if (bytes.length === 0) return { ok: false, truncated: true };
  const bad = encodingProblem(bytes);
  if (bad !== null) {
    out.push(finding("ENCODING", file, null, bad));
    return { ok: false, truncated: false };
  }
  const r = parseStrictJsonNoting(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
    " \n",
  );
  if (!r.ok) {
    const issue: JsonIssue = r.issue;
    if (issue.code === "JSON_SYNTAX" && issue.endOfInput) return { ok: false, truncated: true };
    out.push(finding(issue.code, file, null, issue.message));
    return { ok: false, truncated: false };
  }
  for (const f of r.nonFinite)
    out.push(finding("NOT_FINITE", file, null, `${fieldPath(f.path)}: ${f.token} is not a finite number`));
  return { ok: true, value: r.value };
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const nat = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null);
export const num = (v: unknown): number | null => {
  const r = finiteNumber.safeParse(v);
  return r.success ? r.data : null;
};
const bool = (v: unknown): boolean | null => (typeof v === "boolean" ? v : null);

/** JSON with object keys sorted and decimals as their numbers: equal values, equal text. */
function canonical(v: unknown): string {
  if (v instanceof JsonDecimal) return JSON.stringify(v.value);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

import { MAX_FIELDS, OTHER_FIELDS } from "./entry.js";
export { MAX_FIELDS, OTHER_FIELDS };
/** Each top-level field → the first 16 hex digits of its canonical JSON's SHA-256. */
export function fingerprints(o: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  const keys = Object.keys(o).sort();
  for (const k of keys.slice(0, MAX_FIELDS)) setOwn(out, k, sha256(canonical(o[k])).slice(0, 16));
  if (keys.length > MAX_FIELDS)
    out[OTHER_FIELDS] = sha256(canonical(keys.slice(MAX_FIELDS).map((k) => [k, o[k]]))).slice(0, 16);
  return out;
}

export type Status = "passed" | "failed";
export type ParserResults = Record<string, Status>;

/** What the rules read of a TrialResults, each value only when well-typed. */
export interface TrialView {
  trialName: string | null;
  taskId: string | null;
  /** true, false, null (none reached), or undefined: absent or ill-typed. */
  isResolved: boolean | null | undefined;
  failureMode: string | null;
  /** null: TB recorded none; undefined: absent or ill-typed. */
  parserResults: ParserResults | null | undefined;
  input: number | null;
  output: number | null;
  /** Every timestamp is null or absent. */
  noStamps: boolean;
}

export function trialViewOf(o: Obj): TrialView {
  const pr = o["parser_results"];
  let parserResults: TrialView["parserResults"] = pr === null ? null : undefined;
  if (isPlainObject(pr) && Object.values(pr).every((s) => s === "passed" || s === "failed"))
    parserResults = pr as ParserResults;
  const resolved = o["is_resolved"];
  return {
    trialName: str(o["trial_name"]),
    taskId: str(o["task_id"]),
    isResolved: resolved === null ? null : (bool(resolved) ?? undefined),
    failureMode: str(o["failure_mode"]),
    parserResults,
    input: nat(o["total_input_tokens"]),
    output: nat(o["total_output_tokens"]),
    noStamps: STAMPS.every((k) => o[k] === null || o[k] === undefined),
  };
}

/** TB's default failure mode: a clean trial keeps it (TB never sets "none" on success). */
export const CLEAN_MODES: ReadonlySet<string | null> = new Set(["unset", "none", null]);

/**
 * The entry TB writes when `_run_trial` raised (research §A.4 step 5): unknown_agent_error and
 * nothing else — no verdict, no tests, no tokens, no timestamps — and no trial results.json.
 */
export const isHarnessShape = (t: TrialView): boolean =>
  t.failureMode === "unknown_agent_error" &&
  t.isResolved == null &&
  t.parserResults == null &&
  t.input === null &&
  t.output === null &&
  t.noStamps;
