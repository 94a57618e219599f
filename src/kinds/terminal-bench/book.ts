// Terminal-Bench's book (main process): each run folder's own files (results.json,
// run_metadata.json, tb.lock), read once when discovery reaches the run, into the record the
// run-level rules need (record.ts), kept in the document so a merge of shards recomputes them.
import { join } from "node:path";
import { finding, type Finding } from "../../core/codes.js";
import { MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import type { Containers } from "../../core/results.js";
import { byteCompare } from "../../core/text.js";
import type { FoundContainer } from "../../io/discover.js";
import { readSmallFile } from "../../io/small-file.js";
import type { ContainerBook } from "../kind.js";
import { readRun, RUN_METADATA, RUN_RESULTS, TB_LOCK, type RunRecord } from "./record.js";

export type RunDocument = NonNullable<Containers["terminal-bench"]>[number];

export class RunBook implements ContainerBook {
  private readonly byPath = new Map<string, RunDocument>();

  found(c: FoundContainer): void {
    if (c.partial && this.byPath.has(c.path)) return;
    if (c.partial) return void this.byPath.set(c.path, runDocument(readRun({ results: null, metadata: null, lock: null }), c, true));
    const unreadable: Finding[] = [];
    const file = (name: string) => {
      const got = readSmallFile(join(c.dir, name), MAX_DOCUMENT_BYTES);
      if (got === null || got instanceof Uint8Array) return got;
      unreadable.push(finding("RUN_FILE_UNREADABLE", name, null, got.unreadable));
      return null;
    };
    const record = readRun({ results: file(RUN_RESULTS), metadata: file(RUN_METADATA), lock: file(TB_LOCK) });
    record.warnings.push(...unreadable);
    this.byPath.set(c.path, runDocument(record, c, false));
  }

  records(): RunDocument[] {
    return [...this.byPath.values()].sort((a, b) => byteCompare(a.path, b.path));
  }
}

/** The record as the document keeps it (snake_case; the listed trials' fingerprints as one string each, their field names once per shape). */
function runDocument(r: RunRecord, c: FoundContainer, partial: boolean): RunDocument {
  const shapes = new Map<string, number>();
  const fieldNames: string[][] = [];
  const shapeOf = (names: readonly string[]) => {
    const key = names.join("\u0000");
    let i = shapes.get(key);
    if (i === undefined) shapes.set(key, (i = fieldNames.push([...names]) - 1));
    return i;
  };
  const listed =
    r.listed?.map((l) => {
      const { names, digests } = l.fields.parts;
      return { name: l.name, task: l.task, is_resolved: l.isResolved ?? null, failure_mode: l.failureMode, harness: l.harness, shape: shapeOf(names), fields: digests };
    }) ?? null;
  return {
    path: c.path,
    name: c.name,
    partial,
    id: r.id,
    run_id: r.runId,
    version: r.version,
    field_names: fieldNames,
    listed,
    claims: r.claims,
    metadata: r.metadata === null ? null : { accuracy: r.metadata.accuracy, pass_at_k: r.metadata.pass_at_k, end_time: r.metadata.endTime, resumed_at: r.metadata.resumedAt },
    plan: r.plan,
    warnings: r.warnings,
  };
}
