// One Harbor trial directory → its §10 entry (contract §11), as a pure function of its bytes:
// the hard checks (SCHEMA, NOT_FINITE, REWARD_MISMATCH, TIMING), the state, the rewards and
// where they came from, and the review flags. Nothing here touches the file system.

import { isUtf8 } from "node:buffer";
import { finding, type Finding } from "../codes.js";
import { encodingProblem, isPlainObject } from "../json/decode.js";
import { parseStrictJsonNoting } from "../json/strict.js";
import { EvidenceFolder, type BundleSource } from "../folder.js";
import { blankEntry, type ScoredBundle } from "../results.js";
import { check } from "../schema.js";
import { fieldPath, shorten } from "../text.js";
import { MAX_TRAJECTORY_BYTES, scanTrajectory, stepExceptionFlags, type ReviewFlag } from "./flags.js";
import { trialResultSchema, viewOf, type RewardMap, type TrialView } from "./result.js";
import { compareRewards, readRewardFile } from "./rewards.js";
import { checkTiming } from "./timing.js";

export const RESULT = "result.json";
export const TRAJECTORY = "agent/trajectory.json";
export const HARBOR_STATES = ["scored", "scored-with-exception", "infrastructure-error", "incomplete"] as const;
export type HarborState = (typeof HARBOR_STATES)[number];

/** A step name usable as a folder below steps/ (anything else cannot name Harbor's step folder). */
const SEGMENT = /^(?!\.{1,2}$)[^/\\\u0000]+$/;

export function scoreTrial(src: BundleSource): ScoredBundle {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const folder = new EvidenceFolder(src, errors, warnings, "ignored");
  /** A document's bytes, or null when absent, unreadable or too large (FILE_TOO_LARGE reported). */
  const readDoc = (p: string): Uint8Array | null => folder.read(p) || null;

  // A job whose job.log was lost matches the trial rule (config.json and result.json): say so,
  // rather than score a job's summary as one trial in silence.
  const nested = src.entries.filter((e) => /^[^/]+\/config\.json$/.test(e.path) && !e.path.startsWith("steps/")).length;
  if (nested > 0)
    warnings.push(finding("LOOKS_LIKE_JOB", null, null, `${nested} subfolder${nested > 1 ? "s hold" : " holds"} config.json like Harbor trials: if this is a job without job.log, its trials were not scored`));

  const view = readResult(readDoc(RESULT), errors, warnings);
  let rewards: RewardMap | null = null;
  let source: string | null = null;
  const flags: ReviewFlag[] = [];
  if (view !== null) {
    ({ rewards, source } = trialRewards(view));
    checkRewardFiles(view, (p) => folder.has(p), readDoc, errors);
    checkTiming(view, errors);
    flags.push(...stepExceptionFlags(view));
  }
  for (const e of src.entries) {
    const p = e.path;
    if ((p === TRAJECTORY || /^steps\/[^/]+\/agent\/trajectory\.json$/.test(p)) && folder.regular(p) !== null) {
      if (e.size > MAX_TRAJECTORY_BYTES) warnings.push(finding("TRAJECTORY_NOT_SCANNED", p, null, `${e.size} bytes: larger than assay scans for review flags, so the absence of a flag says nothing here`));
      else flags.push(...scanTrajectory(p, readDoc(p)!));
    }
  }

  const finite = rewards === null ? null : Object.fromEntries(Object.entries(rewards).filter((kv): kv is [string, number] => kv[1] !== null));
  return blankEntry({
    digest: folder.digest(null), // Harbor trials carry no seal: seal.json is an ordinary file here
    profile: "harbor",
    trial: view?.trialName ?? null,
    task: view?.taskName ?? null,
    task_checksum: view?.taskChecksum ?? null,
    validity: errors.length === 0 ? "valid" : "invalid",
    errors,
    warnings,
    state: stateOf(view, rewards),
    rewards: finite !== null && Object.keys(finite).length > 0 ? finite : null,
    reward_source: source,
    flags,
  });
}

/** result.json → the view, or null when there is none to read (absent, too large, killed writer). */
function readResult(bytes: Uint8Array | null, errors: Finding[], warnings: Finding[]): TrialView | null {
  if (bytes === null) return null;
  const truncated = (why: string) => {
    warnings.push(finding("RESULT_TRUNCATED", RESULT, null, `${why}: a writer killed mid-write (Harbor writes result.json in place); not evidence, the trial is incomplete`));
    return null;
  };
  if (bytes.length === 0) return truncated("result.json is empty");
  const bad = encodingProblem(bytes);
  if (bad === "invalid UTF-8" && cutMidCharacter(bytes)) return truncated("result.json ends inside a UTF-8 character");
  if (bad !== null) {
    errors.push(finding("ENCODING", RESULT, null, bad));
    return null;
  }
  const r = parseStrictJsonNoting(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"), " \n");
  if (!r.ok) {
    // Only a file that ends where a value was still being read is a killed writer's; any other
    // syntax error is corrupt evidence (an error), never a way to drop a trial from the mean.
    if (r.issue.code === "JSON_SYNTAX" && r.issue.endOfInput) return truncated(`result.json ends mid-document (${r.issue.message})`);
    errors.push(finding(r.issue.code, RESULT, null, r.issue.message));
    return null;
  }
  const noted = new Set<string>();
  for (const f of r.nonFinite) {
    noted.add(f.path.join("\u0000"));
    errors.push(finding("NOT_FINITE", RESULT, null, `${fieldPath(f.path)}: ${f.token} is not a finite number`));
  }
  if (!isPlainObject(r.value)) {
    errors.push(finding("SCHEMA", RESULT, null, "expected a TrialResult object"));
    return null;
  }
  check(trialResultSchema, r.value, RESULT, null, errors);
  const view = viewOf(r.value);
  // pydantic writes a NaN reward as null: not finite either.
  const nullRewards = (m: RewardMap | null, path: (string | number)[]) => {
    for (const [k, v] of Object.entries(m ?? {}))
      if (v === null && !noted.has([...path, k].join("\u0000")))
        errors.push(finding("NOT_FINITE", RESULT, null, `${fieldPath([...path, k])}: null is not a finite reward`));
  };
  nullRewards(view.rewards, ["verifier_result", "rewards"]);
  for (const s of view.steps) nullRewards(s.rewards, ["step_results", s.index, "verifier_result", "rewards"]);
  return view;
}

/** Invalid UTF-8 only because the last character was cut short: a killed writer, not bad encoding. */
function cutMidCharacter(bytes: Uint8Array): boolean {
  for (let k = 1; k <= 3 && k < bytes.length; k++) {
    const lead = bytes[bytes.length - k]!;
    if (lead >= 0xc0) return isUtf8(bytes.subarray(0, bytes.length - k));
    if (lead < 0x80) return false;
  }
  return false;
}

const some = (m: RewardMap | null): m is RewardMap => m !== null && Object.keys(m).length > 0;

/** §11: the top-level rewards when there are some, else the last step's that has some. */
function trialRewards(view: TrialView): { rewards: RewardMap | null; source: string | null } {
  if (some(view.rewards)) return { rewards: view.rewards, source: "result.json verifier_result.rewards" };
  for (let i = view.steps.length - 1; i >= 0; i--) {
    const s = view.steps[i]!;
    if (some(s.rewards)) return { rewards: s.rewards, source: `result.json step_results[${i}].verifier_result.rewards (step ${shorten(s.name ?? "unnamed", 60)})` };
  }
  return { rewards: null, source: null };
}

/**
 * Rewards claimed at the top and in each step against the reward file Harbor would have read there:
 * reward.json whenever it exists, else reward.txt. A file assay cannot read (a link, a folder, too
 * large) cannot back the claim, and is never passed over for the other one.
 */
function checkRewardFiles(view: TrialView, present: (p: string) => boolean, readDoc: (p: string) => Uint8Array | null, errors: Finding[]): void {
  const mismatch = (message: string) => errors.push(finding("REWARD_MISMATCH", RESULT, null, message));
  const against = (claimed: RewardMap | null, field: string, dir: string) => {
    if (!some(claimed)) return; // a reward file beside no claimed rewards is not compared
    const file = [`${dir}reward.json`, `${dir}reward.txt`].find(present);
    if (file === undefined) return void mismatch(`${field} holds rewards but ${dir}reward.json and ${dir}reward.txt are absent`);
    const bytes = readDoc(file);
    if (bytes === null) return void mismatch(`${field} holds rewards but ${file}, the file Harbor reads, is not a regular file assay may read`);
    const actual = readRewardFile(file, bytes, errors);
    if (actual !== null) compareRewards(claimed, field, file, actual, errors);
  };
  against(view.rewards, "verifier_result.rewards", "verifier/");
  for (const s of view.steps) {
    const field = `step_results[${s.index}].verifier_result.rewards`;
    if (s.name !== null && SEGMENT.test(s.name)) against(s.rewards, field, `steps/${s.name}/verifier/`);
    else if (some(s.rewards)) mismatch(`${field} holds rewards but its step_name cannot name a folder under steps/, so no reward file backs them`);
  }
}

/** §11 states: never a silent 0 for a trial that was not scored. */
function stateOf(view: TrialView | null, rewards: RewardMap | null): HarborState {
  if (view === null) return "incomplete";
  const exception = view.exception !== null || view.steps.some((s) => s.exception !== null);
  if (rewards !== null) return exception ? "scored-with-exception" : "scored";
  return exception ? "infrastructure-error" : "incomplete";
}
