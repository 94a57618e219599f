// `assay triage` of an Inspect log (issue 40 §4): its claims checked from what Inspect writes
// beside the samples — header.json (the claims), then reductions.json and summaries.json (the
// per-sample figures they follow from, summaries a sample at a time) — without reading a sample.
// The summaries stand in for the sample records, and the log is finished as `verify` finishes it
// (finish.ts): every claim they support is checked by the same code. What only the samples hold is
// said, and the log is named for a full verify when anything was found or cannot be checked here.
import { statSync } from "node:fs";
import type { Finding } from "../../core/codes.js";
import { MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import type { Found } from "../../io/discover.js";
import type { TriageReport } from "../kind.js";
import { finishLog } from "./finish.js";
import type { LogParts } from "./log.js";
import type { LogMetric } from "./metrics.js";
import { partsOf, readMeta, scoreInspectLog } from "./read.js";
import type { SampleRecord } from "./sample.js";
import { recordKey, type SummaryRecord } from "./summary.js";
import { fromSummary, MAX_STREAMED_BYTES, readSummaryRecords } from "./triage-read.js";
import { MAX_MEMBER_BYTES, overDecodeBudget, readDirectory, sizesHold, type ZipMember } from "./zip.js";

/** What the summaries cannot stand in for: held in the samples alone, read only by a full verify. */
export const UNCHECKED = [
  "that each sample's own record (scores, error, limit, retries) agrees with its summary (SUMMARY_MISMATCH)",
  "the sample members' bytes: their CRCs, decompression and JSON (EVAL_CORRUPT, JSON_SYNTAX)",
  "grader failures, refusals and a dead sandbox (each score's reason and the events: GRADER_FAILED, SANDBOX_UNAVAILABLE)",
  "edited or invalidated scores (score history, score_edit events)",
  "clustered stderr (the samples' metadata), and the samples' model usage",
  "the file's digest (not hashed: triage stores nothing and attests nothing)",
] as const;

/** The members triage reads: the claims and what they follow from, never a sample or the journal (unless summaries.json is absent). */
const CLAIM_MEMBERS = ["header.json", "_journal/start.json", "reductions.json", "summaries.json"];

/** Seconds one log's triage may take, as verify's reading of a log (--bundle-timeout). */
export const TRIAGE_TIMEOUT_MS = 60_000;

/** The triage of one .eval (a .json log holds its samples inline: it is read as verify reads it). */
export async function triageInspect(found: Found, timeoutMs = TRIAGE_TIMEOUT_MS): Promise<TriageReport> {
  const until = Date.now() + timeoutMs;
  const file = found.dir;
  if (found.file?.format !== "eval") return whole(file, timeoutMs);
  const dir = claimMembers(file);
  // Past what score decodes for a log of its size (FILE_TOO_LARGE): nothing is decoded, as score
  // and verify decode nothing of it, and the log is named for a full verify (which fails it).
  if (dir.over !== null) return refused(dir, "FILE_TOO_LARGE", dir.over);
  const read = dir.read;
  // The members parsed whole (the claims, and the journal where summaries.json is absent) are
  // documents: one past §2's limit for a document is not decoded (a hostile log's 256 MiB header).
  const huge = read.find((r) => r.name !== "summaries.json" && r.usize > MAX_DOCUMENT_BYTES);
  if (huge !== undefined)
    return refused(
      dir,
      "FILE_TOO_LARGE",
      `${huge.name}: ${huge.usize} bytes uncompressed, more than triage reads of a document (${MAX_DOCUMENT_BYTES})`,
    );
  const m = readMeta(
    file,
    read.filter((r) => r.name !== "summaries.json"),
    true,
    until,
  );
  if (m.toolError?.code === "TIMEOUT" || Date.now() > until) return refused(dir, "TIMEOUT", late(timeoutMs));
  // summaries.json streamed into compact records (triage-read.ts); the journal only stands in when it is absent.
  const member = read.find((r) => r.name === "summaries.json");
  const s = member === undefined ? null : await readSummaryRecords(file, member, until);
  if (s?.toolError?.code === "TIMEOUT") return refused(dir, "TIMEOUT", late(timeoutMs));
  const journal = m.meta?.journal ?? null;
  const records = s?.records ?? journal?.map(fromSummary) ?? null;
  const header = m.meta?.header ?? null;
  // The records are the summaries: comparing them (SUMMARY_MISMATCH) holds a second list of
  // 100,000 only to find them equal to themselves. A finished log's checks need the summaries
  // for nothing else, so they stand as read and compared (an empty journal: present, none
  // unmatched); an unfinished one's records count only where a summary confirms them, so it keeps them.
  const finished = header !== null && header["status"] !== "started";
  const asRead = s?.records == null ? null : finished ? null : s.records.map(toSummary);
  const parts: LogParts = {
    format: "eval",
    digest: "",
    header,
    start: m.meta?.start ?? null,
    truncated: dir.truncated,
    findings: [...dir.findings, ...m.findings, ...(s?.findings ?? [])],
    samples: records ?? [],
    summaries: asRead,
    journal: s?.records != null && finished ? [] : journal,
    reductions: m.meta?.reductions ?? null,
    reductionsFile: "reductions.json",
    toolError: m.toolError ?? s?.toolError ?? null,
  };
  const summaries = records;
  const entry = finishLog(parts);
  const verify: string[] = [];
  const findings: Finding[] = [...entry.errors, ...entry.warnings];
  if (entry.validity === "error") verify.push(`assay could not read its claims (${entry.errors[0]?.code ?? "error"})`);
  if (findings.length > 0) verify.push(`${findings.length} finding(s) in what it read`);
  if (summaries === null)
    verify.push("no summaries.json or journal summaries: its claims have no per-sample figures here");
  else {
    if (dir.units !== summaries.length)
      verify.push(`${dir.units} sample(s) in its directory, ${summaries.length} summarised`);
    // The directory names each sample (id, epoch): a summary standing for a sample that is not there
    // (or a sample no summary stands for) makes the summaries' figures no figures of the samples.
    const unmatched = unmatchedNames(dir.named, summaries);
    if (unmatched !== null) verify.push(unmatched);
  }
  if (entry.status !== "success") verify.push(`its status is ${entry.status ?? "unknown"}`);
  if (dir.summariesPastWhole !== null)
    verify.push(
      `summaries.json is ${dir.summariesPastWhole} bytes, more than score and verify read in one member (${MAX_MEMBER_BYTES}): they refuse the log (FILE_TOO_LARGE)`,
    );
  const claims = claimsOf(entry.inspect?.metrics ?? {});
  // A metric the log claims nothing for has nothing a full verify could check either.
  const off = claims.filter((c) => c.check === "mismatch" || (c.check === "unverified" && c.claimed !== "none"));
  if (off.length > 0) verify.push(`${off.length} claim(s) ${[...new Set(off.map((c) => c.check))].join(" or ")}`);
  for (const f of entry.flags) verify.push(`flag ${f.code}`);
  return {
    claims,
    findings: findings.map((f) => ({ code: f.code, file: f.file, message: f.message })),
    unchecked: [...UNCHECKED],
    verify,
    read: { members: read.map((r) => r.name), bytes: read.reduce((n, r: ZipMember) => n + r.usize, 0) },
    whole: false,
    from: "summaries",
  };
}

/**
 * The members triage reads, the sample units counted: the directory (110,004 entries in a
 * 100,000-sample log) is let go before a member is read.
 */
function claimMembers(file: string): ClaimMembers {
  const dir = readDirectory(file);
  const { meta, samples, units } = partsOf(dir.members);
  const summaries = meta.find((m) => m.name === "summaries.json");
  const hasSummaries = summaries !== undefined;
  const read = meta.filter((m) => CLAIM_MEMBERS.includes(m.name) || !hasSummaries);
  return {
    read,
    units: units.length,
    named: namedSamples(units),
    truncated: dir.truncated,
    findings: dir.findings,
    // Score's own limit, over every member as score reads them (read.ts evalParts), and what
    // triage streams of a summaries.json past the largest member held whole.
    over: overDecodeBudget([...meta, ...samples], dir.size, pastWhole(summaries)),
    summariesPastWhole: pastWhole(summaries) > 0 ? summaries!.usize : null,
  };
}

interface ClaimMembers {
  read: ZipMember[];
  units: number;
  /** Each sample unit's (id, epoch) as its member names give it (recordKey), or its name when they do not. */
  named: Set<string>;
  truncated: boolean;
  findings: Finding[];
  /** Why decoding it is past score's budget (FILE_TOO_LARGE), or null. */
  over: string | null;
  /** summaries.json's size where it is past what verify decodes in one member (it streams here), or null. */
  summariesPastWhole: number | null;
}

/**
 * A summaries.json's bytes past MAX_MEMBER_BYTES (streamed by triage, refused by score), or 0; 0
 * too for one whose sizes do not hold (a lie stays the log's EVAL_CORRUPT, never the tool's limit).
 */
const pastWhole = (m: ZipMember | undefined): number =>
  m !== undefined && m.usize > MAX_MEMBER_BYTES && m.usize <= MAX_STREAMED_BYTES && sizesHold(m) ? m.usize : 0;

const late = (ms: number) => `ran past the ${ms} ms limit for one log (--bundle-timeout)`;

/**
 * A log triage does not read: past what score decodes for it, a document past its limit
 * (FILE_TOO_LARGE), or out of time (TIMEOUT). It is named for a full verify.
 */
function refused(dir: ClaimMembers, code: "FILE_TOO_LARGE" | "TIMEOUT", message: string): TriageReport {
  const entry = finishLog({
    format: "eval",
    digest: "",
    header: null,
    start: null,
    truncated: dir.truncated,
    findings: dir.findings,
    samples: [],
    summaries: null,
    journal: null,
    reductions: null,
    reductionsFile: "reductions.json",
    toolError: { code, message },
  });
  const findings = [...entry.errors, ...entry.warnings];
  return {
    claims: [],
    findings: findings.map((f) => ({ code: f.code, file: f.file, message: f.message })),
    unchecked: [...UNCHECKED],
    verify: [
      code === "TIMEOUT"
        ? `triage ran out of time (TIMEOUT): ${message}`
        : dir.over !== null
          ? "assay decodes none of it (FILE_TOO_LARGE): score and verify refuse it too"
          : `triage does not read it (FILE_TOO_LARGE): ${message}`,
    ],
    read: { members: [], bytes: 0 },
    whole: false,
    from: "summaries",
  };
}

/** (id, epoch) as a sample member's name gives it: `samples/<id>_epoch_<n>.json`, or a chunked sample's `samples/<id>_epoch_<n>/…`. */
const NAMED = /^samples\/(.*)_epoch_(\d+)(?:\.json|\/.+)$/s;

/** The directory's samples as keys, one a unit: the only copy of their names kept once the directory is let go. */
function namedSamples(units: readonly ZipMember[][]): Set<string> {
  const named = new Set<string>();
  for (const u of units) {
    const m = NAMED.exec(u[0]!.name);
    named.add(m === null ? `?${u[0]!.name}` : recordKey(m[1]!, Number(m[2])));
  }
  return named;
}

/** Samples the directory names that no summary stands for, and the reverse; null when they match. Empties `named`. */
function unmatchedNames(named: Set<string>, records: readonly SampleRecord[]): string | null {
  let absent = 0;
  for (const r of records) if (!named.has(recordKey(r.id, r.epoch))) absent++;
  for (const r of records) named.delete(recordKey(r.id, r.epoch));
  const unsummarised = named.size;
  if (unsummarised + absent === 0) return null;
  return `the directory and the summaries name different samples: ${unsummarised} sample member(s) without a summary, ${absent} summary(ies) without a sample member`;
}

/**
 * Each claim beside the figure its check comes from: Inspect's rules over the records read
 * (metrics.ts checkClaim). assay's own figure (over the plan) is not shown here: beside a check
 * it did not decide, it read as a contradiction. Agrees: Inspect's rules give the claim;
 * mismatch: what they give instead (its note); unverified: none.
 */
function claimsOf(metrics: Record<string, LogMetric>): TriageReport["claims"] {
  return Object.entries(metrics).map(([name, x]) => {
    const claimed = x.claimed === null ? "none" : typeof x.claimed === "number" ? round(x.claimed) : x.claimed;
    const instead = x.check === "mismatch" ? /Inspect's rules give (\S+)/.exec(x.note ?? "")?.[1] : undefined;
    const shown = instead === undefined || Number.isNaN(Number(instead)) ? instead : round(Number(instead));
    const recount = x.check === "agrees" ? claimed : (shown ?? "none");
    return { name, claimed, recount, check: x.check, note: x.note };
  });
}

/** A record as the summary it was read from (an unfinished log's confirmation reads summaries). */
const toSummary = (r: SampleRecord): SummaryRecord => ({
  id: r.id,
  epoch: r.epoch,
  scores: r.scores,
  error: r.error !== null,
  limit: r.limit,
  retries: r.retries,
});

const round = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(4));

/** A .json log: no member holds its claims apart from its samples, so it is read whole (verify's time limit too). */
function whole(file: string, timeoutMs: number): TriageReport {
  const entry = scoreInspectLog(file, "json", timeoutMs);
  const findings = [...entry.errors, ...entry.warnings];
  const claims = claimsOf(entry.inspect?.metrics ?? {});
  const verify = [
    ...(findings.length > 0 ? [`${findings.length} finding(s)`] : []),
    ...claims
      .filter((c) => c.check === "mismatch" || (c.check === "unverified" && c.claimed !== "none"))
      .map((c) => `claim ${c.name} ${c.check}`),
  ];
  return {
    claims,
    findings: findings.map((f) => ({ code: f.code, file: f.file, message: f.message })),
    unchecked: [],
    verify,
    read: { members: ["the whole .json log"], bytes: statSync(file).size },
    whole: true,
    from: "samples",
  };
}
