// The resumable results store (SQLite, WAL, one writer in the main thread). Results are keyed by
// bundle digest, what lies beyond it (seal digest, non-file entries), scoring version and the
// options that change bundle results; like git's index, a stamp table maps a bundle folder's
// stamps (path, kind, size, mtime_ns, inode of every entry) to its digest, so a rerun finds
// finished bundles without reading them.

import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { ScoredBundle } from "../core/results.js";
import { bundleEntrySchema } from "../core/results.js";
import type { StoreSpec } from "../pool/types.js";
import { SCORING_VERSION } from "../version.js";

/** Options that change a bundle's entry: `hmac_key`, a key file's fingerprint (§7), when seals are checked. */
export type BundleOptionsKey = Record<string, string>;

/**
 * §7: what a stored result is keyed on. A change to any part is a miss. `beyond`: what the digest
 * does not cover (beyondDigest: seal.json's digest, the folder's non-file entries), or null.
 */
export function storeKey(digest: string, beyond: string | null, scoringVersion: number, options: BundleOptionsKey): string {
  const canonical = JSON.stringify([digest, beyond ?? "none", scoringVersion, Object.entries(options).sort()]);
  return createHash("sha256").update(canonical).digest("hex");
}

const entryWithoutPath = bundleEntrySchema.omit({ path: true });

/** A --store file that cannot be one (not a database, unreadable): the user's to fix. */
export class StoreError extends Error {
  readonly code = "STORE";
}

export class ResultStore {
  private readonly db: Database.Database;
  private readonly getStamp: Database.Statement<[string], { stamps: string; digest: string }>;
  private readonly getResult: Database.Statement<[string], { entry: string }>;
  private readonly putStamp: Database.Statement<[string, string, string]>;
  private readonly putResult: Database.Statement<[string, string, string, number]>;
  private readonly anyCurrent: Database.Statement<[number], { one: number }>;
  private readonly count: Database.Statement<[], { n: number }>;

  constructor(
    private readonly file: string,
    readonly options: BundleOptionsKey = {},
    private readonly scoringVersion = SCORING_VERSION,
  ) {
    const failed = (e: unknown) => new StoreError(`${file} cannot be used as the results store: ${(e as Error).message}`);
    try {
      this.db = new Database(file);
    } catch (e) {
      throw failed(e);
    }
    try {
      this.db.pragma("journal_mode = WAL"); // the first read of the file: "not a database" shows here
      // WAL + NORMAL: a committed result survives any kill of the process; a power cut may roll back
      // the last transactions (never corrupt), which the rerun redoes. FULL would fsync every batch
      // on the main thread, where a busy disk then stalls Ctrl-C and progress.
      this.db.pragma("synchronous = NORMAL");
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, digest TEXT NOT NULL, entry TEXT NOT NULL, version INTEGER);
        CREATE TABLE IF NOT EXISTS stamps (folder TEXT PRIMARY KEY, stamps TEXT NOT NULL, digest TEXT NOT NULL);
      `);
      // Stores written before rows recorded their scoring version: their rows count as none.
      const columns = this.db.pragma("table_info(results)") as { name: string }[];
      if (!columns.some((c) => c.name === "version")) this.db.exec("ALTER TABLE results ADD COLUMN version INTEGER");
      this.getStamp = this.db.prepare("SELECT stamps, digest FROM stamps WHERE folder = ?");
      this.getResult = this.db.prepare("SELECT entry FROM results WHERE key = ?");
      this.putStamp = this.db.prepare("INSERT OR REPLACE INTO stamps (folder, stamps, digest) VALUES (?, ?, ?)");
      this.putResult = this.db.prepare("INSERT OR REPLACE INTO results (key, digest, entry, version) VALUES (?, ?, ?, ?)");
      this.count = this.db.prepare("SELECT count(*) AS n FROM results");
      this.anyCurrent = this.db.prepare("SELECT 1 AS one FROM results WHERE version = ? LIMIT 1");
    } catch (e) {
      this.db.close();
      throw failed(e);
    }
  }

  private key(digest: string, beyond: string | null): string {
    return storeKey(digest, beyond, this.scoringVersion, this.options);
  }

  /** The stored entry for a folder whose stamps are unchanged, else null. */
  lookup(folder: string, stamps: string, beyond: string | null): ScoredBundle | null {
    const s = this.getStamp.get(folder);
    return s === undefined || s.stamps !== stamps ? null : this.lookupDigest(s.digest, beyond);
  }



  /** The stored entry for a bundle digest (and what lies beyond it), else null. */
  lookupDigest(digest: string, beyond: string | null): ScoredBundle | null {
    const row = this.getResult.get(this.key(digest, beyond));
    if (row === undefined) return null;
    // Re-validated on read: a row that is not JSON, or that today's schema rejects, is a miss.
    let value: unknown;
    try {
      value = JSON.parse(row.entry);
    } catch {
      return null;
    }
    const parsed = entryWithoutPath.safeParse(value);
    return parsed.success ? parsed.data : null;
  }

  /** Store finished entries in one transaction (`stamps` null: the result only). */
  put(items: readonly { folder: string; stamps: string | null; beyond: string | null; entry: ScoredBundle }[]): void {
    this.db.transaction(() => {
      for (const { folder, stamps, beyond, entry } of items) {
        this.putResult.run(this.key(entry.digest, beyond), entry.digest, JSON.stringify(entry), this.scoringVersion);
        if (stamps !== null) this.putStamp.run(folder, stamps, entry.digest);
      }
    })();
  }

  /** Point folders' new stamps at digests found already scored by rehashing, in one transaction. */
  restamp(items: readonly { folder: string; stamps: string; digest: string }[]): void {
    this.db.transaction(() => {
      for (const { folder, stamps, digest } of items) this.putStamp.run(folder, stamps, digest);
    })();
  }

  /** How workers can ask this store about a digest (read-only); null for an in-memory store. */
  spec(): StoreSpec | null {
    return this.file === ":memory:" || this.file === "" ? null : { file: resolve(this.file), scoringVersion: this.scoringVersion, options: this.options };
  }

  /** Does the store hold any result of this scoring version (else no digest lookup can hit)? */
  hasCurrent(): boolean {
    return this.anyCurrent.get(this.scoringVersion) !== undefined;
  }

  rows(): number {
    return this.count.get()!.n;
  }

  close(): void {
    this.db.close();
  }
}
