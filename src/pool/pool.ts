// The main thread's side of the worker pool: batches out, entries back, and isolation — a batch
// whose worker threw, hung or ran out of memory is re-run one bundle at a time so only the
// culprit becomes a tool error; piscina replaces the dead worker and the run goes on.

import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { toolError } from "../io/tool-error.js";
import type { BatchResult, BatchTask, BundleRef } from "./types.js";
import type { BundleEntry } from "../core/results.js";

export interface PoolOptions {
  /** Worker threads (min = max). Default: the available parallelism. */
  jobs?: number;
  /** Time one bundle may take, from the moment a worker starts it. */
  bundleTimeoutMs?: number;
  /** Old-generation heap per worker; past it the worker dies and its bundle is a tool error. */
  workerMemoryMb?: number;
  /** The worker module (a file URL or path); the library's own by default. */
  workerFile?: string;
}

export const DEFAULT_BUNDLE_TIMEOUT_MS = 60_000;
/** Workers run compiled JS: when this module is loaded from source (tests), use the build's worker. */
const DEFAULT_WORKER = import.meta.url.endsWith(".ts")
  ? new URL("../../dist/pool/worker.js", import.meta.url).href
  : new URL("./worker.js", import.meta.url).href;
export const DEFAULT_WORKER_MEMORY_MB = 512;
/** Longest a task may wait for a worker to pick it up before its clock starts regardless. */
const START_GRACE_MS = 30_000;

export class BundlePool {
  readonly jobs: number;
  private readonly pool: Piscina<BatchTask, BatchResult>;
  private readonly timeoutMs: number;

  constructor(o: PoolOptions = {}) {
    this.jobs = o.jobs ?? availableParallelism();
    this.timeoutMs = o.bundleTimeoutMs ?? DEFAULT_BUNDLE_TIMEOUT_MS;
    this.pool = new Piscina({
      filename: o.workerFile ?? DEFAULT_WORKER,
      minThreads: this.jobs,
      maxThreads: this.jobs,
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: { maxOldGenerationSizeMb: o.workerMemoryMb ?? DEFAULT_WORKER_MEMORY_MB },
    });
    // A worker that dies with no task attached (e.g. while being replaced) is not a bundle's fault.
    this.pool.on("error", () => {});
  }

  /** Score a batch; never rejects: failures come back as tool-error entries. */
  async score(batch: BundleRef[]): Promise<BundleEntry[]> {
    try {
      return await this.run(batch);
    } catch (e) {
      if (batch.length === 1) return [this.failed(batch[0]!, e)];
      // One at a time, so each gets a fresh deadline and an idle worker.
      const out: BundleEntry[] = [];
      for (const b of batch) {
        try {
          out.push(...(await this.run([b])));
        } catch (e1) {
          out.push(this.failed(b, e1));
        }
      }
      return out;
    }
  }

  /**
   * Run one task. Each bundle has `timeoutMs` from the moment the worker starts it (the worker
   * bumps a shared counter per bundle), so neither queueing, a replacement worker's boot nor its
   * batch-mates count against it, and a verdict never depends on how bundles were batched.
   */
  private async run(batch: BundleRef[]): Promise<BundleEntry[]> {
    const ac = new AbortController();
    const started = new Int32Array(new SharedArrayBuffer(4));
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const arm = (ms: number) => {
      clearTimeout(timer);
      if (!settled) timer = setTimeout(() => ac.abort(new BatchTimeout()), ms);
    };
    let seen = 0;
    const watch = (): void => {
      if (settled) return;
      const w = Atomics.waitAsync(started, 0, seen);
      const next = () => {
        if (settled) return;
        seen = Atomics.load(started, 0);
        arm(this.timeoutMs);
        watch();
      };
      if (w.async) void w.value.then(next);
      else next();
    };
    // Should no bundle ever start (a worker wedged before it), the clock runs anyway after a
    // grace period for queueing and boot: no task can wait forever.
    arm(START_GRACE_MS + this.timeoutMs);
    watch();
    try {
      return await this.pool.run({ bundles: batch, started }, { signal: ac.signal });
    } catch (e) {
      throw ac.signal.aborted ? ac.signal.reason : e;
    } finally {
      settled = true;
      clearTimeout(timer);
      Atomics.notify(started, 0); // release the watcher
    }
  }

  private failed(b: BundleRef, e: unknown): BundleEntry {
    return e instanceof BatchTimeout
      ? toolError(b.dir, b.path, "TIMEOUT", `ran past the ${this.timeoutMs} ms limit for one bundle`)
      : toolError(b.dir, b.path, "WORKER_FAILED", `the worker failed: ${(e as Error).message}`);
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}

class BatchTimeout extends Error {}
