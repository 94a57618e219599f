import { lstatSync, statSync } from "node:fs";
import { join } from "node:path";
import { displayRoot } from "../../io/discover.js";
import { scoreDirectory } from "../../pool/score-directory.js";
import { renderEntry } from "../../report/findings.js";
import { parseArgs } from "node:util";
import { usage } from "../args.js";
import { exitForValidity, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

export const VERIFY_HELP = `assay verify BUNDLE [--json]
  Validate one bundle and print every finding. Exit 0 valid, 1 invalid, 3 tool error.
`;

export function verifyCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = usage(() => parseArgs({ args: argv, allowPositionals: true, options: { json: { type: "boolean" } } }));
  if (positionals.length !== 1) throw new UsageError("assay verify takes exactly one BUNDLE directory");
  const dir = positionals[0]!;
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${dir} is not a directory`);
  // lstat: a journal.jsonl that is a (dangling) link still makes a bundle, judged UNSAFE_PATH as in score.
  if (lstatSync(join(dir, "journal.jsonl"), { throwIfNoEntry: false }) === undefined)
    throw new UsageError(`${dir} is not a bundle: it holds no journal.jsonl`);
  const entry = scoreDirectory(dir, displayRoot(dir));
  io.stdout(values.json ? JSON.stringify(entry, null, 2) + "\n" : renderEntry(entry));
  return exitForValidity(entry.validity);
}
