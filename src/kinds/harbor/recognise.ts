// Discovery of Harbor jobs and trials (contract §11). A job holds job.log, or a result.json shaped
// like a job's; a folder whose subfolders are trials is a job even when its own result.json is
// unreadable (a killed writer, a partial copy). Every subfolder of a job is one of its trials,
// whatever it holds. A trial outside a job holds config.json and trial.log or result.json.
import { closeSync, lstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import { textTooDeep } from "../../core/json/strict.js";
import type { Listing, Recogniser } from "../recogniser.js";

const JOB_LOG = "job.log";
const CONFIG = "config.json";
const RESULT = "result.json";
const TRIAL_LOG = "trial.log";
/** What makes a folder look like Harbor evidence (§11): a result, log or reward file. */
const EVIDENCE = [RESULT, TRIAL_LOG, "reward.txt", "reward.json"];

/** §11: a Harbor trial outside a job holds config.json and trial.log or result.json. */
const isLoneTrial = (l: Listing) => l.has(CONFIG) && (l.has(TRIAL_LOG) || l.has(RESULT));

const NEEDLE = Buffer.from('"n_total_trials"');

/**
 * What a folder's result.json says of the folder: a job's ("job": its top level has n_total_trials
 * and stats), something else that parses ("other"), or nothing readable ("unreadable"). The file
 * is scanned in chunks for the key first, so a trial's result.json, however large, is not held.
 * `parse`: read it whole even without the key (only to tell a killed writer's job file apart).
 */
function resultShape(file: string, parse: boolean): "job" | "other" | "unreadable" {
  let fd: number;
  let size: number;
  try {
    const st = lstatSync(file);
    if (!st.isFile() || st.size > MAX_DOCUMENT_BYTES) return "unreadable";
    size = st.size;
    fd = openSync(file, "r");
  } catch {
    return "unreadable";
  }
  try {
    if (!parse && !holdsNeedle(fd)) return "other";
    const whole = Buffer.allocUnsafe(size);
    let at = 0;
    for (let n = -1; n !== 0 && at < size; at += n) n = readSync(fd, whole, at, size - at, at);
    const text = whole.subarray(0, at).toString("utf8");
    // Past the depth evidence may have, JSON.parse would build it all on the main thread first.
    if (textTooDeep(text)) return "unreadable";
    const v = JSON.parse(text) as unknown;
    const shaped =
      typeof v === "object" &&
      v !== null &&
      !Array.isArray(v) &&
      Object.hasOwn(v, "n_total_trials") &&
      Object.hasOwn(v, "stats");
    return shaped ? "job" : "other";
  } catch {
    return "unreadable";
  } finally {
    closeSync(fd);
  }
}

/** Does the file hold the key `"n_total_trials"` anywhere (read in chunks, none kept)? */
function holdsNeedle(fd: number): boolean {
  const buf = Buffer.allocUnsafe(64 * 1024 + NEEDLE.length);
  let carry = 0;
  for (let pos = 0; ;) {
    const n = readSync(fd, buf, carry, buf.length - carry, pos);
    if (n === 0) return false;
    pos += n;
    const filled = carry + n;
    if (buf.subarray(0, filled).includes(NEEDLE)) return true;
    // Keep the last bytes: the key may straddle two reads.
    carry = Math.min(NEEDLE.length - 1, filled);
    buf.copy(buf, 0, filled - carry, filled);
  }
}

export const harborRecogniser: Recogniser = {
  description:
    "a Harbor job (job.log, or a result.json with n_total_trials and stats), a Harbor trial (config.json with trial.log or result.json)",
  markers: [JOB_LOG, CONFIG, ...EVIDENCE],
  members: true,
  folder(dir, l, list) {
    if (l.has(JOB_LOG)) return "container";
    if (l.has(RESULT)) {
      const file = join(dir, RESULT);
      const shape = resultShape(file, false);
      if (shape === "job") return "container";
      const holdsTrials = l.dirs.some((n) => {
        const sub = list(join(dir, n));
        return typeof sub !== "string" && isLoneTrial(sub);
      });
      if (holdsTrials && (shape === "unreadable" || resultShape(file, true) === "unreadable")) return "container";
    }
    return isLoneTrial(l) ? "leaf" : null;
  },
  looksLike: (l) => EVIDENCE.some((n) => l.has(n)),
};
