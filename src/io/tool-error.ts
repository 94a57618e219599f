// Entries for bundles the tool could not finish (§6 tool errors). Used in workers (a bundle that
// threw) and in the main thread (a worker that died or ran out of time returned nothing).

import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { finding, type Code } from "../core/codes.js";
import { attributionOf, lenientObject } from "../core/journal.js";
import { blankEntry, PROFILES, type BundleEntry, type Profile } from "../core/results.js";
import { declarationOf, type KindName } from "../kinds/declared.js";

/**
 * An entry for something the tool could not finish. A kind of one profile names it (a Harbor
 * trial is attributed where it lies after this; an Inspect log's identity is in the log the tool
 * could not read, so it has none); an assay bundle is attributed from line 1 when it can be read.
 */
export function toolError(dir: string, path: string, code: Code, message: string, kind: KindName = "bundle"): BundleEntry {
  const { profiles } = declarationOf(kind);
  if (profiles.length === 1) return { path, ...blankEntry({ profile: profiles[0], validity: "error", errors: [finding(code, null, null, message)] }) };
  const line1 = readLine1(join(dir, "journal.jsonl"));
  const declared = line1?.["profile"];
  // The declared profile too, so a world experiment of tool errors still reads as a world one.
  const profile = (PROFILES as readonly unknown[]).includes(declared) ? (declared as Profile) : null;
  return { path, ...blankEntry({ ...attributionOf(line1), profile, validity: "error", errors: [finding(code, null, null, message)] }) };
}

/**
 * Line 1 of a journal as an object (read leniently, at most 1 MiB); null when that fails. Runs
 * in the main thread: it must never follow a link out of the bundle nor block on a FIFO.
 */
function readLine1(file: string): Record<string, unknown> | null {
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) return null;
      const buf = Buffer.alloc(1024 * 1024);
      const n = readSync(fd, buf, 0, buf.length, 0);
      const nl = buf.subarray(0, n).indexOf(0x0a);
      return lenientObject(buf.subarray(0, nl === -1 ? n : nl));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}
