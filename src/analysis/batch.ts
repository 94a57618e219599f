// Batch mode of the analyses: the cache misses go through the Message Batches API (half the
// price). Every batch is recorded in the cache database before it exists (a placeholder) and once
// it does (its id), so a run stopped at any point is resumed by the next instead of paying twice.
// Three phases: settle what earlier runs left open; prepare the targets a round at a time and
// create batches for their misses (only keys are kept after a round, not evidence or requests);
// then collect every batch, polling them all.

import { randomUUID } from "node:crypto";
import type { Advisory } from "../core/results.js";
import type { BackendError, BatchApi, ModelRequest } from "./backend.js";
import type { Done, EngineOptions, Session, Target } from "./engine.js";

type BatchOptions = NonNullable<EngineOptions["batch"]>;

/** Batches cost half the list price. */
const BATCH_PRICE = 0.5;
/** How long after its placeholder a lost create's batch can have been made (a create's own timeout and more). */
const CREATE_WINDOW_MS = 15 * 60_000;
/** Targets prepared (packs built, requests held) at once. */
const TARGETS_PER_ROUND = 2_000;
/** Batches well inside the API's limits (100,000 requests, 256 MB). */
const BATCH_REQUESTS = 10_000;
const BATCH_BYTES = 128 * 1024 * 1024;

export async function analyseInBatches(
  s: Session,
  targets: readonly Target[],
  api: BatchApi,
  b: BatchOptions,
): Promise<Advisory[]> {
  const { o, maxTokens } = s;
  const out = new Array<Advisory | null>(targets.length).fill(null);
  /** Keys this run waits on: the record's fixed fields, its reservation, and the targets asking it. */
  const waiting = new Map<string, { done: Done; reservation: { worstUsd: number } | null; at: number[] }>();
  const answers = new Map<string, Advisory>();
  const failedRow = (key: string, why: string) => {
    const w = waiting.get(key)!;
    if (w.reservation) o.budget!.settle(w.reservation, w.reservation.worstUsd);
    answers.set(key, s.failedWith(w.done, why));
  };
  /** Batches to collect in phase 3: their keys, and whether they were adopted for a lost create. */
  const toCollect = new Map<string, { keys: readonly string[]; adopted: boolean }>();

  // Phase 1: what earlier runs left. A key in an open batch is never sent again.
  const openKey = new Map<string, string | "young">();
  for (const row of o.cache.openBatches()) {
    let id: string | null | "young" = row.id;
    try {
      if (row.id.startsWith("pending:")) id = await adopt(row);
      else await api.retrieve(row.id); // still there?
    } catch (e) {
      if ((e as BackendError).status === 404) {
        o.cache.closeBatch(row.id, "abandoned"); // gone (results expired, another key or endpoint): asked again
        b.progress?.(`batch ${row.id}: not found (${(e as Error).message}); its requests are sent again`);
        continue;
      }
      // Unreadable now: its keys stay with it (collecting will say so), never sent twice.
    }
    if (id === null) continue; // a placeholder whose create never made a batch: its keys are asked again
    for (const k of row.keys) if (!openKey.has(k)) openKey.set(k, id);
    if (id !== "young") toCollect.set(id, { keys: row.keys, adopted: id !== row.id });
  }

  // Phase 2: prepare a round at a time; create batches for its misses.
  for (let start = 0; start < targets.length; start += TARGETS_PER_ROUND) {
    const send: { customId: string; req: ModelRequest; bytes: number }[] = [];
    targets.slice(start, start + TARGETS_PER_ROUND).forEach((t, j) => {
      const p = s.prepare(t);
      if (!("key" in p)) return void (out[start + j] = p);
      const known = waiting.get(p.key);
      if (known) return void known.at.push(start + j);
      const w = { done: p.done, reservation: null as { worstUsd: number } | null, at: [start + j] };
      waiting.set(p.key, w);
      const open = openKey.get(p.key);
      if (open === "young") failedRow(p.key, "another run is creating a batch holding this request; run again later");
      else if (open !== undefined)
        return; // collected from its batch in phase 3
      else {
        // A batch is sent whole: nothing settles before it, so "wait" is "no" here.
        const bytes = Buffer.byteLength(JSON.stringify(p.req));
        const r = o.budget ? o.budget.reserve(bytes, maxTokens, BATCH_PRICE) : null;
        if (r === "wait" || r === "no") answers.set(p.key, s.refused(p.done));
        else {
          w.reservation = r;
          send.push({ customId: p.key, req: p.req, bytes });
        }
      }
    });
    for (const chunk of chunks(send)) await create(chunk);
  }

  // Phase 3: collect every batch holding a key this run waits on.
  for (const [id, { keys, adopted }] of toCollect) {
    if (!keys.some((k) => waiting.has(k) && !answers.has(k))) continue;
    try {
      if (!(await collect(id, keys))) {
        for (const k of keys)
          if (waiting.has(k) && !answers.has(k))
            failedRow(
              k,
              `the batch ${id} holding this request has not ended after --batch-wait; the next run collects it`,
            );
      } else if (adopted && !keys.some((k) => answers.has(k) || o.cache.has(k))) {
        o.cache.closeBatch(id, "abandoned"); // none of its answers were ours: not the batch the placeholder stood for
        b.progress?.(
          `batch ${id}: found for a lost create but held none of its requests; the next run sends them again`,
        );
      }
    } catch (e) {
      const err = e as BackendError;
      if (err.status === 404) o.cache.closeBatch(id, "abandoned");
      for (const k of keys)
        if (waiting.has(k) && !answers.has(k))
          failedRow(
            k,
            err.status === 404
              ? `the batch ${id} is gone (${err.message}); the next run sends this request again`
              : `the batch ${id} could not be read now (${err.message}); the next run collects it`,
          );
    }
  }
  for (const key of waiting.keys())
    if (!answers.has(key)) failedRow(key, "the batch returned no result for this request");
  for (const [key, w] of waiting) for (const i of w.at) out[i] = answers.get(key)!;
  const done = out as Advisory[];
  for (const a of done) o.onSettled?.(a);
  return done;

  /** A placeholder first, the batch, then its real id: a create whose answer is lost can be found later. */
  async function create(chunk: { customId: string; req: ModelRequest }[]): Promise<void> {
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
      const why = `the batch could not be created (${(e as Error).message})${status === undefined ? "; if it was created after all, the next run finds and collects it" : ""}`;
      for (const k of keys) failedRow(k, why);
      return;
    }
    o.cache.renameBatch(pending, id);
    toCollect.set(id, { keys, adopted: false });
    b.progress?.(
      `batch ${id}: created with ${chunk.length} requests (kept in the cache database: a stopped run resumes it)`,
    );
  }

  /** Poll until the batch ends (a few transient errors tolerated), then settle its results; false when it did not end in time. */
  async function collect(id: string, keys: readonly string[]): Promise<boolean> {
    const deadline = Date.now() + b.waitMs;
    for (let errors = 0; ;) {
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
      b.progress?.(
        `batch ${id}: ${st.ended ? "ended" : "in progress"}: ${c.succeeded} succeeded, ${c.errored} errored, ${c.expired} expired, ${c.canceled} canceled, ${c.processing} processing`,
      );
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
        answers.set(r.customId, s.settle(r.customId, r.reply, w.done, w.reservation, BATCH_PRICE));
        settled.add(r.customId);
      }
    }
    if (keys.every((k) => settled.has(k) || o.cache.has(k))) o.cache.closeBatch(id);
    return true;
  }

  /**
   * A placeholder from a run that lost its create answer: the batch it made, if any — a batch no row
   * of this cache names, of the same size, created closest after the placeholder. Null: none (its
   * keys are asked again); "young": too young to judge (another run may be creating it right now).
   */
  async function adopt(row: { id: string; keys: string[]; createdAt: string }): Promise<string | null | "young"> {
    const at = Date.parse(row.createdAt);
    if (Date.now() - at < b.adoptAfterMs) return "young";
    const known = o.cache.batchIds();
    const found = (await api.recent())
      .filter(
        (x) =>
          !known.has(x.id) &&
          x.requests === row.keys.length &&
          Date.parse(x.createdAt) >= at - 60_000 &&
          Date.parse(x.createdAt) <= at + CREATE_WINDOW_MS,
      )
      .sort((x, y) => Math.abs(Date.parse(x.createdAt) - at) - Math.abs(Date.parse(y.createdAt) - at))[0];
    if (found === undefined) {
      o.cache.closeBatch(row.id, "abandoned");
      return null;
    }
    o.cache.renameBatch(row.id, found.id);
    return found.id;
  }
}

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
