// Discovery (contract §1, §11): walk the roots, yield each bundle and each Harbor trial once.

import { isUtf8 } from "node:buffer";
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { byteCompare, forTerminal } from "../core/text.js";

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
 * linked bundle folder would otherwise vanish without a word). Overlapping roots never produce a
 * bundle twice: a root inside another root's walk is walked once, by whichever reaches it first.
 * A root that cannot be read stops the run; a directory below it that cannot be read is skipped
 * and reported. Memory holds the folder being walked's subfolder names and the current path, not
 * one entry per folder seen (a million trial folders side by side are a million names, once).
 */
export function* discover(roots: readonly string[], onSkip: OnSkip = () => {}): Generator<Found> {
  const reals = roots.map((root) => {
    try {
      return realpathSync(root);
    } catch {
      throw new DiscoveryError(`root ${forTerminal(root)} does not exist`);
    }
  });
  const walk = new Walk(new Set(reals.map((r) => identity(r))), onSkip);
  for (const [i, root] of roots.entries()) {
    const real = reals[i]!;
    const shown = displayRoot(root);
    if (!statSync(real).isDirectory()) throw new DiscoveryError(`root ${forTerminal(root)} is not a directory`);
    const listing = list(real);
    if (typeof listing === "string") throw new DiscoveryError(`cannot read root ${forTerminal(root)}: ${listing}`);
    // A trial given as a root still belongs to the job folder it lies in, and is one by the job's
    // rule (config.json alone), as it would be were the job the root.
    const parentIsJob = lstatSync(join(dirname(real), "job.log"), { throwIfNoEntry: false }) !== undefined;
    const trialOfJob = parentIsJob && listing.has(CONFIG) && !listing.has(JOURNAL) && !listing.has(JOB_LOG);
    if (!trialOfJob) yield* walk.folder(real, shown, listing);
    else if (walk.enter(real)) {
      walk.leave(real);
      yield { dir: real, path: shown, harbor: { job: basename(dirname(real)), folder: basename(real) } };
    }
  }
}

const JOURNAL = "journal.jsonl";
const JOB_LOG = "job.log";
const CONFIG = "config.json";
/** The names discovery decides by: a folder's other files are never kept. */
const MARKERS = new Set([JOURNAL, JOB_LOG, CONFIG, "trial.log", "result.json"]);

/** What discovery keeps of a folder's listing: which marker files it holds, its subfolders and links by name bytes. */
interface Listing {
  has(name: string): boolean;
  dirs: string[];
  links: string[];
  /** Names that are not valid UTF-8 (shown with U+FFFD): they cannot be named in results. */
  unnamed: string[];
}

/** The listing, or why it failed (Node's message without its trailing path: the caller names the folder, escaped). */
function list(dir: string): Listing | string {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    return (e as Error).message.replace(/, scandir '[\s\S]*$/, "");
  }
  const markers = new Set<string>();
  const dirs: string[] = [];
  const links: string[] = [];
  let doubtful = false;
  for (const e of entries) {
    if (MARKERS.has(e.name)) markers.add(e.name);
    if (e.isDirectory()) dirs.push(e.name);
    else if (e.isSymbolicLink()) links.push(e.name);
    if (e.name.includes("\uFFFD")) doubtful = true;
  }
  // A name read as text shows an invalid byte as U+FFFD, as it would a real U+FFFD: only then is
  // the folder read again as bytes, to tell the two apart.
  const bad = new Set(doubtful ? notUtf8(dir) : []);
  const byBytes = (xs: string[]) => xs.filter((n) => !bad.has(n)).sort(byteCompare);
  const unnamed = [...dirs, ...links].filter((n) => bad.has(n)).sort(byteCompare);
  return { has: (name) => markers.has(name), dirs: byBytes(dirs), links: byBytes(links), unnamed };
}

/** The names in `dir` that are not valid UTF-8, as text (with U+FFFD). */
function notUtf8(dir: string): string[] {
  try {
    return readdirSync(dir, { encoding: "buffer" }).filter((n) => !isUtf8(n)).map((n) => n.toString("utf8"));
  } catch {
    return [];
  }
}

/** A symbolic link that resolves to a folder (a dangling one, or a loop, does not). */
function linksToFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** §11: a Harbor trial outside a job holds config.json and trial.log or result.json. */
const isLoneTrial = (l: Listing) => l.has(CONFIG) && (l.has("trial.log") || l.has("result.json"));

/** A folder's device and inode. */
function identity(dir: string): string {
  const st = statSync(dir, { bigint: true });
  return `${st.dev}:${st.ino}`;
}

/** One discovery: the roots' folders (to walk each once) and the folders on the current path (a bind-mount loop ends). */
class Walk {
  private readonly rootsWalked = new Set<string>();
  private readonly path = new Set<string>();

  constructor(
    private readonly roots: ReadonlySet<string>,
    private readonly onSkip: OnSkip,
  ) {}

  /** Enter a folder, unless it is on the current path (a loop) or a root already walked; leave() it after. */
  enter(dir: string): boolean {
    const id = identity(dir);
    if (this.path.has(id) || this.rootsWalked.has(id)) return false;
    if (this.roots.has(id)) this.rootsWalked.add(id);
    this.path.add(id);
    return true;
  }

  leave(dir: string): void {
    this.path.delete(identity(dir));
  }

  /**
   * Subfolders (never links), by name bytes; a name that is not UTF-8, and a link to a folder,
   * are reported and passed over. `listed` is the listing, or why it failed.
   */
  private *subfolders(dir: string, shown: string, l: Listing): Generator<{ sub: string; path: string; listed: Listing | string }> {
    for (const n of l.unnamed) this.onSkip(`${shown}/${n}`, "its name is not valid UTF-8");
    for (const n of l.links) if (linksToFolder(join(dir, n))) this.onSkip(`${shown}/${n}`, LINK_SKIPPED);
    for (const n of l.dirs) {
      const sub = join(dir, n);
      yield { sub, path: `${shown}/${n}`, listed: list(sub) };
    }
  }

  *folder(dir: string, shown: string, l: Listing): Generator<Found> {
    if (!this.enter(dir)) return;
    try {
      yield* this.inside(dir, shown, l);
    } finally {
      this.leave(dir);
    }
  }

  private *inside(dir: string, shown: string, l: Listing): Generator<Found> {
    if (l.has(JOURNAL)) return yield { dir, path: shown }; // never descend into a bundle
    if (l.has(JOB_LOG)) {
      // A Harbor job: its subdirectories holding config.json are its trials; nothing else below it is
      // walked. One that cannot be listed is still yielded: it becomes a tool error (unscored, exit 3)
      // rather than silently leaving the job's count of trials.
      for (const { sub, path, listed } of this.subfolders(dir, shown, l))
        if ((typeof listed === "string" || listed.has(CONFIG)) && this.enter(sub)) {
          this.leave(sub);
          yield { dir: sub, path, harbor: { job: basename(dir), folder: basename(sub) } };
        }
      return;
    }
    if (isLoneTrial(l)) return yield { dir, path: shown, harbor: { job: null, folder: basename(dir) } }; // never descend into a trial
    for (const { sub, path, listed } of this.subfolders(dir, shown, l))
      if (typeof listed === "string") this.onSkip(path, listed);
      else yield* this.folder(sub, path, listed);
  }
}

export class DiscoveryError extends Error {
  readonly code = "DISCOVERY";
}
