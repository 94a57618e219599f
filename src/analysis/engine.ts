// Running an analysis over many targets: for each, the cache first, then (when live) the model,
// with at most `concurrency` requests in flight and identical requests asked once. Every reply is
// validated against the schema built from the rubric; a reply that fails, or a request that fails
// after the SDK's retries, gives every criterion `error` and is never cached. The result is a
// separate advisory record: nothing here receives, let alone writes, a hard field.

import type { Advisory } from "../core/results.js";
import { randomUUID } from "node:crypto";
import { requestDigest, type Backend, type BackendError, type BatchApi, type ModelReply, type ModelRequest } from "./backend.js";
import { AnalysisCache, cacheKey, type Provenance } from "./cache.js";
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
  /** Called as each target is settled (progress: requests answered, cached, failed, cost so far). */
  onSettled?: (a: Advisory) => void;
  /** Send the cache misses through the Message Batches API (half the price), polling until they end. */
  batch?: { pollMs: number; progress?: (line: string) => void };
}

/** Room for a whole answer: the schema bounds each explanation (2,000 characters) and the summary. */
export const DEFAULT_MAX_TOKENS = 8192;

export async function analyseAll(analysis: Analysis, targets: readonly Target[], o: EngineOptions): Promise<Advisory[]> {
  const schema = answerSchema(analysis.rubric);
  const jsonSchema = answerJsonSchema(analysis.rubric);
  const maxTokens = o.maxTokens ?? DEFAULT_MAX_TOKENS;
  const base = { analysis: analysis.name, rubric: analysis.rubric.name, rubric_digest: analysis.rubric.digest, model: o.model };
  const everyCriterion = (explanation: string) =>
    Object.fromEntries(analysis.rubric.criteria.map((c) => [c.name, { outcome: "error" as const, explanation }]));
  let warnedStore = false;
  /** In-flight answers by key: the same question (a copied trial, a folder given twice) is asked once. */
  const asking = new Map<string, Promise<Advisory>>();

  type Done = Omit<Advisory, "status" | "reason" | "cached" | "outcomes" | "summary" | "provenance">;
  /** An attempt that produced no valid answer: every criterion `error`, never cached. */
  const failedWith = (done: Done, why: string): Advisory => ({ ...done, status: "analysed", reason: why, cached: false, outcomes: everyCriterion(why), summary: null, provenance: null });
  const ask = async (key: string, req: ModelRequest, done: Done, reservation: { worstUsd: number } | null): Promise<Advisory> => {
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
  const settle = (key: string, reply: ModelReply, done: Done, reservation: { worstUsd: number } | null, priceFactor: number): Advisory => {
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
            : `the reply failed validation: ${answer.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(reply)"}: ${i.message}`).join("; ")}`,
      );
    const provenance: Provenance = {
      model: reply.model,
      endpoint: priceFactor === 1 ? o.backend!.endpoint : `${o.backend!.endpoint} (message batch)`,
      request_id: reply.requestId,
      input_tokens: reply.inputTokens,
      output_tokens: reply.outputTokens,
      cost_usd: cost,
      created_at: new Date().toISOString(),
    };
    try {
      o.cache.store(key, analysis.name, answer.data, provenance);
    } catch (e) {
      if (!warnedStore) o.warn?.(`the analysis cache refused a write (${(e as Error).message}); answers of this run are not kept`);
      warnedStore = true;
    }
    return { ...done, status: "analysed", reason: null, cached: false, outcomes: answer.data.criteria, summary: answer.data.summary, provenance };
  };

  /** A target's answer when it needs no request (skipped, cached, offline), else the request to make. */
  const prepare = (target: Target): Advisory | { key: string; req: ModelRequest; done: Done } => {
    let pack: EvidencePack | { skip: string };
    try {
      pack = target();
    } catch (e) {
      pack = { skip: `evidence could not be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
    }
    if ("skip" in pack)
      return { ...base, status: "not-analysed", reason: pack.skip, cached: false, outcomes: {}, summary: null, evidence_digest: null, provenance: null };
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
    });
    const done = { ...base, evidence_digest: pack.digest };
    const hit = o.cache.lookup(key, schema);
    if (hit !== null)
      return { ...done, status: "analysed", reason: null, cached: true, outcomes: hit.answer.criteria, summary: hit.answer.summary, provenance: hit.provenance };
    if (o.backend === null)
      return { ...done, status: "not-analysed", reason: "not in cache (offline: no model is asked)", cached: false, outcomes: {}, summary: null, provenance: null };
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
  const refused = (done: Done): Advisory => ({ ...done, status: "not-analysed", reason: o.budget!.reason, cached: false, outcomes: {}, summary: null, provenance: null });

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

  if (o.batch && o.backend?.batches) return inBatches(o.backend.batches, o.batch);

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

  /**
   * Batch mode. Misses go in Message Batches (split to stay well inside the API's limits). A batch
   * is recorded in the cache database under a placeholder before it is created and under its id
   * once it exists, so a run stopped at any point is resumed by the next: an uncollected batch
   * holding some of its misses is collected rather than paid for again; a placeholder whose create
   * answer was lost is looked for among recent batches. A batch stays open until every answer in it
   * is settled (a run needing only some of them leaves it open for the rest).
   */
  async function inBatches(api: BatchApi, b: NonNullable<EngineOptions["batch"]>): Promise<Advisory[]> {
    // A round at a time, so that only one round's evidence packs (and requests) are in memory.
    const out: Advisory[] = [];
    for (let i = 0; i < targets.length; i += TARGETS_PER_ROUND) out.push(...(await round(api, b, targets.slice(i, i + TARGETS_PER_ROUND))));
    return out;
  }

  async function round(api: BatchApi, b: NonNullable<EngineOptions["batch"]>, slice: readonly Target[]): Promise<Advisory[]> {
    const prepared = slice.map(prepare);
    const waiting = new Map<string, { req: ModelRequest; done: Done; reservation: { worstUsd: number } | null }>();
    for (const p of prepared) if ("key" in p && !waiting.has(p.key)) waiting.set(p.key, { req: p.req, done: p.done, reservation: null });
    const answers = new Map<string, Advisory>();
    /** Keys held by a batch that could not be read now: not re-sent (that could pay twice); the next run retries. */
    const held = new Map<string, string>();
    const failedRow = (key: string, why: string) => {
      const w = waiting.get(key)!;
      if (w.reservation) o.budget!.settle(w.reservation, w.reservation.worstUsd);
      answers.set(key, failedWith(w.done, why));
    };

    const collect = async (id: string, keys: readonly string[]) => {
      for (;;) {
        const st = await api.retrieve(id);
        const c = st.counts;
        b.progress?.(`batch ${id}: ${st.ended ? "ended" : "in progress"}: ${c.succeeded} succeeded, ${c.errored} errored, ${c.expired} expired, ${c.canceled} canceled, ${c.processing} processing`);
        if (st.ended) break;
        await new Promise((r) => setTimeout(r, b.pollMs));
      }
      const settled = new Set<string>();
      for await (const r of api.results(id)) {
        const w = waiting.get(r.customId);
        if ("failure" in r) settled.add(r.customId); // never cached, so never wanted from this batch again
        if (w === undefined || answers.has(r.customId)) continue; // another run's question: it stays for that run
        if ("failure" in r) failedRow(r.customId, r.failure);
        else {
          const a = settle(r.customId, r.reply, w.done, w.reservation, 0.5);
          answers.set(r.customId, a);
          settled.add(r.customId);
        }
      }
      if (keys.every((k) => settled.has(k) || o.cache.has(k))) o.cache.closeBatch(id);
    };

    /** A placeholder from a run that lost its create answer: the batch it made, if any, by time and size. */
    const adopt = async (pending: { id: string; keys: string[]; createdAt: string }): Promise<string | null> => {
      const since = Date.parse(pending.createdAt) - 120_000;
      const known = new Set(o.cache.openBatches().map((x) => x.id));
      const found = (await api.recent()).find((x) => Date.parse(x.createdAt) >= since && x.requests === pending.keys.length && !known.has(x.id));
      if (found === undefined) o.cache.closeBatch(pending.id, "abandoned"); // never made: its keys are asked again
      else o.cache.renameBatch(pending.id, found.id);
      return found?.id ?? null;
    };

    // Resume what a stopped run left.
    for (const open of o.cache.openBatches()) {
      if (!open.keys.some((k) => waiting.has(k) && !answers.has(k))) continue;
      try {
        const id = open.id.startsWith("pending:") ? await adopt(open) : open.id;
        if (id !== null) await collect(id, open.keys);
      } catch (e) {
        const err = e as BackendError;
        if (err.status === 404) {
          o.cache.closeBatch(open.id, "abandoned"); // gone (expired results, another key or endpoint): ask again
          b.progress?.(`batch ${open.id}: not found (${err.message}); its requests are sent again`);
        } else for (const k of open.keys) if (waiting.has(k) && !answers.has(k)) held.set(k, `the batch ${open.id} holding this request could not be read now (${err.message}); the next run collects it`);
      }
    }

    const send: { customId: string; req: ModelRequest; bytes: number }[] = [];
    for (const [key, w] of waiting) {
      if (answers.has(key)) continue;
      if (held.has(key)) {
        failedRow(key, held.get(key)!);
        continue;
      }
      // A batch is sent whole: nothing settles before it, so "wait" is "no" here.
      const bytes = Buffer.byteLength(JSON.stringify(w.req));
      const r = o.budget ? o.budget.reserve(bytes, maxTokens) : null;
      if (r === "wait" || r === "no") answers.set(key, refused(w.done));
      else {
        w.reservation = r;
        send.push({ customId: key, req: w.req, bytes });
      }
    }
    for (const chunk of chunks(send)) {
      const keys = chunk.map((x) => x.customId);
      const pending = `pending:${randomUUID()}`;
      o.cache.saveBatch(pending, keys);
      let id: string;
      try {
        id = await api.create(chunk);
      } catch (e) {
        const why = `the batch could not be created (${(e as Error).message}); if it was created after all, the next run finds and collects it`;
        for (const k of keys) failedRow(k, why);
        continue;
      }
      o.cache.renameBatch(pending, id);
      b.progress?.(`batch ${id}: created with ${chunk.length} requests (kept in the cache database: a stopped run resumes it)`);
      try {
        await collect(id, keys);
      } catch (e) {
        for (const k of keys) if (!answers.has(k)) failedRow(k, `the batch ${id} could not be read now (${(e as Error).message}); the next run collects it`);
      }
    }
    for (const key of waiting.keys()) if (!answers.has(key)) failedRow(key, "the batch returned no result for this request");
    const out = prepared.map((p) => ("key" in p ? answers.get(p.key)! : p));
    for (const a of out) o.onSettled?.(a);
    return out;
  }
}

/** Targets prepared (packs built, requests held) at once in batch mode. */
const TARGETS_PER_ROUND = 2_000;
/** Batches well inside the API's limits (100,000 requests, 256 MB). */
const BATCH_REQUESTS = 10_000;
const BATCH_BYTES = 128 * 1024 * 1024;
function* chunks<T extends { bytes: number }>(xs: readonly T[]): Generator<T[]> {
  let chunk: T[] = [];
  let bytes = 0;
  for (const x of xs) {
    if (chunk.length > 0 && (chunk.length >= BATCH_REQUESTS || bytes + x.bytes > BATCH_BYTES)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(x);
    bytes += x.bytes;
  }
  if (chunk.length > 0) yield chunk;
}
