// Running an analysis over many targets: for each, the cache first, then (when live) the model,
// with at most `concurrency` requests in flight and identical requests asked once. Every reply is
// validated against the schema built from the rubric; a reply that fails, or a request that fails
// after the SDK's retries, gives every criterion `error` and is never cached. The result is a
// separate advisory record: nothing here receives, let alone writes, a hard field.

import type { Advisory } from "../core/results.js";
import { requestDigest, type Backend, type ModelReply, type ModelRequest } from "./backend.js";
import { analyseInBatches } from "./batch.js";
import { AnalysisCache, cacheKey, provenanceOf } from "./cache.js";
import type { EvidencePack } from "./evidence.js";
import type { Budget } from "./budget.js";
import { costOf, type Price } from "./prices.js";
import { renderUser, type Template } from "./prompt.js";
import { answerJsonSchema, answerSchema, type Rubric } from "./rubric.js";

export interface Analysis {
  /** "task-quality" or "trial-legitimacy". */
  name: string;
  rubric: Rubric;
  template: Template;
}

/** One thing to analyse: its evidence, built when its turn comes (or why there is none to analyse). */
export type Target = () => EvidencePack | { skip: string };

export interface EngineOptions {
  cache: AnalysisCache;
  /** null: offline (replay) — a miss is "not in cache", with no network attempt. */
  backend: Backend | null;
  model: string;
  concurrency: number;
  maxTokens?: number;
  /** Which repeat of the same question this is: repeats are independent answers (part of the key). */
  repeat?: number;
  /** A problem worth a line on stderr that does not stop the run (the cache refusing a write). */
  warn?: (message: string) => void;
  /** Limits on requests and spending; past them a target is "not analysed: budget reached". */
  budget?: Budget;
  /** Price overrides (--price) for the cost recorded in provenance. */
  prices?: ReadonlyMap<string, Price>;
  /** The fingerprint of the key file seals were checked with (§7), or null/absent: none. */
  keyFingerprint?: string | null;
  /** Called as each target is settled (progress: requests answered, cached, failed, cost so far). */
  onSettled?: (a: Advisory) => void;
  /** Send the cache misses through the Message Batches API (half the price), polling until they end. */
  batch?: {
    pollMs: number;
    /** How long to poll before leaving a batch for the next run. */
    waitMs: number;
    /** A placeholder younger than this may be another run's create in flight: left alone. */
    adoptAfterMs: number;
    progress?: (line: string) => void;
  };
}

/** Room for a whole answer: the schema bounds each explanation (2,000 characters) and the summary. */
export const DEFAULT_MAX_TOKENS = 8192;

/** An advisory record's fields that do not depend on the answer. */
export type Done = Omit<Advisory, "status" | "reason" | "cached" | "outcomes" | "summary" | "provenance">;
/** A target that needs a request: its cache key, the request, and its record's fixed fields. */
export interface Pending {
  key: string;
  req: ModelRequest;
  done: Done;
}
/** What batch mode shares with the direct path: one way to prepare, settle, fail and refuse. */
export interface Session {
  o: EngineOptions;
  maxTokens: number;
  prepare(target: Target): Advisory | Pending;
  settle(
    key: string,
    reply: ModelReply,
    done: Done,
    reservation: { worstUsd: number } | null,
    priceFactor: number,
  ): Advisory;
  failedWith(done: Done, why: string): Advisory;
  refused(done: Done): Advisory;
}

export async function analyseAll(
  analysis: Analysis,
  targets: readonly Target[],
  o: EngineOptions,
): Promise<Advisory[]> {
  const schema = answerSchema(analysis.rubric);
  const jsonSchema = answerJsonSchema(analysis.rubric);
  const maxTokens = o.maxTokens ?? DEFAULT_MAX_TOKENS;
  const base = {
    analysis: analysis.name,
    rubric: analysis.rubric.name,
    rubric_digest: analysis.rubric.digest,
    model: o.model,
  };
  const everyCriterion = (explanation: string) =>
    Object.fromEntries(analysis.rubric.criteria.map((c) => [c.name, { outcome: "error" as const, explanation }]));
  let warnedStore = false;
  /** In-flight answers by key: the same question (a copied trial, a folder given twice) is asked once. */
  const asking = new Map<string, Promise<Advisory>>();

  /** An attempt that produced no valid answer: every criterion `error`, never cached. */
  const failedWith = (done: Done, why: string): Advisory => ({
    ...done,
    status: "analysed",
    reason: why,
    cached: false,
    outcomes: everyCriterion(why),
    summary: null,
    provenance: null,
  });
  const ask = async (
    key: string,
    req: ModelRequest,
    done: Done,
    reservation: { worstUsd: number } | null,
  ): Promise<Advisory> => {
    const failed = (why: string) => failedWith(done, why);
    let reply;
    try {
      reply = await o.backend!.ask(req);
    } catch (e) {
      // It may have been charged: the budget keeps the worst case.
      if (reservation) o.budget!.settle(reservation, reservation.worstUsd);
      return failed(`the model request failed: ${(e as Error).message}`);
    }
    return settle(key, reply, done, reservation, 1);
  };

  /** A reply (direct or from a batch, whose price is `priceFactor` of the list price): validated, costed, cached. */
  const settle = (
    key: string,
    reply: ModelReply,
    done: Done,
    reservation: { worstUsd: number } | null,
    priceFactor: number,
  ): Advisory => {
    const failed = (why: string) => failedWith(done, why);
    // Priced as the model asked for (its alias is what --price and the table name), not the dated name a reply may carry.
    const listCost = costOf(o.model, reply.inputTokens, reply.outputTokens, o.prices);
    const cost = listCost === null ? null : listCost * priceFactor;
    if (reservation) o.budget!.settle(reservation, cost ?? reservation.worstUsd);
    const answer = schema.safeParse(reply.input);
    if (!answer.success)
      return failed(
        reply.stopReason === "max_tokens"
          ? `the reply was cut at max_tokens (${maxTokens}) before it was complete`
          : reply.input === null
            ? "the model answered without the required tool call"
            : `the reply failed validation: ${answer.error.issues
                .slice(0, 3)
                .map((i) => `${i.path.join(".") || "(reply)"}: ${i.message}`)
                .join("; ")}`,
      );
    const provenance = provenanceOf(
      reply,
      priceFactor === 1 ? o.backend!.endpoint : `${o.backend!.endpoint} (message batch)`,
      cost,
    );
    try {
      o.cache.store(key, analysis.name, o.model, answer.data, provenance);
    } catch (e) {
      if (!warnedStore)
        o.warn?.(`the analysis cache refused a write (${(e as Error).message}); answers of this run are not kept`);
      warnedStore = true;
    }
    return {
      ...done,
      status: "analysed",
      reason: null,
      cached: false,
      outcomes: answer.data.criteria,
      summary: answer.data.summary,
      provenance,
    };
  };

  /** A target's answer when it needs no request (skipped, cached, offline), else the request to make. */
  const prepare = (target: Target): Advisory | Pending => {
    let pack: EvidencePack | { skip: string };
    try {
      pack = target();
    } catch (e) {
      pack = { skip: `evidence could not be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
    }
    if ("skip" in pack)
      return {
        ...base,
        status: "not-analysed",
        reason: pack.skip,
        cached: false,
        outcomes: {},
        summary: null,
        evidence_digest: null,
        provenance: null,
      };
    const req: ModelRequest = {
      model: o.model,
      system: analysis.template.system,
      user: renderUser(analysis.template, analysis.name, analysis.rubric, pack.text),
      schema: jsonSchema,
      maxTokens,
    };
    const key = cacheKey({
      request: requestDigest(req),
      evidence: pack.digest,
      rubric: analysis.rubric.digest,
      prompt: analysis.template.digest,
      model: o.model,
      sampling: { max_tokens: maxTokens },
      repeat: o.repeat ?? 0,
      ...(o.keyFingerprint ? { hmac_key: o.keyFingerprint } : {}),
    });
    const done = { ...base, evidence_digest: pack.digest };
    const hit = o.cache.lookup(key, schema);
    if (hit !== null)
      return {
        ...done,
        status: "analysed",
        reason: null,
        cached: true,
        outcomes: hit.answer.criteria,
        summary: hit.answer.summary,
        provenance: hit.provenance,
      };
    if (o.backend === null)
      return {
        ...done,
        status: "not-analysed",
        reason: "not in cache (offline: no model is asked)",
        cached: false,
        outcomes: {},
        summary: null,
        provenance: null,
      };
    return { key, req, done };
  };
  /** Requests in flight: a request the budget cannot fit yet waits for one of them to settle. */
  const inFlight = new Set<Promise<Advisory>>();
  const reserveThenAsk = async (key: string, req: ModelRequest, done: Done): Promise<Advisory> => {
    let reservation: { worstUsd: number } | null = null;
    if (o.budget) {
      const bytes = Buffer.byteLength(JSON.stringify(req));
      for (;;) {
        const r = o.budget.reserve(bytes, maxTokens);
        if (r === "no" || (r === "wait" && inFlight.size === 0)) return refused(done);
        if (r !== "wait") {
          reservation = r;
          break;
        }
        await Promise.race(inFlight);
      }
    }
    const p = ask(key, req, done, reservation);
    inFlight.add(p);
    try {
      return await p;
    } finally {
      inFlight.delete(p);
    }
  };
  const refused = (done: Done): Advisory => ({
    ...done,
    status: "not-analysed",
    reason: o.budget!.reason,
    cached: false,
    outcomes: {},
    summary: null,
    provenance: null,
  });

  const one = async (target: Target): Promise<Advisory> => {
    const p = prepare(target);
    if (!("key" in p)) return p;
    const { key, req, done } = p;
    let pending = asking.get(key);
    if (pending === undefined) {
      pending = reserveThenAsk(key, req, done);
      asking.set(key, pending);
    }
    return pending;
  };

  if (o.batch && o.backend?.batches)
    return analyseInBatches(
      { o, maxTokens, prepare, settle, failedWith, refused },
      targets,
      o.backend.batches,
      o.batch,
    );

  // A fixed number of runners pull targets in order; results keep the targets' order.
  const out = new Array<Advisory>(targets.length);
  let next = 0;
  const runner = async () => {
    while (next < targets.length) {
      const i = next++;
      out[i] = await one(targets[i]!);
      o.onSettled?.(out[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, targets.length)) }, runner));
  return out;
}
