// The last step of reading an Inspect log (contract §12): its parts — the header and start record,
// the small per-sample records the workers made, the summaries and reductions — become the log's
// entry: identity, plan, each sample's state, the hard checks, and each metric claimed and
// recomputed. Pure: the same whether one worker read the whole log or many read its parts.

import { finding, type Code, type Finding } from "../../core/codes.js";
import { isPlainObject } from "../../core/json/decode.js";
import { blankEntry, type ScoredBundle } from "../../core/results.js";
import { logMetrics, type LogMetric, type Plan, type SampleClusters } from "./metrics.js";
import { idText, type SampleRecord } from "./sample.js";
import { compareSummaries, recordKey, type ReductionSet, type SummaryRecord } from "./summary.js";
import { checkReductions } from "./reductions.js";
import { isNaNValue, sameValue, showValue } from "./value.js";
import { atLeast, parseVersion, SINCE } from "./version.js";
import { choiceRaised, outcomeOf, sandboxDied } from "./attribution.js";
import { addUsage, inspectUsage, noUsage, recordsAny, type Usage } from "../../core/usage.js";
import { inspectIdentity } from "./identity.js";

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
const RARE_STATES = ["refusal", "sandbox-unavailable", "grader-failed"] as const;
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

const WARNINGS = new Set<Code>(["EVAL_TRUNCATED", "MEMBER_DUPLICATE", "PLAN_MISMATCH", "VALUE_UNCONVERTIBLE"]);
/** Findings kept per code and log; past it one finding says how many more (a log's entry stays small). */
export const MAX_PER_CODE = 20;
/** Members named in one flag's evidence. */
const MAX_NAMED = 10;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A value holds a score: not the NaN sentinel, nor a list or map of nothing but NaN. */
function holdsScore(v: unknown): boolean {
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
function capped(fs: readonly Finding[]): Finding[] {
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
function flagOf(code: Code, items: readonly string[], what: string): { code: Code; evidence: string } {
  const named = items.slice(0, MAX_NAMED).join("; ");
  return {
    code,
    evidence: `${items.length} ${what}: ${named}${items.length > MAX_NAMED ? `; … ${items.length - MAX_NAMED} more` : ""}`,
  };
}

/** The plan: `eval.dataset.sample_ids` × epochs, else the samples present (logs before sample ids were recorded). */
function planOf(
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

/** The log's entry (without its path). */
export function finishLog(
  parts: LogParts,
): ScoredBundle & { inspect: InspectLog | null; samples: Record<string, number> | null } {
  const headerFile = parts.format === "eval" ? (parts.header !== null ? "header.json" : "_journal/start.json") : null;
  const log = parts.header ?? parts.start;
  const ev = isPlainObject(log?.["eval"]) ? (log!["eval"] as Record<string, unknown>) : null;
  const base = { profile: "inspect" as const, digest: parts.digest, task: str(ev?.["task"]) };
  const status =
    parts.header === null
      ? "started"
      : ((["success", "cancelled", "error", "started"] as const).find((s) => s === parts.header!["status"]) ?? null);
  const incomplete = parts.header === null || status === "started" || parts.truncated;
  // Issue 35: a .eval's header.json is written after every sample, summaries.json and
  // reductions.json, so one read intact (the walk lists intact members only) means the members its
  // checks need were read: only a cut with no header (or a cut .json log) switches the checks off.
  const cut = parts.truncated && !(parts.format === "eval" && parts.header !== null);
  const unfinished = parts.header === null || status === "started" || cut;
  const experiment = ev === null ? null : `${str(ev["task"]) ?? "(no task)"} (${str(ev["model"]) ?? "(no model)"})`;
  const versionField = log?.["version"];
  const logVersion = typeof versionField === "number" ? versionField : null;
  let toolError = parts.toolError;
  if (toolError === null && log !== null && !(logVersion !== null && LOG_VERSIONS.includes(logVersion)))
    toolError = {
      code: "LOG_VERSION",
      message: `log format version ${JSON.stringify(versionField ?? null)}: assay reads versions 1 to 3`,
    };
  if (toolError !== null)
    return {
      ...blankEntry({
        ...base,
        experiment,
        validity: "error",
        errors: [finding(toolError.code, headerFile, null, toolError.message)],
        status,
        state: incomplete ? "incomplete" : "complete",
      }),
      inspect: null,
      samples: null,
    };

  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const flags: { code: Code; evidence: string }[] = [];
  const add = (fs: readonly Finding[]) => {
    for (const f of fs) (WARNINGS.has(f.code) ? warnings : errors).push(f);
  };
  add(parts.findings);
  if (ev === null) {
    // A writer killed before its first flush leaves nothing to identify: cut short, that is all.
    if (log !== null) add([finding("SCHEMA", headerFile, null, "eval: absent or not an object")]);
    else if (!parts.truncated && !parts.findings.some((f) => f.code === "EVAL_CORRUPT"))
      add([
        finding(
          parts.format === "eval" ? "EVAL_CORRUPT" : "SCHEMA",
          headerFile,
          null,
          parts.format === "eval"
            ? "neither header.json nor _journal/start.json can be read"
            : "the log holds no eval object",
        ),
      ]);
    return {
      ...blankEntry({
        ...base,
        validity: errors.length > 0 ? "invalid" : "valid",
        errors: capped(errors),
        warnings: capped(warnings),
        status,
        state: "incomplete",
      }),
      inspect: null,
      samples: null,
    };
  }
  const results = migrated(
    isPlainObject(parts.header?.["results"]) ? (parts.header!["results"] as Record<string, unknown>) : null,
  );
  const version = parseVersion(isPlainObject(ev["packages"]) ? ev["packages"]["inspect_ai"] : undefined);

  // Records: one per (id, epoch), the later winning; two for one key is the log contradicting itself.
  const byKey = new Map<string, SampleRecord>();
  for (const r of parts.samples) {
    add(r.findings);
    const k = recordKey(r.id, r.epoch);
    const before = byKey.get(k);
    if (before !== undefined)
      add([
        finding(
          "SAMPLE_DUPLICATE",
          r.member,
          null,
          `a second record of sample (${JSON.stringify(r.id)}, epoch ${r.epoch}); the first is ${before.member}`,
        ),
      ]);
    byKey.set(k, r);
  }
  const plan = planOf(ev, results, parts.samples, headerFile ?? "eval", errors);
  // The plan is counted, never enumerated: `epochs` (and so ids × epochs) is the log's word and may
  // be 10^7 in a log of a few KB. Work and memory follow the records present.
  const plannedIds = new Set(plan.ids);
  const isPlanned = (r: { id: string; epoch: number }) => plannedIds.has(r.id) && r.epoch <= plan.epochs;
  const plannedRecords = plan.ids.length * plan.epochs;

  // States: every planned record once, and every record outside the plan (flagged).
  const samples = Object.fromEntries(SAMPLE_STATES.map((s) => [s, 0])) as Record<SampleState, number>;
  const unplanned: string[] = [];
  let present = 0;
  for (const r of byKey.values())
    if (isPlanned(r)) {
      present++;
      samples[stateOf(r, version)]++;
    } else {
      samples[stateOf(r, version)]++;
      unplanned.push(r.member);
    }
  for (const k of plan.earlyStopped) if (!byKey.has(k)) samples["early-stopped"]++;
  samples["missing"] = plannedRecords - present - samples["early-stopped"];
  for (const s of RARE_STATES) if (samples[s] === 0) delete (samples as Partial<typeof samples>)[s];
  const lacking = lackedSamples(results, parts.samples);
  const noEvidence = lacking !== null;

  add(absences(parts, results, version, samples));
  // The header against the start record.
  if (parts.header !== null && parts.start !== null && isPlainObject(parts.start["eval"])) {
    const se = parts.start["eval"] as Record<string, unknown>;
    for (const f of ["eval_id", "run_id", "task_id", "task", "model", "created", "dataset"])
      if (!sameValue(ev[f], se[f]))
        add([finding("START_HEADER_MISMATCH", "header.json", null, `eval.${f} differs from _journal/start.json's`)]);
  }
  // Summaries against the samples.
  if (parts.summaries !== null)
    add(compareSummaries(parts.summaries, byKey, parts.format === "eval" ? "summaries.json" : "summaries", true));
  else if (parts.journal !== null) add(compareSummaries(parts.journal, byKey, "_journal/summaries", false));
  // Times of the samples are the workers'; the plan's size against what results says.
  const total = results?.["total_samples"];
  if (plan.source === "sample_ids" && typeof total === "number" && total !== plan.ids.length * plan.epochs)
    add([
      finding(
        "PLAN_MISMATCH",
        headerFile,
        null,
        `results.total_samples is ${total}; the plan (eval.dataset.sample_ids × epochs) is ${plan.ids.length} × ${plan.epochs} = ${plan.ids.length * plan.epochs}`,
      ),
    ]);

  const counted = unfinished ? confirmed(parts, byKey, finishedUnread(parts)) : { records: parts.samples, byKey };
  const m = logMetrics({
    results,
    scorers: ev["scorers"],
    epochsReducer: isPlainObject(ev["config"]) ? ev["config"]["epochs_reducer"] : undefined,
    version,
    records: counted.records,
    byKey: counted.byKey,
    plan,
    noEvidence,
    someRecords: parts.samples.length > 0,
    truncated: cut,
    file: headerFile ?? "results",
  });
  add(m.findings);
  if (unfinished) atPlannedDenominator(m.metrics);
  for (const [r, what] of m.unconvertible)
    add([
      finding(
        "VALUE_UNCONVERTIBLE",
        r.member,
        null,
        `${what}: Inspect maps it to 0 only through value_to_float's fallback`,
      ),
    ]);
  if (!noEvidence && !cut && parts.reductions !== null)
    add(checkReductions(parts.reductions, parts.samples, version, parts.reductionsFile ?? "reductions"));
  const completed = results?.["completed_samples"];
  if (typeof completed === "number" && !cut && atLeast(version, SINCE.completedSamples)) {
    const clean = [...byKey.values()].filter((r) => r.error === null).length;
    if (completed !== clean)
      add([
        finding(
          "COUNT_MISMATCH",
          headerFile,
          null,
          `results.completed_samples is ${completed}; ${clean} sample records have no error`,
        ),
      ]);
  }

  // Review flags.
  const byFlag = new Map<Code, string[]>();
  for (const r of byKey.values())
    for (const c of r.flags) {
      const list = byFlag.get(c) ?? [];
      if (list.length === 0) byFlag.set(c, list);
      list.push(
        c === "SAMPLE_LIMIT"
          ? `${r.member} (${r.limit})`
          : c === "RETRIED"
            ? `${r.member} (${r.retries} earlier)`
            : `${r.member} (${r.edits.join(", ")})`,
      );
    }
  for (const [c, items] of byFlag)
    flags.push(
      flagOf(
        c,
        items,
        c === "SAMPLE_LIMIT"
          ? "samples ended by a limit (scored as Inspect scored them)"
          : c === "RETRIED"
            ? "samples retried after an error"
            : "samples with an edited score",
      ),
    );
  const a = attributionFlags(byKey.values(), version);
  if (a.failures.length > 0)
    flags.push(
      flagOf(
        "GRADER_FAILED",
        a.failures,
        "scores the grader could not give (instrument errors: outside assay's figures, not the model's)",
      ),
    );
  if (a.contradicted.length > 0)
    flags.push(
      flagOf(
        "GRADER_REASON_WITH_VALUE",
        a.contradicted,
        "scores whose reason says the grader failed beside a definite value (the value counts: a reason never removes a verdict)",
      ),
    );
  if (a.sandbox.length > 0)
    flags.push(
      flagOf(
        "SANDBOX_UNAVAILABLE",
        a.sandbox,
        "samples whose sandbox died under them (instrument errors: left out of assay's value, 0 under --errors zero)",
      ),
    );
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
  if (parts.truncated && !parts.findings.some((f) => f.code === "EVAL_TRUNCATED"))
    add([finding("EVAL_TRUNCATED", null, null, "the log is cut short: read as far as it is intact")]);

  const stats = isPlainObject(parts.header?.["stats"]) ? (parts.header!["stats"] as Record<string, unknown>) : {};
  const logged = inspectUsage(stats["model_usage"]);
  const usage = recordsAny(logged) ? logged : samplesUsage(byKey.values());
  const inspect: InspectLog = {
    format: parts.format,
    log_version: logVersion,
    inspect_version: isPlainObject(ev["packages"]) ? str(ev["packages"]["inspect_ai"]) : null,
    eval_id: str(ev["eval_id"]),
    run_id: str(ev["run_id"]),
    task_id: str(ev["task_id"]),
    model: str(ev["model"]),
    created: str(ev["created"]),
    completed_at: str(stats["completed_at"]) || null,
    plan: { records: plannedRecords, ids: plan.ids.length, epochs: plan.epochs, source: plan.source },
    total_samples: typeof total === "number" ? total : null,
    // §13.4: the ids each metric's per-sample `values` follow (none without such a metric).
    sample_ids: Object.values(m.metrics).some((x) => x.values !== null) ? [...plan.ids] : null,
    // §13.7: the clusters those values pair in, beside them (none kept without them).
    sample_clusters: Object.values(m.metrics).some((x) => x.values !== null) ? m.clusters : null,
    metrics: m.metrics,
  };
  return {
    ...blankEntry({
      ...base,
      experiment,
      validity: errors.length > 0 ? "invalid" : "valid",
      errors: capped(errors),
      warnings: capped(warnings),
      status,
      state: incomplete ? "incomplete" : "complete",
      flags,
      usage,
      identity: inspectIdentity(ev, stats, plan.source === "sample_ids" ? plan.ids : null),
    }),
    inspect,
    samples,
  };
}

/**
 * Issue 35: the records of an unfinished log that a summary confirms (summaries.json, else the
 * journal's). Its writer wrote each summary after the records it names, so a record none names
 * was never flushed, or its summary was cut or removed: nothing checks it, and it earns nothing.
 * A .json log has no summaries, and a .eval that reached its finish but lost its header lost the
 * claims that check its summaries: in neither does a record earn credit.
 */
function confirmed(
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
const finishedUnread = (parts: LogParts): boolean =>
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
function absences(
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
function atPlannedDenominator(metrics: Record<string, LogMetric>): void {
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
function lackedSamples(results: Record<string, unknown> | null, held: readonly SampleRecord[]): string | null {
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
function attributionFlags(
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
function samplesUsage(records: Iterable<SampleRecord>): Usage {
  const sum = noUsage();
  for (const r of records) if (r.usage !== null) addUsage(sum, r.usage);
  return sum;
}

/** Version 1's `results.scorer` and `results.metrics` as one `results.scores` entry, as Inspect migrates them. */
function migrated(results: Record<string, unknown> | null): Record<string, unknown> | null {
  if (results === null || results["scores"] !== undefined || !isPlainObject(results["scorer"])) return results;
  const scorer = results["scorer"];
  const name = typeof scorer["name"] === "string" ? scorer["name"] : "score";
  return {
    ...results,
    scores: [{ name, scorer: name, params: scorer["params"] ?? {}, metrics: results["metrics"] ?? {} }],
  };
}

/** RESCORED (inspect-notes §3.4): two results entries for one scorer and reducer, `name-1` keys, or more scorers than at the start. */
function rescoredBy(
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
