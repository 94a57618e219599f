// The trend of a paired figure over runs (issue 37) as its JSON gives it: canonical; the table,
// Markdown and HTML lines derive from it (report/compare/trend.ts).

import { z } from "zod";

export const trendSchema = z.object({
  metric: z.string(),
  /** What the units are: native and world trials, Harbor tasks, Inspect samples. */
  unit: z.enum(["trial", "task", "sample"]),
  /** "utc": the runs' start times are instants; "local": times with no zone (comparable only with each other); null: not every run records one on one clock. */
  clock: z.enum(["utc", "local"]).nullable(),
  /** In start-time order where the runs can be ordered, else as given. */
  runs: z.array(
    z.object({
      run: z.string(),
      started_at: z.string().nullable(),
      /** The run's place in the order (runs started at the same time share one); null where the runs are not ordered. */
      position: z.int().nullable(),
      /** The run's mean over the units the slope is of that it holds; null where it holds none. */
      value: z.number().nullable(),
    }),
  ),
  /** Change of the value per run, within units (fixed effects); null where the runs are not ordered or no unit is held by two. */
  slope: z.number().nullable(),
  /** slope ± t(0.975, G − 1)·SE, SE cluster-robust (CR1) over the units' clusters, never below the classical fixed-effects SE; null with `reason`. */
  interval: z.object({ lo: z.number(), hi: z.number() }).nullable(),
  se: z.number().nullable(),
  df: z.int().nullable(),
  /** "degrading": the interval lies below 0; "improving": above; "no trend detected": it holds 0 (no evidence of no trend either); "not estimated": no interval (`reason`). */
  verdict: z.enum(["degrading", "improving", "no trend detected", "not estimated"]),
  /** Why there is no slope or no interval (null when there is an interval). */
  reason: z.string().nullable(),
  /** Units held by two runs or more: the ones the slope is of. */
  units: z.int(),
  /** The clusters those units fall in (G): a task's repeats, an Inspect cluster key's value; else each unit its own. */
  clusters: z.int(),
  /** Units held by one run only (no change within them to measure), or whose task_checksum changed: left out. */
  left_out: z.int(),
  /** What the interval takes for granted, in words. */
  assumes: z.string(),
  /** What was left out and why (a run without per-unit values, a changed task, runs started at the same time). */
  notes: z.array(z.string()),
});
export type Trend = z.infer<typeof trendSchema>;
