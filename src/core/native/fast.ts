// Hand-written twins of the two hot native schemas (observation and keys: nearly every line of
// a journal). They only ever accept: a record they accept is exactly one the zod schema accepts
// (test/fast-path.test.ts checks the two agree on thousands of mutated records), and a record
// they refuse goes through zod, which alone reports findings. zod stays the definition.

import { codePointLength } from "../text.js";
import type { NativeState } from "./records.js";

const isInt = (v: unknown, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;
const isText = (v: unknown, max: number, min = 0): v is string =>
  typeof v === "string" && (v.length <= max && v.length >= min ? true : codePointLength(v) <= max && codePointLength(v) >= min);

/** True when `o` has exactly the keys of `set` (all own, none more). */
function exactKeys(o: object, set: ReadonlySet<string>): boolean {
  let n = 0;
  for (const k in o) {
    if (!set.has(k)) return false;
    n++;
  }
  return n === set.size;
}

const plain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const ITEM = new Set(["slot", "k_idx", "tval", "sval", "number", "name1"]);
const STATE = new Set([
  "character_generated", "playing", "is_dead", "escaped", "depth", "max_depth", "game_type", "noscore",
  "wizard", "score_options", "died_from", "turn", "playerturn", "silmarils", "inventory",
]);
const OBSERVATION = new Set(["seq", "at", "type", "prev", "frame", "state"]);
const KEYS = new Set(["seq", "at", "type", "prev", "frame", "keys"]);

function isState(s: unknown): s is NativeState {
  if (!plain(s) || !exactKeys(s, STATE)) return false;
  if (
    typeof s["character_generated"] !== "boolean" || typeof s["playing"] !== "boolean" || typeof s["is_dead"] !== "boolean" ||
    typeof s["escaped"] !== "boolean" || typeof s["wizard"] !== "boolean" || typeof s["score_options"] !== "boolean" ||
    !isInt(s["depth"], 0, 20) || !isInt(s["max_depth"], 0, 20) || !isInt(s["game_type"]) || !isInt(s["noscore"], 0, 65535) ||
    !isText(s["died_from"], 80) || !isInt(s["turn"], 0) || !isInt(s["playerturn"], 0) || !isInt(s["silmarils"], 0)
  )
    return false;
  if (s["max_depth"] < s["depth"]) return false;
  const inv = s["inventory"];
  if (!Array.isArray(inv) || inv.length > 38) return false;
  let slots = 0n;
  for (const item of inv) {
    if (!plain(item) || !exactKeys(item, ITEM)) return false;
    if (!isInt(item["slot"], 0, 37) || !isInt(item["k_idx"], 0) || !isInt(item["tval"], 0, 255) || !isInt(item["sval"], 0, 255) ||
        !isInt(item["number"], 0, 99) || !isInt(item["name1"], 0))
      return false;
    const bit = 1n << BigInt(item["slot"]);
    if (slots & bit) return false; // slots must be distinct
    slots |= bit;
  }
  return true;
}

/** The envelope was checked by JournalReader; these check the rest. */
export type FastObservation = { at: number; frame: number; state: NativeState };
export function fastObservation(rec: Record<string, unknown>): FastObservation | null {
  return rec["type"] === "observation" && exactKeys(rec, OBSERVATION) && isInt(rec["frame"], 0) && isState(rec["state"])
    ? (rec as unknown as FastObservation)
    : null;
}

export type FastKeys = { at: number; frame: number; keys: string };
export function fastKeys(rec: Record<string, unknown>): FastKeys | null {
  return rec["type"] === "keys" && exactKeys(rec, KEYS) && isInt(rec["frame"], 0) && isText(rec["keys"], 256, 1)
    ? (rec as unknown as FastKeys)
    : null;
}
