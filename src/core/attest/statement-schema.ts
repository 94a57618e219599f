// §15.6 STATEMENT_MALFORMED: a signed payload read as the Statement of §15.4 before anything is
// compared (compare.ts trusts the shape it is given). Required fields must be there with their
// types; unknown fields are ignored (in-toto's monotonic principle: ignoring one never allows more).

import { z } from "zod";
import { finiteNumber } from "../schema.js";
import type { AttestFailure } from "./codes.js";
import { COMPARATORS, DECIMAL } from "./criteria.js";
import { PREDICATE_TYPE, STATEMENT_TYPE, type Statement } from "./statement.js";

const count = z.int().min(0);
// The payload is read by the strict parser, which boxes a fraction or exponent literal (0.5, 1e-7):
// a figure is any finite number however spelled, unboxed here.
const figure = finiteNumber.nullable();
const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const threshold = z.string().regex(DECIMAL);

const metric = z.object({
  name: z.string(),
  value: figure,
  successes: figure,
  units: figure,
  planned: figure,
  clusters: figure,
  interval: z.object({ method: z.string(), lo: finiteNumber, hi: finiteNumber }).nullable(),
  intervalReason: z.string().nullable(),
});
const experiment = z.object({
  experiment: z.string().nullable(),
  profile: z.string().nullable(),
  evidence: z.object({ leaves: count, merkleRoot: z.string() }),
  counts: z.object({
    entries: count,
    valid: count,
    invalid: count,
    toolErrors: count,
    scheduled: count,
    missing: count,
    excluded: count,
    unscored: count,
  }),
  invalidCodes: z.record(z.string(), count),
  flags: z.record(z.string(), count),
  metrics: z.array(metric),
  claims: z.array(
    z.object({
      source: z.string(),
      metric: z.string(),
      claimed: z.union([finiteNumber, z.string()]).nullable(),
      recounted: figure,
      verdict: z.string(),
    }),
  ),
});
const comparator = z.enum(COMPARATORS);
/** A paired rule's comparison (paired.ts's PairedRecord). */
const paired = z.object({
  unit: z.string().nullable(),
  pairs: count,
  onlyBase: count,
  onlyHead: count,
  clusters: count.nullable(),
  meanDiff: figure,
  interval: z.object({ method: z.string(), lo: finiteNumber, hi: finiteNumber }).nullable(),
  test: z.string(),
  p: finiteNumber,
  assumes: z.string(),
  reason: z.string().nullable(),
  unpaired: z.array(z.string()),
});

export const statementSchema = z.object({
  _type: z.literal(STATEMENT_TYPE),
  subject: z.array(
    z.object({
      name: z.string().optional(),
      digest: z.record(z.string(), z.string()),
      annotations: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  predicateType: z.literal(PREDICATE_TYPE),
  predicate: z.object({
    verifier: z.object({ id: z.string() }),
    harness: z.object({
      name: z.string(),
      version: z.string(),
      scoringVersion: z.int(),
      runtime: z.string(),
      digest: z.record(z.string(), z.string()),
    }),
    assuranceLevel: z.literal("reproduced"),
    scoredAt: z.string(),
    attestedAt: z.string(),
    options: z.object({
      invalid: z.string(),
      resource_bound: z.string(),
      errors: z.string(),
      schedules: z.array(z.string()),
      hmac_key: z.string().nullable(),
      dataset: z.string().optional(),
    }),
    results: z.object({ format: z.string(), complete: z.boolean(), shard: z.string().nullable(), unrecognised: count }),
    evidence: z.object({ entries: count, containers: count, merkleRoot: z.string() }),
    experiments: z.array(experiment),
    criteria: z
      .object({
        digest: z.object({ sha256: hex64 }),
        rules: z.array(
          z.object({
            experiment: z.string(),
            baseline: z.string().optional(),
            metric: z.string(),
            comparator,
            threshold,
            observed: figure,
            passed: z.boolean(),
            paired: paired.optional(),
          }),
        ),
      })
      .optional(),
    preRegistration: z.object({ alg: z.string(), value: z.string() }).optional(),
    claims: z.array(z.object({ metric: z.string(), comparator, threshold, passed: z.boolean() })).optional(),
  }),
});

/** The payload's JSON as a Statement, or why it is none (each problem where it is, a few at most). */
export function readStatement(value: unknown): { statement: Statement } | { failures: AttestFailure[] } {
  const r = statementSchema.safeParse(value);
  if (r.success) return { statement: r.data as Statement };
  return {
    failures: r.error.issues.slice(0, 8).map((i) => ({
      code: "STATEMENT_MALFORMED",
      where:
        i.path.length === 0
          ? "statement"
          : i.path
              .map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`))
              .join("")
              .replace(/^\./, ""),
      detail: i.message,
    })),
  };
}
