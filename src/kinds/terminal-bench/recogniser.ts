// What discovery asks of a folder (main process, docs/terminal-bench.md rule 1): a `tb run` folder
// is a container whose members lie one folder down (`<task>/<trial>/`), decided from the first
// bytes of its results.json (recognise.ts decides; this reads them).
import { closeSync, lstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { Lister, Listing, Recogniser } from "../recogniser.js";
import { MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import { isTaskFolder, parseTrialName, recogniseRun, RUN_HEAD_BYTES, RUN_HEAD_GROWTH } from "./recognise.js";
import { RUN_METADATA, RUN_RESULTS, TB_LOCK } from "./record.js";

/** The first `size` bytes of a file (null: absent, or not a regular file: a FIFO would block the open; "unreadable": a regular file that cannot be read). */
function head(file: string, size: number): Uint8Array | null | "unreadable" {
  let fd: number;
  try {
    if (lstatSync(file).isFile() !== true) return null;
  } catch {
    return null;
  }
  try {
    fd = openSync(file, "r");
  } catch {
    return "unreadable";
  }
  try {
    const buf = Buffer.alloc(size);
    let at = 0;
    for (let n = -1; n !== 0 && at < buf.length; at += n) n = readSync(fd, buf, at, buf.length - at, null);
    return buf.subarray(0, at);
  } catch {
    return "unreadable";
  } finally {
    closeSync(fd);
  }
}

/** A subfolder named like the task of its own subfolders (a listing that fails is not one). */
function hasTrials(dir: string, name: string, list: Lister): boolean {
  const sub = list(dir);
  return typeof sub !== "string" && isTaskFolder(name, sub.dirs);
}

const siblings = (l: Listing) => ({ tbLock: l.has(TB_LOCK), runMetadata: l.has(RUN_METADATA) });

/**
 * Is results.json a run's? Read from its head, longer while undecided, up to what the run's book
 * would read of it at all. One that cannot be read, or is cut before its list, is a run's when a
 * subfolder is a task folder (named like its trials' parent): a run whose list cannot be read
 * (its book says so, rule 15a holds its trials to their panes), never one whose trials vanish.
 */
function isRun(file: string, l: Listing, list: Lister): boolean {
  for (let size = RUN_HEAD_BYTES; ; size = Math.min(size * RUN_HEAD_GROWTH, MAX_DOCUMENT_BYTES)) {
    const bytes = head(file, size);
    const tasksBeside = () => l.dirs.some((d) => hasTrials(join(file, "..", d), d, list));
    if (bytes === "unreadable") return tasksBeside();
    if (bytes === null) return false;
    const r = recogniseRun(bytes, siblings(l), bytes.byteLength < size || size === MAX_DOCUMENT_BYTES);
    if (!r.run && r.cut === true) return tasksBeside();
    if (r.run || r.more !== true) return r.run;
  }
}

export const terminalBenchRecogniser: Recogniser = {
  description: "a Terminal-Bench run (results.json listing trials, beside <task>/<trial>/ folders)",
  markers: [RUN_RESULTS, TB_LOCK, RUN_METADATA],
  folder(dir, l, list) {
    return l.has(RUN_RESULTS) && isRun(join(dir, RUN_RESULTS), l, list) ? "container" : null;
  },
  // A subfolder of a run groups trials when one of its subfolders is named like its trial; else it is walked (a run nested inside).
  groupOf: (name, l) => (isTaskFolder(name, l.dirs) ? (child) => parseTrialName(child, name) !== null : null),
  // Run-shaped files whose results.json is not a run's (malformed, or no trial yet without a sibling): said, never passed over.
  looksLike: (l) => l.has(RUN_RESULTS) && (l.has(TB_LOCK) || l.has(RUN_METADATA)),
};
