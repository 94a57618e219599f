// What the log says of its samples apart from the samples themselves: the sample summaries
// (`summaries.json`, `_journal/summaries/<k>.json`) and the reductions, read into small records,
// and compared with the sample records (contract §12: SUMMARY_MISMATCH). Pure.

import { finding, type Finding } from "../../core/codes.js";
import { isPlainObject } from "../../core/json/decode.js";
import { setOwn } from "../../core/schema.js";
import { idText, type SampleRecord } from "./sample.js";
import { sameValue, showValue } from "./value.js";

export interface SummaryRecord {
  id: string;
  epoch: number;
  /** Scorer → value; null when the summary carries no scores. */
  scores: Record<string, unknown> | null;
  error: boolean;
  limit: string | null;
  /** null when the summary does not say (older writers). */
  retries: number | null;
}

/** One EvalSampleSummary, or null (with a finding) when it names no sample. */
export function summaryRecord(v: unknown, where: string, out: Finding[]): SummaryRecord | null {
  const id = isPlainObject(v) ? idText(v["id"]) : null;
  const epoch = isPlainObject(v) ? v["epoch"] : undefined;
  if (!isPlainObject(v) || id === null || typeof epoch !== "number" || !Number.isSafeInteger(epoch) || epoch < 1) {
    out.push(
      finding(
        "SCHEMA",
        where,
        null,
        "a sample summary must be an object with an integer or string id and an epoch ≥ 1",
      ),
    );
    return null;
  }
  let scores: Record<string, unknown> | null = null;
  if (isPlainObject(v["scores"])) {
    scores = {};
    for (const [k, s] of Object.entries(v["scores"]))
      if (isPlainObject(s) && Object.hasOwn(s, "value")) setOwn(scores, k, s["value"]);
  }
  const limit =
    typeof v["limit"] === "string"
      ? v["limit"]
      : isPlainObject(v["limit"]) && typeof v["limit"]["type"] === "string"
        ? v["limit"]["type"]
        : null;
  const retries = typeof v["retries"] === "number" && Number.isSafeInteger(v["retries"]) ? v["retries"] : null;
  return {
    id,
    epoch,
    scores,
    error: v["error"] !== undefined && v["error"] !== null && v["error"] !== "",
    limit,
    retries,
  };
}

export const recordKey = (id: string, epoch: number): string => `${epoch}\u0000${id}`;
const shown = (id: string, epoch: number) => `(${JSON.stringify(id)}, epoch ${epoch})`;

/**
 * SUMMARY_MISMATCH findings (on `file`): every named sample must have a record that agrees on
 * scores, error presence, limit type and retry count; with `complete` (summaries.json), every
 * record must be named too.
 */
export function compareSummaries(
  summaries: readonly SummaryRecord[],
  records: ReadonlyMap<string, SampleRecord>,
  file: string,
  complete: boolean,
): Finding[] {
  const out: Finding[] = [];
  const named = new Set<string>();
  for (const s of summaries) {
    const key = recordKey(s.id, s.epoch);
    named.add(key);
    const r = records.get(key);
    if (r === undefined) {
      out.push(finding("SUMMARY_MISMATCH", file, null, `names sample ${shown(s.id, s.epoch)}, which has no record`));
      continue;
    }
    const why: string[] = [];
    if (s.scores !== null) {
      const names = new Set([...Object.keys(s.scores), ...Object.keys(r.scores)]);
      for (const n of names)
        if (!Object.hasOwn(s.scores, n) || !Object.hasOwn(r.scores, n) || !sameValue(s.scores[n], r.scores[n]))
          why.push(
            `score ${n}: ${Object.hasOwn(s.scores, n) ? showValue(s.scores[n]) : "absent"} here, ${Object.hasOwn(r.scores, n) ? showValue(r.scores[n]) : "absent"} in ${r.member}`,
          );
    }
    if (s.error !== (r.error !== null))
      why.push(
        `error ${s.error ? "present" : "absent"} here, ${r.error !== null ? "present" : "absent"} in ${r.member}`,
      );
    if (s.limit !== r.limit) why.push(`limit ${s.limit ?? "none"} here, ${r.limit ?? "none"} in ${r.member}`);
    if (s.retries !== null && s.retries !== r.retries)
      why.push(`retries ${s.retries} here, ${r.retries} in ${r.member}`);
    if (why.length > 0)
      out.push(finding("SUMMARY_MISMATCH", file, null, `sample ${shown(s.id, s.epoch)}: ${why.join("; ")}`));
  }
  if (complete)
    for (const [key, r] of records)
      if (!named.has(key))
        out.push(
          finding("SUMMARY_MISMATCH", file, null, `has no summary of sample ${shown(r.id, r.epoch)} (${r.member})`),
        );
  return out;
}

/** One reduction set (a scorer and reducer): the reduced value per sample id. */
export interface ReductionSet {
  scorer: string;
  reducer: string | null;
  values: Map<string, unknown>;
}

/** `reductions.json` (or a .json log's `reductions` / `results.sample_reductions`) as reduction sets. */
export function reductionSets(v: unknown, where: string, out: Finding[]): ReductionSet[] {
  if (!Array.isArray(v)) {
    out.push(finding("SCHEMA", where, null, "the reductions must be a list"));
    return [];
  }
  const sets: ReductionSet[] = [];
  v.forEach((r, i) => {
    if (!isPlainObject(r) || typeof r["scorer"] !== "string" || !Array.isArray(r["samples"])) {
      out.push(finding("SCHEMA", where, null, `[${i}]: a reduction must name its scorer and list its samples`));
      return;
    }
    const values = new Map<string, unknown>();
    for (const s of r["samples"]) {
      const id = isPlainObject(s) ? idText(s["sample_id"]) : null;
      if (id === null || !isPlainObject(s) || !Object.hasOwn(s, "value")) {
        out.push(finding("SCHEMA", where, null, `[${i}]: a reduced sample must have a sample_id and a value`));
        continue;
      }
      values.set(id, s["value"]);
    }
    sets.push({ scorer: r["scorer"], reducer: typeof r["reducer"] === "string" ? r["reducer"] : null, values });
  });
  return sets;
}
