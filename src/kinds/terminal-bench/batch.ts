// Terminal-Bench's batch rules (docs/terminal-bench.md rules 12–18), pure: a run's trial records and
// its own files' record (book.ts, kept in the document) → one experiment per run folder. The
// run-level verdict is run.ts's; here it becomes the experiment: the trials' states, `resolved` as
// a reward with assay's pass@k beside TB's claimed figures, the trials the run's rules make
// invalid, what is missing, and the run's warnings.
import { containerBatch, type JudgedContainer as Judged } from "../../core/batch/container-names.js";
import { finding, type Code, type Finding } from "../../core/codes.js";
import type { BatchOptions } from "../../core/batch/experiments.js";
import { keyMetrics, type Counted } from "../../core/batch/reward-metrics.js";
import type { BatchRecord } from "../../core/batch/record.js";
import { blankExperiment, type BundleEntry } from "../../core/results.js";
import { own, setOwn } from "../../core/schema.js";
import { byteCompare } from "../../core/text.js";
import { experimentUsage } from "../../core/usage.js";
import type { KindBatch } from "../kind.js";
import type { RunDocument } from "./book.js";
import { terminalBenchDeclaration } from "./declaration.js";
import { Packed, RUN_METADATA, TB_LOCK, type RunRecord } from "./record.js";
import { checkRun, trialNameOf, type TrialOnDisk } from "./run.js";
import { PANE, RESULTS, REWARD_KEY, TB_PROFILE } from "./trial.js";

/** What the kind's record part keeps for these rules: the trial's fields' fingerprints, or CUT_SHORT (its results.json is there, cut short or a link never read). */
export type TrialFields = Record<string, string> | typeof CUT_SHORT | null;
export const CUT_SHORT = "cut-short";
/** An entry's TrialFields: a results.json there but unread (cut short by a killed writer, a link) is said by its warning. */
const UNREAD = new Set(["RESULT_TRUNCATED", "TRIAL_SYMLINK", "PATH_TOO_DEEP"]);
export const trialFields = (e: Pick<BundleEntry, "terminal_bench" | "warnings">): TrialFields =>
  e.terminal_bench?.fields ?? (e.warnings.some((w) => UNREAD.has(w.code) && w.file === RESULTS) ? CUT_SHORT : null);

/** The run rules' hard findings (docs/terminal-bench.md rules 12, 15): a trial's make it invalid; the run's claim is a flag of the run. The rest are warnings. */
const HARD = new Set<Code>([
  "TRIAL_RUN_MISMATCH",
  "TRIAL_UNLISTED",
  "TRIAL_DUPLICATE",
  "TRIAL_UNCHECKED",
  "RUN_CLAIM_MISMATCH",
]);
/** A verdict re-derived from the trial's pane: evidence of its own, not the trial file's word. */
const rederived = (t: BatchRecord) => t.reward_source?.startsWith(PANE) === true;
const RUN = "(run)";
const HARNESS = "a harness exception: TB wrote no trial file and counts it unresolved";
const PLANNED = "planned by the run (tasks × attempts), not in its results list";

export function terminalBenchBatch(
  records: readonly BatchRecord[],
  runs: readonly RunDocument[],
  options: BatchOptions,
): KindBatch {
  const byPath = new Map(runs.map((r) => [r.path, r]));
  // The run folder's name; `#2`, `#3` for later runs of one name, in path order (never a name another folder has).
  return containerBatch(
    records,
    runs.map((r) => r.path),
    (path, first) => (path === "" ? null : (byPath.get(path)?.name ?? first?.experiment ?? path)),
    (name, path, members) => runExperiment(name, path, byPath.get(path) ?? null, members, options),
  );
}

/** coverage_reason when the files holding the run's plan could not be read. */
const PLAN_LOST = `plan unknown: ${RUN_METADATA} and ${TB_LOCK} give no readable plan (tasks × attempts, coverage's denominator) and one of them cannot be read; covered / trials counts only the trials present`;
const UNCHECKED =
  "the run's results.json cannot be read, and this trial's verdict is not re-derived from its pane: nothing checks its results.json, so it earns no credit";

/** The run's record as run.ts reads it. */
function runRecordOf(d: RunDocument | null): RunRecord {
  if (d === null)
    return {
      id: null,
      runId: null,
      version: null,
      listed: null,
      claims: null,
      metadata: null,
      plan: { trials: null, tasks: null, attempts: null, source: null },
      warnings: [],
    };
  const shapes = d.field_names.map(Packed.shape); // the schema holds every entry's shape to one of these
  return {
    id: d.id,
    runId: d.run_id,
    version: d.version,
    listed:
      d.listed?.map((l) => ({
        name: l.name,
        task: l.task,
        isResolved: l.is_resolved,
        failureMode: l.failure_mode,
        harness: l.harness,
        fields: Packed.fromShape(shapes[l.shape]!, l.fields),
      })) ?? null,
    claims: d.claims,
    metadata:
      d.metadata === null
        ? null
        : {
            accuracy: d.metadata.accuracy,
            pass_at_k: d.metadata.pass_at_k,
            endTime: d.metadata.end_time,
            resumedAt: d.metadata.resumed_at,
          },
    plan: d.plan,
    warnings: d.warnings as Finding[],
  };
}

/** A record's fields' fingerprints: its compact record's part, or (an entry given as its own record) its terminal_bench object. */
const fieldsOf = (r: BatchRecord): TrialFields =>
  r.own !== undefined ? (r.own as TrialFields) : trialFields(r as BundleEntry);

function runExperiment(
  name: string | null,
  path: string,
  run: RunDocument | null,
  records: readonly BatchRecord[],
  options: BatchOptions,
): Judged {
  const sorted = [...records].sort((a, b) => byteCompare(a.path, b.path));
  const below = (p: string) => (path !== "" && p.startsWith(`${path}/`) ? p.slice(path.length + 1) : p);
  const onDisk: TrialOnDisk[] = sorted.map((r) => {
    const fields = r.validity === "error" ? null : fieldsOf(r);
    return {
      trial: r.trial,
      task: r.task,
      pass: r.pass,
      state: r.state,
      path: below(r.path),
      fields: fields === CUT_SHORT ? null : fields,
      cutShort: fields === CUT_SHORT,
    };
  });
  // A task folder that could not be listed is a tool error of its own (a record directly below the run).
  const unreadTasks = new Set(
    onDisk.filter((t, i) => sorted[i]!.validity === "error" && !t.path.includes("/")).map((t) => t.path),
  );
  const verdict = checkRun(runRecordOf(run), onDisk, unreadTasks);
  const planned = verdict.plan.planned;
  // Every trial the run has, each once: its listed ones, and the folders the list lacks.
  const listedNames = new Set((run?.listed ?? []).flatMap((l) => (l.name === null ? [] : [l.name])));
  const present =
    verdict.plan.listed + onDisk.filter((t) => !unreadTasks.has(t.path) && !listedNames.has(trialNameOf(t))).length;
  const out = blankExperiment(name, TB_PROFILE, Math.max(planned ?? 0, present));
  out.job = run === null ? null : run.path;
  out.job_id = run?.run_id ?? run?.id ?? null;
  out.states = Object.fromEntries(terminalBenchDeclaration.states.map((s) => [s, 0]));
  out.exceptions = {};

  // The run's findings: a trial's own (its path below the run) make it invalid; the run's are warnings, or flags of the run.
  const byTrial = new Map<string, Finding[]>();
  const diskByPath = new Map(onDisk.map((t) => [t.path, t]));
  for (const f of verdict.findings) {
    const trial = f.file === null ? undefined : diskByPath.get(f.file);
    if (!HARD.has(f.code)) out.warnings.push(f);
    else if (trial !== undefined)
      (byTrial.get(trial.path) ?? byTrial.set(trial.path, []).get(trial.path)!).push(
        finding(f.code, RESULTS, null, f.message),
      );
    else out.flags.push({ code: f.code, trial: f.file ?? RUN, attempt: null, evidence: f.message });
  }

  // Listed harness exceptions: without a folder (counted here), or with one holding no trial file (its own record, excluded as one).
  const here = new Map(onDisk.map((t) => [trialNameOf(t), t]));
  let harnessAbsent = 0;
  const harnessHere = new Set<string>();
  for (const l of run?.listed ?? []) {
    if (l.name === null || !l.harness || (l.task !== null && unreadTasks.has(l.task))) continue;
    const t = here.get(l.name);
    if (t === undefined) harnessAbsent++;
    else if (t.fields === null) harnessHere.add(l.name);
  }

  // Rule 15a: a run whose list cannot be read checks no trial file against it (TRIAL_RUN_MISMATCH,
  // TRIAL_UNLISTED are off), so a verdict that only the trial's own results.json vouches for earns no credit.
  const listUnread = run !== null && !run.partial && run.listed === null;
  const counted: Counted[] = [];
  const errors = new Map<string, Finding[]>();
  sorted.forEach((t, i) => {
    const trial = t.trial ?? onDisk[i]!.path;
    if (t.validity === "error") return void out.unscored.push(trial);
    if (t.state !== null) out.states![t.state] = (out.states![t.state] ?? 0) + 1;
    if (t.exception !== null)
      setOwn(out.exceptions!, t.exception.type, (own(out.exceptions!, t.exception.type) ?? 0) + 1);
    for (const f of t.flags) out.flags.push({ code: f.code, trial, attempt: t.attempt, evidence: null });
    const added = [
      ...(byTrial.get(onDisk[i]!.path) ?? []),
      ...(listUnread && t.rewards !== null && !rederived(t)
        ? [finding("TRIAL_UNCHECKED", RESULTS, null, UNCHECKED)]
        : []),
    ];
    if (added.length > 0) errors.set(t.path, added);
    const codes = new Set<Code>([
      ...(t.validity === "invalid" ? t.errors.map((f) => f.code) : []),
      ...added.map((f) => f.code),
    ]);
    if (codes.size > 0) {
      out.invalid.push({ trial, codes: [...codes].sort(byteCompare) });
      if (options.invalid === "count") counted.push({ trial: t, rewards: "zero", covered: true, invalid: true });
    } else if (t.rewards !== null) counted.push({ trial: t, rewards: t.rewards, covered: true, invalid: false });
    else if (options.errors === "zero") counted.push({ trial: t, rewards: "zero", covered: false, invalid: false });
    else out.excluded.push({ trial, reason: harnessHere.has(trial) ? HARNESS : (t.state ?? "incomplete") });
  });
  const shown = verdict.harnessExceptions.names.filter((h) => !here.has(h));
  for (const h of shown) out.excluded.push({ trial: h, reason: HARNESS });
  if (harnessAbsent > shown.length)
    out.missing.push({ count: harnessAbsent - shown.length, reason: `more listed trials that are ${HARNESS}` });
  out.missing.push(...verdict.missing.names);
  if (verdict.missing.count > verdict.missing.names.length)
    out.missing.push({
      count: verdict.missing.count - verdict.missing.names.length,
      reason: "more listed trials without a trial folder (TRIAL_MISSING)",
    });
  const unlisted = planned === null ? 0 : Math.max(0, planned - present);
  if (unlisted > 0) out.missing.push({ count: unlisted, reason: PLANNED });

  // `resolved` over every trial of the run but tool errors, each once: those without a folder (harness exceptions, missing, planned) are in coverage's denominator too.
  const trials = sorted.length - out.unscored.length + harnessAbsent + verdict.missing.count + unlisted;
  // Issue 35: a plan lost with an unreadable file leaves coverage unknown, never trials present over trials present.
  const planLost =
    planned === null &&
    (run?.warnings ?? []).some(
      (w) => w.code === "RUN_FILE_UNREADABLE" && (w.file === RUN_METADATA || w.file === TB_LOCK),
    );
  if (trials > 0) out.rewards = { [REWARD_KEY]: keyMetrics(REWARD_KEY, counted, trials, planLost ? PLAN_LOST : null) };
  const claims = run?.claims ?? null;
  if (claims !== null) {
    const metrics: Record<string, number> = {};
    for (const f of verdict.figures) if (f.claimed !== null) metrics[f.metric] = f.claimed;
    out.claimed = {
      source: "results.json",
      metrics,
      compared: verdict.figures.flatMap((f) =>
        f.claimed === null
          ? []
          : [
              {
                metric: f.metric,
                claimed: f.claimed,
                assay: f.evidence,
                reason:
                  f.agrees === false || f.evidence === null || f.reason !== null
                    ? (f.reason ?? "the evidence cannot give TB's figure")
                    : null,
              },
            ],
      ),
    };
  }
  const successes = counted.filter((c) => !c.invalid && c.rewards !== "zero" && c.rewards[REWARD_KEY] === 1).length;
  out.usage = experimentUsage(
    sorted.map((t) => t.usage),
    counted.map((c) => c.trial.usage),
    successes,
  );
  return { experiment: out, errors };
}
