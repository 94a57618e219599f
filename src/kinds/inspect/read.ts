// Reading an Inspect log in place (contract §12), a member (or a .json log's sample) at a time:
// the parts a log is made of, for the pure last step (log.ts). A whole log is read by
// one worker; a large .eval is split by the main thread into parts (the meta members, ranges of
// sample members, the file's digest) that several workers read at once. Runs in workers.

import { closeSync, fstatSync, openSync } from "node:fs";
import { finding, type Finding } from "../../core/codes.js";
import { finishLog } from "./finish.js";
import type { LogParts } from "./log.js";
import { keptToolEvent, sampleRecord, type SampleRecord } from "./sample.js";
import { recordKey, reductionSets, summaryRecord, type ReductionSet, type SummaryRecord } from "./summary.js";
import { encodingProblem, isPlainObject } from "../../core/json/decode.js";
import { MembersError, MembersReader } from "../../core/json/members.js";
import { nestsTooDeep, parseLenientJson, textTooDeep } from "../../core/json/strict.js";
import { checkParseRoom } from "./parse-room.js";
import { blankEntry, type BundleEntry } from "../../core/results.js";
import type { PartResult, WholeFile } from "../scorer.js";
import { fileDigest, readChunks } from "../../io/bundle-source.js";
import { MAX_MEMBER_BYTES, MemberError, overDecodeBudget, readDirectory, withMember, type ZipMember } from "./zip.js";

/**
 * A member of Inspect's chunked sample layout (`inspect log convert-chunked`; inspect_ai
 * log/_recorders/chunked/format.py): `samples/<id>_epoch_<n>/` then the sample's shell
 * (`sample.json`: the sample without messages, events, attachments and metadata), `metadata.json`,
 * and sequences chunked by their first index. [1] is the sample's prefix, [2] the part. A monolith
 * member's name ends `_epoch_<n>.json`, so it is never one, whatever its id holds (`/` included).
 */
const CHUNKED_PART =
  /^(samples\/.+_epoch_\d+)\/(sample\.json|metadata\.json|skeleton\.json|events\/(?:\d+|stats|uuids)\.json|(?:messages|calls|attachments)\/\d+\.json)$/;
/** The parts a chunked sample's record is read from: its shell, its metadata (clusters), its event chunks (score events and edits); [1] its prefix. */
const READ_PART = /^(samples\/.+_epoch_\d+)\/(sample\.json|metadata\.json|events\/(\d+)\.json)$/;
/** A read part's place in its sample: shell, metadata, then event chunks by start. */
const partRank = (name: string): number => {
  const c = READ_PART.exec(name)!;
  return c[2] === "sample.json" ? -2 : c[2] === "metadata.json" ? -1 : Number(c[3]);
};
/** The chunked sample (its prefix) a member lies under, or null: the longest prefix that is a shell's (an id may hold `_epoch_<n>/`). */
function chunkedUnder(name: string, shells: ReadonlySet<string>): string | null {
  let under: string | null = null;
  for (const m of name.matchAll(/_epoch_\d+\//g)) {
    const prefix = name.slice(0, m.index + m[0].length - 1);
    if (shells.has(prefix)) under = prefix;
  }
  return under;
}
/** What the meta part reads: everything but the samples. */
const isMetaMember = (name: string): boolean =>
  ["header.json", "_journal/start.json", "summaries.json", "reductions.json"].includes(name) ||
  /^_journal\/summaries\/\d+\.json$/.test(name);

/** One piece of work on a log; a whole log read with `timeoutMs` is a TIMEOUT past it (verify's bound: score's workers have the pool's). */
export type InspectTask =
  | (WholeFile & { format: "eval" | "json" })
  | { part: "meta"; members: ZipMember[] }
  | { part: "samples"; members: ZipMember[] }
  | { part: "digest" };

/** What the meta part found: the log's parts but its samples and digest. */
export interface MetaParts {
  header: Record<string, unknown> | null;
  start: Record<string, unknown> | null;
  summaries: SummaryRecord[] | null;
  journal: SummaryRecord[] | null;
  reductions: ReductionSet[] | null;
}

/** A part's result, returned to the main thread (small: records, never samples). */
export interface LogPartResult extends PartResult {
  path: string;
  part: "meta" | "samples" | "digest";
  findings: Finding[];
  samples?: SampleRecord[];
  meta?: MetaParts;
  digest?: string;
  toolError?: { code: MemberError["code"]; message: string };
}

/**
 * What one log's sample records may hold together, as recordBytes counts them: past it the log is
 * the tool error FILE_TOO_LARGE, and no more of it is read. Every record is held until the log's
 * last step, which adds its own per record: a million tiny samples (a 64 MB .json) took 1.19 GB
 * in `verify` and killed `score`'s worker (512 MB). The ceiling holds about 196,000 of the
 * smallest records, which take ~940 bytes each in all (measured): 150,000 are finished in ~290 MB.
 */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** A record's cost beyond its strings and values: the record (~340 bytes of heap, measured) and what the last step holds for it (~600). */
const RECORD_BYTES = 1024;

/** What a value held by a record costs, about: a string two bytes a character, a slot 16, nested values theirs. */
export function heldBytes(v: unknown): number {
  if (typeof v === "string") return 24 + 2 * v.length;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + 16 + heldBytes(x), 32);
  if (isPlainObject(v)) {
    let n = 32;
    for (const k in v) n += 16 + heldBytes(k) + heldBytes(v[k]);
    return n;
  }
  return 16;
}

/**
 * What the entry's sample clusters (§13.7) may hold for one kept metadata value of a record: a slot
 * in its key's `of`, and a name made of the value ("s" + value: a string of at most 13 characters,
 * or a cons string that refers to the value rather than copying it).
 */
const CLUSTER_BYTES = 80;

/** A record's cost to its log's budget (MAX_RECORD_BYTES): bounded by what its sample's bytes hold. */
export function recordBytes(r: SampleRecord): number {
  return (
    RECORD_BYTES +
    heldBytes(r.member) +
    heldBytes(r.id) +
    heldBytes(r.errorMessage) +
    heldBytes(r.scores) +
    heldBytes(r.graderFailed) +
    heldBytes(r.modelFailed) +
    heldBytes(r.sandbox) +
    heldBytes(r.edits) +
    heldBytes(r.metadata) +
    (r.metadata.length / 2) * CLUSTER_BYTES +
    heldBytes(r.flags) +
    r.findings.reduce((n, f) => n + 64 + heldBytes(f.message), 0) +
    (r.usage === null ? 0 : 256)
  );
}

/** The tool error of a log whose records pass MAX_RECORD_BYTES (the same however the log was split). */
export const recordsTooLarge = {
  code: "FILE_TOO_LARGE" as const,
  message: `its sample records need more than assay holds for one log (${MAX_RECORD_BYTES} bytes, counted as ${RECORD_BYTES} bytes a record and what it holds): not read further`,
};

/** Records counted against MAX_RECORD_BYTES; `add` says false once they pass it. */
export class RecordBudget {
  private spent = 0;
  add(records: Iterable<SampleRecord>): boolean {
    for (const r of records) this.spent += recordBytes(r);
    return this.spent <= MAX_RECORD_BYTES;
  }
}

/** Thrown out of a reader's callbacks to stop reading a log past its budget. */
class OverBudget {}

/** When the whole log being read must be done by (scoreInspectLog's timeout), checked between members and samples. */
let readUntil = Infinity;
/** Thrown out of a reader past readUntil. */
class OverTime {}
const inTime = (): void => {
  if (Date.now() > readUntil) throw new OverTime();
};

/** A value's JSON (Inspect's relaxed numbers), or a finding on `where`. */
export function parseValue(bytes: Buffer, where: string, out: Finding[]): unknown {
  const bad = encodingProblem(bytes);
  if (bad !== null) {
    out.push(finding("ENCODING", where, null, bad));
    return undefined;
  }
  let text: string | undefined;
  try {
    checkParseRoom(bytes, where); // JSON.parse cannot be stopped once it runs: a value past the heap left is refused first
  } catch (e) {
    // Nesting past the limit is the evidence's own finding (JSON_TOO_DEEP), which the scan names
    // without building the value: it comes before the tool's limit.
    if (!(e instanceof MemberError) || !textTooDeep((text = bytes.toString("utf8")), false)) throw e;
  }
  const r = parseLenientJson(text ?? bytes.toString("utf8"));
  if (!r.ok) {
    out.push(finding(r.issue.code, where, null, r.issue.message));
    return undefined;
  }
  return r.value;
}

/**
 * `triage`'s reading of a summary: JSON.parse, and the strict reading (parseValue) only where that
 * refuses (Inspect's NaN, bad UTF-8...). Not verify's: a duplicate key or a lone surrogate that
 * JSON.parse accepts is then not a finding here, and a full verify still reads every summary strictly.
 */
export function parseQuickly(bytes: Buffer, where: string, out: Finding[]): unknown {
  const text = bytes.toString("utf8");
  // JSON.parse builds any depth, and what reads the value after recurses: past the limit, the strict reading names it.
  if (nestsTooDeep(text)) return parseValue(bytes, where, out);
  try {
    return JSON.parse(text);
  } catch {
    return parseValue(bytes, where, out);
  }
}

/** Each element of a JSON array held in `bytes`, one at a time (a summaries list of 100,000 is never one value). */
function eachElement(
  bytes: Buffer,
  where: string,
  out: Finding[],
  on: (v: unknown, i: number) => void,
  fast = false,
): boolean {
  let i = 0;
  const reader = new MembersReader(new Set(["a"]), {
    member: () => out.push(finding("SCHEMA", where, null, "must be a list")),
    element: (_k, v) => {
      const parsed = fast ? parseQuickly(v, `${where}[${i}]`, out) : parseValue(v, `${where}[${i}]`, out);
      if (parsed !== undefined) on(parsed, i);
      i++;
    },
  });
  const bad = encodingProblem(bytes.subarray(0, 3));
  if (bad !== null) {
    out.push(finding("ENCODING", where, null, bad));
    return false;
  }
  try {
    reader.feed(Buffer.from('{"a":'));
    reader.feed(bytes);
    reader.feed(Buffer.from("}"));
    reader.end();
    return true;
  } catch (e) {
    if (!(e instanceof MembersError)) throw e;
    out.push(
      finding(
        "JSON_SYNTAX",
        where,
        null,
        e.message.replace(/at byte (\d+)/, (_m, n: string) => `at byte ${Number(n) - 5}`),
      ),
    );
    return false;
  }
}

/** Read members one at a time; a member that cannot be read is a finding (or the tool's error). */
function withMembers(
  file: string,
  members: readonly ZipMember[],
  on: (m: ZipMember, bytes: Buffer) => void,
  out: Finding[],
): LogPartResult["toolError"] {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    for (const m of members) {
      inTime();
      let read = false;
      try {
        // `bytes` may be the decoder's own memory: read before `on` returns, never kept
        withMember(fd, size, m, (bytes) => {
          read = true;
          on(m, bytes);
        });
      } catch (e) {
        // Refused before it was read, or its value too large to parse once read (the tool's limit either way).
        if (!(e instanceof MemberError) || (read && e.code !== "FILE_TOO_LARGE")) throw e;
        if (e.code !== "EVAL_CORRUPT") return { code: e.code, message: e.message };
        out.push(finding("EVAL_CORRUPT", m.name, null, e.message));
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A range of sample units (partsOf's `samples`, whole units) → their records. A chunked sample is
 * read a part at a time and becomes one record when its last part is in: its shell, with its
 * metadata and the score events of its event chunks put back.
 */
export function readSamples(
  file: string,
  members: readonly ZipMember[],
  budget?: RecordBudget,
): Pick<LogPartResult, "samples" | "findings" | "toolError"> {
  const findings: Finding[] = [];
  const samples: SampleRecord[] = [];
  let open: ChunkedSample | null = null;
  const keep = (r: SampleRecord | null) => {
    if (r === null) return;
    samples.push(r);
    if (budget !== undefined && !budget.add([r])) throw new OverBudget();
  };
  const finish = () => {
    if (open?.shell != null) {
      const sample: Record<string, unknown> = { ...open.shell, events: open.events };
      if (open.metadata !== undefined) sample["metadata"] = open.metadata;
      keep(sampleRecord(sample, `${open.prefix}/sample.json`, findings));
    }
    open = null;
  };
  try {
    const toolError = withMembers(
      file,
      members,
      (m, bytes) => {
        // partsOf gave only a shell's read parts and other sample members here: READ_PART tells them apart.
        const c = READ_PART.exec(m.name);
        if (c === null || open?.prefix !== c[1]) finish();
        const v = parseValue(bytes, m.name, findings);
        if (c === null) {
          keep(v === undefined ? null : sampleRecord(v, m.name, findings));
          return;
        }
        open ??= { prefix: c[1]!, shell: null, metadata: undefined, events: [] };
        if (v === undefined) return;
        if (c[2] === "sample.json") {
          if (isPlainObject(v)) open.shell = v;
          else findings.push(finding("SCHEMA", m.name, null, "a sample record must be a JSON object"));
        } else if (c[2] === "metadata.json") open.metadata = v;
        else keptEvents(v, m.name, open.events, findings);
      },
      findings,
    );
    finish();
    return toolError === undefined ? { samples, findings } : { samples, findings, toolError };
  } catch (e) {
    if (!(e instanceof OverBudget)) throw e;
    return { samples: [], findings: [], toolError: recordsTooLarge };
  }
}

/** The meta members → header, start record, summaries (streamed), journal summaries (k order, later wins), reductions. */
export function readMeta(
  file: string,
  members: readonly ZipMember[],
  quick = false,
  until = Infinity,
): Pick<LogPartResult, "meta" | "findings" | "toolError"> {
  const findings: Finding[] = [];
  const meta: MetaParts = { header: null, start: null, summaries: null, journal: null, reductions: null };
  const journal = new Map<number, SummaryRecord[]>();
  const object = (v: unknown, where: string): Record<string, unknown> | null => {
    if (v === undefined) return null;
    if (isPlainObject(v)) return v;
    findings.push(finding("SCHEMA", where, null, "must be a JSON object"));
    return null;
  };
  const summaries = (bytes: Buffer, where: string): SummaryRecord[] => {
    const list: SummaryRecord[] = [];
    eachElement(
      bytes,
      where,
      findings,
      (v, i) => {
        const s = summaryRecord(v, `${where}[${i}]`, findings);
        if (s !== null) list.push(s);
      },
      quick,
    );
    return list;
  };
  // A caller's own limit (triage's --bundle-timeout), checked between members as score's is.
  const saved = readUntil;
  readUntil = Math.min(readUntil, until);
  let toolError: LogPartResult["toolError"];
  try {
    toolError = withMembers(
      file,
      members,
      (m, bytes) => {
        if (m.name === "header.json") meta.header = object(parseValue(bytes, m.name, findings), m.name);
        else if (m.name === "_journal/start.json") meta.start = object(parseValue(bytes, m.name, findings), m.name);
        else if (m.name === "summaries.json") meta.summaries = summaries(bytes, m.name);
        else if (m.name === "reductions.json") {
          const v = parseValue(bytes, m.name, findings);
          if (v !== undefined) meta.reductions = reductionSets(v, m.name, findings);
        } else journal.set(Number(/(\d+)\.json$/.exec(m.name)![1]), summaries(bytes, m.name));
      },
      findings,
    );
  } catch (e) {
    if (!(e instanceof OverTime)) throw e;
    return {
      meta,
      findings,
      toolError: { code: "TIMEOUT", message: "still reading its members when its time ran out" },
    };
  } finally {
    readUntil = saved;
  }
  // The journal stands in for summaries.json only when that cannot be read (finishLog): its
  // members' findings are kept, its records not sent (100,000 of them in a large log).
  if (journal.size > 0 && meta.summaries === null) {
    const merged = new Map<string, SummaryRecord>();
    for (const k of [...journal.keys()].sort((a, b) => a - b))
      for (const s of journal.get(k)!) merged.set(recordKey(s.id, s.epoch), s);
    meta.journal = [...merged.values()];
  }
  return toolError === undefined ? { meta, findings } : { meta, findings, toolError };
}

/**
 * The split of a .eval's members into the meta part and the samples, each sample one unit: a
 * monolith member (`samples/<id>_epoch_<n>.json`), or a chunked sample's shell, metadata and event
 * chunks in start order (Inspect classifies each sample by its names: a log may mix the two). A
 * chunk without its sample's shell is no sample (Inspect finds none there either). `samples` is the
 * units laid end to end: a unit is never split between parts.
 */
export function partsOf(members: readonly ZipMember[]): {
  meta: ZipMember[];
  samples: ZipMember[];
  units: ZipMember[][];
} {
  const shells = new Set<string>();
  for (const m of members) {
    const c = m.name.endsWith("/sample.json") ? CHUNKED_PART.exec(m.name) : null; // the test first: a directory may name a million members
    if (c !== null && c[2] === "sample.json") shells.add(c[1]!);
  }
  const units: ZipMember[][] = [];
  const chunked = new Map<string, ZipMember[]>();
  for (const m of members) {
    if (!m.name.startsWith("samples/") || !m.name.endsWith(".json")) continue;
    const nested = m.name.indexOf("/", "samples/".length) !== -1;
    const prefix = nested && shells.size > 0 ? chunkedUnder(m.name, shells) : null;
    if (prefix === null) {
      // A part whose shell is absent is no sample; any other name is one (Inspect reads every samples/*.json).
      if (!nested || !CHUNKED_PART.test(m.name)) units.push([m]);
      continue;
    }
    // Under a shell: only the parts a record is read from (the messages, calls, attachments and sidecars are not).
    if (READ_PART.exec(m.name)?.[1] !== prefix) continue;
    const unit = chunked.get(prefix);
    if (unit === undefined) {
      const fresh = [m];
      chunked.set(prefix, fresh);
      units.push(fresh);
    } else unit.push(m);
  }
  for (const unit of chunked.values()) unit.sort((a, b) => partRank(a.name) - partRank(b.name));
  return {
    meta: members.filter((m) => isMetaMember(m.name)),
    samples: chunked.size === 0 ? units.map((u) => u[0]!) : units.flat(),
    units,
  };
}

/** A chunked sample being read, a part at a time: its shell, its metadata, and the events a record reads. */
interface ChunkedSample {
  prefix: string;
  shell: Record<string, unknown> | null;
  metadata: unknown;
  events: Record<string, unknown>[];
}

/** Stands for the rest of a transcript: a score without its event is a finding only where the transcript holds events (issue 35). */
const OTHER_EVENTS: Record<string, unknown> = { event: "other" };

/** Of an events chunk, what a record reads: final score events, score edits and a dead sandbox's tool events (the rest of the transcript is one OTHER_EVENTS). */
function keptEvents(chunk: unknown, where: string, into: Record<string, unknown>[], out: Finding[]): void {
  if (!Array.isArray(chunk)) {
    out.push(finding("SCHEMA", where, null, "an events chunk must be a list"));
    return;
  }
  for (const e of chunk) {
    const tool = isPlainObject(e) ? keptToolEvent(e) : null;
    if (tool !== null) into.push(tool);
    else if (isPlainObject(e) && (e["event"] === "score" || e["event"] === "score_edit"))
      into.push(
        e["event"] === "score"
          ? {
              event: "score",
              intermediate: e["intermediate"],
              scorer: e["scorer"],
              score: isPlainObject(e["score"]) ? { value: e["score"]["value"] } : e["score"],
            }
          : { event: "score_edit", score_name: e["score_name"], edit: e["edit"] },
      );
    else if (isPlainObject(e) && into[0] !== OTHER_EVENTS) into.unshift(OTHER_EVENTS);
  }
}

/** The parts of a .eval read by the main thread's split, put together; or a whole .eval read here. */
export function assemble(
  digest: string,
  truncated: boolean,
  directoryFindings: readonly Finding[],
  meta: Pick<LogPartResult, "meta" | "findings" | "toolError">,
  samples: readonly Pick<LogPartResult, "samples" | "findings" | "toolError">[],
): LogParts {
  const m = meta.meta ?? { header: null, start: null, summaries: null, journal: null, reductions: null };
  const toolError = meta.toolError ?? samples.find((s) => s.toolError !== undefined)?.toolError ?? null;
  return {
    format: "eval",
    digest,
    header: m.header,
    start: m.start,
    truncated,
    findings: [...directoryFindings, ...meta.findings, ...samples.flatMap((s) => s.findings)],
    samples: samples.flatMap((s) => s.samples ?? []),
    summaries: m.summaries,
    journal: m.journal,
    reductions: m.reductions,
    reductionsFile: "reductions.json",
    toolError,
  };
}

/** A whole .eval, read here. */
function evalParts(file: string): LogParts {
  const dir = readDirectory(file);
  const { meta, samples } = partsOf(dir.members);
  const over = overDecodeBudget([...meta, ...samples], dir.size);
  if (over !== null) {
    // Its header still names it, when that alone is within the budget; no sample is decoded.
    const head = overDecodeBudget(meta, dir.size) === null ? readMeta(file, meta) : { findings: [] };
    return assemble(
      fileDigest(file),
      dir.truncated,
      dir.findings,
      { ...head, toolError: { code: "FILE_TOO_LARGE", message: over } },
      [],
    );
  }
  return assemble(fileDigest(file), dir.truncated, dir.findings, readMeta(file, meta), [
    readSamples(file, samples, new RecordBudget()),
  ]);
}

/**
 * A .json log, streamed: its members parsed one at a time, its `samples` an element at a time (a
 * log of a gigabyte is never one value). Cut short, it is EVAL_TRUNCATED and read as far as it goes.
 */
function jsonParts(file: string): LogParts {
  const findings: Finding[] = [];
  const header: Record<string, unknown> = {};
  const samples: SampleRecord[] = [];
  let n = 0;
  let first = true;
  let truncated = false;
  const budget = new RecordBudget();
  // Where the last value handed over ended, and how much was fed: a value is held whole while it is read.
  let lastEnd = 0;
  let fed = 0;
  const reader = new MembersReader(new Set(["samples"]), {
    member: (key, bytes, offset) => {
      lastEnd = offset + bytes.length;
      if (Object.hasOwn(header, key) || (key === "samples" && n > 0))
        findings.push(
          finding("JSON_DUPLICATE_KEY", null, null, `duplicate key ${JSON.stringify(key)} at the top level`),
        );
      const v = parseValue(bytes, key, findings);
      if (v !== undefined && key !== "samples") header[key] = v;
    },
    element: (_key, bytes, offset) => {
      inTime();
      lastEnd = offset + bytes.length;
      const where = `samples[${n++}]`;
      const v = parseValue(bytes, where, findings);
      if (v === undefined) return;
      const r = sampleRecord(v, where, findings);
      if (r === null) return;
      samples.push(r);
      if (!budget.add([r])) throw new OverBudget();
    },
  });
  try {
    for (const chunk of readChunks(file)) {
      inTime();
      const c = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (first) {
        first = false;
        const bad = encodingProblem(c.subarray(0, 3));
        if (bad !== null) throw new MembersError(`ENCODING:${bad}`, 0);
      }
      if (c.indexOf(0x0d) !== -1) throw new MembersError("ENCODING:raw \\r", 0);
      reader.feed(c);
      fed += c.length;
      // One value (a member, a sample) is held no larger than a .eval's member may be.
      if (fed - lastEnd > MAX_MEMBER_BYTES)
        return { ...jsonLog(file, header, false, [], []), toolError: valueTooLarge(lastEnd) };
    }
    try {
      reader.end();
    } catch (e) {
      if (!(e instanceof MembersError)) throw e;
      truncated = true; // the bytes are a prefix of a log: a writer killed mid-write (before 0.3.247)
      findings.push(
        finding(
          "EVAL_TRUNCATED",
          null,
          null,
          `${e.message}: read as far as it is intact (${samples.length} sample records)`,
        ),
      );
    }
  } catch (e) {
    if (e instanceof OverBudget) return { ...jsonLog(file, header, truncated, [], []), toolError: recordsTooLarge };
    if (e instanceof MemberError && e.code === "FILE_TOO_LARGE")
      return { ...jsonLog(file, header, truncated, [], []), toolError: { code: e.code, message: e.message } };
    if (!(e instanceof MembersError)) throw e;
    if (e.message.startsWith("ENCODING:")) findings.push(finding("ENCODING", null, null, e.message.slice(9)));
    else findings.push(finding("JSON_SYNTAX", null, null, e.message));
  }
  return jsonLog(file, header, truncated, findings, samples);
}

/** The tool error of a .json log holding one value past MAX_MEMBER_BYTES. */
const valueTooLarge = (at: number) => ({
  code: "FILE_TOO_LARGE" as const,
  message: `the value after byte ${at} runs past ${MAX_MEMBER_BYTES} bytes, more than assay reads in one member or sample (as in a .eval): not read further`,
});

/** A .json log's parts, from its members but the samples (`header`, emptied of its reductions) and its sample records. */
function jsonLog(
  file: string,
  header: Record<string, unknown>,
  truncated: boolean,
  findings: Finding[],
  samples: SampleRecord[],
): LogParts {
  const results = isPlainObject(header["results"]) ? header["results"] : null;
  const rawReductions = header["reductions"] ?? results?.["sample_reductions"];
  const reductionsFile = header["reductions"] !== undefined ? "reductions" : "results.sample_reductions";
  delete header["reductions"];
  return {
    format: "json",
    digest: fileDigest(file),
    header: Object.keys(header).length > 0 ? header : null,
    start: null,
    truncated,
    findings,
    samples,
    summaries: null,
    journal: null,
    reductions: rawReductions === undefined ? null : reductionSets(rawReductions, reductionsFile, findings),
    reductionsFile,
    toolError: null,
  };
}

/**
 * The log's entry from its parts (finishLog), a log past what assay reads (FILE_TOO_LARGE: a member,
 * its decoded bytes, its records, one value) being invalid, as §2 makes a document past its limit:
 * it earns nothing. As the tool's error it would be left out of its task run, and a log made too
 * large would lift the run's figure (an invalid 200,000-sample log zeroed its run: 0.000; as the
 * tool's error it left no figure, beside a claim of 1.000 that agrees).
 */
export function finishParts(parts: LogParts): ReturnType<typeof finishLog> {
  const entry = finishLog(parts);
  return parts.toolError?.code === "FILE_TOO_LARGE" ? { ...entry, validity: "invalid" } : entry;
}

/** A whole log → its entry (without its path); a TIMEOUT, as the pool's, when its reading passes `timeoutMs`. */
export function scoreInspectLog(
  file: string,
  format: "eval" | "json",
  timeoutMs = Infinity,
): Omit<BundleEntry, "path"> {
  readUntil = Date.now() + timeoutMs;
  try {
    return finishParts(format === "eval" ? evalParts(file) : jsonParts(file));
  } catch (e) {
    if (!(e instanceof OverTime)) throw e;
    return blankEntry({
      profile: "inspect",
      validity: "error",
      errors: [finding("TIMEOUT", null, null, `ran past the ${timeoutMs} ms limit for one log`)],
    });
  } finally {
    readUntil = Infinity;
  }
}

/**
 * The first `max` sample records of a log, parsed, in the log's order (for an analysis's evidence
 * pack: a sample at a time, the rest never read). Records that do not parse are passed over.
 */
export function firstSamples(
  file: string,
  format: "eval" | "json",
  max: number,
): { where: string; sample: Record<string, unknown> }[] {
  const out: { where: string; sample: Record<string, unknown> }[] = [];
  const ignored: Finding[] = [];
  const keep = (where: string, bytes: Buffer) => {
    let v: unknown;
    try {
      v = parseValue(bytes, where, ignored);
    } catch (e) {
      if (e instanceof MemberError) return; // too large to parse here: passed over, as one that does not parse
      throw e;
    }
    if (isPlainObject(v)) out.push({ where, sample: v });
  };
  if (format === "eval") {
    // A chunked sample's shell holds what the pack shows (input, target, output, scores, error).
    const samples = partsOf(readDirectory(file).members)
      .units.slice(0, max)
      .map((u) => u[0]!);
    withMembers(file, samples, (m, bytes) => keep(m.name, bytes), ignored);
    return out;
  }
  let n = 0;
  const reader = new MembersReader(new Set(["samples"]), {
    member: () => {},
    element: (_k, bytes) => {
      if (n < max) keep(`samples[${n}]`, bytes);
      n++;
    },
  });
  try {
    for (const chunk of readChunks(file)) {
      reader.feed(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      if (n >= max) break;
    }
  } catch (e) {
    if (!(e instanceof MembersError)) throw e;
  }
  return out;
}

/** One part of a split .eval (run in a worker). */
export function readPart(file: string, path: string, task: Exclude<InspectTask, { part: "whole" }>): LogPartResult {
  if (task.part === "digest") return { path, part: "digest", findings: [], digest: fileDigest(file) };
  if (task.part === "meta") return { path, part: "meta", ...readMeta(file, task.members) };
  return { path, part: "samples", ...readSamples(file, task.members) };
}
