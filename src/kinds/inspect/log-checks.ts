// What an Inspect log's entry checks beyond its records' states (finish.ts): the records an
// unfinished log's summaries confirm, the members a finished log always holds, whose failures its
// scores record, what it spent, whether it was rescored, and its review flags.

import { finding, type Code, type Finding } from "../../core/codes.js";
import { isPlainObject } from "../../core/json/decode.js";
import { addUsage, noUsage, type Usage } from "../../core/usage.js";
import { choiceRaised, outcomeOf, sandboxDied } from "./attribution.js";
import { flagOf, holdsScore, type LogParts } from "./log.js";
import type { LogMetric } from "./metrics.js";
import type { SampleRecord } from "./sample.js";
import { recordKey } from "./summary.js";
import { showValue } from "./value.js";
import { atLeast } from "./version.js";

/**
 * Issue 35: the records of an unfinished log that a summary confirms (summaries.json, else the
 * journal's). Its writer wrote each summary after the records it names, so a record none names
 * was never flushed, or its summary was cut or removed: nothing checks it, and it earns nothing.
 * A .json log has no summaries, and a .eval that reached its finish but lost its header lost the
 * claims that check its summaries: in neither does a record earn credit.
 */
export function confirmed(
  parts: LogParts,
  byKey: ReadonlyMap<string, SampleRecord>,
  headerLost: boolean,
): { records: SampleRecord[]; byKey: Map<string, SampleRecord> } {
  const named = new Set(
    headerLost ? [] : (parts.summaries ?? parts.journal ?? []).map((s) => recordKey(s.id, s.epoch)),
  );
  const kept = new Map([...byKey].filter(([k]) => named.has(k)));
  return { records: parts.samples.filter((r) => named.has(recordKey(r.id, r.epoch))), byKey: kept };
}

/** A .eval holding what Inspect writes only at the finish, just before header.json (summaries.json, reductions.json), without header.json. */
export const finishedUnread = (parts: LogParts): boolean =>
  parts.format === "eval" && parts.header === null && (parts.summaries !== null || parts.reductions !== null);

/** Reductions are written with every scored run from this release on (inspect-notes §1.8). */
const REDUCTIONS_SINCE = "0.3.23";

/**
 * Issue 35: members a finished .eval always holds, absent. Each is the second copy a check reads,
 * so its absence is the check's finding, never a skipped check: a removed header.json beside the
 * members written just before it (EVAL_CORRUPT; cut short, the log is only unfinished), no
 * `_journal/start.json` (written first, always), no summary of its samples at all, and no
 * reductions of a scored run.
 */
export function absences(
  parts: LogParts,
  results: Record<string, unknown> | null,
  version: readonly number[] | null,
  samples: Record<string, number>,
): Finding[] {
  const out: Finding[] = [];
  if (finishedUnread(parts) && !parts.truncated)
    out.push(
      finding(
        "EVAL_CORRUPT",
        "header.json",
        null,
        "absent, while summaries.json or reductions.json, which Inspect writes only at the finish just before it, are present: the header was removed",
      ),
    );
  if (parts.format === "eval" && parts.header !== null) {
    if (parts.start === null && !parts.findings.some((f) => f.file === "_journal/start.json"))
      out.push(
        finding(
          "START_HEADER_MISMATCH",
          "_journal/start.json",
          null,
          "absent: Inspect writes it first in every run, so header.json's identity has nothing to be checked against",
        ),
      );
    if (parts.samples.length > 0 && parts.summaries === null && parts.journal === null)
      out.push(
        finding(
          "SUMMARY_MISMATCH",
          "summaries.json",
          null,
          "absent, and no journal summary either: a finished log holds both, and nothing checks its samples",
        ),
      );
  }
  // Every real .eval of a scored run holds reductions.json (inspect-notes §1.9); for .json logs
  // that is not established, and their claims are checked against samples the same file holds.
  const scored = (samples["scored"] ?? 0) + (samples["scored-with-error"] ?? 0);
  if (
    parts.format === "eval" &&
    parts.header !== null &&
    parts.reductions === null &&
    scored > 0 &&
    Array.isArray(results?.["scores"]) &&
    (results!["scores"] as unknown[]).length > 0 &&
    atLeast(version, REDUCTIONS_SINCE)
  )
    out.push(
      finding(
        "REDUCTION_MISMATCH",
        parts.reductionsFile ?? "reductions",
        null,
        `absent, while results holds scores over ${scored} scored sample record${scored === 1 ? "" : "s"}: Inspect writes the reductions of every scored run (since ${REDUCTIONS_SINCE})`,
      ),
    );
  return out;
}

/**
 * Issue 35: an unfinished log's value is its planned denominator's (--errors zero) under either
 * setting: Inspect computed no figure for it, and a record its writer never flushed, or that a
 * cut took, cannot be told from a failure removed on purpose.
 */
export function atPlannedDenominator(metrics: Record<string, LogMetric>): void {
  for (const m of Object.values(metrics)) {
    m.exclude = m.zero;
    if (m.values !== null) m.values = { exclude: m.values.zero, zero: m.values.zero };
  }
}

/**
 * §12's "no sample evidence", for every log whose claims have no sample evidence behind them: results
 * holds metrics and the log holds no sample record, or fewer than `results.completed_samples` says
 * Inspect completed and none of them scored (nothing held can decide a claim). Its claims are
 * unverified, and assay has no value of its own. A held record that scored keeps the claims checked
 * over what is held, whatever the count says: before 0.3.252 that count is no checked figure, and
 * a count the log writes never switches off a mismatch its records decide. Null when not so.
 */
export function lackedSamples(results: Record<string, unknown> | null, held: readonly SampleRecord[]): string | null {
  if (results === null || !Array.isArray(results["scores"]) || (results["scores"] as unknown[]).length === 0)
    return null;
  if (held.length === 0)
    return "results holds metrics but the log holds no sample record: they are listed as unverified";
  const completed = results["completed_samples"];
  if (
    typeof completed !== "number" ||
    held.length >= completed ||
    held.some((r) => Object.values(r.scores).some(holdsScore))
  )
    return null;
  return `results holds metrics over ${completed} completed samples (results.completed_samples) but the log holds ${held.length} sample record${held.length === 1 ? "" : "s"}, none scored: they are listed as unverified`;
}

/** The records' attribution flags: grader failures (no verdict), instrument reasons beside a verdict, dead sandboxes. */
export function attributionFlags(
  records: Iterable<SampleRecord>,
  version: readonly number[] | null,
): { failures: string[]; contradicted: string[]; sandbox: string[] } {
  const out = { failures: [] as string[], contradicted: [] as string[], sandbox: [] as string[] };
  for (const r of records) {
    if (r.invalidated) continue;
    if (sandboxDied(r, version)) {
      out.sandbox.push(`${r.member} (${r.sandbox!.evidence})`);
      continue;
    }
    for (const [k, why] of r.graderFailed) {
      // A dict-valued score is read a key at a time: some keys may lack a verdict, others carry one.
      const v = r.scores[k];
      const outcomes = (isPlainObject(v) ? Object.values(v) : [v]).map((x) => outcomeOf(r, k, x, version));
      if (outcomes.includes("grader")) out.failures.push(`${r.member} (${k}: ${why})`);
      if (outcomes.includes("verdict")) out.contradicted.push(`${r.member} (${k}: ${why}, value ${showValue(v)})`);
    }
    if (choiceRaised(r, version)) out.failures.push(`${r.member} (${r.errorMessage})`);
  }
  return out;
}

/** §13.5: a log whose `stats.model_usage` records nothing (cut short, older, or empty) spent what its sample records say, summed. */
export function samplesUsage(records: Iterable<SampleRecord>): Usage {
  const sum = noUsage();
  for (const r of records) if (r.usage !== null) addUsage(sum, r.usage);
  return sum;
}

/** Version 1's `results.scorer` and `results.metrics` as one `results.scores` entry, as Inspect migrates them. */
export function migrated(results: Record<string, unknown> | null): Record<string, unknown> | null {
  if (results === null || results["scores"] !== undefined || !isPlainObject(results["scorer"])) return results;
  const scorer = results["scorer"];
  const name = typeof scorer["name"] === "string" ? scorer["name"] : "score";
  return {
    ...results,
    scores: [{ name, scorer: name, params: scorer["params"] ?? {}, metrics: results["metrics"] ?? {} }],
  };
}

/** RESCORED (inspect-notes §3.4): two results entries for one scorer and reducer, `name-1` keys, or more scorers than at the start. */
export function rescoredBy(
  header: Record<string, unknown> | null,
  start: Record<string, unknown> | null,
  results: Record<string, unknown> | null,
): string | null {
  const scores = Array.isArray(results?.["scores"]) ? (results!["scores"] as unknown[]).filter(isPlainObject) : [];
  const seen = new Set<string>();
  const names = new Set(scores.map((s) => String(s["name"])));
  for (const s of scores) {
    const k = `${String(s["name"])}\u0000${String(s["reducer"] ?? "")}`;
    if (seen.has(k)) return `results.scores holds ${String(s["name"])} twice for one reducer`;
    seen.add(k);
    const m = /^(.+)-\d+$/.exec(String(s["name"]));
    if (m !== null && names.has(m[1]!))
      return `results.scores holds ${String(s["name"])} beside ${m[1]} (inspect score --action append)`;
  }
  const count = (o: Record<string, unknown> | null) =>
    isPlainObject(o?.["eval"]) && Array.isArray((o!["eval"] as Record<string, unknown>)["scorers"])
      ? ((o!["eval"] as Record<string, unknown>)["scorers"] as unknown[]).length
      : null;
  const h = count(header);
  const s = count(start);
  if (h !== null && s !== null && h > s) return `header.json declares ${h} scorers, _journal/start.json ${s}`;
  return null;
}

type Flag = { code: Code; evidence: string };

const RECORD_FLAGS: Partial<Record<Code, { item: (r: SampleRecord) => string; what: string }>> = {
  SAMPLE_LIMIT: {
    item: (r) => `${r.member} (${r.limit})`,
    what: "samples ended by a limit (scored as Inspect scored them)",
  },
  RETRIED: { item: (r) => `${r.member} (${r.retries} earlier)`, what: "samples retried after an error" },
};
const EDITED = {
  item: (r: SampleRecord) => `${r.member} (${r.edits.join(", ")})`,
  what: "samples with an edited score",
};

/** The log's review flags: its records' (limits, retries, edits), whose failures they were, rescoring, and records outside the plan. */
export function reviewFlags(
  parts: LogParts,
  results: Record<string, unknown> | null,
  byKey: ReadonlyMap<string, SampleRecord>,
  version: readonly number[] | null,
  lacking: string | null,
  unplanned: readonly string[],
): Flag[] {
  const flags: Flag[] = [];
  const byFlag = new Map<Code, string[]>();
  for (const r of byKey.values())
    for (const c of r.flags) {
      const list = byFlag.get(c) ?? [];
      if (list.length === 0) byFlag.set(c, list);
      list.push((RECORD_FLAGS[c] ?? EDITED).item(r));
    }
  for (const [c, items] of byFlag) flags.push(flagOf(c, items, (RECORD_FLAGS[c] ?? EDITED).what));
  const a = attributionFlags(byKey.values(), version);
  const attributed: [Code, readonly string[], string][] = [
    [
      "GRADER_FAILED",
      a.failures,
      "scores the grader could not give (instrument errors: outside assay's figures, not the model's)",
    ],
    [
      "GRADER_REASON_WITH_VALUE",
      a.contradicted,
      "scores whose reason says the grader failed beside a definite value (the value counts: a reason never removes a verdict)",
    ],
    [
      "SANDBOX_UNAVAILABLE",
      a.sandbox,
      "samples whose sandbox died under them (instrument errors: left out of assay's value, 0 under --errors zero)",
    ],
  ];
  for (const [code, items, what] of attributed) if (items.length > 0) flags.push(flagOf(code, items, what));
  const rescored = rescoredBy(parts.header, parts.start, results);
  if (rescored !== null) flags.push({ code: "RESCORED", evidence: rescored });
  if (lacking !== null) flags.push({ code: "NO_SAMPLE_EVIDENCE", evidence: lacking });
  if (unplanned.length > 0)
    flags.push(
      flagOf(
        "SAMPLE_UNPLANNED",
        unplanned,
        "records outside eval.dataset.sample_ids × epochs (in the counts and the claim's re-derivation, never in assay's value)",
      ),
    );
  return flags;
}
