// `assay triage`'s reading of summaries.json (issue 40 §4): the member decoded once, then its
// array walked an element at a time (MembersReader), each summary folded into the one compact
// record the claim checks need and dropped. No list of summaries is kept beside the records, and a
// record holds five fields of its own: everything a summary cannot say (events, metadata, usage,
// member name) is one shared prototype, so a 100,000-sample log costs a few MB of records, not
// the ~90 MB that full SampleRecords and SummaryRecords took side by side.

import { closeSync, fstatSync, openSync } from "node:fs";
import { finding, type Finding } from "../../core/codes.js";
import { encodingProblem, MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import { MembersError, MembersReader } from "../../core/json/members.js";
import type { SampleRecord } from "./sample.js";
import { summaryRecord, type SummaryRecord } from "./summary.js";
import { heldBytes, MAX_RECORD_BYTES, parseQuickly } from "./read.js";
import { MemberError, type ZipMember } from "./zip.js";
import { streamMember } from "./zip-stream.js";

const NONE: never[] = [];

/**
 * A summary as a sample record: what it says (id, epoch, error, limit, retries, scores), nothing
 * it does not. The constant fields live on the prototype (one copy for every record), and the
 * member name is made only when a finding or flag asks for it.
 */
class SummarySample {
  constructor(
    readonly id: string,
    readonly epoch: number,
    readonly error: "error" | null,
    readonly limit: string | null,
    readonly retries: number,
    readonly scores: Record<string, unknown>,
  ) {}
  get member(): string {
    return `summaries.json (${JSON.stringify(this.id)}, epoch ${this.epoch})`;
  }
}
Object.assign(SummarySample.prototype, {
  errorMessage: null,
  graderFailed: NONE,
  modelFailed: NONE,
  noChoices: false,
  sandbox: null,
  invalidated: false,
  edits: NONE,
  findings: NONE,
  flags: NONE,
  metadata: NONE,
  metadataCut: true, // not in a summary: a clustered stderr is left unverified, never re-derived unclustered
  usage: null,
});

const EMPTY_SCORES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** One summary (summaries.json's or the journal's) as the compact record the checks read. */
export function fromSummary(s: SummaryRecord): SampleRecord {
  const scores = s.scores === null ? EMPTY_SCORES : s.scores;
  return new SummarySample(
    s.id,
    s.epoch,
    s.error ? "error" : null,
    s.limit,
    s.retries ?? 0,
    scores,
  ) as unknown as SampleRecord;
}

/** What the summaries gave: a record per summary, in their order, and the findings of reading them. */
export interface SummaryRecords {
  /** null: the member could not be read (EVAL_CORRUPT, a finding), so the log has no summaries here. */
  records: SampleRecord[] | null;
  findings: Finding[];
  /** The tool could not read the member (a method it does not read, a member past its limit). */
  toolError: { code: MemberError["code"]; message: string } | null;
}

/**
 * The most a log's summary records may cost (as score's sample records, MAX_RECORD_BYTES), each
 * counted as SUMMARY_RECORD_BYTES and what it holds (its id and scores): past it the log is
 * FILE_TOO_LARGE. Records of tiny summaries would otherwise take several times the member's size.
 */
export const SUMMARY_RECORD_BYTES = 256;

/**
 * The largest summaries.json triage streams: past the MAX_MEMBER_BYTES a member held whole may
 * take (a million-sample log's is ~650 MB), as it is never held; the log's decode budget
 * (overDecodeBudget) and the time limit bound the work.
 */
export const MAX_STREAMED_BYTES = 4 * 1024 * 1024 * 1024;

/**
 * summaries.json → one compact record per summary. Each element is JSON.parsed, and read strictly
 * only where that refuses (Inspect's NaN, bad UTF-8): a duplicate key JSON.parse accepts is not a
 * finding here (a full verify reads every summary strictly). The member is streamed (zip-stream.ts:
 * one past STREAM_FROM is never decoded whole) and its elements, never the array, are values: memory is a
 * piece of the member and the records. Past `until` (a Date.now() time) it stops: TIMEOUT.
 */
export async function readSummaryRecords(file: string, m: ZipMember, until = Infinity): Promise<SummaryRecords> {
  const where = m.name;
  const findings: Finding[] = [];
  const records: SampleRecord[] = [];
  let spent = 0;
  let i = 0;
  /** Bytes fed, and where the last summary ended (at most a piece early): one summary is never held past a document's size. */
  let fed = 0;
  let lastEnd = 0;
  const reader = new MembersReader(new Set(["a"]), {
    member: () => findings.push(finding("SCHEMA", where, null, "must be a list")),
    element: (_k, bytes) => {
      lastEnd = fed;
      const at = `${where}[${i++}]`;
      const v = parseQuickly(bytes, at, findings);
      if (v === undefined) return;
      const s = summaryRecord(v, at, findings);
      if (s === null) return;
      spent += SUMMARY_RECORD_BYTES + heldBytes(s.id) + heldBytes(s.scores);
      if (spent > MAX_RECORD_BYTES) throw new OverBudget();
      records.push(fromSummary(s));
    },
  });
  /** The first bytes, held until there are three (a byte-order mark is looked for in them). */
  let head: Buffer | null = Buffer.alloc(0);
  let refused = false;
  /** Where the JSON broke (the reader's message), set inside its callbacks: a box, so it is not narrowed. */
  const broke: { syntax: string | null } = { syntax: null };
  const guarded = (f: () => void): void => {
    try {
      f();
    } catch (e) {
      if (!(e instanceof MembersError)) throw e;
      broke.syntax = e.message;
    }
  };
  const begin = (): void => {
    const bad = encodingProblem(head!.subarray(0, 3));
    if (bad !== null) {
      refused = true;
      return void findings.push(finding("ENCODING", where, null, bad));
    }
    const first = head!;
    head = null;
    guarded(() => {
      reader.feed(Buffer.from('{"a":'));
      reader.feed(first);
    });
  };
  const feed = (piece: Buffer): void => {
    if (refused || broke.syntax !== null) return;
    // A summary is a small object: one running past a document's limit is refused before the reader joins it (a string past V8's limit threw).
    if (fed + piece.length - lastEnd > MAX_DOCUMENT_BYTES) throw new OverBudget(summaryTooLarge(i));
    fed += piece.length;
    if (head === null) return guarded(() => reader.feed(piece));
    head = Buffer.concat([head, piece]);
    if (head.length >= 3) begin();
  };
  const fd = openSync(file, "r");
  try {
    const end = (): void => {
      if (head !== null) begin(); // fewer than three bytes in all
      if (!refused && broke.syntax === null)
        guarded(() => {
          reader.feed(Buffer.from("}"));
          reader.end();
        });
    };
    await streamMember(fd, fstatSync(fd).size, m, feed, { until, limit: MAX_STREAMED_BYTES, end });
    if (broke.syntax !== null) {
      const msg = broke.syntax.replace(/at byte (\d+)/, (_m, n: string) => `at byte ${Number(n) - 5}`);
      findings.push(finding("JSON_SYNTAX", where, null, msg));
    }
  } catch (e) {
    if (e instanceof OverBudget) return { records: null, findings, toolError: e.why };
    if (!(e instanceof MemberError)) throw e;
    // what was read of a member that then failed its checks is dropped, as if never decoded
    if (e.code !== "EVAL_CORRUPT")
      return { records: null, findings: [], toolError: { code: e.code, message: e.message } };
    return { records: null, findings: [finding("EVAL_CORRUPT", where, null, e.message)], toolError: null };
  } finally {
    closeSync(fd);
  }
  return { records, findings, toolError: null };
}

/** Thrown out of the reader once the records pass their budget, or one summary runs past a document's. */
class OverBudget {
  constructor(readonly why: { code: "FILE_TOO_LARGE"; message: string } = summariesTooLarge) {}
}

const summaryTooLarge = (i: number) => ({
  code: "FILE_TOO_LARGE" as const,
  message: `summary ${i} runs past ${MAX_DOCUMENT_BYTES} bytes, more than assay reads of one value: not read further`,
});

const summariesTooLarge = {
  code: "FILE_TOO_LARGE" as const,
  message: `its summaries need more than assay holds for one log (${MAX_RECORD_BYTES} bytes, counted as ${SUMMARY_RECORD_BYTES} bytes a summary and its id and scores): not read further`,
};
