// Writing files without losing anything: atomic replacement and a refusal to write into a
// non-empty synthesis target.

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";

/** Refuse early an output whose folder is missing (before a long run, not after). */
export function checkOutputPath(file: string): void {
  const dir = dirname(file);
  if (!existsSync(dir)) throw new OutputError(`cannot write ${file}: folder ${dir} does not exist`);
}

/**
 * Replace `file` atomically: temp file, fsync, rename, fsync of the folder. `data` as a whole, or
 * as pieces written in turn (a large export is never one string in memory); a failure part-way
 * removes the temp file.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<string>): void {
  checkOutputPath(file);
  const dir = dirname(file);
  const tmp = join(dir, `.${Date.now()}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = openSync(tmp, "wx", 0o644);
  try {
    if (typeof data === "string" || data instanceof Uint8Array) writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
    else for (const piece of data) writeSync(fd, Buffer.from(piece));
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, file);
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
