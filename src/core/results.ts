// The results document (contract §10) as zod schemas: the types below and the shipped JSON Schema
// both come from here.

import { z } from "zod";
import { CODES } from "./codes.js";

const code = z.enum(Object.keys(CODES) as [keyof typeof CODES, ...(keyof typeof CODES)[]]);
export const findingSchema = z.object({
  code,
  file: z.string().nullable(),
  line: z.int().min(1).nullable(),
  message: z.string(),
});

export const PROFILES = ["native-game", "world", "harbor"] as const;
export const profileSchema = z.enum(PROFILES);
export type Profile = z.infer<typeof profileSchema>;

/**
 * A model's advisory judgement of one trial (or task), beside the hard result and never read by
 * anything that computes one. `status` says whether an analysis was attempted; an attempt whose
 * reply failed (or whose request failed) has every criterion `error`.
 */
export const advisorySchema = z.object({
  status: z.enum(["analysed", "not-analysed"]),
  reason: z.string().nullable(),
  analysis: z.string(),
  /** The rubric's name; its digest is in the cache key (and below, with the evidence's). */
  rubric: z.string(),
  model: z.string().nullable(),
  cached: z.boolean(),
  outcomes: z.record(z.string(), z.object({ outcome: z.enum(["pass", "fail", "not_applicable", "error"]), explanation: z.string() })),
  summary: z.string().nullable(),
  /** Extension to §10: what the answer was computed from (null when not analysed for want of evidence). */
  rubric_digest: z.string(),
  evidence_digest: z.string().nullable(),
  /** Extension to §10: where and when the answer was made (a cached one keeps its original's). */
  provenance: z
    .object({
      model: z.string(),
      endpoint: z.string(),
      request_id: z.string().nullable(),
      input_tokens: z.int(),
      output_tokens: z.int(),
      cost_usd: z.number().nullable(),
      created_at: z.string(),
    })
    .nullable(),
});
export type Advisory = z.infer<typeof advisorySchema>;

export const bundleEntrySchema = z.object({
  path: z.string(),
  digest: z.string(),
  profile: profileSchema.nullable(),
  experiment: z.string().nullable(),
  trial: z.string().nullable(),
  attempt: z.int().nullable(),
  seed: z.string().nullable(),
  validity: z.enum(["valid", "invalid", "error"]),
  errors: z.array(findingSchema),
  warnings: z.array(findingSchema),
  status: z.enum(["completed", "interrupted", "abnormal", "resource-bound", "unterminated"]).nullable(),
  task: z.string().nullable(),
  /** Extension to §10 (Harbor): task_checksum; pass@k groups trials by task and checksum. */
  task_checksum: z.string().nullable(),
  ending: z.boolean().nullable(),
  /** Extension to §10: the journal's complete lines hold a final score (adjudication of unterminated runs). */
  final_score: z.boolean().nullable(),
  scenario: z.string().nullable(),
  victory: z.boolean().nullable(),
  late: z.boolean().nullable(),
  dimensions: z.record(z.string(), z.object({ pass: z.boolean(), hard: z.boolean(), detail: z.string() })).nullable(),
  pass: z.boolean().nullable(),
  state: z.enum(["scored", "scored-with-exception", "infrastructure-error", "incomplete"]).nullable(),
  rewards: z.record(z.string(), z.number()).nullable(),
  reward_source: z.string().nullable(),
  flags: z.array(z.object({ code, evidence: z.string() })),
  advisory: advisorySchema.nullable(),
});
export type BundleEntry = z.infer<typeof bundleEntrySchema>;
/** The fields of a bundle entry that the caller fills from where the bundle lies. */
export type ScoredBundle = Omit<BundleEntry, "path">;

/** A bundle entry with every field the given evidence did not settle left empty. */
export function blankEntry(fields: Partial<ScoredBundle> & Pick<ScoredBundle, "validity" | "errors">): ScoredBundle {
  const { validity, errors, ...rest } = fields; // placed in §10's key order below
  return {
    digest: "",
    profile: null,
    experiment: null,
    trial: null,
    attempt: null,
    seed: null,
    validity,
    errors,
    warnings: [],
    status: null,
    task: null,
    task_checksum: null,
    ending: null,
    final_score: null,
    scenario: null,
    victory: null,
    late: null,
    dimensions: null,
    pass: null,
    state: null,
    rewards: null,
    reward_source: null,
    flags: [],
    advisory: null,
    ...rest,
  };
}


const trialList = z.array(z.string());
export const experimentSchema = z.object({
  experiment: z.string().nullable(),
  profile: profileSchema.nullable(),
  scheduled: z.int(),
  invalid: z.array(z.object({ trial: z.string(), codes: z.array(code) })),
  missing: trialList,
  excluded: z.array(z.object({ trial: z.string(), reason: z.string() })),
  unscored: trialList,
  /** attempt: null for Harbor trials (review flags, copied from the trial's entry). */
  flags: z.array(z.object({ code, trial: z.string(), attempt: z.int().nullable() })),
  accuracy: z
    .object({ value: z.number().nullable(), victories: z.int(), scored: z.int(), wilson95: z.tuple([z.number(), z.number()]).nullable() })
    .nullable(),
  raw_record: z.object({ values: z.array(z.union([z.literal(0), z.literal(1)])), mean: z.number().nullable() }).nullable(),
  completion: z.object({ value: z.number().nullable(), completed: z.int(), scheduled: z.int() }).nullable(),
  retry: trialList.nullable(),
  dimensions: z.record(z.string(), z.object({ passed: z.int(), total: z.int() })).nullable(),
  pass: z.object({ passed: z.int(), total: z.int() }).nullable(),
  pass_hat_k: z.record(z.string(), z.number()).nullable(),
  rewards: z
    .record(
      z.string(),
      z.object({
        mean: z.number().nullable(),
        /** covered / trials: trials scored (or invalid, as 0) over every trial but tool errors. */
        coverage: z.number(),
        /** Extension to §10: coverage's numerator and denominator. */
        covered: z.int(),
        trials: z.int(),
        pass_rate: z.number().nullable(),
        pass_at_k: z.record(z.string(), z.number()).nullable(),
        pass_at_k_reason: z.string().nullable(),
      }),
    )
    .nullable(),
  states: z.record(z.string(), z.int()).nullable(),
});
export type Experiment = z.infer<typeof experimentSchema>;

/** An experiment with no trial counted yet and every profile's metrics null (each profile fills its own). */
export const blankExperiment = (experiment: string | null, profile: Profile | null, scheduled: number): Experiment => ({
  experiment,
  profile,
  scheduled,
  invalid: [],
  missing: [],
  excluded: [],
  unscored: [],
  flags: [],
  accuracy: null,
  raw_record: null,
  completion: null,
  retry: null,
  dimensions: null,
  pass: null,
  pass_hat_k: null,
  rewards: null,
  states: null,
});

export const runOptionsSchema = z.object({
  invalid: z.enum(["count", "exclude"]),
  /** "default": each profile's research rule (native: exclude; world: scored on its dimensions). */
  resource_bound: z.enum(["default", "exclude", "loss"]),
  /** Harbor: infrastructure errors and incomplete trials left out of reward metrics, or counted as 0. */
  errors: z.enum(["exclude", "zero"]),
  schedules: z.array(z.string()),
  /** §7/§8: the fingerprint of the key file seals were checked with (never the key), or null: not checked. */
  hmac_key: z.string().nullable(),
});
export type RunOptions = z.infer<typeof runOptionsSchema>;

export const resultsSchema = z.object({
  format: z.literal("assay.results/1"),
  run: z.object({
    tool_version: z.string(),
    scoring_version: z.int(),
    started_at: z.string(),
    /** False when the run was stopped (Ctrl-C) before every bundle was scored. */
    complete: z.boolean(),
    /** "i/n" for a shard's document (bundle entries only; `assay merge` computes experiments). */
    shard: z.string().nullable(),
    /** The roots as given: paths (and so shards) derive from them, so merged shards must agree. */
    roots: z.array(z.string()),
    options: runOptionsSchema,
  }),
  bundles: z.array(bundleEntrySchema),
  experiments: z.array(experimentSchema),
});
export type Results = z.infer<typeof resultsSchema>;

/** How many bundle entries a document holds, by validity, and how many are Harbor trials. */
export interface Tally {
  bundles: number;
  valid: number;
  invalid: number;
  error: number;
  harbor: number;
}
export const emptyTally = (): Tally => ({ bundles: 0, valid: 0, invalid: 0, error: 0, harbor: 0 });
export function count(tally: Tally, e: Pick<BundleEntry, "validity" | "profile">): void {
  tally.bundles++;
  tally[e.validity]++;
  if (e.profile === "harbor") tally.harbor++;
}

/**
 * A results document whose bundle entries are read as they are rendered: from a file the run
 * spilled them to, or from an array. `bundles` is in path order and may be iterated again.
 */
export interface ResultsView extends Omit<Results, "bundles"> {
  bundles: Iterable<BundleEntry>;
  tally: Tally;
}

/** A document held in memory, as a view. */
export function viewOf(results: Results): ResultsView {
  const tally = emptyTally();
  for (const e of results.bundles) count(tally, e);
  return { ...results, tally };
}

/** A view read whole into memory (tests, the library API, and analyses, which annotate each entry). */
export const materialize = (v: ResultsView): Results => ({ format: v.format, run: v.run, bundles: [...v.bundles], experiments: v.experiments });
