// The analysis cache (analysis.md §3): better-sqlite3, one row per answered request, keyed by the
// SHA-256 of everything that could change the answer. Rows are re-validated on read against
// today's answer schema (a row that fails it is a miss); errors are never stored; each row keeps
// its provenance. The API key is never part of a key, a row or a message.

import Database from "better-sqlite3";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { sha256 } from "../core/folder.js";

/** Bumped when the shape of a stored answer or of the request changes (the key includes it). */
export const ANALYSIS_FORMAT_VERSION = 1;
/** The version of the answer schema's construction from a rubric. */
export const OUTPUT_SCHEMA_VERSION = 1;

export interface KeyParts {
  /** SHA-256 of the exact request (system, user turn, tool and schema, model, max_tokens): whatever reaches the model. */
  request: string;
  evidence: string;
  rubric: string;
  prompt: string;
  model: string;
  /** Sampling parameters sent with the request (this SDK's Messages API takes max_tokens; no temperature). */
  sampling: { max_tokens: number };
  repeat: number;
  /**
   * The key file's fingerprint when seals were checked (§7). Absent without one, so that every key
   * made before seals existed is unchanged.
   */
  hmac_key?: string;
}

/** SHA-256 of the canonical JSON (sorted keys) of every part that can change an answer. */
export function cacheKey(p: KeyParts): string {
  return sha256(
    canonical({ ...p, output_schema_version: OUTPUT_SCHEMA_VERSION, analysis_format_version: ANALYSIS_FORMAT_VERSION }),
  );
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (typeof v === "object" && v !== null)
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** Provenance of an answer just made: what the reply says of itself, where it came from, what it cost. */
export const provenanceOf = (
  reply: { model: string; requestId: string | null; inputTokens: number; outputTokens: number },
  endpoint: string,
  costUsd: number | null,
): Provenance => ({
  model: reply.model,
  endpoint,
  request_id: reply.requestId,
  input_tokens: reply.inputTokens,
  output_tokens: reply.outputTokens,
  cost_usd: costUsd,
  created_at: new Date().toISOString(),
});

export interface Provenance {
  model: string;
  /** The endpoint that answered (a fake or a proxy is not the API). */
  endpoint: string;
  request_id: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  created_at: string;
}

export interface RunStats {
  hits: number;
  asked: number;
  errors: number;
  notAnalysed: number;
  costUsd: number;
  /** What the cache hits cost when they were first asked (known prices only). */
  savedUsd: number;
}
export interface CacheStats {
  rows: number;
  bytes: number;
  byAnalysis: { analysis: string; model: string; rows: number }[];
  oldest: string | null;
  newest: string | null;
  lastRun: {
    command: string;
    finished_at: string;
    hits: number;
    asked: number;
    errors: number;
    not_analysed: number;
    cost_usd: number;
    saved_usd: number;
  } | null;
}

/** A cache file that is not one (the user can move it: --cache, ASSAY_CACHE). */
export class CacheError extends Error {
  readonly code = "CACHE";
}

export class AnalysisCache {
  /** null: a read-only cache whose file does not exist yet (every lookup misses, nothing is created). */
  private readonly db: Database.Database | null;
  private readonly get: Database.Statement<[string], { answer: string; provenance: string }> | null = null;
  private readonly put: Database.Statement<[string, string, string, string, string, string]> | null = null;
  /** How an answer's time is read (a column, or provenance in a cache written before the column). */
  private readonly createdAt: string = "created_at";

  /** `readOnly` (offline replay): never creates or writes anything. */
  constructor(
    readonly file: string,
    readonly readOnly = false,
  ) {
    if (readOnly && !existsSync(file)) {
      this.db = null;
      return;
    }
    if (!readOnly) mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file, { readonly: readOnly, timeout: 5000 }); // another process may hold the write lock briefly
    if (!readOnly) {
      try {
        this.db.pragma("journal_mode = WAL");
        this.db.pragma("synchronous = NORMAL");
        this.db.exec(`
          CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, analysis TEXT NOT NULL, model TEXT NOT NULL,
            answer TEXT NOT NULL, provenance TEXT NOT NULL, created_at TEXT NOT NULL);
          CREATE TABLE IF NOT EXISTS batches (id TEXT PRIMARY KEY, keys TEXT NOT NULL, created_at TEXT NOT NULL, collected INTEGER NOT NULL DEFAULT 0);
          CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, command TEXT NOT NULL, finished_at TEXT NOT NULL,
            hits INTEGER NOT NULL, asked INTEGER NOT NULL, errors INTEGER NOT NULL, not_analysed INTEGER NOT NULL,
            cost_usd REAL NOT NULL, saved_usd REAL NOT NULL);`);
        // A cache written before answers had their own created_at column: add it, from provenance,
        // in one transaction (a kill between the two steps would leave every time empty).
        const db = this.db;
        const migrated = () =>
          (db.prepare("PRAGMA table_info(answers)").all() as { name: string }[]).some((c) => c.name === "created_at");
        if (!migrated())
          db.transaction(() => {
            if (migrated()) return; // another process was first
            db.exec("ALTER TABLE answers ADD COLUMN created_at TEXT NOT NULL DEFAULT ''");
            db.exec("UPDATE answers SET created_at = coalesce(json_extract(provenance, '$.created_at'), '')");
          }).immediate();
      } catch (e) {
        this.db.close();
        throw new CacheError(`${file} cannot be used as the analysis cache: ${(e as Error).message}`);
      }
      this.put = this.db.prepare(
        "INSERT OR REPLACE INTO answers (key, analysis, model, answer, provenance, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      );
    }
    try {
      this.get = this.db.prepare("SELECT answer, provenance FROM answers WHERE key = ?");
      // A read-only cache from before answers had created_at: read the time from provenance.
      const columns = this.db.prepare("PRAGMA table_info(answers)").all() as { name: string }[];
      if (!columns.some((c) => c.name === "created_at")) this.createdAt = "json_extract(provenance, '$.created_at')";
    } catch {
      this.get = null; // a read-only file without the table: an empty cache
    }
  }

  /**
   * The stored answer when it still passes `schema`; anything else — absent, corrupt, stale, or a
   * database that cannot be read right now — is a miss (asked again), never a crash.
   */
  lookup<S extends z.ZodType>(key: string, schema: S): { answer: z.output<S>; provenance: Provenance } | null {
    try {
      const row = this.get?.get(key);
      if (row === undefined) return null;
      const answer = schema.safeParse(JSON.parse(row.answer));
      return answer.success ? { answer: answer.data, provenance: JSON.parse(row.provenance) as Provenance } : null;
    } catch {
      return null;
    }
  }

  /**
   * Store a validated answer (never an error) under the model that was asked for (what --model and
   * `cache prune --model` name; provenance keeps the name the reply gave). Throws when the database
   * refuses: the caller decides.
   */
  store(key: string, analysis: string, model: string, answer: unknown, provenance: Provenance): void {
    this.put?.run(key, analysis, model, JSON.stringify(answer), JSON.stringify(provenance), provenance.created_at);
  }

  /**
   * A batch about to be created, kept first under a placeholder id ("pending:…"), so that a create
   * whose answer is lost (a timeout, a kill) can be found and collected by the next run.
   */
  saveBatch(id: string, keys: readonly string[]): void {
    this.db
      ?.prepare("INSERT OR REPLACE INTO batches (id, keys, created_at, collected) VALUES (?, ?, ?, 0)")
      .run(id, JSON.stringify(keys), new Date().toISOString());
  }

  /** The placeholder becomes the batch's real id (open again, should another run have given it up meanwhile). */
  renameBatch(from: string, to: string): void {
    this.db?.prepare("UPDATE batches SET id = ?, collected = 0 WHERE id = ?").run(to, from);
  }

  /** Every batch id this cache has recorded, whatever became of it. */
  batchIds(): Set<string> {
    if (this.db === null || this.put === null) return new Set();
    return new Set((this.db.prepare("SELECT id FROM batches").all() as { id: string }[]).map((r) => r.id));
  }

  /** Batches not yet collected (a run was stopped, or some of their answers are still wanted), oldest first. */
  openBatches(): { id: string; keys: string[]; createdAt: string }[] {
    if (this.db === null || this.put === null) return [];
    const rows = this.db
      .prepare("SELECT id, keys, created_at FROM batches WHERE collected = 0 ORDER BY created_at, id")
      .all() as { id: string; keys: string; created_at: string }[];
    return rows.map((r) => ({ id: r.id, keys: JSON.parse(r.keys) as string[], createdAt: r.created_at }));
  }

  /** Done with a batch: every answer it holds is settled (1), or it is gone or was never made (-1). */
  closeBatch(id: string, how: "collected" | "abandoned" = "collected"): void {
    this.db?.prepare("UPDATE batches SET collected = ? WHERE id = ?").run(how === "collected" ? 1 : -1, id);
  }

  /** Is an answer stored under this key (whatever its schema)? */
  has(key: string): boolean {
    try {
      return this.db !== null && this.db.prepare("SELECT 1 AS one FROM answers WHERE key = ?").get(key) !== undefined;
    } catch {
      return false;
    }
  }

  /** Record what a run took from the cache and what it asked (for `assay cache stats`); a read-only cache records nothing. */
  recordRun(command: string, run: RunStats): void {
    this.db
      ?.prepare(
        "INSERT INTO runs (command, finished_at, hits, asked, errors, not_analysed, cost_usd, saved_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        command,
        new Date().toISOString(),
        run.hits,
        run.asked,
        run.errors,
        run.notAnalysed,
        run.costUsd,
        run.savedUsd,
      );
  }

  stats(): CacheStats {
    const empty: CacheStats = { rows: 0, bytes: 0, byAnalysis: [], oldest: null, newest: null, lastRun: null };
    if (this.db === null) return empty;
    try {
      return this.statsOf(this.db);
    } catch {
      return empty; // a file without the tables (read-only, never written by assay): nothing in it
    }
  }

  private statsOf(db: Database.Database): CacheStats {
    const byAnalysis = db
      .prepare(
        "SELECT analysis, model, count(*) AS rows FROM answers GROUP BY analysis, model ORDER BY analysis, model",
      )
      .all() as CacheStats["byAnalysis"];
    const span = db
      .prepare(
        `SELECT count(*) AS rows, min(${this.createdAt}) AS oldest, max(${this.createdAt}) AS newest FROM answers`,
      )
      .get() as {
      rows: number;
      oldest: string | null;
      newest: string | null;
    };
    let lastRun: CacheStats["lastRun"] = null;
    try {
      lastRun = (db
        .prepare(
          "SELECT command, finished_at, hits, asked, errors, not_analysed, cost_usd, saved_usd FROM runs ORDER BY id DESC LIMIT 1",
        )
        .get() ?? null) as CacheStats["lastRun"];
    } catch {
      // a cache from before runs were recorded
    }
    const pages = db.pragma("page_count", { simple: true }) as number;
    const size = db.pragma("page_size", { simple: true }) as number;
    const wal = statSync(`${this.file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    return {
      rows: span.rows,
      bytes: pages * size + wal,
      byAnalysis,
      oldest: span.oldest,
      newest: span.newest,
      lastRun,
    };
  }

  /** Delete answers made before `before` (ISO time), of one model when given; returns how many. One transaction. */
  prune(before: string, model?: string): number {
    if (this.put === null || this.db === null) throw new CacheError(`${this.file} is open read-only`);
    const run =
      model === undefined
        ? this.db.prepare("DELETE FROM answers WHERE created_at < ?").run(before)
        : this.db.prepare("DELETE FROM answers WHERE created_at < ? AND model = ?").run(before, model);
    return run.changes;
  }

  /** Every answer with its provenance, oldest first (for `assay cache export`). */
  *rows(): Generator<{ key: string; analysis: string; model: string; answer: unknown; provenance: unknown }> {
    if (this.db === null || this.get === null) return; // no file, or no table in it
    const it = this.db
      .prepare(`SELECT key, analysis, model, answer, provenance FROM answers ORDER BY ${this.createdAt}, key`)
      .iterate() as IterableIterator<{
      key: string;
      analysis: string;
      model: string;
      answer: string;
      provenance: string;
    }>;
    for (const r of it)
      yield {
        key: r.key,
        analysis: r.analysis,
        model: r.model,
        answer: JSON.parse(r.answer),
        provenance: JSON.parse(r.provenance),
      };
  }

  /** Does the file hold assay's answers table (a missing file, another database or not a database: no)? */
  get holdsAnswers(): boolean {
    return this.get !== null;
  }

  close(): void {
    this.db?.close();
  }
}
