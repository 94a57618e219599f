// The analysis cache (analysis.md §3): better-sqlite3, one row per answered request, keyed by the
// SHA-256 of everything that could change the answer. Rows are re-validated on read against
// today's answer schema (a row that fails it is a miss); errors are never stored; each row keeps
// its provenance. The API key is never part of a key, a row or a message.

import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { sha256 } from "../core/folder.js";

/** Bumped when the shape of a stored answer or of the request changes (the key includes it). */
export const ANALYSIS_FORMAT_VERSION = 1;
/** The version of the answer schema's construction from a rubric. */
export const OUTPUT_SCHEMA_VERSION = 1;

export interface KeyParts {
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
  request_id: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  created_at: string;
}

export class AnalysisCache {
  private readonly db: Database.Database;
  private readonly get: Database.Statement<[string], { answer: string; provenance: string }>;
  private readonly put: Database.Statement<[string, string, string, string, string]>;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000"); // another process may hold the write lock briefly
    this.db.exec(`CREATE TABLE IF NOT EXISTS answers (
      key TEXT PRIMARY KEY, analysis TEXT NOT NULL, model TEXT NOT NULL, answer TEXT NOT NULL, provenance TEXT NOT NULL)`);
    this.get = this.db.prepare("SELECT answer, provenance FROM answers WHERE key = ?");
    this.put = this.db.prepare("INSERT OR REPLACE INTO answers (key, analysis, model, answer, provenance) VALUES (?, ?, ?, ?, ?)");
  }

  /** The stored answer when it still passes `schema`; anything else (absent, corrupt, stale) is a miss. */
  lookup<S extends z.ZodType>(key: string, schema: S): { answer: z.output<S>; provenance: Provenance } | null {
    const row = this.get.get(key);
    if (row === undefined) return null;
    try {
      const answer = schema.safeParse(JSON.parse(row.answer));
      return answer.success ? { answer: answer.data, provenance: JSON.parse(row.provenance) as Provenance } : null;
    } catch {
      return null;
    }
  }

  /** Store a validated answer (never an error). */
  store(key: string, analysis: string, answer: unknown, provenance: Provenance): void {
    this.put.run(key, analysis, provenance.model, JSON.stringify(answer), JSON.stringify(provenance));
  }

  close(): void {
    this.db.close();
  }
}
