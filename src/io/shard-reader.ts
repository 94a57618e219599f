// Reading results documents for `assay merge` (and `assay compare`, which takes their experiments
// too), streamed: a JSON document (`--format json`) member by member and its bundle entries one at a
// time, or a JSON Lines document (`--format jsonl`) line by line. Memory holds one entry at a time,
// whatever the document's size. A file that is not assay's own results document is a one-line usage
// error naming the file and the byte where it goes wrong.

import { bundleEntrySchema, experimentSchema, resultsSchema, type BundleEntry, type Experiment, type Results } from "../core/results.js";
import { describeIssues } from "../core/schema.js";
import { MembersError, MembersReader } from "../core/json/members.js";
import { forTerminal } from "../core/text.js";
import { UsageError } from "../errors.js";
import { readChunks } from "./bundle-source.js";

const FORMAT = "assay.results/1";
const runSchema = resultsSchema.shape.run;

/** What a shard document says of its run; its entries went to `onEntry`, in the document's order. */
export interface ShardRun {
  run: Results["run"];
  entries: number;
}

class NotResults extends UsageError {
  constructor(file: string, what: string) {
    super(`${forTerminal(file)} is not an assay results document: ${what}`);
  }
}

/** A value's bytes as JSON (assay's own output: plain JSON.parse, then the schema decides). */
function parsed(file: string, bytes: Buffer, offset: number, what: string): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new NotResults(file, `${what} at byte ${offset} is not JSON`);
  }
}

function entryOf(file: string, value: unknown, offset: number): BundleEntry {
  const r = bundleEntrySchema.safeParse(value);
  if (!r.success) throw new NotResults(file, `the bundle entry at byte ${offset}: ${describeIssues(r.error.issues)}`);
  return r.data;
}

function experimentOf(file: string, value: unknown, offset: number): Experiment {
  const r = experimentSchema.safeParse(value);
  if (!r.success) throw new NotResults(file, `the experiment at byte ${offset}: ${describeIssues(r.error.issues)}`);
  return r.data;
}

/** Where the experiments go, when the reader wants them (compare does; a merge computes its own). */
type OnExperiment = ((x: Experiment) => void) | undefined;

function runOf(file: string, value: unknown, offset: number): Results["run"] {
  // A shard scored before keyed seals existed checked none: its key is null.
  const options = (value as { options?: Record<string, unknown> } | null)?.options;
  if (typeof options === "object" && options !== null && !Object.hasOwn(options, "hmac_key")) options["hmac_key"] = null;
  const r = runSchema.safeParse(value);
  if (!r.success) throw new NotResults(file, `"run" at byte ${offset}: ${describeIssues(r.error.issues)}`);
  return r.data;
}

/**
 * Read one shard document (JSON or JSON Lines, told apart by its first line), handing each bundle
 * entry to `onEntry` (and each experiment to `onExperiment`, and the file's bytes as read to
 * `onBytes`: narrate digests the document so).
 */
export function readShard(file: string, onEntry: (e: BundleEntry) => void, onExperiment?: (x: Experiment) => void, onBytes?: (chunk: Uint8Array) => void): ShardRun {
  const chunks = (onBytes === undefined ? readable(file) : observed(readable(file), onBytes))[Symbol.iterator]();
  // The first line decides: a JSON Lines document's is a complete object of type "run".
  const parts: Uint8Array[] = [];
  let length = 0;
  let next = chunks.next();
  for (let ended = false; !next.done && !ended && length < 1 << 20; next = chunks.next()) {
    parts.push(next.value);
    length += next.value.length;
    ended = next.value.indexOf(0x0a) !== -1;
  }
  const head = Buffer.concat(parts, length);
  const rest = function* (): Generator<Buffer> {
    try {
      yield head;
      for (; !next.done; next = chunks.next()) yield Buffer.from(next.value);
    } finally {
      chunks.return?.(undefined); // a document refused part way: its file is closed now, not at exit
    }
  };
  const nl = head.indexOf(0x0a);
  let first: unknown = null;
  try {
    first = JSON.parse(head.subarray(0, nl === -1 ? head.length : nl).toString("utf8"));
  } catch {
    // not a complete object on one line: a JSON document
  }
  const isLines = typeof first === "object" && first !== null && (first as { type?: unknown }).type === "run";
  return isLines ? readLines(file, rest(), onEntry, onExperiment) : readDocument(file, rest(), onEntry, onExperiment);
}

/** The file's chunks; a file that cannot be read is the user's to fix, said in one line. */
function* readable(file: string): Generator<Uint8Array> {
  try {
    yield* readChunks(file);
  } catch (e) {
    // The file system's refusals (they name a syscall); anything else is a defect, not the user's.
    const { code, syscall } = e as NodeJS.ErrnoException;
    if (typeof code !== "string" || syscall === undefined) throw e;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a folder" : code === "EACCES" ? "permission denied" : code === "ENOTDIR" ? "a part of its path is not a folder" : (e as Error).message.replace(/, \w+ '[\s\S]*$/, "");
    throw new UsageError(`cannot read ${forTerminal(file)}: ${why}`);
  }
}

function* observed(chunks: Iterable<Uint8Array>, see: (chunk: Uint8Array) => void): Generator<Uint8Array> {
  for (const c of chunks) {
    see(c);
    yield c;
  }
}

function readDocument(file: string, chunks: Iterable<Buffer>, onEntry: (e: BundleEntry) => void, onExperiment: OnExperiment): ShardRun {
  let format: unknown;
  let run: Results["run"] | null = null;
  const arrays = new Set<string>();
  let entries = 0;
  const reader = new MembersReader(new Set(["bundles", "experiments"]), {
    member: (key, bytes, offset) => {
      if (key === "format") format = parsed(file, bytes, offset, '"format"');
      else if (key === "run") run = runOf(file, parsed(file, bytes, offset, '"run"'), offset);
      else if (key === "bundles" || key === "experiments") throw new NotResults(file, `"${key}" at byte ${offset} is not an array`);
    },
    open: (key) => void arrays.add(key),
    element: (key, bytes, offset) => {
      if (key === "experiments") return onExperiment?.(experimentOf(file, parsed(file, bytes, offset, "an experiment"), offset));
      if (key !== "bundles") return;
      entries++;
      onEntry(entryOf(file, parsed(file, bytes, offset, "a bundle entry"), offset));
    },
  });
  try {
    for (const c of chunks) {
      if (format !== undefined && format !== FORMAT) throw new NotResults(file, `its format is ${JSON.stringify(format)}, not ${FORMAT}`);
      reader.feed(c);
    }
    reader.end();
  } catch (e) {
    if (e instanceof MembersError) throw new NotResults(file, e.message);
    throw e;
  }
  if (format !== FORMAT) throw new NotResults(file, format === undefined ? `it has no "format"` : `its format is ${JSON.stringify(format)}, not ${FORMAT}`);
  if (run === null) throw new NotResults(file, `it has no "run"`);
  for (const key of ["bundles", "experiments"]) if (!arrays.has(key)) throw new NotResults(file, `it has no "${key}" array`);
  return { run, entries };
}

function readLines(file: string, chunks: Iterable<Buffer>, onEntry: (e: BundleEntry) => void, onExperiment: OnExperiment): ShardRun {
  let run: Results["run"] | null = null;
  /** What the run line announces (documents written before it was added announce nothing). */
  let announced: { bundles: number; experiments: number } | null = null;
  let entries = 0;
  let experiments = 0;
  let line = 0;
  let offset = 0; // of the line being assembled
  let held: Buffer[] = [];
  const take = (bytes: Buffer) => {
    line++;
    if (bytes.length === 0) throw new NotResults(file, `line ${line} (byte ${offset}) is empty`);
    const v = parsed(file, bytes, offset, `line ${line}`) as { type?: unknown } | null;
    const type = typeof v === "object" && v !== null ? v.type : undefined;
    if (line === 1) {
      const head = v as { format?: unknown; run?: unknown; lines?: unknown };
      if (head.format !== FORMAT) throw new NotResults(file, `its format is ${JSON.stringify(head.format)}, not ${FORMAT}`);
      run = runOf(file, head.run, offset);
      announced = head.lines === undefined ? null : linesOf(file, head.lines);
    } else if (type === "bundle") {
      const { type: _t, ...entry } = v as Record<string, unknown>;
      entries++;
      onEntry(entryOf(file, entry, offset));
    } else if (type === "experiment") {
      experiments++;
      if (onExperiment === undefined) return;
      const { type: _t, ...x } = v as Record<string, unknown>;
      onExperiment(experimentOf(file, x, offset));
    } else throw new NotResults(file, `line ${line} (byte ${offset}) is ${type === "run" ? "a second run" : "neither a bundle nor an experiment"}`);
  };
  for (const chunk of chunks) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      held.push(chunk.subarray(from, nl));
      const bytes = Buffer.concat(held);
      held = [];
      take(bytes);
      offset += bytes.length + 1;
      from = nl + 1;
    }
    if (from < chunk.length) held.push(chunk.subarray(from));
  }
  if (held.length > 0) throw new NotResults(file, `its last line (byte ${offset}) has no line end: the document is cut short`);
  if (run === null) throw new NotResults(file, "the file is empty");
  const a = announced as { bundles: number; experiments: number } | null;
  if (a !== null && (entries !== a.bundles || experiments !== a.experiments))
    throw new NotResults(file, `its first line announces ${a.bundles} bundle and ${a.experiments} experiment lines, and ${entries} and ${experiments} follow: the document is cut short or was edited`);
  return { run, entries };
}

function linesOf(file: string, value: unknown): { bundles: number; experiments: number } {
  const v = value as { bundles?: unknown; experiments?: unknown } | null;
  const count = (x: unknown) => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;
  if (typeof v !== "object" || v === null || !count(v.bundles) || !count(v.experiments))
    throw new NotResults(file, `the "lines" of its first line are not two counts`);
  return v as { bundles: number; experiments: number };
}
