// The resumable results store (SQLite, WAL, one writer in the main thread). Results are keyed by
// bundle digest, what lies beyond it (seal digest, non-file entries), scoring version and the
// options that change bundle results; like git's index, a stamp table maps a bundle folder's
// stamps (path, kind, size, mtime_ns, inode of every entry) to its digest, so a rerun finds
// finished bundles without reading them.

import Database from "better-sqlite3";
import { createHash, randomUUID } from "node:crypto";
import { hostname } from "node:os";
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
export function storeKey(
  digest: string,
  beyond: string | null,
  scoringVersion: number,
  options: BundleOptionsKey,
): string {
  const canonical = JSON.stringify([digest, beyond ?? "none", scoringVersion, Object.entries(options).sort()]);
  return createHash("sha256").update(canonical).digest("hex");
}

const entryWithoutPath = bundleEntrySchema.omit({ path: true });

/** A --store file that cannot be one (not a database, unreadable): the user's to fix. */
export class StoreError extends Error {
  readonly code = "STORE";
}

/**
 * One run writes a store at a time: SQLite's own locks do not hold across the hosts of a shared
 * filesystem (NFS, Lustre), and two shards writing one store would also race its WAL. The writer
 * records itself in the store (host, pid, shard) and beats every BEAT_MS. Who may take a claim
 * over (whyStale):
 * - a claim of this host: its pid decides, never the clock. A live pid is never taken over, however
 *   old or odd its beat (a clock step must not hand a running writer's store to a second run); a
 *   pid that is gone (a killed or requeued run) is taken over at once.
 * - another host's: nothing tells a dead run from a live one but its silence. Its claim holds while
 *   its beat lies within STALE_MS of this host's clock, either side (clocks are assumed in step,
 *   as NTP keeps them); silent for longer it is taken over, and so is a beat dated further ahead (a
 *   future beat would otherwise lock the store until that time) or one that is no time at all.
 */
export const BEAT_MS = 10_000;
export const STALE_MS = 60_000;

export interface Claim {
  host: string;
  pid: number;
  shard: string | null;
  beat: number;
}

/** Why a claim may be taken over (see above), or null while it is its holder's. */
export function whyStale(c: Claim, now: number, here: string, alive: (pid: number) => boolean): string | null {
  if (c.host === here) {
    if (!Number.isSafeInteger(c.pid) || c.pid <= 0) return `its pid ${String(c.pid)} is no process`; // 0 and -1 would signal a group
    return alive(c.pid) ? null : "its pid is gone on this host";
  }
  if (typeof c.beat !== "number" || !Number.isFinite(c.beat))
    return `its beat ${JSON.stringify(String(c.beat))} is no time`;
  if (now - c.beat > STALE_MS) return `silent for ${seconds(now - c.beat)} s`;
  if (c.beat - now > STALE_MS) return `its beat is dated ${seconds(c.beat - now)} s ahead of this host's clock`;
  return null;
}

const seconds = (ms: number) => Math.round(ms / 1000);

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}

/**
 * How many results a store holds, read while another process may be writing it (WAL): 0 when it
 * does not exist yet or cannot be read. For watching a run from outside (the bench, the tests).
 */
export function storedRows(file: string): number {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM results").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/** SQLite's application_id of an assay store ("asay"), set when a store is made. */
const APPLICATION_ID = 0x61736179;
/** The tables of a store and the columns it reads (`version` came later: a store may lack it). */
const TABLES: Record<string, readonly string[]> = {
  results: ["key", "digest", "entry"],
  stamps: ["folder", "stamps", "digest"],
  writer: ["one", "token", "host", "pid", "shard", "beat"],
};

/**
 * Why a database is another program's, or null when it is a store or empty (a new file, an empty
 * one, a database with no tables), read before anything is written: --store naming the wrong file
 * must not gain assay's tables, a changed header or a WAL. A store before application_id was set
 * is told by its tables alone.
 */
function notAStore(db: Database.Database): string | null {
  const id = db.pragma("application_id", { simple: true }) as number;
  if (id === APPLICATION_ID) return null;
  if (id !== 0) return `application_id ${id}`;
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version !== 0) return `user_version ${version}`;
  for (const o of db.prepare("SELECT type, name FROM sqlite_schema").all() as { type: string; name: string }[]) {
    if (o.name.startsWith("sqlite_")) continue; // SQLite's own (a primary key's index, statistics): no program names one so
    const wanted = o.type === "table" && Object.hasOwn(TABLES, o.name) ? TABLES[o.name]! : null;
    if (wanted === null) return `${o.type} ${JSON.stringify(o.name)}, which no store holds`;
    const has = new Set((db.pragma(`table_info(${JSON.stringify(o.name)})`) as { name: string }[]).map((c) => c.name));
    const lacks = wanted.filter((c) => !has.has(c));
    if (lacks.length > 0) return `table ${o.name} without ${lacks.join(", ")}`;
  }
  return null;
}

export class ResultStore {
  private readonly token = randomUUID();
  private beat: NodeJS.Timeout | null = null;
  /** Who took the store over while this run held it (named in the error of the next put). */
  private lost: string | null = null;
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
    const failed = (e: unknown) =>
      new StoreError(`${file} cannot be used as the results store: ${(e as Error).message}`);
    try {
      this.db = new Database(file);
    } catch (e) {
      throw failed(e);
    }
    try {
      // The first read of the file ("not a database" shows here), and before anything is written.
      const foreign = notAStore(this.db);
      if (foreign !== null)
        throw new Error(
          `it is a SQLite database of another program (${foreign}): nothing was written to it; name a new file`,
        );
      this.db.pragma("journal_mode = WAL");
      // WAL + NORMAL: a committed result survives any kill of the process; a power cut may roll back
      // the last transactions (never corrupt), which the rerun redoes. FULL would fsync every batch
      // on the main thread, where a busy disk then stalls Ctrl-C and progress.
      this.db.pragma("synchronous = NORMAL");
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, digest TEXT NOT NULL, entry TEXT NOT NULL, version INTEGER);
        CREATE TABLE IF NOT EXISTS stamps (folder TEXT PRIMARY KEY, stamps TEXT NOT NULL, digest TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS writer (one INTEGER PRIMARY KEY CHECK (one = 1), token TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, shard TEXT, beat INTEGER NOT NULL);
      `);
      if (this.db.pragma("application_id", { simple: true }) !== APPLICATION_ID)
        this.db.pragma(`application_id = ${APPLICATION_ID}`);
      // Stores written before rows recorded their scoring version: their rows count as none.
      const columns = this.db.pragma("table_info(results)") as { name: string }[];
      if (!columns.some((c) => c.name === "version")) this.db.exec("ALTER TABLE results ADD COLUMN version INTEGER");
      this.getStamp = this.db.prepare("SELECT stamps, digest FROM stamps WHERE folder = ?");
      this.getResult = this.db.prepare("SELECT entry FROM results WHERE key = ?");
      this.putStamp = this.db.prepare("INSERT OR REPLACE INTO stamps (folder, stamps, digest) VALUES (?, ?, ?)");
      this.putResult = this.db.prepare(
        "INSERT OR REPLACE INTO results (key, digest, entry, version) VALUES (?, ?, ?, ?)",
      );
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

  /**
   * Make this run the store's one writer (see whyStale), or refuse, naming the run that holds it;
   * then beat until close(). `shard`: this run's --shard, to name it to a second run. Returns whose
   * claim was taken over and why (for the user to see), or null when no other run held the store.
   */
  claim(shard: string | null): string | null {
    const here = hostname();
    const mine: Claim = { host: here, pid: process.pid, shard, beat: Date.now() };
    const taken = this.claimOrBusy(
      () =>
        this.db
          .transaction((): string | null => {
            const held = this.heldClaim();
            const other = held !== undefined && held.token !== this.token ? held : null;
            const why = other === null ? null : whyStale(other, mine.beat, here, pidAlive);
            if (other !== null && why === null) throw new StoreError(busyMessage(this.file, other, mine.beat));
            this.db
              .prepare("INSERT OR REPLACE INTO writer (one, token, host, pid, shard, beat) VALUES (1, ?, ?, ?, ?, ?)")
              .run(this.token, mine.host, mine.pid, mine.shard, mine.beat);
            return other === null ? null : `took over the claim of another run (${who(other)}): ${why}`;
          })
          .immediate(),
      mine.beat,
    );
    const beat = this.db.prepare("UPDATE writer SET beat = ? WHERE token = ?");
    const holder = this.db.prepare("SELECT host, pid, shard, beat FROM writer WHERE one = 1");
    this.beat = setInterval(() => {
      try {
        if (beat.run(Date.now(), this.token).changes === 0) {
          const now = holder.get() as Claim | undefined;
          this.lost = now === undefined ? "another run, since finished" : `another run (${who(now)})`;
        }
      } catch {
        // busy for a moment: the next beat tries again, well within STALE_MS
      }
    }, BEAT_MS);
    this.beat.unref();
    return taken;
  }

  /** The claim the store records, with its token. */
  private heldClaim(): (Claim & { token: string }) | undefined {
    return this.db.prepare("SELECT token, host, pid, shard, beat FROM writer WHERE one = 1").get() as
      (Claim & { token: string }) | undefined;
  }

  /**
   * `take`, or, where another process holds the store's write lock past SQLite's busy wait (a run
   * stopped mid-transaction), the refusal naming the claim it holds: a lock held now is a live
   * writer, never one to take over. (WAL: the claim row still reads while the lock is held.)
   */
  private claimOrBusy(take: () => string | null, now: number): string | null {
    try {
      return take();
    } catch (e) {
      if ((e as { code?: string }).code !== "SQLITE_BUSY") throw e;
      const held = this.heldClaim();
      if (held !== undefined && held.token !== this.token) throw new StoreError(busyMessage(this.file, held, now));
      throw new StoreError(`${this.file} is locked by another process writing it: give each shard a store of its own`);
    }
  }

  /** Store finished entries in one transaction (`stamps` null: the result only). */
  put(items: readonly { folder: string; stamps: string | null; beyond: string | null; entry: ScoredBundle }[]): void {
    // Taken over (this run was silent past STALE_MS, or two claimed at once where the filesystem's
    // locks do not hold): stop rather than write beside the new writer.
    if (this.lost !== null)
      throw new StoreError(`${this.file} was taken over by ${this.lost} while this one wrote it: stopping`);
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
    return this.file === ":memory:" || this.file === ""
      ? null
      : { file: resolve(this.file), scoringVersion: this.scoringVersion, options: this.options };
  }

  /** Does the store hold any result of this scoring version (else no digest lookup can hit)? */
  hasCurrent(): boolean {
    return this.anyCurrent.get(this.scoringVersion) !== undefined;
  }

  rows(): number {
    return this.count.get()!.n;
  }

  close(): void {
    try {
      if (this.beat !== null) {
        clearInterval(this.beat);
        this.db.prepare("DELETE FROM writer WHERE token = ?").run(this.token);
      }
    } finally {
      this.db.close(); // a claim left behind (the delete failed) is taken over as a dead run's
    }
  }
}

const who = (c: Claim) =>
  `${c.shard === null ? "a run without --shard" : `shard ${c.shard}`}, pid ${c.pid} on ${c.host}`;

/** When the holder was last heard from, as this host's clock reads its beat. */
function seen(c: Claim, now: number): string {
  if (typeof c.beat !== "number" || !Number.isFinite(c.beat)) return "its beat is no time";
  return c.beat > now
    ? `its beat dated ${seconds(c.beat - now)} s ahead of this host's clock`
    : `seen ${seconds(now - c.beat)} s ago`;
}

function busyMessage(file: string, c: Claim, now: number): string {
  return `${file} is being written by another run (${who(c)}, ${seen(c, now)}): give each shard a store of its own (a run that died is taken over once its pid is gone on this host, or after ${STALE_MS / 1000} s of silence from another host; a live pid on this host never is)`;
}
