// Terminal-Bench's book (main process): each run folder's own files (results.json,
// run_metadata.json, tb.lock), read once when discovery reaches the run, into the record the
// run-level rules need (record.ts), kept in the document so a merge of shards recomputes them.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { finding, type Finding } from "../../core/codes.js";
import { MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import type { Containers } from "../../core/results.js";
import { byteCompare } from "../../core/text.js";
import type { EntryIdentity } from "../../core/identity.js";
import type { Found, FoundContainer } from "../../io/discover.js";
import { readSmallFile, statOf } from "../../io/small-file.js";
import type { ContainerBook } from "../kind.js";
import { isTaskFolder, parseTrialName } from "./recognise.js";
import { containerDigest, ownListing } from "../../io/container-digest.js";
import { readRun, RUN_METADATA, RUN_RESULTS, TB_LOCK, type RunRecord } from "./record.js";

/** Folders not named as trials said at most this many times a run (the rest counted in the last). */
const MAX_UNNAMED = 10;

export type RunDocument = NonNullable<Containers["terminal-bench"]>[number];

export class RunBook implements ContainerBook {
  private readonly byPath = new Map<string, RunDocument>();
  /** What each run read records of its trials' run (identity.ts), by the run's path: one small object a run. */
  private readonly identities = new Map<string, EntryIdentity>();

  found(c: FoundContainer): void {
    if (c.partial && this.byPath.has(c.path)) return;
    if (c.partial)
      return void this.byPath.set(
        c.path,
        runDocument(readRun({ results: null, metadata: null, lock: null }), c, true, null),
      );
    const unreadable: Finding[] = [];
    const file = (name: string) => {
      const got = readSmallFile(join(c.dir, name), MAX_DOCUMENT_BYTES);
      if (got === null || got instanceof Uint8Array) return got;
      unreadable.push(finding("RUN_FILE_UNREADABLE", name, null, got.unreadable));
      return null;
    };
    const record = readRun({ results: file(RUN_RESULTS), metadata: file(RUN_METADATA), lock: file(TB_LOCK) });
    record.warnings.push(...unreadable, ...unnamedFolders(c.dir, record));
    this.byPath.set(c.path, runDocument(record, c, false, runDigest(c.dir)));
    if (record.identity !== null) this.identities.set(c.path, Object.freeze(record.identity));
  }

  /** A trial: it carries what its run's files record of who ran it. */
  attach(f: Found): void {
    const at = f.member?.containerPath;
    const identity = at === undefined ? undefined : this.identities.get(at);
    if (identity !== undefined) f.member!.identity = identity;
  }

  records(): RunDocument[] {
    return [...this.byPath.values()].sort((a, b) => byteCompare(a.path, b.path));
  }
}

/**
 * Rule 14b: a listed trial whose folder is not where its name puts it, beside a folder in its task
 * folder that is not named as a trial (archives rename them): that folder is not scored (nothing
 * says it is a trial), and is named, so the missing trial can be looked for there.
 */
function unnamedFolders(dir: string, record: RunRecord): Finding[] {
  const tasks = new Set<string>();
  for (const l of record.listed ?? [])
    if (l.name !== null && l.task !== null && !l.harness && !tasks.has(l.task) && !exists(join(dir, l.task, l.name)))
      tasks.add(l.task);
  const found: string[] = [];
  for (const task of [...tasks].sort(byteCompare)) {
    for (const sub of subfolders(join(dir, task))) if (parseTrialName(sub, task) === null) found.push(`${task}/${sub}`);
  }
  const out = found
    .slice(0, MAX_UNNAMED)
    .map((f) =>
      finding(
        "TRIAL_FOLDER_UNNAMED",
        f,
        null,
        `a folder in the task folder of a listed trial without its folder, not named as a trial (<task>.<k>-of-<n>[.<run_id>]): not scored; renamed?`,
      ),
    );
  if (found.length > MAX_UNNAMED)
    out.push(finding("TRIAL_FOLDER_UNNAMED", null, null, `and ${found.length - MAX_UNNAMED} more such folders`));
  return out;
}

const exists = (p: string) => statOf(p) !== undefined;
/** A folder's subfolders (none when it cannot be listed: its trials are then the walk's tool errors). */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort(byteCompare);
  } catch {
    return [];
  }
}

/**
 * §15.3: the run's own files, in no trial's entry: its top-level files, and those directly in its
 * task folders (a subfolder grouping trials, as discovery tells one). Its other subfolders are
 * walked on their own (a run nested in it): what lies there is not this run's.
 */
function runDigest(dir: string): string | null {
  const own = ownListing(dir);
  if (own === null) return null;
  const files = [...own.files];
  for (const task of own.dirs) {
    const sub = ownListing(join(dir, task));
    if (sub !== null && isTaskFolder(task, sub.dirs)) files.push(...sub.files.map((f) => `${task}/${f}`));
  }
  return containerDigest(dir, files);
}

/** The record as the document keeps it (snake_case; the listed trials' fingerprints as one string each, their field names once per shape). */
function runDocument(r: RunRecord, c: FoundContainer, partial: boolean, digest: string | null): RunDocument {
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
      return {
        name: l.name,
        task: l.task,
        is_resolved: l.isResolved ?? null,
        failure_mode: l.failureMode,
        harness: l.harness,
        shape: shapeOf(names),
        fields: digests,
      };
    }) ?? null;
  return {
    path: c.path,
    name: c.name,
    partial,
    digest,
    id: r.id,
    run_id: r.runId,
    version: r.version,
    field_names: fieldNames,
    listed,
    claims: r.claims,
    metadata:
      r.metadata === null
        ? null
        : {
            accuracy: r.metadata.accuracy,
            pass_at_k: r.metadata.pass_at_k,
            end_time: r.metadata.endTime,
            resumed_at: r.metadata.resumedAt,
          },
    plan: r.plan,
    warnings: r.warnings,
  };
}
