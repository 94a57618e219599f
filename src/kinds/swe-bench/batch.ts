// SWE-bench's batch rules (contract §14), pure: a model folder's instance records and its run files'
// record (book.ts, kept in the document) → one experiment per model folder, named
// `<run_id>/<model>` (`#2`, `#3` for copies, in path order). The run level is the run-* modules';
// here it becomes the experiment: every instance's state, `resolved` through the kind-neutral
// keyMetrics, the final report's claims as flags and its recount, and PATCH_MISMATCH against the predictions.
import { containerBatch, type JudgedContainer as Judged } from "../../core/batch/container-names.js";
import { finding, type Code, type Finding } from "../../core/codes.js";
import type { BatchOptions } from "../../core/batch/experiments.js";
import { keyMetrics, type Counted } from "../../core/batch/reward-metrics.js";
import type { BatchRecord } from "../../core/batch/record.js";
import { blankExperiment, type BundleEntry } from "../../core/results.js";
import { own, setOwn } from "../../core/schema.js";
import { byteCompare } from "../../core/text.js";
import type { KindBatch } from "../kind.js";
import type { RunDocument } from "./book.js";
import type { SweBenchPart } from "./entry.js";
import { experimentFigures, type ExperimentFigures } from "./experiment-figures.js";
import type { FinalReport } from "./final-report.js";
import { PATCH, REWARD_KEY, SWE_PROFILE } from "./instance-entry.js";
import { patchMismatch, type PredictionsSummary } from "./predictions.js";
import { recount } from "./recount.js";
import { runClaims } from "./run-claims.js";
import { runInstances, type InstanceOutcome } from "./run-instances.js";
import type { FolderState } from "./state.js";

/** What the kind's record part keeps for these rules (an entry given as its own record: its swe_bench object). */
export type InstanceFacts = Pick<SweBenchPart, "report" | "patch" | "infra" | "log"> | null;
export const instanceFacts = (e: Pick<BundleEntry, "swe_bench">): InstanceFacts =>
  e.swe_bench === undefined
    ? null
    : { report: e.swe_bench.report, patch: e.swe_bench.patch, infra: e.swe_bench.infra, log: e.swe_bench.log };
const factsOf = (r: BatchRecord): InstanceFacts =>
  r.own !== undefined ? (r.own as InstanceFacts) : instanceFacts(r as BundleEntry);

export function sweBenchBatch(
  records: readonly BatchRecord[],
  runs: readonly RunDocument[],
  options: BatchOptions,
): KindBatch {
  const byPath = new Map(runs.map((r) => [r.path, r]));
  return containerBatch(
    records,
    runs.map((r) => r.path),
    (path, first) => {
      const d = byPath.get(path);
      return d === undefined ? (first?.experiment ?? null) : `${d.run_id}/${d.model}`;
    },
    (name, path, members) => modelExperiment(name, byPath.get(path) ?? null, members, options),
  );
}

/** The predictions as the run rules read them, from the book's record. */
function predictionsOf(d: RunDocument | null): PredictionsSummary | null {
  if (d?.predictions == null) return null;
  return {
    file: d.predictions.path,
    records: new Map(d.predictions.records.map((p) => [p.id, { empty: p.empty, digest: p.digest }])),
    otherModels: 0,
  };
}

/** An instance folder's outcome from its record (what outcomeOf gives from its assessment). */
function outcomeOfRecord(r: BatchRecord, facts: InstanceFacts, added: readonly Finding[]): InstanceOutcome {
  const state = r.state as FolderState;
  const report = facts?.report ?? null;
  const reportOnly = report !== null && report.resolved !== null && (state === "unverified" || facts?.log === "absent");
  return {
    id: r.trial ?? r.path,
    state,
    reportFile: report !== null,
    reportReadable: report?.readable === true,
    resolved: state === "resolved" || (state === "unverified" && report?.resolved === true),
    reportOnly,
    infra: facts?.infra ?? null,
    patchDigest: facts?.patch ?? null,
    invalid: [
      ...new Set([...(r.validity === "invalid" ? r.errors.map((f) => f.code) : []), ...added.map((f) => f.code)]),
    ],
  };
}

function modelExperiment(
  name: string | null,
  doc: RunDocument | null,
  records: readonly BatchRecord[],
  options: BatchOptions,
): Judged {
  const sorted = [...records].sort((a, b) => byteCompare(a.path, b.path));
  const report: FinalReport | null = doc?.report?.lists ?? null;
  const predictions = predictionsOf(doc);
  const errors = new Map<string, Finding[]>();
  const toolErrors = sorted.filter((r) => r.validity === "error");
  const unscored = new Set(toolErrors.map((r) => r.trial ?? r.path));
  const scored = sorted.filter((r) => r.validity !== "error");
  const byId = new Map(scored.map((r) => [r.trial ?? r.path, r]));
  const outcomes = scored.map((r) => {
    const facts = factsOf(r);
    const m = patchMismatch(r.trial ?? r.path, facts?.patch ?? null, predictions);
    const added = m === null ? [] : [finding("PATCH_MISMATCH", PATCH, null, m.message)];
    if (added.length > 0) errors.set(r.path, added);
    return outcomeOfRecord(r, facts, added);
  });
  // A tool error is unscored, never missing: its folder is there.
  const instances = runInstances(report, predictions, outcomes).filter((i) => !unscored.has(i.id));
  const figures = experimentFigures(instances, options, report?.total_instances ?? null);
  const out = blankExperiment(name, SWE_PROFILE, figures.trials);
  out.job = doc?.run ?? null;
  out.job_id = doc?.run_id ?? null;
  out.states = figures.states;
  out.exceptions = {};
  for (const r of scored)
    if (r.exception !== null)
      setOwn(out.exceptions, r.exception.type, (own(out.exceptions, r.exception.type) ?? 0) + 1);
  out.excluded = figures.excluded;
  out.missing = figures.missing;
  out.invalid = figures.invalid.map((i) => ({ trial: i.trial, codes: [...i.codes].sort(byteCompare) as Code[] }));
  out.unscored = [...unscored];
  for (const r of scored)
    for (const f of r.flags) out.flags.push({ code: f.code, trial: r.trial ?? r.path, attempt: null, evidence: null });
  if (report !== null) {
    const flags = runClaims({ reportName: doc!.report!.name, report, predictions, outcomes }).filter(
      (f) => !(f.code === "INSTANCE_MISSING" && unscored.has(f.trial)),
    );
    for (const f of flags)
      out.flags.push({
        code: f.code,
        trial: f.trial,
        attempt: null,
        evidence: f.evidence,
      });
    out.claimed = recount(doc!.report!.name, report, predictions, outcomes);
  }
  out.warnings = (doc?.warnings ?? []) as Finding[];
  if (figures.trials > 0)
    out.rewards = { [REWARD_KEY]: keyMetrics(REWARD_KEY, countedOf(figures, byId), figures.trials) };
  out.swe_bench = {
    run_id: doc?.run_id ?? "",
    model: doc?.model ?? "",
    report: doc?.report?.path ?? null,
    predictions: doc?.predictions?.path ?? null,
    dataset: doc?.dataset ?? null,
    total: report?.total_instances ?? null,
    submitted:
      out.claimed?.compared.find((c) => c.metric === "submitted_instances")?.assay ?? predictions?.records.size ?? null,
    resolved_over_total: figures.resolved_over_total,
  };
  return { experiment: out, errors };
}

/** The figure's instances as keyMetrics counts them: its record, or (no folder: empty-patch, missing) the instance by its id. */
function countedOf(figures: ExperimentFigures, byId: ReadonlyMap<string, BatchRecord>): Counted[] {
  return figures.counted.map((c) => ({
    trial:
      byId.get(c.trial) ??
      ({ path: c.trial, trial: c.trial, task: c.trial, task_checksum: null } as unknown as BatchRecord),
    rewards: c.invalid ? "zero" : { [REWARD_KEY]: c.value },
    covered: true,
    invalid: c.invalid,
  }));
}
