// One sample record (`samples/<id>_epoch_<n>.json`, or an element of a .json log's `samples`) →
// the small record the log-level rules need, and the findings that concern the record alone.
// Runs in workers, a record at a time: the sample itself (messages, events, attachments) is
// dropped as soon as this returns. Pure, but for shareStrings, which the main thread runs on the
// records a worker sent it (its own copies).

import { hash } from "node:crypto";
import { finding, type Code, type Finding } from "../../core/codes.js";
import { isPlainObject } from "../../core/json/decode.js";
import { setOwn } from "../../core/schema.js";
import { inspectUsage, type Usage } from "../../core/usage.js";
import { infiniteIn, isNaNValue, isValue, sameValue, showValue } from "./value.js";

/** What the log-level rules keep of one sample record: a few fields, never its transcript. */
export interface SampleRecord {
  /** Where it came from: its member name, or `samples[i]` in a .json log. */
  member: string;
  /** The id as Inspect groups it (`str(id)`: 1 and "1" are one). */
  id: string;
  epoch: number;
  /** `refusal`: the model refused (Inspect's ModelRefusalError, PR #5327); `scorer`: choice() found no options to score (PR #5310). */
  error: "error" | "cancelled" | "refusal" | "scorer" | null;
  /** The error's first line (evidence for findings and analyses). */
  errorMessage: string | null;
  /** The limit that ended it (`limit.type`), or null. */
  limit: string | null;
  /** Earlier attempts (`error_retries`). */
  retries: number;
  /** Scorer name → score value (NaN kept: Inspect's "unscored"). */
  scores: Record<string, unknown>;
  /** Scorers whose score says the grader failed (an instrument error, not the model's), with the reason written: the log decides by the value whether it is one. */
  graderFailed: readonly (readonly [scorer: string, reason: string])[];
  /** Scorers whose score says the model gave no answer (`Score.reason` refusal or no_response), with the reason. */
  modelFailed: readonly (readonly [scorer: string, reason: string])[];
  /** The sample has no answer options (`choices` absent, null or empty): what choice() cannot score. */
  noChoices: boolean;
  /** The first tool call the sandbox could not run (issue #4709): `typed` when Inspect wrote the type `sandbox_unavailable`, else the dead container's own words in a tool result. */
  sandbox: { typed: boolean; evidence: string } | null;
  invalidated: boolean;
  /** Scorers whose score was edited (history or a score_edit event), with who and why when said. */
  edits: string[];
  findings: Finding[];
  /** Review flags of this record alone. */
  flags: Code[];
  /**
   * The sample's scalar metadata (§13.1: a clustered `stderr` groups samples by one key, and the
   * header naming it may be read after the samples), flat as key, value, key, value: at most
   * MAX_METADATA_KEYS keys of at most MAX_METADATA_KEY_LENGTH characters, each value as
   * keptScalar gives it.
   */
  metadata: readonly (string | number | null)[];
  /** Some metadata key was not kept (past the cap, a key too long, or a value that is no scalar). */
  metadataCut: boolean;
  /** §13.5: the sample's `model_usage` summed over its models (null: it has none). */
  usage: Usage | null;
}

/** Metadata keys kept per record, and the longest key kept: the header's cluster key is not known yet. */
export const MAX_METADATA_KEYS = 8;
export const MAX_METADATA_KEY_LENGTH = 64;
/** A string value longer than this is kept as its digest (equal strings, equal digests). */
const LONG_VALUE = 24;

/** One empty list for every record without findings, flags or edits (most of a large log's). */
const NONE: never[] = [];
/**
 * A scalar metadata value as a record keeps it: booleans as 1 and 0 (Python's `True == 1`),
 * numbers and null as they are, a string of at most LONG_VALUE characters as it is, a longer one
 * as its SHA-256 (32 characters, one a byte: equal strings, equal digests, and no kept string is
 * that long); undefined for a list or map.
 */
function keptScalar(v: unknown): string | number | null | undefined {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number" || v === null) return v;
  if (typeof v !== "string") return undefined;
  return v.length <= LONG_VALUE ? v : hash("sha256", v, "binary");
}

/** The metadata a record keeps (see SampleRecord.metadata). */
function keptMetadata(m: unknown): { metadata: readonly (string | number | null)[]; metadataCut: boolean } {
  if (!isPlainObject(m)) return { metadata: NONE, metadataCut: false };
  const kept: (string | number | null)[] = [];
  let cut = false;
  for (const [k, v] of Object.entries(m)) {
    const x = keptScalar(v);
    if (x === undefined || k.length > MAX_METADATA_KEY_LENGTH || kept.length === 2 * MAX_METADATA_KEYS) cut = true;
    else kept.push(k, x);
  }
  // A copy of its own length: a pushed array holds spare capacity (17 slots at the first push).
  return { metadata: kept.length > 0 ? kept.slice() : NONE, metadataCut: cut };
}

/** Strings a log's records share at most (see shareStrings), and the longest shared. */
const MAX_SHARED = 4096;
const SHARED_LENGTH = 64;

/**
 * The record's short strings that recur across a log's records — its metadata's keys and values,
 * its string score values — made one string each through `table` (one per log). A record cloned
 * from a worker holds its own copy of each: a realistic log's metadata keys alone are ~100 bytes a
 * record. Bounded: longer strings, and strings past the table's MAX_SHARED, stay as they are.
 * Metadata values may fill only half the table: values unique to a sample (an instance id, a
 * long value's digest) cannot crowd out the keys and scores that recur in every record.
 */
export function shareStrings(r: SampleRecord, table: Map<string, string>): void {
  const shared = (v: unknown, room: number): unknown => {
    if (typeof v !== "string" || v.length > SHARED_LENGTH) return v;
    const have = table.get(v);
    if (have !== undefined) return have;
    if (table.size < room) table.set(v, v);
    return v;
  };
  const metadata = r.metadata as (string | number | null)[];
  for (let i = 0; i < metadata.length; i++)
    metadata[i] = shared(metadata[i], i % 2 === 0 ? MAX_SHARED : MAX_SHARED / 2) as string | number | null;
  for (const k in r.scores) r.scores[k] = shared(r.scores[k], MAX_SHARED);
}

/** A kept metadata value of a record (undefined when not kept), as a cluster identity: equal exactly when Python's `==` holds. */
export function metadataCluster(r: SampleRecord, key: string): string | undefined {
  for (let i = 0; i < r.metadata.length; i += 2)
    if (r.metadata[i] === key) {
      const v = r.metadata[i + 1];
      return typeof v === "number" ? `n${v}` : v === null ? "None" : `s${v}`;
    }
  return undefined;
}

/** Python's str() of an id: integers as decimal text, strings as they are; anything else is not an id. */
export function idText(id: unknown): string | null {
  if (typeof id === "string") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return String(id);
  return null;
}

/** The first line of an error's message, at most 200 characters. */
export const firstLine = (s: string): string => s.split("\n", 1)[0]!.slice(0, 200);

/** Inspect's cancellation test (_util/error.py): the message starts `CancelledError(` or `Cancelled(`. */
export const isCancellation = (message: string): boolean =>
  message.startsWith("CancelledError(") || message.startsWith("Cancelled(");

/** An ISO time as an instant (naive times are UTC, never the scoring host's zone), or null. */
export function instant(s: unknown): number | null {
  if (typeof s !== "string" || s === "") return null;
  const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s);
  const t = Date.parse(naive ? `${s}Z` : s);
  return Number.isNaN(t) ? null : t;
}

/** Score objects of a record (`scores`, or a version-1 `score`, migrated as Inspect does). */
function scoreObjects(sample: Record<string, unknown>): Record<string, unknown> | null {
  const s = sample["scores"];
  if (s !== undefined && s !== null) return isPlainObject(s) ? s : null;
  const old = sample["score"];
  if (isPlainObject(old)) return { [typeof old["name"] === "string" ? old["name"] : "score"]: old };
  return {};
}

/**
 * The record, or null with a finding when it has no usable identity (id an integer or string,
 * epoch an integer ≥ 1): such a record cannot be placed in the plan.
 */
export function sampleRecord(sample: unknown, member: string, out: Finding[]): SampleRecord | null {
  if (!isPlainObject(sample)) {
    out.push(finding("SCHEMA", member, null, "a sample record must be a JSON object"));
    return null;
  }
  const id = idText(sample["id"]);
  const epoch = sample["epoch"];
  if (id === null) {
    out.push(finding("SCHEMA", member, null, `id: ${showValue(sample["id"])} is not an integer or a string`));
    return null;
  }
  if (typeof epoch !== "number" || !Number.isSafeInteger(epoch) || epoch < 1) {
    out.push(finding("SCHEMA", member, null, `epoch: ${showValue(epoch)} is not an integer ≥ 1`));
    return null;
  }
  const findings: Finding[] = [];
  const flags: Code[] = [];
  const scores: Record<string, unknown> = {};
  const edits: string[] = [];
  const failed: [string, string][] = [];
  const modelFailed: [string, string][] = [];
  const objects = scoreObjects(sample);
  if (objects === null) findings.push(finding("SCHEMA", member, null, "scores: not an object"));
  for (const [name, score] of Object.entries(objects ?? {})) {
    const path = `scores.${name}.value`;
    if (!isPlainObject(score) || !Object.hasOwn(score, "value")) {
      findings.push(finding("SCHEMA", member, null, `scores.${name}: a score must be an object with a value`));
      continue;
    }
    const value = score["value"];
    if (!isValue(value))
      findings.push(
        finding(
          "SCHEMA",
          member,
          null,
          `${path}: ${showValue(value)} is outside Inspect's Value (a scalar, a list of scalars, or a map of scalars)`,
        ),
      );
    else if (infiniteIn(value)) findings.push(finding("NOT_FINITE", member, null, `${path}: ${showValue(value)}`));
    else setOwn(scores, name, value); // a scorer may be named __proto__: an own member, never the prototype
    const why = graderFailure(score);
    if (why !== null) failed.push([name, why]);
    if (typeof score["reason"] === "string" && MODEL_REASONS.has(score["reason"]))
      modelFailed.push([name, score["reason"]]);
    const history = score["history"];
    if (Array.isArray(history) && history.length > 0) edits.push(`${name}: ${editNote(history[history.length - 1])}`);
  }
  const error = isPlainObject(sample["error"])
    ? String(sample["error"]["message"] ?? "")
    : typeof sample["error"] === "string"
      ? sample["error"]
      : null;
  const limit =
    isPlainObject(sample["limit"]) && typeof sample["limit"]["type"] === "string" ? sample["limit"]["type"] : null;
  const retries = Array.isArray(sample["error_retries"]) ? sample["error_retries"].length : 0;
  const events = eventsOf(sample);
  for (const e of events)
    if (e["event"] === "score_edit" && typeof e["score_name"] === "string")
      edits.push(`${e["score_name"]}: ${editNote(e["edit"])}`);
  checkScoreEvents(events, objects ?? {}, scores, edits, member, findings);
  const started = instant(sample["started_at"]);
  const completed = instant(sample["completed_at"]);
  if (started !== null && completed !== null && started > completed)
    findings.push(
      finding(
        "TIMING",
        member,
        null,
        `started_at ${String(sample["started_at"])} is after completed_at ${String(sample["completed_at"])}`,
      ),
    );
  if (limit !== null) flags.push("SAMPLE_LIMIT");
  if (retries > 0) flags.push("RETRIED");
  if (edits.length > 0) flags.push("SCORE_EDITED");
  return {
    member,
    id,
    epoch,
    error: error === null ? null : errorKind(error),
    errorMessage: error === null ? null : firstLine(error),
    limit,
    retries,
    scores,
    graderFailed: failed.length > 0 ? failed : NONE,
    modelFailed: modelFailed.length > 0 ? modelFailed : NONE,
    noChoices: !Array.isArray(sample["choices"]) || sample["choices"].length === 0,
    sandbox: deadSandbox(sample, events),
    invalidated: sample["invalidation"] !== undefined && sample["invalidation"] !== null,
    edits: edits.length > 0 ? edits : NONE,
    findings: findings.length > 0 ? findings : NONE,
    flags: flags.length > 0 ? flags : NONE,
    ...keptMetadata(sample["metadata"]),
    usage: inspectUsage(sample["model_usage"]),
  };
}

/** `Score.reason` values that say the model gave no answer (Inspect PR #4629): a missing verdict with one of these is the model's failure. */
const MODEL_REASONS = new Set(["refusal", "no_response"]);

/**
 * What kind of error ended a sample. A refusal (`fail_on_refusal`, PR #5327) is ModelRefusalError,
 * whose message is `Model refusal (<model>…): <text>` (or its repr, when Inspect writes one);
 * choice() applied to a sample without options raises `ValueError("The choice scorer requires
 * samples with choices")` (PR #5310).
 */
function errorKind(message: string): NonNullable<SampleRecord["error"]> {
  if (isCancellation(message)) return "cancelled";
  if (/^(ModelRefusalError\(['"])?Model refusal \(/.test(message)) return "refusal";
  if (/^(ValueError\(['"])?The choice scorer requires samples with choices/.test(message)) return "scorer";
  return "error";
}

/**
 * Docker's one line when `compose exec` finds the service's container stopped: the wording Inspect
 * itself matches (util/_sandbox/docker/failure.py, from 0.3.260), the whole of a tool's result.
 */
const DEAD_CONTAINER = /^service "[^"\n]*" is not running$/;

/** The text of a tool result: a string, or content parts of which one is text. */
function toolText(v: unknown): string | null {
  if (typeof v === "string") return v.trim();
  if (!Array.isArray(v) || v.length !== 1 || !isPlainObject(v[0]) || typeof v[0]["text"] !== "string") return null;
  return v[0]["text"].trim();
}

/**
 * The sandbox died under the sample (#4709): a tool error of type `sandbox_unavailable` in a tool
 * message or tool event, else (older logs: the log's version decides whether this counts) docker's
 * dead-container line as the whole of a tool's result, with no live result of that tool after it:
 * a dead container answers every later exec the same, so a tool that answered afterwards shows the
 * line was output (a model can print it), not the sandbox's death.
 */
export function deadSandbox(
  sample: Record<string, unknown>,
  events: readonly Record<string, unknown>[],
): SampleRecord["sandbox"] {
  const messages = (Array.isArray(sample["messages"]) ? sample["messages"] : []).filter(
    (m): m is Record<string, unknown> => isPlainObject(m) && m["role"] === "tool",
  );
  const tools = events.filter((e) => e["event"] === "tool");
  for (const m of [...messages, ...tools]) {
    const error = m["error"];
    if (isPlainObject(error) && error["type"] === "sandbox_unavailable")
      return { typed: true, evidence: firstLine(String(error["message"] ?? "sandbox_unavailable")) };
  }
  const text = deadLine(messages, "content") ?? deadLine(tools, "result");
  return text === null ? null : { typed: false, evidence: text };
}

/** Docker's dead-container line that a tool's calls end on (the first of that last run), the first tool's in order; else null. */
function deadLine(calls: readonly Record<string, unknown>[], result: "content" | "result"): string | null {
  const byTool = new Map<unknown, string | null>();
  for (const c of calls) {
    if (c["error"] !== undefined && c["error"] !== null) continue; // an error says nothing of the container's life
    const t = toolText(c[result]);
    const dead = t !== null && DEAD_CONTAINER.test(t);
    const fn = c["function"];
    if (!dead) byTool.set(fn, null);
    else if ((byTool.get(fn) ?? null) === null) byTool.set(fn, t);
  }
  for (const t of byTool.values()) if (t !== null) return t;
  return null;
}

/**
 * Of a tool event, what deadSandbox reads (a chunked sample's events are kept this small): every
 * tool event, since a live result after docker's line is what shows the line was only output; its
 * result only when it is that line.
 */
export function keptToolEvent(e: Record<string, unknown>): Record<string, unknown> | null {
  if (e["event"] !== "tool") return null;
  const error = isPlainObject(e["error"]) ? { type: e["error"]["type"], message: e["error"]["message"] } : e["error"];
  const t = toolText(e["result"]);
  return { event: "tool", function: e["function"], error, result: t !== null && DEAD_CONTAINER.test(t) ? t : "" };
}

/** `Score.reason` values that name the measuring instrument (Inspect PR #4629); the model's own (`refusal`, `no_response`, `invalid_response_format`) are not these. */
const INSTRUMENT_REASONS = new Set(["grader_failed", "scoring_failed"]);

/**
 * Why a score is the grader's failure, or null: its `reason` when written (recent Inspect);
 * without one, the marks older logs carry in `metadata` — model_graded_*'s unparsable verdict
 * (`unscored_reason`, PR #4048) and math()'s target it could not parse (`math_scorer_status`).
 */
function graderFailure(score: Record<string, unknown>): string | null {
  const reason = score["reason"];
  if (typeof reason === "string") return INSTRUMENT_REASONS.has(reason) ? reason : null;
  const md = score["metadata"];
  if (!isPlainObject(md)) return null;
  if (md["unscored_reason"] === "grade_parse_failure") return "grade_parse_failure";
  const math = md["math_scorer_status"];
  return math === "target_timeout" || math === "target_parse_error" ? math : null;
}

/** Who edited a score, when and why, as far as the edit says (ProvenanceData). */
function editNote(edit: unknown): string {
  const p =
    isPlainObject(edit) && isPlainObject(edit["provenance"]) ? edit["provenance"] : isPlainObject(edit) ? edit : {};
  const parts = ["author", "timestamp", "reason"]
    .filter((k) => typeof p[k] === "string")
    .map((k) => `${k} ${String(p[k])}`);
  return parts.length === 0 ? "edited (no provenance)" : parts.join(", ").slice(0, 200);
}

/** The transcript's events: `events`, else `transcript.events` (older logs). */
function eventsOf(sample: Record<string, unknown>): Record<string, unknown>[] {
  const direct = sample["events"];
  const old = isPlainObject(sample["transcript"]) ? sample["transcript"]["events"] : undefined;
  const list = Array.isArray(direct) ? direct : Array.isArray(old) ? old : [];
  return list.filter(isPlainObject);
}

/**
 * SCORE_EVENT_MISMATCH: each score must equal its scorer's last final score event (matched by the
 * event's `scorer`, or by position when the record has one scorer and its events name none),
 * unless an edit explains the difference. Issue 35: a score with no such event in a transcript
 * that holds events is a finding too (Inspect logs one for every score it gives), so removing the
 * event no longer switches the check off; a record without any event is not compared.
 */
function checkScoreEvents(
  events: Record<string, unknown>[],
  objects: Record<string, unknown>,
  scores: Record<string, unknown>,
  edits: string[],
  member: string,
  out: Finding[],
): void {
  if (events.length === 0) return;
  const finals = events.filter(
    (e) => e["event"] === "score" && e["intermediate"] !== true && isPlainObject(e["score"]),
  );
  const named = finals.some((e) => typeof e["scorer"] === "string");
  const names = Object.keys(objects);
  // Unnamed events of several scorers cannot be told apart: only their total absence is read.
  const attributable = named || names.length === 1 || finals.length === 0;
  for (const name of names) {
    if (!Object.hasOwn(scores, name)) continue;
    const mine = named ? finals.filter((e) => e["scorer"] === name) : names.length === 1 ? finals : [];
    const last = mine[mine.length - 1];
    if (last === undefined) {
      if (attributable && !isNaNValue(scores[name]) && !edits.some((e) => e.startsWith(`${name}: `)))
        out.push(
          finding(
            "SCORE_EVENT_MISMATCH",
            member,
            null,
            `scores.${name}.value is ${showValue(scores[name])} but the transcript's ${events.length} events hold no final score event of it, and no edit explains it`,
          ),
        );
      continue;
    }
    const eventValue = (last["score"] as Record<string, unknown>)["value"];
    if (sameValue(eventValue, scores[name])) continue;
    if (edits.some((e) => e.startsWith(`${name}: `))) continue;
    out.push(
      finding(
        "SCORE_EVENT_MISMATCH",
        member,
        null,
        `scores.${name}.value is ${showValue(scores[name])} but its last final score event says ${showValue(eventValue)}, and no edit explains it`,
      ),
    );
  }
}
