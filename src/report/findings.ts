// One bundle's findings as readable text (`assay verify`).
import type { BundleEntry, Experiment, JobRecord } from "../core/results.js";
import { forTerminal, terminalText } from "../core/text.js";
import { shownEntry } from "./shown.js";
import { wordsOf } from "./vocabulary.js";
import type { Sections } from "../kinds/words.js";

const yn = (b: boolean | null) => (b === null ? "n/a" : b ? "yes" : "no");

/** The entry is shown (shown.ts) before a field of it is read. */
export function renderEntry(entry: BundleEntry): string {
  const e = shownEntry(entry);
  const lines: string[] = [];
  const who = [
    e.profile ?? "unknown profile",
    e.experiment && `experiment ${e.experiment}`,
    e.trial && `trial ${e.trial}`,
    e.attempt && `attempt ${e.attempt}`,
  ]
    .filter(Boolean)
    .join(", ");
  lines.push(`${e.path}: ${e.validity} (${who})`);
  lines.push(`  digest   ${e.digest || "n/a"}`);
  for (const [kind, fs] of [
    ["error", e.errors],
    ["warning", e.warnings],
  ] as const)
    for (const f of fs)
      lines.push(
        `  ${kind.padEnd(8)} ${f.code.padEnd(19)} ${f.file ?? ""}${f.line === null ? "" : `:${f.line}`}  ${f.message}`,
      );
  ENTRY_LINES[wordsOf(e.profile).sections](e, lines);
  if (e.validity === "invalid") lines.push(`  invalid evidence earns no credit: ${wordsOf(e.profile).invalidMeans}`);
  return lines.join("\n") + "\n";
}

function harborLines(e: BundleEntry, lines: string[]): void {
  lines.push(`  state    ${e.state ?? "n/a"}   task ${e.task ?? "n/a"}`);
  lines.push(
    `  rewards  ${
      e.rewards === null
        ? "none"
        : Object.entries(e.rewards)
            .map(([k, v]) => `${k}=${v}`)
            .join(", ")
    }${e.reward_source ? `   (from ${e.reward_source})` : ""}`,
  );
  if (e.exception !== null)
    lines.push(
      `  exception ${e.exception.type}${e.exception.step === null ? "" : ` in step ${e.exception.step}`}${e.exception.message === "" ? "" : `: ${e.exception.message}`}`,
    );
  // Whose claim it is differs by kind: a Harbor job's summary, a Terminal-Bench trial's or a SWE-bench instance's own file.
  const claim = wordsOf(e.profile).claim;
  if (e.claimed !== null && claim !== undefined)
    lines.push(
      `  ${claim.says} ${
        e.claimed.rewards === null
          ? claim.none
          : Object.entries(e.claimed.rewards)
              .map(([k, v]) => `${k}=${v}`)
              .join(", ")
      }${e.claimed.exception === null ? "" : `, ${e.claimed.exception}`}   (${claim.from})`,
    );
  for (const d of e.reward_details?.rewards ?? [])
    lines.push(
      `  details  ${d.name}: score ${d.score ?? "n/a"}${d.kind === null ? "" : ` (${d.kind})`}, ${d.criteria} criteria, ${d.errors} errors, ${d.warnings} warnings   (${d.file}, Rewardkit's; never the reward)`,
    );
  if ((e.reward_details?.more ?? 0) > 0) lines.push(`  details  and ${e.reward_details!.more} more`);
  for (const f of e.flags) lines.push(`  flag     ${f.code.padEnd(19)} ${f.evidence}`);
  if (e.flags.length > 0) lines.push("  (flags are for review: they change no state and no metric)");
  const a = e.harbor_analysis;
  if (a !== null) {
    // Beside assay's flags, never among them: a model's reading, outside the evidence and its digest.
    lines.push(
      `  Harbor analyze says (${a.file}; not evidence, not in the digest)${a.unreadable === null ? "" : `: unreadable, ${a.unreadable}`}`,
    );
    if (a.summary !== null) lines.push(`    ${a.summary}`);
    for (const c of a.checks)
      lines.push(`    ${c.name}: ${c.outcome}${c.explanation === "" ? "" : `   ${c.explanation}`}`);
    if (a.more > 0) lines.push(`    and ${a.more} more checks`);
  }
}

function worldLines(e: BundleEntry, lines: string[]): void {
  lines.push(`  status   ${e.status ?? "n/a"}   pass ${yn(e.pass)}   (every hard dimension and task_completion)`);
  for (const [name, d] of Object.entries(e.dimensions ?? {}))
    lines.push(`  ${d.pass ? "pass" : "FAIL"}${d.hard ? "*" : " "}   ${name.padEnd(19)} ${d.detail}`);
  if (e.dimensions) lines.push("  (* hard: a failure here fails the run, whatever the report says)");
}

const nativeLines = (e: BundleEntry, lines: string[]): void =>
  void lines.push(
    `  status   ${e.status ?? "n/a"}   ending ${yn(e.ending)}   victory ${yn(e.victory)}   late ${yn(e.late)}`,
  );

const fig = (x: number | string | null) =>
  x === null ? "n/a" : typeof x === "string" ? x : String(Number(x.toFixed(6)));

/** An Inspect log (§12): status, plan, each state's count, each metric claimed and recomputed, the review flags. */
function inspectLines(e: BundleEntry, lines: string[]): void {
  const x = e.inspect;
  lines.push(
    `  status   ${e.status ?? "n/a"}, ${e.state ?? "n/a"}   task ${e.task ?? "n/a"}${x === null ? "" : `   task_id ${x.task_id ?? "n/a"}, run_id ${x.run_id ?? "n/a"}, Inspect ${x.inspect_version ?? "version unknown"}, log format ${x.log_version ?? "n/a"}`}`,
  );
  if (x !== null) {
    const p = x.plan;
    lines.push(
      `  plan     ${p.records} records: ${p.source === "sample_ids" ? `${p.ids} sample ids × ${p.epochs} epoch${p.epochs === 1 ? "" : "s"}` : `the ${p.ids} samples present (the log records no sample ids)`}${x.total_samples === null ? "" : `; results.total_samples says ${x.total_samples}`}`,
    );
  }
  if (e.samples !== null)
    lines.push(
      `  samples  ${
        Object.entries(e.samples)
          .filter(([, n]) => n > 0)
          .map(([k, n]) => `${k} ${n}`)
          .join(" · ") || "none"
      }`,
    );
  for (const [key, m] of Object.entries(x?.metrics ?? {})) {
    const c = m.coverage;
    const ex =
      m.exclude.value === null
        ? "n/a"
        : `${fig(m.exclude.value)} over ${c.scored} scored record${c.scored === 1 ? "" : "s"}${m.refusals === undefined ? "" : ` (${m.refusals} of them the model's refusals, as 0)`}`;
    const zero =
      m.zero.value === null
        ? "n/a"
        : `${fig(m.zero.value)} over the ${c.planned} planned with --errors zero${m.grader_failed === undefined ? "" : ` but ${m.grader_failed} the grader failed on`}`;
    lines.push(
      `  metric   ${key}: claimed ${fig(m.claimed)} (${m.check}${m.note === null ? "" : `: ${m.note}`}); assay ${ex}; ${zero}`,
    );
  }
  for (const f of e.flags) lines.push(`  flag     ${f.code.padEnd(19)} ${f.evidence}`);
  if (e.flags.length > 0) lines.push("  (flags are for review: they change no state and no metric)");
}

/** Each kind's lines of an entry (a kind not listed: a native bundle's fields). */
const ENTRY_LINES: Record<Sections, (e: BundleEntry, lines: string[]) => void> = {
  rewards: harborLines,
  samples: inspectLines,
  dimensions: worldLines,
  victories: nativeLines,
};

/** A Harbor job's own line (`assay verify JOB`): its folder, its plan, and what is wrong with its own files. */
/** A container judged with its trials (a Terminal-Bench run): what its rules found beyond each trial's own findings. */
export function renderContainer(e: Experiment): string {
  const w = wordsOf(e.profile);
  const lines = [
    `${forTerminal(e.job ?? "")}: ${w.experiment} ${forTerminal(e.experiment ?? "")}, ${e.scheduled} ${e.scheduled === 1 ? w.scheduled : w.scheduledPlural}`,
  ];
  for (const i of e.invalid) lines.push(`  invalid  ${forTerminal(i.trial)}  ${i.codes.join(", ")}`);
  for (const m of e.missing)
    lines.push(`  missing  ${typeof m === "string" ? forTerminal(m) : `${m.count} ${terminalText(m.reason)}`}`);
  for (const w of e.warnings)
    lines.push(`  warning  ${w.code.padEnd(19)} ${forTerminal(w.file ?? "")}  ${terminalText(w.message)}`);
  for (const f of e.flags)
    lines.push(
      `  flag     ${f.code.padEnd(19)} ${forTerminal(f.trial)}  ${f.evidence === null ? "(its entry says why)" : terminalText(f.evidence)}`,
    );
  // The harness's own figures for the run (a SWE-bench final report's counts) beside assay's recount of them.
  if (e.claimed !== null) {
    const agree = e.claimed.compared.filter((c) => c.reason === null).length;
    lines.push(
      `  ${w.claims ?? "the harness says"} (${forTerminal(e.claimed.source)}): ${agree} of ${e.claimed.compared.length} figures as assay recounts them`,
    );
    for (const c of e.claimed.compared)
      if (c.reason !== null)
        lines.push(`  claim    ${c.metric} ${c.claimed}, assay ${c.assay ?? "n/a"}: ${terminalText(c.reason)}`);
  }
  return lines.join("\n") + "\n\n";
}

export function renderJob(j: JobRecord): string {
  const plan = j.plan === null ? "no plan (n_total_trials) read" : `${j.plan} planned (n_total_trials)`;
  const lines = [
    `${forTerminal(j.path)}: Harbor job${j.id === null ? "" : ` ${forTerminal(j.id)}`}, ${j.folders} trial folder${j.folders === 1 ? "" : "s"}, ${plan}`,
  ];
  if (j.plan !== null && j.plan > j.folders)
    lines.push(`  missing  ${j.plan - j.folders} planned by the job, absent from its folder`);
  if (j.plan !== null && j.plan < j.folders)
    lines.push(
      `  warning  ${"JOB_PLAN_EXCEEDED".padEnd(19)} result.json  the job planned ${j.plan} trials but its folder holds ${j.folders}`,
    );
  for (const w of j.warnings)
    lines.push(`  warning  ${w.code.padEnd(19)} ${forTerminal(w.file ?? "")}  ${terminalText(w.message)}`);
  return lines.join("\n") + "\n\n";
}
