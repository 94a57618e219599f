// §14 "Recount": each of the final report's counts that is present, beside assay's recount over
// D (the distinct ids of the five partition lists and completed_ids) from the folders' evidence —
// `claimed.compared` — and the counts as written (`claimed.metrics`). Unlisted folders enter the
// experiment's figure, not this: the report never counted them.

import { REPORT_COUNTS, type FinalReport, type ReportCount } from "./final-report.js";
import type { PredictionsSummary } from "./predictions.js";
import { listedIds, runInstances, type InstanceOutcome } from "./run-instances.js";

export interface ComparedFigure {
  metric: ReportCount;
  claimed: number;
  /** null: the evidence cannot give it. */
  assay: number | null;
  /** null when they agree and nothing needs saying; else why. */
  reason: string | null;
}

export interface RunClaimed {
  /** The report's file name. */
  source: string;
  /** Its nine counts as written (those present). */
  metrics: Partial<Record<ReportCount, number>>;
  compared: ComparedFigure[];
}

interface Recounted {
  value: number | null;
  /** What the value rests on, when it is not the evidence alone. */
  note: string | null;
}

export function recount(
  reportName: string,
  report: FinalReport,
  predictions: PredictionsSummary | null,
  outcomes: readonly InstanceOutcome[],
): RunClaimed {
  const figures = recountAll(report, predictions, outcomes);
  const metrics: RunClaimed["metrics"] = {};
  const compared: ComparedFigure[] = [];
  for (const metric of REPORT_COUNTS) {
    const claimed = report[metric];
    if (claimed === undefined) continue;
    metrics[metric] = claimed;
    const { value, note } = figures[metric];
    const differs =
      value === null ? "the evidence cannot give it" : value !== claimed ? `the evidence gives ${value}` : null;
    compared.push({
      metric,
      claimed,
      assay: value,
      reason: [differs, note].filter((r) => r !== null).join("; ") || null,
    });
  }
  return { source: reportName, metrics, compared };
}

function recountAll(
  report: FinalReport,
  predictions: PredictionsSummary | null,
  outcomes: readonly InstanceOutcome[],
): Record<ReportCount, Recounted> {
  const d = listedIds(report);
  const inD = runInstances(report, predictions, outcomes).filter((i) => d.has(i.id));
  const folders = inD.flatMap((i) => (i.outcome ? [i.outcome] : []));
  const resolved = folders.filter((o) => o.resolved);
  const unresolved = folders.filter((o) => o.reportReadable && !o.resolved);
  // Submitted, not empty, no readable report.json: listed ones without a folder included.
  const errors = inD.filter((i) => (i.state === "missing" ? true : i.outcome !== null && !i.outcome.reportReadable));
  const classified = [...unresolved, ...errors.flatMap((i) => (i.outcome ? [i.outcome] : []))];
  const reportOnly = resolved.filter((o) => o.reportOnly).length;
  const submittedIds = report.submitted_ids;
  // The harness counts empty patches among the dataset's instances only (D), not the whole file.
  const emptyPredicted = predictions ? [...predictions.records].filter(([id, p]) => p.empty && d.has(id)).length : null;
  const plain = (value: number): Recounted => ({ value, note: null });
  return {
    total_instances: plain(d.size),
    // This model's records: the harness's len(predictions) counts every model's (one model a file, in practice).
    submitted_instances: predictions
      ? plain(predictions.records.size)
      : submittedIds
        ? { value: new Set(submittedIds).size, note: "no predictions: the report's own list" }
        : { value: null, note: "no predictions and no submitted_ids" },
    completed_instances: plain(folders.filter((o) => o.reportFile).length),
    resolved_instances: {
      value: resolved.length,
      note: reportOnly > 0 ? `${reportOnly} of them unverified: the report's own verdict` : null,
    },
    unresolved_instances: plain(unresolved.length),
    infra_failure_instances: plain(classified.filter((o) => o.infra?.tier === "environment").length),
    ambiguous_failure_instances: plain(classified.filter((o) => o.infra?.tier === "ambiguous").length),
    empty_patch_instances:
      emptyPredicted !== null
        ? plain(emptyPredicted)
        : {
            value: inD.filter((i) => i.state === "empty-patch").length,
            note: "no predictions: the report's listed ids without a folder",
          },
    error_instances: plain(errors.length),
  };
}
