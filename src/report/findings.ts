// One bundle's findings as readable text (`assay verify`).
import type { BundleEntry } from "../core/results.js";
import { shownEntry } from "./shown.js";

const yn = (b: boolean | null) => (b === null ? "n/a" : b ? "yes" : "no");

/** The entry is shown (shown.ts) before a field of it is read. */
export function renderEntry(entry: BundleEntry): string {
  const e = shownEntry(entry);
  const lines: string[] = [];
  const who = [e.profile ?? "unknown profile", e.experiment && `experiment ${e.experiment}`, e.trial && `trial ${e.trial}`, e.attempt && `attempt ${e.attempt}`]
    .filter(Boolean)
    .join(", ");
  lines.push(`${e.path}: ${e.validity} (${who})`);
  lines.push(`  digest   ${e.digest || "n/a"}`);
  for (const [kind, fs] of [["error", e.errors], ["warning", e.warnings]] as const)
    for (const f of fs) lines.push(`  ${kind.padEnd(8)} ${f.code.padEnd(19)} ${f.file ?? ""}${f.line === null ? "" : `:${f.line}`}  ${f.message}`);
  if (e.profile === "harbor") {
    lines.push(`  state    ${e.state ?? "n/a"}   task ${e.task ?? "n/a"}`);
    lines.push(`  rewards  ${e.rewards === null ? "none" : Object.entries(e.rewards).map(([k, v]) => `${k}=${v}`).join(", ")}${e.reward_source ? `   (from ${e.reward_source})` : ""}`);
    for (const f of e.flags) lines.push(`  flag     ${f.code.padEnd(19)} ${f.evidence}`);
    if (e.flags.length > 0) lines.push("  (flags are for review: they change no state and no metric)");
  } else if (e.profile === "world") {
    lines.push(`  status   ${e.status ?? "n/a"}   pass ${yn(e.pass)}   (every hard dimension and task_completion)`);
    for (const [name, d] of Object.entries(e.dimensions ?? {}))
      lines.push(`  ${d.pass ? "pass" : "FAIL"}${d.hard ? "*" : " "}   ${name.padEnd(19)} ${d.detail}`);
    if (e.dimensions) lines.push("  (* hard: a failure here fails the run, whatever the report says)");
  } else lines.push(`  status   ${e.status ?? "n/a"}   ending ${yn(e.ending)}   victory ${yn(e.victory)}   late ${yn(e.late)}`);
  if (e.validity === "invalid")
    lines.push(
      `  invalid evidence earns no credit: ${e.profile === "world" ? "dimensions and pass are" : e.profile === "harbor" ? "its rewards count 0 in job metrics, as" : "victory and late are"} not reported`,
    );
  return lines.join("\n") + "\n";
}
