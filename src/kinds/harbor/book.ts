// Harbor's book (main process): the job folders of a run (contract §11): each one's own files read once, when discovery
// reaches it, into a small record the job-level rules need (kept for the document, in `run`),
// and its claims by trial name and task digests by task name, which its trials' Found objects hold
// until each is placed (placed() copies them onto its entry): one job's maps at a time, never the
// whole run's. Each Harbor trial's `harbor analyze` output is read here too, bounded: it is not
// evidence (outside the digest a worker or the store answers for), so it is read where the trial lies.

import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import {
  ANALYSIS_JSON,
  MARKDOWN_HEAD_BYTES,
  MAX_ANALYSIS_BYTES,
  readAnalysis,
  type AnalysisFiles,
} from "./analysis.js";
import { readJob, unreadJob, type Claim, type JobFiles, type JobLock } from "./job.js";
import { MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import type { JobRecord } from "../../core/results.js";
import { HARBOR_HARNESS, jobBenchmark } from "./identity.js";
import { placeTrial } from "./place.js";
import { NO_ENTRY_IDENTITY, type Benchmark, type EntryIdentity } from "../../core/identity.js";
import { byteCompare } from "../../core/text.js";
import type { Found, FoundContainer } from "../../io/discover.js";
import { readSmallFile, statOf } from "../../io/small-file.js";
import { topFilesDigest } from "../../io/container-digest.js";
import type { ContainerBook } from "../kind.js";

/** The largest lock.json read (it names every trial's config: a few kilobytes each). */
const MAX_LOCK_BYTES = 16 * 1024 * 1024;

/** A trial's analysis.json (bounded), else the head of analysis.md or summary.md (its first line is shown), else null. */
function analysisFiles(dir: string): AnalysisFiles | null {
  const json = readSmallFile(join(dir, ANALYSIS_JSON), MAX_ANALYSIS_BYTES);
  if (json instanceof Uint8Array) return { file: ANALYSIS_JSON, json };
  if (json !== null) return { file: ANALYSIS_JSON, unreadable: json.unreadable };
  for (const file of ["analysis.md", "summary.md"]) {
    const head = readHead(join(dir, file), MARKDOWN_HEAD_BYTES);
    if (head !== null) return typeof head === "string" ? { file, unreadable: head } : { file, markdown: head };
  }
  return null;
}

/** A regular file's first `max` bytes, null when absent, or why it cannot be read. */
function readHead(file: string, max: number): Uint8Array | string | null {
  const st = statOf(file);
  if (typeof st === "string") return st;
  if (st === undefined) return null;
  if (!st.isFile()) return `${file.slice(file.lastIndexOf("/") + 1)} is not a regular file`;
  try {
    const fd = openSync(file, "r");
    try {
      const buf = Buffer.alloc(Math.min(max, st.size));
      return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * What a job's lock.json records of its trials' run: the Harbor version (a trial records none),
 * and the agent and model every trial was configured with (for a trial that records nothing of
 * its own: killed before its result.json); and the dataset its config.json draws every trial
 * from (identity.ts jobBenchmark); null when it records none of these.
 */
function jobIdentity(lock: JobLock, benchmark: Benchmark | null): EntryIdentity | null {
  if (lock.version === null && lock.agent === null && lock.model === null && benchmark === null) return null;
  return Object.freeze({
    ...NO_ENTRY_IDENTITY,
    agent: lock.agent,
    model: lock.model,
    benchmark,
    harness: Object.freeze({ name: HARBOR_HARNESS, version: lock.version }),
  });
}

/** The Harbor job folders found in a run. */
export class JobBook implements ContainerBook {
  private readonly byPath = new Map<string, JobRecord>();
  /** Jobs known only from trials given as roots. */
  private readonly partial = new Set<string>();
  private current: {
    path: string;
    claims: ReadonlyMap<string, Claim>;
    tasks: JobLock["tasks"];
    identity: EntryIdentity | null;
  } | null = null;

  /** Discovery found a job: read its files (unless only a trial of it was given). */
  found(job: FoundContainer): void {
    const known = this.byPath.get(job.path);
    if (job.partial) {
      // Only a trial of it was given: its name, and how many of its trials were.
      if (known === undefined) {
        this.byPath.set(job.path, unreadJob(job.path, job.name, 1));
        this.partial.add(job.path);
      } else if (this.partial.has(job.path)) known.folders++;
      return;
    }
    this.partial.delete(job.path);
    const lock = readSmallFile(join(job.dir, "lock.json"), MAX_LOCK_BYTES);
    const files: JobFiles = { result: readSmallFile(join(job.dir, "result.json"), MAX_DOCUMENT_BYTES), lock };
    // §15.3: every subfolder of a job is a trial, so its own files are its top-level ones.
    const digest = topFilesDigest(job.dir);
    const { record, claims, tasks, lock: l } = readJob(job.path, job.name, job.folders, files, digest);
    this.byPath.set(job.path, record);
    const benchmark = jobBenchmark(readSmallFile(join(job.dir, "config.json"), MAX_DOCUMENT_BYTES));
    this.current = { path: job.path, claims, tasks, identity: jobIdentity(l, benchmark) };
  }

  /** A Harbor trial: it carries what the job's summary and lock.json say of it, and what `harbor analyze` wrote beside it. */
  attach(found: Found): void {
    const h = found.member;
    if (h === undefined) return;
    const mine = h.containerPath !== undefined && this.current?.path === h.containerPath;
    if (mine) h.claims = this.current!.claims;
    if (mine && this.current!.identity !== null) h.identity = this.current!.identity;
    const files = analysisFiles(found.dir);
    const place = { analysis: files === null ? null : readAnalysis(files), tasks: mine ? this.current!.tasks : null };
    h.place = (entry) => placeTrial(entry, place);
  }

  /** The job records, by path. */
  records(): JobRecord[] {
    return [...this.byPath.values()].sort((a, b) => byteCompare(a.path, b.path));
  }
}
