// The file piscina loads in each worker thread. piscina tries `require(filename)` first, and on
// Node >= 20.19 require() of an ES module instantiates it synchronously; a thread terminated in that
// window (a pool destroyed while its workers still load, as at the end of a small run) aborts the
// whole process with a V8 fatal error ("IsGraphAsync must be used on an instantiated module"). This
// CommonJS entry is required instead and loads the real ES worker with import(), whose async path
// survives termination.
import threads = require("node:worker_threads");
import type { BatchResult, BatchTask } from "./types.js" with { "resolution-mode": "import" };

type Handler = (task: BatchTask) => BatchResult | Promise<BatchResult>;

/** The worker module's URL, given by the pool. */
const target: string = (threads.workerData as { workerModule: string }).workerModule;
// Start loading at once, as piscina's own preload would; failures surface on the first task.
const loading: Promise<Handler> = import(target).then((m: { default?: unknown }) => {
  if (typeof m.default !== "function") throw new TypeError(`worker module ${target} has no default export function`);
  return m.default as Handler;
});
loading.catch(() => {});

async function run(task: BatchTask): Promise<BatchResult> {
  return (await loading)(task);
}
export = run;
