import { lstatSync, statSync } from "node:fs";
import { join } from "node:path";
import { SEAL } from "../../core/folder.js";
import type { BundleEntry, Experiment, JobRecord } from "../../core/results.js";
import { forTerminal } from "../../core/text.js";
import { discover, displayRoot, parentPath } from "../../io/discover.js";
import { Books } from "../../pipeline/books.js";
import { placed } from "../../pipeline/placed.js";
import { scoreDirectory, scoreFile } from "../../pool/score-directory.js";
import { DEFAULT_BATCH, judgedEntry } from "../../core/batch/experiments.js";
import { runBatch } from "../../kinds/batch.js";
import type { WholeFile } from "../../kinds/scorer.js";
import { renderContainer, renderEntry, renderJob } from "../../report/findings.js";
import { parseOptions } from "../args.js";
import { EXIT, exitForValidity, UsageError } from "../exit.js";
import { checkDataset } from "../dataset.js";
import type { CliIo } from "../io.js";
import { readKeyFile, type HmacKey } from "./seal.js";

/** What the seal line says of a bundle: checked with the key and matching or not, or not checked. */
function sealLine(entry: BundleEntry, dir: string, key: HmacKey | undefined): string | null {
  if (key === undefined)
    return present(join(dir, SEAL)) ? "seal.json not checked (give --hmac-key-file to check it)" : null;
  const matched = !entry.errors.some((f) => f.file === SEAL);
  return `checked with the key of fingerprint ${key.fingerprint}: ${matched ? "matches" : "does NOT match (see the findings on seal.json)"}`;
}

/** A container's experiment with something to say beyond its members' own lines (shown when only members were given). */
const says = (e: Experiment): boolean =>
  e.warnings.length + e.invalid.length + e.missing.length > 0 ||
  e.claimed !== null ||
  e.flags.some((f) => f.evidence !== null);

/** score's default bundle timeout (pool.ts DEFAULT_BUNDLE_TIMEOUT_MS), not imported: verify never loads the pool. */
export const VERIFY_TIMEOUT_S = 60;

const present = (p: string) => lstatSync(p, { throwIfNoEntry: false }) !== undefined;

export function verifyCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean" },
      "hmac-key-file": { type: "string" },
      "bundle-timeout": { type: "string" },
      dataset: { type: "string" },
    },
  });
  if (positionals.length !== 1)
    throw new UsageError(
      "assay verify takes exactly one directory (a bundle, a Harbor trial or a Harbor job) or one Inspect log",
    );
  const dir = positionals[0]!;
  const timeoutS = values["bundle-timeout"] === undefined ? VERIFY_TIMEOUT_S : Number(values["bundle-timeout"]);
  if (!(timeoutS > 0 && timeoutS <= 86_400))
    throw new UsageError("--bundle-timeout takes a number of seconds above 0 and at most 86400 (a day)");
  const st = statSync(dir, { throwIfNoEntry: false });
  if (st?.isFile())
    return verifyLog(dir, values.json === true, values["hmac-key-file"] !== undefined, timeoutS * 1000, io);
  if (!st?.isDirectory()) throw new UsageError(`${forTerminal(dir)} is not a directory or a file`);
  const key =
    values["hmac-key-file"] === undefined ? undefined : readKeyFile(values["hmac-key-file"], [dir], io.stderr);
  const dataset = values.dataset === undefined ? undefined : checkDataset(values.dataset).file;
  const shown = displayRoot(dir);
  let entries: BundleEntry[];
  let job: JobRecord | undefined;
  // lstat: a journal.jsonl that is a (dangling) link still makes a bundle, judged UNSAFE_PATH as in score.
  let seal: string | null = null;
  let runLines = "";
  /** A container of another kind: its trials are an array in --json, as a job's are. */
  let run = false;
  if (present(join(dir, "journal.jsonl"))) {
    entries = [scoreDirectory(dir, shown, undefined, "bundle", { hmacKey: key?.bytes })];
    seal = sealLine(entries[0]!, dir, key);
  } else {
    // A trial, or a container's trials (a Harbor job's, a run's): exactly what `assay score DIR` would find there.
    const skipped: string[] = []; // said once there is something to verify (a usage error stays one line)
    const book = new Books();
    const found = [
      ...discover([dir], (p, why) => skipped.push(`assay: skipped ${forTerminal(p)}: ${why}\n`), {
        onContainer: (c) => book.found(c),
        allowEmpty: true,
      }),
    ].filter((f) => {
      book.attach(f);
      // A trial, a container's members, or a group's (a Terminal-Bench task folder's trials).
      return (
        f.member !== undefined && (f.path === shown || f.member.containerPath === shown || parentPath(f.path) === shown)
      );
    });
    const books = book.document();
    job = books.jobs.find((j) => j.path === shown);
    // A container of another kind (a Terminal-Bench run) is verified as `score` reads it, even with no trial found in it.
    const documented = (path: string | undefined) =>
      Object.values(books.containers ?? {}).some((cs) =>
        (cs as readonly { path: string }[]).some((c) => c.path === path),
      );
    const container = job === undefined && documented(shown);
    // Members of one (given without it: a SWE-bench instance folder) are named as its rules name them, and what they say of its files is shown.
    const members = !container && found.length > 0 && found.every((f) => documented(f.member?.containerPath));
    if (found.length === 0 && job === undefined && !container)
      throw new UsageError(
        `${forTerminal(dir)} is not a bundle (no journal.jsonl), nor a trial, job or run that assay reads`,
      );
    for (const line of skipped) io.stderr(line);
    entries = found.map((f) => {
      const { path: _p, ...scored } = scoreDirectory(f.dir, f.path, undefined, f.kind, { dataset });
      return placed(f, scored);
    });
    if (container || members) {
      run = container;
      // Its rules judge its trials together: each entry as bundles[] gives it (under the experiment
      // its rules name: a SWE-bench model folder's is `<run_id>/<model>`), and the run's own findings.
      const batch = runBatch(entries, [], DEFAULT_BATCH, [], books.containers);
      entries = entries.map((e) => ({ ...judgedEntry(e, batch.errorsOf(e)), experiment: batch.nameOf(e) }));
      const names = new Set(entries.map((e) => e.experiment));
      runLines = batch
        .experiments()
        .filter((e) => (container && e.job === shown) || (e.experiment !== null && names.has(e.experiment) && says(e)))
        .map(renderContainer)
        .join("");
    }
    if (key !== undefined)
      io.stderr("assay verify: Harbor trials carry no seal: --hmac-key-file checks nothing here\n");
  }
  // --json: one entry for a bundle or a trial, an array for a job (however many trials it holds);
  // stdout stays that one document, so the seal line goes to stderr.
  if (values.json) {
    io.stdout(JSON.stringify(job || run ? entries : entries[0], null, 2) + "\n");
    if (seal !== null) io.stderr(`assay verify: ${seal}\n`);
  } else
    io.stdout(
      (job ? renderJob(job) : runLines) +
        entries.map(renderEntry).join("\n") +
        (seal === null ? "" : `  seal     ${seal}\n`),
    );
  return entries.reduce((worst, e) => Math.max(worst, exitForValidity(e.validity)), EXIT.OK as number);
}

/** `assay verify LOG`: one Inspect log (§12), every finding with its member or JSON path; a TIMEOUT past `timeoutMs`, as in score. */
function verifyLog(file: string, json: boolean, keyGiven: boolean, timeoutMs: number, io: CliIo): number {
  const [found] = [...discover([file])];
  const entry = scoreFile(found!.dir, found!.path, found!.kind, {
    part: "whole",
    format: found!.file!.format,
    timeoutMs,
  } satisfies WholeFile) as BundleEntry;
  if (keyGiven) io.stderr("assay verify: Inspect logs carry no seal: --hmac-key-file checks nothing here\n");
  io.stdout(json ? JSON.stringify(entry, null, 2) + "\n" : renderEntry(entry));
  return exitForValidity(entry.validity);
}
