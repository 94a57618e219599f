// The comparison documents (`assay compare --format json`) as zod schemas: canonical; the table,
// Markdown and HTML formats derive from them. Two runs: BASE and HEAD side by side, each headline
// metric with its paired analysis (§13.4). Three or more: per experiment and headline metric, the
// runs ranked with their groups and every pair of runs compared (§13.6, §13.7).

import { z } from "zod";
import { identitySchema } from "../identity.js";
import { trendSchema } from "./trend-schema.js";
import { experimentUsageSchema, intervalSchema, profileSchema, runOptionsSchema } from "../results.js";

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

const mcnemarSchema = z.object({
  /** Exact two-sided McNemar p (binomial on the discordant pairs). */
  p: z.number(),
  both_pass: z.int(),
  both_fail: z.int(),
  /** McNemar's b and c: pass on BASE and fail on HEAD, and the reverse. */
  pass_to_fail: z.int(),
  fail_to_pass: z.int(),
  /** Every flipped trial, in byte order (the text formats show the first few). */
  flipped: z.object({ pass_to_fail: z.array(z.string()), fail_to_pass: z.array(z.string()) }),
});

/**
 * §13.4: the paired analysis of a headline metric (native `accuracy`, world `pass`, Harbor
 * `reward/<key>/mean`, Inspect `inspect/<key>/value` of a mean or accuracy) over the pairing units
 * both sides count: native and world trials by id, Harbor tasks (each side's unit value the mean of
 * its counted trials of the task), Inspect samples by id (the reduced value).
 */
export const pairedSchema = z.object({
  unit: z.enum(["trial", "task", "sample"]),
  /** Units counted on both sides (a Harbor task only where its task_checksum is the same on both). */
  pairs: z.int(),
  /** Units counted on one side only (not paired). */
  only_base: z.int(),
  only_head: z.int(),
  /**
   * §13.7: the clusters the pairs fall in where some cluster (a task repeated; an Inspect cluster
   * key's value) holds two or more of them, the test then cluster-paired-t; null otherwise.
   */
  clusters: z.int().nullable(),
  /**
   * The figure compared and tested (§13.7, one estimand): the mean over the pairs of HEAD − BASE
   * (Harbor: of task means, so not the difference of the trial-weighted headlines); null without a pair.
   */
  mean_diff: z.number().nullable(),
  /**
   * mean_diff ± t(0.975, df)·SE, not clipped; `paired-t`: SE = s_d/√P, df P − 1; `cluster-paired-t`:
   * SE the cluster-robust one over the differences, never below s_d/√P, df C − 1. Null below two
   * pairs (or clusters) and when every difference is equal (`reason` says why).
   */
  interval: z.object({ method: z.enum(["paired-t", "cluster-paired-t"]), lo: z.number(), hi: z.number() }).nullable(),
  /**
   * (t(0.975, df) + t(0.80, df))·SE with the interval's SE and df: the smallest true difference this
   * comparison detects with 80% power, approximately (it takes the observed spread as the true one).
   */
  mde80: z.number().nullable(),
  /**
   * What decides `p` and the metric's `regression` (§13.7): exact McNemar where every pair is 0/1 on
   * both sides and none shares a cluster; else the (cluster-)paired t; the exact sign test where every
   * difference is equal and not 0; none below two pairs (or clusters) or when every pair agrees.
   */
  test: z.enum(["paired-t", "cluster-paired-t", "mcnemar", "sign", "none"]),
  /** The two-sided p of `test`; 1 where there is no information (never 0 from none). */
  p: z.number(),
  /**
   * The exact McNemar test and the flipped units: native and world always (where units repeat a task
   * it is shown, not deciding), and wherever McNemar decides (Harbor tasks, Inspect samples); else null.
   */
  mcnemar: mcnemarSchema.nullable(),
  /** Why there is no pair or no interval (null when there is an interval). */
  reason: z.string().nullable(),
  /** Why units did not pair: "only in BASE: 3 tasks", "task_checksum changed: 1 task", … */
  unpaired: z.array(z.string()),
});
export type PairedComparison = z.infer<typeof pairedSchema>;

/** One side of a changed unit: its value, and what it is made of. */
const unitSideSchema = z.object({
  value: z.number(),
  /** The trials the value is the mean of (a Harbor task; a trial or a sample: 1). */
  trials: z.int(),
  /** Of those, how many count 0 for want of a score: invalid evidence under --invalid count, or no reward or score under --errors zero. */
  zeroed: z.int(),
  /**
   * Where its evidence is: a native or world trial's deciding bundle, a Harbor task's first counted
   * trial folder in byte order (`trials` says how many there are), `<log>#<sample id>` for an
   * Inspect sample; null where the document does not say.
   */
  evidence: z.string().nullable(),
});

/**
 * A unit whose value differs between the runs: `pass_to_fail` and `fail_to_pass` where it is 0 or 1
 * on both sides (a Harbor task whose every trial passed, then failed, flips too), `moved` otherwise;
 * a unit counted on one side only, or whose task_checksum differs (not one unit), is listed as such.
 */
export const unitChangeSchema = z.object({
  unit: z.string(),
  change: z.enum(["pass_to_fail", "fail_to_pass", "moved", "checksum_changed", "only_base", "only_head"]),
  base: unitSideSchema.nullable(),
  head: unitSideSchema.nullable(),
  /** HEAD − BASE; null unless the unit is one on both sides. */
  delta: z.number().nullable(),
});
export type UnitChange = z.infer<typeof unitChangeSchema>;

export const metricSchema = z.object({
  /** accuracy, completion, pass, dimension/<name>, pass_hat_k/<k>, reward/<key>/mean, … */
  metric: z.string(),
  base: figureSchema,
  head: figureSchema,
  /** HEAD − BASE (null when either value is). */
  difference: z.number().nullable(),
  /**
   * The 95% interval of the difference, treating the two runs as independent samples: Newcombe's
   * hybrid score interval for two proportions of independent trials; where either side's §13.2
   * interval is cluster-t (its trials repeat tasks), the difference of two cluster-robust means,
   * d ± t(0.975, df)·√(SE_b² + SE_h²), df the smaller side's clusters − 1 (a side without repeats:
   * its units − 1). Null when neither applies (`note` says why).
   */
  interval95: z.tuple([z.number(), z.number()]).nullable(),
  /** Which of the two `interval95` is (null with it). */
  interval_method: z.enum(["newcombe", "cluster-t"]).nullable(),
  /** Why there is no interval (null when there is one, or no difference). */
  note: z.string().nullable(),
  /**
   * A drop that is not chance: with a paired analysis, its test decides (§13.7: McNemar's one-sided
   * p < 0.025, else p < 0.05 with mean_diff < 0; never below two pairs, and no fallback to
   * `interval95`); without one (completion, dimensions, coverage), `interval95` lies below 0.
   */
  regression: z.boolean(),
  /** §13.4: the paired analysis, for the headline metrics (null for the others). */
  paired: pairedSchema.nullable(),
  /**
   * What changed, by unit, for a headline metric: every unit whose value differs between the runs
   * or that one side alone counts (never an unchanged one), flips first, then by |delta| largest
   * first, then the rest, each group in byte order of the unit; null for the other metrics and
   * where a side's units are not known (`paired.reason`).
   */
  changes: z.array(unitChangeSchema).nullable(),
});
export type MetricComparison = z.infer<typeof metricSchema>;

const claimedValue = z.union([z.number(), z.string()]).nullable();
export const claimedSchema = z.object({
  metric: z.string(),
  base: claimedValue,
  head: claimedValue,
  difference: z.number().nullable(),
});
export type ClaimedComparison = z.infer<typeof claimedSchema>;

/** Issue 37: how experiments of different runs were matched: by name (kind and id), benchmark identity, task set, or `--pair`. */
export const matchHowSchema = z.enum(["name", "benchmark", "tasks", "pair"]);

export const experimentComparisonSchema = z.object({
  /** Each side's experiment by name: its id, or `profile:id` where that id recurs in its document (a Harbor job named as a native experiment). */
  base: z.string(),
  head: z.string(),
  match: matchHowSchema,
  /** Each side's run identity (results.ts `identity`): agent, model, benchmark, tasks, harness, times. */
  identity: z.object({ base: identitySchema.nullable(), head: identitySchema.nullable() }),
  profile: z.object({ base: profileSchema.nullable(), head: profileSchema.nullable() }),
  metrics: z.array(metricSchema),
  /** What the harness itself claimed (Harbor's job summary, Inspect's log), each side's figure and the difference; no interval. */
  claimed: z.array(claimedSchema),
  /** §13.5: each side's usage as its document has it (null: its evidence records none); a total, so no difference and no interval. */
  usage: z.object({ base: experimentUsageSchema.nullable(), head: experimentUsageSchema.nullable() }),
});
export type ExperimentComparison = z.infer<typeof experimentComparisonSchema>;

export const comparisonSchema = z.object({
  /** 2: `paired` moved into each headline metric and pairs by unit (§13.4); 1 had an experiment-level list of trials. */
  format: z.literal("assay.compare/2"),
  base: sideSchema,
  head: sideSchema,
  experiments: z.array(experimentComparisonSchema),
  /** Experiments on one side only, by name: listed, not compared. */
  only_base: z.array(z.string()),
  only_head: z.array(z.string()),
  /** Issue 37: keys (a benchmark, a task set) with more than one candidate on a side: nothing guessed, none of them compared. */
  ambiguous: z.array(
    z.object({
      by: z.enum(["name", "benchmark", "tasks"]),
      key: z.string(),
      base: z.array(z.string()),
      head: z.array(z.string()),
    }),
  ),
  regressions: z.array(z.object({ base: z.string(), head: z.string(), metric: z.string() })),
  notes: z.array(z.string()),
});
export type Comparison = z.infer<typeof comparisonSchema>;

/** A run's own headline figure as its document gives it (§13.7 reading 16). */
const headlineSchema = z.object({ value: z.number().nullable(), interval: intervalSchema.nullable() });

/**
 * §13.6 with §13.7: one experiment's headline metric over the runs that hold it, best first, ranked
 * by one figure: each run's mean over the pairing units every ranked run holds (reading 15).
 */
export const rankingSchema = z.object({
  metric: z.string(),
  /** The pairing units every ranked run holds: the ranked figure, every difference and every test are over these. */
  units: z.int(),
  /** Why the runs are not ranked (no unit every run holds, or fewer than two runs with units); null when ranked. */
  reason: z.string().nullable(),
  /** Best first by `value` (runs of the same value in command-line order; runs not ranked last). `run` is the document's path as given. */
  runs: z.array(
    z.object({
      run: z.string(),
      /** The ranked figure: the mean over the `units` common units (Harbor: of task means); null where not ranked. */
      value: z.number().nullable(),
      /** The run's own headline (its document's figure and §13.2 interval), named as such beside `value`. */
      headline: headlineSchema,
      /** The headline metric's own §13.2 interval from the run's document (null: `interval_reason`). */
      interval: intervalSchema.nullable(),
      interval_reason: z.string().nullable(),
      /**
       * Group from 1: the best run not yet grouped opens one; every ungrouped run whose Holm-adjusted p
       * against it is ≥ 0.05 joins. Runs in one group are not distinguished at 95% (Holm): no test
       * told them apart, which does not show they perform alike. Null where not ranked.
       */
      group: z.int().nullable(),
    }),
  ),
  /**
   * Every pair of ranked runs, `a` before `b` on the command line: mean_diff = value_b − value_a
   * (the mean over the common units of b − a); `p` the two-sided p of `test` (§13.7: McNemar where
   * every unit is 0/1 and none shares a cluster, the cluster-paired or paired t, the sign test where
   * every difference is the same, 1 with no information); `p_holm` Holm-adjusted over the R(R−1)/2 pairs.
   */
  pairs: z.array(
    z.object({
      a: z.string(),
      b: z.string(),
      units: z.int(),
      mean_diff: z.number().nullable(),
      test: z.enum(["paired-t", "cluster-paired-t", "mcnemar", "sign", "none"]),
      /** Clusters the units fall in (cluster-paired-t; the sign test over clusters), else null. */
      clusters: z.int().nullable(),
      p: z.number(),
      p_holm: z.number(),
    }),
  ),
});
export type Ranking = z.infer<typeof rankingSchema>;

/** Issue 37: one run of a ranked group: what the ranking calls it, its document, its experiment there and its identity. */
const memberSchema = z.object({
  run: z.string(),
  file: z.string(),
  experiment: z.string(),
  identity: identitySchema.nullable(),
});
/** The same run given twice (an Inspect log as .eval and .json, a copied job folder: identical identity, start time included): ranked once. */
const duplicateSchema = z.object({ run: z.string(), same_as: z.string() });

export const rankedExperimentSchema = z.object({
  /**
   * The group's name: the experiment's (its name in the first run that holds it) where runs match by
   * name, the benchmark or task set they share where they match by that, the names joined by " = " for `--pair`.
   */
  experiment: z.string(),
  /** Issue 37: how the group's runs were matched (match.ts). */
  match: matchHowSchema,
  profile: profileSchema.nullable(),
  unit: z.enum(["trial", "task", "sample"]),
  /** One entry per experiment and headline metric (a Harbor job with two reward keys: two entries). */
  ranking: rankingSchema,
  /**
   * Issue 37: the units × runs of this metric (each run's value per unit, null where it does not
   * count it), every unit, those whose values spread most first (Markdown and HTML show the first rows).
   */
  matrix: z.object({
    labels: z.array(z.string()),
    rows: z.array(z.object({ unit: z.string(), values: z.array(z.number().nullable()), same_task: z.boolean() })),
    total: z.int(),
  }),
  /** Issue 37, `--trend`: the runs in start-time order and the within-unit slope of the figure per run, with its cluster-robust interval; null without --trend. */
  trend: trendSchema.nullable().default(null),
  /** Every run of the group, R1 (the reference for regressions) first: command-line order, then document order. */
  members: z.array(memberSchema),
  duplicates: z.array(duplicateSchema),
  /** Why units did not pair, per run pair (checksum changed, no per-sample values, …). */
  notes: z.array(z.string()),
  /** §13.5: each run's usage of this experiment, in the ranking's order (null: its evidence records none); a total, never ranked. */
  usage: z.array(z.object({ run: z.string(), usage: experimentUsageSchema.nullable() })),
});
export type RankedExperiment = z.infer<typeof rankedExperimentSchema>;

export const rankingDocumentSchema = z.object({
  format: z.literal("assay.compare-runs/1"),
  /** The runs in command-line order: R1 first. */
  runs: z.array(sideSchema),
  experiments: z.array(rankedExperimentSchema),
  /** Experiments held by one run only, as `run: name`: listed, not ranked. */
  single: z.array(z.string()),
  /** Runs that hold a ranked experiment but no figure of the metric (every trial invalid under --invalid exclude, no sample scored): in no pair. */
  unranked: z.array(z.object({ experiment: z.string(), metric: z.string(), run: z.string() })).default([]),
  /** Issue 37: groups of runs with no metric to rank them by (no scorer in any of them, or every run the same one): listed, never a pass. */
  unscored: z.array(
    z.object({
      experiment: z.string(),
      match: matchHowSchema,
      members: z.array(memberSchema),
      duplicates: z.array(duplicateSchema),
      reason: z.string(),
    }),
  ),
  /** Runs significantly below R1 (mean_diff < 0 over the common units with p_holm < 0.05), per experiment and metric. */
  regressions: z.array(z.object({ experiment: z.string(), metric: z.string(), run: z.string() })),
  notes: z.array(z.string()),
});
export type RankingDocument = z.infer<typeof rankingDocumentSchema>;
