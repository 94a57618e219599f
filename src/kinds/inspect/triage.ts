// `assay triage` of an Inspect log (issue 40 §4): its claims checked from what Inspect writes
// beside the samples — header.json (the claims), then reductions.json and summaries.json (the
// per-sample figures they follow from, summaries a sample at a time) — without reading a sample.
// The summaries stand in for the sample records, and the log is finished as `verify` finishes it
// (finish.ts): every claim they support is checked by the same code. What only the samples hold is
// said, and the log is named for a full verify when anything was found or cannot be checked here.
import { statSync } from "node:fs";
import type { Finding } from "../../core/codes.js";
import type { Found } from "../../io/discover.js";
import type { TriageReport } from "../kind.js";
import { finishLog } from "./finish.js";
import type { LogParts } from "./log.js";
import { partsOf, readMeta, scoreInspectLog } from "./read.js";
import type { SampleRecord } from "./sample.js";
import type { SummaryRecord } from "./summary.js";
import { fromSummary, readSummaryRecords } from "./triage-read.js";
import { readDirectory, type ZipMember } from "./zip.js";

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

/** The triage of one .eval (a .json log holds its samples inline: it is read as verify reads it). */
export function triageInspect(found: Found): TriageReport {
  const file = found.dir;
  if (found.file?.format !== "eval") return whole(file);
  const dir = claimMembers(file);
  const read = dir.read;
  const m = readMeta(
    file,
    read.filter((r) => r.name !== "summaries.json"),
    true,
  );
  // summaries.json streamed into compact records (triage-read.ts); the journal only stands in when it is absent.
  const member = read.find((r) => r.name === "summaries.json");
  const s = member === undefined ? null : readSummaryRecords(file, member);
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
  else if (dir.units !== summaries.length)
    verify.push(`${dir.units} sample(s) in its directory, ${summaries.length} summarised`);
  if (entry.status !== "success") verify.push(`its status is ${entry.status ?? "unknown"}`);
  const claims = Object.entries(entry.inspect?.metrics ?? {}).map(([name, x]) => ({
    name,
    claimed: x.claimed === null ? "none" : typeof x.claimed === "number" ? round(x.claimed) : x.claimed,
    recount: x.exclude.value === null ? "none" : round(x.exclude.value),
    check: x.check,
    note: x.note,
  }));
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
function claimMembers(file: string): { read: ZipMember[]; units: number; truncated: boolean; findings: Finding[] } {
  const dir = readDirectory(file);
  const { meta, units } = partsOf(dir.members);
  const hasSummaries = meta.some((m) => m.name === "summaries.json");
  const read = meta.filter((m) => CLAIM_MEMBERS.includes(m.name) || !hasSummaries);
  return { read, units: units.length, truncated: dir.truncated, findings: dir.findings };
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

/** A .json log: no member holds its claims apart from its samples, so it is read whole. */
function whole(file: string): TriageReport {
  const entry = scoreInspectLog(file, "json");
  const findings = [...entry.errors, ...entry.warnings];
  const claims = Object.entries(entry.inspect?.metrics ?? {}).map(([name, x]) => ({
    name,
    claimed: x.claimed === null ? "none" : typeof x.claimed === "number" ? round(x.claimed) : x.claimed,
    recount: x.exclude.value === null ? "none" : round(x.exclude.value),
    check: x.check,
    note: x.note,
  }));
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
