// Discovery of Inspect logs (contract §12): a .eval, or a .json named by its timestamp and shaped
// as a log, in any folder walked (or given as a root).
import { closeSync, openSync, readSync } from "node:fs";
import { readDirectory } from "./zip.js";
import type { Recogniser } from "../recogniser.js";

/** Inspect's own rule for a .json log's name (log/_file.py is_log_file): it starts with an ISO timestamp. */
const TIMESTAMPED = /^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$/;
/** Files in Inspect log folders that are not logs (manifests, eval-set state, atomic writes' temporaries). */
const NOT_LOGS = new Set(["logs.json", "listing.json", "eval-set.json"]);

const PK = Buffer.from("PK\x03\x04", "latin1");

/**
 * What an Inspect log file is (§12): a .eval (first bytes PK\x03\x04: anything else named .eval is
 * still read, and reported corrupt, never skipped), or a .json whose top level is an object with
 * `eval` and `status` (Inspect writes them first: the first 64 KiB are read). `name`: the name the
 * rule applies to. Null: not a log. "foreign": a .eval that is a ZIP archive of none of Inspect's members.
 */
export function logFormat(file: string, name: string): "eval" | "json" | "foreign" | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  let head: Buffer;
  try {
    head = Buffer.allocUnsafe(64 * 1024);
    head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
  const zip = head.length >= 4 && head.subarray(0, 4).equals(PK);
  // A ZIP of other files named .eval is said not to be a log; named otherwise, it is no log at all.
  if (zip) return inspectFirst(head) || holdsInspectMember(file) ? "eval" : name.endsWith(".eval") ? "foreign" : null;
  if (name.endsWith(".eval")) return "eval";
  return topKeys(head, ["eval", "status"]) ? "json" : null;
}

/** A member name Inspect writes in a .eval (log/_recorders/eval.py; the chunked layout is under samples/ too). */
const isInspectMember = (name: string): boolean =>
  ["header.json", "summaries.json", "reductions.json"].includes(name) ||
  name.startsWith("_journal/") ||
  name.startsWith("samples/");

/** Is the archive's first member one of Inspect's (its local header, in the bytes read)? Every log Inspect writes starts so. */
function inspectFirst(head: Buffer): boolean {
  if (head.length < 30) return false;
  const n = head.readUInt16LE(26);
  return 30 + n <= head.length && isInspectMember(head.subarray(30, 30 + n).toString("utf8"));
}

/**
 * Does the central directory (or, without one, the local entries) name a member of Inspect's? Read
 * only when the first member is not one (an edited log, or a ZIP of other files). An archive whose
 * members cannot be listed is a log: reading it reports what is wrong with it, never a silent skip.
 */
function holdsInspectMember(file: string): boolean {
  try {
    const { members } = readDirectory(file);
    return members.length === 0 || members.some((m) => isInspectMember(m.name));
  } catch {
    return true;
  }
}

/** Do the top-level keys of the JSON object these bytes begin include all of `wanted` (before the bytes end)? */
function topKeys(b: Buffer, wanted: string[]): boolean {
  const left = new Set(wanted);
  let i = 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x09 || b[i] === 0x0d)) i++;
  if (b[i] !== 0x7b) return false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (; i < b.length && left.size > 0; i++) {
    const c = b[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) {
        inString = false;
        if (depth === 1 && start >= 0) {
          // A key when a colon follows.
          let j = i + 1;
          while (j < b.length && (b[j] === 0x20 || b[j] === 0x0a || b[j] === 0x09 || b[j] === 0x0d)) j++;
          if (b[j] === 0x3a) left.delete(b.subarray(start, i).toString("utf8"));
        }
        start = -1;
      }
    } else if (c === 0x22) {
      inString = true;
      start = i + 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return left.size === 0;
}

export const inspectRecogniser: Recogniser = {
  description: "an Inspect log (a .eval, or a .json named by its timestamp)",
  markers: [],
  fileNoun: "an Inspect log",
  fileDescription: "an Inspect log (a .eval ZIP archive of Inspect's members, or a JSON object with eval and status)",
  maybeFile: (name) =>
    !name.startsWith(".inspect_tmp_") && (name.endsWith(".eval") || (name.endsWith(".json") && !NOT_LOGS.has(name))),
  namedLikeFile: (name) => name.endsWith(".eval") || TIMESTAMPED.test(name),
  file(path, name, asRoot) {
    const format = logFormat(path, name);
    if (format === null) return null;
    // A .eval that is a ZIP archive of other files is no log: counted and listed, never scored as a log begun.
    if (format === "foreign") return "unrecognised";
    // A .json shaped as a log but not named as Inspect names them is not read (Inspect would not list it either).
    return format === "json" && !asRoot && !TIMESTAMPED.test(name) ? "unrecognised" : { format };
  },
};
