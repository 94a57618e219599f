// A container's digest (contract §15.3: a Harbor job, a Terminal-Bench run, a SWE-bench model
// folder): the §7 digest over the files that hold its own claims, which no entry's digest covers.
// Which files those are is its kind's to say (its book, as it reads the container); this lists a
// folder's own files and hashes them, each streamed, in the main process.
import { isUtf8 } from "node:buffer";
import { opendirSync, type Dir } from "node:fs";
import { join } from "node:path";
import { bundleDigest, READINGS } from "../core/folder.js";
import { fileDigest } from "./bundle-source.js";

/**
 * The regular files directly in `dir`, and its subfolders when `dirs` (a Harbor job's are its
 * trials, perhaps a million: never kept), by name; null when it cannot be listed. Read an entry at
 * a time. A link is neither (never followed); nor is a name results cannot hold (not UTF-8, or
 * holding a tab or line break, which would also make a line of the digest ambiguous).
 */
export function ownListing(dir: string, dirs = true): { files: string[]; dirs: string[] } | null {
  const out = { files: [] as string[], dirs: [] as string[] };
  let d: Dir | undefined;
  try {
    d = opendirSync(dir, { encoding: "buffer" as BufferEncoding });
    for (let e = d.readSync(); e !== null; e = d.readSync()) {
      const raw = e.name as unknown as Buffer;
      if (!isUtf8(raw)) continue;
      const name = raw.toString("utf8");
      if (/[\t\n\r]/.test(name)) continue;
      if (e.isFile()) out.files.push(name);
      else if (dirs && e.isDirectory()) out.dirs.push(name);
    }
  } catch {
    return null;
  } finally {
    try {
      d?.closeSync();
    } catch {
      // closed already, or the handle is gone: nothing of the listing depends on it
    }
  }
  return out;
}

/**
 * The §7 digest ("<path>\t<SHA-256>\n" by byte order of path) over `paths`, relative to `dir` and
 * '/'-separated (`../…` for a file of the container's that lies outside it); a top-level reading
 * (analysis.json, analysis.md, summary.md: core/folder.ts) is never in it, as for trials. null when
 * one cannot be read: the container then has no digest to attest.
 */
export function containerDigest(dir: string, paths: Iterable<string>): string | null {
  const files = new Map<string, string>();
  try {
    for (const p of paths) if (!READINGS.has(p) && !files.has(p)) files.set(p, fileDigest(join(dir, p)));
  } catch {
    return null;
  }
  return bundleDigest(files, null);
}

/** A folder's own regular files' digest, when all of them are its own (a Harbor job: every subfolder is a trial); null when unlisted or unread. */
export function topFilesDigest(dir: string): string | null {
  const own = ownListing(dir, false);
  return own === null ? null : containerDigest(dir, own.files);
}
