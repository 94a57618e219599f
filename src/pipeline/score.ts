// The scoring run: discover → (store lookup) → pool of workers (read, validate, score) → store →
// batch rules. Effects live here, around the pure core; the CLI and the library API call this.

import { readFileSync } from "node:fs";
import { computeExperiments, type BatchOptions } from "../core/batch/experiments.js";
import { parseSchedule, type Schedule } from "../core/batch/schedule.js";
import { sha256, unsafeReason } from "../core/bundle.js";
import type { BundleEntry, Results } from "../core/results.js";
import { byteCompare } from "../core/text.js";
import { listEntries, stampsOf } from "../io/bundle-source.js";
import { discover, type OnSkip } from "../io/discover.js";
import { BundlePool, type PoolOptions } from "../pool/pool.js";
import type { BundleRef } from "../pool/types.js";
import type { ResultStore } from "../store/store.js";
import { SCORING_VERSION, TOOL_VERSION } from "../version.js";
import { formatShard, inShard, type Shard } from "./shard.js";

export interface LoadedSchedule {
  name: string;
  schedule: Schedule;
  digest: string;
}

export interface Progress {
  /** A bundle was discovered (with its size in bytes). */
  found?(bytes: number): void;
  /** Discovery has finished. */
  discovered?(): void;
  /** A bundle's entry is final (`cached`: it came from the store). */
  done?(entry: BundleEntry, bytes: number, cached: boolean): void;
}

export interface ScoreRunOptions extends BatchOptions, PoolOptions {
  schedules: readonly LoadedSchedule[];
  /** Called for a directory below a root that could not be walked (the run goes on). */
  onSkip?: OnSkip;
  progress?: Progress;
  store?: ResultStore;
  /** Ignore the store's stamps and rehash every bundle. */
  verifyDigests?: boolean;
  shard?: Shard;
  /** Stop handing out work (Ctrl-C); what finished is kept and the document says incomplete. */
  signal?: AbortSignal;
  /** Bundles per pool task. */
  batchSize?: number;
}

export function loadSchedule(file: string): LoadedSchedule {
  const bytes = readFileSync(file);
  return { name: file, schedule: parseSchedule(bytes, file), digest: sha256(bytes) };
}

interface Pending extends Required<BundleRef> {
  bytes: number;
  stamps: string | null;
}

export async function scoreRoots(roots: readonly string[], options: ScoreRunOptions): Promise<Results> {
  const startedAt = new Date().toISOString();
  const { store, progress, signal } = options;
  const bundles: BundleEntry[] = [];
  const pool = new BundlePool(options);
  const batchSize = options.batchSize ?? 16;
  const inflight = new Set<Promise<void>>();

  const finish = (batch: Pending[], entries: BundleEntry[]) => {
    const keep: { folder: string; stamps: string; entry: Omit<BundleEntry, "path"> }[] = [];
    entries.forEach((entry, i) => {
      const p = batch[i]!;
      bundles.push(entry);
      progress?.done?.(entry, p.bytes, false);
      // Tool errors and UNSAFE_PATH bundles are never stored: they are scored afresh every run.
      if (store && p.stamps !== null && entry.validity !== "error") {
        const { path: _path, ...stored } = entry;
        keep.push({ folder: p.dir, stamps: p.stamps, entry: stored });
      }
    });
    if (store && keep.length > 0) store.put(keep);
  };
  const dispatch = (batch: Pending[]) => {
    const task: Promise<void> = pool.score(batch.map(({ dir, path, entries }) => ({ dir, path, entries }))).then((entries) => {
      finish(batch, entries);
      inflight.delete(task);
    });
    inflight.add(task);
  };

  try {
    let batch: Pending[] = [];
    for (const found of discover(roots, options.onSkip)) {
      if (signal?.aborted) break;
      if (options.shard && !inShard(found.path, options.shard)) continue;
      // Listed once, here: the entry checks (§1) run on every run before any lookup, the store's
      // stamps and the progress bytes come from it, and the worker scores exactly this listing.
      const entries = listEntries(found.dir, store !== undefined);
      const bytes = entries.reduce((s, e) => s + (e.kind === "file" ? e.size : 0), 0);
      progress?.found?.(bytes);
      const stamps = store && !entries.some((e) => unsafeReason(e) !== null) ? stampsOf(entries) : null;
      const hit = stamps !== null && !options.verifyDigests ? store!.lookup(found.dir, stamps) : null;
      if (hit !== null) {
        const entry = { path: found.path, ...hit };
        bundles.push(entry);
        progress?.done?.(entry, bytes, true);
        continue;
      }
      batch.push({ dir: found.dir, path: found.path, entries, bytes, stamps });
      if (batch.length >= batchSize) {
        dispatch(batch);
        batch = [];
        // Keep every worker busy and no more: a queued task would count queue time against its deadline.
        while (inflight.size >= pool.jobs) await Promise.race(inflight);
      }
    }
    progress?.discovered?.();
    if (batch.length > 0 && !signal?.aborted) dispatch(batch);
    await Promise.all(inflight);
  } finally {
    await pool.destroy();
  }
  return assemble(bundles, options, startedAt, { complete: !signal?.aborted, shard: options.shard });
}

/** The results document from bundle entries: sorting and batch rules. */
export function assemble(
  bundles: BundleEntry[],
  options: BatchOptions & { schedules: readonly LoadedSchedule[] },
  startedAt: string,
  run: { complete: boolean; shard?: Shard | undefined } = { complete: true },
): Results {
  bundles.sort((a, b) => byteCompare(a.path, b.path));
  return {
    format: "assay.results/1",
    run: {
      tool_version: TOOL_VERSION,
      scoring_version: SCORING_VERSION,
      started_at: startedAt,
      complete: run.complete,
      shard: run.shard ? formatShard(run.shard) : null,
      options: {
        invalid: options.invalid,
        resource_bound: options.resourceBound,
        schedules: options.schedules.map((s) => `${s.schedule.experiment}:${s.digest}`).sort(byteCompare),
      },
    },
    bundles,
    // A shard holds entries only: batch rules need every bundle, so `assay merge` computes them.
    experiments: run.shard ? [] : computeExperiments(bundles, options.schedules.map((s) => s.schedule), options),
  };
}
