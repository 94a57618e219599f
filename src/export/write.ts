// `assay export`'s writing (issue 40 §2): results documents, read entry by entry (never whole),
// into a DuckDB database through DuckDB's own appender, then each table copied to Parquet by
// DuckDB itself. Memory holds one entry at a time and, per Inspect log, a small note of it (its
// samples are read from the log after the document, a batch at a time); DuckDB keeps its own
// memory under a limit and spills past it to its file.

import { existsSync, lstatSync, renameSync, rmSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api";
import type { BundleEntry } from "../core/results.js";
import { forTerminal } from "../core/text.js";
import { readShard } from "../io/shard-reader.js";
import { EvidenceChanged } from "../kinds/kind.js";
import { kindOfEntry } from "../kinds/registry.js";
import { entryRow, entryUnit, experimentRow, manyUnit, type Row } from "./rows.js";
import { createTable, TABLES, UNITS, type ColumnType, type TableName } from "./tables.js";

export const DATABASE = "assay.duckdb";
/** Where units are appended before their scores become a MAP. */
const STAGING = "units_staging";
/** Rows in a Parquet row group, and in a row group of the database's tables. */
const ROW_GROUP = 16_384;
export const PARQUET: Readonly<Record<TableName, string>> = {
  units: "units.parquet",
  entries: "entries.parquet",
  experiments: "experiments.parquet",
};

export interface ExportOptions {
  /** Results documents (JSON or JSON Lines), each a `document` in every row. */
  documents: readonly string[];
  /** The folder the four files go into (made if need be). */
  out: string;
  /** The folder the documents' relative paths are read from (where `assay score` ran): the current folder unless said. */
  from: string;
  /** DuckDB's memory limit (its own spilling past it), e.g. "512MB". */
  memoryLimit?: string;
  /** Told of each log whose samples could not be read. */
  onUnread?: (path: string, why: string) => void;
}

export interface ExportCounts {
  units: number;
  entries: number;
  experiments: number;
}

/**
 * Rows and text an appender holds before it is flushed: DuckDB's appender keeps up to 204,800
 * rows in its own memory, outside the limit (116,000 entries' JSON held 1 GB of RSS); flushed,
 * they are the table's, which the limit and checkpoints bound.
 */
const FLUSH_ROWS = 8_192;
const FLUSH_CHARS = 8 * 1024 * 1024;

/** A table's appender and its column types: a row's values appended by type, flushed as FLUSH_* say. */
class Table {
  readonly types: readonly ColumnType[];
  rows = 0;
  private held = 0;
  private heldChars = 0;
  constructor(
    readonly name: TableName,
    private readonly appender: DuckDBAppender,
  ) {
    this.types = TABLES[name].map((c) => c.type);
  }

  add(row: Row): void {
    const a = this.appender;
    this.types.forEach((t, i) => {
      const v = row[i];
      if (v === null || v === undefined) return a.appendNull();
      switch (t) {
        case "VARCHAR":
        case "JSON": {
          const text = String(v);
          this.heldChars += text.length;
          return a.appendVarchar(text);
        }
        case "INTEGER":
          return a.appendInteger(v as number);
        case "DOUBLE":
          return a.appendDouble(v as number);
        case "BOOLEAN":
          return a.appendBoolean(v as boolean);
        default: {
          // A map as JSON text, cast to the MAP once loaded: the appender's own maps hold ~2.7 KB
          // each that is never freed (@duckdb/node-api 1.5.6: 300,000 rows, 931 MB; as text, 117).
          const text = JSON.stringify(v);
          this.heldChars += text.length;
          return a.appendVarchar(text);
        }
      }
    });
    a.endRow();
    this.rows++;
    if (++this.held >= FLUSH_ROWS || this.heldChars >= FLUSH_CHARS) {
      a.flushSync();
      this.held = 0;
      this.heldChars = 0;
    }
  }

  /** Rows appended so far made the table's (before a statement that reads or changes them). */
  flush(): void {
    this.appender.flushSync();
    this.held = 0;
    this.heldChars = 0;
  }

  close(): void {
    this.appender.closeSync();
  }
}

/** What a log's samples need after the document is read: the entry without its per-sample lists (100,000 ids, values). */
const slim = (e: BundleEntry): BundleEntry => ({
  ...e,
  inspect: e.inspect === null ? null : { ...e.inspect, sample_ids: null, sample_clusters: null, metrics: {} },
});

/** Export every document given into `out`; the counts of rows written. */
export async function exportResults(o: ExportOptions): Promise<ExportCounts> {
  const duck = await import("@duckdb/node-api");
  const final = join(o.out, DATABASE);
  const temp = join(o.out, `.${DATABASE}.${process.pid}.tmp`);
  const spill = `${temp}.spill`;
  const scratch = [temp, `${temp}.wal`, spill];
  for (const f of scratch) rmSync(f, { force: true, recursive: true });
  // The database is attached (not opened) so that its row groups can be ROW_GROUP rows: at
  // DuckDB's default, 122,880 (~160 MB of entries' JSON), peak RSS grew with the units, its jumps
  // at the checkpoints appends set off (250,000 native units: 451 MB at a 128MB limit; 1,000,000:
  // 526 MB; now 342 and 353). jemalloc's background threads give back what a checkpoint freed.
  const instance = await duck.DuckDBInstance.create(":memory:", {
    memory_limit: o.memoryLimit ?? "512MB",
    threads: "2",
    preserve_insertion_order: "false",
    temp_directory: spill,
    allocator_background_threads: "true",
  });
  let connection: DuckDBConnection | null = null;
  let closed = false;
  try {
    connection = await instance.connect();
    const c = connection;
    await c.run(`ATTACH ${quote(temp)} AS out (ROW_GROUP_SIZE ${ROW_GROUP})`);
    await c.run("USE out");
    await c.run(createTable("units", { as: STAGING, mapsAsJson: true }));
    for (const name of ["entries", "experiments"] as const) await c.run(createTable(name));
    const table = async (name: TableName, as: string = name) => new Table(name, await c.createAppender(as));
    const units = await table("units", STAGING);
    const entries = await table("entries");
    const experiments = await table("experiments");
    for (const document of o.documents) {
      const later: BundleEntry[] = [];
      readShard(
        document,
        (e) => {
          const kind = kindOfEntry(e.profile);
          entries.add(entryRow(document, e));
          // An entry of many units is read from its evidence once the document is through (reading is asynchronous).
          if (kind.units !== undefined && e.validity !== "error") later.push(slim(e));
          else units.add(entryUnit(document, e, kind));
        },
        (x) => experiments.add(experimentRow(document, x)),
      );
      for (const e of later) {
        const kind = kindOfEntry(e.profile);
        const file = isAbsolute(e.path) ? e.path : resolve(o.from, e.path);
        try {
          if (!existsSync(file)) throw new Error(`no file at ${forTerminal(file)}`);
          // What score refused to read past its limits is not read here either (it has no other bound).
          if (e.errors.some((f) => f.code === "FILE_TOO_LARGE"))
            throw new Error("FILE_TOO_LARGE: score found it past what assay reads");
          for await (const u of kind.units!(e, file)) units.add(manyUnit(document, e, kind, u));
        } catch (err) {
          // Its rows so far stay (the entry says why the rest are not there), unless they are not the entry's evidence.
          if (err instanceof EvidenceChanged) {
            units.flush();
            const r = await c.run(`DELETE FROM ${STAGING} WHERE document = $1 AND entry = $2`, [document, e.path]);
            units.rows -= r.rowsChanged;
          }
          const why = (err as Error).message;
          o.onUnread?.(e.path, why);
          const row = entryUnit(document, e, kind);
          row[row.length - 1] = `its samples could not be read (${why}): the entry alone`;
          units.add(row);
        }
      }
    }
    for (const t of [units, entries, experiments]) t.close();
    const counts = { units: units.rows, entries: entries.rows, experiments: experiments.rows };
    // The units with their scores as the MAP the schema says (out of core: DuckDB spills past its limit).
    const maps = UNITS.filter((col) => col.type.startsWith("MAP"))
      .map((col) => `CAST(${col.name} AS ${col.type}) AS ${col.name}`)
      .join(", ");
    await c.run(`CREATE TABLE units AS SELECT * REPLACE (${maps}) FROM ${STAGING}`);
    await c.run(`DROP TABLE ${STAGING}`);
    // Its blocks freed before the Parquet writers need memory.
    await c.run("CHECKPOINT");
    // Parquet written by DuckDB itself, each table in one file; row groups of ROW_GROUP rows, as
    // the writer holds a row group in memory (its default, 122,880 rows of entries' JSON, passed a
    // 256 MB limit at 116,000 entries). Every file is written aside first and put in place together.
    // One thread: two, each its own row group, ran past a 64MB limit reading tables of small row groups.
    await c.run("SET threads = 1");
    for (const [name, file] of Object.entries(PARQUET))
      await c.run(
        `COPY ${name} TO ${quote(aside(join(o.out, file)))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP})`,
      );
    await c.run("CHECKPOINT");
    // Detached, the file is whole and closed before it is put in place.
    await c.run("USE memory");
    await c.run("DETACH out");
    c.closeSync();
    connection = null;
    instance.closeSync();
    closed = true;
    replaceAll([...Object.values(PARQUET).map((f) => join(o.out, f)), final], (f) => (f === final ? temp : aside(f)));
    return counts;
  } catch (e) {
    connection?.closeSync();
    if (!closed) instance.closeSync();
    for (const f of [...scratch, ...Object.values(PARQUET).map((f) => aside(join(o.out, f)))])
      rmSync(f, { force: true, recursive: true });
    throw e;
  }
}

/** A path as an SQL string literal. */
const quote = (path: string): string => `'${path.replace(/'/g, "''")}'`;

/** Where a file is written before it is put in place. */
const aside = (target: string): string => `${target}.${process.pid}.tmp`;

/**
 * Each target replaced by its new file (`from`), all or none: an old file is moved aside first and,
 * if any move fails, every target is put back as it was (a failed export leaves no mix of old and new).
 */
function replaceAll(targets: readonly string[], from: (target: string) => string): void {
  const old = (t: string) => `${t}.${process.pid}.old`;
  const movedAside: string[] = [];
  const placed: string[] = [];
  try {
    // Only files: whatever else is at a target (a folder) is not assay's to move, and the rename onto it fails below.
    for (const t of targets)
      if (lstatSync(t, { throwIfNoEntry: false })?.isFile()) {
        renameSync(t, old(t));
        movedAside.push(t);
      }
    for (const t of targets) {
      renameSync(from(t), t);
      placed.push(t);
    }
  } catch (e) {
    for (const t of placed) rmSync(t, { force: true });
    for (const t of movedAside) renameSync(old(t), t);
    throw e;
  }
  for (const t of movedAside) rmSync(old(t), { force: true });
}
