// What the main process needs of a kind: its words, its part of the compact batch record, and its
// batch rules. Each kind's is in its folder (kind.ts); the pipeline, the store, the reports and the
// analyses look a kind up in the registry (registry.ts) and never branch on its name.
import type { BatchKind } from "../core/batch/kind.js";
import type { BundleEntry, Profile } from "../core/results.js";
import type { Usage } from "../core/usage.js";
import type { Found, FoundContainer } from "../io/discover.js";
import type { EvidencePack } from "./pack.js";
import type { Words } from "./words.js";
import type { KindName } from "./declared.js";
import type { Recogniser } from "./recogniser.js";
import type { PartResult } from "./scorer.js";

export interface Kind extends BatchKind {
  readonly name: KindName;
  /** How discovery tells its evidence. */
  readonly recogniser: Recogniser;
  /** The reports' words for each of its profiles. */
  readonly words: Readonly<Partial<Record<Profile, Words>>>;
  /** What `assay analyze` shows a model of one of its entries (analysis/evidence.ts builds it: capped, redacted, digested). */
  pack(dir: string, entry: BundleEntry): EvidencePack;
  /** A kind with containers (a Harbor job, a Terminal-Bench run) keeps a book of them as discovery finds them. */
  book?(): ContainerBook;
  /** Where the document keeps its book's records: `run.containers[name]`, or `run.jobs` (Harbor's, where they were before kinds had books). */
  readonly recordsIn?: "jobs";
  /** A file kind may spread a large file over the workers (Inspect's .eval): the parts to hand out, or null to read it whole (absent: always whole). */
  split?(found: Found, sizes?: SplitSizes): FilePart[] | null;
  /** A kind that checks its evidence against its benchmark's task list (--dataset): whether FILE is one it reads, before the run (streamed; nothing kept). */
  dataset?: DatasetReader;
  /** `assay triage`: its claims checked from what its evidence says beside its units, none of them read, within `timeoutMs` (absent: no such pass). */
  triage?(found: Found, timeoutMs?: number): Promise<TriageReport>;
  /** Issue 40: where an entry's evidence is beyond its path, for the HTML report and the export (absent: its path alone); `unit`: one of its units (an Inspect sample and epoch). */
  evidence?(path: string, unit?: { id: string; epoch: number }): EvidenceOf;
  /** Issue 40: the units of an entry that holds many (Inspect: a sample's epochs), read from its evidence at `file`, one at a time (absent: the entry is its one unit). */
  units?(entry: BundleEntry, file: string): AsyncIterable<UnitOf>;
}

/** What `assay triage` says of one thing found: each claim it could check, what it cannot, and whether a full verify should run. */
export interface TriageReport {
  claims: {
    name: string;
    claimed: string;
    recount: string;
    check: "agrees" | "mismatch" | "unverified";
    note: string | null;
  }[];
  findings: { code: string; file: string | null; message: string }[];
  /** What its claims-only reading cannot check (only its units hold it). */
  unchecked: string[];
  /** Why a full verify should run; empty: triage found nothing. */
  verify: string[];
  /** What was read: its members (or files), and their bytes (uncompressed). */
  read: { members: string[]; bytes: number };
  /** Read whole (nothing holds its claims apart from its units): what it says is verify's own verdict. */
  whole: boolean;
  /** What each claim was recounted from ("summaries", "samples", "members"). */
  from: string;
}

/** Where an entry's evidence is, beyond its path (issue 40). */
export interface EvidenceOf {
  /** The file under the entry's folder a reader opens first (Harbor's agent/trajectory.json, Terminal-Bench's pane), or null. */
  readonly file: string | null;
  /** The command (POSIX shell) that opens the evidence in its harness's own viewer, or null. */
  readonly open: string | null;
  /** Where, once `open` runs, that viewer shows the unit asked for (a URL), or absent. */
  readonly at?: string;
}

/** Thrown by `Kind.units` when its evidence is not what the entry was scored from (its digest differs): every unit it gave is dropped, not only the rest. */
export class EvidenceChanged extends Error {}

/** One unit of an entry that holds several (issue 40: Inspect's sample × epoch). */
export interface UnitOf {
  /** Its name within the entry (a sample id). */
  unit: string;
  epoch: number | null;
  /** Its state in the kind's words (Inspect's sample states). */
  state: string;
  /** Each score's value as a float (null: unscored, or no number). */
  scores: Record<string, number | null>;
  usage: Usage | null;
  /** Where in the evidence it is (a .eval's sample member). */
  file: string | null;
  /** Its error or limit, in a line. */
  detail: string | null;
}

/** What --dataset is checked with before a run: a dataset this kind reads, or why not (named by file and line). */
export interface DatasetReader {
  /** What the kind takes a dataset to be, for a refusal ("SWE-bench's instances (JSONL or a JSON list)"). */
  readonly describe: string;
  check(file: string): { ok: true; units: number } | { ok: false; why: string };
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

/** When a file kind splits a file: one of at least `logBytes`, into parts of about `partBytes` each (its own default when not given). */
export interface SplitSizes {
  logBytes: number;
  partBytes: number;
}

/** One part of a split file, to hand to a worker: its scorer's task, its size (batching, progress), and where its answer goes. */
export interface FilePart {
  readonly task: unknown;
  readonly bytes: number;
  readonly assembly: FileAssembly;
}

/** A split file's parts as they come back (each its worker's PartResult, or the tool error that stood for it): its entry once the last is in. */
export interface FileAssembly {
  add(part: FilePart, r: PartResult | BundleEntry): BundleEntry | null;
}

export type { BatchRun, KindBatch, RecordPart, Sharing } from "../core/batch/kind.js";
