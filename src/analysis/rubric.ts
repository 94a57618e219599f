// Rubrics (Harbor's TOML shape: [[criteria]] with name, description, guidance) and the answer
// schema built from one: the model must return exactly one outcome per criterion.

import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { sha256 } from "../core/folder.js";

/** Names an object key could not hold as an ordinary property. */
const RESERVED = new Set(["__proto__", "constructor", "prototype"]);
export const criterionSchema = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, "a criterion name is a word of at most 64 characters")
    .refine((n) => !RESERVED.has(n), "a criterion cannot be named __proto__, constructor or prototype"),
  description: z.string().min(1),
  guidance: z.string().default(""),
});
/** A rubric file: extra keys are Harbor's business (kept out of the schema, not an error). */
const rubricFileSchema = z.looseObject({ criteria: z.array(z.looseObject(criterionSchema.shape)).min(1) });

export interface Rubric {
  /** The file's name without extension (`task-quality`). */
  name: string;
  /** SHA-256 of the file's bytes: part of the cache key. */
  digest: string;
  criteria: { name: string; description: string; guidance: string }[];
}

export class RubricError extends Error {
  readonly code = "RUBRIC";
}

/** Parse a rubric file's bytes; a malformed rubric is a usage error, never a silent default. */
export function parseRubric(name: string, bytes: Uint8Array): Rubric {
  let doc: unknown;
  try {
    doc = parseToml(Buffer.from(bytes).toString("utf8"));
  } catch (e) {
    throw new RubricError(`rubric ${name}: not TOML (${(e as Error).message.split("\n")[0]})`);
  }
  const r = rubricFileSchema.safeParse(doc);
  if (!r.success)
    throw new RubricError(
      `rubric ${name}: ${r.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`).join("; ")}`,
    );
  const criteria = r.data.criteria.map((c) => ({
    name: c.name,
    description: c.description,
    guidance: c.guidance ?? "",
  }));
  const names = new Set<string>();
  for (const c of criteria) {
    if (names.has(c.name)) throw new RubricError(`rubric ${name}: criterion ${c.name} appears twice`);
    names.add(c.name);
  }
  return { name, digest: sha256(bytes), criteria };
}

export const OUTCOMES = ["pass", "fail", "not_applicable"] as const;
/** What a reply must hold: a summary and, per criterion of the rubric, an outcome and why. */
export function answerSchema(rubric: Rubric) {
  // Bounded so that a whole answer fits DEFAULT_MAX_TOKENS (engine.ts) with room to spare.
  const verdict = z.strictObject({ outcome: z.enum(OUTCOMES), explanation: z.string().min(1).max(2000) });
  return z.strictObject({
    summary: z.string().max(4000),
    criteria: z.strictObject(Object.fromEntries(rubric.criteria.map((c) => [c.name, verdict]))),
  });
}
export type Answer = z.infer<ReturnType<typeof answerSchema>>;

/** The JSON Schema sent to the model (the forced tool's input_schema), from the same zod schema. */
export function answerJsonSchema(rubric: Rubric): Record<string, unknown> {
  const { $schema: _drop, ...schema } = z.toJSONSchema(answerSchema(rubric)) as Record<string, unknown>;
  return schema;
}
