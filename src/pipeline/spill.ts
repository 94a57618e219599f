// Where a run's bundle entries wait between scoring and the document: past the first few
// megabytes, a temporary SQLite file (never memory: a million entries are about a gigabyte of
// JSON), read back in path order when the document is written. Beside each entry spilled, a compact record stays in memory for the
// batch rules (core/batch/record.ts). The file is removed when the run is done with it; one a
// killed run left behind is removed by a later run once its process is gone and it is an hour old.

import type Database from "better-sqlite3";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordMaker, type BatchRecord } from "../core/batch/record.js";
import { count, emptyTally, type BundleEntry, type Tally } from "../core/results.js";
import { byteCompare, forTerminal } from "../core/text.js";
import { removeStaleTemps } from "../io/output.js";

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

export class EntrySpill implements EntrySource {
  readonly records: BatchRecord[] = [];
  readonly tally = emptyTally();
  /** Entries (path, JSON) not yet in the file: all of them while the run is small. */
  private readonly pending: [string, string][] = [];
  private pendingBytes = 0;
  private readonly maker = new RecordMaker();
  private disk: { file: string; db: Database.Database; insert: Database.Statement<[string, string]>; indexed: boolean; inTransaction: number } | null = null;

  /**
   * `dir`: where the file goes, once one is needed (ASSAY_TMPDIR, else the system's temporary
   * folder); `inMemoryBytes`: how much entry text is held before the file is made.
   */
  constructor(
    private readonly dir = process.env["ASSAY_TMPDIR"] || tmpdir(),
    private readonly inMemoryBytes = IN_MEMORY_BYTES,
  ) {}

  add(e: BundleEntry): void {
    this.records.push(this.maker.record(e));
    count(this.tally, e);
    const json = JSON.stringify(e);
    if (this.disk !== null) return this.write(e.path, json);
    this.pending.push([e.path, json]);
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
      throw this.failed(e);
    }
  }

  private failed(e: unknown): SpillError {
    return new SpillError(
      `cannot keep the run's bundle entries in a temporary file in ${forTerminal(this.dir)}: ${(e as Error).message} (ASSAY_TMPDIR names a folder with more room)`,
    );
  }

  private open(): NonNullable<EntrySpill["disk"]> {
    removeStaleTemps(this.dir, NAME);
    const file = join(this.dir, `.${NAME}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    try {
      const db = new (sqlite())(file);
      // Scratch data: no journal, no fsync; a crash loses the run, which the store (if any) keeps anyway.
      db.pragma("journal_mode = OFF");
      db.pragma("synchronous = OFF");
      db.exec("CREATE TABLE entries (path TEXT NOT NULL, entry TEXT NOT NULL)");
      return { file, db, insert: db.prepare("INSERT INTO entries (path, entry) VALUES (?, ?)"), indexed: false, inTransaction: 0 };
    } catch (e) {
      for (const f of [file, `${file}-journal`]) rmSync(f, { force: true });
      throw this.failed(e);
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
        throw this.failed(e);
      }
      this.disk.inTransaction = 0;
    }
  }

  /** Every entry is in the file, indexed by path (once, after the inserts: cheaper than keeping an index up). */
  private ready(): NonNullable<EntrySpill["disk"]> {
    this.flush();
    const disk = this.disk!;
    if (!disk.indexed) {
      try {
        disk.db.exec("CREATE INDEX entries_path ON entries (path)");
      } catch (e) {
        throw this.failed(e);
      }
      disk.indexed = true;
    }
    return disk;
  }

  /** The entries in path order (SQLite compares TEXT byte by byte: UTF-8 byte order, as §10 sorts). */
  *[Symbol.iterator](): Generator<BundleEntry> {
    if (this.disk === null) {
      // A small run: sorted here, in the same order.
      const sorted = [...this.pending].sort((a, b) => byteCompare(a[0], b[0]));
      for (const [, json] of sorted) yield JSON.parse(json) as BundleEntry;
      return;
    }
    for (const row of this.ready().db.prepare("SELECT entry FROM entries ORDER BY path, rowid").iterate() as IterableIterator<{ entry: string }>)
      yield JSON.parse(row.entry) as BundleEntry;
  }

  close(): void {
    if (this.disk === null) return;
    this.disk.db.close();
    for (const f of [this.disk.file, `${this.disk.file}-journal`]) rmSync(f, { force: true });
    this.disk = null;
  }
}
