// A small run is scored in the main thread, by the workers' own module (pool.scoreHere): a worker
// costs ~140 ms before it scores anything (its thread, then its own copy of the modules the main
// thread has already loaded), more than scoring a few bundles takes here. The run holds the first
// things discovery finds until either discovery ends within the limits (scored here) or they are
// passed (handed to the pool, the held ones first, as they would have been).
//
// The limits (docs/development.md "Start-up of assay score" has the measurements): at most 64
// things (one pool task's worth, BATCH_BYTES aside) and 1 MiB of evidence, about 30 ms of scoring
// on this machine, so even the worst small run here takes less than a worker's boot. Beyond that
// the workers' parallelism and their deadlines and memory limits are worth their start-up.
import { tryListEntries } from "../io/bundle-source.js";
import type { KindName } from "../kinds/declared.js";
import { listingOf } from "../pool/listing.js";
import type { PoolOptions } from "../pool/pool.js";

export interface InThreadLimits {
  /** Things (bundles, trials, logs…) at most. */
  things: number;
  /** Bytes of evidence at most (a folder's regular files, a log's size). */
  bytes: number;
}

export const IN_THREAD: InThreadLimits = { things: 64, bytes: 1024 * 1024 };

/**
 * May a run with these options be scored in this thread? Not with a deadline or memory limit of its
 * own (only a worker can be stopped, or die alone), nor a worker module of its own (the pool's test
 * hook); `limits: null` turns it off.
 */
export function inThreadAllowed(o: PoolOptions & { inThread?: InThreadLimits | null }): InThreadLimits | null {
  if (o.inThread === null) return null;
  if (o.bundleTimeoutMs !== undefined || o.workerMemoryMb !== undefined || o.workerFile !== undefined) return null;
  return o.inThread ?? IN_THREAD;
}

/** Are `things` found so far, of `bytes` together, still within the limits (at the limits is within)? */
export const within = (limits: InThreadLimits, things: number, bytes: number): boolean =>
  things <= limits.things && bytes <= limits.bytes;

/** The bytes of a folder not listed yet (its worker would list it): listed here once to size it (~30 µs). */
export const folderBytes = (dir: string, kind: KindName): number => listingOf(tryListEntries(dir), kind).bytes;
