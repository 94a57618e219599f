// What an assay bundle the tool could not finish still says of itself (§6 tool errors): who line 1
// of its journal names, and its declared profile, so a world experiment of tool errors still reads
// as a world one. Read in a worker (a bundle that threw) and in the main thread (a worker that died
// or ran out of time).
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { PROFILES, type Profile } from "../../core/results.js";
import type { Attributed } from "../../io/tool-error.js";
import { attributionOf, lenientObject } from "./line1.js";
import { JOURNAL } from "./score.js";

export function attributeBundle(dir: string): Attributed {
  const line1 = readLine1(join(dir, JOURNAL));
  const declared = line1?.["profile"];
  const profile = (PROFILES as readonly unknown[]).includes(declared) ? (declared as Profile) : null;
  return { ...attributionOf(line1), profile };
}

/**
 * Line 1 of a journal as an object (read leniently, at most 1 MiB); null when that fails. Runs
 * in the main thread too: it must never follow a link out of the bundle nor block on a FIFO.
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
