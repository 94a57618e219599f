// The main thread's side of the worker pool: batches out, entries back, and isolation — a batch
// whose worker threw, hung or ran out of memory is re-run one bundle at a time so only the
// culprit becomes a tool error; the next task starts a fresh worker and the run goes on.

import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Piscina } from "piscina";
import { tryListEntries } from "../io/bundle-source.js";
import { toolError } from "../io/tool-error.js";
import { scorerOf } from "../kinds/list.js";
import { listingOf } from "./listing.js";
import type { BatchResult, BatchTask, BundleRef, ListedEntry } from "./types.js";
import type { BundleOptions, DatasetFile } from "../core/folder.js";
import type { BundleEntry } from "../core/results.js";

export interface PoolOptions {
  /** Worker threads at most (started as work arrives). Default: the available parallelism; never above maxJobs(). */
  jobs?: number;
  /** Time one bundle may take, from the moment a worker starts it. */
  bundleTimeoutMs?: number;
  /** Old-generation heap per worker; past it the worker dies and its bundle is a tool error. */
  workerMemoryMb?: number;
  /** The worker module (a file URL or path); the library's own by default. */
  workerFile?: string;
  /** §8: the key file's bytes; every assay bundle's seal is then checked. */
  hmacKey?: Uint8Array | undefined;
  /** --dataset: the benchmark's task list, handed to every scorer (the kinds that read one check against it). */
  dataset?: DatasetFile | undefined;
  /** How long a task may wait with nothing in the pool moving before its clock starts (default START_GRACE_MS). */
  startGraceMs?: number;
}

export const DEFAULT_BUNDLE_TIMEOUT_MS = 60_000;
/** Workers run compiled JS: when this module is loaded from source (tests), use the build's worker. */
const DEFAULT_WORKER = import.meta.url.endsWith(".ts")
  ? new URL("../../dist/pool/worker.js", import.meta.url).href
  : new URL("./worker.js", import.meta.url).href;
/** The CommonJS entry piscina loads; it imports the worker module (see entry.cts for why). */
const ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("../../dist/pool/entry.cjs", import.meta.url).href
  : new URL("./entry.cjs", import.meta.url).href;
/** A worker module given as a URL, or as a path (resolved from the current directory, as piscina did). */
const moduleUrl = (file: string): string =>
  /^[a-z][a-z0-9+.-]*:/i.test(file) && !/^[a-z]:[\\/]/i.test(file) ? file : pathToFileURL(resolve(file)).href;
export const DEFAULT_WORKER_MEMORY_MB = 512;
/**
 * A worker's young generation. Each bundle's garbage dies young; V8's default (up to 48 MB) lets a
 * long run's workers creep upward for minutes: peak RSS growth over 20k → 80k small bundles was
 * 0.67 KB a bundle. Measured with workers listing their own bundles: 4 MB 0.38 KB, 8 MB 0.49–0.54,
 * 16 MB 0.48, against the 0.5 KB target; larger ones spend ~10–15 % less CPU in scavenges.
 */
const WORKER_YOUNG_MB = 4;
/**
 * Longest a task may wait unstarted while no other task's bundle is running either (workers that
 * never finish booting) before its clock starts regardless.
 */
const START_GRACE_MS = 30_000;
/**
 * Longest the tasks behind the first wait for it to come back before they may start more workers
 * (a first task that takes long: a large or hanging bundle). A worker boots in ~150 ms here.
 */
const FIRST_TASK_WAIT_MS = 500;
/** How often a task not yet started is looked at. */
const UNSTARTED_POLL_MS = 50;
/** setTimeout's ceiling (2^31 - 1 ms); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Workers per CPU worth having: past a few, more threads only cost memory (each holds its own heap). */
export const JOBS_PER_CPU = 4;
/** The most workers a pool starts on this machine, whatever it is asked for. */
export const maxJobs = (): number => JOBS_PER_CPU * availableParallelism();

export class BundlePool {
  readonly jobs: number;
  private readonly options: PoolOptions;
  /** Made at the first start() or task: a pool with nothing to score starts no worker. */
  private pool: Piscina<BatchTask, BatchResult> | undefined;
  /** The pool as it is made: piscina is loaded with the first worker (a run scored in the main thread never loads it). */
  private starting: Promise<Piscina<BatchTask, BatchResult>> | undefined;
  /** The worker module's scoring function, loaded into this thread by the first scoreHere(). */
  private here: Promise<Handler> | undefined;
  private destroyed = false;
  private readonly timeoutMs: number;
  /** What every folder is scored with (the seal key, the dataset), sent once per task. */
  private readonly bundleOptions: BundleOptions;
  private readonly startGraceMs: number;
  /** Each task in flight's clock (when its current bundle started; 0 until it starts). */
  private readonly clocks = new Set<BigInt64Array>();
  /** Once the first task is handed out: the tasks waiting behind it, until it lets them go (see handOut). */
  private behindFirst: { waiting: number; go: () => void; gone: Promise<void> } | undefined;

  constructor(o: PoolOptions = {}) {
    this.jobs = Math.min(o.jobs ?? availableParallelism(), maxJobs());
    this.timeoutMs = o.bundleTimeoutMs ?? DEFAULT_BUNDLE_TIMEOUT_MS;
    this.bundleOptions = {
      ...(o.hmacKey ? { hmacKey: o.hmacKey } : {}),
      ...(o.dataset ? { dataset: o.dataset } : {}),
    };
    this.startGraceMs = o.startGraceMs ?? START_GRACE_MS;
    this.options = o;
  }

  /**
   * Start the first worker, if not yet started: a run calls this at the first thing a worker must
   * score, so the worker boots while the rest is found (and none starts for a run with none).
   */
  start(): void {
    this.piscina().catch(() => {}); // a pool that cannot start fails its tasks, each a tool error
  }

  private piscina(): Promise<Piscina<BatchTask, BatchResult>> {
    // After destroy() nothing more runs: workers made or tasks run then would outlive the run they belonged to.
    if (this.destroyed) throw new Error("the bundle pool was used after destroy()");
    return (this.starting ??= import("piscina").then(({ Piscina }) => {
      const o = this.options;
      this.pool = new Piscina<BatchTask, BatchResult>({
        filename: ENTRY,
        workerData: { workerModule: this.workerModule() },
        // One up front, the rest as tasks find none free, up to maxThreads: a small run starts only the
        // workers it uses. At least one, because piscina replaces a worker it terminates (a task past
        // its deadline) only up to minThreads: with none, tasks queued behind the aborted one waited
        // for the next run() call, or past the start grace into TIMEOUT. A started one stays.
        minThreads: 1,
        maxThreads: this.jobs,
        idleTimeout: Number.POSITIVE_INFINITY,
        resourceLimits: {
          maxOldGenerationSizeMb: o.workerMemoryMb ?? DEFAULT_WORKER_MEMORY_MB,
          maxYoungGenerationSizeMb: WORKER_YOUNG_MB,
        },
      });
      // A worker that dies with no task attached (e.g. while being replaced) is not a bundle's fault.
      this.pool.on("error", () => {});
      return this.pool;
    }));
  }

  /**
   * Score a batch in this thread with the workers' own module (a small run: see
   * pipeline/in-thread.ts), answering as a worker would; a throw is handled as a worker's (each
   * bundle again alone, the culprit a WORKER_FAILED tool error). No deadline applies: only a
   * worker can be stopped, so a run with a time limit of its own, or a worker module of its own,
   * is scored by workers.
   */
  async scoreHere(batch: BundleRef[]): Promise<BatchResult> {
    const score = await (this.here ??= import(this.workerModule()).then((m: { default: Handler }) => m.default));
    const task = (bundles: BundleRef[]): BatchTask => ({ bundles, options: this.bundleOptions });
    try {
      return await score(task(batch));
    } catch (e) {
      if (batch.length === 1) return [await this.failed(batch[0]!, e)];
      const out: BatchResult = [];
      for (const b of batch) {
        try {
          out.push(...(await score(task([b]))));
        } catch (e1) {
          out.push(await this.failed(b, e1));
        }
      }
      return out;
    }
  }

  private workerModule(): string {
    const file = this.options.workerFile;
    return file === undefined ? DEFAULT_WORKER : moduleUrl(file);
  }

  /** Score a batch; never rejects: failures come back as tool-error entries. */
  async score(batch: BundleRef[]): Promise<BatchResult> {
    try {
      return await this.run(batch);
    } catch (e) {
      if (batch.length === 1) return [await this.failed(batch[0]!, e)];
      // One at a time, so each gets a fresh deadline and an idle worker.
      const out: BatchResult = [];
      for (const b of batch) {
        try {
          out.push(...(await this.run([b])));
        } catch (e1) {
          out.push(await this.failed(b, e1));
        }
      }
      return out;
    }
  }

  /** Is another task's bundle running within its time limit (the pool is moving)? */
  private moving(now: number, own: BigInt64Array): boolean {
    for (const clock of this.clocks) {
      const at = Number(Atomics.load(clock, 0));
      if (clock !== own && at !== 0 && now < at + this.timeoutMs) return true;
    }
    return false;
  }

  /**
   * Run one task. Each bundle has `timeoutMs` from the moment the worker starts it (the worker
   * writes that time into shared memory), so neither queueing, a replacement worker's boot nor its
   * batch-mates count against it, and a verdict never depends on how bundles were batched. One
   * timer per task: when it fires it re-arms from the current bundle's start, or aborts. A task
   * not yet started waits for free while other tasks' bundles run (queued behind a long task is
   * not slow); only once nothing has moved for the start grace is its clock started.
   */
  private async run(batch: BundleRef[]): Promise<BatchResult> {
    const ac = new AbortController();
    const started = new BigInt64Array(new SharedArrayBuffer(8));
    let waitingSince = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      const at = Number(Atomics.load(started, 0));
      const now = Date.now();
      if (at === 0 && this.moving(now, started)) waitingSince = now;
      if (at === 0 && now < waitingSince + this.startGraceMs) {
        // Not started yet (queued behind other tasks, a worker booting): look again shortly.
        timer = setTimeout(check, Math.min(this.timeoutMs, UNSTARTED_POLL_MS));
        return;
      }
      // Past the grace period a task that never started is timed from its end.
      const left = (at === 0 ? waitingSince + this.startGraceMs : at) + this.timeoutMs - now;
      if (left <= 0) ac.abort(new BatchTimeout());
      else timer = setTimeout(check, Math.min(left, MAX_TIMER_MS));
    };
    timer = setTimeout(check, Math.min(this.timeoutMs, MAX_TIMER_MS));
    this.clocks.add(started);
    try {
      const task: BatchTask = { bundles: batch, started, options: this.bundleOptions };
      return await this.handOut(task, ac.signal);
    } catch (e) {
      throw ac.signal.aborted ? ac.signal.reason : e;
    } finally {
      clearTimeout(timer);
      this.clocks.delete(started);
    }
  }

  /**
   * piscina starts a worker for each task it cannot place at once, so the first task goes to it
   * alone and the others wait behind it until it is back, it has had FIRST_TASK_WAIT_MS, or `jobs`
   * of them wait (work enough for more workers). A run smaller than a worker's boot (a bundle or a
   * few) is then scored by the one worker, not one per task; a larger one starts the others at once.
   */
  private async handOut(task: BatchTask, signal: AbortSignal): Promise<BatchResult> {
    const behind = this.behindFirst;
    if (behind === undefined) {
      let go!: () => void;
      const gone = new Promise<void>((resolve) => (go = resolve));
      this.behindFirst = { waiting: 0, go, gone };
      setTimeout(go, FIRST_TASK_WAIT_MS).unref();
      const first = this.piscina().then((pool) => pool.run(task, { signal }));
      first.then(go, go);
      return first;
    }
    if (++behind.waiting >= this.jobs) behind.go();
    await behind.gone;
    return (await this.piscina()).run(task, { signal });
  }

  private async failed(b: BundleRef, e: unknown): Promise<BundleEntry | ListedEntry> {
    const kind = b.kind ?? "bundle";
    // Its kind's scorer says what it can of it (loaded here only when a worker fails one of its kind).
    const scorer = await scorerOf(kind);
    const attribute = scorer.form === "folder" ? scorer.attribute : undefined;
    const entry =
      e instanceof BatchTimeout
        ? toolError(b.dir, b.path, "TIMEOUT", `ran past the ${this.timeoutMs} ms limit for one bundle`, kind, attribute)
        : toolError(b.dir, b.path, "WORKER_FAILED", `the worker failed: ${(e as Error).message}`, kind, attribute);
    // Answered in the shape asked for: the folder is listed here (rare), so its size and seal count as any other's.
    return b.answerListing ? { entry, listing: listingOf(tryListEntries(b.dir), kind) } : entry;
  }

  /**
   * Let the workers go while no task is out (the caller knows): a long step in this thread after
   * them (a split log's last, over every record of 100,000 samples) then holds none of their
   * memory (~25 MB a worker: heap, decoder, stack). The next task starts the pool afresh.
   */
  async rest(): Promise<void> {
    const starting = this.starting;
    this.starting = undefined;
    this.pool = undefined;
    this.behindFirst = undefined;
    await (await starting?.catch(() => undefined))?.destroy();
  }

  async destroy(): Promise<void> {
    this.destroyed = true;
    await (await this.starting?.catch(() => undefined))?.destroy();
  }
}

class BatchTimeout extends Error {}
type Handler = (task: BatchTask) => BatchResult | Promise<BatchResult>;
