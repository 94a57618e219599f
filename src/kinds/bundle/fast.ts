// Hand-written twins of zod schemas on the per-bundle path (the session header here; the native
// records and documents in native/fast.ts). They only ever accept: a value they accept is exactly
// one the zod schema accepts, with the same output (test/fast-path.test.ts and
// test/perf-fast.test.ts hold them to that on seeded mutations); a value they refuse goes through
// zod, which alone reports findings. zod stays the definition. Why: zod is costly, and costlier
// still in a fresh worker before the JIT has warmed to its many small closures.

import type { Header } from "./journal.js";
import { JsonDecimal } from "../../core/json/strict.js";
import { isReservedKey } from "../../core/schema.js";
import { codePointLength, isDigest, isId, META_KEY_RE } from "../../core/text.js";

export const isInt = (v: unknown, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;
export const isText = (v: unknown, max: number, min = 0): v is string =>
  typeof v === "string" &&
  (v.length <= max && v.length >= min ? true : codePointLength(v) <= max && codePointLength(v) >= min);
/** A JSON object: not an array, nor a boxed decimal (whose `value` key would pass for a meta key). */
export const plain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonDecimal);
export const digestOrNull = (v: unknown): boolean => v === null || isDigest(v);

/**
 * Keys as a record must hold them: the set, and its order as writers usually emit it (a key in
 * that place is known without a hash lookup; any order is accepted).
 */
export interface KeySet {
  set: ReadonlySet<string>;
  order: readonly string[];
}
export const keySet = (...keys: string[]): KeySet => ({ set: new Set(keys), order: keys });

/** True when `o` has exactly the keys of `keys` (all own, none more: an object's keys are distinct). */
export function exactKeys(o: object, keys: KeySet): boolean {
  let n = 0;
  for (const k in o) {
    if (k !== keys.order[n] && !keys.set.has(k)) return false;
    n++;
  }
  return n === keys.order.length;
}

const HEADER = keySet(
  "seq",
  "at",
  "type",
  "prev",
  "format",
  "profile",
  "session",
  "experiment",
  "trial",
  "attempt",
  "seed",
  "harness",
  "deadline",
  "meta",
);
const HARNESS = keySet("name", "revision");

/** The envelope was checked by JournalReader; this checks the rest of headerSchema. */
export function fastHeader(rec: Record<string, unknown>): Header | null {
  if (rec["type"] !== "session" || !exactKeys(rec, HEADER)) return null;
  if (typeof rec["format"] !== "string" || typeof rec["profile"] !== "string" || typeof rec["seed"] !== "string")
    return null;
  if (
    !isId(rec["session"]) ||
    !isId(rec["experiment"]) ||
    !isId(rec["trial"]) ||
    !isInt(rec["attempt"], 1) ||
    !isInt(rec["deadline"])
  )
    return null;
  const h = rec["harness"];
  if (!plain(h) || !exactKeys(h, HARNESS) || !isId(h["name"]) || !isText(h["revision"], 64)) return null;
  return fastMeta(rec["meta"]) ? (rec as unknown as Header) : null;
}

/** meta: at most 64 keys of META_KEY_RE, none reserved; strings ≤ 1024, plain finite numbers (never boxed), booleans; task a string. */
function fastMeta(m: unknown): boolean {
  if (!plain(m)) return false;
  let n = 0;
  for (const k in m) {
    if (++n > 64 || !META_KEY_RE.test(k) || isReservedKey(k)) return false;
    const v = m[k];
    if (!(typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) || isText(v, 1024))) return false;
  }
  return !Object.hasOwn(m, "task") || typeof m["task"] === "string";
}
