// Terminal-Bench's book (main process): each run folder's own files (results.json,
// run_metadata.json, tb.lock), read once when discovery reaches the run, into the record the
// run-level rules need (record.ts), kept in the document so a merge of shards recomputes them.
import { join } from "node:path";
import { MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import type { Containers } from "../../core/results.js";
import { byteCompare } from "../../core/text.js";
import type { FoundContainer } from "../../io/discover.js";
import { readSmallFile } from "../../io/small-file.js";
import type { ContainerBook } from "../kind.js";
import { readRun, RUN_METADATA, RUN_RESULTS, TB_LOCK, type RunRecord } from "./record.js";
import { finding } from "../../core/codes.js";

export type RunDocument = NonNullable<Containers["terminal-bench"]>[number];

export class RunBook implements ContainerBook {
  private readonly byPath = new Map<string, RunDocument>();

  found(c: FoundContainer): void {
    if (c.partial && this.byPath.has(c.path)) return;
    if (c.partial) return void this.byPath.set(c.path, runDocument(readRun({ results: null, metadata: null, lock: null }), c, true));
    const unreadable: string[] = [];
    const file = (name: string) => {
      const got = readSmallFile(join(c.dir, name), MAX_DOCUMENT_BYTES);
      if (got === null || got instanceof Uint8Array) return got;
      unreadable.push(`${name}: ${got.unreadable}`);
      return null;
    };
    const record = readRun({ results: file(RUN_RESULTS), metadata: file(RUN_METADATA), lock: file(TB_LOCK) });
    for (const why of unreadable) record.warnings.push(finding("RUN_FILE_UNREADABLE", why.slice(0, why.indexOf(":")), null, why.slice(why.indexOf(":") + 2)));
    this.byPath.set(c.path, runDocument(record, c, false));
  }

  records(): RunDocument[] {
    return [...this.byPath.values()].sort((a, b) => byteCompare(a.path, b.path));
  }
}

/** The record as the document keeps it (snake_case, the listed trials' fingerprints unpacked). */
function runDocument(r: RunRecord, c: FoundContainer, partial: boolean): RunDocument {
  return {
    path: c.path,
    name: c.name,
    partial,
    id: r.id,
    run_id: r.runId,
    version: r.version,
    listed:
      r.listed?.map((l) => ({ name: l.name, task: l.task, is_resolved: l.isResolved ?? null, failure_mode: l.failureMode, harness: l.harness, fields: l.fields.unpack() })) ?? null,
    claims: r.claims,
    metadata: r.metadata === null ? null : { accuracy: r.metadata.accuracy, pass_at_k: r.metadata.pass_at_k, end_time: r.metadata.endTime, resumed_at: r.metadata.resumedAt },
    plan: r.plan,
    warnings: r.warnings,
  };
}
