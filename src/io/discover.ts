// Discovery (contract §1, §11): walk the roots, yield each bundle and each Harbor trial once.

import { isUtf8 } from "node:buffer";
import { lstatSync, readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { basename, dirname, join } from "node:path";
import { forTerminal } from "../core/text.js";

export interface Found {
  /** The bundle's (or trial's) directory on disk. */
  dir: string;
  /** Its path in results: the root as given, joined by '/' with the path below it. */
  path: string;
  /**
   * A Harbor trial: its job folder's name (null for a lone trial) and its own folder's name.
   * Both describe where the trial lies, so they are filled in after scoring and never stored.
   */
  harbor?: { job: string | null; folder: string };
}

/** The root as the user gave it, without trailing slashes (so joins read cleanly). */
export const displayRoot = (root: string): string => (root.length > 1 ? root.replace(/\/+$/, "") || "/" : root);

/** Called for a directory below a root that discovery had to pass over, and why. */
export type OnSkip = (path: string, reason: string) => void;
const LINK_SKIPPED = "a symbolic link: links below a root are never followed";

/**
 * Yields bundles in a stable order (roots in the order given, entries by name). A root given
 * as a symlink is followed; links below a root are not, and one to a folder is reported (a
 * linked bundle folder would otherwise vanish without a word). Directories are deduplicated by
 * device and inode, so overlapping roots never produce a bundle twice. A root that cannot be
 * read stops the run; a directory below it that cannot be read is skipped and reported.
 */
export function* discover(roots: readonly string[], onSkip: OnSkip = () => {}): Generator<Found> {
  const seen = new Set<string>();
  for (const root of roots) {
    const shown = displayRoot(root);
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      throw new DiscoveryError(`root ${forTerminal(root)} does not exist`);
    }
    if (!statSync(real).isDirectory()) throw new DiscoveryError(`root ${forTerminal(root)} is not a directory`);
    const entries = list(real);
    if (typeof entries === "string") throw new DiscoveryError(`cannot read root ${forTerminal(root)}: ${entries}`);
    // A trial given as a root still belongs to the job folder it lies in, and is one by the job's
    // rule (config.json alone), as it would be were the job the root.
    const parentIsJob = lstatSync(join(dirname(real), "job.log"), { throwIfNoEntry: false }) !== undefined;
    const trialOfJob = parentIsJob && has(entries, "config.json") && !has(entries, "journal.jsonl") && !has(entries, "job.log");
    if (trialOfJob && firstVisit(real, seen)) yield { dir: real, path: shown, harbor: { job: basename(dirname(real)), folder: basename(real) } };
    else if (!trialOfJob) yield* walk(real, shown, entries, seen, onSkip);
  }
}

/** The listing, or why it failed (Node's message without its trailing path: the caller names the folder, escaped). */
function list(dir: string): Dirent<Buffer>[] | string {
  try {
    return readdirSync(dir, { withFileTypes: true, encoding: "buffer" });
  } catch (e) {
    return (e as Error).message.replace(/, scandir '[\s\S]*$/, "");
  }
}

/** A symbolic link that resolves to a folder (a dangling one, or a loop, does not). */
function linksToFolder(path: Buffer): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

const has = (entries: Dirent<Buffer>[], name: string) => entries.some((e) => e.name.toString() === name);
/** §11: a Harbor trial outside a job holds config.json and trial.log or result.json. */
const isLoneTrial = (entries: Dirent<Buffer>[]) => has(entries, "config.json") && (has(entries, "trial.log") || has(entries, "result.json"));

function firstVisit(dir: string, seen: Set<string>): boolean {
  const st = statSync(dir, { bigint: true });
  const key = `${st.dev}:${st.ino}`;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}

/**
 * Subdirectories (never links), by name bytes; a name that is not UTF-8, and a link to a folder,
 * are reported and passed over. `listed` is the listing, or why it failed.
 */
function* subdirectories(dir: string, shown: string, entries: Dirent<Buffer>[], onSkip: OnSkip): Generator<{ sub: string; path: string; listed: Dirent<Buffer>[] | string }> {
  const dirs = entries.filter((e) => e.isDirectory() || e.isSymbolicLink()).sort((a, b) => Buffer.compare(a.name, b.name));
  for (const e of dirs) {
    const path = `${shown}/${e.name.toString("utf8")}`;
    if (e.isSymbolicLink()) {
      if (linksToFolder(Buffer.concat([Buffer.from(`${dir}/`), e.name]))) onSkip(path, LINK_SKIPPED);
      continue;
    }
    if (!isUtf8(e.name)) {
      onSkip(path, "its name is not valid UTF-8");
      continue;
    }
    const sub = join(dir, e.name.toString("utf8"));
    yield { sub, path, listed: list(sub) };
  }
}

function* walk(dir: string, shown: string, entries: Dirent<Buffer>[], seen: Set<string>, onSkip: OnSkip): Generator<Found> {
  if (!firstVisit(dir, seen)) return;
  if (has(entries, "journal.jsonl")) {
    yield { dir, path: shown };
    return; // never descend into a bundle
  }
  if (has(entries, "job.log")) {
    // A Harbor job: its subdirectories holding config.json are its trials; nothing else below it is
    // walked. One that cannot be listed is still yielded: it becomes a tool error (unscored, exit 3)
    // rather than silently leaving the job's count of trials.
    for (const { sub, path, listed } of subdirectories(dir, shown, entries, onSkip))
      if ((typeof listed === "string" || has(listed, "config.json")) && firstVisit(sub, seen))
        yield { dir: sub, path, harbor: { job: basename(dir), folder: basename(sub) } };
    return;
  }
  if (isLoneTrial(entries)) {
    yield { dir, path: shown, harbor: { job: null, folder: basename(dir) } };
    return; // never descend into a trial
  }
  for (const { sub, path, listed } of subdirectories(dir, shown, entries, onSkip))
    if (typeof listed === "string") onSkip(path, listed);
    else yield* walk(sub, path, listed, seen, onSkip);
}

export class DiscoveryError extends Error {
  readonly code = "DISCOVERY";
}
