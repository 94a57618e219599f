// What a Harbor job's own summary claims, set beside assay's figures (contract §11): a claimed
// `mean` is compared with the mean of the job's only reward key, a claimed metric named after a
// reward key with that key's mean; nothing else. Where they differ, the reason says which of the
// known differences explains it — Harbor's figure is per eval (agent × model × dataset), over the
// trials that have a result.json, a trial without a reward counted 0, invalid evidence believed —
// and when none does, that the summary does not follow from the trials in the folder. Pure.

import type { Experiment, JobRecord } from "../../core/results.js";
import { own } from "../../core/schema.js";
import { ownOf } from "./own.js";
import type { BatchRecord } from "../../core/batch/record.js";
import type { Counted } from "../../core/batch/reward-metrics.js";
import { plural } from "../../core/text.js";

const SCORED = new Set(["scored", "scored-with-exception"]);
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** `<evals key>/<index>/<name>`: the name, or null for what is never compared (`…/pass_at_k/<k>`). */
function metricName(metric: string): string | null {
  const last = metric.lastIndexOf("/");
  const middle = metric.slice(metric.lastIndexOf("/", last - 1) + 1, last);
  return middle === "pass_at_k" ? null : metric.slice(last + 1);
}

export function harborExplained(
  job: JobRecord,
  e: Experiment,
  trials: readonly BatchRecord[],
  counted: readonly Counted[],
  options: { invalid: "count" | "exclude"; errors: "exclude" | "zero" },
): NonNullable<Experiment["claimed"]>["compared"] {
  const keys = Object.keys(e.rewards ?? {});
  const out: NonNullable<Experiment["claimed"]>["compared"] = [];
  for (const [metric, claimed] of Object.entries(job.claimed?.metrics ?? {})) {
    const name = metricName(metric);
    const key = name === "mean" && keys.length === 1 ? keys[0]! : name !== null && keys.includes(name) ? name : null;
    if (key === null) continue;
    const assay = e.rewards![key]!.mean;
    out.push({
      metric,
      claimed,
      assay,
      reason: assay !== null && close(assay, claimed) ? null : why(key, claimed, job, trials, counted, options),
    });
  }
  return out;
}

/** Why assay's mean of `key` is not Harbor's `claimed`. */
function why(
  key: string,
  claimed: number,
  job: JobRecord,
  trials: readonly BatchRecord[],
  counted: readonly Counted[],
  options: { invalid: "count" | "exclude"; errors: "exclude" | "zero" },
): string {
  const parts: string[] = [];
  if (job.evals > 1)
    parts.push(
      `Harbor's figure covers one of the job's ${job.evals} evals (agent × model × dataset); assay's covers the whole job`,
    );
  // A trial with a readable result.json names its task (task_name is required there).
  const withResult = trials.filter((t) => t.task !== null);
  const unrewarded = withResult.filter(
    (t) => !(SCORED.has(t.state ?? "") && t.rewards !== null) && t.validity === "valid",
  ).length;
  if (unrewarded > 0 && options.errors === "exclude")
    parts.push(
      `Harbor counts the ${plural(unrewarded, "trial")} with a result.json but no reward as 0; assay leaves ${unrewarded === 1 ? "it" : "them"} out (--errors zero counts ${unrewarded === 1 ? "it" : "them"} as 0, as Harbor does)`,
    );
  // Those whose verifier ran count 0 under every --errors (REWARD_WITHOUT_RESULT).
  const noResult = trials.filter(
    (t) => t.task === null && t.validity === "valid" && (options.errors === "zero" || ownOf(t).rewardWithoutResult),
  ).length;
  if (noResult > 0)
    parts.push(
      `Harbor leaves out the ${plural(noResult, "trial")} without a result.json, which ${options.errors === "zero" ? "--errors zero counts" : `assay counts (${noResult === 1 ? "its" : "their"} verifier ran)`} as 0`,
    );
  const invalid =
    trials.filter((t) => t.validity === "invalid").length +
    counted.filter((c) => c.invalid && c.trial.validity === "valid").length;
  if (invalid > 0)
    parts.push(
      options.invalid === "count"
        ? `${plural(invalid, "invalid trial")} ${invalid === 1 ? "counts" : "count"} 0 here (--invalid exclude leaves ${invalid === 1 ? "it" : "them"} out); Harbor took ${invalid === 1 ? "its" : "their"} result.json at its word`
        : `${plural(invalid, "invalid trial")} ${invalid === 1 ? "is" : "are"} left out here (--invalid exclude); Harbor took ${invalid === 1 ? "its" : "their"} result.json at its word`,
    );
  // Harbor's own way over the trials in this folder: every trial with a result.json, a missing reward as 0.
  const harbor =
    withResult.length === 0
      ? null
      : withResult.reduce((s, t) => s + ((t.rewards === null ? undefined : own(t.rewards, key)) ?? 0), 0) /
        withResult.length;
  if (job.evals <= 1 && (harbor === null || !close(harbor, claimed)))
    parts.push(
      `counted Harbor's way the trials in this folder give ${harbor === null ? "nothing" : harbor.toFixed(3)}: the job's summary does not follow from them (JOB_CLAIM_MISMATCH names the trials; resumed or partly archived jobs do this)`,
    );
  return parts.length > 0
    ? parts.join("; ")
    : `assay's mean of ${key} is over the trials that hold that key; Harbor's is not`;
}
