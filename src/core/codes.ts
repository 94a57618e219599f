// The one registry of finding codes (contract §9). Codes are the public interface: never reuse one.

import { KIND_CODES } from "../kinds/declared.js";
import { repeated } from "./redact.js";

/** The contract's own codes. */
const CONTRACT_CODES = {
  ENCODING: "§2 UTF-8 without BOM, no raw \\r, no escaped lone surrogate",
  LINE_TOO_LONG: "§2 a JSONL line over 1 MiB including its \\n",
  JSON_SYNTAX: "§2 not one well-formed JSON value (or a blank JSONL line)",
  JSON_DUPLICATE_KEY: "§2 an object repeats a key (compared after unescaping)",
  NOT_FINITE: "§2 a number that is not a finite double, or a bare NaN/Infinity token",
  SCHEMA: "§2 a field of the wrong type, a missing or undefined key",
  FILE_TOO_LARGE: "§2 a JSON document larger than assay reads (64 MiB)",
  JSON_TOO_DEEP: "§2 a JSON value nested deeper than assay reads (512 arrays and objects): refused before it is built",
  JOURNAL_CHAIN: "§3 seq/prev chain broken",
  HEADER_MISSING: "§3 line 1 is not a session header",
  FORMAT_UNSUPPORTED: "§3 another assay.bundle version",
  PROFILE_UNSUPPORTED: "§3 a profile this version does not score",
  SEED_NOT_CANONICAL: "§3 seed is not canonical lowercase hex",
  DEADLINE_INVALID: "§3 deadline not after the header's at",
  TRANSITION: "§2–5 an ordering rule is broken",
  SUMMARY_MISSING: "§4.5 summary.json absent beside an ended journal",
  SUMMARY_MISMATCH: "§4.5 a summary field differs from its recomputation",
  SNAPSHOT_MISSING: "§4.4 snapshot.json absent beside a final score",
  SNAPSHOT_MISMATCH: "§4.4 snapshot differs from the journal",
  WORLD_MISSING: "§5 world.jsonl absent from a world bundle",
  WORLD_LINK: "§5 the world log names another session, or an attempt the journal never names",
  SCENARIO_INVALID: "§5.3 scenario.json absent or malformed",
  SCENARIO_MISMATCH: "§5.1 a request's class differs from the scenario's reviewed tool contract",
  SCENARIO_NOT_SCHEDULED: "§6 a world scenario other than the schedule's",
  UNSAFE_PATH: "§1 a bundle entry that is not a plain file or directory inside the bundle",
  SEAL: "§8 with a key file: seal.json absent, malformed, or its mac not this bundle's under the key",
  ATTEMPT_SEQUENCE: "§6 attempts not numbered exactly 1..n",
  SEED_MISMATCH: "§6 attempts disagree on the seed, or differ from the schedule",
  SEED_COLLISION: "§6 two trials of one experiment share a seed",
  UNSCHEDULED: "§6 a trial the schedule lacks",
  PROFILE_MIXED: "§6 a bundle whose profile differs from its experiment's",
  TIMEOUT: "§6 tool error: the bundle ran past its time limit",
  WORKER_FAILED: "§6 tool error: the worker scoring the bundle failed",
  IO_ERROR: "§6 tool error: a bundle file could not be read",
  REWARD_MISMATCH:
    "§11 result.json's rewards differ from the reward file Harbor read (or it is unreadable), or from the steps' aggregation",
  REWARD_FILE_MISSING: "§11 result.json holds rewards, but no reward file is where Harbor would have read one",
  TIMING: "§11 a phase starts after it finishes, lies outside the trial, or starts out of order",
  TRIAL_DUPLICATE: "§11 two trial folders of one job claim the same trial_name",
  EVAL_CORRUPT:
    "§12 a .eval whose member has a bad CRC or size, does not inflate, or whose local name differs from the central one; or that cannot be opened as a ZIP at all",
  SAMPLE_DUPLICATE:
    '§12 two records for one (id, epoch) of an Inspect log (ids compared as Inspect does: 1 and "1" are one)',
  START_HEADER_MISMATCH:
    "§12 header.json's identity (eval_id, run_id, task_id, task, model, created, dataset) differs from _journal/start.json's",
  REDUCTION_MISMATCH: "§12 a reduced score is not what its reducer gives over that sample's epoch scores",
  METRIC_MISMATCH: "§12 a built-in metric in results is not what Inspect's own rules give over the samples present",
  COUNT_MISMATCH: "§12 scored_samples, unscored_samples or completed_samples disagree with a recount",
  SCORE_EVENT_MISMATCH: "§12 a sample's score differs from its last final score event, and no edit explains it",
  // warnings
  JOURNAL_TORN: "§2 warning: the last line has no \\n (a writer killed mid-append)",
  SUMMARY_UNEXPECTED: "§4.1 warning: summary.json beside an unterminated journal, not checked",
  RESULT_TRUNCATED: "§11 warning: result.json does not parse (a killed writer); the trial is incomplete",
  TRIAL_SYMLINK: "§11 warning: a symbolic link in a Harbor trial, never followed",
  PATH_TOO_DEEP: "§11 warning: an entry of a Harbor trial nested too deep for the file system to name, never read",
  TRAJECTORY_NOT_SCANNED: "§11 warning: a trajectory too large to scan for review flags",
  LOOKS_LIKE_JOB: "§11 warning: a trial folder whose subfolders hold config.json (a job without job.log?)",
  REWARD_COERCED: '§11 warning: a reward.json value Harbor\'s lax model coerced to a number ("1.0", true)',
  REWARD_UNVERIFIED: "§11 warning: a custom or disabled verifier: no reward file backs the rewards",
  JOB_RESULT_UNREADABLE: "§11 warning: a job's own result.json is absent or malformed: its plan and claims are unknown",
  JOB_PLAN_EXCEEDED: "§11 warning: a job folder holds more trials than its n_total_trials planned",
  EVAL_TRUNCATED:
    "§12 warning: an Inspect log cut short (a killed or partial writer); read as far as it is intact, state incomplete",
  MEMBER_DUPLICATE: "§12 warning: a .eval member name repeats; its last entry is read, as Inspect reads it",
  PLAN_MISMATCH: "§12 warning: results.total_samples differs from the plan (eval.dataset.sample_ids × epochs)",
  VALUE_UNCONVERTIBLE: "§12 warning: a score value Inspect maps to 0 only through value_to_float's fallback",
  // flags
  SUPERSEDED: "§6 flag: a lower attempt with no outcome, replaced by a later one",
  RETRY_AFTER_OUTCOME: "§6 flag: an attempt after the trial already had an outcome; ignored",
  UNTERMINATED_WITH_ENDING: "§4.1 flag: no end record, but the native ending decides",
  ENDING_OVERRIDES_STATUS: "§4.1 flag: the end status says otherwise, but the native ending decides",
  WRITES_REWARD_PATH: "§11 review flag: the trajectory writes to the verifier's reward path (/logs/verifier/)",
  WRITES_TESTS_DIR: "§11 review flag: the trajectory writes to the tests directory (/tests/)",
  STEP_EXCEPTION: "§11 review flag: a step raised an exception while the trial's top level is clean",
  TRIAL_DUPLICATE_ID: "§11 flag: one Harbor trial id under two job folders (a copied job)",
  JOB_CLAIM_MISMATCH:
    "§11 flag: the job's summary names a trial with another reward or exception than its own result.json, or a trial it lacks",
  SAMPLE_LIMIT: "§12 flag: a limit ended the sample; it is scored as Inspect scored it",
  RETRIED: "§12 flag: the sample was retried after an error (error_retries); only its last attempt is logged",
  SCORE_EDITED: "§12 flag: a score was edited (score history or edit events), with its provenance",
  RESCORED:
    "§12 flag: the log was re-scored (inspect score): two results for one scorer, name-1 keys, or scorers added after the start",
  NO_SAMPLE_EVIDENCE: "§12 flag: results with no sample record behind it: its metrics are unverified",
  SAMPLE_UNPLANNED: "§12 flag: a sample record outside eval.dataset.sample_ids × epochs",
  DUPLICATE_LOG: "§12 flag: one run (run_id) written twice; the later log is kept",
  // tool errors (validity "error")
  EVAL_METHOD: "§12 tool error: a .eval member compressed with a method other than stored, Deflate or zstd",
  LOG_VERSION: "§12 tool error: an Inspect log format version other than 1 to 3",
  // flags (issue 25)
  // issue 35: inspect-audit
  LOG_UNIDENTIFIED:
    "§12 flag (issue 35): an Inspect log whose task run cannot be read may belong to this one: its value is withheld",
  // issue 35: Harbor, what an unreadable file may switch off
  REWARD_WITHOUT_RESULT:
    "§11 warning and flag: a reward file shows the verifier ran, but result.json is absent or cut: the reward cannot be checked, so the trial counts 0 under every --errors",
  LOCK_UNREADABLE:
    "§11 warning: a job's or trial's lock.json is present but cannot be read: the Harbor version (which reward file it read) or the task's digest is unknown",
  // a code two kinds raise is the contract's (a kind's own codes are its alone)
  RUN_CLAIM_MISMATCH:
    "§14 flag (and Terminal-Bench's): a run's own summary claims what a recount of its trials contradicts (TB: accuracy, counts, ids or pass_at_k against its results list; SWE-bench: a listed instance its folder's evidence contradicts)",
  JOB_PLAN_UNKNOWN:
    "§11 flag: a job's result.json is absent or unreadable: its plan is unknown (so is coverage: null, with coverage_reason) and its claims cannot be checked",
} as const;

/** Every code: the contract's, and those a kind adds (kinds/declared.ts). */
export const CODES = { ...CONTRACT_CODES, ...KIND_CODES };

export type Code = keyof typeof CODES;

/** A finding as it appears in results: `line` is 1-based, null for a whole file. */
export interface Finding {
  code: Code;
  file: string | null;
  line: number | null;
  message: string;
}

/** Longest message kept: messages quote evidence, and a finding's size must not follow the input's. */
export const MAX_MESSAGE = 500;

/** Messages quote evidence: cut to a bounded size, and with obvious credentials replaced. */
export const finding = (code: Code, file: string | null, line: number | null, message: string): Finding => ({
  code,
  file,
  line,
  message: repeated(message, MAX_MESSAGE),
});
