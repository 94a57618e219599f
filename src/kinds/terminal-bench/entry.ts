// What a Terminal-Bench trial's entry carries beyond the fields every kind shares (docs/terminal-bench.md):
// its states, and the one optional `terminal_bench` object. Data: the results schema reads it through
// the declaration, so it imports nothing of src.

import { z } from "zod";
import type { Finding } from "../../core/codes.js";
import type { terminalBenchDeclaration } from "./declaration.js";

/** The states of a trial's entry (declaration.ts). */
export type TbState = (typeof terminalBenchDeclaration.states)[number];

/**
 * The most trials of one run kept in its record (each a few hundred bytes). TB's
 * largest dataset × its largest attempts is a few thousand; a list beyond this is refused, said.
 */
export const MAX_LISTED_TRIALS = 20_000;
/** Fields fingerprinted one by one; a fork with more has the rest under one name. */
export const MAX_FIELDS = 64;
export const OTHER_FIELDS = "(other fields)";

export const PARSERS = ["pytest", "swebench", "sweperf", "mlebench", "swelancer"] as const;
export type ParserName = (typeof PARSERS)[number];

/**
 * How panes/post-test.txt bears on parser_results: re-parsed and equal, re-parsed and different,
 * not re-derivable (why in a warning), absent, or holding results TB never parsed (a test timeout).
 */
export const PANE_CHECKS = ["agrees", "differs", "not-rederived", "absent", "ignored"] as const;

export const terminalBenchSchema = z.object({
  /** TrialResults.failure_mode as written ("unset" on a clean trial: TB never sets "none"). */
  failure_mode: z.string().nullable(),
  /** The parser the pane was re-derived with (null: not re-derived). */
  parser: z.enum(PARSERS).nullable(),
  pane: z.enum(PANE_CHECKS),
  /** The tests behind the verdict: TB's statuses, and how many passed only as SKIPPED/XFAIL; names given twice. */
  tests: z.object({ passed: z.int(), failed: z.int(), skipped_as_passed: z.int(), duplicates: z.int() }).nullable(),
  /** Token counts: recorded, "reported-none" (0 and 0: the agent reports none, not a measured zero), or not recorded (null). */
  tokens: z.enum(["recorded", "reported-none", "not-recorded"]),
  /**
   * Each top-level field of the trial's results.json, as the first 16 hex digits of the SHA-256 of
   * its canonical JSON: what the run-level rules compare with the run's entry of the same trial.
   */
  fields: z.record(z.string(), z.string()).nullable(),
});
export type TerminalBenchPart = z.infer<typeof terminalBenchSchema>;

const figures = { accuracy: z.number().nullable(), pass_at_k: z.record(z.string(), z.number().nullable()).nullable() };

/**
 * A run folder's own files as the document keeps them (`run.containers["terminal-bench"]`): what
 * the run-level rules need (record.ts's RunRecord), so a merge of shards recomputes them. Each
 * listed trial is a few hundred bytes, for at most MAX_LISTED_TRIALS. `finding` is the results
 * schema's (it imports this file).
 */
export const terminalBenchRunSchema = (finding: z.ZodType<Finding>) =>
  z
    .object({
      path: z.string(),
      name: z.string(),
      /** Only a trial or task folder of it was given: its files were not read. */
      partial: z.boolean(),
      /** Contract §15.3: what an attestation's evidence root holds of the run, beside its trials' digests. */
      digest: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .nullable()
        .optional()
        .describe(
          "Contract §15.3: the §7 digest over the run folder's own regular files, in no trial's entry: its top-level files (results.json, run_metadata.json, tb.lock, run.log, …) and those directly in its task folders, less a top-level analysis.json, analysis.md, summary.md (a subfolder walked on its own, not a task folder, is not the run's); null when partial or one of them could not be read; absent in documents of an older assay",
        ),
      id: z.string().nullable(),
      run_id: z.string().nullable(),
      version: z.string().nullable(),
      /** The field names of the listed entries' shapes (TB writes every entry with the same fields: one list, mostly). */
      field_names: z.array(z.array(z.string())),
      /**
       * The results list (null: results.json absent or unreadable); is_resolved null also when
       * ill-typed; `fields`: the fingerprints of its fields, 16 hex digits each, in the order of
       * `field_names[shape]` (a few hundred bytes a trial, not an object of them).
       */
      listed: z
        .array(
          z.object({
            name: z.string().nullable(),
            task: z.string().nullable(),
            is_resolved: z.boolean().nullable(),
            failure_mode: z.string().nullable(),
            harness: z.boolean(),
            shape: z.int(),
            fields: z.string(),
          }),
        )
        .nullable(),
      // In the order record.ts builds them: a merge re-reads them through this schema, and must write the same bytes.
      claims: z
        .object({
          accuracy: figures.accuracy,
          n_resolved: z.int().nullable(),
          n_unresolved: z.int().nullable(),
          resolved_ids: z.array(z.string()).nullable(),
          unresolved_ids: z.array(z.string()).nullable(),
          pass_at_k: figures.pass_at_k,
        })
        .nullable(),
      metadata: z.object({ ...figures, end_time: z.string().nullable(), resumed_at: z.string().nullable() }).nullable(),
      plan: z.object({
        trials: z.int().nullable(),
        tasks: z.int().nullable(),
        attempts: z.int().nullable(),
        source: z.string().nullable(),
      }),
      warnings: z.array(finding),
    })
    .superRefine((r, ctx) => {
      // Never beyond what assay writes: a record read back (merge) is the one its rules were computed from, or refused.
      const bad = (message: string) => ctx.addIssue({ code: "custom", message });
      if (r.field_names.some((names) => names.length > MAX_FIELDS + 1 || new Set(names).size !== names.length))
        bad(`a shape of field_names has more than ${MAX_FIELDS + 1} names, or one twice`);
      if (r.listed === null) return;
      if (r.listed.length > MAX_LISTED_TRIALS)
        bad(`listed holds ${r.listed.length} trials, more than assay keeps (${MAX_LISTED_TRIALS})`);
      const i = r.listed.findIndex(
        (l) =>
          l.shape < 0 ||
          l.shape >= r.field_names.length ||
          l.fields.length !== 16 * r.field_names[l.shape]!.length ||
          !/^[0-9a-f]*$/.test(l.fields),
      );
      if (i !== -1)
        bad(
          `listed[${i}]: its shape is not one of field_names, or its fields are not 16 hex digits per name of that shape`,
        );
    });
