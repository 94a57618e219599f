// The scoring run: discover → (store lookup) → pool of workers (read, validate, score) → store →
// batch rules. Effects live here, around the pure core; the CLI and the library API call this.

import { readFileSync } from "node:fs";
import { judgedEntry, type BatchOptions, type RunBatch } from "../core/batch/experiments.js";
import { runBatch } from "../kinds/batch.js";
import type { FilePart, SplitSizes } from "../kinds/kind.js";
import type { WholeFile } from "../kinds/scorer.js";
import { kindNamed } from "../kinds/registry.js";
import type { BatchRecord } from "../core/batch/record.js";
import { parseSchedule, ScheduleError, type Schedule } from "../core/batch/schedule.js";
import { sha256, unsafeReason, type BundleEntryInfo } from "../core/folder.js";
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
import { beyondDigest, racy, stampsOf, tryListEntries } from "../io/bundle-source.js";
import { discover, type Found, type FoundContainer, type OnSkip } from "../io/discover.js";
import { listingOf } from "../pool/listing.js";
import { BundlePool, type PoolOptions } from "../pool/pool.js";
import type { BatchResult, BundleRef, ListedEntry } from "../pool/types.js";
import type { BundleOptionsKey, ResultStore } from "../store/store.js";
import { SCORING_VERSION, TOOL_VERSION } from "../version.js";
import { batchFull, TaskSizer } from "./batching.js";
import { formatShard, inShard, ScanListing, type Shard } from "./shard.js";
import { entriesInMemory, EntrySpill, type EntrySource } from "./spill.js";
import { Books } from "./books.js";
import { placed } from "./placed.js";

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
}

/** The store's options for a run with this key file (§7: its fingerprint, never the key), or none. */
export const storeOptions = (hmacKey: Uint8Array | undefined): BundleOptionsKey =>
  hmacKey === undefined ? {} : { hmac_key: keyFingerprint(hmacKey) };

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

interface Pending extends Omit<BundleRef, "lookup"> {
  found: Found;
  /** One part of a large file (an Inspect log) spread over the workers. */
  part?: FilePart;
  /** Its size: null until its worker has listed it. */
  bytes: number | null;
  /** Stamps to record with the result (null without a store); what the key holds beyond the digest. */
  stamps: string | null;
  beyond: string | null;
  /** Storable: a store is in use and no entry is unsafe (§7: UNSAFE_PATH is never stored). */
  safe: boolean;
  /** Ask the worker to look the digest up in the store before scoring. */
  lookup: boolean;
}

/**
 * The stamps to record. Files changed in the last moments may change again within the same mtime
 * tick (git's "racy clean" case): such stamps are recorded marked, so they never match and the
 * next run rehashes that folder (cheap) instead of trusting them (wrong) or rescoring (slow).
 */
const recorded = (stamps: string, entries: readonly BundleEntryInfo[]): string =>
  racy(entries) ? `${stamps}#racy` : stamps;

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
  const startedAt = new Date().toISOString();
  const { store, progress, signal } = options;
  const fingerprint = options.hmacKey === undefined ? null : keyFingerprint(options.hmacKey);
  // A store opened for another key (or none) would serve entries whose seals were checked otherwise.
  if (store && (store.options["hmac_key"] ?? null) !== fingerprint)
    throw new Error("the results store was opened for another key than this run's");
  const batchSize = options.batchSize ?? 64;
  const sizer = new TaskSizer(batchSize); // refuses a batchSize that is not a positive integer, before anything starts
  const bundles = new EntrySpill(options.spillDir, options.spillAfterBytes);
  const books = new Books();
  const listing = new ScanListing();
  const pool = new BundlePool(options);
  const inflight = new Set<Promise<void>>();
  let everything = false;
  let ended = false;
  let failure: unknown;
  const counting = progress?.counted
    ? countAhead(roots, options.shard, progress, () => ended || signal?.aborted === true)
    : null;

  // Folders whose stamps did not match are hashed by a worker first, and taken from the store
  // when their digest is already scored (moved, copied or touched folders; --verify-digests).
  // Not on a store without a result of this scoring version when the run began (a first run, or
  // the first after a rules change): there is nothing to find.
  const spec = store?.hasCurrent() ? store.spec() : null;

  const finish = (batch: Pending[], results: BatchResult) => {
    const keep: { folder: string; stamps: string | null; beyond: string | null; entry: Omit<BundleEntry, "path"> }[] =
      [];
    const restamps: { folder: string; stamps: string; digest: string }[] = [];
    const again: Pending[] = [];
    results.forEach((answer, i) => {
      const p = batch[i]!;
      let bytes = p.bytes ?? 0;
      let r: Exclude<typeof answer, ListedEntry>;
      if ("listing" in answer) {
        // Listed by its worker: its size and seal are known only now.
        bytes = answer.listing.bytes;
        sizer.scored(bytes);
        if (answer.listing.sealed && fingerprint === null) options.onSealNotChecked?.(p.path);
        r = answer.entry;
      } else r = answer;
      if (p.part !== undefined) {
        const entry = p.part.assembly.add(p.part, r as Exclude<typeof r, { stored: unknown }>);
        if (entry !== null) {
          bundles.add(entry);
          progress?.done?.(entry, p.found.file?.size ?? 0, false);
        }
        return;
      }
      if ("part" in r) throw new Error(`a part came back for ${p.path}, which was not split`);
      if ("stored" in r) {
        const hit = store!.lookupDigest(r.stored.digest, r.stored.beyond);
        // A row today's schema rejects is a miss: score the bundle after all.
        if (hit === null) return void again.push({ ...p, lookup: false });
        const entry = placed(p.found, hit);
        bundles.add(entry);
        progress?.done?.(entry, bytes, true);
        restamps.push({ folder: p.dir, stamps: p.stamps!, digest: r.stored.digest });
        return;
      }
      const { path: _path, ...scored } = r;
      const entry = placed(p.found, scored);
      bundles.add(entry);
      progress?.done?.(entry, bytes, false);
      // Tool errors and UNSAFE_PATH bundles are never stored: they are scored afresh every run.
      if (store && p.safe && entry.validity !== "error")
        keep.push({ folder: p.dir, stamps: p.stamps, beyond: p.beyond, entry: scored });
    });
    if (store && keep.length > 0) store.put(keep);
    if (store && restamps.length > 0) store.restamp(restamps);
    if (again.length > 0) dispatch(again);
  };
  const dispatch = (batch: Pending[]) => {
    const refs = batch.map(({ dir, path, entries, bytes, found, lookup, part }): BundleRef => {
      if (found.file)
        return {
          dir,
          path,
          kind: found.kind,
          task: part?.task ?? ({ part: "whole", format: found.file.format } satisfies WholeFile),
        };
      return {
        dir,
        path,
        kind: found.kind,
        ...(bytes === null ? { answerListing: true as const } : { entries }),
        ...(lookup && spec ? { lookup: spec } : {}),
      };
    });
    const task: Promise<void> = pool.score(refs).then((results) => {
      inflight.delete(task);
      try {
        finish(batch, results);
      } catch (e) {
        failure ??= e; // the store refused a write: thrown from the run, never an unhandled rejection
      }
    });
    inflight.add(task);
  };

  /**
   * A bundle or Harbor trial found: with a store, listed once, here, and taken from the store when
   * its stamps match (null: done), else what to hand to a worker; without one, its worker lists it
   * (the main thread's time is what every worker waits on).
   */
  const listed = (found: Found): Pending | null => {
    progress?.found?.();
    if (store === undefined)
      return {
        found,
        dir: found.dir,
        path: found.path,
        kind: found.kind,
        bytes: null,
        stamps: null,
        beyond: null,
        safe: false,
        lookup: false,
      };
    // Listed once, here: the entry checks (§1) run on every run before any lookup, the store's
    // stamps and the progress bytes come from it, and the worker scores exactly this listing.
    // A folder that cannot be listed goes to a worker as it is: it reports the tool error.
    const entries = tryListEntries(found.dir, true);
    const { bytes, sealed } = listingOf(entries, found.kind);
    if (sealed && fingerprint === null) options.onSealNotChecked?.(found.path);
    const safe = entries !== undefined && !entries.some((e) => unsafeReason(e) !== null);
    let stamps: string | null = null;
    let beyond: string | null = null;
    if (safe) {
      stamps = stampsOf(entries!);
      beyond = beyondDigest(found.dir, entries!);
      const hit = options.verifyDigests ? null : store!.lookup(found.dir, stamps, beyond);
      if (hit !== null) {
        const entry = placed(found, hit);
        bundles.add(entry);
        progress?.done?.(entry, bytes, true);
        return null;
      }
      stamps = recorded(stamps, entries!);
    }
    // Stamps changed, the folder is new here, or --verify-digests: a worker rehashes it first.
    return {
      found,
      dir: found.dir,
      path: found.path,
      kind: found.kind,
      entries,
      bytes,
      stamps,
      beyond,
      safe,
      lookup: safe,
    };
  };

  try {
    let batch: Pending[] = [];
    let batchBytes = 0;
    /** Bundles this task may hold: the least its bundles allow (sizes unknown until scored allow fewer). */
    let batchLimit = batchSize;
    let seenCount = 0;
    const hooks = {
      onContainer: (c: FoundContainer) => books.found(c),
      onUnrecognised: (p: string) => books.notRecognised(p),
      allowEmpty: options.allowEmpty ?? false,
    };
    for (const found of discover(roots, options.onSkip, hooks)) {
      if (signal?.aborted) break;
      listing.found(found.path, found.kind, found.file?.size);
      if (options.shard && !inShard(found.path, options.shard)) continue;
      books.attach(found);
      if (++seenCount % 64 === 0) await new Promise(setImmediate); // let Ctrl-C and progress run
      const pending: Pending[] = [];
      if (found.file) {
        // A file (an Inspect log) is read whole or, when its kind splits it (a large .eval), in parts; never stored.
        progress?.found?.();
        const parts = kindNamed(found.kind).split?.(found, options.inspectSplit) ?? null;
        const log = {
          found,
          dir: found.dir,
          path: found.path,
          kind: found.kind,
          stamps: null,
          beyond: null,
          safe: false,
          lookup: false,
        };
        if (parts === null) pending.push({ ...log, bytes: found.file.size });
        else for (const part of parts) pending.push({ ...log, bytes: part.bytes, part });
      } else {
        const p = listed(found);
        if (p === null) continue;
        pending.push(p);
      }
      pool.start(); // its worker boots while discovery goes on (a run with nothing to score starts none)
      /** The batch handed to the pool once a task may go; false when the run was stopped first. */
      const handOut = async (): Promise<boolean> => {
        // A second task waits at each worker, so none idles between tasks while the main thread
        // catches up; and no more than that: discovery runs ahead only as far as it is needed.
        while (inflight.size >= 2 * pool.jobs) await Promise.race(inflight);
        if (failure !== undefined) throw failure;
        if (signal?.aborted) return false;
        dispatch(batch);
        sizer.handedOut();
        batch = [];
        batchBytes = 0;
        batchLimit = batchSize;
        return true;
      };
      let stop = false;
      for (const p of pending) {
        // A file's part is sized for the workers already (its kind's split): a task of its own.
        if (p.part !== undefined && batch.length > 0 && !(await handOut())) {
          stop = true;
          break;
        }
        batch.push(p);
        batchBytes += p.bytes ?? 0;
        if (p.bytes === null) batchLimit = Math.min(batchLimit, sizer.limit);
        if (p.part === undefined && !batchFull(batch.length, batchBytes, batchLimit)) continue;
        if (!(await handOut())) {
          stop = true;
          break;
        }
      }
      if (stop) break;
    }
    if (!signal?.aborted) {
      progress?.discovered?.();
      if (batch.length > 0) dispatch(batch);
      everything = true; // every bundle found was taken from the store or handed to a worker
    }
    // A task may hand out another (a stored row that turned out unusable): wait until none is left.
    while (inflight.size > 0) await Promise.all(inflight);
    if (failure !== undefined) throw failure;
  } catch (e) {
    bundles.close();
    throw e;
  } finally {
    ended = true;
    await letGo(bundles, async () => {
      await counting;
      await pool.destroy();
    });
  }
  const doc = await letGo(bundles, () =>
    assembleView(bundles, { ...options, keyFingerprint: fingerprint }, startedAt, {
      complete: everything,
      shard: options.shard,
      roots,
      // Schedules aside, as merge sets them aside: the batch rules run where the merge gives its own.
      scan: listing.scan(options.scanId, roots, [options.invalid, options.resourceBound, options.errors, fingerprint]),
      ...books.document(),
      unrecognised: books.unrecognised,
    }),
  );
  return { ...doc, close: () => bundles.close() };
}

/** `f`'s value; if it fails, the run fails, and its spill (a temporary file by now) goes with it. */
async function letGo<T>(spill: EntrySpill, f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    spill.close();
    throw e;
  }
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

/** The results document over bundle entries held in memory: sorted by path, with the batch rules. */
export function assemble(
  bundles: readonly BundleEntry[],
  options: BatchOptions & { schedules: readonly LoadedSchedule[]; keyFingerprint?: string | null },
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
  options: BatchOptions & { schedules: readonly LoadedSchedule[]; keyFingerprint?: string | null },
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
