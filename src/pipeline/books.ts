// Each kind's book of its containers as discovery finds them (main process): the kinds' own, looked
// up by the container's kind; and the folders that looked like evidence but were not recognised.
import type { Containers, JobRecord, Unrecognised } from "../core/results.js";
import { MAX_JOB_LIST } from "../core/results.js";
import type { Found, FoundContainer } from "../io/discover.js";
import type { KindName } from "../kinds/declared.js";
import type { ContainerBook } from "../kinds/kind.js";
import { KINDS } from "../kinds/registry.js";

export class Books {
  private readonly byKind = new Map<KindName, ContainerBook>(
    KINDS.flatMap((k) => (k.book === undefined ? [] : [[k.name, k.book()] as const])),
  );
  readonly unrecognised: Unrecognised = { count: 0, paths: [] };

  /** Discovery found a container: its kind's book reads it. */
  found(c: FoundContainer): void {
    this.byKind.get(c.kind)?.found(c);
  }

  /** A unit of evidence, before it is scored: what its container says of it. */
  attach(f: Found): void {
    this.byKind.get(f.kind)?.attach?.(f);
  }

  notRecognised(path: string): void {
    this.unrecognised.count++;
    if (this.unrecognised.paths.length < MAX_JOB_LIST) this.unrecognised.paths.push(path);
  }

  /** The books' records where the document keeps them: `run.jobs`, and `run.containers` (absent when no kind has one). */
  document(): { jobs: JobRecord[]; containers?: Containers } {
    let jobs: JobRecord[] = [];
    const containers: Record<string, unknown[]> = {};
    for (const k of KINDS) {
      const records = this.byKind.get(k.name)?.records();
      if (records === undefined || records.length === 0) continue;
      if (k.recordsIn === "jobs") jobs = records as JobRecord[];
      else containers[k.name] = records;
    }
    return Object.keys(containers).length === 0 ? { jobs } : { jobs, containers: containers as Containers };
  }
}
