// What a pool worker needs of a kind: how to score one thing discovery found. Runs in workers, and
// in-process for `assay verify` and `assay seal` (which is why the CLI loads the scorers too); a
// scorer never imports the main process's kind modules (words, batch rules, the registry).
import type { BundleOptions, BundleSource } from "../core/folder.js";
import type { BundleEntry, ScoredBundle } from "../core/results.js";
import type { Attributed } from "../io/tool-error.js";

/** A kind whose unit is a folder: listed, digested, stored by its digest. */
export interface FolderScorer {
  readonly form: "folder";
  /** The folder's entry; a throw is the caller's tool error (IO_ERROR or WORKER_FAILED). */
  score(src: BundleSource, options: BundleOptions): ScoredBundle;
  /** Which of its files are evidence, in its digest (absent: every file): what a harness writes beside a verdict later (Harbor's analyze) is not. */
  isEvidence?(path: string): boolean;
  /** What a tool-error entry of one of its folders still says (a kind of several profiles: read leniently, never following a link out nor blocking). */
  readonly attribute?: (dir: string) => Attributed;
}

/** One part of a file its kind split over the workers (Kind.split), as a worker answers it: small, and marked `part` (which part) so it is never taken for an entry. */
export interface PartResult {
  readonly path: string;
  readonly part: string;
}

/** What the main thread asks of a file kind's scorer to read a file whole: the format its recogniser found, and (`assay verify`) the time past which it is a TIMEOUT. */
export interface WholeFile {
  readonly part: "whole";
  readonly format: string;
  readonly timeoutMs?: number;
}

/** A kind whose unit is one file read in place (never stored: its digest is a whole read); `task` is what the main thread asked of it: a WholeFile, or a part its kind's split made. */
export interface FileScorer {
  readonly form: "file";
  score(file: string, path: string, task: unknown): BundleEntry | PartResult;
}

export type Scorer = FolderScorer | FileScorer;
