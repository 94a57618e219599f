// A bundle on disk as a BundleSource: lists every entry without following links, reads in chunks.

import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, type BigIntStats } from "node:fs";
import { basename, join } from "node:path";
import { bundleDigest, SEAL, type BundleEntryInfo, type BundleSource, type EntryKind } from "../core/folder.js";
import { byteCompare } from "../core/text.js";

const CHUNK = 1024 * 1024;

const kindOf = (st: BigIntStats): EntryKind =>
  st.isSymbolicLink() ? "symlink" : st.isFile() ? "file" : st.isDirectory() ? "dir" : "other";

/** The file system would not name the path: longer than PATH_MAX, or a loop of links on the way. */
const unnamable = (e: unknown): boolean => ["ENAMETOOLONG", "ELOOP"].includes((e as NodeJS.ErrnoException).code ?? "");

/**
 * Every entry below `dir` (lstat: links are reported, never followed). Names are read as bytes:
 * a name that is not UTF-8 cannot be named in results, so it is listed as such (UNSAFE_PATH).
 * An entry the file system cannot name (a folder chain deeper than PATH_MAX) is listed as
 * "too-deep", not descended into: a hostile bundle is bad evidence, not a failure of the tool.
 */
export function listEntries(dir: string, withStamps = false): BundleEntryInfo[] {
  const out: BundleEntryInfo[] = [];
  // Depth first, each folder's entries in the order read, an entry before what it holds; a stack
  // of the folders still being listed, not a call per level (a chain may be PATH_MAX deep).
  const stack: { rel: string; names: Buffer[]; at: number }[] = [
    { rel: "", names: readdirSync(dir, { encoding: "buffer" }), at: 0 },
  ];
  while (stack.length > 0) {
    const top = stack.at(-1)!;
    const raw = top.names[top.at++];
    if (raw === undefined) {
      stack.pop();
      continue;
    }
    const rel = top.rel;
    const path = rel === "" ? raw.toString("utf8") : `${rel}/${raw.toString("utf8")}`;
    if (!isUtf8(raw)) {
      out.push({ path, kind: "unnamed", size: 0 });
      continue;
    }
    let st: BigIntStats;
    try {
      st = lstatSync(join(dir, path), { bigint: true });
    } catch (e) {
      if (!unnamable(e)) throw e;
      out.push({ path, kind: "too-deep", size: 0 });
      continue;
    }
    const kind = kindOf(st);
    const info: BundleEntryInfo = { path, kind, size: Number(st.size) };
    if (withStamps) info.stamp = `${st.mtimeNs}:${st.ino}`;
    out.push(info);
    if (kind === "dir") stack.push({ rel: path, names: readdirSync(join(dir, path), { encoding: "buffer" }), at: 0 });
  }
  return out;
}

/** listEntries, or undefined when the folder cannot be listed (whoever scores it reports why). */
export function tryListEntries(dir: string, withStamps = false): BundleEntryInfo[] | undefined {
  try {
    return listEntries(dir, withStamps);
  } catch {
    return undefined;
  }
}

/**
 * A file's bytes in chunks. `listed`: its size as listed, when known, which saves an fstat; it
 * only sizes the buffer and ends the file early (a short read that meets it), so any value reads
 * every byte the file holds when read.
 */
export function* readChunks(file: string, listed?: number): Generator<Uint8Array> {
  const fd = openSync(file, "r");
  try {
    // Small files get small buffers (from Node's pool): a 1 MiB buffer per summary is GC churn.
    // A pipe or device states no size (0): it gets whole chunks and is read to its end.
    const st = listed === undefined ? fstatSync(fd) : null;
    const stated = st === null ? listed! : st.isFile() ? st.size : null;
    let size = stated === null ? CHUNK : Math.min(CHUNK, stated + 1);
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(size);
      const n = readSync(fd, buf, 0, size, null);
      if (n === 0) return;
      total += n;
      yield n === size ? buf : buf.subarray(0, n);
      // A read that came up short exactly at the stated size met the end: the read that would
      // return 0 is saved (a file that grew fills the buffer and is read on).
      if (n < size && total === stated) return;
      // A full buffer: the file holds more than was stated (a stale listing of 0 bytes would
      // otherwise be read a byte at a time), so the rest comes in whole chunks.
      if (n === size) size = CHUNK;
    }
  } finally {
    closeSync(fd);
  }
}

/** A bundle folder as a source; `entries` when it was already listed (stamps are the store's). */
export function diskBundle(dir: string, entries?: BundleEntryInfo[]): BundleSource {
  const listing = entries ?? listEntries(dir);
  const sizes = new Map(listing.map((e) => [e.path, e.size]));
  return { entries: listing, read: (path) => readChunks(join(dir, path), sizes.get(path)), name: basename(dir) };
}

/**
 * One string for a bundle's stamps (path, kind, size, mtime_ns, inode of every entry, folders
 * included: an empty folder added where a file is expected changes a verdict): any change changes it.
 */
export function stampsOf(entries: readonly BundleEntryInfo[]): string {
  const h = createHash("sha256");
  for (const e of [...entries].sort((a, b) => byteCompare(a.path, b.path)))
    h.update(`${e.path}\t${e.kind}\t${e.size}\t${e.stamp}\n`);
  return h.digest("hex");
}

/**
 * What a stored result is keyed on besides the §7 digest, which covers regular files only:
 * seal.json's digest, and every entry that is not a regular file (a folder named
 * verifier/reward.json, say, changes a verdict while no file changes). Just the seal's digest (or
 * null) for a folder of plain files.
 */
export function beyondDigest(dir: string, entries: readonly BundleEntryInfo[]): string | null {
  const seal = sealDigest(dir, entries);
  const others = entries
    .filter((e) => e.kind !== "file")
    .map((e) => `${e.path}\t${e.kind}`)
    .sort(byteCompare);
  return others.length === 0
    ? seal
    : createHash("sha256")
        .update(JSON.stringify([seal, others]))
        .digest("hex");
}

/** SHA-256 of one file, streamed. */
export function fileDigest(file: string): string {
  const h = createHash("sha256");
  for (const c of readChunks(file)) h.update(c);
  return h.digest("hex");
}

/** The §7 bundle digest of a listed folder (`excluded`: seal.json for bundles, nothing for Harbor trials). */
export function folderDigest(dir: string, entries: readonly BundleEntryInfo[], excluded: string | null = SEAL): string {
  const files = new Map<string, string>();
  for (const e of entries)
    if (e.kind === "file" && e.path !== excluded) files.set(e.path, fileDigest(join(dir, e.path)));
  return bundleDigest(files, excluded);
}

export const sealDigest = (dir: string, entries: readonly BundleEntryInfo[]): string | null =>
  entries.some((e) => e.path === SEAL && e.kind === "file") ? fileDigest(join(dir, SEAL)) : null;

/** Files modified within the last 2 s: their stamps cannot yet prove they are unchanged later. */
export function racy(entries: readonly BundleEntryInfo[], nowMs = Date.now()): boolean {
  const limit = BigInt(nowMs - 2000) * 1_000_000n;
  return entries.some((e) => e.kind === "file" && e.stamp !== undefined && BigInt(e.stamp.split(":")[0]!) > limit);
}
