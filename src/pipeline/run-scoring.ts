// One run of `assay score` over its roots: what discovery finds is listed (with a store: taken
// from it when its stamps match), gathered into pool tasks, and each answer placed, stored and
// spilled. The run's state is this object's: the pool, the tasks in flight, the batch being
// filled, the first failure, and whether every bundle found was handed out.

import type { FilePart } from "../kinds/kind.js";
import { kindNamed } from "../kinds/registry.js";
import type { WholeFile } from "../kinds/scorer.js";
import { unsafeReason, type BundleEntryInfo } from "../core/folder.js";
import type { BundleEntry } from "../core/results.js";
import { keyFingerprint } from "../core/seal.js";
import { beyondDigest, fileDigest, racy, stampsOf, tryListEntries } from "../io/bundle-source.js";
import { discover, type Found, type FoundContainer } from "../io/discover.js";
import { listingOf } from "../pool/listing.js";
import { BundlePool } from "../pool/pool.js";
import type { BatchResult, BundleRef, ListedEntry } from "../pool/types.js";
import type { StoreSpec } from "../pool/types.js";
import { batchFull, TaskSizer } from "./batching.js";
import { folderBytes, inThreadAllowed, within, type InThreadLimits } from "./in-thread.js";
import { Books } from "./books.js";
import { fileStamps } from "../store/file-stamps.js";
import { placed } from "./placed.js";
import { inShard, ScanListing } from "./shard.js";
import { EntrySpill } from "./spill.js";
import type { ScoreRunOptions } from "./score.js";

export interface Pending extends Omit<BundleRef, "lookup"> {
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

type Answer = Exclude<BatchResult[number], ListedEntry>;
interface Kept {
  folder: string;
  stamps: string | null;
  beyond: string | null;
  entry: Omit<BundleEntry, "path">;
}
interface Restamp {
  folder: string;
  stamps: string;
  digest: string;
}

/**
 * The stamps to record. Files changed in the last moments may change again within the same mtime
 * tick (git's "racy clean" case): such stamps are recorded marked, so they never match and the
 * next run rehashes that folder (cheap) instead of trusting them (wrong) or rescoring (slow).
 */
const recorded = (stamps: string, entries: readonly BundleEntryInfo[]): string =>
  racy(entries) ? `${stamps}#racy` : stamps;

export class RunScoring {
  readonly startedAt = new Date().toISOString();
  readonly fingerprint: string | null;
  readonly bundles: EntrySpill;
  readonly books = new Books();
  readonly listing = new ScanListing();
  /** Every bundle found was taken from the store or handed to a worker (not stopped first). */
  everything = false;
  /** Discovery and scoring are over (the count ahead stops with them). */
  ended = false;
  private readonly batchSize: number;
  private readonly sizer: TaskSizer;
  private readonly pool: BundlePool;
  private readonly inflight = new Set<Promise<void>>();
  /** The first failure of a task's answer (the store refused a write): thrown from the run. */
  private failure: unknown;
  /** What a worker looks a rehashed folder's digest up by (null: no store, or nothing there to find). */
  private readonly spec: StoreSpec | null;
  /** The task being filled: its bundles, their bytes, and how many it may hold. */
  private batch: Pending[] = [];
  private batchBytes = 0;
  private batchLimit: number;
  /** While the run may still be scored in this thread (in-thread.ts): the limits, and what is held. */
  private early: { limits: InThreadLimits; held: Pending[]; bytes: number } | null;
  /** Decided: this thread scores every task (a small run), not the pool. */
  private here = false;

  constructor(
    readonly roots: readonly string[],
    readonly options: ScoreRunOptions,
  ) {
    const { store } = options;
    this.fingerprint = options.hmacKey === undefined ? null : keyFingerprint(options.hmacKey);
    // A store opened for another key (or none) would serve entries whose seals were checked otherwise.
    if (store && (store.options["hmac_key"] ?? null) !== this.fingerprint)
      throw new Error("the results store was opened for another key than this run's");
    this.batchSize = options.batchSize ?? 64;
    this.sizer = new TaskSizer(this.batchSize); // refuses a batchSize that is not a positive integer, before anything starts
    this.batchLimit = this.batchSize;
    this.bundles = new EntrySpill(options.spillDir, options.spillAfterBytes);
    this.pool = new BundlePool(options);
    const limits = inThreadAllowed(options);
    this.early = limits === null ? null : { limits, held: [], bytes: 0 };
    // Folders whose stamps did not match are hashed by a worker first, and taken from the store
    // when their digest is already scored (moved, copied or touched folders; --verify-digests).
    // Not on a store without a result of this scoring version when the run began (a first run, or
    // the first after a rules change): there is nothing to find.
    this.spec = store?.hasCurrent() ? store.spec() : null;
  }

  /** Discover, hand out and wait for every answer; the pool is destroyed whatever happens. */
  async score(counting: Promise<void> | null): Promise<void> {
    try {
      await this.walk();
      // A task may hand out another (a stored row that turned out unusable): wait until none is left.
      while (this.inflight.size > 0) await Promise.all(this.inflight);
      if (this.failure !== undefined) throw this.failure;
    } catch (e) {
      this.bundles.close();
      throw e;
    } finally {
      this.ended = true;
      await letGo(this.bundles, async () => {
        await counting;
        await this.pool.destroy();
      });
    }
  }

  private async walk(): Promise<void> {
    const { options } = this;
    const { signal } = options;
    let seenCount = 0;
    const hooks = {
      onContainer: (c: FoundContainer) => this.books.found(c),
      onUnrecognised: (p: string) => this.books.notRecognised(p),
      allowEmpty: options.allowEmpty ?? false,
    };
    for (const found of discover(this.roots, options.onSkip, hooks)) {
      if (signal?.aborted) break;
      this.listing.found(found.path, found.kind, found.file?.size);
      if (options.shard && !inShard(found.path, options.shard)) continue;
      this.books.attach(found);
      if (++seenCount % 64 === 0) await new Promise(setImmediate); // let Ctrl-C and progress run
      let pending = this.pendingOf(found);
      if (pending.length === 0) continue;
      if (this.early !== null) {
        if (this.hold(pending)) continue;
        pending = this.early.held; // too much for this thread: the pool's, the held ones first
        this.early = null;
      }
      this.pool.start(); // its worker boots while discovery goes on (a run with nothing to score starts none)
      if (!(await this.gather(pending))) break;
    }
    if (!signal?.aborted) {
      options.progress?.discovered?.();
      if (this.early !== null && this.early.held.length > 0) {
        // Discovery ended within the limits: one task, scored here.
        this.here = true;
        this.dispatch(this.early.held);
      } else if (this.batch.length > 0) this.dispatch(this.batch);
      this.early = null;
      this.everything = true;
    }
  }

  /** Holds `pending` while the run is still within the in-thread limits; false once it is past them (then held too). */
  private hold(pending: readonly Pending[]): boolean {
    const early = this.early!;
    for (const p of pending) {
      early.held.push(p);
      // A file's size does not bound what reading it takes (a .eval's members are compressed: a
      // 1 MB log may decode to 80 MB of JSON): only a worker, with its deadline and memory cap, reads one.
      early.bytes += p.found.file ? Number.POSITIVE_INFINITY : (p.bytes ?? folderBytes(p.dir, p.found.kind));
    }
    return within(early.limits, early.held.length, early.bytes);
  }

  /** What a found thing gives the workers: a file whole or in its kind's parts; a folder unless the store has it. */
  private pendingOf(found: Found): Pending[] {
    if (!found.file) {
      const p = this.listed(found);
      return p === null ? [] : [p];
    }
    // A file (an Inspect log) is read whole or, when its kind splits it (a large .eval), in parts;
    // with a store, taken from it when its stamps match, as a folder is.
    const { store, progress, verifyDigests } = this.options;
    progress?.found?.();
    const stamped = store ? fileStamps(found.dir) : null;
    const hit = stamped && !verifyDigests ? store!.lookup(found.dir, stamped.stamps, null) : null;
    if (hit !== null) {
      const entry = placed(found, hit);
      this.bundles.add(entry);
      progress?.done?.(entry, found.file.size, true);
      return [];
    }
    const stamps = stamped?.recorded ?? null;
    const file = {
      found,
      dir: found.dir,
      path: found.path,
      kind: found.kind,
      stamps,
      beyond: null,
      safe: stamps !== null,
    };
    const parts = kindNamed(found.kind).split?.(found, this.options.inspectSplit) ?? null;
    // Stamps changed (touched, copied, --verify-digests): hashed first and taken from the store when
    // its bytes did not change. Read whole, by its worker; split, here, before its parts go out
    // (a part cannot stop its siblings; hashing is a small share of scoring a large log).
    if (parts === null) return [{ ...file, lookup: stamps !== null, bytes: found.file.size }];
    if (stamps !== null && this.spec !== null && this.fromStoreByDigest(found, stamps)) return [];
    return parts.map((part) => ({ ...file, lookup: false, bytes: part.bytes, part }));
  }

  /** A file whose digest the store has scored: placed, and its new stamps recorded; false when it is not there. */
  private fromStoreByDigest(found: Found, stamps: string): boolean {
    let digest: string;
    try {
      digest = fileDigest(found.dir);
    } catch {
      return false; // unreadable: its scorer reports why
    }
    const hit = this.options.store!.lookupDigest(digest, null);
    if (hit === null) return false;
    const entry = placed(found, hit);
    this.bundles.add(entry);
    this.options.progress?.done?.(entry, found.file?.size ?? 0, true);
    this.options.store!.restamp([{ folder: found.dir, stamps, digest }]);
    return true;
  }

  /** Adds to the batch, handing it out as it fills (a file's part, sized for the workers already, goes alone); false once stopped. */
  private async gather(pending: readonly Pending[]): Promise<boolean> {
    for (const p of pending) {
      if (p.part !== undefined && this.batch.length > 0 && !(await this.handOut())) return false;
      this.batch.push(p);
      this.batchBytes += p.bytes ?? 0;
      // Bundles this task may hold: the least its bundles allow (sizes unknown until scored allow fewer).
      if (p.bytes === null) this.batchLimit = Math.min(this.batchLimit, this.sizer.limit);
      if (p.part === undefined && !batchFull(this.batch.length, this.batchBytes, this.batchLimit)) continue;
      if (!(await this.handOut())) return false;
    }
    return true;
  }

  /** The batch handed to the pool once a task may go; false when the run was stopped first. */
  private async handOut(): Promise<boolean> {
    // A second task waits at each worker, so none idles between tasks while the main thread
    // catches up; and no more than that: discovery runs ahead only as far as it is needed.
    while (this.inflight.size >= 2 * this.pool.jobs) await Promise.race(this.inflight);
    if (this.failure !== undefined) throw this.failure;
    if (this.options.signal?.aborted) return false;
    this.dispatch(this.batch);
    this.sizer.handedOut();
    this.batch = [];
    this.batchBytes = 0;
    this.batchLimit = this.batchSize;
    return true;
  }

  /**
   * A bundle or Harbor trial found: with a store, listed once, here, and taken from the store when
   * its stamps match (null: done), else what to hand to a worker; without one, its worker lists it
   * (the main thread's time is what every worker waits on).
   */
  private listed(found: Found): Pending | null {
    const { store, progress, verifyDigests, onSealNotChecked } = this.options;
    progress?.found?.();
    const at = { found, dir: found.dir, path: found.path, kind: found.kind };
    if (store === undefined) return { ...at, bytes: null, stamps: null, beyond: null, safe: false, lookup: false };
    // Listed once, here: the entry checks (§1) run on every run before any lookup, the store's
    // stamps and the progress bytes come from it, and the worker scores exactly this listing.
    // A folder that cannot be listed goes to a worker as it is: it reports the tool error.
    const entries = tryListEntries(found.dir, true);
    const { bytes, sealed } = listingOf(entries, found.kind);
    if (sealed && this.fingerprint === null) onSealNotChecked?.(found.path);
    const safe = entries !== undefined && !entries.some((e) => unsafeReason(e) !== null);
    if (!safe) return { ...at, entries, bytes, stamps: null, beyond: null, safe, lookup: false };
    const stamps = stampsOf(entries);
    const beyond = beyondDigest(found.dir, entries);
    const hit = verifyDigests ? null : store.lookup(found.dir, stamps, beyond);
    if (hit !== null) {
      const entry = placed(found, hit);
      this.bundles.add(entry);
      progress?.done?.(entry, bytes, true);
      return null;
    }
    // Stamps changed, the folder is new here, or --verify-digests: a worker rehashes it first.
    return { ...at, entries, bytes, stamps: recorded(stamps, entries), beyond, safe, lookup: true };
  }

  private dispatch(batch: Pending[]): void {
    const refs = batch.map(({ dir, path, entries, bytes, found, lookup, part }): BundleRef => {
      if (found.file) {
        const task = part?.task ?? ({ part: "whole", format: found.file.format } satisfies WholeFile);
        return { dir, path, kind: found.kind, task, ...(lookup && this.spec ? { lookup: this.spec } : {}) };
      }
      return {
        dir,
        path,
        kind: found.kind,
        ...(bytes === null ? { answerListing: true as const } : { entries }),
        ...(lookup && this.spec ? { lookup: this.spec } : {}),
      };
    });
    const answers = this.here ? this.pool.scoreHere(refs) : this.pool.score(refs);
    const task: Promise<void> = answers.then(async (results) => {
      this.inflight.delete(task);
      // The run's last answers (discovery over, no other task out): the workers go first, so the
      // step that may follow here (a split log's last) holds none of their memory.
      if (this.everything && this.inflight.size === 0) await this.pool.rest();
      try {
        this.finish(batch, results);
      } catch (e) {
        this.failure ??= e; // the store refused a write: thrown from the run, never an unhandled rejection
      }
    });
    this.inflight.add(task);
  }

  /** A task's answers: each placed and spilled; the scored ones stored, the store's hits restamped, unusable hits scored again. */
  private finish(batch: Pending[], results: BatchResult): void {
    const { store } = this.options;
    const keep: Kept[] = [];
    const restamps: Restamp[] = [];
    const again: Pending[] = [];
    results.forEach((answer, i) => this.answered(batch[i]!, answer, keep, restamps, again));
    if (store && keep.length > 0) store.put(keep);
    if (store && restamps.length > 0) store.restamp(restamps);
    if (again.length > 0) this.dispatch(again);
  }

  private answered(p: Pending, answer: BatchResult[number], keep: Kept[], restamps: Restamp[], again: Pending[]): void {
    const { store, progress } = this.options;
    let bytes = p.bytes ?? 0;
    let r: Answer;
    if ("listing" in answer) {
      // Listed by its worker: its size and seal are known only now.
      bytes = answer.listing.bytes;
      this.sizer.scored(bytes);
      if (answer.listing.sealed && this.fingerprint === null) this.options.onSealNotChecked?.(p.path);
      r = answer.entry;
    } else r = answer;
    if (p.part !== undefined) {
      const entry = p.part.assembly.add(p.part, r as Exclude<Answer, { stored: unknown }>);
      if (entry === null) return;
      this.bundles.add(entry);
      progress?.done?.(entry, p.found.file?.size ?? 0, false);
      if (store && p.safe && entry.validity !== "error") {
        const { path: _path, ...whole } = entry;
        keep.push({ folder: p.dir, stamps: p.stamps, beyond: null, entry: whole });
      }
      return;
    }
    if ("part" in r) throw new Error(`a part came back for ${p.path}, which was not split`);
    if ("stored" in r) {
      const hit = store!.lookupDigest(r.stored.digest, r.stored.beyond);
      // A row today's schema rejects is a miss: score the bundle after all.
      if (hit === null) return void again.push({ ...p, lookup: false });
      const entry = placed(p.found, hit);
      this.bundles.add(entry);
      progress?.done?.(entry, bytes, true);
      return void restamps.push({ folder: p.dir, stamps: p.stamps!, digest: r.stored.digest });
    }
    const { path: _path, ...scored } = r;
    const entry = placed(p.found, scored);
    this.bundles.add(entry);
    progress?.done?.(entry, bytes, false);
    // Tool errors and UNSAFE_PATH bundles are never stored: they are scored afresh every run.
    if (store && p.safe && entry.validity !== "error")
      keep.push({ folder: p.dir, stamps: p.stamps, beyond: p.beyond, entry: scored });
  }
}

/** `f`'s value; if it fails, the run fails, and its spill (a temporary file by now) goes with it. */
export async function letGo<T>(spill: EntrySpill, f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    spill.close();
    throw e;
  }
}
