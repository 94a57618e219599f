// What a SWE-bench instance's entry carries beyond the fields every kind shares (contract §14 "The
// entry"), what its experiment carries, and the record kept of each model folder's run files
// (`run.containers["swe-bench"]`). Data: the results schema reads it through the declaration.

import { z } from "zod";
import type { Finding } from "../../core/codes.js";
import { finalReportSchema } from "./final-report.js";
import { PARSERS } from "./repo.js";

const counts = z.object({ success: z.int(), failure: z.int() });

export const sweBenchSchema = z.object({
  /** `owner/name`, from the instance id. */
  repo: z.string(),
  /** The harness's parser for the repo; null: a repo version 1 does not grade (unverified). */
  parser: z.enum(PARSERS).nullable(),
  /** How test_output.txt stands to report.json. */
  log: z.enum(["agrees", "differs", "unverified", "absent"]),
  /** The re-derivation found results (the report's patch_successfully_applied); null: not re-derived. */
  found: z.boolean().nullable(),
  /** Why no results were found: `marker:<text>`, no-markers, no-results, exit-code (or parser-error). */
  not_run: z.string().nullable(),
  /** The first recorded `>>>>> Test Exit Code:` (what the harness reads). */
  exit_code: z.int().nullable(),
  /** The deciding tests as the re-derivation placed them (counts); null: not re-derived. */
  tests: z.object({ FAIL_TO_PASS: counts, PASS_TO_PASS: counts }).nullable(),
  /** infra_failure.py's classification of test_output.txt then run_instance.log (advisory, never a verdict). */
  infra: z.object({ reason: z.string(), tier: z.enum(["environment", "ambiguous"]) }).nullable(),
  /**
   * Beyond §14's list, what the run's rules need of the folder (a merge recomputes them from
   * entries): report.json there (null: absent), readable by the harness, and its own `resolved`
   * (null: not read); patch.diff's SHA-256 (PATCH_MISMATCH against the predictions).
   */
  report: z.object({ readable: z.boolean(), resolved: z.boolean().nullable() }).nullable(),
  patch: z.string().nullable(),
});
export type SweBenchPart = z.infer<typeof sweBenchSchema>;

/** The experiment's `swe_bench` object. */
export const sweBenchExperimentSchema = z.object({
  run_id: z.string(),
  model: z.string(),
  /** The final report's and the predictions' paths as results show them (null: none found). */
  report: z.string().nullable(),
  predictions: z.string().nullable(),
  /** run.json's dataset. */
  dataset: z.string().nullable(),
  /** The final report's total_instances, and the instances submitted (assay's recount); null where unknown. */
  total: z.int().nullable(),
  submitted: z.int().nullable(),
  /** The leaderboard's "% resolved": resolved over total_instances (else over the run's instances). */
  resolved_over_total: z.object({ resolved: z.int(), total: z.int(), value: z.number().nullable() }),
});
export type SweBenchExperiment = z.infer<typeof sweBenchExperimentSchema>;

/** The final report as kept: only the fields assay reads, in their order (a merge must write the same bytes). */
export const keptReportSchema = z.object(finalReportSchema.shape);

/**
 * A model folder's run files as the document keeps them: the final report's fields assay reads,
 * this model's predictions (emptiness and patch digest, never a patch), run.json's dataset, and the
 * run's warnings. `finding` is the results schema's.
 */
export const sweBenchRunSchema = (finding: z.ZodType<Finding>) =>
  z.object({
    /** The model folder's path (its entries' `job`), its name, and its run folder's path and name. */
    path: z.string(),
    model: z.string(),
    run: z.string(),
    run_id: z.string(),
    /** Only an instance folder (or a file of one) was given: the run's files were not read. */
    partial: z.boolean(),
    report: z.object({ path: z.string(), name: z.string(), lists: keptReportSchema.nullable() }).nullable(),
    predictions: z.object({ path: z.string(), records: z.array(z.object({ id: z.string(), empty: z.boolean(), digest: z.string() })) }).nullable(),
    dataset: z.string().nullable(),
    warnings: z.array(finding),
  });
