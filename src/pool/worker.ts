// The pool worker's entry: score a batch of bundle directories. Compiled JS only (Node 20 cannot
// load .ts in a worker thread).
import { scoreDirectory } from "./score-directory.js";
import { storedDigest } from "./stored.js";
import type { BatchResult, BatchTask } from "./types.js";

/** Tell the main thread a bundle of this task starts now: its deadline runs from here. */
export function markStarted(task: BatchTask): void {
  if (task.started) Atomics.store(task.started, 0, BigInt(Date.now()));
}

export default function scoreBatch(task: BatchTask): BatchResult {
  return task.bundles.map((b) => {
    markStarted(task);
    if (b.lookup && b.entries) {
      const stored = storedDigest(b.dir, b.entries, b.kind, b.lookup);
      if (stored !== null) return { path: b.path, stored };
      markStarted(task); // scoring gets the whole time limit, whatever the lookup's hashing took
    }
    return scoreDirectory(b.dir, b.path, b.entries, b.kind, { hmacKey: task.hmacKey });
  });
}
