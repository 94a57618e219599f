// What a Harbor trial's entry carries beyond the fields every kind shares (contract §11: its
// Rewardkit details, what `harbor analyze` says of it), and its job folders' records (`run.jobs`).
// Data: the results schema reads them through the declaration, in their places there, so this
// imports nothing of src at run time.

import { z } from "zod";
import type { Finding } from "../../core/codes.js";

/** A Harbor trial's Rewardkit details (§11): per reward name and file, the score and how many criteria, errors and warnings. */
export const rewardDetailsSchema = z.object({
  rewards: z.array(
    z.object({
      file: z.string(),
      name: z.string(),
      score: z.number().nullable(),
      kind: z.string().nullable(),
      criteria: z.int(),
      errors: z.int(),
      warnings: z.int(),
    }),
  ),
  /** Reward entries beyond those listed. */
  more: z.int(),
});
/** What `harbor analyze` says of a trial (§11): each check's outcome and its explanation's first line. */
export const harborAnalysisSchema = z.object({
  file: z.string(),
  summary: z.string().nullable(),
  checks: z.array(z.object({ name: z.string(), outcome: z.string(), explanation: z.string() })),
  /** Checks beyond those listed. */
  more: z.int(),
  /** Why the file could not be read (a warning's worth: never a finding on the trial). */
  unreadable: z.string().nullable(),
});

/**
 * A Harbor job folder as discovery found it and its own files say (§11): what the job-level rules
 * need beyond the trials' entries, in `run.jobs` so a merge of shards has it. Bounded in size: what a
 * job says of each trial it names travels on that trial's entry (`claimed`), and only the named
 * trials without a folder are listed here.
 */
export const harborJobSchema = (finding: z.ZodType<Finding>) =>
  z.object({
    path: z.string(),
    name: z.string(),
    /** Contract §15.3: what an attestation's evidence root holds of the job, beside its trials' digests. */
    digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .optional()
      .describe(
        "Contract §15.3: the §7 digest over the job folder's own regular files, in no trial's entry (its top-level files: every subfolder is a trial), less a top-level analysis.json, analysis.md, summary.md; null when only a trial of it was given (its files are not read) or one of them could not be read; absent in documents of an older assay",
      ),
    /** result.json `id`. */
    id: z.string().nullable(),
    /** result.json `n_total_trials`. */
    plan: z.int().nullable(),
    /** Trial folders in the job folder (every subfolder). */
    folders: z.int(),
    /** result.json `finished_at` is set (false: the job was still running, or stopped, when archived). */
    finished: z.boolean().nullable(),
    /** lock.json `harbor.version`. */
    harbor_version: z.string().nullable(),
    /** The summary names trials (stats.evals with reward_stats or exception_stats). */
    claims: z.boolean(),
    /** Evals (agent × model × dataset) in the summary. */
    evals: z.int(),
    claimed: z.object({ source: z.string(), metrics: z.record(z.string(), z.number()) }).nullable(),
    /** Trials the summary names that no folder of the job is named after (the first MAX_JOB_LIST (core/results.ts), by name), and how many more. */
    absent: z.array(
      z.object({
        trial: z.string(),
        rewards: z.record(z.string(), z.number()).nullable(),
        exception: z.string().nullable(),
      }),
    ),
    absent_more: z.int(),
    warnings: z.array(finding),
  });
