// The Harbor job folders of a run (contract §11): each one's own files read once, when discovery
// reaches it, into a small record the job-level rules need (kept for the document, in `run`),
// and its claims by trial name, which its trials' Found objects hold until each is placed (placed()
// copies a trial's claim onto its entry): one job's map at a time, never the whole run's.

import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readJob, unreadJob, type Claim, type JobFiles } from "../core/harbor/job.js";
import { MAX_DOCUMENT_BYTES } from "../core/json/decode.js";
import { MAX_JOB_LIST, type JobRecord, type Unrecognised } from "../core/results.js";
import { byteCompare } from "../core/text.js";
import type { Found, FoundContainer } from "../io/discover.js";

/** The largest lock.json read (it names every trial's config: a few kilobytes each). */
const MAX_LOCK_BYTES = 16 * 1024 * 1024;

/** A job file's bytes, null when absent, or why it cannot be read. */
function readFile(file: string, max: number): Uint8Array | null | { unreadable: string } {
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (st === undefined) return null;
  if (!st.isFile()) return { unreadable: `${file.slice(file.lastIndexOf("/") + 1)} is not a regular file` };
  if (st.size > max) return { unreadable: `${st.size} bytes, more than assay reads (${max})` };
  try {
    return readFileSync(file);
  } catch (e) {
    return { unreadable: (e as Error).message };
  }
}

/** The job folders found in a run, and the folders that looked like evidence but were not recognised. */
export class JobBook {
  private readonly byPath = new Map<string, JobRecord>();
  /** Jobs known only from trials given as roots. */
  private readonly partial = new Set<string>();
  private current: { path: string; claims: ReadonlyMap<string, Claim> } | null = null;
  readonly unrecognised: Unrecognised = { count: 0, paths: [] };

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
    const lock = readFile(join(job.dir, "lock.json"), MAX_LOCK_BYTES);
    const files: JobFiles = { result: readFile(join(job.dir, "result.json"), MAX_DOCUMENT_BYTES), lock: lock instanceof Uint8Array ? lock : null };
    const { record, claims } = readJob(job.path, job.name, job.folders, files);
    this.byPath.set(job.path, record);
    this.current = { path: job.path, claims };
  }

  /** A trial of the job discovery is in: it carries what the job's summary says of it. */
  attach(found: Found): void {
    if (found.member?.containerPath !== undefined && this.current?.path === found.member.containerPath) found.member.claims = this.current.claims;
  }

  notRecognised(path: string): void {
    this.unrecognised.count++;
    if (this.unrecognised.paths.length < MAX_JOB_LIST) this.unrecognised.paths.push(path);
  }

  /** The job records, by path. */
  get jobs(): JobRecord[] {
    return [...this.byPath.values()].sort((a, b) => byteCompare(a.path, b.path));
  }
}
