// An Inspect log's entry from its parts as read (read.ts): who it is, whether it is whole, its
// records' states against its plan, its own claims checked against its records, its metrics
// re-derived, and its review flags (contract §12).

import { finding, type Code, type Finding } from "../../core/codes.js";
import { isPlainObject } from "../../core/json/decode.js";
import { blankEntry, type ScoredBundle } from "../../core/results.js";
import { inspectUsage, recordsAny } from "../../core/usage.js";
import { inspectIdentity } from "./identity.js";
import {
  capped,
  LOG_VERSIONS,
  planOf,
  RARE_STATES,
  SAMPLE_STATES,
  stateOf,
  str,
  WARNINGS,
  type InspectLog,
  type LogParts,
  type SampleState,
} from "./log.js";
import {
  absences,
  atPlannedDenominator,
  confirmed,
  finishedUnread,
  lackedSamples,
  migrated,
  reviewFlags,
  samplesUsage,
} from "./log-checks.js";
import { logMetrics, type Plan } from "./metrics.js";
import type { SampleRecord } from "./sample.js";
import { compareSummaries, recordKey } from "./summary.js";
import { checkReductions } from "./reductions.js";
import { sameValue } from "./value.js";
import { atLeast, parseVersion, SINCE } from "./version.js";

export type FinishedLog = ScoredBundle & { inspect: InspectLog | null; samples: Record<string, number> | null };

/** What the log says of itself before its records are read: its eval, status and whether it is whole. */
interface Head {
  /** Where its eval lies in a .eval (header.json, else the start record); null in a .json log. */
  file: string | null;
  log: Record<string, unknown> | null;
  ev: Record<string, unknown> | null;
  status: "started" | "success" | "cancelled" | "error" | null;
  /** Not a finished log (no header, status started, or cut short). */
  incomplete: boolean;
  /** Cut where a check needs what was lost (a .eval cut after its header was written is not). */
  cut: boolean;
  unfinished: boolean;
  experiment: string | null;
  logVersion: number | null;
  versionField: unknown;
}

/** Errors and warnings, each finding sorted by its code as it is added. */
class Findings {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];
  add(fs: readonly Finding[]): void {
    for (const f of fs) (WARNINGS.has(f.code) ? this.warnings : this.errors).push(f);
  }
}

export function finishLog(parts: LogParts): FinishedLog {
  const head = headOf(parts);
  const base = { profile: "inspect" as const, digest: parts.digest, task: str(head.ev?.["task"]) };
  const toolError = parts.toolError ?? versionError(head);
  if (toolError !== null)
    return {
      ...blankEntry({
        ...base,
        experiment: head.experiment,
        validity: "error",
        errors: [finding(toolError.code, head.file, null, toolError.message)],
        status: head.status,
        state: head.incomplete ? "incomplete" : "complete",
      }),
      inspect: null,
      samples: null,
    };
  const found = new Findings();
  found.add(parts.findings);
  if (head.ev === null) {
    found.add(unidentified(parts, head));
    return {
      ...blankEntry({ ...base, ...verdict(found), status: head.status, state: "incomplete" }),
      inspect: null,
      samples: null,
    };
  }
  return scored(parts, head, head.ev, found, base);
}

function headOf(parts: LogParts): Head {
  const log = parts.header ?? parts.start;
  const ev = isPlainObject(log?.["eval"]) ? (log!["eval"] as Record<string, unknown>) : null;
  const status =
    parts.header === null
      ? "started"
      : ((["success", "cancelled", "error", "started"] as const).find((s) => s === parts.header!["status"]) ?? null);
  const versionField = log?.["version"];
  // Issue 35: a .eval's header.json is written after every sample, summaries.json and
  // reductions.json, so one read intact (the walk lists intact members only) means the members its
  // checks need were read: only a cut with no header (or a cut .json log) switches the checks off.
  const cut = parts.truncated && !(parts.format === "eval" && parts.header !== null);
  return {
    file: parts.format === "eval" ? (parts.header !== null ? "header.json" : "_journal/start.json") : null,
    log,
    ev,
    status,
    incomplete: parts.header === null || status === "started" || parts.truncated,
    cut,
    unfinished: parts.header === null || status === "started" || cut,
    experiment: ev === null ? null : `${str(ev["task"]) ?? "(no task)"} (${str(ev["model"]) ?? "(no model)"})`,
    logVersion: typeof versionField === "number" ? versionField : null,
    versionField,
  };
}

function versionError(head: Head): { code: Code; message: string } | null {
  if (head.log === null || (head.logVersion !== null && LOG_VERSIONS.includes(head.logVersion))) return null;
  return {
    code: "LOG_VERSION",
    message: `log format version ${JSON.stringify(head.versionField ?? null)}: assay reads versions 1 to 3`,
  };
}

/** A log without an eval object. A writer killed before its first flush leaves nothing to identify: cut short, that is all. */
function unidentified(parts: LogParts, head: Head): Finding[] {
  if (head.log !== null) return [finding("SCHEMA", head.file, null, "eval: absent or not an object")];
  if (parts.truncated || parts.findings.some((f) => f.code === "EVAL_CORRUPT")) return [];
  return [
    finding(
      parts.format === "eval" ? "EVAL_CORRUPT" : "SCHEMA",
      head.file,
      null,
      parts.format === "eval"
        ? "neither header.json nor _journal/start.json can be read"
        : "the log holds no eval object",
    ),
  ];
}

const verdict = (found: Findings) => ({
  validity: found.errors.length > 0 ? ("invalid" as const) : ("valid" as const),
  errors: capped(found.errors),
  warnings: capped(found.warnings),
});

function scored(
  parts: LogParts,
  head: Head,
  ev: Record<string, unknown>,
  found: Findings,
  base: { profile: "inspect"; digest: string; task: string | null },
): FinishedLog {
  const results = migrated(
    isPlainObject(parts.header?.["results"]) ? (parts.header!["results"] as Record<string, unknown>) : null,
  );
  const version = parseVersion(isPlainObject(ev["packages"]) ? ev["packages"]["inspect_ai"] : undefined);
  const byKey = recordsByKey(parts.samples, found);
  const plan = planOf(ev, results, parts.samples, head.file ?? "eval", found.errors);
  const { samples, unplanned } = sampleStates(byKey, plan, version);
  const lacking = lackedSamples(results, parts.samples);

  found.add(absences(parts, results, version, samples));
  found.add(selfChecks(parts, ev, results, byKey, plan, head.file));
  const m = metricsOf(parts, head, ev, results, version, byKey, plan, lacking !== null, found);
  const flags = reviewFlags(parts, results, byKey, version, lacking, unplanned);
  if (parts.truncated && !parts.findings.some((f) => f.code === "EVAL_TRUNCATED"))
    found.add([finding("EVAL_TRUNCATED", null, null, "the log is cut short: read as far as it is intact")]);

  const stats = isPlainObject(parts.header?.["stats"]) ? (parts.header!["stats"] as Record<string, unknown>) : {};
  const logged = inspectUsage(stats["model_usage"]);
  const total = results?.["total_samples"];
  const withValues = Object.values(m.metrics).some((x) => x.values !== null);
  const inspect: InspectLog = {
    format: parts.format,
    log_version: head.logVersion,
    inspect_version: isPlainObject(ev["packages"]) ? str(ev["packages"]["inspect_ai"]) : null,
    eval_id: str(ev["eval_id"]),
    run_id: str(ev["run_id"]),
    task_id: str(ev["task_id"]),
    model: str(ev["model"]),
    created: str(ev["created"]),
    completed_at: str(stats["completed_at"]) || null,
    plan: { records: plan.ids.length * plan.epochs, ids: plan.ids.length, epochs: plan.epochs, source: plan.source },
    total_samples: typeof total === "number" ? total : null,
    // §13.4: the ids each metric's per-sample `values` follow (none without such a metric).
    sample_ids: withValues ? [...plan.ids] : null,
    // §13.7: the clusters those values pair in, beside them (none kept without them).
    sample_clusters: withValues ? m.clusters : null,
    metrics: m.metrics,
  };
  return {
    ...blankEntry({
      ...base,
      experiment: head.experiment,
      ...verdict(found),
      status: head.status,
      state: head.incomplete ? "incomplete" : "complete",
      flags,
      usage: recordsAny(logged) ? logged : samplesUsage(byKey.values()),
      identity: inspectIdentity(ev, stats, plan.source === "sample_ids" ? plan.ids : null),
    }),
    inspect,
    samples,
  };
}

/** Records: one per (id, epoch), the later winning; two for one key is the log contradicting itself. */
function recordsByKey(records: readonly SampleRecord[], found: Findings): Map<string, SampleRecord> {
  const byKey = new Map<string, SampleRecord>();
  for (const r of records) {
    found.add(r.findings);
    const k = recordKey(r.id, r.epoch);
    const before = byKey.get(k);
    if (before !== undefined)
      found.add([
        finding(
          "SAMPLE_DUPLICATE",
          r.member,
          null,
          `a second record of sample (${JSON.stringify(r.id)}, epoch ${r.epoch}); the first is ${before.member}`,
        ),
      ]);
    byKey.set(k, r);
  }
  return byKey;
}

/**
 * States: every planned record once, and every record outside the plan (flagged). The plan is
 * counted, never enumerated: `epochs` (and so ids × epochs) is the log's word and may be 10^7 in a
 * log of a few KB. Work and memory follow the records present.
 */
function sampleStates(
  byKey: ReadonlyMap<string, SampleRecord>,
  plan: Plan,
  version: readonly number[] | null,
): { samples: Record<SampleState, number>; unplanned: string[] } {
  const plannedIds = new Set(plan.ids);
  const samples = Object.fromEntries(SAMPLE_STATES.map((s) => [s, 0])) as Record<SampleState, number>;
  const unplanned: string[] = [];
  let present = 0;
  for (const r of byKey.values()) {
    samples[stateOf(r, version)]++;
    if (plannedIds.has(r.id) && r.epoch <= plan.epochs) present++;
    else unplanned.push(r.member);
  }
  for (const k of plan.earlyStopped) if (!byKey.has(k)) samples["early-stopped"]++;
  samples["missing"] = plan.ids.length * plan.epochs - present - samples["early-stopped"];
  for (const s of RARE_STATES) if (samples[s] === 0) delete (samples as Partial<typeof samples>)[s];
  return { samples, unplanned };
}

/** The log's own records against each other: the header against the start record, the summaries against the samples, the plan's size against results. */
function selfChecks(
  parts: LogParts,
  ev: Record<string, unknown>,
  results: Record<string, unknown> | null,
  byKey: ReadonlyMap<string, SampleRecord>,
  plan: Plan,
  file: string | null,
): Finding[] {
  const out: Finding[] = [];
  if (parts.header !== null && parts.start !== null && isPlainObject(parts.start["eval"])) {
    const se = parts.start["eval"] as Record<string, unknown>;
    for (const f of ["eval_id", "run_id", "task_id", "task", "model", "created", "dataset"])
      if (!sameValue(ev[f], se[f]))
        out.push(finding("START_HEADER_MISMATCH", "header.json", null, `eval.${f} differs from _journal/start.json's`));
  }
  if (parts.summaries !== null)
    out.push(
      ...compareSummaries(parts.summaries, byKey, parts.format === "eval" ? "summaries.json" : "summaries", true),
    );
  else if (parts.journal !== null) out.push(...compareSummaries(parts.journal, byKey, "_journal/summaries", false));
  const total = results?.["total_samples"];
  if (plan.source === "sample_ids" && typeof total === "number" && total !== plan.ids.length * plan.epochs)
    out.push(
      finding(
        "PLAN_MISMATCH",
        file,
        null,
        `results.total_samples is ${total}; the plan (eval.dataset.sample_ids × epochs) is ${plan.ids.length} × ${plan.epochs} = ${plan.ids.length * plan.epochs}`,
      ),
    );
  return out;
}

/** The metrics re-derived over the records that count (an unfinished log's: those a summary confirms), and the checks on them. */
function metricsOf(
  parts: LogParts,
  head: Head,
  ev: Record<string, unknown>,
  results: Record<string, unknown> | null,
  version: readonly number[] | null,
  byKey: ReadonlyMap<string, SampleRecord>,
  plan: Plan,
  noEvidence: boolean,
  found: Findings,
): ReturnType<typeof logMetrics> {
  const counted = head.unfinished
    ? confirmed(parts, byKey, finishedUnread(parts))
    : { records: parts.samples, byKey: byKey as Map<string, SampleRecord> };
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
    truncated: head.cut,
    file: head.file ?? "results",
  });
  found.add(m.findings);
  if (head.unfinished) atPlannedDenominator(m.metrics);
  for (const [r, what] of m.unconvertible)
    found.add([
      finding(
        "VALUE_UNCONVERTIBLE",
        r.member,
        null,
        `${what}: Inspect maps it to 0 only through value_to_float's fallback`,
      ),
    ]);
  if (!noEvidence && !head.cut && parts.reductions !== null)
    found.add(checkReductions(parts.reductions, parts.samples, version, parts.reductionsFile ?? "reductions"));
  const completed = results?.["completed_samples"];
  if (typeof completed === "number" && !head.cut && atLeast(version, SINCE.completedSamples)) {
    const clean = [...byKey.values()].filter((r) => r.error === null).length;
    if (completed !== clean)
      found.add([
        finding(
          "COUNT_MISMATCH",
          head.file,
          null,
          `results.completed_samples is ${completed}; ${clean} sample records have no error`,
        ),
      ]);
  }
  return m;
}
