// The pool worker's entry: score a batch of bundle directories. Compiled JS only (Node 20 cannot
// load .ts in a worker thread).
import { scoreDirectory } from "./score-directory.js";
import type { BatchResult, BatchTask } from "./types.js";

/** Tell the main thread the `k`-th bundle of this task starts now: its deadline runs from here. */
export function markStarted(task: BatchTask, k = 0): void {
  if (!task.started) return;
  Atomics.store(task.started, 0, k + 1);
  Atomics.notify(task.started, 0);
}

export default function scoreBatch(task: BatchTask): BatchResult {
  return task.bundles.map((b, k) => {
    markStarted(task, k);
    return scoreDirectory(b.dir, b.path, b.entries);
  });
}
