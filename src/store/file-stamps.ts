// A file read in place (an Inspect log) is stamped as a bundle folder is (io/bundle-source.ts
// stampsOf: path, kind, size, mtime_ns, inode), as the one entry of itself, so a rerun finds an
// unchanged log in the store without reading a byte of it.
import { statSync } from "node:fs";
import { basename } from "node:path";
import type { BundleEntryInfo } from "../core/folder.js";
import { racy, stampsOf } from "../io/bundle-source.js";

/**
 * The stamps to look the file up by and those to record with its result (marked `#racy`, so they
 * never match, when it changed in the last moments: it may change again within the same mtime
 * tick); null when it cannot be stat'ed (its scorer reports why).
 */
export function fileStamps(file: string, nowMs = Date.now()): { stamps: string; recorded: string } | null {
  try {
    const st = statSync(file, { bigint: true });
    const entry: BundleEntryInfo = {
      path: basename(file),
      kind: "file",
      size: Number(st.size),
      stamp: `${st.mtimeNs}:${st.ino}`,
    };
    const stamps = stampsOf([entry]);
    return { stamps, recorded: racy([entry], nowMs) ? `${stamps}#racy` : stamps };
  } catch {
    return null;
  }
}
