// The comparison document (`assay compare --format json`) as zod schemas: canonical; the table,
// Markdown and HTML formats derive from it.

import { z } from "zod";
import { profileSchema, runOptionsSchema } from "../results.js";

const sideSchema = z.object({
  file: z.string(),
  tool_version: z.string(),
  scoring_version: z.int(),
  started_at: z.string(),
  /** False: the run was stopped before every bundle was scored (its figures are partial). */
  complete: z.boolean(),
  options: runOptionsSchema,
});

/** One side's figure: the value, and for a proportion its k of n (null where the document gives none). */
const figureSchema = z.object({ value: z.number().nullable(), k: z.int().nullable(), n: z.int().nullable() });

export const metricSchema = z.object({
  /** accuracy, completion, pass, dimension/<name>, pass_hat_k/<k>, reward/<key>/mean, … */
  metric: z.string(),
  base: figureSchema,
  head: figureSchema,
  /** HEAD − BASE (null when either value is). */
  difference: z.number().nullable(),
  /** Newcombe's hybrid score 95% interval of the difference; null when the figures are not two proportions of counted trials. */
  interval95: z.tuple([z.number(), z.number()]).nullable(),
  /** Why there is no interval (null when there is one, or no difference). */
  note: z.string().nullable(),
  /** A drop whose interval excludes 0. */
  regression: z.boolean(),
});
export type MetricComparison = z.infer<typeof metricSchema>;

export const pairedSchema = z.object({
  /** The metric whose per-trial outcome is paired (accuracy, pass, reward/<key>/mean). */
  metric: z.string(),
  /** Trials counted in the metric on both sides, by id. */
  pairs: z.int(),
  both_pass: z.int(),
  both_fail: z.int(),
  /** McNemar's b and c: pass on BASE and fail on HEAD, and the reverse. */
  pass_to_fail: z.int(),
  fail_to_pass: z.int(),
  /** Trials counted on one side only (not paired). */
  base_only: z.int(),
  head_only: z.int(),
  /** Exact two-sided McNemar p (binomial on the discordant pairs); null without pairs. */
  mcnemar_p: z.number().nullable(),
  /** Every flipped trial, in byte order (the text formats show the first few). */
  flipped: z.object({ pass_to_fail: z.array(z.string()), fail_to_pass: z.array(z.string()) }),
});
export type PairedComparison = z.infer<typeof pairedSchema>;

const claimedValue = z.union([z.number(), z.string()]).nullable();
export const claimedSchema = z.object({ metric: z.string(), base: claimedValue, head: claimedValue, difference: z.number().nullable() });
export type ClaimedComparison = z.infer<typeof claimedSchema>;

export const experimentComparisonSchema = z.object({
  /** Each side's experiment by name: its id, or `profile:id` where that id recurs in its document (a Harbor job named as a native experiment). */
  base: z.string(),
  head: z.string(),
  profile: z.object({ base: profileSchema.nullable(), head: profileSchema.nullable() }),
  metrics: z.array(metricSchema),
  paired: z.array(pairedSchema),
  /** Why there is no paired analysis (Inspect: the document holds no per-sample scores), else null. */
  paired_note: z.string().nullable(),
  /** What the harness itself claimed (Harbor's job summary, Inspect's log), each side's figure and the difference; no interval. */
  claimed: z.array(claimedSchema),
});
export type ExperimentComparison = z.infer<typeof experimentComparisonSchema>;

export const comparisonSchema = z.object({
  format: z.literal("assay.compare/1"),
  base: sideSchema,
  head: sideSchema,
  experiments: z.array(experimentComparisonSchema),
  /** Experiments on one side only, by name: listed, not compared. */
  only_base: z.array(z.string()),
  only_head: z.array(z.string()),
  regressions: z.array(z.object({ base: z.string(), head: z.string(), metric: z.string() })),
  notes: z.array(z.string()),
});
export type Comparison = z.infer<typeof comparisonSchema>;
