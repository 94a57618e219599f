// Hand-written twins of the native schemas on the per-bundle path: observation and keys (nearly
// every line of a journal), score and end records, summary.json and snapshot.json. They only ever
// accept: a value they accept is exactly one the zod schema accepts, with the same output
// (test/fast-path.test.ts and test/perf-fast.test.ts check the two agree on thousands of mutated
// values), and a value they refuse goes through zod, which alone reports findings. zod stays the
// definition.

import { digestOrNull, exactKeys, isInt, isText, keySet, plain } from "../fast.js";
import { isDigest, isId } from "../../../core/text.js";
import { END_STATUSES, type EndStatus, type NativeState, type NativeSummary } from "./records.js";

const ITEM = keySet("slot", "k_idx", "tval", "sval", "number", "name1");
const STATE = keySet(
  "character_generated",
  "playing",
  "is_dead",
  "escaped",
  "depth",
  "max_depth",
  "game_type",
  "noscore",
  "wizard",
  "score_options",
  "died_from",
  "turn",
  "playerturn",
  "silmarils",
  "inventory",
);
const OBSERVATION = keySet("seq", "at", "type", "prev", "frame", "state");
const KEYS = keySet("seq", "at", "type", "prev", "frame", "keys");

export function isState(s: unknown): s is NativeState {
  if (!plain(s) || !exactKeys(s, STATE)) return false;
  if (
    typeof s["character_generated"] !== "boolean" ||
    typeof s["playing"] !== "boolean" ||
    typeof s["is_dead"] !== "boolean" ||
    typeof s["escaped"] !== "boolean" ||
    typeof s["wizard"] !== "boolean" ||
    typeof s["score_options"] !== "boolean" ||
    !isInt(s["depth"], 0, 20) ||
    !isInt(s["max_depth"], 0, 20) ||
    !isInt(s["game_type"]) ||
    !isInt(s["noscore"], 0, 65535) ||
    !isText(s["died_from"], 80) ||
    !isInt(s["turn"], 0) ||
    !isInt(s["playerturn"], 0) ||
    !isInt(s["silmarils"], 0)
  )
    return false;
  if (s["max_depth"] < s["depth"]) return false;
  const inv = s["inventory"];
  if (!Array.isArray(inv) || inv.length > 38) return false;
  let slots = 0n;
  for (const item of inv) {
    if (!plain(item) || !exactKeys(item, ITEM)) return false;
    if (
      !isInt(item["slot"], 0, 37) ||
      !isInt(item["k_idx"], 0) ||
      !isInt(item["tval"], 0, 255) ||
      !isInt(item["sval"], 0, 255) ||
      !isInt(item["number"], 0, 99) ||
      !isInt(item["name1"], 0)
    )
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

const SCORE = keySet("seq", "at", "type", "prev", "final", "snapshot");
export type FastScore = { at: number; final: boolean; snapshot: string | null };
export function fastScore(rec: Record<string, unknown>): FastScore | null {
  const { final, snapshot } = rec;
  return rec["type"] === "score" &&
    exactKeys(rec, SCORE) &&
    typeof final === "boolean" &&
    digestOrNull(snapshot) &&
    (snapshot !== null) === final
    ? (rec as unknown as FastScore)
    : null;
}

const END = keySet("seq", "at", "type", "prev", "status", "reason");
const STATUSES: ReadonlySet<unknown> = new Set(END_STATUSES);
export type FastEnd = { at: number; status: EndStatus; reason: string };
export function fastEnd(rec: Record<string, unknown>): FastEnd | null {
  return rec["type"] === "end" && exactKeys(rec, END) && STATUSES.has(rec["status"]) && isText(rec["reason"], 512)
    ? (rec as unknown as FastEnd)
    : null;
}

const SUMMARY = keySet(
  "format",
  "session",
  "experiment",
  "trial",
  "attempt",
  "seed",
  "journal",
  "status",
  "ended_at",
  "native_ending",
  "victory",
  "snapshot",
  "counts",
);
const JOURNAL = keySet("records", "head");
const ENDING = keySet("at", "frame", "escaped", "is_dead", "depth");
const COUNTS = keySet("keys", "observations", "scores");
/** summary.json as summarySchema reads it. */
export function fastSummary(v: unknown): NativeSummary | null {
  if (!plain(v) || !exactKeys(v, SUMMARY)) return null;
  const { journal: j, native_ending: e, counts: c } = v;
  const identity =
    typeof v["format"] === "string" &&
    typeof v["session"] === "string" &&
    typeof v["experiment"] === "string" &&
    typeof v["trial"] === "string" &&
    isInt(v["attempt"]) &&
    typeof v["seed"] === "string";
  const ending =
    e === null ||
    (plain(e) &&
      exactKeys(e, ENDING) &&
      isInt(e["at"]) &&
      isInt(e["frame"], 0) &&
      typeof e["escaped"] === "boolean" &&
      typeof e["is_dead"] === "boolean" &&
      isInt(e["depth"], 0, 20));
  return identity &&
    ending &&
    plain(j) &&
    exactKeys(j, JOURNAL) &&
    isInt(j["records"], 0) &&
    isDigest(j["head"]) &&
    typeof v["status"] === "string" &&
    isInt(v["ended_at"]) &&
    typeof v["victory"] === "boolean" &&
    digestOrNull(v["snapshot"]) &&
    plain(c) &&
    exactKeys(c, COUNTS) &&
    isInt(c["keys"], 0) &&
    isInt(c["observations"], 0) &&
    isInt(c["scores"], 0)
    ? (v as unknown as NativeSummary)
    : null;
}

const SNAPSHOT = keySet("format", "session", "frame", "at", "state");
export type FastSnapshot = { format: string; session: string; frame: number; at: number; state: NativeState };
/** snapshot.json as snapshotSchema reads it. */
export function fastSnapshot(v: unknown): FastSnapshot | null {
  return plain(v) &&
    exactKeys(v, SNAPSHOT) &&
    typeof v["format"] === "string" &&
    isId(v["session"]) &&
    isInt(v["frame"], 0) &&
    isInt(v["at"]) &&
    isState(v["state"])
    ? (v as unknown as FastSnapshot)
    : null;
}
