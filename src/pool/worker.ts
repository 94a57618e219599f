// The pool worker's entry: score a batch of bundle directories. Compiled JS only (Node 20 cannot
// load .ts in a worker thread).
import { scoreDirectory, scoreLog, scoreLogPart } from "./score-directory.js";
import { storedDigest } from "./stored.js";
import type { BatchResult, BatchTask } from "./types.js";

/** Tell the main thread a bundle of this task starts now: its deadline runs from here. */
export function markStarted(task: BatchTask): void {
  if (task.started) Atomics.store(task.started, 0, BigInt(Date.now()));
}

export default function scoreBatch(task: BatchTask): BatchResult {
  return task.bundles.map((b) => {
    markStarted(task);
    if (b.inspect !== undefined) return b.inspect.part === "whole" ? scoreLog(b.dir, b.path, b.inspect.format) : scoreLogPart(b.dir, b.path, b.inspect);
    const kind = b.kind === "harbor" ? b.kind : undefined;
    if (b.lookup && b.entries) {
      const stored = storedDigest(b.dir, b.entries, kind, b.lookup);
      if (stored !== null) return { path: b.path, stored };
      markStarted(task); // scoring gets the whole time limit, whatever the lookup's hashing took
    }
    return scoreDirectory(b.dir, b.path, b.entries, kind, { hmacKey: task.hmacKey });
  });
}
