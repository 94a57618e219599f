// The pool worker's entry: score a batch of bundle directories. Compiled JS only (Node 20 cannot
// load .ts in a worker thread).
import { scoreDirectory } from "./score-directory.js";
import type { BatchResult, BatchTask } from "./types.js";

export default function scoreBatch(task: BatchTask): BatchResult {
  return task.bundles.map((b) => scoreDirectory(b.dir, b.path));
}
