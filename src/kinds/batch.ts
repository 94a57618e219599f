// The batch rules over the list's kinds (core/batch names none: it is handed these).
import type { BatchOptions, RunBatch } from "../core/batch/experiments.js";
import { runBatchOf } from "../core/batch/experiments.js";
import type { BatchKinds } from "../core/batch/kind.js";
import { RecordMaker } from "../core/batch/record.js";
import type { BatchRecord } from "../core/batch/record.js";
import type { Schedule } from "../core/batch/schedule.js";
import type { Containers, Experiment, JobRecord } from "../core/results.js";
import { KINDS, kindOfEntry } from "./registry.js";

export const BATCH_KINDS: BatchKinds = { all: KINDS, of: kindOfEntry };

/** The batch rules of a run over its records: core/batch/experiments.ts's, by every kind. */
export const runBatch = (
  entries: readonly BatchRecord[],
  schedules: readonly Schedule[],
  options: BatchOptions,
  jobs: readonly JobRecord[] = [],
  containers: Containers = {},
): RunBatch => runBatchOf(BATCH_KINDS, entries, schedules, options, jobs, containers);

/** The experiments of a run (runBatch's, at once). */
export const computeExperiments = (
  entries: readonly BatchRecord[],
  schedules: readonly Schedule[],
  options: BatchOptions,
  jobs: readonly JobRecord[] = [],
  containers: Containers = {},
): Experiment[] => runBatch(entries, schedules, options, jobs, containers).experiments();

/** A maker of compact records carrying every kind's record part. */
export const recordMaker = (): RecordMaker => new RecordMaker(BATCH_KINDS);
