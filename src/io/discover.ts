// Discovery (contract §1, §11, §12): walk the roots, yield each bundle, each Harbor trial and each
// Inspect log once, say each Harbor job found (even one without a trial folder), and say what
// looks like evidence but is not recognised.

import { isUtf8 } from "node:buffer";
import { accessSync, closeSync, constants, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, posix } from "node:path";
import type { Claim } from "../core/harbor/job.js";
import type { TrialPlace } from "../core/harbor/place.js";
import { MAX_DOCUMENT_BYTES } from "../core/json/decode.js";
import { textTooDeep } from "../core/json/strict.js";
import { byteCompare, forTerminal } from "../core/text.js";

export interface Found {
  /** The bundle's (or trial's) directory on disk. */
  dir: string;
  /** Its path in results: the root as given, joined by '/' with the path below it. */
  path: string;
  /**
   * A Harbor trial: its job folder's name and results path (null for a lone trial) and its own
   * folder's name. These describe where the trial lies, so they are filled in after scoring and
   * never stored; `claims` is what its job's result.json says of the job's trials, by name.
   */
  harbor?: { job: string | null; folder: string; jobPath?: string; claims?: ReadonlyMap<string, Claim>; place?: TrialPlace };
  /** An Inspect log (§12): a file, `dir` being its path; its size in bytes. */
  inspect?: { format: "eval" | "json"; size: number };
}

/** A Harbor job folder, said before its trials are yielded (and said even when it holds none). */
export interface FoundJob {
  dir: string;
  path: string;
  name: string;
  /** Its subfolders' names (every one is a trial); empty for a job known only from a trial given as a root. */
  folders: readonly string[];
  /** Known only from a trial given as a root: the job itself was not given, so its files are not read. */
  partial: boolean;
}

/** The root as the user gave it, without trailing slashes (so joins read cleanly). */
export const displayRoot = (root: string): string => (root.length > 1 ? root.replace(/\/+$/, "") || "/" : root);

/** Called for a directory below a root that discovery had to pass over, and why. */
export type OnSkip = (path: string, reason: string) => void;
const LINK_SKIPPED = "a symbolic link: links below a root are never followed";

export interface DiscoverHooks {
  /** A Harbor job folder, before its trials. */
  onJob?: (job: FoundJob) => void;
  /** A folder below a root that looks like evidence (§11: a result.json, a reward file, a trial.log) but is none that assay reads. */
  onUnrecognised?: (path: string) => void;
  /** A root under which nothing at all is recognised is an error (§11 "nothing found is said"), unless allowed. */
  allowEmpty?: boolean;
}

/**
 * Yields bundles in a stable order (roots in the order given, entries by name). A root given
 * as a symlink is followed; links below a root are not, and one to a folder is reported (a
 * linked bundle folder would otherwise vanish without a word). Overlapping roots never produce a
 * bundle twice: a root inside another root's walk is walked once, by whichever reaches it first.
 * A root that cannot be read stops the run; a directory below it that cannot be read is skipped
 * and reported. Memory holds the folder being walked's subfolder names and the current path, not
 * one entry per folder seen (a million trial folders side by side are a million names, once).
 */
export function* discover(roots: readonly string[], onSkip: OnSkip = () => {}, hooks: DiscoverHooks = { allowEmpty: true }): Generator<Found> {
  const reals = roots.map((root) => {
    try {
      return realpathSync(root);
    } catch {
      throw new DiscoveryError(`root ${forTerminal(root)} does not exist`);
    }
  });
  const walk = new Walk(new Set(reals.map((r) => identity(r))), onSkip, hooks);
  // Logs given as roots, by identity: a walk that meets one yields it only if the root has not (and the reverse).
  for (const real of reals) if (statSync(real).isFile()) walk.rootFiles.set(identity(real), false);
  // Roots given side by side (a shell glob over a job's trials) share a parent: judge it once.
  const parentKind = new Map<string, ReturnType<Walk["kind"]>>();
  for (const [i, root] of roots.entries()) {
    const real = reals[i]!;
    const shown = displayRoot(root);
    const st = statSync(real);
    if (st.isFile()) {
      const format = logFormat(real, real);
      if (format === null)
        throw new DiscoveryError(`root ${forTerminal(root)} is a file but not an Inspect log (a .eval ZIP archive, or a JSON object with eval and status)`);
      walk.recognised++;
      if (walk.firstSight(real)) yield { dir: real, path: shown, inspect: { format, size: st.size } };
      continue;
    }
    if (!st.isDirectory()) throw new DiscoveryError(`root ${forTerminal(root)} is not a directory or an Inspect log`);
    const listing = list(real);
    if (typeof listing === "string") throw new DiscoveryError(`cannot read root ${forTerminal(root)}: ${listing}`);
    const before = walk.recognised;
    // A root an earlier root's walk already went through is not walked again, nor judged empty.
    const walkedBefore = walk.walked(real);
    // A folder given as a root inside a job folder is one of its trials, as it would be were the job the root.
    const parent = dirname(real);
    if (parent !== real && !parentKind.has(parent)) parentKind.set(parent, walk.kind(parent, list(parent)));
    if (!listing.has(JOURNAL) && parentKind.get(parent) === "job" && walk.kind(real, listing) !== "job") {
      if (walk.enter(real)) {
        walk.leave(real);
        const jobPath = parentPath(shown);
        walk.recognised++;
        hooks.onJob?.({ dir: parent, path: jobPath, name: basename(parent), folders: [], partial: true });
        yield { dir: real, path: shown, harbor: { job: basename(parent), folder: basename(real), jobPath } };
      }
    } else yield* walk.folder(real, shown, listing);
    if (!walkedBefore) walk.found(real, walk.recognised - before);
    if (walk.recognised === before && !walkedBefore && !hooks.allowEmpty)
      throw new DiscoveryError(
        `nothing under ${forTerminal(root)} is a bundle (journal.jsonl), a Harbor job (job.log, or a result.json with n_total_trials and stats), a Harbor trial (config.json with trial.log or result.json) or an Inspect log (a .eval, or a .json named by its timestamp)${walk.unrecognised > 0 ? `; ${walk.unrecognised} ${walk.unrecognisedLogs > 0 ? "folder or file" : "folder"}${walk.unrecognised > 1 ? "s look" : " looks"} like evidence but ${walk.unrecognised > 1 ? "are" : "is"} not` : ""} (--allow-empty accepts an empty root)`,
      );
  }
}

/** The results path of the folder holding `shown` (a results path). */
export function parentPath(shown: string): string {
  const last = posix.basename(shown);
  return last === "." || last === ".." ? `${shown}/..` : posix.dirname(shown);
}

const JOURNAL = "journal.jsonl";
const JOB_LOG = "job.log";
const CONFIG = "config.json";
const RESULT = "result.json";
const TRIAL_LOG = "trial.log";
/** What makes a folder look like evidence (§11): a Harbor result, log or reward file. */
const EVIDENCE = [RESULT, TRIAL_LOG, "reward.txt", "reward.json"];
/** The names discovery decides by: a folder's other files are never kept. */
const MARKERS = new Set([JOURNAL, JOB_LOG, CONFIG, ...EVIDENCE]);

/** Inspect's own rule for a .json log's name (log/_file.py is_log_file): it starts with an ISO timestamp. */
const TIMESTAMPED = /^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$/;
/** Files in Inspect log folders that are not logs (manifests, eval-set state, atomic writes' temporaries). */
const NOT_LOGS = new Set(["logs.json", "listing.json", "eval-set.json"]);
/** A file that may be an Inspect log: a .eval, or a .json that is not a known other file. */
const maybeLog = (name: string): boolean =>
  !name.startsWith(".inspect_tmp_") && (name.endsWith(".eval") || (name.endsWith(".json") && !NOT_LOGS.has(name) && !MARKERS.has(name)));

/**
 * What discovery keeps of a folder's listing: which marker files it holds, its subfolders and links
 * by name bytes, and the files that may be Inspect logs.
 */
interface Listing {
  has(name: string): boolean;
  dirs: string[];
  links: string[];
  logs: string[];
  /** Names that are not valid UTF-8 (shown with U+FFFD): they cannot be named in results. */
  unnamed: string[];
}

/** The listing, or why it failed (Node's message without its trailing path: the caller names the folder, escaped). */
function list(dir: string): Listing | string {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENAMETOOLONG") return "its path is longer than the file system can name (PATH_MAX): nothing below it is read";
    return (e as Error).message.replace(/, scandir '[\s\S]*$/, "");
  }
  const markers = new Set<string>();
  const dirs: string[] = [];
  const links: string[] = [];
  const logs: string[] = [];
  let doubtful = false;
  for (const e of entries) {
    if (MARKERS.has(e.name)) markers.add(e.name);
    // `.buffer/` holds Inspect's realtime buffers, never logs.
    if (e.isDirectory() && e.name !== ".buffer") dirs.push(e.name);
    else if (e.isSymbolicLink()) links.push(e.name);
    else if (e.isFile() && maybeLog(e.name)) logs.push(e.name);
    if (e.name.includes("\uFFFD")) doubtful = true;
  }
  // A name read as text shows an invalid byte as U+FFFD, as it would a real U+FFFD: only then is
  // the folder read again as bytes, to tell the two apart.
  const bad = new Set(doubtful ? notUtf8(dir) : []);
  const byBytes = (xs: string[]) => xs.filter((n) => !bad.has(n)).sort(byteCompare);
  const unnamed = [...dirs, ...links, ...logs].filter((n) => bad.has(n)).sort(byteCompare);
  return { has: (name) => markers.has(name), dirs: byBytes(dirs), links: byBytes(links), logs: byBytes(logs), unnamed };
}

/** The names in `dir` that are not valid UTF-8, as text (with U+FFFD). */
function notUtf8(dir: string): string[] {
  try {
    return readdirSync(dir, { encoding: "buffer" }).filter((n) => !isUtf8(n)).map((n) => n.toString("utf8"));
  } catch {
    return [];
  }
}

/**
 * Does the folder hold an entry named journal.jsonl (of any kind, as a listing would show), and
 * may it be listed? Then it is a bundle whatever else it holds, and an lstat and an access check
 * say so where a listing costs an open, two reads of the directory and a close: most folders of an
 * archive are bundles. A folder that cannot be searched or read answers false and is listed, so
 * its failure is reported (and skipped) as before.
 */
function holdsJournal(dir: string): boolean {
  try {
    return lstatSync(join(dir, JOURNAL), { throwIfNoEntry: false }) !== undefined && (accessSync(dir, constants.R_OK), true);
  } catch {
    return false;
  }
}
/** What discovery needs of a bundle's listing: that it holds journal.jsonl (nothing below a bundle is walked). */
const A_BUNDLE: Listing = { has: (name) => name === JOURNAL, dirs: [], links: [], logs: [], unnamed: [] };

/** A symbolic link that resolves to a folder (a dangling one, or a loop, does not). */
function linksToFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** §11: a Harbor trial outside a job holds config.json and trial.log or result.json. */
const isLoneTrial = (l: Listing) => l.has(CONFIG) && (l.has(TRIAL_LOG) || l.has(RESULT));

const NEEDLE = Buffer.from('"n_total_trials"');

/**
 * What a folder's result.json says of the folder: a job's ("job": its top level has n_total_trials
 * and stats), something else that parses ("other"), or nothing readable ("unreadable"). The file
 * is scanned in chunks for the key first, so a trial's result.json, however large, is not held.
 * `parse`: read it whole even without the key (only to tell a killed writer's job file apart).
 */
function resultShape(file: string, parse: boolean): "job" | "other" | "unreadable" {
  let fd: number;
  let size: number;
  try {
    const st = lstatSync(file);
    if (!st.isFile() || st.size > MAX_DOCUMENT_BYTES) return "unreadable";
    size = st.size;
    fd = openSync(file, "r");
  } catch {
    return "unreadable";
  }
  try {
    if (!parse && !holdsNeedle(fd)) return "other";
    const whole = Buffer.allocUnsafe(size);
    let at = 0;
    for (let n = -1; n !== 0 && at < size; at += n) n = readSync(fd, whole, at, size - at, at);
    const text = whole.subarray(0, at).toString("utf8");
    // Past the depth evidence may have, JSON.parse would build it all on the main thread first.
    if (textTooDeep(text)) return "unreadable";
    const v = JSON.parse(text) as unknown;
    const shaped = typeof v === "object" && v !== null && !Array.isArray(v) && Object.hasOwn(v, "n_total_trials") && Object.hasOwn(v, "stats");
    return shaped ? "job" : "other";
  } catch {
    return "unreadable";
  } finally {
    closeSync(fd);
  }
}

/** Does the file hold the key `"n_total_trials"` anywhere (read in chunks, none kept)? */
function holdsNeedle(fd: number): boolean {
  const buf = Buffer.allocUnsafe(64 * 1024 + NEEDLE.length);
  let carry = 0;
  for (let pos = 0; ; ) {
    const n = readSync(fd, buf, carry, buf.length - carry, pos);
    if (n === 0) return false;
    pos += n;
    const filled = carry + n;
    if (buf.subarray(0, filled).includes(NEEDLE)) return true;
    // Keep the last bytes: the key may straddle two reads.
    carry = Math.min(NEEDLE.length - 1, filled);
    buf.copy(buf, 0, filled - carry, filled);
  }
}

const PK = Buffer.from("PK\x03\x04", "latin1");

/**
 * What an Inspect log file is (§12): a .eval (first bytes PK\x03\x04: anything else named .eval is
 * still read, and reported corrupt, never skipped), or a .json whose top level is an object with
 * `eval` and `status` (Inspect writes them first: the first 64 KiB are read). `name`: the name the
 * rule applies to. Null: not a log.
 */
export function logFormat(file: string, name: string): "eval" | "json" | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    const head = Buffer.allocUnsafe(64 * 1024);
    const n = readSync(fd, head, 0, head.length, 0);
    if (name.endsWith(".eval") || (n >= 4 && head.subarray(0, 4).equals(PK))) return "eval";
    return topKeys(head.subarray(0, n), ["eval", "status"]) ? "json" : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Do the top-level keys of the JSON object these bytes begin include all of `wanted` (before the bytes end)? */
function topKeys(b: Buffer, wanted: string[]): boolean {
  const left = new Set(wanted);
  let i = 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x09 || b[i] === 0x0d)) i++;
  if (b[i] !== 0x7b) return false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (; i < b.length && left.size > 0; i++) {
    const c = b[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) {
        inString = false;
        if (depth === 1 && start >= 0) {
          // A key when a colon follows.
          let j = i + 1;
          while (j < b.length && (b[j] === 0x20 || b[j] === 0x0a || b[j] === 0x09 || b[j] === 0x0d)) j++;
          if (b[j] === 0x3a) left.delete(b.subarray(start, i).toString("utf8"));
        }
        start = -1;
      }
    } else if (c === 0x22) {
      inString = true;
      start = i + 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return left.size === 0;
}

/** A folder's device and inode. */
function identity(dir: string): string {
  let st;
  try {
    st = statSync(dir, { bigint: true });
  } catch {
    // Gone since its listing, or past what the file system can name: its path is the only identity
    // left, and a loop cannot pass through a folder that cannot be stat'ed.
    return `path:${dir}`;
  }
  return `${st.dev}:${st.ino}`;
}

/** One discovery: the roots' folders (to walk each once) and the folders on the current path (a bind-mount loop ends). */
class Walk {
  /** Roots walked so far, by identity, with how many bundles, trials and jobs were found when each was walked as a root. */
  private readonly rootsWalked = new Map<string, number>();
  private readonly path = new Set<string>();
  /** The identity of each folder entered and not yet left, by path: leave() needs no second stat. */
  private readonly entered = new Map<string, string>();
  /** Bundles, trials, jobs and logs found so far, and what looks like evidence but is none. */
  recognised = 0;
  unrecognised = 0;
  /** Of those, .json files shaped as Inspect logs but not named as Inspect names them. */
  unrecognisedLogs = 0;
  /** Logs given as roots, by identity: whether one has been yielded yet. */
  readonly rootFiles = new Map<string, boolean>();

  constructor(
    private readonly roots: ReadonlySet<string>,
    private readonly onSkip: OnSkip,
    private readonly hooks: DiscoverHooks,
  ) {}

  /** Enter a folder, unless it is on the current path (a loop) or a root already walked; leave() it after. */
  enter(dir: string): boolean {
    const id = identity(dir);
    if (this.path.has(id)) return false;
    if (this.rootsWalked.has(id)) {
      // Walked as a root before: what it held counts for the root walking past it now.
      this.recognised += this.rootsWalked.get(id)!;
      return false;
    }
    if (this.roots.has(id)) this.rootsWalked.set(id, 0);
    this.path.add(id);
    this.entered.set(dir, id);
    return true;
  }

  /** How many were found under a root walked as one (counted for a later root that holds it). */
  found(dir: string, n: number): void {
    const id = identity(dir);
    if (this.rootsWalked.has(id)) this.rootsWalked.set(id, n);
  }

  /** A root the walk has already been through (as a root, or inside another). */
  walked(dir: string): boolean {
    return this.rootsWalked.has(identity(dir));
  }

  leave(dir: string): void {
    const id = this.entered.get(dir);
    if (id === undefined) return;
    this.entered.delete(dir);
    this.path.delete(id);
  }

  /** A log file met for the first time (only a log also given as a root can be met twice). */
  firstSight(file: string): boolean {
    if (this.rootFiles.size === 0) return true;
    const id = identity(file);
    if (this.rootFiles.get(id) === true) return false;
    if (this.rootFiles.has(id)) this.rootFiles.set(id, true);
    return true;
  }

  /**
   * §12: the folder's Inspect logs (a .eval, or a .json named by its timestamp, shaped as a log).
   * A .json shaped as a log but not named as Inspect names them is not read (Inspect would not list
   * it either): it is counted as unrecognised, so it is never passed over in silence.
   */
  private *logs(dir: string, shown: string, l: Listing): Generator<Found> {
    for (const n of l.links) if ((n.endsWith(".eval") || TIMESTAMPED.test(n)) && !linksToFolder(join(dir, n))) this.onSkip(`${shown}/${n}`, LINK_SKIPPED);
    for (const n of l.logs) {
      const file = join(dir, n);
      const format = logFormat(file, n);
      if (format === null) continue;
      if (format === "json" && !TIMESTAMPED.test(n)) {
        this.unrecognised++;
        this.unrecognisedLogs++;
        this.hooks.onUnrecognised?.(`${shown}/${n}`);
        continue;
      }
      this.recognised++;
      if (!this.firstSight(file)) continue;
      let size = 0;
      try {
        size = statSync(file).size;
      } catch {
        // gone since the listing: the worker reports it
      }
      yield { dir: file, path: `${shown}/${n}`, inspect: { format, size } };
    }
  }

  /**
   * §11: what a folder (not inside a bundle or a job) is. A job holds job.log, or a result.json
   * shaped like a job's; a folder whose subfolders are trials is a job even when its own
   * result.json is unreadable (a killed writer, a partial copy). Then a lone trial, or neither.
   */
  kind(dir: string, l: Listing | string): "bundle" | "job" | "trial" | null {
    if (typeof l === "string") return null;
    if (l.has(JOURNAL)) return "bundle";
    if (l.has(JOB_LOG)) return "job";
    if (l.has(RESULT)) {
      const file = join(dir, RESULT);
      const shape = resultShape(file, false);
      if (shape === "job") return "job";
      if (this.holdsTrials(dir, l) && (shape === "unreadable" || resultShape(file, true) === "unreadable")) return "job";
    }
    return isLoneTrial(l) ? "trial" : null;
  }

  private holdsTrials(dir: string, l: Listing): boolean {
    return l.dirs.some((n) => {
      const sub = list(join(dir, n));
      return typeof sub !== "string" && isLoneTrial(sub);
    });
  }

  /**
   * Subfolders (never links), by name bytes; a name that is not UTF-8, and a link to a folder,
   * are reported and passed over. `listed` is the listing, or why it failed.
   */
  private *subfolders(dir: string, shown: string, l: Listing): Generator<{ sub: string; name: string; path: string; listed: () => Listing | string }> {
    for (const n of l.unnamed) this.onSkip(`${shown}/${n}`, "its name is not valid UTF-8");
    for (const n of l.links) if (linksToFolder(join(dir, n))) this.onSkip(`${shown}/${n}`, LINK_SKIPPED);
    for (const n of l.dirs) {
      const sub = join(dir, n);
      yield { sub, name: n, path: `${shown}/${n}`, listed: () => list(sub) };
    }
  }

  /**
   * Walk a folder and everything below it, depth first, by names. Iterative, with an explicit stack
   * of the folders on the current path: a chain of nested folders as deep as the file system allows
   * (PATH_MAX; below that a folder is skipped and said) costs a frame each, not a call each.
   */
  *folder(dir: string, shown: string, l: Listing): Generator<Found> {
    const stack: Frame[] = [];
    type Next = { dir: string; shown: string; l: Listing };
    let next: Next | null = { dir, shown, l };
    try {
      for (;;) {
        if (next !== null) {
          const at: Next = next;
          next = null;
          // A bundle below a root is a leaf (never descended into), so it cannot close a loop; with
          // one root folder it cannot be another root either: then its identity (a stat) is not
          // needed. A root always is entered (given twice, it is walked once).
          const entered = !(at.l === A_BUNDLE && this.roots.size === 1);
          if (!entered || this.enter(at.dir)) {
            const frame: Frame = { dir: at.dir, entered, subs: null };
            stack.push(frame);
            frame.subs = yield* this.inside(at.dir, at.shown, at.l);
          }
        }
        const top = stack.at(-1);
        if (top === undefined) return;
        const n = top.subs?.next();
        if (n === undefined || n.done === true) {
          stack.pop();
          if (top.entered) this.leave(top.dir);
          continue;
        }
        const { sub, path, listed } = n.value;
        const sl: Listing | string = holdsJournal(sub) ? A_BUNDLE : listed();
        if (typeof sl === "string") this.onSkip(path, sl);
        else next = { dir: sub, shown: path, l: sl };
      }
    } finally {
      // A walk its consumer stopped part way leaves every folder it entered.
      for (const f of stack) if (f.entered) this.leave(f.dir);
    }
  }

  /** Yield what the folder is (a bundle, a job's trials, a lone trial, its logs); its subfolders to walk, or null when nothing below it is walked. */
  private *inside(dir: string, shown: string, l: Listing): Generator<Found, Subfolders | null> {
    const kind = this.kind(dir, l);
    if (kind !== null) this.recognised++;
    if (kind === "bundle") {
      yield { dir, path: shown }; // never descend into a bundle
      return null;
    }
    if (kind === "job") {
      // Every subdirectory of a job is one of its trials, whatever it holds (one that never started
      // has only trial.log, or nothing); nothing else below it is walked. One that cannot be listed
      // is still yielded: it becomes a tool error (unscored, exit 3) rather than silently leaving
      // the job's count of trials.
      this.hooks.onJob?.({ dir, path: shown, name: basename(dir), folders: l.dirs, partial: false });
      for (const { sub, name, path } of this.subfolders(dir, shown, l))
        if (this.enter(sub)) {
          this.leave(sub);
          yield { dir: sub, path, harbor: { job: basename(dir), folder: name, jobPath: shown } };
        }
      return null;
    }
    if (kind === "trial") {
      yield { dir, path: shown, harbor: { job: null, folder: basename(dir) } }; // never descend into a trial
      return null;
    }
    if (EVIDENCE.some((n) => l.has(n))) {
      this.unrecognised++;
      this.hooks.onUnrecognised?.(shown);
    }
    yield* this.logs(dir, shown, l);
    return this.subfolders(dir, shown, l);
  }
}

type Subfolders = Iterator<{ sub: string; name: string; path: string; listed: () => Listing | string }>;

/** A folder on the walk's current path, with the subfolders it has yet to hand out. */
interface Frame {
  dir: string;
  /** Entered (on the path, by identity): left when its subfolders are done. */
  entered: boolean;
  subs: Subfolders | null;
}

export class DiscoveryError extends Error {
  readonly code = "DISCOVERY";
}
