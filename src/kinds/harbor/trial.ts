// One Harbor trial directory → its §10 entry (contract §11), as a pure function of its bytes:
// the hard checks (SCHEMA, NOT_FINITE, REWARD_MISMATCH, REWARD_FILE_MISSING, TIMING), the state,
// the rewards and what backs them, the exception, and the review flags. Nothing here touches the
// file system, and nothing here reads another folder: what the job says of a trial is judged by
// the job-level rules (batch.ts).

import { isUtf8 } from "node:buffer";
import { finding, type Finding } from "../../core/codes.js";
import { decodeDocument, encodingProblem, isPlainObject, MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import { parseStrictJsonNoting } from "../../core/json/strict.js";
import { EvidenceFolder, type BundleSource } from "../../core/folder.js";
import { redact } from "../../core/redact.js";
import { blankEntry, type BundleEntry, type HarborState, type ScoredBundle } from "../../core/results.js";
import { check } from "../../core/schema.js";
import { fieldPath, shorten } from "../../core/text.js";
import { MAX_TRAJECTORY_BYTES, scanTrajectory, stepExceptionFlags, type ReviewFlag } from "./flags.js";
import { trialResultSchema, viewOf, type ExceptionView, type RewardMap, type TrialView } from "./result.js";
import { onlyAgreeing, readRewardFile, rewardDifferences, sameRewards, type RewardRead } from "./rewards.js";
import { checkTiming } from "./timing.js";
import { isTrialEvidence } from "./analysis.js";
import { REWARD_DETAILS, readRewardDetails } from "./details.js";
import { LOCK_DIGEST } from "./job.js";
import { harborIdentity } from "./identity.js";

export const RESULT = "result.json";
export const TRAJECTORY = "agent/trajectory.json";
/** A Harbor ≥ 0.20 trial's own lock.json: its `task.digest` names the task (Task.checksum is deprecated there). */
const LOCK = "lock.json";
/** The trial's config (TrialConfig), written before it runs: what survives a result.json that does not. */
const CONFIG = "config.json";

/** A step name usable as a folder below steps/ (anything else cannot name Harbor's step folder). */
const SEGMENT = /^(?!\.{1,2}$)[^/\\\u0000]+$/;
/** Harbor counts cancelled trials apart from errors (asyncio's CancelledError). */
const CANCELLED = "CancelledError";
/** reward_source of rewards no evidence backs: a custom or disabled verifier. */
const UNVERIFIED_SOURCE = "result.json (unverified)";

export function scoreTrial(src: BundleSource): ScoredBundle {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  // What `harbor analyze` wrote is not evidence: not read here, not in the digest (placed shows it).
  const evidence: BundleSource = {
    entries: src.entries.filter((e) => isTrialEvidence(e.path)),
    read: (p) => src.read(p),
  };
  const folder = new EvidenceFolder(evidence, errors, warnings, "ignored");
  /** A document's bytes, or null when absent, unreadable or too large (FILE_TOO_LARGE reported). */
  const readDoc = (p: string): Uint8Array | null => folder.read(p) || null;

  // A folder that holds a trial's result.json and subfolders shaped like trials: say so, rather
  // than score a job's trials as one trial in silence.
  const nested = src.entries.filter((e) => /^[^/]+\/config\.json$/.test(e.path) && !e.path.startsWith("steps/")).length;
  if (nested > 0)
    warnings.push(
      finding(
        "LOOKS_LIKE_JOB",
        null,
        null,
        `${nested} subfolder${nested > 1 ? "s hold" : " holds"} config.json like Harbor trials: if this is a job, its trials were not scored`,
      ),
    );

  const view = readResult(readDoc(RESULT), errors, warnings);
  if (view === null && !errors.some((f) => f.file === RESULT)) rewardWithoutResult(src, warnings);
  let source: string | null = null;
  const flags: ReviewFlag[] = [];
  const details: NonNullable<BundleEntry["reward_details"]> = { rewards: [], more: 0 };
  const files = view === null ? null : new Files(folder, readDoc, errors, warnings, flags, details);
  if (view !== null) {
    source = checkRewards(view, files!, errors, warnings);
    checkTiming(view, errors);
    for (const f of stepExceptionFlags(view)) flags.push(f);
  }
  for (const e of src.entries) {
    const p = e.path;
    if ((p === TRAJECTORY || /^steps\/[^/]+\/agent\/trajectory\.json$/.test(p)) && folder.regular(p) !== null) {
      if (e.size > MAX_TRAJECTORY_BYTES)
        warnings.push(
          finding(
            "TRAJECTORY_NOT_SCANNED",
            p,
            null,
            `${e.size} bytes: larger than assay scans for review flags, so the absence of a flag says nothing here`,
          ),
        );
      else for (const f of scanTrajectory(p, readDoc(p)!)) flags.push(f);
    }
  }

  const rewards = view?.rewards ?? null;
  const finite =
    rewards === null
      ? null
      : Object.fromEntries(Object.entries(rewards).filter((kv): kv is [string, number] => kv[1] !== null));
  const exception = view === null ? null : shownException(view);
  // Without result.json, config.json (written before the trial ran) still names its task and agent.
  const config = view === null ? readConfig(folder, readDoc) : null;
  return blankEntry({
    digest: folder.digest(null), // Harbor trials carry no seal: seal.json is an ordinary file here
    profile: "harbor",
    trial: view?.trialName ?? null,
    task: view?.taskName ?? null,
    // §11 (research §D.5): the trial's own lock.json digest names its task before the deprecated checksum.
    task_checksum: (files === null ? null : lockDigest(files, warnings)) ?? view?.taskChecksum ?? null,
    validity: errors.length === 0 ? "valid" : "invalid",
    errors,
    warnings,
    state: stateOf(view, exception),
    // {} is rewards with no key (Harbor counts it); a map whose every value is non-finite has none.
    rewards: finite !== null && (Object.keys(finite).length > 0 || Object.keys(rewards!).length === 0) ? finite : null,
    reward_source: source,
    flags,
    exception,
    harbor_id: view?.id ?? null,
    job_id: view?.jobId ?? null,
    usage: view?.usage ?? null,
    task_path: view === null ? configTaskPath(config) : view.taskPath,
    reward_details: details.rewards.length === 0 && details.more === 0 ? null : details,
    identity: view?.identity ?? harborIdentity(null, config),
  });
}

/**
 * The trial's own lock.json `task.digest` (Harbor ≥ 0.20: TaskLock, `sha256:<64 hex>`), which pass@k
 * groups by before the deprecated Task.checksum; null when there is none of that form. One present
 * but unreadable is LOCK_UNREADABLE (issue 35): falling back to the checksum would regroup its task
 * with others of its name, so the job leaves pass@k unknown instead (batch.ts).
 */
function lockDigest(files: Files, warnings: Finding[]): string | null {
  if (!files.has(LOCK)) return null;
  const bytes = files.optional(LOCK);
  const problems: Finding[] = [];
  const doc = bytes === null || bytes === "too large" ? undefined : decodeDocument(bytes, LOCK, problems);
  if (!isPlainObject(doc)) {
    const why =
      bytes === null
        ? "not a regular file"
        : bytes === "too large"
          ? `larger than assay reads (${MAX_DOCUMENT_BYTES} bytes)`
          : problems.length > 0
            ? `${problems[0]!.code}: ${problems[0]!.message}`
            : "not an object";
    warnings.push(
      finding("LOCK_UNREADABLE", LOCK, null, `${why}: the task's digest is unknown, so pass@k cannot place this trial`),
    );
    return null;
  }
  const task = doc["task"];
  const digest = isPlainObject(task) ? task["digest"] : undefined;
  return typeof digest === "string" && LOCK_DIGEST.test(digest) ? digest : null;
}

/** Where a verifier leaves its reward file: the trial's verifier/, or a step's. */
const REWARD_FILE = /^(?:steps\/[^/]+\/)?verifier\/reward\.(?:txt|json)$/;

/**
 * Issue 35: result.json absent or cut, but a reward file shows the verifier ran. The reward cannot
 * be checked against result.json, so the trial is not left out as incomplete (deleting or cutting
 * a failing trial's result.json would raise the mean): REWARD_WITHOUT_RESULT, and the job counts it 0.
 */
function rewardWithoutResult(src: BundleSource, warnings: Finding[]): void {
  const files = src.entries.map((e) => e.path).filter((p) => REWARD_FILE.test(p));
  if (files.length === 0) return; // killed before its verifier: incomplete, as ever
  warnings.push(
    finding(
      "REWARD_WITHOUT_RESULT",
      files[0]!,
      null,
      `result.json is absent or cut, but the verifier ran (it left ${files.join(", ")}): its reward cannot be checked against result.json, so the trial counts 0`,
    ),
  );
}

/** The trial's config.json as an object; null when absent, too large or not parsed (not a check: it only names things). */
function readConfig(folder: EvidenceFolder, readDoc: (p: string) => Uint8Array | null): Record<string, unknown> | null {
  const e = folder.regular(CONFIG);
  const bytes = e === null || e.size > MAX_DOCUMENT_BYTES ? null : readDoc(CONFIG);
  const doc = bytes === null ? undefined : decodeDocument(bytes, CONFIG, []);
  return isPlainObject(doc) ? doc : null;
}

/**
 * Where the task lay, as config.json names it (`task.path`), for a trial whose result.json names
 * nothing: Harbor writes that path verbatim as result.json's `task_id.path`, so the job-level rules
 * place the trial among its job's trials that record it (its task_name may differ from the
 * folder's name: `harbor/hello-world`, `local-lab/event-summary`).
 */
function configTaskPath(config: Record<string, unknown> | null): string | null {
  const task = config?.["task"];
  const path = isPlainObject(task) ? task["path"] : undefined;
  return typeof path === "string" && path !== "" ? path : null;
}

/** result.json → the view, or null when there is none to read (absent, too large, killed writer). */
function readResult(bytes: Uint8Array | null, errors: Finding[], warnings: Finding[]): TrialView | null {
  if (bytes === null) return null;
  const truncated = (why: string) => {
    warnings.push(
      finding(
        "RESULT_TRUNCATED",
        RESULT,
        null,
        `${why}: a writer killed mid-write (Harbor writes result.json in place); not evidence, the trial is incomplete`,
      ),
    );
    return null;
  };
  if (bytes.length === 0) return truncated("result.json is empty");
  const bad = encodingProblem(bytes);
  if (bad === "invalid UTF-8" && cutMidCharacter(bytes)) return truncated("result.json ends inside a UTF-8 character");
  if (bad !== null) {
    errors.push(finding("ENCODING", RESULT, null, bad));
    return null;
  }
  const r = parseStrictJsonNoting(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
    " \n",
  );
  if (!r.ok) {
    // Only a file that ends where a value was still being read is a killed writer's; any other
    // syntax error is corrupt evidence (an error), never a way to drop a trial from the mean.
    if (r.issue.code === "JSON_SYNTAX" && r.issue.endOfInput)
      return truncated(`result.json ends mid-document (${r.issue.message})`);
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

/** The reward files of a trial folder, as Harbor would have read them. */
class Files {
  constructor(
    private readonly folder: EvidenceFolder,
    private readonly readDoc: (p: string) => Uint8Array | null,
    private readonly errors: Finding[],
    readonly warnings: Finding[],
    readonly flags: ReviewFlag[],
    readonly details: NonNullable<BundleEntry["reward_details"]>,
  ) {}

  has(p: string): boolean {
    return this.folder.has(p);
  }

  /** An optional document's bytes: null when absent or not a regular file, "too large" past what assay reads (no finding: the caller says). */
  optional(p: string): Uint8Array | null | "too large" {
    const e = this.folder.regular(p);
    return e === null ? null : e.size > MAX_DOCUMENT_BYTES ? "too large" : this.readDoc(p);
  }

  /** A reward file's reading; one assay may not read (a link, a folder, too large) cannot back a claim. */
  read(p: string): RewardRead {
    if (this.folder.regular(p) === null) return { unreadable: "it is not a regular file assay may read" };
    const bytes = this.readDoc(p);
    return bytes === null ? null : readRewardFile(p, bytes, this.errors, this.warnings);
  }
}

const show = (m: RewardMap | null) => (m === null ? "none" : JSON.stringify(m));

/**
 * The rewards result.json claims, against what backs them (§11): the reward file Harbor read, at
 * the trial root (single-step) or in each step's folder with the top level one of Harbor's two
 * aggregations (multi-step); nothing for a custom or disabled verifier. Returns reward_source.
 */
function checkRewards(view: TrialView, files: Files, errors: Finding[], warnings: Finding[]): string | null {
  const top = view.rewards;
  if (view.verifier !== "standard") {
    if (top === null && view.steps.every((s) => s.rewards === null)) return null;
    const why =
      view.verifier === "custom"
        ? "config.verifier.import_path names a custom verifier, which writes no reward file"
        : "config.verifier.disable: no verifier ran";
    warnings.push(
      finding("REWARD_UNVERIFIED", RESULT, null, `${why}; the rewards in result.json cannot be checked against one`),
    );
    return top === null ? null : UNVERIFIED_SOURCE;
  }
  const mismatch = (message: string) => errors.push(finding("REWARD_MISMATCH", RESULT, null, message));
  if (view.steps.length === 0)
    return top === null ? null : backedBy(top, "verifier_result.rewards", "verifier/", files, errors);

  // Multi-step: Harbor moved each step's verifier output to steps/<name>/verifier/ (and removed
  // the root verifier/), and set the top level from the steps.
  for (const s of view.steps) {
    if (s.rewards === null) continue;
    const field = `step_results[${s.index}].verifier_result.rewards`;
    if (s.name !== null && SEGMENT.test(s.name)) backedBy(s.rewards, field, `steps/${s.name}/verifier/`, files, errors);
    else
      errors.push(
        finding(
          "REWARD_FILE_MISSING",
          RESULT,
          null,
          `${field} holds rewards but its step_name cannot name a folder under steps/, so no reward file backs them`,
        ),
      );
  }
  const { mean, final } = aggregations(view);
  if (sameRewards(top, mean)) return top === null ? null : "steps:mean";
  if (sameRewards(top, final)) return top === null ? null : "steps:final";
  mismatch(
    `verifier_result.rewards is ${show(top)} but the steps give ${show(mean)} (steps:mean) and ${show(final)} (steps:final)`,
  );
  return "result.json (neither steps:mean nor steps:final)";
}

/**
 * Harbor's two aggregations of the steps' rewards: per key, the mean over the steps that have a
 * verifier result, a key missing in a step counting 0 (summed in step order, then divided, as
 * Harbor does); or the last step's rewards verbatim.
 */
function aggregations(view: TrialView): { mean: RewardMap | null; final: RewardMap | null } {
  const scored = view.steps.filter((s) => s.rewards !== null).map((s) => s.rewards!);
  let mean: RewardMap | null = null;
  if (scored.length > 0) {
    mean = {};
    for (const k of new Set(scored.flatMap((r) => Object.keys(r)))) {
      let sum: number | null = 0;
      for (const r of scored) {
        const v = Object.hasOwn(r, k) ? r[k]! : 0;
        sum = v === null || sum === null ? null : sum + v; // a non-finite reward (reported) leaves the key uncompared
      }
      mean[k] = sum === null ? null : sum / scored.length;
    }
  }
  return { mean, final: view.steps.at(-1)!.rewards };
}

/**
 * Rewards claimed at `field` against the reward file Harbor read in `dir`: reward.json or
 * reward.txt (which one Harbor read first depends on its version: when both exist, either may
 * agree, and the source says which). Returns reward_source.
 */
function backedBy(claimed: RewardMap, field: string, dir: string, files: Files, errors: Finding[]): string {
  const unbacked = "result.json (no reward file agrees)";
  const detailsFile = `${dir}${REWARD_DETAILS}`;
  const details = files.optional(detailsFile);
  if (details === "too large")
    files.warnings.push(
      finding(
        "REWARD_DETAILS_UNREADABLE",
        detailsFile,
        null,
        `larger than assay reads (${MAX_DOCUMENT_BYTES} bytes): not read (the reward stands as its reward file gives it)`,
      ),
    );
  else if (details !== null)
    readRewardDetails(detailsFile, details, claimed, files.details, files.flags, files.warnings);
  const present = [`${dir}reward.json`, `${dir}reward.txt`].filter((p) => files.has(p));
  if (present.length === 0) {
    errors.push(
      finding(
        "REWARD_FILE_MISSING",
        RESULT,
        null,
        `${field} holds rewards but ${dir}reward.json and ${dir}reward.txt are absent`,
      ),
    );
    return unbacked;
  }
  const reads = present.map((file) => ({ file, read: files.read(file) }));
  disagreement(reads, files.flags);
  const problems = reads.map(({ file, read }) =>
    read === null
      ? null // an error on the file itself, reported
      : "unreadable" in read
        ? [`${field} holds rewards but ${file} is unreadable: ${read.unreadable}`]
        : rewardDifferences(claimed, field, file, read.map),
  );
  const agreeing = reads.filter((_, i) => problems[i]?.length === 0).map((r) => r.file);
  if (agreeing.length === present.length) return agreeing[0]!;
  if (agreeing.length === 1)
    return onlyAgreeing(
      agreeing[0]!,
      present.find((p) => p !== agreeing[0])!,
    );
  for (const list of problems)
    for (const message of list ?? []) errors.push(finding("REWARD_MISMATCH", RESULT, null, message));
  return unbacked;
}

/**
 * Both reward files present, readable, and different: Harbor read one and silently ignored the
 * other (HB verifier.py:227-238; reward.json first from 0.7), so result.json cannot show it. A
 * flag with both values; which one Harbor read is the job's lock.json's to say (batch.ts).
 */
function disagreement(reads: { file: string; read: RewardRead }[], flags: ReviewFlag[]): void {
  const maps = reads.flatMap(({ file, read }) => (read !== null && "map" in read ? [{ file, map: read.map }] : []));
  if (maps.length < 2 || sameRewards(maps[0]!.map, maps[1]!.map)) return;
  flags.push({
    code: "REWARD_FILES_DISAGREE",
    evidence: shorten(maps.map((m) => `${m.file} says ${show(m.map)}`).join(", "), 500),
  });
}

/** §11: the trial's own exception (step null), else its first step's; the message's first line, redacted, at most 200 characters. */
function shownException(view: TrialView): BundleEntry["exception"] {
  const shown = (x: ExceptionView, step: string | null) => {
    const line = redact(x.message.split(/\r\n|\r|\n/, 1)[0] ?? "");
    return { type: shorten(x.type, 200), message: line.length > 200 ? `${line.slice(0, 199)}…` : line, step };
  };
  if (view.exception !== null) return shown(view.exception, null);
  const s = view.steps.find((x) => x.exception !== null);
  return s === undefined ? null : shown(s.exception!, s.name ?? `step_results[${s.index}]`);
}

/** §11 states: never a silent 0 for a trial that was not scored. */
function stateOf(view: TrialView | null, exception: BundleEntry["exception"]): HarborState {
  if (view === null) return "incomplete";
  if (view.verifier === "disabled") return "unverified";
  if (view.rewards !== null) return exception !== null ? "scored-with-exception" : "scored";
  if (exception !== null) return exception.type === CANCELLED ? "cancelled" : "infrastructure-error";
  return "incomplete";
}
