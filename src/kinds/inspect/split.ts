// A large .eval spread over the workers (contract §12, issue 14 item 2): the main thread reads only
// its central directory and hands out parts — the meta members, ranges of sample members, the
// file's digest — which workers read at once; each returns small per-sample records, and when the
// last part is back the log's pure last step (log.ts) runs in the main thread over those records.
// Memory holds a small record per sample until then, never a sample. The pipeline reaches this
// through the kind's face (Kind.split).

import { shareStrings } from "./sample.js";
import type { BundleEntry } from "../../core/results.js";
import type { Found } from "../../io/discover.js";
import type { FileAssembly, FilePart, SplitSizes } from "../kind.js";
import type { PartResult } from "../scorer.js";
import {
  assemble,
  finishParts,
  partsOf,
  RecordBudget,
  recordsTooLarge,
  type InspectTask,
  type LogPartResult,
} from "./read.js";
import { overDecodeBudget, readDirectory, type ZipDirectory, type ZipMember } from "./zip.js";

/**
 * When to split: a .eval of at least `logBytes`, into parts of at most `partBytes` of compressed
 * sample members (or one sample). A log under 4 MiB is read whole by one worker (batched with others, as small bundles are): the
 * worker then also runs its last step, where a split log's records all come back to the main
 * thread (~0.1 ms of its time a sample). Larger ones are split into parts of 1 MiB of zstd (~4 MB of
 * JSON, a few hundred ms of a worker), each a pool task of its own: eight logs of 1–15 MB, or one
 * of 15 MB, keep both workers busy to the end (read whole, or in 4 MiB parts batched as bundles
 * are, a 15 MB log was one worker's alone).
 */
export const SPLIT: SplitSizes = { logBytes: 4 * 1024 * 1024, partBytes: 1024 * 1024 };
const PART_MEMBERS = 2048;

/** One part of a split log, to hand to a worker; `bytes` for batching and progress. */
export interface LogPart extends FilePart {
  readonly task: Exclude<InspectTask, { part: "whole" }>;
  readonly assembly: LogAssembly;
}

/** The parts of one log as they come back; done when every part has. */
export class LogAssembly implements FileAssembly {
  private meta: LogPartResult | null = null;
  private readonly samples: LogPartResult[] = [];
  private digest: string | null = null;
  private failed: BundleEntry | null = null;
  private left: number;
  /** Each part out, by its place in the log's member order; an answered part is let go (its members with it). */
  private readonly order = new Map<FilePart, number>();
  /** Of the central directory, only what the last step reads: the members (110,004 of them, 23 MB in a large log) are not kept. */
  private readonly truncated: boolean;
  private readonly findings: ZipDirectory["findings"];
  /** The records' recurring strings, one copy each (shareStrings): they wait here for the last part. */
  private readonly strings = new Map<string, string>();
  /** The records held so far, against the one ceiling a log read whole has; past it they are dropped. */
  private readonly budget = new RecordBudget();
  private overBudget = false;

  constructor(
    readonly found: Found,
    directory: ZipDirectory,
    parts: number,
  ) {
    this.left = parts;
    this.truncated = directory.truncated;
    this.findings = directory.findings;
  }

  /** A part's result, or the tool error that stood for it (a worker that died or timed out). Returns the entry once the last part is in. */
  add(part: FilePart, answer: PartResult | BundleEntry): BundleEntry | null {
    // Its parts are read by its own scorer (readPart): each answer is a log's part, or a tool error.
    const r = answer as LogPartResult | BundleEntry;
    const at = this.order.get(part) ?? 0;
    this.order.delete(part);
    if (!("part" in r)) this.failed ??= r;
    else if (r.part === "meta") this.meta = r;
    else if (r.part === "digest") this.digest = r.digest ?? null;
    else if (!this.overBudget) {
      if (!this.budget.add(r.samples ?? [])) {
        this.overBudget = true;
        this.samples.length = 0; // what a log past its ceiling read is dropped at once, as a worker reading it whole stops
      } else {
        if (this.failed === null) for (const rec of r.samples ?? []) shareStrings(rec, this.strings);
        this.samples[at] = r;
      }
    }
    if (--this.left > 0) return null;
    if (this.failed !== null) return { ...this.failed, path: this.found.path };
    const samples = this.overBudget
      ? [{ findings: [], toolError: recordsTooLarge }]
      : this.samples.filter((s) => s !== undefined);
    const parts = assemble(this.digest ?? "", this.truncated, this.findings, this.meta!, samples);
    return { path: this.found.path, ...finishParts(parts) };
  }

  /** Parts are numbered as they are made: records join in the log's own member order. */
  number(part: FilePart): void {
    this.order.set(part, this.order.size);
  }
}

/**
 * The parts of a .eval worth splitting, or null: read it whole (small, cut short, or not a ZIP
 * the directory can be read from — the worker then reports what is wrong with it).
 */
export function splitLog(found: Found, split: SplitSizes = SPLIT): LogPart[] | null {
  if (found.file?.format !== "eval" || found.file.size < split.logBytes) return null;
  let directory: ZipDirectory;
  try {
    directory = readDirectory(found.dir);
  } catch {
    return null;
  }
  if (directory.truncated || directory.members.length === 0) return null;
  const { meta, samples, units } = partsOf(directory.members);
  // Past its decoding budget: read whole, where the worker refuses it before decoding a sample.
  if (overDecodeBudget([...meta, ...samples], directory.size) !== null) return null;
  const ranges: ZipMember[][] = [];
  let bytes = 0;
  // By sample: a chunked sample's parts make one record, so one worker reads them all.
  for (const unit of units) {
    const size = unit.reduce((a, m) => a + m.csize, 0);
    const last = ranges[ranges.length - 1];
    if (last === undefined || bytes + size > split.partBytes || last.length + unit.length > PART_MEMBERS) {
      ranges.push([...unit]);
      bytes = size;
    } else {
      for (const m of unit) last.push(m); // a loop: a sample of many chunks spread as arguments could overflow the stack
      bytes += size;
    }
  }
  const log = new LogAssembly(found, directory, ranges.length + 2);
  // The digest (the whole file hashed) and the meta members first: the longest parts start soonest.
  const parts: LogPart[] = [
    { task: { part: "digest" }, bytes: 0, assembly: log },
    { task: { part: "meta", members: meta }, bytes: meta.reduce((s, m) => s + m.csize, 0), assembly: log },
    ...ranges.map((r): LogPart => ({
      task: { part: "samples", members: r },
      bytes: r.reduce((s, m) => s + m.csize, 0),
      assembly: log,
    })),
  ];
  for (const p of parts) if (p.task.part === "samples") log.number(p);
  return parts;
}
