// Running an analysis over many targets: for each, the cache first, then (when live) the model,
// with at most `concurrency` requests in flight. Every reply is validated against the schema built
// from the rubric; a reply that fails, or a request that fails after the SDK's retries, gives every
// criterion `error` and is never cached. The result is a separate advisory record: nothing here
// receives, let alone writes, a hard field.

import type { Advisory } from "../core/results.js";
import { AnalysisCache, cacheKey, type Provenance } from "./cache.js";
import { answerJsonSchema, answerSchema, type Rubric } from "./rubric.js";
import type { Backend } from "./backend.js";
import type { EvidencePack } from "./evidence.js";
import { renderUser, type Template } from "./prompt.js";

export interface Analysis {
  /** "task-quality" or "trial-legitimacy". */
  name: string;
  rubric: Rubric;
  template: Template;
}

export interface Target {
  /** The evidence, or why there is none to analyse ("invalid evidence"). */
  pack: EvidencePack | { skip: string };
}

export interface EngineOptions {
  cache: AnalysisCache;
  /** null: offline (replay) — a miss is "not in cache", with no network attempt. */
  backend: Backend | null;
  model: string;
  concurrency: number;
  maxTokens?: number;
  /** Which repeat of the same question this is (part of the key: repeats are independent answers). */
  repeat?: number;
  /** Called as each target is settled (progress). */
  onDone?: (a: Advisory) => void;
}

export const DEFAULT_MAX_TOKENS = 4096;

export async function analyseAll(analysis: Analysis, targets: readonly Target[], o: EngineOptions): Promise<Advisory[]> {
  const schema = answerSchema(analysis.rubric);
  const jsonSchema = answerJsonSchema(analysis.rubric);
  const maxTokens = o.maxTokens ?? DEFAULT_MAX_TOKENS;
  const base = { analysis: analysis.name, rubric: analysis.rubric.name, rubric_digest: analysis.rubric.digest, model: o.model };
  const everyCriterion = (outcome: "error", explanation: string) =>
    Object.fromEntries(analysis.rubric.criteria.map((c) => [c.name, { outcome, explanation }]));

  const one = async (t: Target): Promise<Advisory> => {
    if ("skip" in t.pack) return { ...base, status: "not-analysed", reason: t.pack.skip, cached: false, outcomes: {}, summary: null, evidence_digest: null };
    const pack = t.pack;
    const key = cacheKey({
      evidence: pack.digest,
      rubric: analysis.rubric.digest,
      prompt: analysis.template.digest,
      model: o.model,
      sampling: { max_tokens: maxTokens },
      repeat: o.repeat ?? 0,
    });
    const done = { ...base, evidence_digest: pack.digest };
    const hit = o.cache.lookup(key, schema);
    if (hit !== null) return { ...done, status: "analysed", reason: null, cached: true, outcomes: hit.answer.criteria, summary: hit.answer.summary };
    if (o.backend === null) return { ...done, status: "not-analysed", reason: "not in cache (offline: no model is asked)", cached: false, outcomes: {}, summary: null };
    let reply;
    try {
      reply = await o.backend.ask({
        model: o.model,
        system: analysis.template.system,
        user: renderUser(analysis.template, analysis.name, analysis.rubric, pack.text),
        schema: jsonSchema,
        maxTokens,
      });
    } catch (e) {
      const why = `the model request failed: ${(e as Error).message}`;
      return { ...done, status: "analysed", reason: why, cached: false, outcomes: everyCriterion("error", why), summary: null };
    }
    const answer = schema.safeParse(reply.input);
    if (!answer.success) {
      const why =
        reply.input === null
          ? "the model answered without the required tool call"
          : `the reply failed validation: ${answer.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(reply)"}: ${i.message}`).join("; ")}`;
      return { ...done, status: "analysed", reason: why, cached: false, outcomes: everyCriterion("error", why), summary: null };
    }
    const provenance: Provenance = {
      model: reply.model,
      request_id: reply.requestId,
      input_tokens: reply.inputTokens,
      output_tokens: reply.outputTokens,
      cost_usd: null, // prices per model arrive with budgets (issue 7)
      created_at: new Date().toISOString(),
    };
    o.cache.store(key, analysis.name, answer.data, provenance);
    return { ...done, status: "analysed", reason: null, cached: false, outcomes: answer.data.criteria, summary: answer.data.summary };
  };

  // A fixed number of runners pull targets in order; results keep the targets' order.
  const out = new Array<Advisory>(targets.length);
  let next = 0;
  const runner = async () => {
    while (next < targets.length) {
      const i = next++;
      out[i] = await one(targets[i]!);
      o.onDone?.(out[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, targets.length)) }, runner));
  return out;
}
