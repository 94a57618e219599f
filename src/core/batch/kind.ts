// What the batch rules need of a kind (each kind's face, kinds/kind.ts, extends this): its part of
// the compact record and its rules over its own records. Core names no kind: the caller hands the
// run's kinds in (kinds/batch.ts binds the list's).
import type { Code, Finding } from "../codes.js";
import type { BundleEntry, Containers, Experiment, JobRecord } from "../results.js";
import type { BatchOptions } from "./experiments.js";
import type { BatchRecord } from "./record.js";
import type { Schedule } from "./schedule.js";

/** The batch record's fields only some kinds fill: each kind its own, the rest read as empty. */
export type RecordPart = Partial<
  Pick<
    BatchRecord,
    | "digest"
    | "task_checksum"
    | "rewards"
    | "reward_source"
    | "flags"
    | "harbor_id"
    | "job_id"
    | "job"
    | "claimed"
    | "exception"
    | "samples"
    | "inspect"
    | "usage"
    | "own"
  >
>;

/** What a kind's record part may share with every other record: one string, code list or small object per value. */
export interface Sharing {
  string<T extends string | null>(v: T): T;
  codes(fs: readonly { code: Code }[], distinct: boolean): readonly { readonly code: Code }[];
  one<T extends object>(v: T | null): T | null;
}

/** What a kind's batch rules may read of the run besides its records. */
export interface BatchRun {
  schedules: readonly Schedule[];
  options: BatchOptions;
  /** The Harbor job folders discovery read (their plans and claims). */
  jobs: readonly JobRecord[];
  /** The other kinds' container records (a Terminal-Bench run's own files), by kind. */
  containers: Containers;
}

/** A kind's batch rules over one run: its experiments' names, and the experiments. */
export interface KindBatch {
  /** The experiment one of its entries (or records) is shown under. */
  nameOf(e: BatchRecord): string | null;
  experiments(): Experiment[];
  /** Hard findings its batch rules add to one of its entries (a Terminal-Bench run's rules make a trial invalid): bundles[] says them too. */
  errorsOf?(e: BatchRecord): readonly Finding[];
}

export interface BatchKind {
  readonly name: string;
  /**
   * An entry's own task (or scenario) is one unit of its experiment's task set (run identity,
   * core/identity.ts): true for kinds whose bundle is a trial; false where a bundle is a whole run
   * (an Inspect log), whose identity gives the set itself.
   */
  readonly trialTasks: boolean;
  /** Its part of an entry's compact record (none: its records carry only the common fields). */
  recordPart?(e: BundleEntry, share: Sharing): RecordPart;
  /** Its batch rules over a run's records of this kind (pure: a merge of shards recomputes exactly this). */
  batch(records: readonly BatchRecord[], run: BatchRun): KindBatch;
}

/** The kinds of a run, in the order reports name them, and the one an entry's profile belongs to (a profile no kind knows: the fallback's). */
export interface BatchKinds {
  readonly all: readonly BatchKind[];
  of(profile: string | null): BatchKind;
}
