// The run-level rules of a `tb run` folder (docs/terminal-bench.md rules 12–18), pure: the run's
// record (record.ts) beside the trial folders' entries → a plain verdict: the claims against a
// recount of the run's own list and against the evidence, listed trials without a file, trial
// files the list lacks, each trial file against its list entry field for field, the plan,
// completeness and the trial names.

import { finding, type Code, type Finding } from "../../core/codes.js";
import { MAX_JOB_LIST } from "../../core/results.js";
import { own } from "../../core/schema.js";
import { close, countsOf, FORMULA, passAtK, type Verdict } from "./figures.js";
import { parseTrialName } from "./recognise.js";
import { RUN_METADATA, RUN_RESULTS, type ClaimedPassAtK, type ListedTrial, type RunRecord } from "./record.js";
import { plural } from "../../core/text.js";

/** A trial folder of the run, as its entry says: `path` is `<task folder>/<trial folder>` below the run. */
export interface TrialOnDisk {
  trial: string | null;
  task: string | null;
  pass: boolean | null;
  state: string | null;
  path: string;
  /** The entry's terminal_bench.fields (null: no readable results.json). */
  fields: Record<string, string> | null;
  /** Its results.json is there, unread: cut short (a killed writer, or a file cut after TB listed the trial), or a link. */
  cutShort?: boolean;
}

export interface Figure {
  metric: string;
  claimed: number | null;
  /** The figure recounted over the run's own results list. */
  listed: number | null;
  /** The figure recounted over the evidence: each trial's verdict from its folder (null when the evidence cannot give it). */
  evidence: number | null;
  /** claimed = listed (within the tolerance); null when either is missing. */
  agrees: boolean | null;
  reason: string | null;
}

export interface RunVerdict {
  runId: string | null;
  version: string | null;
  /** run_metadata.json end_time is set (null: no run_metadata.json). */
  finalised: boolean | null;
  /** The list holds every planned trial (null: no plan). */
  complete: boolean | null;
  /** The figures can be compared as final: finalised or without run_metadata.json, and complete or without a plan. */
  final: boolean;
  plan: { planned: number | null; source: string | null; listed: number; folders: number };
  figures: Figure[];
  /**
   * Listed trials without a trial file: TB's harness exceptions (expected, with or without a folder), and the others
   * without a folder (TRIAL_MISSING; one whose folder holds no readable file is that folder's entry's to say). First MAX_JOB_LIST each, and how many.
   */
  harnessExceptions: { names: string[]; count: number };
  missing: { names: string[]; count: number };
  unlisted: { names: string[]; count: number };
  /** Every rule broken: errors (a code without "warning" in its description) and warnings; `file` names the trial's path or the run's file. */
  findings: Finding[];
  formula: string;
}

const capped = (names: string[]) => ({ names: names.slice(0, MAX_JOB_LIST), count: names.length });
const some = (names: readonly string[]) =>
  names.slice(0, 3).join(", ") + (names.length > 3 ? ` and ${names.length - 3} more` : "");
const lastSegment = (p: string) => p.slice(p.lastIndexOf("/") + 1);
/** The name a trial on disk goes by: its results.json's trial_name, else its folder's. */
export const trialNameOf = (t: Pick<TrialOnDisk, "trial" | "path">): string => t.trial ?? lastSegment(t.path);
const firstSegment = (p: string) => p.slice(0, p.indexOf("/") === -1 ? p.length : p.indexOf("/"));

/**
 * `unreadTasks`: task folders that could not be listed (tool errors): their listed trials are
 * there, unread — neither missing nor harness exceptions, as a trial folder that cannot be read.
 */
export function checkRun(
  run: RunRecord,
  trials: readonly TrialOnDisk[],
  unreadTasks: ReadonlySet<string> = new Set(),
): RunVerdict {
  const findings: Finding[] = [...run.warnings];
  const add = (code: Code, file: string | null, message: string) => findings.push(finding(code, file, null, message));
  const listed = run.listed ?? [];
  const onDisk = new Map<string, TrialOnDisk>();
  const byId = new Map<string, TrialOnDisk>();
  for (const t of trials) {
    const name = trialNameOf(t);
    const other = onDisk.get(name);
    // A copied trial folder: both are named; the first (by the caller's order) is the one compared.
    if (other !== undefined) add("TRIAL_DUPLICATE", t.path, `claims trial_name ${name}, as ${other.path} does`);
    else onDisk.set(name, t);
    // A copy renamed keeps TB's per-trial uuid: caught with no list to hold it to (rule 15a).
    const id = t.fields?.["id"] ?? t.fields?.["uuid"];
    const twin = id === undefined ? undefined : byId.get(id);
    if (twin !== undefined && other === undefined)
      add("TRIAL_DUPLICATE", t.path, `has the id of ${twin.path}: TB gives each trial its own, so one is a copy`);
    else if (id !== undefined && twin === undefined) byId.set(id, t);
  }

  // Rules 14–15: listed ↔ on disk, and each pair field for field.
  const harness: string[] = [];
  const missing: string[] = [];
  /** Listed, with a folder but no readable trial file (its own entry says why: incomplete, or a tool error): no verdict, yet nothing lost. */
  let unread = 0;
  const listedNames = new Set<string>();
  for (const l of listed) {
    if (l.name === null) continue;
    listedNames.add(l.name);
    const t = onDisk.get(l.name);
    // Rule 14a: TB lists a trial once its file is written; a listed trial's file cut short hides what the list says of it.
    if (t?.cutShort === true && !l.harness)
      add(
        "TRIAL_UNCHECKED",
        t.path,
        "its results.json is cut short or a link, yet the run lists it (TB lists a trial once its file is written): nothing checks the list's entry, so it earns no credit",
      );
    if (t === undefined || t.fields === null) {
      if (t === undefined && l.task !== null && unreadTasks.has(l.task)) unread++;
      else if (l.harness) harness.push(l.name);
      else if (t === undefined) missing.push(l.name);
      else unread++;
      continue;
    }
    const mine = l.fields.unpack();
    const differ = [...new Set([...Object.keys(mine), ...Object.keys(t.fields)])]
      .filter((k) => own(mine, k) !== own(t.fields!, k))
      .sort();
    if (differ.length > 0)
      add("TRIAL_RUN_MISMATCH", t.path, `the trial's results.json and the run's entry differ in ${some(differ)}`);
  }
  if (missing.length > 0)
    add(
      "TRIAL_MISSING",
      RUN_RESULTS,
      `${plural(missing.length, "listed trial")} ${missing.length === 1 ? "has" : "have"} no trial folder and ${missing.length === 1 ? "is" : "are"} not a harness exception: ${some(missing)} (evidence lost, or left out of the archive${renamedNote(run, listed, missing)})`,
    );
  const unlisted =
    run.listed === null
      ? []
      : [...onDisk.entries()]
          .filter(([name, t]) => (t.fields !== null || t.cutShort === true) && !listedNames.has(name))
          .map(([name]) => name);
  for (const name of unlisted.slice(0, MAX_JOB_LIST))
    add(
      "TRIAL_UNLISTED",
      onDisk.get(name)!.path,
      `${name} has a results.json, but the run's results.json does not list it`,
    );

  // Rules 12–13: the claims against a recount of the list, and the list against the evidence.
  const figures =
    run.listed === null || run.claims === null
      ? []
      : compareFigures(run, listed, onDisk, unlisted, missing.length + unread);
  const wrong = figures.filter((f) => f.agrees === false);
  if (wrong.length > 0)
    add(
      "RUN_CLAIM_MISMATCH",
      RUN_RESULTS,
      `${wrong.map((f) => `${f.metric} claimed ${f.claimed} but its results list gives ${f.listed}`).join("; ")}`,
    );
  if (run.claims !== null && run.listed !== null) idsCheck(run, listed, add);

  // Rule 17: run_metadata.json's copies.
  const finalised = run.metadata === null ? null : run.metadata.endTime !== null;
  if (run.metadata !== null && run.claims !== null) {
    const m = run.metadata;
    if (m.accuracy !== null && run.claims.accuracy !== null && !close(m.accuracy, run.claims.accuracy))
      add(
        "RUN_METADATA_MISMATCH",
        RUN_METADATA,
        `accuracy ${m.accuracy}, but results.json says ${run.claims.accuracy}`,
      );
    if (m.pass_at_k !== null && run.claims.pass_at_k !== null && !samePassAtK(m.pass_at_k, run.claims.pass_at_k))
      add(
        "RUN_METADATA_MISMATCH",
        RUN_METADATA,
        `pass_at_k ${JSON.stringify(m.pass_at_k)}, but results.json says ${JSON.stringify(run.claims.pass_at_k)}`,
      );
  }

  // Rules 16–17: plan, completeness, finalisation.
  const planned = run.plan.trials;
  const complete = planned === null || run.listed === null ? null : listed.length >= planned;
  if (finalised === false)
    add(
      "RUN_NOT_FINAL",
      RUN_METADATA,
      `end_time is null: the run is in progress, was killed, or was finished by \`tb runs resume\`${run.metadata!.accuracy === null ? "; its null accuracy and pass_at_k are not a mismatch" : ""}`,
    );
  if (complete === false)
    add(
      "RUN_NOT_FINAL",
      RUN_RESULTS,
      `lists ${listed.length} of ${planned} planned trials (${run.plan.source}): in progress or incomplete, not compared as final`,
    );
  if (planned !== null && listed.length > planned)
    add("RUN_PLAN_EXCEEDED", RUN_RESULTS, `lists ${listed.length} trials; the plan is ${planned} (${run.plan.source})`);
  namesCheck(run, listed, listedNames, trials, add);

  return {
    runId: run.runId,
    version: run.version,
    finalised,
    complete,
    final: finalised !== false && complete !== false,
    plan: { planned, source: run.plan.source, listed: listed.length, folders: trials.length },
    figures,
    harnessExceptions: capped(harness),
    missing: capped(missing),
    unlisted: capped(unlisted),
    findings,
    formula: FORMULA,
  };
}

/** Rule 14b: the folders not named as trials in the missing trials' task folders (the book's TRIAL_FOLDER_UNNAMED), where a renamed trial would be. */
function renamedNote(run: RunRecord, listed: readonly ListedTrial[], missing: readonly string[]): string {
  const names = new Set(missing);
  const tasks = new Set(
    listed.flatMap((l) => (l.name !== null && l.task !== null && names.has(l.name) ? [l.task] : [])),
  );
  const folders = run.warnings.flatMap((w) =>
    w.code === "TRIAL_FOLDER_UNNAMED" && w.file !== null && tasks.has(firstSegment(w.file)) ? [w.file] : [],
  );
  return folders.length === 0
    ? ""
    : `; ${some(folders)}, in ${folders.length === 1 ? "its" : "their"} task folder, ${folders.length === 1 ? "is" : "are"} not named as a trial: renamed?`;
}

function samePassAtK(a: ClaimedPassAtK, b: ClaimedPassAtK): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return (
    ka.length === kb.length &&
    ka.every((k, i) => k === kb[i] && (a[k] === null || b[k] === null ? a[k] === b[k] : close(a[k]!, b[k]!)))
  );
}

/** Each claimed figure beside the list's recount and the evidence's. */
function compareFigures(
  run: RunRecord,
  listed: readonly ListedTrial[],
  onDisk: ReadonlyMap<string, TrialOnDisk>,
  unlisted: readonly string[],
  missing: number,
): Figure[] {
  const c = run.claims!;
  const asListed: Verdict[] = listed.map((l) => ({ task: l.task ?? "", resolved: l.isResolved === true }));
  // The evidence: each listed trial's verdict from its folder (a harness exception: unresolved, as TB counts it), plus unlisted folders.
  const differs: string[] = [];
  const fromEvidence: Verdict[] = listed.map((l) => {
    const t = l.name === null ? undefined : onDisk.get(l.name);
    if (t === undefined || t.fields === null) return { task: l.task ?? "", resolved: false };
    if ((t.pass === true) !== (l.isResolved === true)) differs.push(l.name!);
    return { task: l.task ?? "", resolved: t.pass === true };
  });
  for (const name of unlisted)
    fromEvidence.push({ task: onDisk.get(name)!.task ?? "", resolved: onDisk.get(name)!.pass === true });
  const evidenceOk = missing === 0;
  const why: string[] = [];
  if (!evidenceOk)
    why.push(`${plural(missing, "listed trial")} without a trial file: the evidence cannot give TB's figure`);
  if (differs.length > 0) why.push(`the evidence gives another verdict than the list for ${some(differs)}`);
  if (unlisted.length > 0)
    why.push(
      `${plural(unlisted.length, "trial folder")} the list lacks ${unlisted.length === 1 ? "is" : "are"} counted`,
    );

  const L = countsOf(asListed);
  const E = countsOf(fromEvidence);
  const figure = (metric: string, claimed: number | null, l: number | null, e: number | null): Figure => {
    const agrees = claimed === null || l === null ? null : close(claimed, l);
    const evidence = evidenceOk ? e : null;
    const reasons = [
      ...(agrees === false ? ["the claim does not follow from the run's own results list"] : []),
      ...(evidence === null || l === null || !close(evidence, l) ? why : []),
      ...(claimed === null && run.metadata?.endTime === null ? ["not claimed: the run was never finalised"] : []),
    ];
    return { metric, claimed, listed: l, evidence, agrees, reason: reasons.length === 0 ? null : reasons.join("; ") };
  };
  const out = [
    figure("accuracy", c.accuracy, L.accuracy, E.accuracy),
    figure("n_resolved", c.n_resolved, L.n_resolved, E.n_resolved),
    figure("n_unresolved", c.n_unresolved, L.n_unresolved, E.n_unresolved),
  ];
  const pl = passAtK(asListed);
  const pe = passAtK(fromEvidence);
  const ks = new Set([...Object.keys(c.pass_at_k ?? {}), ...[...pl.keys()].map(String)]);
  for (const k of [...ks].sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : 1))) {
    const claimed = c.pass_at_k === null ? null : Object.hasOwn(c.pass_at_k, k) ? (c.pass_at_k[k] ?? null) : null;
    const f = figure(`pass_at_k/${k}`, claimed, pl.get(Number(k)) ?? null, pe.get(Number(k)) ?? null);
    // A key on one side only: TB's k set differs (a fork's formula), or the claim was not made.
    if (c.pass_at_k !== null && (!Object.hasOwn(c.pass_at_k, k) || !pl.has(Number(k)))) {
      f.agrees = false;
      f.reason = Object.hasOwn(c.pass_at_k, k)
        ? "a k TB's upstream formula does not produce for this list (a fork's formula?)"
        : "a k TB's formula produces for this list, not claimed";
    }
    out.push(f);
  }
  return out;
}

/** resolved_ids / unresolved_ids as multisets of task_id, against the list. */
function idsCheck(
  run: RunRecord,
  listed: readonly ListedTrial[],
  add: (code: Code, file: string | null, message: string) => void,
): void {
  const L = countsOf(listed.map((l) => ({ task: l.task ?? "", resolved: l.isResolved === true })));
  for (const [key, want] of [
    ["resolved_ids", L.resolved_ids],
    ["unresolved_ids", L.unresolved_ids],
  ] as const) {
    const ids = run.claims![key];
    if (ids === null) continue;
    const got = new Map<string, number>();
    for (const id of ids) got.set(id, (got.get(id) ?? 0) + 1);
    const off = [...new Set([...got.keys(), ...want.keys()])].filter((id) => got.get(id) !== want.get(id));
    if (off.length > 0)
      add(
        "RUN_CLAIM_MISMATCH",
        RUN_RESULTS,
        `${key} differs from the results list for ${some(off.map((id) => `${id} (${got.get(id) ?? 0} claimed, ${want.get(id) ?? 0} listed)`))}`,
      );
  }
}

/** Rule 16 and TB's own RunLock check: `<task>.<k>-of-<n>[.<run_id>]`, the task folder, n_attempts, run_id, attempts 1..k. */
function namesCheck(
  run: RunRecord,
  listed: readonly ListedTrial[],
  listedNames: ReadonlySet<string>,
  trials: readonly TrialOnDisk[],
  add: (code: Code, file: string | null, message: string) => void,
): void {
  // The first three problems are shown, the rest counted: a run's size, not its findings, decides the message.
  const bad: string[] = [];
  let problems = 0;
  const say = (p: string) => (problems++ < 3 ? bad.push(p) : 0);
  const attempts = new Map<string, Set<number>>();
  const note = (name: string, task: string | null, why: string | null) => {
    const parsed = parseTrialName(name, task ?? undefined);
    const problem =
      why ??
      (parsed === null
        ? "not <task>.<k>-of-<n>[.<run_id>]"
        : run.plan.attempts !== null && parsed.of !== run.plan.attempts
          ? `of-${parsed.of}, but n_attempts is ${run.plan.attempts}`
          : parsed.runId !== null && run.runId !== null && parsed.runId !== run.runId
            ? `ends .${parsed.runId}, but the run_id is ${run.runId}`
            : parsed.attempt < 1 || parsed.attempt > parsed.of
              ? `attempt ${parsed.attempt} of ${parsed.of}`
              : null);
    if (problem !== null) say(`${name}: ${problem}`);
    if (parsed !== null && task !== null) attempts.set(task, (attempts.get(task) ?? new Set()).add(parsed.attempt));
  };
  for (const l of listed) if (l.name !== null) note(l.name, l.task, null);
  for (const t of trials) {
    if (!t.path.includes("/")) continue; // a task folder that could not be listed: a tool error, no trial name
    const folder = lastSegment(t.path);
    if (t.trial !== null && t.trial !== folder) say(`${t.path}: its results.json names ${t.trial}`);
    if (t.task !== null && firstSegment(t.path) !== t.task)
      say(`${t.path}: its results.json names task ${t.task}, not its task folder`);
    if (!listedNames.has(t.trial ?? folder)) note(t.trial ?? folder, t.task ?? firstSegment(t.path), null);
  }
  for (const [task, ks] of attempts) {
    let max = 0;
    for (const k of ks) max = Math.max(max, k);
    if (ks.size !== max)
      say(
        `${task}: attempts ${[...ks]
          .sort((a, b) => a - b)
          .slice(0, 10)
          .join(", ")}${ks.size > 10 ? ", …" : ""}, not 1..${max}`,
      );
  }
  if (problems > 0)
    add(
      "TRIAL_NAME_MISMATCH",
      null,
      `${plural(problems, "trial name problem")}: ${bad.join(", ")}${problems > 3 ? ` and ${problems - 3} more` : ""}`,
    );
}
