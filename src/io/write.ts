// Writing files without losing anything: atomic replacement and a refusal to write into a
// non-empty synthesis target.

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Refuse early an output that cannot be written (before a long run, not after). */
export function checkOutputPath(file: string): void {
  const dir = dirname(file);
  const folder = statSync(dir, { throwIfNoEntry: false });
  if (folder === undefined) throw new OutputError(`cannot write ${file}: folder ${dir} does not exist`);
  if (!folder.isDirectory()) throw new OutputError(`cannot write ${file}: ${dir} is not a folder`);
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new OutputError(`cannot write ${file}: it is a folder`);
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

/**
 * Temp files of `file` left by a writer killed mid-write (named `.NAME.PID.RANDOM.tmp`): removed
 * once their process is gone and they are an hour old, so a shared folder never loses a write
 * in progress.
 */
function removeStaleTemps(dir: string, name: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = tempName(name, n);
    if (m === null) continue;
    const st = statSync(join(dir, n), { throwIfNoEntry: false });
    if (st?.isFile() && Date.now() - st.mtimeMs > STALE_MS && !alive(m.pid)) rmSync(join(dir, n), { force: true });
  }
}

/** `n` parsed as a temp file of `name` (`.NAME.PID.RANDOM.tmp`, exactly), else null. */
function tempName(name: string, n: string): { pid: number } | null {
  const prefix = `.${name}.`;
  if (!n.startsWith(prefix)) return null;
  const m = /^([0-9]+)\.[0-9a-z]+\.tmp$/.exec(n.slice(prefix.length));
  return m === null ? null : { pid: Number(m[1]) };
}

/**
 * Replace `file` atomically: temp file, fsync, rename, fsync of the folder. `data` as a whole, or
 * as pieces written in turn (a large export is never one string in memory); a failure part-way
 * removes the temp file.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<string>): void {
  checkOutputPath(file);
  const dir = dirname(file);
  removeStaleTemps(dir, basename(file));
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = openSync(tmp, "wx", 0o644);
  try {
    try {
      if (typeof data === "string" || data instanceof Uint8Array) writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
      else for (const piece of data) writeSync(fd, Buffer.from(piece));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  const dfd = openSync(dir, "r");
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/** An output path the user gave that cannot be written. */
export class OutputError extends Error {
  readonly code = "USAGE";
}

export function isEmptyOrAbsent(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/** Write a tree of new files under `root` (which must be empty or absent). */
export function writeTree(root: string, files: Iterable<[string, Uint8Array]>): void {
  for (const [rel, bytes] of files) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, "wx");
    try {
      writeSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
  }
}
