// What an Inspect log is made of once read (contract §12): its parts — the header and start record,
// the small per-sample records the workers made, the summaries and reductions — which finish.ts
// turns into the log's entry; the sample states, a record's state, the plan, and the findings'
// bounds. Pure: the same whether one worker read the whole log or many read its parts.

import { finding, type Code, type Finding } from "../../core/codes.js";
import { isPlainObject } from "../../core/json/decode.js";
import type { LogMetric, Plan, SampleClusters } from "./metrics.js";
import { idText, type SampleRecord } from "./sample.js";
import { recordKey, type ReductionSet, type SummaryRecord } from "./summary.js";
import { isNaNValue } from "./value.js";
import { choiceRaised, outcomeOf, sandboxDied } from "./attribution.js";

/** Sample states (contract §12), in the order they are shown. */
export const SAMPLE_STATES = [
  "scored",
  "scored-with-error",
  "refusal",
  "error",
  "cancelled",
  "sandbox-unavailable",
  "unscored",
  "grader-failed",
  "invalidated",
  "missing",
  "early-stopped",
] as const;
/** States counted only where a log has one: logs without them read as they did. */
export const RARE_STATES = ["refusal", "sandbox-unavailable", "grader-failed"] as const;
export type SampleState = (typeof SAMPLE_STATES)[number];

/** Log versions assay reads (1 migrated as Inspect does; 3 the short-lived opt-in of 0.3.195–0.3.199). */
export const LOG_VERSIONS = [1, 2, 3];

/** What a log is made of, however it was read. */
export interface LogParts {
  format: "eval" | "json";
  digest: string;
  /** The log without its samples (header.json, or a .json log's other members); null when absent. */
  header: Record<string, unknown> | null;
  /** `_journal/start.json` (a .eval only). */
  start: Record<string, unknown> | null;
  /** The file had no end of its central directory (or a .json log was cut short). */
  truncated: boolean;
  /** Findings of the container and the members (EVAL_CORRUPT, MEMBER_DUPLICATE, JSON rules, records without identity). */
  findings: Finding[];
  /** Sample records in the order the log holds them (later wins for one (id, epoch)). */
  samples: SampleRecord[];
  summaries: SummaryRecord[] | null;
  /** Journal summaries, applied in numeric order of k (later wins); read only when summaries.json is not (null then). */
  journal: SummaryRecord[] | null;
  reductions: ReductionSet[] | null;
  /** Where the reductions came from (for findings). */
  reductionsFile: string | null;
  /** The tool could not read the log (EVAL_METHOD, LOG_VERSION, a member too large): validity error. */
  toolError: { code: Code; message: string } | null;
}

/** The per-log record the batch rules read (results: the entry's `inspect`). */
export interface InspectLog {
  format: "eval" | "json";
  log_version: number | null;
  inspect_version: string | null;
  eval_id: string | null;
  run_id: string | null;
  task_id: string | null;
  model: string | null;
  created: string | null;
  completed_at: string | null;
  plan: { records: number; ids: number; epochs: number; source: "sample_ids" | "samples present" };
  total_samples: number | null;
  sample_ids: string[] | null;
  sample_clusters: SampleClusters | null;
  metrics: Record<string, LogMetric>;
}

export const WARNINGS = new Set<Code>(["EVAL_TRUNCATED", "MEMBER_DUPLICATE", "PLAN_MISMATCH", "VALUE_UNCONVERTIBLE"]);
/** Findings kept per code and log; past it one finding says how many more (a log's entry stays small). */
export const MAX_PER_CODE = 20;
/** Members named in one flag's evidence. */
const MAX_NAMED = 10;

export const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A value holds a score: not the NaN sentinel, nor a list or map of nothing but NaN. */
export function holdsScore(v: unknown): boolean {
  if (isNaNValue(v)) return false;
  if (Array.isArray(v)) return v.some((x) => !isNaNValue(x));
  if (isPlainObject(v)) return Object.values(v).some((x) => x !== null && !isNaNValue(x));
  return true;
}

/**
 * A record's one state (attribution.ts says whose): a dead sandbox before any score, a score
 * before the error beside it, the model's refusal before the grader's failure.
 */
export function stateOf(
  r: SampleRecord,
  version: readonly number[] | null,
): Exclude<SampleState, "missing" | "early-stopped"> {
  if (r.invalidated) return "invalidated";
  if (sandboxDied(r, version)) return "sandbox-unavailable";
  if (Object.values(r.scores).some(holdsScore)) return r.error === null ? "scored" : "scored-with-error";
  // Whose the silence is, read only for a record without a score (most hold one).
  const outcomes = Object.keys(r.scores).map((k) => outcomeOf(r, k, r.scores[k], version));
  if (r.error === "refusal" || outcomes.includes("refused")) return "refusal";
  if (outcomes.includes("grader") || (r.error === null && r.graderFailed.length > 0)) return "grader-failed";
  if (choiceRaised(r, version)) return "grader-failed";
  return r.error === "scorer" ? "error" : (r.error ?? "unscored");
}

/** Findings cut to MAX_PER_CODE per code, the rest counted in one more. */
export function capped(fs: readonly Finding[]): Finding[] {
  const seen = new Map<Code, number>();
  const out: Finding[] = [];
  for (const f of fs) {
    const n = (seen.get(f.code) ?? 0) + 1;
    seen.set(f.code, n);
    if (n <= MAX_PER_CODE) out.push(f);
  }
  for (const [code, n] of seen)
    if (n > MAX_PER_CODE)
      out.push(
        finding(
          code,
          null,
          null,
          `… and ${n - MAX_PER_CODE} more ${code} findings in this log (the first ${MAX_PER_CODE} are listed)`,
        ),
      );
  return out;
}

/** One flag per code, naming the first records. */
export function flagOf(code: Code, items: readonly string[], what: string): { code: Code; evidence: string } {
  const named = items.slice(0, MAX_NAMED).join("; ");
  return {
    code,
    evidence: `${items.length} ${what}: ${named}${items.length > MAX_NAMED ? `; … ${items.length - MAX_NAMED} more` : ""}`,
  };
}

/** The plan: `eval.dataset.sample_ids` × epochs, else the samples present (logs before sample ids were recorded). */
export function planOf(
  ev: Record<string, unknown>,
  results: Record<string, unknown> | null,
  records: readonly SampleRecord[],
  file: string,
  out: Finding[],
): Plan {
  const config = isPlainObject(ev["config"]) ? ev["config"] : {};
  const e = config["epochs"];
  let epochs = 1;
  if (typeof e === "number" && Number.isSafeInteger(e) && e >= 1) epochs = e;
  else if (e !== undefined && e !== null)
    out.push(finding("SCHEMA", file, null, `eval.config.epochs: ${JSON.stringify(e)} is not an integer ≥ 1`));
  const dataset = isPlainObject(ev["dataset"]) ? ev["dataset"] : {};
  const raw = dataset["sample_ids"];
  const stops: { id: string; epoch: number }[] = [];
  const es = isPlainObject(results?.["early_stopping"])
    ? (results!["early_stopping"] as Record<string, unknown>)["early_stops"]
    : undefined;
  if (Array.isArray(es))
    for (const s of es) {
      const id = isPlainObject(s) ? idText(s["id"]) : null;
      if (id !== null && isPlainObject(s) && typeof s["epoch"] === "number") stops.push({ id, epoch: s["epoch"] });
    }
  if (Array.isArray(raw)) {
    const ids: string[] = [];
    const seen = new Set<string>();
    raw.forEach((x, i) => {
      const id = idText(x);
      if (id === null)
        out.push(finding("SCHEMA", file, null, `eval.dataset.sample_ids[${i}]: not an integer or a string`));
      else if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    });
    const counted = countable(ids.length, epochs, file, out);
    return { ids, epochs: counted, source: "sample_ids", earlyStopped: plannedStops(stops, seen, counted) };
  }
  const ids = [...new Set(records.map((r) => r.id))];
  let present = 1; // a loop, not Math.max(...): a million records spread as arguments overflow the stack
  for (const r of records) if (r.epoch > present) present = r.epoch;
  const counted = countable(ids.length, Math.max(epochs, present), file, out);
  return { ids, epochs: counted, source: "samples present", earlyStopped: plannedStops(stops, new Set(ids), counted) };
}

/**
 * The most records a plan may count (2^40): counts are doubles, and a results document must say
 * them exactly (its readers refuse a count past 2^53, and an experiment adds its logs' counts).
 */
export const MAX_PLANNED_RECORDS = 2 ** 40;

/** The epochs a plan counts: the log's, unless ids × epochs passes MAX_PLANNED_RECORDS (SCHEMA, and one epoch). */
function countable(ids: number, epochs: number, file: string, out: Finding[]): number {
  if (ids * epochs <= MAX_PLANNED_RECORDS) return epochs;
  out.push(
    finding(
      "SCHEMA",
      file,
      null,
      `the plan: ${ids} samples × ${epochs} epochs = ${ids * epochs} records, more than assay counts (2^40): counted as 1 epoch`,
    ),
  );
  return 1;
}

/** The early-stopped records that are planned records (only those count: an early stop elsewhere names nothing planned). */
function plannedStops(
  stops: readonly { id: string; epoch: number }[],
  ids: ReadonlySet<string>,
  epochs: number,
): Set<string> {
  const out = new Set<string>();
  for (const s of stops)
    if (ids.has(s.id) && Number.isInteger(s.epoch) && s.epoch >= 1 && s.epoch <= epochs)
      out.add(recordKey(s.id, s.epoch));
  return out;
}
