// The scoring run: discover → (store lookup) → pool of workers (read, validate, score) → store →
// batch rules. Effects live here, around the pure core; the CLI and the library API call this.

import { readFileSync } from "node:fs";
import { judgedEntry, type BatchOptions, type RunBatch } from "../core/batch/experiments.js";
import { runBatch } from "../kinds/batch.js";
import type { SplitSizes } from "../kinds/kind.js";
import type { BatchRecord } from "../core/batch/record.js";
import { parseSchedule, ScheduleError, type Schedule } from "../core/batch/schedule.js";
import { sha256, type DatasetFile } from "../core/folder.js";
import {
  count,
  emptyTally,
  materialize,
  type BundleEntry,
  type Containers,
  type JobRecord,
  type Results,
  type ResultsView,
  type Scan,
  type Tally,
  type Unrecognised,
} from "../core/results.js";
import { keyFingerprint } from "../core/seal.js";
import { byteCompare, forTerminal } from "../core/text.js";
import { discover, type OnSkip } from "../io/discover.js";
import type { PoolOptions } from "../pool/pool.js";
import type { BundleOptionsKey, ResultStore } from "../store/store.js";
import { SCORING_VERSION, TOOL_VERSION } from "../version.js";
import { formatShard, inShard, type Shard } from "./shard.js";
import { entriesInMemory, type EntrySource } from "./spill.js";
import { placed } from "./placed.js";
import type { InThreadLimits } from "./in-thread.js";
import { letGo, RunScoring } from "./run-scoring.js";

export { placed };

export interface LoadedSchedule {
  name: string;
  schedule: Schedule;
  digest: string;
}

export interface Progress {
  /** A bundle was discovered. */
  found?(): void;
  /** Discovery has finished. */
  discovered?(): void;
  /**
   * How many bundles a look-ahead count has found so far (`final`: all of them). Work is handed
   * out only a few batches ahead of the workers, so `found` alone would learn the total only at
   * the very end; this count runs ahead (reading directories only) so an ETA can be given early.
   */
  counted?(bundles: number, final: boolean): void;
  /** A bundle's entry is final (`cached`: it came from the store). */
  done?(entry: BundleEntry, bytes: number, cached: boolean): void;
}

export interface ScoreRunOptions extends BatchOptions, PoolOptions {
  schedules: readonly LoadedSchedule[];
  /** Called for a directory below a root that could not be walked (the run goes on). */
  onSkip?: OnSkip;
  /** A root under which nothing is recognised is an error (DISCOVERY) unless this is set. */
  allowEmpty?: boolean;
  progress?: Progress;
  store?: ResultStore;
  /** Ignore the store's stamps and rehash every bundle. */
  verifyDigests?: boolean;
  shard?: Shard;
  /** issue 35: the scan's id (--scan-id), which every shard of one scan carries; else one is derived (shard.ts ScanListing). */
  scanId?: string | undefined;
  /** Stop handing out work (Ctrl-C); what finished is kept and the document says incomplete. */
  signal?: AbortSignal;
  /** Bundles per pool task (at most; see batching.ts). */
  batchSize?: number;
  /** Where the run's entries wait for the document (default: ASSAY_TMPDIR, else the system's temporary folder). */
  spillDir?: string;
  /** Entry text held in memory before the spill file is made (default 4 MB). */
  spillAfterBytes?: number;
  /** When a large file is split into parts read by several workers (Inspect's .eval; default: its kind's). */
  inspectSplit?: SplitSizes;
  /** Without a key: called for each assay bundle (stored or not) that holds seal.json, which goes unchecked. */
  onSealNotChecked?: (path: string) => void;
  /** A run within these limits is scored in the main thread (default IN_THREAD; null: always by workers). See in-thread.ts. */
  inThread?: InThreadLimits | null;
}

/** The store's options for a run with this key file (§7: its fingerprint, never the key) and dataset (its digest), or none. */
export const storeOptions = (hmacKey: Uint8Array | undefined, dataset?: DatasetFile): BundleOptionsKey => ({
  ...(hmacKey === undefined ? {} : { hmac_key: keyFingerprint(hmacKey) }),
  ...(dataset === undefined ? {} : { dataset: dataset.sha256 }),
});

/** Count the bundles discovery will find, yielding to the event loop, until done or `stopped()`. */
async function countAhead(
  roots: readonly string[],
  shard: Shard | undefined,
  progress: Progress,
  stopped: () => boolean,
): Promise<void> {
  let n = 0;
  try {
    for (const found of discover(roots)) {
      if (stopped()) return;
      if (shard && !inShard(found.path, shard)) continue;
      if (++n % 256 === 0) {
        progress.counted?.(n, false);
        await new Promise(setImmediate);
      }
    }
  } catch {
    return; // the run's own discovery reports what is wrong with a root
  }
  if (!stopped()) progress.counted?.(n, true);
}

export function loadSchedule(file: string): LoadedSchedule {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new ScheduleError(
      `cannot read schedule ${forTerminal(file)}: ${err.code === "EISDIR" ? "it is a folder" : err.code === "ENOENT" ? "no such file" : err.message}`,
    );
  }
  return { name: file, schedule: parseSchedule(bytes, file), digest: sha256(bytes) };
}

/** A scored run: its document, entries read from the spill as it is written; close() removes the spill. */
export interface ScoredRun extends ResultsView {
  close(): void;
}

/** Score the roots into a document held whole in memory (the library API, tests, small runs). */
export async function scoreRoots(roots: readonly string[], options: ScoreRunOptions): Promise<Results> {
  const run = await scoreRun(roots, options);
  try {
    return materialize(run);
  } finally {
    run.close();
  }
}

/**
 * Score the roots. Entries leave memory as they are scored (spilled to a temporary file, a compact
 * record kept for the batch rules); the document reads them back in path order as it is written.
 */
export async function scoreRun(roots: readonly string[], options: ScoreRunOptions): Promise<ScoredRun> {
  const run = new RunScoring(roots, options);
  const { progress, signal } = options;
  const counting = progress?.counted
    ? countAhead(roots, options.shard, progress, () => run.ended || signal?.aborted === true)
    : null;
  await run.score(counting);
  const doc = await letGo(run.bundles, () =>
    assembleView(run.bundles, { ...options, keyFingerprint: run.fingerprint }, run.startedAt, {
      complete: run.everything,
      shard: options.shard,
      roots,
      // Schedules aside, as merge sets them aside: the batch rules run where the merge gives its own.
      scan: run.listing.scan(options.scanId, roots, [
        options.invalid,
        options.resourceBound,
        options.errors,
        run.fingerprint,
      ]),
      ...run.books.document(),
      unrecognised: run.books.unrecognised,
    }),
  );
  return { ...doc, close: () => run.bundles.close() };
}

/** What a document says of its run beyond the options: the Harbor jobs found and what was not recognised default to none. */
interface RunFacts {
  complete: boolean;
  shard?: Shard | undefined;
  roots: readonly string[];
  /** Which scan (absent: a document of no scan, as the library's assemble() makes). */
  scan?: Scan | undefined;
  jobs?: readonly JobRecord[];
  /** The other kinds' containers (absent: none). */
  containers?: Containers | undefined;
  unrecognised?: Unrecognised;
}

/** The tally of the entries as judged (the summary line and the table count what bundles[] says). */
function judgedTally(records: readonly BatchRecord[], batch: RunBatch): Tally {
  const t = emptyTally();
  for (const r of records)
    count(t, {
      profile: r.profile,
      validity: r.validity === "valid" && batch.errorsOf(r).length > 0 ? "invalid" : r.validity,
    });
  return t;
}

/** What the document's run.options record, beside the batch rules' own options. */
export type AssembleOptions = BatchOptions & {
  schedules: readonly LoadedSchedule[];
  keyFingerprint?: string | null;
  dataset?: DatasetFile | undefined;
};

/** The results document over bundle entries held in memory: sorted by path, with the batch rules. */
export function assemble(
  bundles: readonly BundleEntry[],
  options: AssembleOptions,
  startedAt: string,
  run: RunFacts,
): Results {
  return materialize(assembleView(entriesInMemory(bundles), options, startedAt, run));
}

/**
 * The results document over bundle entries (in path order): the run, and the batch rules over
 * their records. Harbor experiments are named over the whole run (two jobs of one name), and each
 * entry takes its name as it is written; a shard's entries keep their job folder's name until
 * `assay merge` names them over every shard.
 */
export function assembleView(
  source: EntrySource,
  options: AssembleOptions,
  startedAt: string,
  run: RunFacts,
): ResultsView {
  const jobs = [...(run.jobs ?? [])];
  const batch = run.shard
    ? null
    : runBatch(
        source.records,
        options.schedules.map((s) => s.schedule),
        options,
        jobs,
        run.containers ?? {},
      );
  const bundles: Iterable<BundleEntry> =
    batch === null
      ? source
      : {
          *[Symbol.iterator]() {
            for (const e of source) {
              const name = batch.nameOf(e);
              const judged = judgedEntry(e, batch.errorsOf(e));
              yield name === judged.experiment ? judged : { ...judged, experiment: name };
            }
          },
        };
  return {
    format: "assay.results/1",
    run: {
      tool_version: TOOL_VERSION,
      scoring_version: SCORING_VERSION,
      started_at: startedAt,
      complete: run.complete,
      shard: run.shard ? formatShard(run.shard) : null,
      roots: [...run.roots],
      options: {
        invalid: options.invalid,
        resource_bound: options.resourceBound,
        errors: options.errors,
        schedules: options.schedules.map((s) => `${s.schedule.experiment}:${s.digest}`).sort(byteCompare),
        hmac_key: options.keyFingerprint ?? null,
        ...(options.dataset ? { dataset: { file: options.dataset.file, sha256: options.dataset.sha256 } } : {}),
        filters: null,
      },
      ...(run.scan === undefined ? {} : { scan: run.scan }),
      jobs,
      ...(run.containers === undefined ? {} : { containers: run.containers }),
      unrecognised: run.unrecognised ?? { count: 0, paths: [] },
    },
    bundles,
    tally: batch === null ? source.tally : judgedTally(source.records, batch),
    // A shard holds entries only: batch rules need every bundle, so `assay merge` computes them.
    experiments: batch === null ? [] : batch.experiments(),
  };
}
