// What the main process needs of a kind: its words, its part of the compact batch record, and its
// batch rules. Each kind's is in its folder (kind.ts); the pipeline, the store, the reports and the
// analyses look a kind up in the registry (registry.ts) and never branch on its name.
import type { BatchRecord } from "../core/batch/record.js";
import type { Code } from "../core/codes.js";
import type { BundleEntry, Profile } from "../core/results.js";
import type { Words } from "../report/words.js";
import type { KindName } from "./declared.js";

/** The batch record's fields only some kinds fill: each kind its own, the rest read as empty. */
export type RecordPart = Partial<
  Pick<BatchRecord, "digest" | "task_checksum" | "rewards" | "reward_source" | "flags" | "harbor_id" | "job_id" | "job" | "claimed" | "exception" | "samples" | "inspect" | "usage">
>;

/** What a kind's record part may share with every other record: one string, code list or small object per value. */
export interface Sharing {
  string<T extends string | null>(v: T): T;
  codes(fs: readonly { code: Code }[], distinct: boolean): readonly { readonly code: Code }[];
  one<T extends object>(v: T | null): T | null;
}

export interface Kind {
  readonly name: KindName;
  /** The reports' words for each of its profiles. */
  readonly words: Readonly<Partial<Record<Profile, Words>>>;
  /** Its part of an entry's compact record (none: its records carry only the common fields). */
  recordPart?(e: BundleEntry, share: Sharing): RecordPart;
}
