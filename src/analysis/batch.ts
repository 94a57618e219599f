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
        const a = s.settle(r.customId, r.reply, w.done, w.reservation, 0.5);
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
