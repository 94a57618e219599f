// An Inspect log's run identity (issue 37), from its EvalSpec and stats, never guessed. Pure.

import { NO_ENTRY_IDENTITY, tasksDigest, text, timesOf, type EntryIdentity } from "../../core/identity.js";
import { objectAt } from "../../core/json/decode.js";

export const INSPECT_HARNESS = "inspect_ai";

/** The ids the log planned, when it records them (`eval.dataset.sample_ids`); null when its plan is only the samples present. */
export type PlannedIds = readonly string[] | null;

/** task_version as Inspect writes it: an integer (0 by default) or, in later versions, a string. */
function versionText(v: unknown): string | null {
  if (typeof v === "number") return Number.isSafeInteger(v) ? String(v) : null;
  return text(v);
}

/**
 * What the log records of its run. The benchmark is the task (`eval.task`, its `task_version`, the
 * dataset's name); the model `eval.model`. The agent is `eval.solver`: Inspect records a solver
 * there only when the run was given one in place of the task's own plan (`--solver`, `eval(solver=)`:
 * the agent put to the task, `human_agent` in one real log); a task's own plan names no agent, so
 * it is null. Times: `eval.created` (with its offset, made an instant) to `stats.completed_at`. The
 * tasks are the planned sample ids' digest, null where the plan is only the samples present (a
 * log from before sample ids were recorded, whose plan is unknown).
 */
export function inspectIdentity(
  ev: Record<string, unknown>,
  stats: Record<string, unknown>,
  planned: PlannedIds,
): EntryIdentity {
  const task = text(ev["task"]);
  const dataset = objectAt(ev, "dataset");
  return {
    ...NO_ENTRY_IDENTITY,
    agent: text(ev["solver"]),
    model: text(ev["model"]),
    benchmark:
      task === null ? null : { name: task, version: versionText(ev["task_version"]), dataset: text(dataset?.["name"]) },
    harness: { name: INSPECT_HARNESS, version: text(objectAt(ev, "packages")?.["inspect_ai"]) },
    tasks: planned === null ? null : { ...tasksDigest(planned), unit: "sample" },
    ...timesOf(ev["created"], stats["completed_at"]),
  };
}
