// What the Harbor job rules read of a trial's warnings (issue 35): kept in its compact record's
// part (kinds/harbor/kind.ts), read from the entry itself when an entry is given as its own record. Pure.

import type { BundleEntry } from "../../core/results.js";
import type { BatchRecord } from "../../core/batch/record.js";

/** What the job rules read of a Harbor trial's warnings (issue 35), kept in its record part. */
export interface HarborOwn {
  /** REWARD_WITHOUT_RESULT: counted 0 under every --errors. */
  readonly rewardWithoutResult: boolean;
  /** LOCK_UNREADABLE on the trial's own lock.json: its task is unknown to pass@k. */
  readonly lockUnreadable: boolean;
  /** Where its task lay (result.json's task path, else config.json's), to place a trial whose result.json names none (task-place.ts). */
  readonly taskPath: string | null;
}
export const harborOwn = (e: Pick<BundleEntry, "warnings" | "task_path">): HarborOwn => ({
  rewardWithoutResult: e.warnings.some((w) => w.code === "REWARD_WITHOUT_RESULT"),
  lockUnreadable: e.warnings.some((w) => w.code === "LOCK_UNREADABLE"),
  taskPath: e.task_path ?? null,
});
/**
 * A record's HarborOwn: its compact record's part, or (an entry given as its own record) read from
 * its warnings. Terminal-Bench shares the job rules that read it, and its records keep another part
 * (or none): read field by field, what is not there is false or null.
 */
export function ownOf(r: BatchRecord): HarborOwn {
  if (r.own === undefined) {
    const e = r as Partial<BundleEntry>;
    return harborOwn({ warnings: e.warnings ?? [], task_path: e.task_path ?? null });
  }
  const o = (typeof r.own === "object" ? r.own : null) as Partial<HarborOwn> | null;
  return {
    rewardWithoutResult: o?.rewardWithoutResult === true,
    lockUnreadable: o?.lockUnreadable === true,
    taskPath: typeof o?.taskPath === "string" ? o.taskPath : null,
  };
}
