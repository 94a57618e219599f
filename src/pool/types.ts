// What crosses the thread boundary: paths in, §10 bundle entries out (never parsed journals); for
// a large Inspect log split into parts, small per-sample records out (never the samples).
import type { BundleEntryInfo, BundleOptions } from "../core/folder.js";
import type { BundleEntry } from "../core/results.js";
import type { KindName } from "../kinds/declared.js";
import type { PartResult } from "../kinds/scorer.js";

export interface BundleRef {
  /** The bundle's directory on disk. */
  dir: string;
  /** Its path in results. */
  path: string;
  /** Its entries as the main thread listed them (a store needs their stamps first); absent, the worker lists them. */
  entries?: BundleEntryInfo[];
  /**
   * The main thread did not list it (a run without a store leaves listing to the workers): answer
   * with a ListedEntry, which says what the main thread needs of the listing.
   */
  answerListing?: true;
  /** Its kind: the scorer a worker hands it to (absent: an assay bundle, as the library has always taken a bare folder). */
  kind?: KindName;
  /** A file kind's work on it (an Inspect log: read whole, or one part of it; `dir` is the file). */
  task?: unknown;
  /**
   * Hash the folder first and, when the store already holds a result for that digest, return
   * `stored` instead of scoring (a moved or touched folder, --verify-digests): the hashing runs
   * on every worker, not the main thread.
   */
  lookup?: StoreSpec;
}
/** What a worker needs to ask the store (read-only) whether a digest is already scored. */
export interface StoreSpec {
  file: string;
  scoringVersion: number;
  options: Record<string, string>;
}
/** A bundle the store already holds a result for: the main thread takes it from there. */
export interface StoredRef {
  path: string;
  stored: { digest: string; beyond: string | null };
}
/** A bundle the worker listed itself: its entry, and what the main thread needs of the listing. */
export interface ListedEntry {
  entry: BundleEntry;
  listing: {
    /** Bytes of its regular files (progress; how many bundles go into a task). */
    bytes: number;
    /** An assay bundle holding seal.json (said when no key checks it). */
    sealed: boolean;
  };
}
export interface BatchTask {
  bundles: BundleRef[];
  /**
   * Shared clock: the worker stores the time (ms since the epoch) at which it starts each bundle,
   * so each bundle's deadline runs from its own start and never counts queueing, worker boot or
   * its batch-mates. 0 until the first bundle starts.
   */
  started?: BigInt64Array;
  /** What every folder is scored with: §8's key file's bytes when seals are checked, the dataset (once per task, never in a BundleRef). */
  options?: BundleOptions;
}
export type BatchResult = (BundleEntry | StoredRef | PartResult | ListedEntry)[];
