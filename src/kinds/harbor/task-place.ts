// Which task a Harbor trial whose result.json names none belongs to (contract §11): a result.json
// cut short by a killed writer, or never written, leaves the trial's config.json, whose task path
// Harbor also writes verbatim as result.json's `task_id.path`. Within one job, the trials whose
// result.json names a task for that path say which task it is, when they all say the same (name
// and identity); otherwise nothing names it and it stays a trial of unknown task. A label never
// decides here: config.json only points at what the job's own evidence recorded. Pure.

import type { BatchRecord } from "../../core/batch/record.js";
import { ownOf } from "./own.js";

/** What places a trial among tasks: its task_name and identity (core/batch/task-keys.ts). */
export type TaskOf = Pick<BatchRecord, "task" | "task_checksum">;

/** A record's task path (its entry's task_path: result.json's, else config.json's): its compact record's part, or an entry's own field. */
const taskPathOf = (r: BatchRecord): string | null => ownOf(r).taskPath;

/** Each trial naming no task that its job's trials place, with that task; the others are not in the map. */
export function placeTaskless(trials: readonly BatchRecord[]): Map<BatchRecord, TaskOf> {
  const byPath = new Map<string, Map<string, TaskOf>>();
  for (const t of trials) {
    const path = taskPathOf(t);
    if (t.task === null || path === null || t.validity === "error") continue;
    const tasks = byPath.get(path) ?? byPath.set(path, new Map()).get(path)!;
    tasks.set(`${t.task}\u0000${t.task_checksum ?? ""}`, { task: t.task, task_checksum: t.task_checksum });
  }
  const placed = new Map<BatchRecord, TaskOf>();
  for (const t of trials) {
    const path = taskPathOf(t);
    const tasks = t.task !== null || path === null ? undefined : byPath.get(path);
    // Two tasks recorded under one path (one path, two git repositories; a task edited mid-job): none is its.
    if (tasks?.size === 1) placed.set(t, [...tasks.values()][0]!);
  }
  return placed;
}
