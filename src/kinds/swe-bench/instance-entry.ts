// Workers: one SWE-bench instance folder (`<model>/<instance_id>/`) → its entry (§14 "The entry"),
// from its own files alone (§7): report.json read as §2 says, the two logs streamed once each
// through the folder's source (hashed as they are read, never read twice), the assessment
// (instance.ts), and the entry's fields. What the run says of it is judged by the batch (batch.ts).

import { createHash } from "node:crypto";
import { finding, type Code, type Finding } from "../../core/codes.js";
import { EvidenceFolder, sha256, type BundleSource } from "../../core/folder.js";
import { MAX_DOCUMENT_BYTES, encodingProblem } from "../../core/json/decode.js";
import { parseStrictJsonNoting } from "../../core/json/strict.js";
import { blankEntry, type BundleEntry, type ScoredBundle } from "../../core/results.js";
import type { Finding as InstanceFinding } from "./checks.js";
import type { DatasetTests } from "./dataset.js";
import type { SweBenchPart } from "./entry.js";
import { assessInstanceFiles, type InstanceAssessment } from "./instance.js";
import type { LogSource } from "./read.js";

export const SWE_PROFILE = "swe-bench";
export const REWARD_KEY = "resolved";
export const REPORT = "report.json";
export const TEST_OUTPUT = "test_output.txt";
export const RUN_LOG = "run_instance.log";
export const PATCH = "patch.diff";

/** A scored instance: every field of a ScoredBundle, its profile SWE-bench's. */
export type SweBenchEntry = Omit<ScoredBundle, "profile"> & { profile: typeof SWE_PROFILE };

/** The states whose verdict enters the mean (the harness's resolved, unresolved and its patch failures). */
const VERDICT_STATES: ReadonlySet<string> = new Set(["resolved", "unresolved", "tests-not-run", "patch-apply-failed"]);
const WARNINGS: ReadonlySet<string> = new Set(["EXIT_CODE_UNRECORDED", "LOG_TOO_LARGE", "REPORT_UNREADABLE"]);
const FILE_OF: Readonly<Record<string, string>> = {
  REPORT_MISMATCH: REPORT,
  REPORT_INCONSISTENT: REPORT,
  REPORT_UNREADABLE: REPORT,
  SCHEMA: REPORT,
  EXIT_CODE_CONTRADICTION: TEST_OUTPUT,
  EXIT_CODE_CONFLICT: TEST_OUTPUT,
  EXIT_CODE_UNRECORDED: TEST_OUTPUT,
  TEST_OUTPUT_MISSING: TEST_OUTPUT,
  DATASET_MISMATCH: REPORT,
};

/** report.json as §2 reads it: absent; there but not a document the harness wrote whole (empty, cut: REPORT_UNREADABLE); refused (§2's code, an error); or its value. */
type ReportRead =
  | { present: false }
  | { present: true; doc: unknown }
  | { present: true; unreadable: string }
  | { present: true; refused: true };

function readReport(folder: EvidenceFolder, errors: Finding[]): ReportRead {
  if (!folder.has(REPORT)) return { present: false };
  const bytes = folder.read(REPORT, MAX_DOCUMENT_BYTES); // over 64 MiB: FILE_TOO_LARGE, said by read
  if (bytes === null) return { present: false }; // a link or a folder of that name: said as such
  if (bytes === false) return { present: true, refused: true };
  if (bytes.length === 0) return { present: true, unreadable: "report.json is empty (the harness's own error)" };
  const bad = encodingProblem(bytes);
  if (bad !== null) {
    errors.push(finding("ENCODING", REPORT, null, bad));
    return { present: true, refused: true };
  }
  const r = parseStrictJsonNoting(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
    " \n",
  );
  if (r.ok) return { present: true, doc: r.value };
  // A prefix of a valid document is a writer cut short: the harness's error, not a forged verdict.
  if (r.issue.code === "JSON_SYNTAX" && r.issue.endOfInput === true)
    return { present: true, unreadable: "report.json ends mid-document (cut short)" };
  errors.push(finding(r.issue.code, REPORT, null, r.issue.message));
  return { present: true, refused: true };
}

/**
 * A log of the folder as a LogSource: read through the folder's source, digested as it streams
 * (so the folder's digest does not read it again). A link or a folder of that name is absent (the
 * folder warns of a link); a read that fails is the caller's tool error, rethrown after.
 */
class LogReader {
  failure: Error | null = null;
  constructor(private readonly folder: EvidenceFolder) {}

  source(name: string): LogSource {
    const e = this.folder.regular(name);
    if (e === null) return { read: "absent" };
    const folder = this.folder;
    const reader = this;
    return {
      size: e.size,
      *chunks() {
        const hash = createHash("sha256");
        try {
          for (const c of folder.src.read(name)) {
            hash.update(c);
            yield c;
          }
        } catch (err) {
          reader.failure = err as Error;
          throw err;
        }
        folder.files.set(name, hash.digest("hex"));
      },
    };
  }
}

/** `dataset`: --dataset's instances (their deciding tests), when given. */
export function scoreSweBenchInstance(src: BundleSource, dataset?: ReadonlyMap<string, DatasetTests>): SweBenchEntry {
  const id = src.name ?? "";
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const folder = new EvidenceFolder(src, errors, warnings, "ignored");
  const report = readReport(folder, errors);
  const logs = new LogReader(folder);
  const a = assessInstanceFiles(
    (name) => logs.source(name),
    id,
    "doc" in report ? report.doc : undefined,
    undefined,
    dataset,
  );
  if (logs.failure !== null) throw logs.failure; // an I/O error: the caller's IO_ERROR
  if (a === null)
    throw new Error(`${JSON.stringify(id)} is not named like a SWE-bench instance id (<owner>__<repo>-<number>)`);
  if ("unreadable" in report)
    warnings.push(
      finding("REPORT_UNREADABLE", REPORT, null, `${report.unreadable}: the state follows the other files`),
    );
  for (const f of a.findings) placeFinding(f, errors, warnings);
  return entryOf(id, a, folder, report, errors, warnings);
}

function placeFinding(f: InstanceFinding, errors: Finding[], warnings: Finding[]): void {
  const file = FILE_OF[f.code] ?? (f.message.startsWith(RUN_LOG) ? RUN_LOG : TEST_OUTPUT);
  (WARNINGS.has(f.code) ? warnings : errors).push(finding(f.code as Code, file, null, f.message));
}

function entryOf(
  id: string,
  a: InstanceAssessment,
  folder: EvidenceFolder,
  report: ReportRead,
  errors: Finding[],
  warnings: Finding[],
): SweBenchEntry {
  const { state, exception } = a.decision;
  const valid = errors.length === 0;
  const inMean = VERDICT_STATES.has(state) && valid;
  const own = a.report?.entry === "ok" ? a.report.report : null;
  const flags: BundleEntry["flags"] =
    a.infra === null
      ? []
      : [
          {
            code: "INFRA_SIGNATURE",
            evidence: `${a.infra.reason} (${a.infra.tier}): infra_failure.py's signature in the logs; advisory, never a verdict`,
          },
        ];
  const part = partOf(a, report, folder); // before the digest: it reads patch.diff once
  const { identity: _, ...entry } = blankEntry({
    // Every file of the folder, and its name: the name decides which instance (and parser) the files are read as.
    digest: sha256(`${folder.digest(null)}\t${id}\n`),
    trial: id,
    task: id,
    validity: valid ? "valid" : "invalid",
    errors,
    warnings,
    state,
    pass: inMean ? state === "resolved" : null,
    rewards: inMean ? { [REWARD_KEY]: state === "resolved" ? 1 : 0 } : null,
    reward_source:
      a.rederivation !== null
        ? `${TEST_OUTPUT} (${a.repo.parser})`
        : a.decision.reportOnly
          ? `${REPORT} (unverified)`
          : null,
    flags,
    exception: exception === null ? null : { ...exception, step: null },
    claimed: claimedOf(own?.resolved ?? null),
    swe_bench: part,
  });
  return { ...entry, profile: SWE_PROFILE, identity: null };
}

/** What report.json claims of the instance: its own verdict, kept as the entry's claim. */
export const claimedOf = (resolved: boolean | null): BundleEntry["claimed"] => ({
  rewards: resolved === null ? null : { [REWARD_KEY]: resolved ? 1 : 0 },
  exception: null,
});

function partOf(a: InstanceAssessment, report: ReportRead, folder: EvidenceFolder): SweBenchPart {
  const ev = a.logs.evaluation;
  const r = a.rederivation;
  const exit = ev?.exit_code ?? null;
  const count = (l: { success: string[]; failure: string[] }) => ({
    success: l.success.length,
    failure: l.failure.length,
  });
  const entry = a.report;
  return {
    repo: a.repo.repo,
    parser: a.repo.parser,
    log: a.log,
    found: r === null ? null : r.found, // null: not re-derived (an unsupported repo, no report.json, a log not read)
    not_run: ev?.not_run ?? null,
    exit_code: exit !== null && Number.isSafeInteger(exit) ? exit : null,
    tests: r === null ? null : { FAIL_TO_PASS: count(r.tests.FAIL_TO_PASS), PASS_TO_PASS: count(r.tests.PASS_TO_PASS) },
    infra: a.logs.infra,
    report: report.present
      ? {
          readable: entry !== null && entry.entry !== "unreadable",
          resolved: entry?.entry === "ok" ? entry.report.resolved : null,
        }
      : null,
    patch: folder.regular(PATCH) === null ? null : patchDigest(folder),
  };
}

/** patch.diff's SHA-256 (what PATCH_MISMATCH compares with the prediction's), read once: the folder's digest takes it from here. */
function patchDigest(folder: EvidenceFolder): string {
  const hash = createHash("sha256");
  for (const c of folder.src.read(PATCH)) hash.update(c);
  const digest = hash.digest("hex");
  folder.files.set(PATCH, digest);
  return digest;
}
