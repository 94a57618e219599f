// What the main process needs of a kind: its words, its part of the compact batch record, and its
// batch rules. Each kind's is in its folder (kind.ts); the pipeline, the store, the reports and the
// analyses look a kind up in the registry (registry.ts) and never branch on its name.
import type { BatchOptions } from "../core/batch/experiments.js";
import type { BatchRecord } from "../core/batch/record.js";
import type { Schedule } from "../core/batch/schedule.js";
import type { Code, Finding } from "../core/codes.js";
import type { BundleEntry, Containers, Experiment, JobRecord, Profile } from "../core/results.js";
import type { Found, FoundContainer } from "../io/discover.js";
import type { EvidencePack } from "../analysis/evidence.js";
import type { Words } from "../report/words.js";
import type { KindName } from "./declared.js";
import type { Recogniser } from "./recogniser.js";

/** The batch record's fields only some kinds fill: each kind its own, the rest read as empty. */
export type RecordPart = Partial<
  Pick<BatchRecord, "digest" | "task_checksum" | "rewards" | "reward_source" | "flags" | "harbor_id" | "job_id" | "job" | "claimed" | "exception" | "samples" | "inspect" | "usage" | "own">
>;

/** What a kind's record part may share with every other record: one string, code list or small object per value. */
export interface Sharing {
  string<T extends string | null>(v: T): T;
  codes(fs: readonly { code: Code }[], distinct: boolean): readonly { readonly code: Code }[];
  one<T extends object>(v: T | null): T | null;
}

export interface Kind {
  readonly name: KindName;
  /** How discovery tells its evidence. */
  readonly recogniser: Recogniser;
  /** The reports' words for each of its profiles. */
  readonly words: Readonly<Partial<Record<Profile, Words>>>;
  /** Its part of an entry's compact record (none: its records carry only the common fields). */
  recordPart?(e: BundleEntry, share: Sharing): RecordPart;
  /** What `assay analyze` shows a model of one of its entries (analysis/evidence.ts builds it: capped, redacted, digested). */
  pack(dir: string, entry: BundleEntry): EvidencePack;
  /** Its batch rules over a run's records of this kind (pure: a merge of shards recomputes exactly this). */
  batch(records: readonly BatchRecord[], run: BatchRun): KindBatch;
  /** A kind with containers (a Harbor job, a Terminal-Bench run) keeps a book of them as discovery finds them. */
  book?(): ContainerBook;
  /**
   * An entry's own task (or scenario) is one unit of its experiment's task set (run identity,
   * core/identity.ts): true for kinds whose bundle is a trial; false where a bundle is a whole run
   * (an Inspect log), whose identity gives the set itself.
   */
  readonly trialTasks: boolean;
  /** Where the document keeps its book's records: `run.containers[name]`, or `run.jobs` (Harbor's, where they were before kinds had books). */
  readonly recordsIn?: "jobs";
}

/**
 * What a kind reads of its containers' own files as discovery finds them (main process): one
 * small record per container, kept for the document (a merge of shards recomputes the batch
 * rules from it), and what its members carry of it until each is placed.
 */
export interface ContainerBook {
  /** Discovery found one of its containers: read its files (unless only a member of it was given). */
  found(c: FoundContainer): void;
  /** One of its members, before it is scored: what its container says of it. */
  attach?(f: Found): void;
  /** The records the document keeps, by path. */
  records(): unknown[];
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
