// The pool worker's entry: score a batch of bundle directories. Compiled JS only (Node 20 cannot
// load .ts in a worker thread).
import { scoreDirectory } from "./score-directory.js";
import type { BatchResult, BatchTask } from "./types.js";

/** Tell the main thread this task has a worker now: its deadline starts here. */
export function markStarted(task: BatchTask): void {
  if (!task.started) return;
  Atomics.store(task.started, 0, 1);
  Atomics.notify(task.started, 0);
}

export default function scoreBatch(task: BatchTask): BatchResult {
  markStarted(task);
  return task.bundles.map((b) => scoreDirectory(b.dir, b.path, b.entries));
}
