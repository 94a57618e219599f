// Every file assay writes goes through here: a results document, an export, a narrative, a schema,
// a synthesised corpus, a seal. What it guarantees, whatever the disk or the path:
// - every write is checked to its last byte (a full disk or `ulimit -f` is an error, never half a
//   document renamed over a whole one), then fsync, rename, fsync of the folder;
// - a path inside a root being read, or naming a file the command reads or keeps (the store, the
//   cache, an input), is refused before anything is written;
// - a FIFO or character device is written straight into, never replaced (as root, replacing
//   /dev/null would break the whole machine); /dev/stdout and /dev/fd/N are the process's own;
// - a symbolic link is never replaced, nor followed to replace its target.

import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { forTerminal } from "../core/text.js";

/** An output that cannot or must not be written: one line for the user, exit 2. */
export class OutputError extends Error {
  readonly code = "OUTPUT";
  constructor(
    message: string,
    /** The system's error code when a write failed (EPIPE: the reader went away). */
    readonly errno?: string,
  ) {
    super(message);
  }
}

/** What a command reads or keeps, which no output of it may land on. */
export interface Protected {
  /** Folders being read: nothing is written at or below them. */
  roots?: readonly string[];
  /** Files read or kept as state (shard documents, schedules, a key file; the store and the cache with their SQLite side files). */
  files?: readonly (string | undefined)[];
}

/** A SQLite database and the files SQLite keeps beside it: protecting one protects all. */
export const withSqliteFiles = (file: string | undefined): string[] =>
  file === undefined ? [] : [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];

/** How a path is written: a new file renamed into place, or straight into what is already there. */
type Target =
  | { kind: "replace"; file: string; dir: string; was: Stats | null }
  | { kind: "stream"; file: string; what: "a FIFO" | "a character device" }
  | { kind: "fd"; file: string; fd: number };

/**
 * Standard output and error by name: written to the descriptor, never opened or replaced. Other
 * /dev/fd/N names (a shell's `>(gzip > r.gz)`) are opened as what they point to, like any link: a
 * pipe is written into; a regular file behind a link is refused.
 */
function descriptorNamed(file: string): number | null {
  if (file === "/dev/stdout") return 1;
  if (file === "/dev/stderr") return 2;
  const m = /^\/(?:dev|proc\/self)\/fd\/([12])$/.exec(file);
  return m === null ? null : Number(m[1]);
}

/**
 * The descriptor `file` names, directly or through links (a link to /dev/stdout): such a stream may
 * be a socket or a terminal that cannot be opened by name, so it is written to as the process holds it.
 */
function ownDescriptor(file: string): number | null {
  let p = file;
  for (let hops = 0; hops < 8; hops++) {
    const fd = descriptorNamed(p);
    if (fd !== null) return fd;
    let next: string;
    try {
      next = readlinkSync(p);
    } catch {
      return null; // not a link (or not there): not a stream of the process
    }
    p = resolve(dirname(p), next);
  }
  return null;
}

const inside = (path: string, folder: string): boolean =>
  path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);

/** `p` with every existing folder on its way resolved (the file itself may not exist yet). */
function realPath(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPath(parent), basename(abs));
  }
}

const sameFile = (a: Stats | undefined, b: Stats | undefined): boolean =>
  a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
/** stat, or undefined for a path that cannot be looked at (absent, a folder on its way not one, no permission). */
const statOf = (p: string): Stats | undefined => {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/** Refuse an output that lands on what the command reads or keeps. `real`: the output's real path. */
function checkProtected(file: string, real: string, st: Stats | undefined, protect: Protected): void {
  for (const root of protect.roots ?? []) {
    const r = realPath(root);
    if (inside(real, r))
      throw new OutputError(
        `will not write ${forTerminal(file)}: it lies inside ${forTerminal(root)}, which is being read (assay never writes into evidence)`,
      );
  }
  for (const f of protect.files ?? []) {
    if (f === undefined) continue;
    if (realPath(f) === real || sameFile(st, statOf(f)))
      throw new OutputError(
        `will not write ${forTerminal(file)}: it is ${forTerminal(f)}, which this command reads or keeps`,
      );
  }
}

/**
 * A file assay keeps and writes as it goes (the results store, the analysis cache): never at or
 * below a root being read, where it would change the evidence it is about (a database inside a
 * bundle enters its digest; one inside a Harbor job is one more "trial").
 */
export function checkKept(file: string, what: string, roots: readonly string[]): void {
  const real = realPath(file);
  for (const root of roots)
    if (inside(real, realPath(root)))
      throw new OutputError(
        `will not keep ${what} at ${forTerminal(file)}: it lies inside ${forTerminal(root)}, which is being read (assay never writes into evidence; name another place)`,
      );
}

/**
 * Decide how `file` would be written, or refuse it. Called before a long run (so a bad path fails
 * first, not after the work) and again when writing (the file system may have changed meanwhile).
 */
function plan(file: string, protect: Protected, regularOnly: boolean): Target {
  const fd = regularOnly ? null : ownDescriptor(file);
  if (fd !== null) return { kind: "fd", file, fd };
  const dir = dirname(file);
  const folder = statSync(dir, { throwIfNoEntry: false });
  if (folder === undefined)
    throw new OutputError(`cannot write ${forTerminal(file)}: folder ${forTerminal(dir)} does not exist`);
  if (!folder.isDirectory())
    throw new OutputError(`cannot write ${forTerminal(file)}: ${forTerminal(dir)} is not a folder`);
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (st === undefined || st.isFile()) {
    checkProtected(file, realPath(file), st, protect);
    return { kind: "replace", file, dir, was: st ?? null };
  }
  if (st.isDirectory()) throw new OutputError(`cannot write ${forTerminal(file)}: it is a folder`);
  const target = statSync(file, { throwIfNoEntry: false }); // through a link: what would be written into
  const streamable = !regularOnly && target !== undefined && (target.isFIFO() || target.isCharacterDevice());
  if (st.isSymbolicLink() && !streamable)
    throw new OutputError(
      `will not write ${forTerminal(file)}: it is a symbolic link, and assay never replaces a link or the file it points to (give that file's own path)`,
    );
  if (!streamable) throw new OutputError(`will not write ${forTerminal(file)}: it is ${describe(st)}, not a file`);
  checkProtected(file, realPath(file), target, protect);
  return { kind: "stream", file, what: target!.isFIFO() ? "a FIFO" : "a character device" };
}

const describe = (st: Stats): string =>
  st.isFIFO()
    ? "a FIFO"
    : st.isCharacterDevice()
      ? "a character device"
      : st.isBlockDevice()
        ? "a block device"
        : st.isSocket()
          ? "a socket"
          : "a special file";

/** Refuse early an output that cannot or must not be written (before a long run, not after). */
export function checkOutput(file: string, protect: Protected = {}): void {
  plan(file, protect, false);
}

/** Why a write failed, in words (the code is kept for those who know it). */
function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const words: Record<string, string> = {
    ENOSPC: "no space left on the device",
    EFBIG: "the file size limit was reached (ulimit -f)",
    EDQUOT: "the disk quota is exceeded",
    EPIPE: "the reader closed it",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "the file system is read-only",
    EIO: "an input/output error",
  };
  return err.code !== undefined && words[err.code] !== undefined ? `${words[err.code]} (${err.code})` : err.message;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Write all of `buf` to `fd`: a short write is continued, never ignored; a descriptor that is not
 * ready is waited for. `count.n` grows with every byte written (an error says how far it got).
 */
function writeAll(fd: number, buf: Uint8Array, count: { n: number }): void {
  let off = 0;
  while (off < buf.length) {
    let n: number;
    try {
      n = writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      Atomics.wait(pause, 0, 0, 2); // a non-blocking pipe or terminal is full: let the reader catch up
      continue;
    }
    if (n <= 0) throw Object.assign(new Error("the write made no progress"), { code: "EIO" });
    off += n;
    count.n += n;
  }
}

export type Data = string | Uint8Array | Iterable<string | Uint8Array>;

/** Small pieces are gathered into writes of this size: one system call per line would be the cost of a big file. */
const GATHER = 64 * 1024;

/** Strings gathered into pieces of about GATHER characters (a document written entry by entry, to a terminal or a pipe). */
export function* gathered(parts: Iterable<string>): Generator<string> {
  let held: string[] = [];
  let size = 0;
  for (const p of parts) {
    held.push(p);
    if ((size += p.length) < GATHER) continue;
    yield held.join("");
    held = [];
    size = 0;
  }
  if (held.length > 0) yield held.join("");
}

function* pieces(data: Data): Generator<Uint8Array> {
  if (typeof data === "string") return yield Buffer.from(data);
  if (data instanceof Uint8Array) return yield data;
  let held: string[] = [];
  let size = 0;
  for (const p of data) {
    if (typeof p === "string" && p.length < GATHER) {
      held.push(p);
      if ((size += p.length) < GATHER) continue;
    }
    if (held.length > 0) yield Buffer.from(held.join(""));
    held = [];
    size = 0;
    if (typeof p !== "string") yield p;
    else if (p.length >= GATHER) yield Buffer.from(p);
  }
  if (held.length > 0) yield Buffer.from(held.join(""));
}

const STALE_MS = 60 * 60 * 1000;
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** `n` parsed as a temp file of `name` (`.NAME.PID.RANDOM.tmp`, exactly), else null. */
function tempName(name: string, n: string): { pid: number } | null {
  const prefix = `.${name}.`;
  if (!n.startsWith(prefix)) return null;
  const m = /^([0-9]+)\.[0-9a-z]+\.tmp$/.exec(n.slice(prefix.length));
  return m === null ? null : { pid: Number(m[1]) };
}

/**
 * Temp files of `file` left by a writer killed mid-write: removed once their process is gone and
 * they are an hour old, so a shared folder never loses a write in progress.
 */
export function removeStaleTemps(dir: string, name: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = tempName(name, n);
    if (m === null) continue;
    // Best effort: another user's stale file in a shared folder is theirs to remove, never a failure of this run.
    try {
      const st = lstatSync(join(dir, n), { throwIfNoEntry: false });
      if (
        st?.isFile() &&
        st.uid === (process.getuid?.() ?? st.uid) &&
        Date.now() - st.mtimeMs > STALE_MS &&
        !alive(m.pid)
      )
        unlinkSync(join(dir, n));
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

/** Write `data` to an open descriptor (standard output, say), every byte checked; `name` says which in an error. */
export function writeDescriptor(fd: number, data: Data, name: string): number {
  const written = { n: 0 };
  try {
    for (const p of pieces(data)) writeAll(fd, p, written);
  } catch (e) {
    throw new OutputError(
      `cannot write ${name}: ${reason(e)} after ${written.n} bytes`,
      (e as NodeJS.ErrnoException).code,
    );
  }
  return written.n;
}

/** Options of one write. */
export interface WriteOptions {
  protect?: Protected;
  /** Only a regular file (or nothing) may be at the path: never a device or a FIFO (a seal inside a bundle). */
  regularOnly?: boolean;
  /**
   * Create the file, never replace one: it is linked into place (link(2) fails on an existing
   * name), so a file that appears meanwhile is kept, and this write fails instead.
   */
  create?: boolean;
}

/**
 * Write `data` (a string, bytes, or pieces in turn: a large output is never one string) to `file`.
 * A regular file is replaced atomically (temp file, checked writes, fsync, rename, fsync of the
 * folder; the old file's permissions kept); on any failure the temp file is removed and the old
 * file is untouched. Returns the number of bytes written.
 */
export function writeOutput(file: string, data: Data, o: WriteOptions = {}): number {
  const target = plan(file, o.protect ?? {}, (o.regularOnly ?? false) || (o.create ?? false));
  if (o.create && lstatSync(file, { throwIfNoEntry: false }) !== undefined)
    throw new OutputError(`will not write ${forTerminal(file)}: it exists, and this write only creates`);
  const written = { n: 0 };
  const fail = (e: unknown, unchanged: boolean): never => {
    if (e instanceof OutputError) throw e;
    throw new OutputError(
      `cannot write ${forTerminal(file)}: ${reason(e)} after ${written.n} bytes${unchanged ? `; ${forTerminal(file)} is unchanged` : ""}`,
      (e as NodeJS.ErrnoException).code,
    );
  };
  if (target.kind === "fd") return writeDescriptor(target.fd, data, file);
  if (target.kind === "stream") {
    // Opened without O_CREAT or O_TRUNC: what is there is written into, never replaced.
    let fd: number;
    try {
      fd = openSync(file, constants.O_WRONLY | constants.O_NOCTTY);
      if (!(fstatSync(fd).isFIFO() || fstatSync(fd).isCharacterDevice())) {
        closeSync(fd);
        throw new OutputError(`will not write ${forTerminal(file)}: it changed while being opened`);
      }
    } catch (e) {
      return fail(e, false);
    }
    try {
      for (const p of pieces(data)) writeAll(fd, p, written);
    } catch (e) {
      fail(e, false);
    } finally {
      closeSync(fd);
    }
    return written.n;
  }
  removeStaleTemps(target.dir, basename(file));
  const tmp = join(target.dir, `.${basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  let fd: number;
  try {
    fd = openSync(tmp, "wx", 0o644); // O_EXCL: never through a link planted at the temp name
    // A replaced file keeps its permissions (never a setuid or sticky bit) and, for root, its owner.
    if (target.was !== null) {
      fchmodSync(fd, target.was.mode & 0o777);
      if (process.getuid?.() === 0) fchownSync(fd, target.was.uid, target.was.gid);
    }
  } catch (e) {
    rmSync(tmp, { force: true });
    return fail(e, true);
  }
  try {
    try {
      for (const p of pieces(data)) writeAll(fd, p, written);
      fsyncSync(fd); // a full disk can show itself only here (delayed allocation, NFS)
    } finally {
      closeSync(fd);
    }
    plan(file, o.protect ?? {}, true); // still a regular file (or nothing) where it was one
    if (o.create) {
      linkSync(tmp, file);
      rmSync(tmp, { force: true });
    } else renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    fail(e, true);
  }
  try {
    const dfd = openSync(target.dir, "r");
    try {
      fsyncSync(dfd); // the rename itself durable
    } finally {
      closeSync(dfd);
    }
  } catch {
    // Some file systems cannot fsync a folder; the file is in place either way.
  }
  return written.n;
}

export function isEmptyOrAbsent(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/**
 * Write a tree of new files under `root` (which must be empty or absent); each file's bytes are
 * pieces written in turn, so a file far larger than a string can be synthesised.
 */
export function writeTree(root: string, files: Iterable<[string, Data]>): void {
  for (const [rel, data] of files) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    let fd: number;
    try {
      fd = openSync(path, "wx");
    } catch (e) {
      throw new OutputError(`cannot write ${forTerminal(path)}: ${reason(e)}`);
    }
    const written = { n: 0 };
    try {
      for (const p of pieces(data)) writeAll(fd, p, written);
    } catch (e) {
      throw new OutputError(`cannot write ${forTerminal(path)}: ${reason(e)} after ${written.n} bytes`);
    } finally {
      closeSync(fd);
    }
  }
}
