// The analysis cache (analysis.md §3): better-sqlite3, one row per answered request, keyed by the
// SHA-256 of everything that could change the answer. Rows are re-validated on read against
// today's answer schema (a row that fails it is a miss); errors are never stored; each row keeps
// its provenance. The API key is never part of a key, a row or a message.

import Database from "better-sqlite3";
import { existsSync, mkdirSync } from "node:fs";
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
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

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

/** A cache file that is not one (the user can move it: --cache, ASSAY_CACHE). */
export class CacheError extends Error {
  readonly code = "CACHE";
}

export class AnalysisCache {
  /** null: a read-only cache whose file does not exist yet (every lookup misses, nothing is created). */
  private readonly db: Database.Database | null;
  private readonly get: Database.Statement<[string], { answer: string; provenance: string }> | null = null;
  private readonly put: Database.Statement<[string, string, string, string, string]> | null = null;

  /** `readOnly` (offline replay): never creates or writes anything. */
  constructor(readonly file: string, readonly readOnly = false) {
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
        this.db.exec(`CREATE TABLE IF NOT EXISTS answers (
          key TEXT PRIMARY KEY, analysis TEXT NOT NULL, model TEXT NOT NULL, answer TEXT NOT NULL, provenance TEXT NOT NULL)`);
      } catch (e) {
        this.db.close();
        throw new CacheError(`${file} cannot be used as the analysis cache: ${(e as Error).message}`);
      }
      this.put = this.db.prepare("INSERT OR REPLACE INTO answers (key, analysis, model, answer, provenance) VALUES (?, ?, ?, ?, ?)");
    }
    try {
      this.get = this.db.prepare("SELECT answer, provenance FROM answers WHERE key = ?");
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

  /** Store a validated answer (never an error). Throws when the database refuses: the caller decides. */
  store(key: string, analysis: string, answer: unknown, provenance: Provenance): void {
    this.put?.run(key, analysis, provenance.model, JSON.stringify(answer), JSON.stringify(provenance));
  }

  close(): void {
    this.db?.close();
  }
}
