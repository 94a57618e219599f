import { lstatSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { BundleEntry } from "../../core/results.js";
import { forTerminal } from "../../core/text.js";
import { discover, displayRoot } from "../../io/discover.js";
import { placed } from "../../pipeline/score.js";
import { scoreDirectory } from "../../pool/score-directory.js";
import { renderEntry } from "../../report/findings.js";
import { usage } from "../args.js";
import { EXIT, exitForValidity, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

export const VERIFY_HELP = `assay verify DIR [--json]
  Validate one bundle, one Harbor trial, or every trial of a Harbor job (read in place), and print
  every finding; for Harbor, each trial's state, rewards and review flags with their evidence.
  Exit 0 valid, 1 invalid, 3 tool error.
`;

const present = (p: string) => lstatSync(p, { throwIfNoEntry: false }) !== undefined;

export function verifyCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = usage(() => parseArgs({ args: argv, allowPositionals: true, options: { json: { type: "boolean" } } }));
  if (positionals.length !== 1) throw new UsageError("assay verify takes exactly one directory: a bundle, a Harbor trial or a Harbor job");
  const dir = positionals[0]!;
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${forTerminal(dir)} is not a directory`);
  const shown = displayRoot(dir);
  let entries: BundleEntry[];
  const job = present(join(dir, "job.log"));
  // lstat: a journal.jsonl that is a (dangling) link still makes a bundle, judged UNSAFE_PATH as in score.
  if (present(join(dir, "journal.jsonl"))) entries = [scoreDirectory(dir, shown)];
  else {
    // A Harbor trial, or a job's trials: exactly what `assay score DIR` would find there.
    const skipped: string[] = []; // said once there is something to verify (a usage error stays one line)
    const trials = [...discover([dir], (p, why) => skipped.push(`assay: skipped ${forTerminal(p)}: ${why}\n`))].filter((f) => f.harbor !== undefined && (f.path === shown || job));
    if (trials.length === 0) throw new UsageError(`${forTerminal(dir)} is not a bundle (no journal.jsonl), a Harbor trial or a Harbor job`);
    for (const line of skipped) io.stderr(line);
    entries = trials.map((f) => {
      const { path: _p, ...scored } = scoreDirectory(f.dir, f.path, undefined, "harbor");
      return placed(f, scored);
    });
  }
  // --json: one entry for a bundle or a trial, an array for a job (however many trials it holds).
  io.stdout(values.json ? JSON.stringify(job ? entries : entries[0], null, 2) + "\n" : entries.map(renderEntry).join("\n"));
  return entries.reduce((worst, e) => Math.max(worst, exitForValidity(e.validity)), EXIT.OK as number);
}
