// The pool worker's entry: score a batch of found things, each by its kind's scorer. Compiled JS
// only (Node 20 cannot load .ts in a worker thread).
import { tryListEntries } from "../io/bundle-source.js";
import type { KindName } from "../kinds/declared.js";
import { SCORERS } from "../kinds/scorers.js";
import { listingOf } from "./listing.js";
import { scoreDirectory, scoreFile } from "./score-directory.js";
import type { BatchResult, BatchTask, BundleRef, ListedEntry } from "./types.js";

/** Tell the main thread a bundle of this task starts now: its deadline runs from here. */
export function markStarted(task: BatchTask): void {
  if (task.started) Atomics.store(task.started, 0, BigInt(Date.now()));
}

/** The store's lookup (better-sqlite3), loaded only by a worker asked for one. */
let stored: typeof import("./stored.js") | undefined;

export default async function scoreBatch(task: BatchTask): Promise<BatchResult> {
  if (stored === undefined && task.bundles.some((b) => b.lookup !== undefined)) stored = await import("./stored.js");
  return task.bundles.map((ref) => {
    const b = { ...ref, kind: ref.kind ?? "bundle" };
    markStarted(task);
    if (SCORERS[b.kind].form === "file") return scoreFile(b.dir, b.path, b.kind, b.task);
    if (b.answerListing) return listedHere(task, b);
    if (b.lookup && b.entries) {
      const hit = stored!.storedDigest(b.dir, b.entries, b.kind, b.lookup);
      if (hit !== null) return { path: b.path, stored: hit };
      markStarted(task); // scoring gets the whole time limit, whatever the lookup's hashing took
    }
    return scoreDirectory(b.dir, b.path, b.entries, b.kind, { hmacKey: task.hmacKey });
  });
}

/** A folder the main thread did not list: listed here (a listing that fails is scoreDirectory's tool error). */
function listedHere(task: BatchTask, b: BundleRef & { kind: KindName }): ListedEntry {
  const entries = tryListEntries(b.dir);
  markStarted(task); // scoring gets the whole time limit, as when the main thread lists
  return { entry: scoreDirectory(b.dir, b.path, entries, b.kind, { hmacKey: task.hmacKey }), listing: listingOf(entries, b.kind) };
}
