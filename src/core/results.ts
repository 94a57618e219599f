// The results document (contract §10) as zod schemas: the types below and the shipped JSON Schema
// both come from here.

import { createHash, createHmac, type Hash } from "node:crypto";
import { z } from "zod";
import { containerParts, DECLARED_PROFILES, DECLARED_STATES, entryParts, experimentParts } from "../kinds/declared.js";
import { harborDeclaration } from "../kinds/harbor/declaration.js";
import { inspectDeclaration } from "../kinds/inspect/declaration.js";
import { CODES } from "./codes.js";
import { entryIdentitySchema, identitySchema } from "./identity.js";
import { filtersSchema } from "./filter-schema.js";

const code = z.enum(Object.keys(CODES) as [keyof typeof CODES, ...(keyof typeof CODES)[]]);
export const findingSchema = z.object({
  code,
  file: z.string().nullable(),
  line: z.int().min(1).nullable(),
  message: z.string(),
});

/** Every kind's profiles (kinds/declared.ts). */
export const PROFILES = DECLARED_PROFILES;
/** §11: one state per Harbor trial, never collapsed into a silent 0. */
export const HARBOR_STATES = harborDeclaration.states;
export type HarborState = (typeof HARBOR_STATES)[number];
/** §12: an Inspect log is complete, or incomplete (no header.json, status started, or cut short). */
export const INSPECT_LOG_STATES = inspectDeclaration.states;
/** §12: an Inspect log's own status. */
export const INSPECT_STATUSES = ["started", "success", "cancelled", "error"] as const;
export const profileSchema = z.enum(PROFILES);
export type Profile = z.infer<typeof profileSchema>;

/** A Harbor trial's Rewardkit details and what `harbor analyze` says of it (§11): its entry's own fields (kinds/harbor/entry.ts). */
const { rewardDetails: rewardDetailsSchema, analysis: harborAnalysisSchema } = harborDeclaration.schemas;

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
  outcomes: z.record(
    z.string(),
    z.object({ outcome: z.enum(["pass", "fail", "not_applicable", "error"]), explanation: z.string() }),
  ),
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

/** §13.2: the interval of a metric's mean, with what it assumes (units, clusters), or null with `interval_reason`. */
export const intervalSchema = z.object({
  method: z.enum(["wilson", "t", "cluster-t", "korn-graubard"]),
  lo: z.number(),
  hi: z.number(),
  units: z.int(),
  clusters: z.int(),
  se: z.number().nullable(),
  design_effect: z.number().nullable(),
  // issue 35: store-harbor. Of the clusters, units whose cluster nothing names (absent: none).
  unplaced: z.int().optional(),
});
export type IntervalField = z.infer<typeof intervalSchema>;
/** The two fields every metric object with an interval carries (absent in documents before scoring version 7). */
const intervalFields = {
  interval: intervalSchema.nullable().default(null),
  interval_reason: z.string().nullable().default(null),
};
const passHatK = z.record(z.string(), z.number()).nullable().default(null);

/** A figure Inspect claims: a number, or NaN and ±Infinity spelled as strings (JSON has no such numbers). */
const claimedFigure = z.union([z.number(), z.enum(["NaN", "Infinity", "-Infinity"])]).nullable();
const figuresSchema = z.object({
  value: z.number().nullable(),
  n: z.int(),
  wilson95: z.tuple([z.number(), z.number()]).nullable(),
  pass_at_k: z.record(z.string(), z.number()).nullable(),
  ...intervalFields,
  /** §13.3: pass^k across epochs (binary scores before reduction), null otherwise. */
  pass_hat_k: passHatK,
});
const checkSchema = z.enum(["agrees", "mismatch", "unverified"]);
/** §12: an Inspect log's identity, plan and metrics (per "<scorer>/<reducer or ->/<metric>"), for both --errors settings. */
export const inspectLogSchema = z.object({
  format: z.enum(["eval", "json"]),
  log_version: z.int().nullable(),
  inspect_version: z.string().nullable(),
  eval_id: z.string().nullable(),
  run_id: z.string().nullable(),
  task_id: z.string().nullable(),
  model: z.string().nullable(),
  created: z.string().nullable(),
  completed_at: z.string().nullable(),
  plan: z.object({
    records: z.int(),
    ids: z.int(),
    epochs: z.int(),
    source: z.enum(["sample_ids", "samples present"]),
  }),
  total_samples: z.int().nullable(),
  /** §13.4: the planned sample ids in plan order, which each mean/accuracy metric's `values` follow (null: none kept). */
  sample_ids: z.array(z.string()).nullable().default(null),
  /**
   * §13.7: the clusters those samples pair in (null where `sample_ids` is, and in a document from
   * before): `by`, per mean/accuracy metric key, the metadata key its scorer's `stderr(cluster=…)`
   * names (a metric absent: no key, each sample stands alone); `keys`, per metadata key, each
   * planned sample's cluster parallel to `sample_ids`, an index into `names` (the value as
   * Inspect's clustering compares it), null where the sample has no such metadata.
   */
  sample_clusters: z
    .object({
      by: z.record(z.string(), z.string()),
      keys: z.record(z.string(), z.object({ names: z.array(z.string()), of: z.array(z.int().min(0).nullable()) })),
    })
    .nullable()
    .default(null),
  metrics: z.record(
    z.string(),
    z.object({
      claimed: claimedFigure,
      check: checkSchema,
      note: z.string().nullable(),
      coverage: z.object({ scored: z.int(), planned: z.int() }),
      exclude: figuresSchema,
      zero: figuresSchema,
      /** §13.4: each planned sample's reduced value (null: not in the figure) under each --errors setting; mean/accuracy metrics only. */
      values: z
        .object({ exclude: z.array(z.number().nullable()), zero: z.array(z.number().nullable()) })
        .nullable()
        .default(null),
      /** Issue 25: planned records whose grader failed (an instrument error), in neither figure; present only when some are. */
      grader_failed: z.int().optional(),
      /** Issue 35: planned records where the model gave no answer (refusal error, reason refusal/no_response, value N), 0 in both figures; present only when some are. */
      refusals: z.int().optional(),
    }),
  ),
});

/** §13.5: tokens and dollars as the evidence records them (each null when not recorded, never estimated). */
const usageFields = {
  input_tokens: z.number().min(0).nullable(),
  output_tokens: z.number().min(0).nullable(),
  cache_read_tokens: z.number().min(0).nullable(),
  cost_usd: z.number().min(0).nullable(),
};
export const usageSchema = z.object(usageFields);
/** §13.5: one of an experiment's two totals, over `entries` entries of which `costed` record a cost. */
const usageTotalSchema = z.object({ entries: z.int(), costed: z.int(), ...usageFields });
export const experimentUsageSchema = z.object({
  spent: usageTotalSchema,
  counted: usageTotalSchema,
  successes: z.int(),
  cost_per_success: z.number().nullable(),
});

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
  status: z
    .enum(["completed", "interrupted", "abnormal", "resource-bound", "unterminated", ...INSPECT_STATUSES])
    .nullable(),
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
  state: z.enum(DECLARED_STATES).nullable(),
  /** Harbor: the top-level rewards of result.json ({} is rewards with no key); null when there are none. */
  rewards: z.record(z.string(), z.number()).nullable(),
  reward_source: z.string().nullable(),
  flags: z.array(z.object({ code, evidence: z.string() })),
  /** Harbor (§11): the trial's own exception (step null), else its first step's. */
  exception: z.object({ type: z.string(), message: z.string(), step: z.string().nullable() }).nullable(),
  /** Extension to §10 (Harbor): the TrialResult's `id` and its config's `job_id`. */
  harbor_id: z.string().nullable(),
  job_id: z.string().nullable(),
  /**
   * Extension to §10 (Harbor), from where the trial lies (set after any store lookup, never
   * stored): its job folder's path, and what that job's own result.json says of it (null when the
   * summary names it nowhere, or there is no readable summary).
   */
  job: z.string().nullable(),
  claimed: z
    .object({ rewards: z.record(z.string(), z.number()).nullable(), exception: z.string().nullable() })
    .nullable(),
  /** Extension to §10 (Inspect, §12): each sample state's count (every planned record, and records outside the plan). */
  samples: z.record(z.string(), z.int()).nullable().default(null),
  /** Extension to §10 (Inspect, §12): what the batch rules and reports read of the log. */
  inspect: inspectLogSchema.nullable().default(null),
  /** §13.5 (Harbor, Inspect): what the trial or log spent; null for the profiles whose evidence records none. */
  usage: usageSchema.nullable().default(null),
  /** Extension to §10 (Harbor): result.json's task_id.path (the job's lock.json names a task's digest by it). */
  task_path: z.string().nullable().default(null),
  /** Extension to §10 (Harbor): Rewardkit's reward-details.json beside the rewards (verifier output: in the digest), bounded. */
  reward_details: rewardDetailsSchema.nullable().default(null),
  /**
   * Extension to §10 (Harbor): what `harbor analyze` (analysis.json) or the older summarize
   * (summary.md) wrote into the trial folder, bounded. Not evidence (outside the digest): read
   * where the trial lies, after any store lookup, and never stored.
   */
  harbor_analysis: harborAnalysisSchema.nullable().default(null),
  advisory: advisorySchema.nullable(),
  /** Extensions to §10: what only one kind's entries carry (Terminal-Bench's `terminal_bench`), each absent on every other entry. */
  ...entryParts(),
  /** Issue 37: what the bundle's own evidence says of its run (agent, model, benchmark, harness, times); null where it records none. */
  identity: entryIdentitySchema.nullable().default(null),
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
    exception: null,
    harbor_id: null,
    job_id: null,
    job: null,
    claimed: null,
    samples: null,
    inspect: null,
    usage: null,
    task_path: null,
    reward_details: null,
    harbor_analysis: null,
    advisory: null,
    identity: null,
    ...rest,
  };
}

const trialList = z.array(z.string());
/** What a Harbor job's own result.json claims (§11): `<evals key>/<index>/<name>` and `<evals key>/pass_at_k/<k>`. */
const claimedSchema = z.object({
  source: z.string(),
  metrics: z.record(z.string(), z.number()),
  /** Extension to §10: each claimed metric assay can compare, beside assay's own figure, with why they differ (null: they agree). */
  compared: z.array(
    z.object({ metric: z.string(), claimed: z.number(), assay: z.number().nullable(), reason: z.string().nullable() }),
  ),
});
export const experimentSchema = z.object({
  experiment: z.string().nullable(),
  profile: profileSchema.nullable(),
  scheduled: z.int(),
  invalid: z.array(z.object({ trial: z.string(), codes: z.array(code) })),
  /** Trials scheduled and absent; Harbor: how many the job planned and its folder lacks (names unknown). */
  missing: z.array(z.union([z.string(), z.object({ count: z.int(), reason: z.string() })])),
  excluded: z.array(z.object({ trial: z.string(), reason: z.string() })),
  unscored: trialList,
  /** attempt: null for Harbor trials; evidence: why (null for a review flag, whose evidence is in the trial's entry). */
  flags: z.array(z.object({ code, trial: z.string(), attempt: z.int().nullable(), evidence: z.string().nullable() })),
  accuracy: z
    .object({
      value: z.number().nullable(),
      victories: z.int(),
      scored: z.int(),
      wilson95: z.tuple([z.number(), z.number()]).nullable(),
      ...intervalFields,
    })
    .nullable(),
  raw_record: z
    .object({ values: z.array(z.union([z.literal(0), z.literal(1)])), mean: z.number().nullable() })
    .nullable(),
  completion: z
    .object({ value: z.number().nullable(), completed: z.int(), scheduled: z.int(), ...intervalFields })
    .nullable(),
  retry: trialList.nullable(),
  dimensions: z.record(z.string(), z.object({ passed: z.int(), total: z.int(), ...intervalFields })).nullable(),
  pass: z.object({ passed: z.int(), total: z.int(), ...intervalFields }).nullable(),
  pass_hat_k: z.record(z.string(), z.number()).nullable(),
  rewards: z
    .record(
      z.string(),
      z.object({
        mean: z.number().nullable(),
        /** Extension to §10 (§11 statistics): the mean's Wilson 95% interval, when every value in it is 0 or 1. */
        wilson95: z.tuple([z.number(), z.number()]).nullable(),
        /** covered / trials: trials scored (or invalid, as 0) over every trial but tool errors, planned-but-absent ones included; null when the plan is unknown (coverage_reason). */
        coverage: z.number().nullable(),
        /** Issue 35: why coverage is null (a job's or run's plan unknown); present only then. */
        coverage_reason: z.string().optional(),
        /** Extension to §10: coverage's numerator and denominator (with the plan unknown, trials counts only those present: a lower bound). */
        covered: z.int(),
        trials: z.int(),
        pass_rate: z.number().nullable(),
        pass_at_k: z.record(z.string(), z.number()).nullable(),
        /** Why pass@k and pass^k are null (null when they are given). */
        pass_at_k_reason: z.string().nullable(),
        /** §13.3: pass^k per task, binary keys only. */
        pass_hat_k: passHatK,
        /** Extension to §10 (Harbor): what told one task from another for pass@k and clusters (null: no trial in the mean). */
        task_identity: z.string().nullable().optional(),
        ...intervalFields,
      }),
    )
    .nullable(),
  states: z.record(z.string(), z.int()).nullable(),
  claimed: claimedSchema.nullable(),
  /** Extensions to §10 (Harbor): the job folder and its id; trials with an exception, by type; the job's own warnings. */
  job: z.string().nullable(),
  job_id: z.string().nullable(),
  exceptions: z.record(z.string(), z.int()).nullable(),
  warnings: z.array(findingSchema),
  /** Extensions to §10 (Inspect, §12): the log whose figures the experiment reports, and each metric claimed beside assay's own. */
  log: z
    .object({
      path: z.string(),
      status: z.enum(INSPECT_STATUSES).nullable(),
      state: z.enum(INSPECT_LOG_STATES).nullable(),
    })
    .nullable()
    .default(null),
  inspect: z
    .record(
      z.string(),
      z.object({
        claimed: claimedFigure,
        value: z.number().nullable(),
        coverage: z.object({ scored: z.int(), planned: z.int() }),
        wilson95: z.tuple([z.number(), z.number()]).nullable(),
        pass_at_k: z.record(z.string(), z.number()).nullable(),
        check: checkSchema,
        note: z.string().nullable(),
        /** The value over every planned record, those without a score as 0 (what --errors zero reports as `value`). */
        errors_zero: z.number().nullable(),
        /** §13.2 (mean and accuracy metrics) and §13.3 (binary scorers over epochs). */
        ...intervalFields,
        pass_hat_k: passHatK,
        /** Issue 25: planned records whose grader failed (an instrument error), in neither figure; present only when some are. */
        grader_failed: z.int().optional(),
        /** Issue 35: planned records where the model gave no answer, counted 0 in both figures (beside coverage); present only when some are. */
        refusals: z.int().optional(),
      }),
    )
    .nullable()
    .default(null),
  /** §13.5 (Harbor, Inspect): spent over every entry, counted over the counted units, and cost per success. */
  usage: experimentUsageSchema.nullable().default(null),
  /** Issue 37: who ran what, on which benchmark and tasks, with which harness, when: the union of its entries' (core/identity.ts); null where none records any. */
  identity: identitySchema.nullable().default(null),
  /** Extensions to §10: what only one kind's experiments carry, each absent on every other experiment. */
  ...experimentParts(),
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
  claimed: null,
  job: null,
  job_id: null,
  exceptions: null,
  warnings: [],
  log: null,
  inspect: null,
  usage: null,
  identity: null,
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
  /** --dataset: the benchmark's task list the kinds that read one checked their evidence against (its path as given, its bytes' SHA-256); absent: none given. */
  dataset: z.object({ file: z.string(), sha256: z.string() }).optional(),
  /** Issue 37: the filters that chose which experiments (and their bundles) the document holds (core/filter.ts); null: every one. */
  filters: filtersSchema.nullable().default(null),
});
export type RunOptions = z.infer<typeof runOptionsSchema>;

/** Lists in a job record are cut to this many (a job's record stays small, however many trials it names). */
export const MAX_JOB_LIST = 100;

/** A Harbor job folder as discovery found it and its own files say (§11; kinds/harbor/entry.ts), in `run.jobs`. */
export const jobRecordSchema = harborDeclaration.schemas.job(findingSchema);
export type JobRecord = z.infer<typeof jobRecordSchema>;

/** Each kind's container records but Harbor's (in `jobs`), by kind (its declaration's `containers`). */
export const containersSchema = z.object(containerParts(findingSchema)).partial();
export type Containers = z.infer<typeof containersSchema>;

/** §11 "nothing found is said": folders below a root that look like evidence but are not recognised. */
export const unrecognisedSchema = z.object({ count: z.int(), paths: z.array(z.string()) });
export type Unrecognised = z.infer<typeof unrecognisedSchema>;

/**
 * issue 35: the scan a document belongs to. Every shard of one scan carries the same: merge refuses
 * shards whose scans differ (another corpus, or an older shard replayed). `found` is the SHA-256 of
 * every bundle discovery found below the roots, every shard's (each shard walks them all);
 * `id` is --scan-id as given, else derived from the roots, the options and `found`.
 */
export const scanSchema = z.object({ id: z.string(), given: z.boolean(), found: z.string().regex(/^[0-9a-f]{64}$/) });
export type Scan = z.infer<typeof scanSchema>;

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
    /** issue 35: which scan this document is of (absent in documents of an older assay). */
    scan: scanSchema.optional(),
    /** Extension to §10: the Harbor job folders found (every shard lists them all). */
    jobs: z.array(jobRecordSchema),
    /** Extension (issue 25): the other kinds' containers found (a Terminal-Bench run's own files), by kind; absent when none. */
    containers: containersSchema.optional(),
    unrecognised: unrecognisedSchema,
  }),
  bundles: z.array(bundleEntrySchema),
  experiments: z.array(experimentSchema),
  /**
   * Extension to §10 (§8 "keyed documents"): a document written with --hmac-key-file ends with a
   * MAC under that key over its run (all but started_at), every bundle entry and every experiment,
   * each as the bytes written (DocumentMac below; docs/results.md). Absent without a key.
   */
  mac: z.object({ alg: z.literal("HMAC-SHA256"), value: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
});
export type Results = z.infer<typeof resultsSchema>;
export type DocumentMacField = NonNullable<Results["mac"]>;

/** What the MAC's message starts with: a new way of framing gets a new name. */
export const MAC_FORMAT = "assay.results-mac/1";

/** The run as the MAC covers it: every member but started_at (when the run began; a merge's differs), as JSON.stringify writes it. */
export function macRunText(run: unknown): string {
  if (typeof run !== "object" || run === null || Array.isArray(run)) return JSON.stringify(run);
  const { started_at: _s, ...rest } = run as Record<string, unknown>;
  return JSON.stringify(rest);
}

/**
 * The MAC of a results document (§8 "keyed documents"), computed as it is written or read, an
 * item at a time, never over the document whole:
 *
 *   message = "assay.results-mac/1\n"
 *           + "run " + SHA-256(R) + "\n"
 *           + "bundles " + N + " " + SHA-256(B) + "\n"
 *           + "experiments " + M + " " + SHA-256(X) + "\n"
 *   mac     = HMAC-SHA256(key, message), lowercase hex
 *
 * R is macRunText(run); B is, for each bundle entry in document order, SHA-256 of the entry's
 * bytes as written followed by "\n" (JSON: the array element from its "{" to its "}", as
 * indented there; JSON Lines: the line without its line end), and X likewise for the
 * experiments. Every SHA-256 is lowercase hex. The key is used here and nowhere else.
 */
export class DocumentMac {
  private run: string | null = null;
  private readonly bundles = createHash("sha256");
  private readonly experiments = createHash("sha256");
  private counts = { bundles: 0, experiments: 0 };
  private item: Hash | null = null;

  constructor(private readonly key: Uint8Array) {}

  setRun(run: unknown): void {
    this.run = createHash("sha256").update(macRunText(run)).digest("hex");
  }

  /** One item's bytes, whole. */
  add(kind: "bundles" | "experiments", bytes: string | Uint8Array): void {
    this.begin();
    this.piece(bytes);
    this.end(kind);
  }

  /** One item's bytes in pieces: begin, piece…, end. */
  begin(): void {
    this.item = createHash("sha256");
  }
  piece(bytes: string | Uint8Array): void {
    this.item!.update(bytes);
  }
  end(kind: "bundles" | "experiments"): void {
    this[kind].update(`${this.item!.digest("hex")}\n`);
    this.item = null;
    this.counts[kind]++;
  }

  /** The MAC (once: the hashes are spent). */
  digest(): string {
    const message =
      `${MAC_FORMAT}\nrun ${this.run ?? "none"}\n` +
      `bundles ${this.counts.bundles} ${this.bundles.digest("hex")}\n` +
      `experiments ${this.counts.experiments} ${this.experiments.digest("hex")}\n`;
    return createHmac("sha256", this.key).update(message).digest("hex");
  }
}

/** How many bundle entries a document holds, by validity and by profile ("" for none). */
export interface Tally {
  bundles: number;
  valid: number;
  invalid: number;
  error: number;
  byProfile: Record<string, number>;
}
/** A reward key's coverage count as reports print it: "4/6", or "4/? (plan unknown)" when its denominator is unknown (issue 35). */
export const coverageCount = (r: { covered: number; trials: number; coverage: number | null }): string =>
  r.coverage === null ? `${r.covered}/? (plan unknown)` : `${r.covered}/${r.trials}`;

export const emptyTally = (): Tally => ({ bundles: 0, valid: 0, invalid: 0, error: 0, byProfile: {} });
export function count(tally: Tally, e: Pick<BundleEntry, "validity" | "profile">): void {
  tally.bundles++;
  tally[e.validity]++;
  const p = e.profile ?? "";
  tally.byProfile[p] = (tally.byProfile[p] ?? 0) + 1;
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
export const materialize = (v: ResultsView): Results => ({
  format: v.format,
  run: v.run,
  bundles: [...v.bundles],
  experiments: v.experiments,
});
