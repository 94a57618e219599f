// A `tb run` folder's own files (results.json, run_metadata.json, tb.lock) read into a bounded
// record of what the run-level rules need (docs/terminal-bench.md rules 12–18), pure: bytes in,
// the record out. A malformed file is a warning, and what it says is unknown.

import { finding, type Finding } from "../../core/codes.js";
import type { EntryIdentity } from "../../core/identity.js";
import { isPlainObject } from "../../core/json/decode.js";
import { check, setOwn } from "../../core/schema.js";
import {
  benchmarkResultsSchema,
  fingerprints,
  isHarnessShape,
  num,
  readJson,
  runLockSchema,
  runMetadataSchema,
  trialResultsSchema,
  trialViewOf,
  type Obj,
} from "./models.js";
import { runIdentity } from "./identity.js";

export const RUN_RESULTS = "results.json";
export const RUN_METADATA = "run_metadata.json";
export const TB_LOCK = "tb.lock";

import { MAX_LISTED_TRIALS } from "./entry.js";
export { MAX_LISTED_TRIALS };

/** One trial as the run's results list names it: what TB's figures and the rules read, no more. */
export interface ListedTrial {
  name: string | null;
  task: string | null;
  /** is_resolved as written: true, false, null (no verdict), or undefined (ill-typed). */
  isResolved: boolean | null | undefined;
  failureMode: string | null;
  /** TB's entry for a harness exception, for which it writes no trial file. */
  harness: boolean;
  /** Its fields' fingerprints, packed (Packed.unpack gives the map). */
  fields: Packed;
}

/**
 * A fingerprint map in two strings: the field names (one shared instance per shape of entry:
 * TB writes every entry with the same fields) and the digests, concatenated in name order. A
 * map per listed trial would cost several times as much.
 */
export class Packed {
  private constructor(
    private readonly names: string,
    private readonly digests: string,
  ) {}

  static of(fields: Record<string, string>, shapes: Map<string, string>): Packed {
    const keys = Object.keys(fields);
    const joined = keys.join("\u0000");
    let names = shapes.get(joined);
    if (names === undefined) shapes.set(joined, (names = joined));
    return new Packed(names, keys.map((k) => fields[k]).join(""));
  }

  /** As the document keeps it: the field names (one shared list per shape) and the digests in their order. */
  get parts(): { names: readonly string[]; digests: string } {
    return { names: this.names === "" ? [] : this.names.split("\u0000"), digests: this.digests };
  }

  /** A shape's field names as `fromShape` takes them: joined once per shape, shared by its entries. */
  static shape(names: readonly string[]): string {
    return names.join("\u0000");
  }

  /** From the document's parts: a `shape` string and the digests in its order. */
  static fromShape(shape: string, digests: string): Packed {
    return new Packed(shape, digests);
  }

  unpack(): Record<string, string> {
    const out: Record<string, string> = {};
    const names = this.names === "" ? [] : this.names.split("\u0000");
    names.forEach((k, i) => setOwn(out, k, this.digests.slice(i * 16, i * 16 + 16)));
    return out;
  }
}

export type ClaimedPassAtK = Record<string, number | null>;
export interface RunRecord {
  id: string | null;
  /** run_metadata.json, else tb.lock local_config. */
  runId: string | null;
  /** tb.lock harness.version. */
  version: string | null;
  /** The results list; null when results.json is absent or unreadable. */
  listed: ListedTrial[] | null;
  claims: {
    accuracy: number | null;
    n_resolved: number | null;
    n_unresolved: number | null;
    resolved_ids: string[] | null;
    unresolved_ids: string[] | null;
    pass_at_k: ClaimedPassAtK | null;
  } | null;
  /** run_metadata.json's copies of the figures, and whether it was finalised (end_time set); null without the file. */
  metadata: {
    accuracy: number | null;
    pass_at_k: ClaimedPassAtK | null;
    endTime: string | null;
    resumedAt: string | null;
  } | null;
  plan: { trials: number | null; tasks: number | null; attempts: number | null; source: string | null };
  warnings: Finding[];
}

/** The record, and what the run records of its trials' run (identity.ts; null when neither run_metadata.json nor tb.lock was read): the book gives it to each trial, the document keeps it nowhere else. */
export type RunRead = RunRecord & { identity: EntryIdentity | null };

/** The run's own files (each null when absent) → its record. A malformed file is a warning, and what it says is unknown. */
export function readRun(files: {
  results: Uint8Array | null;
  metadata: Uint8Array | null;
  lock: Uint8Array | null;
}): RunRead {
  const warnings: Finding[] = [];
  const doc = (bytes: Uint8Array | null, file: string, schema: Parameters<typeof check>[0]): Obj | null => {
    if (bytes === null) return null;
    const found: Finding[] = [];
    const r = readJson(bytes, file, found);
    const value = r.ok && isPlainObject(r.value) ? r.value : null;
    if (value !== null) check(schema, value, file, null, found);
    else if (found.length === 0)
      found.push(finding("SCHEMA", file, null, r.ok ? "expected an object" : "empty, or cut short mid-document"));
    for (const f of found) warnings.push(finding("RUN_FILE_UNREADABLE", file, null, `${f.code}: ${f.message}`));
    return value;
  };
  const results = doc(files.results, RUN_RESULTS, benchmarkResultsSchema);
  const meta = doc(files.metadata, RUN_METADATA, runMetadataSchema);
  const lock = doc(files.lock, TB_LOCK, runLockSchema);

  const sub = (o: Obj | null, k: string): Obj | null => (o !== null && isPlainObject(o[k]) ? o[k] : null);
  const str = (o: Obj | null, k: string): string | null => (o !== null && typeof o[k] === "string" ? o[k] : null);
  const nat = (o: Obj | null, k: string): number | null =>
    o !== null && typeof o[k] === "number" && Number.isSafeInteger(o[k]) && o[k] >= 0 ? o[k] : null;
  const strings = (o: Obj | null, k: string): string[] | null =>
    o !== null && Array.isArray(o[k]) && o[k].every((x) => typeof x === "string") ? (o[k] as string[]) : null;
  const passK = (o: Obj | null): ClaimedPassAtK | null => {
    const p = o?.["pass_at_k"];
    if (!isPlainObject(p)) return null;
    const out: ClaimedPassAtK = {};
    for (const [k, v] of Object.entries(p)) out[k] = v === null ? null : num(v);
    return out;
  };

  let listed: ListedTrial[] | null = null;
  const list = results?.["results"];
  if (Array.isArray(list) && list.length > MAX_LISTED_TRIALS)
    warnings.push(
      finding(
        "RUN_FILE_UNREADABLE",
        RUN_RESULTS,
        null,
        `lists ${list.length} trials, more than the ${MAX_LISTED_TRIALS} assay keeps a record of: nothing in it is compared`,
      ),
    );
  else if (results !== null && Array.isArray(list)) {
    listed = [];
    const bad: Finding[] = [];
    const shapes = new Map<string, string>();
    for (const [i, e] of list.entries()) {
      const o = isPlainObject(e) ? e : {};
      if (bad.length < 3) check(trialResultsSchema, e, `${RUN_RESULTS} results[${i}]`, null, bad);
      const v = trialViewOf(o);
      listed.push({
        name: v.trialName,
        task: v.taskId,
        isResolved: v.isResolved,
        failureMode: v.failureMode,
        harness: isHarnessShape(v),
        fields: Packed.of(fingerprints(o), shapes),
      });
    }
    for (const f of bad) warnings.push(finding("RUN_FILE_UNREADABLE", RUN_RESULTS, null, `${f.file}: ${f.message}`));
  }
  const claims =
    results === null
      ? null
      : {
          accuracy: num(results["accuracy"]),
          n_resolved: nat(results, "n_resolved"),
          n_unresolved: nat(results, "n_unresolved"),
          resolved_ids: strings(results, "resolved_ids"),
          unresolved_ids: strings(results, "unresolved_ids"),
          pass_at_k: passK(results),
        };
  const metadata =
    meta === null
      ? null
      : {
          accuracy: num(meta["accuracy"]),
          pass_at_k: passK(meta),
          endTime: str(meta, "end_time"),
          resumedAt: str(meta, "resumed_at"),
        };

  // The plan (rule 16): tasks × attempts, from run_metadata.json, else tb.lock.
  const metaAttempts = nat(meta, "n_attempts");
  const lockAttempts = nat(sub(lock, "run_config"), "n_attempts");
  const size = nat(meta, "dataset_size");
  const lockTasks = strings(sub(lock, "dataset"), "task_ids");
  const metaTasks = strings(meta, "task_ids");
  let plan: RunRecord["plan"] = { trials: null, tasks: null, attempts: metaAttempts ?? lockAttempts, source: null };
  if (size !== null && size > 0 && metaAttempts !== null)
    plan = {
      trials: size * metaAttempts,
      tasks: size,
      attempts: metaAttempts,
      source: `${RUN_METADATA} dataset_size × n_attempts`,
    };
  else if (lockTasks !== null && lockAttempts !== null)
    plan = {
      trials: lockTasks.length * lockAttempts,
      tasks: lockTasks.length,
      attempts: lockAttempts,
      source: `${TB_LOCK} dataset.task_ids × run_config.n_attempts`,
    };
  else if (metaTasks !== null && metaAttempts !== null)
    plan = {
      trials: metaTasks.length * metaAttempts,
      tasks: metaTasks.length,
      attempts: metaAttempts,
      source: `${RUN_METADATA} task_ids × n_attempts`,
    };

  return {
    id: str(results, "id"),
    runId: str(meta, "run_id") ?? str(sub(lock, "local_config"), "run_id"),
    version: str(sub(lock, "harness"), "version"),
    listed,
    claims,
    metadata,
    plan,
    identity: runIdentity(meta, lock),
    warnings,
  };
}
