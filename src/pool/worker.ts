// The pool worker's entry: score a batch of found things, each by its kind's scorer. Compiled JS
// only (Node 20 cannot load .ts in a worker thread).
import { tryListEntries } from "../io/bundle-source.js";
import type { KindName } from "../kinds/declared.js";
import type { FolderScorer, Scorer } from "../kinds/scorer.js";
import { scorerOf } from "../kinds/list.js";
import { listingOf } from "./listing.js";
import { scoreFolder, scoreLog } from "./scoring.js";
import type { BatchResult, BatchTask, BundleRef, ListedEntry } from "./types.js";

/** Tell the main thread a bundle of this task starts now: its deadline runs from here. */
export function markStarted(task: BatchTask): void {
  if (task.started) Atomics.store(task.started, 0, BigInt(Date.now()));
}

/** The store's lookup (better-sqlite3), loaded only by a worker asked for one. */
let stored: typeof import("./stored.js") | undefined;
/** Each kind's scorer, loaded when this worker is first handed a thing of that kind. */
const scorers = new Map<KindName, Scorer>();

export default async function scoreBatch(task: BatchTask): Promise<BatchResult> {
  if (stored === undefined && task.bundles.some((b) => b.lookup !== undefined)) stored = await import("./stored.js");
  // Loaded before the first bundle starts: off every bundle's clock.
  for (const b of task.bundles) {
    const kind = b.kind ?? "bundle";
    if (!scorers.has(kind)) scorers.set(kind, await scorerOf(kind));
  }
  return task.bundles.map((ref) => {
    const b = { ...ref, kind: ref.kind ?? "bundle" };
    const scorer = scorers.get(b.kind)!;
    markStarted(task);
    if (scorer.form === "file") {
      // A log whose stamps changed: taken from the store when its bytes did not (read whole only).
      const hit = b.lookup ? stored!.storedFile(b.dir, b.lookup) : null;
      if (hit !== null) return { path: b.path, stored: hit };
      markStarted(task);
      return scoreLog(scorer, b.kind, b.dir, b.path, b.task);
    }
    if (b.answerListing) return listedHere(task, b, scorer);
    if (b.lookup && b.entries) {
      const hit = stored!.storedDigest(b.dir, b.entries, b.kind, scorer, b.lookup);
      if (hit !== null) return { path: b.path, stored: hit };
      markStarted(task); // scoring gets the whole time limit, whatever the lookup's hashing took
    }
    return scoreFolder(scorer, b.kind, b.dir, b.path, b.entries, task.options ?? {});
  });
}

/** A folder the main thread did not list: listed here (a listing that fails is scoreFolder's tool error). */
function listedHere(task: BatchTask, b: BundleRef & { kind: KindName }, scorer: FolderScorer): ListedEntry {
  const entries = tryListEntries(b.dir);
  markStarted(task); // scoring gets the whole time limit, as when the main thread lists
  return {
    entry: scoreFolder(scorer, b.kind, b.dir, b.path, entries, task.options ?? {}),
    listing: listingOf(entries, b.kind),
  };
}
