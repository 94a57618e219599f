// What a SWE-bench instance's entry carries beyond the fields every kind shares (contract §14 "The
// entry"), what its experiment carries, and the record kept of each model folder's run files
// (`run.containers["swe-bench"]`). Data: the results schema reads it through the declaration.

import { z } from "zod";
import type { Finding } from "../../core/codes.js";

/** The harness's log parsers version 1 supports (repo.ts maps the repos to them). */
export const PARSERS = ["pytest", "pytest_options", "pytest_v2", "django", "sympy", "seaborn", "matplotlib"] as const;

const count = z.int().nonnegative();
const ids = z.array(z.string());

/** The final report's fields assay reads (final-report.ts), each typed; the rest are left as written. */
export const FINAL_REPORT_FIELDS = {
  total_instances: count,
  submitted_instances: count.optional(),
  completed_instances: count.optional(),
  resolved_instances: count.optional(),
  unresolved_instances: count.optional(),
  infra_failure_instances: count.optional(),
  ambiguous_failure_instances: count.optional(),
  empty_patch_instances: count.optional(),
  error_instances: count.optional(),
  completed_ids: ids.optional(),
  incomplete_ids: ids.optional(),
  empty_patch_ids: ids.optional(),
  submitted_ids: ids.optional(),
  resolved_ids: ids,
  unresolved_ids: ids.optional(),
  infra_failure_ids: ids.optional(),
  ambiguous_failure_ids: ids.optional(),
  /** instance id → infra_failure.py's reason, for the ids of either failure list. */
  failure_reasons: z.record(z.string(), z.string()).optional(),
  error_ids: ids.optional(),
  schema_version: z.int().optional(),
};

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
export const keptReportSchema = z.object(FINAL_REPORT_FIELDS);

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
    /** Contract §15.3: what an attestation's evidence root holds of the model folder, beside its instances' digests. */
    digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .optional()
      .describe(
        "Contract §15.3: the §7 digest over the files whose claims no instance's entry covers: the model folder's own top-level regular files, and the run files its record was read from, which lie outside it (the final report, the predictions file chosen, the run folder's run.json), each by its path relative to the model folder (../../../../<model>.<run_id>.json), less a top-level analysis.json, analysis.md, summary.md; null when partial or one of them could not be read; absent in documents of an older assay",
      ),
    report: z.object({ path: z.string(), name: z.string(), lists: keptReportSchema.nullable() }).nullable(),
    predictions: z
      .object({
        path: z.string(),
        records: z.array(z.object({ id: z.string(), empty: z.boolean(), digest: z.string() })),
      })
      .nullable(),
    dataset: z.string().nullable(),
    warnings: z.array(finding),
  });
