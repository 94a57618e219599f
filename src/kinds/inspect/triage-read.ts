// `assay triage`'s reading of summaries.json (issue 40 §4): the member decoded once, then its
// array walked an element at a time (MembersReader), each summary folded into the one compact
// record the claim checks need and dropped. No list of summaries is kept beside the records, and a
// record holds five fields of its own: everything a summary cannot say (events, metadata, usage,
// member name) is one shared prototype, so a 100,000-sample log costs a few MB of records, not
// the ~90 MB that full SampleRecords and SummaryRecords took side by side.

import { closeSync, fstatSync, openSync } from "node:fs";
import { finding, type Finding } from "../../core/codes.js";
import { encodingProblem } from "../../core/json/decode.js";
import { MembersError, MembersReader } from "../../core/json/members.js";
import { parseLenientJson } from "../../core/json/strict.js";
import type { SampleRecord } from "./sample.js";
import { summaryRecord, type SummaryRecord } from "./summary.js";
import { MemberError, withMember, type ZipMember } from "./zip.js";

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
 * summaries.json → one compact record per summary. Each element is JSON.parsed, and read strictly
 * only where that refuses (Inspect's NaN, bad UTF-8): a duplicate key JSON.parse accepts is not a
 * finding here (a full verify reads every summary strictly). The elements, never the array, are
 * values: memory is the decoded member (bounded as every member is, zip.ts) and the records.
 */
export function readSummaryRecords(file: string, m: ZipMember): SummaryRecords {
  const where = m.name;
  const findings: Finding[] = [];
  const records: SampleRecord[] = [];
  let i = 0;
  const reader = new MembersReader(new Set(["a"]), {
    member: () => findings.push(finding("SCHEMA", where, null, "must be a list")),
    element: (_k, bytes) => {
      const at = `${where}[${i++}]`;
      const v = parsed(bytes, at, findings);
      if (v === undefined) return;
      const s = summaryRecord(v, at, findings);
      if (s !== null) records.push(fromSummary(s));
    },
  });
  const fd = openSync(file, "r");
  try {
    withMember(fd, fstatSync(fd).size, m, (bytes) => {
      const bad = encodingProblem(bytes.subarray(0, 3));
      if (bad !== null) return void findings.push(finding("ENCODING", where, null, bad));
      try {
        reader.feed(Buffer.from('{"a":'));
        reader.feed(bytes);
        reader.feed(Buffer.from("}"));
        reader.end();
      } catch (e) {
        if (!(e instanceof MembersError)) throw e;
        const msg = e.message.replace(/at byte (\d+)/, (_m, n: string) => `at byte ${Number(n) - 5}`);
        findings.push(finding("JSON_SYNTAX", where, null, msg));
      }
    });
  } catch (e) {
    if (!(e instanceof MemberError)) throw e;
    if (e.code !== "EVAL_CORRUPT") return { records: null, findings, toolError: { code: e.code, message: e.message } };
    findings.push(finding("EVAL_CORRUPT", where, null, e.message));
    return { records: null, findings, toolError: null };
  } finally {
    closeSync(fd);
  }
  return { records, findings, toolError: null };
}

function parsed(bytes: Buffer, where: string, out: Finding[]): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    const bad = encodingProblem(bytes);
    if (bad !== null) return void out.push(finding("ENCODING", where, null, bad));
    const r = parseLenientJson(bytes.toString("utf8"));
    if (r.ok) return r.value;
    out.push(finding(r.issue.code, where, null, r.issue.message));
    return undefined;
  }
}
