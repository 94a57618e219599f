// Discovery (contract §1, §11, §12): walk the roots, yield each unit of evidence once (a bundle, a
// Harbor trial, an Inspect log…), say each container found (a Harbor job, even one without a trial
// folder), and say what looks like evidence but is not recognised. What a folder or file *is* is
// each kind's recogniser's (kinds/<kind>/recognise.ts), asked in the registry's order.

import { isUtf8 } from "node:buffer";
import { accessSync, constants, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, posix } from "node:path";
import type { BundleEntry } from "../core/results.js";
import type { EntryIdentity } from "../core/identity.js";
import { byteCompare, forTerminal } from "../core/text.js";
import type { KindName } from "../kinds/declared.js";
import type { FolderShape, Listing } from "../kinds/recogniser.js";
import { KINDS } from "../kinds/registry.js";

export interface Found {
  /** The bundle's (or trial's) directory on disk. */
  dir: string;
  /** Its path in results: the root as given, joined by '/' with the path below it. */
  path: string;
  /** Its kind: how it is scored, stored and named. */
  kind: KindName;
  /**
   * A member of a container (a Harbor trial): its container folder's name and results path (null:
   * found on its own, a lone trial) and its own folder's name. These describe where it lies, so
   * they are filled in after scoring and never stored; `claims` is what its container's summary
   * says of its members, by name; `identity` what its container's files record of their run (core/run-identity.ts);
   * `place` the fields of its entry that its kind takes from where it lies (Harbor: `harbor analyze`'s words, its job's lock.json).
   */
  member?: {
    container: string | null;
    folder: string;
    containerPath?: string;
    claims?: ReadonlyMap<string, NonNullable<BundleEntry["claimed"]>>;
    place?: MemberPlace;
    identity?: EntryIdentity;
  };
  /** A file read on its own (an Inspect log, §12), `dir` being its path: its format and size in bytes. */
  file?: { format: string; size: number };
}

/** The fields of a member's entry its kind takes from where it lies, given the entry as scored. */
export type MemberPlace = (entry: Omit<BundleEntry, "path">) => Partial<BundleEntry>;

/** A container folder (a Harbor job), said before its members are yielded (and said even when it holds none). */
export interface FoundContainer {
  dir: string;
  path: string;
  name: string;
  kind: KindName;
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
  /** A container folder (a Harbor job), before its members. */
  onContainer?: (container: FoundContainer) => void;
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
export function* discover(
  roots: readonly string[],
  onSkip: OnSkip = () => {},
  hooks: DiscoverHooks = { allowEmpty: true },
): Generator<Found> {
  const reals = roots.map((root) => {
    try {
      return realpathSync(root);
    } catch {
      throw new DiscoveryError(`root ${forTerminal(root)} does not exist`);
    }
  });
  const walk = new Walk(new Set(reals.map((r) => identity(r))), onSkip, hooks);
  // Logs given as roots, by identity: a walk that meets one yields it only if the root has not (and the reverse).
  /** A root's stat; one gone since the run began (another process moved it) is named, never an internal error. */
  const statRoot = (real: string, root: string) => {
    try {
      return statSync(real);
    } catch (e) {
      throw new DiscoveryError(`root ${forTerminal(root)} cannot be read now: ${(e as Error).message}`);
    }
  };
  reals.forEach((real, i) => {
    if (statRoot(real, roots[i]!).isFile()) walk.rootFiles.set(identity(real), false);
  });
  // Roots given side by side (a shell glob over a job's trials) share a parent: judge it once.
  const parentKind = new Map<string, Recognised | null>();
  const groups = new Map<string, ((child: string) => boolean) | null>();
  for (const [i, root] of roots.entries()) {
    const real = reals[i]!;
    const shown = displayRoot(root);
    const st = statRoot(real, root);
    if (st.isFile()) {
      const file = fileKind(real, real, true);
      if (file === null || file === "unrecognised")
        throw new DiscoveryError(
          `root ${forTerminal(root)} is a file but not ${orList(FILE_KINDS.map((r) => r.fileDescription ?? ""))}`,
        );
      walk.recognised++;
      if (walk.firstSight(real))
        yield { dir: real, path: shown, kind: file.kind, file: { format: file.format, size: st.size } };
      continue;
    }
    if (!st.isDirectory())
      throw new DiscoveryError(
        `root ${forTerminal(root)} is not a directory or ${orList(FILE_KINDS.map((r) => r.fileNoun ?? ""))}`,
      );
    const listing = list(real);
    if (typeof listing === "string") throw new DiscoveryError(`cannot read root ${forTerminal(root)}: ${listing}`);
    const before = walk.recognised;
    // A root an earlier root's walk already went through is not walked again, nor judged empty.
    const walkedBefore = walk.walked(real);
    // A folder given as a root inside a container is one of its members, as it would be were the
    // container the root (unless it is another kind's leaf, or a container itself).
    const parent = dirname(real);
    if (parent !== real && !parentKind.has(parent)) parentKind.set(parent, walk.kind(parent, list(parent)));
    const container = parentKind.get(parent);
    const own = container?.shape === "container" ? walk.kind(real, listing) : null;
    const groupOf = container?.shape === "container" ? recogniserOf(container.kind).groupOf : undefined;
    const partOf = (kind: KindName, dir: string, path: string) => {
      walk.recognised++;
      hooks.onContainer?.({ dir, path, name: basename(dir), kind, folders: [], partial: true });
    };
    const named = groupOf === undefined || own !== null ? null : groupOf(basename(real), listing);
    // A container's subfolder its kind does not name as a member (a model folder's notes/) is walked; one holding its files is said.
    const memberNamed = container?.shape === "container" ? recogniserOf(container.kind).memberNamed : undefined;
    const unnamed = memberNamed !== undefined && !memberNamed(basename(real));
    if (unnamed && !walkedBefore && recogniserOf(container!.kind).markers.some((m) => listing.has(m))) {
      walk.unrecognised++;
      hooks.onUnrecognised?.(shown);
    }
    if (groupOf !== undefined && own === null) {
      // A group of a container's members (a Terminal-Bench run's task folder): its members, as were the container the root.
      if (named === null) yield* walk.folder(real, shown, listing);
      else if (walk.enter(real))
        try {
          partOf(container!.kind, parent, parentPath(shown));
          const rest = yield* walk.members(real, shown, listing, container!.kind, parent, parentPath(shown), named);
          for (const r of rest) {
            const l = r.listed();
            if (typeof l !== "string") yield* walk.folder(r.sub, r.path, l);
          }
        } finally {
          walk.leave(real);
        }
    } else if (
      container?.shape === "container" &&
      (own === null || (own.kind === container.kind && own.shape === "leaf")) &&
      !unnamed
    ) {
      const member = walk.member(real, shown, basename(real), container.kind, parent, parentPath(shown));
      if (member !== null) {
        partOf(container.kind, parent, parentPath(shown));
        yield member;
      }
    } else {
      // One member of a group (a Terminal-Bench trial folder): a member, as it would be were its container the root.
      const top = dirname(parent);
      let above: Recognised | null | undefined = null;
      if (GROUPING && (container ?? null) === null && top !== parent && walk.kind(real, listing) === null) {
        if (!parentKind.has(top)) parentKind.set(top, walk.kind(top, list(top)));
        above = parentKind.get(top);
      }
      const groupOf = above?.shape === "container" ? recogniserOf(above.kind).groupOf : undefined;
      // Roots given side by side (a shell glob over a task folder's trials) share a group: listed and judged once.
      if (groupOf !== undefined && !groups.has(parent)) {
        const l = list(parent);
        groups.set(parent, typeof l === "string" ? null : groupOf(basename(parent), l));
      }
      const containerPath = parentPath(parentPath(shown));
      const member =
        groupOf !== undefined && groups.get(parent) != null
          ? walk.member(real, shown, basename(real), above!.kind, top, containerPath)
          : null;
      if (member !== null) {
        partOf(above!.kind, top, containerPath);
        yield member;
      } else yield* walk.folder(real, shown, listing);
    }
    if (!walkedBefore) walk.found(real, walk.recognised - before);
    if (walk.recognised === before && !walkedBefore && !hooks.allowEmpty)
      throw new DiscoveryError(
        `nothing under ${forTerminal(root)} is ${orList(KINDS.filter((k) => k.recogniser.folder !== undefined || k.recogniser.file !== undefined).map((k) => k.recogniser.description))}${walk.unrecognised > 0 ? `; ${walk.unrecognised} ${walk.unrecognisedFiles > 0 ? "folder or file" : "folder"}${walk.unrecognised > 1 ? "s look" : " looks"} like evidence but ${walk.unrecognised > 1 ? "are" : "is"} not` : ""} (--allow-empty accepts an empty root)`,
      );
  }
}

/** The results path of the folder holding `shown` (a results path). */
export function parentPath(shown: string): string {
  const last = posix.basename(shown);
  return last === "." || last === ".." ? `${shown}/..` : posix.dirname(shown);
}

/** "a, b or c". */
const orList = (xs: readonly string[]): string =>
  xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} or ${xs[xs.length - 1]}`;

const RECOGNISERS = KINDS.map((k) => ({ kind: k.name, r: k.recogniser }));
const recogniserOf = (kind: KindName) => RECOGNISERS.find((x) => x.kind === kind)!.r;
/** Some kind's containers group their members one folder down (a folder given as a root may then be one of them). */
const GROUPING = RECOGNISERS.some(({ r }) => r.groupOf !== undefined);
/** The kinds that read files on their own (Inspect logs). */
const FILE_KINDS = KINDS.map((k) => k.recogniser).filter((r) => r.file !== undefined);
/** The names discovery decides by: a folder's other files are never kept. */
const MARKERS = new Set(KINDS.flatMap((k) => k.recogniser.markers));
/** A file that some kind may read on its own (never one of the names that mark a folder). */
const maybeFile = (name: string): boolean =>
  !MARKERS.has(name) && KINDS.some((k) => k.recogniser.maybeFile?.(name) === true);
/** Entries that make a folder a leaf of their kind whatever else it holds. */
const LEAF_MARKERS = KINDS.flatMap((k) => (k.recogniser.leafMarker === undefined ? [] : [k.recogniser.leafMarker]));

/** What a folder is: whose, and how (a leaf, a container). */
interface Recognised {
  kind: KindName;
  shape: FolderShape;
}

/** What a file is to the first kind that reads it on its own: its kind and format, "unrecognised", or null. */
function fileKind(
  path: string,
  name: string,
  asRoot: boolean,
): { kind: KindName; format: string } | "unrecognised" | null {
  let unrecognised = false;
  for (const { kind, r } of RECOGNISERS) {
    const got = r.file?.(path, name, asRoot) ?? null;
    if (got === "unrecognised") unrecognised = true;
    else if (got !== null) return { kind, format: got.format };
  }
  return unrecognised ? "unrecognised" : null;
}

/** The listing, or why it failed (Node's message without its trailing path: the caller names the folder, escaped). */
function list(dir: string): Listing | string {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENAMETOOLONG")
      return "its path is longer than the file system can name (PATH_MAX): nothing below it is read";
    return (e as Error).message.replace(/, scandir '[\s\S]*$/, "");
  }
  const markers = new Set<string>();
  const dirs: string[] = [];
  const links: string[] = [];
  const files: string[] = [];
  let doubtful = false;
  for (const e of entries) {
    if (MARKERS.has(e.name)) markers.add(e.name);
    // `.buffer/` holds Inspect's realtime buffers, never logs.
    if (e.isDirectory() && e.name !== ".buffer") dirs.push(e.name);
    else if (e.isSymbolicLink()) links.push(e.name);
    else if (e.isFile() && maybeFile(e.name)) files.push(e.name);
    if (e.name.includes("\uFFFD")) doubtful = true;
  }
  // A name read as text shows an invalid byte as U+FFFD, as it would a real U+FFFD: only then is
  // the folder read again as bytes, to tell the two apart.
  const bad = new Set(doubtful ? notUtf8(dir) : []);
  const byBytes = (xs: string[]) => xs.filter((n) => !bad.has(n)).sort(byteCompare);
  const unnamed = [...dirs, ...links, ...files].filter((n) => bad.has(n)).sort(byteCompare);
  return {
    has: (name) => markers.has(name),
    dirs: byBytes(dirs),
    links: byBytes(links),
    files: byBytes(files),
    unnamed,
  };
}

/** The names in `dir` that are not valid UTF-8, as text (with U+FFFD). */
function notUtf8(dir: string): string[] {
  try {
    return readdirSync(dir, { encoding: "buffer" })
      .filter((n) => !isUtf8(n))
      .map((n) => n.toString("utf8"));
  } catch {
    return [];
  }
}

/**
 * The stub listing of a folder that holds a kind's leaf marker (journal.jsonl: an entry of any
 * kind, as a listing would show) and may be listed: it is that kind's leaf whatever else it holds,
 * and an lstat and an access check say so where a listing costs an open, two reads of the
 * directory and a close (most folders of an archive are bundles). Null otherwise: a folder that
 * cannot be searched or read is listed, so its failure is reported (and skipped) as before.
 */
function leafStub(dir: string): Listing | null {
  for (const marker of LEAF_MARKERS)
    try {
      if (
        lstatSync(join(dir, marker), { throwIfNoEntry: false }) !== undefined &&
        (accessSync(dir, constants.R_OK), true)
      )
        return stubOf(marker);
    } catch {
      return null;
    }
  return null;
}
/** What discovery needs of a leaf's listing: the marker it holds (nothing below a leaf is walked). */
const STUBS = new Map<string, Listing>(
  LEAF_MARKERS.map((m) => [m, { has: (name) => name === m, dirs: [], links: [], files: [], unnamed: [] }]),
);
const stubOf = (marker: string): Listing => STUBS.get(marker)!;
const STUB_SET = new Set(STUBS.values());

/** A symbolic link that resolves to a folder (a dangling one, or a loop, does not). */
function linksToFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
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
  /** Of those, files shaped as a kind's (an Inspect log) but not named as its harness names them. */
  unrecognisedFiles = 0;
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
   * The folder's files that kinds read on their own (Inspect logs, §12). A file shaped as a kind's
   * but not named as its harness names it is not read (the harness would not list it either): it
   * is counted as unrecognised, so it is never passed over in silence.
   */
  private *files(dir: string, shown: string, l: Listing): Generator<Found> {
    for (const n of l.links)
      if (RECOGNISERS.some(({ r }) => r.namedLikeFile?.(n) === true) && !linksToFolder(join(dir, n)))
        this.onSkip(`${shown}/${n}`, LINK_SKIPPED);
    for (const n of l.files) {
      const file = join(dir, n);
      const got = fileKind(file, n, false);
      if (got === null) continue;
      if (got === "unrecognised") {
        this.unrecognised++;
        this.unrecognisedFiles++;
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
      yield { dir: file, path: `${shown}/${n}`, kind: got.kind, file: { format: got.format, size } };
    }
  }

  /** `dir` as one member of the container folder `container` (results path `containerPath`), unless it is on the walk's path or a root walked already (null). */
  member(
    dir: string,
    path: string,
    folder: string,
    kind: KindName,
    container: string,
    containerPath: string,
  ): Found | null {
    if (!this.enter(dir)) return null;
    this.leave(dir);
    return { dir, path, kind, member: { container: basename(container), folder, containerPath } };
  }

  /**
   * Every subfolder of `dir` as one member of the container at `container` (results path
   * `containerPath`); in a group (`named`: which names are members'), a subfolder named otherwise
   * that is a container of its own is returned instead, to be walked (a run nested in a task folder).
   */
  *members(
    dir: string,
    shown: string,
    l: Listing,
    kind: KindName,
    container: string,
    containerPath: string,
    named?: (child: string) => boolean,
  ): Generator<Found, Subfolder[]> {
    const walked: Subfolder[] = [];
    for (const s of this.subfolders(dir, shown, l)) {
      if (named !== undefined && !named(s.name)) {
        const sl = s.listed();
        if (typeof sl !== "string" && this.kind(s.sub, sl)?.shape === "container") {
          walked.push(s);
          continue;
        }
      }
      const m = this.member(s.sub, s.path, s.name, kind, container, containerPath);
      if (m !== null) yield m;
    }
    return walked;
  }

  /**
   * A container whose members are the subfolders `named` names (a SWE-bench model folder's instance
   * folders): those, each as one member; the others are returned, to be walked as any folder is
   * (nothing says they are members), and one holding a file the kind's recognition reads is said
   * unrecognised first (a member renamed: counted, never passed over in silence).
   */
  private *namedMembers(
    dir: string,
    shown: string,
    l: Listing,
    kind: KindName,
    named: (child: string) => boolean,
  ): Generator<Found, Subfolders> {
    const rest: Subfolder[] = [];
    const markers = recogniserOf(kind).markers;
    for (const s of this.subfolders(dir, shown, l)) {
      if (named(s.name)) {
        const m = this.member(s.sub, s.path, s.name, kind, dir, shown);
        if (m !== null) yield m;
        continue;
      }
      const sl = s.listed();
      // (Given as a root too and walked already: said then.)
      if (typeof sl !== "string" && markers.some((m) => sl.has(m)) && !this.walked(s.sub)) {
        this.unrecognised++;
        this.hooks.onUnrecognised?.(s.path);
      }
      rest.push(s);
    }
    return rest[Symbol.iterator]();
  }

  /**
   * A container whose members lie one folder down (a Terminal-Bench run: `<task>/<trial>/`): the
   * members of each subfolder that groups them; its other subfolders, and containers nested in a
   * group, are walked as any folder is (a run nested inside another). A subfolder that cannot be
   * listed is yielded as a member: it becomes a tool error (unscored, exit 3), never silently absent.
   */
  private *grouped(
    dir: string,
    shown: string,
    l: Listing,
    kind: KindName,
    groupOf: (name: string, l: Listing) => ((child: string) => boolean) | null,
  ): Generator<Found, Subfolders> {
    const rest: Subfolder[] = [];
    for (const s of this.subfolders(dir, shown, l)) {
      const sl = s.listed();
      const named = typeof sl === "string" ? null : groupOf(s.name, sl);
      if (typeof sl === "string") {
        const m = this.member(s.sub, s.path, s.name, kind, dir, shown);
        if (m !== null) yield m;
      } else if (named === null) rest.push(s);
      else if (this.enter(s.sub))
        try {
          rest.push(...(yield* this.members(s.sub, s.path, sl, kind, dir, shown, named)));
        } finally {
          this.leave(s.sub);
        }
    }
    return rest[Symbol.iterator]();
  }

  /** What a folder is: the first kind whose recogniser claims it, or null. */
  kind(dir: string, l: Listing | string): Recognised | null {
    if (typeof l === "string") return null;
    for (const { kind, r } of RECOGNISERS) {
      const shape = r.folder?.(dir, l, list) ?? null;
      if (shape !== null) return { kind, shape };
    }
    return null;
  }

  /**
   * Subfolders (never links), by name bytes; a name that is not UTF-8, and a link to a folder,
   * are reported and passed over. `listed` is the listing, or why it failed.
   */
  private *subfolders(dir: string, shown: string, l: Listing): Generator<Subfolder> {
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
          // A leaf below a root (a bundle) is never descended into, so it cannot close a loop; with
          // one root folder it cannot be another root either: then its identity (a stat) is not
          // needed. A root always is entered (given twice, it is walked once).
          const entered = !(STUB_SET.has(at.l) && this.roots.size === 1);
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
        const sl: Listing | string = leafStub(sub) ?? listed();
        if (typeof sl === "string") this.onSkip(path, sl);
        else next = { dir: sub, shown: path, l: sl };
      }
    } finally {
      // A walk its consumer stopped part way leaves every folder it entered.
      for (const f of stack) if (f.entered) this.leave(f.dir);
    }
  }

  /** Yield what the folder is (a leaf, a container's members, the files kinds read on their own); its subfolders to walk, or null when nothing below it is walked. */
  private *inside(dir: string, shown: string, l: Listing): Generator<Found, Subfolders | null> {
    const what = this.kind(dir, l);
    if (what === null) {
      if (RECOGNISERS.some(({ r }) => r.looksLike?.(l) === true)) {
        this.unrecognised++;
        this.hooks.onUnrecognised?.(shown);
      }
      yield* this.files(dir, shown, l);
      return this.subfolders(dir, shown, l);
    }
    this.recognised++;
    const { kind, shape } = what;
    if (shape === "container") {
      // Every subfolder of a container is one of its members, whatever it holds (a Harbor trial
      // that never started has only trial.log, or nothing); nothing else below it is walked. One
      // that cannot be listed is still yielded: it becomes a tool error (unscored, exit 3) rather
      // than silently leaving the container's count of members.
      const { groupOf, memberNamed } = recogniserOf(kind);
      const folders = memberNamed === undefined ? l.dirs : l.dirs.filter(memberNamed);
      this.hooks.onContainer?.({ dir, path: shown, name: basename(dir), kind, folders, partial: false });
      if (groupOf !== undefined) return yield* this.grouped(dir, shown, l, kind, groupOf);
      if (memberNamed !== undefined) return yield* this.namedMembers(dir, shown, l, kind, memberNamed);
      yield* this.members(dir, shown, l, kind, dir, shown);
      return null;
    }
    // A leaf is never descended into; one of a kind of containers found on its own belongs to none.
    const lone = recogniserOf(kind).members === true;
    yield { dir, path: shown, kind, ...(lone ? { member: { container: null, folder: basename(dir) } } : {}) };
    return null;
  }
}

type Subfolder = { sub: string; name: string; path: string; listed: () => Listing | string };
type Subfolders = Iterator<Subfolder>;

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
