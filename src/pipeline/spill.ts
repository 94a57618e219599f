// Where a run's bundle entries wait between scoring and the document: past the first few
// megabytes, a temporary file (never memory: a million entries are about a gigabyte of JSON), read
// back in path order when the document is written. A scoring run's entries come in the order its
// workers finish: a SQLite file, indexed by path. A merge's come in long stretches already in
// path order (each shard document is sorted): sorted runs in a flat file, merged as they are read
// back (runs.ts), at a fraction of SQLite's cost. Beside each entry spilled, a compact record
// stays in memory for the batch rules (core/batch/record.ts). The file's name is removed as soon as
// it is open (it lives on until closed, or until the process ends, however it ends: a run that
// fails, or is killed, leaves nothing); where a system refuses that, close() removes it, and a
// later run one a killed run left behind, once its process is gone and it is an hour old.

import type Database from "better-sqlite3";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BatchRecord } from "../core/batch/record.js";
import { recordMaker } from "../kinds/batch.js";
import { count, emptyTally, type BundleEntry, type Tally } from "../core/results.js";
import { byteCompare, forTerminal } from "../core/text.js";
import { removeStaleTemps } from "../io/output.js";
import { Batch, RunFile } from "./runs.js";

const NAME = "assay-spill";
/** better-sqlite3, loaded when a run first spills (a small run never does). */
const sqlite = (): typeof Database => createRequire(import.meta.url)("better-sqlite3") as typeof Database;
/** Entries inserted per transaction. */
const BATCH = 512;

/** The bundle entries of a run, in path order, with their compact records and counts. */
export interface EntrySource extends Iterable<BundleEntry> {
  readonly records: readonly BatchRecord[];
  readonly tally: Tally;
}

/** Entries held in memory (a merge of small documents, tests): the same interface as a spill. */
export function entriesInMemory(entries: readonly BundleEntry[]): EntrySource {
  const sorted = [...entries].sort((a, b) => byteCompare(a.path, b.path));
  const tally = emptyTally();
  for (const e of sorted) count(tally, e);
  return { records: sorted, tally, [Symbol.iterator]: () => sorted[Symbol.iterator]() };
}

/** Entries kept in memory before the first is spilled: a small run never touches the disk. */
const IN_MEMORY_BYTES = 4 * 1024 * 1024;

/** The spill file could not be written (a full disk, a file size limit): the run cannot finish its document. */
export class SpillError extends Error {
  readonly code = "OUTPUT";
}

/**
 * Where the entries' text waits: given (path, JSON) in any order, given back in path order (ties:
 * SQLite's in the order added; sorted runs' in no promised order, and merge refuses a bundle twice).
 */
interface Rows {
  add(path: string, json: string): void;
  ordered(): Iterable<BundleEntry>;
  close(): void;
}

export class EntrySpill implements EntrySource {
  readonly records: BatchRecord[] = [];
  readonly tally = emptyTally();
  private readonly maker = recordMaker();
  private readonly rows: Rows;

  /**
   * `dir`: where the file goes, once one is needed (ASSAY_TMPDIR, else the system's temporary
   * folder); `inMemoryBytes`: how much entry text is held before the file is made; `sorted`: the
   * entries come mostly in path order (a merge), so they are kept as sorted runs.
   */
  constructor(
    dir = process.env["ASSAY_TMPDIR"] || tmpdir(),
    inMemoryBytes = IN_MEMORY_BYTES,
    o: { sorted?: boolean } = {},
  ) {
    this.rows = o.sorted ? new RunRows(dir, inMemoryBytes) : new SqliteRows(dir, inMemoryBytes);
  }

  add(e: BundleEntry): void {
    this.records.push(this.maker.record(e));
    count(this.tally, e);
    this.rows.add(e.path, JSON.stringify(e));
  }

  /** The entries in path order (UTF-8 byte order, as §10 sorts). */
  [Symbol.iterator](): Iterator<BundleEntry> {
    return this.rows.ordered()[Symbol.iterator]();
  }

  close(): void {
    this.rows.close();
  }
}

const failed = (dir: string, e: unknown): SpillError =>
  new SpillError(
    `cannot keep the run's bundle entries in a temporary file in ${forTerminal(dir)}: ${(e as Error).message} (ASSAY_TMPDIR names a folder with more room)`,
  );

/** Entries held in memory up to `inMemoryBytes`, then in sorted runs of a flat file (runs.ts). */
class RunRows implements Rows {
  /** Lines not yet in the file (all of them while the run is small), their text off the JavaScript heap. */
  private readonly pending = new Batch();
  private file: RunFile | null = null;

  constructor(
    private readonly dir: string,
    private readonly inMemoryBytes: number,
  ) {}

  add(path: string, json: string): void {
    this.pending.add(path, json);
    if (this.pending.size >= this.inMemoryBytes) this.flush();
  }

  private flush(): void {
    try {
      (this.file ??= new RunFile(this.dir, NAME)).add(this.pending);
    } catch (e) {
      throw failed(this.dir, e);
    }
    this.pending.clear();
  }

  *ordered(): Generator<BundleEntry> {
    const p = this.pending;
    if (this.file === null) {
      // A small run: sorted here.
      const order = p.paths.map((_, i) => i).sort((a, b) => byteCompare(p.paths[a]!, p.paths[b]!));
      for (const i of order) yield JSON.parse(p.line(i).toString("utf8")) as BundleEntry;
      return;
    }
    this.flush();
    const merged = this.file.merged();
    for (;;) {
      let next: IteratorResult<BundleEntry>;
      try {
        next = merged.next();
      } catch (e) {
        throw failed(this.dir, e);
      }
      if (next.done) return;
      yield next.value;
    }
  }

  close(): void {
    this.file?.close();
    this.file = null;
  }
}

/** Entries held in memory up to `inMemoryBytes`, then in a SQLite file indexed by path. */
class SqliteRows implements Rows {
  /** Entries (path, JSON) not yet in the file: all of them while the run is small. */
  private readonly pending: [string, string][] = [];
  private pendingBytes = 0;
  private disk: {
    file: string;
    db: Database.Database;
    insert: Database.Statement<[string, string]>;
    indexed: boolean;
    inTransaction: number;
  } | null = null;
  /** The read ordered() has under way: ended by close(), as SQLite closes no database a statement still reads. */
  private reading: IterableIterator<{ entry: string }> | null = null;

  constructor(
    private readonly dir: string,
    private readonly inMemoryBytes: number,
  ) {}

  add(path: string, json: string): void {
    if (this.disk !== null) return this.write(path, json);
    this.pending.push([path, json]);
    this.pendingBytes += json.length;
    if (this.pendingBytes >= this.inMemoryBytes) this.flush();
  }

  /**
   * Into the file at once, in a transaction committed every BATCH rows: the entry's text is
   * garbage as soon as it is made, never held long enough to reach the old generation.
   */
  private write(path: string, json: string): void {
    const disk = this.disk!;
    try {
      if (disk.inTransaction === 0) disk.db.exec("BEGIN");
      disk.insert.run(path, json);
      if (++disk.inTransaction >= BATCH) {
        disk.db.exec("COMMIT");
        disk.inTransaction = 0;
      }
    } catch (e) {
      throw failed(this.dir, e);
    }
  }

  private open(): NonNullable<SqliteRows["disk"]> {
    removeStaleTemps(this.dir, NAME);
    const file = join(this.dir, `.${NAME}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    try {
      const db = new (sqlite())(file);
      // Scratch data: no fsync, and a journal in memory (OFF is refused in better-sqlite3's
      // defensive mode), so that the file is all there is and its name can go at once: SQLite
      // refuses to write a database whose name is gone only when it keeps a journal file beside it.
      // A crash loses the run, which the store (if any) keeps anyway. The name goes right after the
      // journal leaves the disk: a kill before that leaves the file, which the next run's
      // removeStaleTemps clears (its pid is gone).
      db.pragma("journal_mode = MEMORY");
      try {
        rmSync(file);
      } catch {
        // an open file cannot be removed here (Windows): close() removes it
      }
      db.pragma("synchronous = OFF");
      db.exec("CREATE TABLE entries (path TEXT NOT NULL, entry TEXT NOT NULL)");
      return {
        file,
        db,
        insert: db.prepare("INSERT INTO entries (path, entry) VALUES (?, ?)"),
        indexed: false,
        inTransaction: 0,
      };
    } catch (e) {
      for (const f of [file, `${file}-journal`]) rmSync(f, { force: true });
      throw failed(this.dir, e);
    }
  }

  /** Everything held in memory, into the file (which is made now if need be), committed. */
  private flush(): void {
    this.disk ??= this.open();
    for (const [path, entry] of this.pending) this.write(path, entry);
    this.pending.length = 0;
    this.pendingBytes = 0;
    if (this.disk.inTransaction > 0) {
      try {
        this.disk.db.exec("COMMIT");
      } catch (e) {
        throw failed(this.dir, e);
      }
      this.disk.inTransaction = 0;
    }
  }

  /** Every entry is in the file, indexed by path (once, after the inserts: cheaper than keeping an index up). */
  private ready(): NonNullable<SqliteRows["disk"]> {
    this.flush();
    const disk = this.disk!;
    if (!disk.indexed) {
      try {
        disk.db.exec("CREATE INDEX entries_path ON entries (path)");
      } catch (e) {
        throw failed(this.dir, e);
      }
      disk.indexed = true;
    }
    return disk;
  }

  /** The entries in path order (SQLite compares TEXT byte by byte: UTF-8 byte order, as §10 sorts). */
  *ordered(): Generator<BundleEntry> {
    if (this.disk === null) {
      // A small run: sorted here, in the same order.
      const sorted = [...this.pending].sort((a, b) => byteCompare(a[0], b[0]));
      for (const [, json] of sorted) yield JSON.parse(json) as BundleEntry;
      return;
    }
    const rows = (this.reading = this.ready()
      .db.prepare("SELECT entry FROM entries ORDER BY path, rowid")
      .iterate() as IterableIterator<{ entry: string }>);
    try {
      for (const row of rows) yield JSON.parse(row.entry) as BundleEntry;
    } finally {
      this.reading = null;
    }
  }

  /** Let the file go, even while a read of it is under way (a document that failed half written). */
  close(): void {
    if (this.disk === null) return;
    const { db, file } = this.disk;
    this.disk = null;
    try {
      this.reading?.return?.();
      this.reading = null;
      db.close();
    } finally {
      for (const f of [file, `${file}-journal`]) rmSync(f, { force: true });
    }
  }
}
