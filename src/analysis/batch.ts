// Batch mode of the analyses: the cache misses go through the Message Batches API (half the
// price). Every batch is recorded in the cache database before it exists (a placeholder) and once
// it does (its id), so a run stopped at any point is resumed by the next instead of paying twice.

import { randomUUID } from "node:crypto";
import type { Advisory } from "../core/results.js";
import type { BackendError, BatchApi, ModelRequest } from "./backend.js";
import type { Done, EngineOptions, Session, Target } from "./engine.js";

/**
 * Analyse `targets`, sending their cache misses in batches (split to stay well inside the API's
 * limits). An uncollected batch holding some of the misses is collected rather than paid for
 * again; a placeholder whose create answer was lost is looked for among recent batches; a batch
 * stays open until every answer in it is settled (a run needing only some leaves it for the rest).
 */
export async function analyseInBatches(s: Session, targets: readonly Target[], api: BatchApi, b: NonNullable<EngineOptions["batch"]>): Promise<Advisory[]> {
  // A round at a time, so that only one round's evidence packs (and requests) are in memory.
  const out: Advisory[] = [];
  for (let i = 0; i < targets.length; i += TARGETS_PER_ROUND) out.push(...(await round(s, api, b, targets.slice(i, i + TARGETS_PER_ROUND))));
  return out;
}

async function round(s: Session, api: BatchApi, b: NonNullable<EngineOptions["batch"]>, slice: readonly Target[]): Promise<Advisory[]> {
  const { o, maxTokens } = s;
  const prepared = slice.map((t) => s.prepare(t));
  const waiting = new Map<string, { req: ModelRequest; done: Done; reservation: { worstUsd: number } | null }>();
  for (const p of prepared) if ("key" in p && !waiting.has(p.key)) waiting.set(p.key, { req: p.req, done: p.done, reservation: null });
  const answers = new Map<string, Advisory>();
  /** Keys held by a batch that could not be read now: not re-sent (that could pay twice); the next run retries. */
  const held = new Map<string, string>();
  const failedRow = (key: string, why: string) => {
    const w = waiting.get(key)!;
    if (w.reservation) o.budget!.settle(w.reservation, w.reservation.worstUsd);
    answers.set(key, s.failedWith(w.done, why));
  };

  /** Poll until the batch ends (a few transient errors tolerated), then settle its results; false when it did not end in time. */
  const collect = async (id: string, keys: readonly string[]): Promise<boolean> => {
    const deadline = Date.now() + b.waitMs;
    for (let errors = 0; ; ) {
      let st;
      try {
        st = await api.retrieve(id);
        errors = 0;
      } catch (e) {
        if ((e as BackendError).status === 404 || ++errors >= 3) throw e;
        await new Promise((r) => setTimeout(r, b.pollMs));
        continue;
      }
      const c = st.counts;
      b.progress?.(`batch ${id}: ${st.ended ? "ended" : "in progress"}: ${c.succeeded} succeeded, ${c.errored} errored, ${c.expired} expired, ${c.canceled} canceled, ${c.processing} processing`);
      if (st.ended) break;
      if (Date.now() >= deadline) return false; // left open: the next run collects it
      await new Promise((r) => setTimeout(r, b.pollMs));
    }
    const settled = new Set<string>();
    for await (const r of api.results(id)) {
      const w = waiting.get(r.customId);
      if ("failure" in r) settled.add(r.customId); // never cached, so never wanted from this batch again
      if (w === undefined || answers.has(r.customId)) continue; // another run's question: it stays for that run
      if ("failure" in r) failedRow(r.customId, r.failure);
      else {
        const a = s.settle(r.customId, r.reply, w.done, w.reservation, BATCH_PRICE);
        answers.set(r.customId, a);
        settled.add(r.customId);
      }
    }
    if (keys.every((k) => settled.has(k) || o.cache.has(k))) o.cache.closeBatch(id);
    return true;
  };
  const stillOpen = (id: string, keys: readonly string[]) => {
    for (const k of keys) if (waiting.has(k) && !answers.has(k)) failedRow(k, `the batch ${id} holding this request has not ended after --batch-wait; the next run collects it`);
  };

  /**
   * A placeholder from a run that lost its create answer: the batch it made, if any — a batch no row
   * of this cache names, of the same size, created closest after the placeholder. Null: none (its
   * keys are asked again), or too young to judge (another run may be creating it right now).
   */
  const adopt = async (pending: { id: string; keys: string[]; createdAt: string }): Promise<string | null | "young"> => {
    const at = Date.parse(pending.createdAt);
    if (Date.now() - at < b.adoptAfterMs) return "young";
    const known = o.cache.batchIds();
    const candidates = (await api.recent())
      .filter((x) => !known.has(x.id) && x.requests === pending.keys.length && Date.parse(x.createdAt) >= at - 60_000 && Date.parse(x.createdAt) <= at + CREATE_WINDOW_MS)
      .sort((x, y) => Math.abs(Date.parse(x.createdAt) - at) - Math.abs(Date.parse(y.createdAt) - at));
    const found = candidates[0];
    if (found === undefined) {
      o.cache.closeBatch(pending.id, "abandoned"); // never made: its keys are asked again
      return null;
    }
    o.cache.renameBatch(pending.id, found.id);
    return found.id;
  };

  // Resume what a stopped run left.
  for (const open of o.cache.openBatches()) {
    if (!open.keys.some((k) => waiting.has(k) && !answers.has(k))) continue;
    let id: string | null | "young" = open.id;
    try {
      if (open.id.startsWith("pending:")) id = await adopt(open);
      if (id === "young") {
        for (const k of open.keys) if (waiting.has(k)) held.set(k, "another run is creating a batch holding this request; run again later");
        continue;
      }
      if (id === null) continue;
      const adopted = id !== open.id;
      if (!(await collect(id, open.keys))) for (const k of open.keys) if (waiting.has(k)) held.set(k, `the batch ${id} holding this request has not ended after --batch-wait; the next run collects it`);
      else if (adopted && !open.keys.some((k) => answers.has(k) || o.cache.has(k))) {
        o.cache.closeBatch(id, "abandoned"); // none of its answers were ours: not the batch the placeholder stood for
        b.progress?.(`batch ${id}: found for a lost create but held none of its requests; they are sent again`);
      }
    } catch (e) {
      const err = e as BackendError;
      const name = id === null || id === "young" ? open.id : id;
      if (err.status === 404) {
        o.cache.closeBatch(name, "abandoned"); // gone (expired results, another key or endpoint): ask again
        b.progress?.(`batch ${name}: not found (${err.message}); its requests are sent again`);
      } else for (const k of open.keys) if (waiting.has(k) && !answers.has(k)) held.set(k, `the batch ${name} holding this request could not be read now (${err.message}); the next run collects it`);
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
    const r = o.budget ? o.budget.reserve(bytes, maxTokens, BATCH_PRICE) : null;
    if (r === "wait" || r === "no") answers.set(key, s.refused(w.done));
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
      const status = (e as BackendError).status;
      // An HTTP answer means no batch was made; only a lost answer (timeout, connection) may hide one.
      if (status !== undefined) o.cache.closeBatch(pending, "abandoned");
      const why =
        status !== undefined
          ? `the batch could not be created (${(e as Error).message})`
          : `the batch could not be created (${(e as Error).message}); if it was created after all, the next run finds and collects it`;
      for (const k of keys) failedRow(k, why);
      continue;
    }
    o.cache.renameBatch(pending, id);
    b.progress?.(`batch ${id}: created with ${chunk.length} requests (kept in the cache database: a stopped run resumes it)`);
    try {
      if (!(await collect(id, keys))) stillOpen(id, keys);
    } catch (e) {
      for (const k of keys) if (!answers.has(k)) failedRow(k, `the batch ${id} could not be read now (${(e as Error).message}); the next run collects it`);
    }
  }
  for (const key of waiting.keys()) if (!answers.has(key)) failedRow(key, "the batch returned no result for this request");
  const out = prepared.map((p) => ("key" in p ? answers.get(p.key)! : p));
  for (const a of out) o.onSettled?.(a);
  return out;
}

/** Batches cost half the list price. */
const BATCH_PRICE = 0.5;
/** How long after its placeholder a lost create's batch can have been made (a create's own timeout and more). */
const CREATE_WINDOW_MS = 15 * 60_000;
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
