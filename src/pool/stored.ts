// In a worker: is this folder's digest already scored in the store? Read-only, one connection per
// worker and store file (WAL lets readers run beside the main thread's one writer).

import Database from "better-sqlite3";
import type { BundleEntryInfo } from "../core/folder.js";
import { beyondDigest, fileDigest, folderDigest } from "../io/bundle-source.js";
import { declarationOf, type KindName } from "../kinds/declared.js";
import type { FolderScorer } from "../kinds/scorer.js";
import { storeKey } from "../store/store.js";
import type { StoreSpec } from "./types.js";

const open = new Map<string, Database.Statement<[string], { one: number }>>();

function has(file: string, key: string): boolean {
  let stmt = open.get(file);
  if (stmt === undefined) {
    stmt = new Database(file, { readonly: true, fileMustExist: true }).prepare(
      "SELECT 1 AS one FROM results WHERE key = ?",
    );
    open.set(file, stmt);
  }
  return stmt.get(key) !== undefined;
}

/**
 * The folder's digest (and what lies beyond it) when the store holds a result for them, else null. Any failure
 * (an unreadable file, a store that cannot be opened) is null too: the bundle is then scored,
 * which reports what is wrong with it.
 */
export function storedDigest(
  dir: string,
  entries: BundleEntryInfo[],
  kind: KindName,
  scorer: FolderScorer,
  spec: StoreSpec,
): { digest: string; beyond: string | null } | null {
  try {
    // Digested as the kind's scorer digests it: its evidence files, less its seal.
    const { isEvidence } = scorer;
    const digest = folderDigest(
      dir,
      isEvidence === undefined ? entries : entries.filter((e) => isEvidence(e.path)),
      declarationOf(kind).seal,
    );
    const beyond = beyondDigest(dir, entries);
    return has(spec.file, storeKey(digest, beyond, spec.scoringVersion, spec.options)) ? { digest, beyond } : null;
  } catch {
    return null;
  }
}

/**
 * A file read in place (an Inspect log): its digest, the whole file's SHA-256 as its entry carries
 * it, when the store holds a result for it (a touched or copied log), else null (then scored).
 */
export function storedFile(file: string, spec: StoreSpec): { digest: string; beyond: null } | null {
  try {
    const digest = fileDigest(file);
    return has(spec.file, storeKey(digest, null, spec.scoringVersion, spec.options)) ? { digest, beyond: null } : null;
  } catch {
    return null;
  }
}
