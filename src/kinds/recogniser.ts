// What discovery asks of a kind (main process): is this folder, or this file, one of yours? The
// walk itself (roots, links, loops, names that are not UTF-8) is io/discover.ts's; what a folder
// *is* is each kind's, asked in the registry's order.

/** What discovery keeps of a folder's listing: the marker files it holds, its subfolders and links by name bytes, and files some kind may read on their own. */
export interface Listing {
  has(name: string): boolean;
  dirs: string[];
  links: string[];
  /** Files some kind's `maybeFile` accepts (candidates: each is judged by `file`). */
  files: string[];
  /** Names that are not valid UTF-8 (shown with U+FFFD): they cannot be named in results. */
  unnamed: string[];
}

/** Lists a folder (its listing, or why it could not be listed). */
export type Lister = (dir: string) => Listing | string;

/** What a folder is to a kind. */
export type FolderShape =
  /** One unit of evidence, scored as one (a bundle, a lone Harbor trial): nothing below it is walked. */
  | "leaf"
  /** A container (a Harbor job): every subfolder is one of its members, scored as one; nothing else below it is walked. */
  | "container";

export interface Recogniser {
  /** How the error for a root where nothing is found names what this kind looks for. */
  readonly description: string;
  /** Names whose presence in a folder the kind's recognition reads: a listing keeps these, no other names. */
  readonly markers: readonly string[];
  /**
   * An entry that makes a folder this kind's leaf whatever else it holds: discovery checks for it
   * with one lstat before listing the folder (most folders of an archive are leaves).
   */
  readonly leafMarker?: string;
  /** What the folder is to this kind (null: not its). `list` lists another folder (a container is told by its members too). */
  folder?(dir: string, l: Listing, list: Lister): FolderShape | null;
  /** Does the folder look like this kind's evidence without being any that assay reads (said, never passed over in silence)? */
  looksLike?(l: Listing): boolean;
  /**
   * Which subfolders of its containers are members, by name (absent: every one is; a SWE-bench model
   * folder's are named like instance ids). One named otherwise is no member: it is walked as any
   * folder is, and said unrecognised when it holds one of the kind's markers (a member renamed),
   * never scored.
   */
  memberNamed?(name: string): boolean;
  /** Its leaves are members of its containers (a lone one, found on its own, belongs to none). */
  readonly members?: true;
  /**
   * Where its containers' members lie, when not one per subfolder (a Harbor job's trials are its
   * subfolders; a Terminal-Bench run's are `<task>/<trial>/`): the container's subfolder `name`
   * (its listing `l`) groups members when this gives a test of its subfolders' names. Each of those
   * subfolders is a member — one not named as a member is first asked whether it is a container of
   * its own (a run nested in a task folder), which is walked instead. null: not a group; it is
   * walked as any folder is (a run nested beside the task folders).
   */
  groupOf?(name: string, l: Listing): ((child: string) => boolean) | null;
  /** What a file of this kind is called, alone and described (errors on a root given as a file). */
  readonly fileNoun?: string;
  readonly fileDescription?: string;
  /** A file name this kind may read on its own (kept in the listing, then judged by `file`). */
  maybeFile?(name: string): boolean;
  /** A name its harness gives the files it writes: a link of that name is said skipped (links below a root are never followed). */
  namedLikeFile?(name: string): boolean;
  /**
   * What a file is to this kind: its format (read on its own); "unrecognised" (shaped like its
   * evidence but not named as its harness names it: counted, not read); null (not its).
   * `asRoot`: given as a root, where its name decides less.
   */
  file?(path: string, name: string, asRoot: boolean): { format: string } | "unrecognised" | null;
}
