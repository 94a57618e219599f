// The scoring run: discover → read → validate/score (pure core) → batch rules. Effects live here,
// around the core; the CLI and the library API both call this.

import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { computeExperiments, type BatchOptions } from "../core/batch/experiments.js";
import { parseSchedule, type Schedule } from "../core/batch/schedule.js";
import { blankEntry, scoreBundle, sha256 } from "../core/bundle.js";
import { finding, type Code } from "../core/codes.js";
import { attributionOf, lenientObject } from "../core/journal.js";
import type { BundleEntry, Results } from "../core/results.js";
import { byteCompare } from "../core/text.js";
import { SCORING_VERSION, TOOL_VERSION } from "../version.js";
import { diskBundle } from "../io/bundle-source.js";
import { discover, type OnSkip } from "../io/discover.js";

export interface ScoreRunOptions extends BatchOptions {
  schedules: readonly { name: string; schedule: Schedule; digest: string }[];
  /** Called for a directory below a root that could not be walked (the run goes on). */
  onSkip?: OnSkip;
  /** Called after each bundle, for progress. */
  onBundle?: (entry: BundleEntry) => void;
}

export function loadSchedule(file: string): { name: string; schedule: Schedule; digest: string } {
  const bytes = readFileSync(file);
  return { name: file, schedule: parseSchedule(bytes, file), digest: sha256(bytes) };
}

/**
 * Score one bundle directory. A failure of the tool, not the evidence, becomes validity "error":
 * IO_ERROR when the file system refused a read, WORKER_FAILED for anything else (a defect).
 */
export function scoreDirectory(dir: string, path: string): BundleEntry {
  try {
    return { path, ...scoreBundle(diskBundle(dir)) };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return typeof err.code === "string" && err.code.startsWith("E")
      ? toolError(dir, path, "IO_ERROR", err.message)
      : toolError(dir, path, "WORKER_FAILED", `internal error: ${err.message}`);
  }
}

/** An entry for a bundle the tool could not finish, attributed from line 1 when it can be read. */
export function toolError(dir: string, path: string, code: Code, message: string): BundleEntry {
  const attribution = attributionOf(readLine1(`${dir}/journal.jsonl`));
  return { path, ...blankEntry({ ...attribution, validity: "error", errors: [finding(code, null, null, message)] }) };
}

/** Line 1 of a journal as an object (read leniently, at most 1 MiB); null when that fails. */
function readLine1(file: string): Record<string, unknown> | null {
  try {
    const fd = openSync(file, "r");
    try {
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
export function scoreRoots(roots: readonly string[], options: ScoreRunOptions): Results {
  const startedAt = new Date().toISOString();
  const bundles: BundleEntry[] = [];
  for (const found of discover(roots, options.onSkip)) {
    const entry = scoreDirectory(found.dir, found.path);
    bundles.push(entry);
    options.onBundle?.(entry);
  }
  return assemble(bundles, options, startedAt);
}

/** The results document from bundle entries: sorting and batch rules. */
export function assemble(bundles: BundleEntry[], options: ScoreRunOptions, startedAt: string): Results {
  bundles.sort((a, b) => byteCompare(a.path, b.path));
  const schedules = options.schedules.map((s) => s.schedule);
  return {
    format: "assay.results/1",
    run: {
      tool_version: TOOL_VERSION,
      scoring_version: SCORING_VERSION,
      started_at: startedAt,
      options: {
        invalid: options.invalid,
        resource_bound: options.resourceBound,
        schedules: options.schedules.map((s) => `${s.schedule.experiment}:${s.digest}`).sort(byteCompare),
      },
    },
    bundles,
    experiments: computeExperiments(bundles, schedules, options),
  };
}
