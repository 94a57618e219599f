// Reward files (contract §11): what Harbor's verifier wrote, read the way Harbor reads it —
// `reward.json` (a flat map of numbers) before `reward.txt` (one number; key `reward`) — and
// compared with the rewards result.json claims.

import { finding, type Finding } from "../codes.js";
import { encodingProblem, isPlainObject } from "../json/decode.js";
import { parseStrictJsonNoting } from "../json/strict.js";
import { clip, fieldKey, fieldPath } from "../text.js";
import { finiteNumber, isReservedKey, reservedKeyMessage } from "../schema.js";
import type { RewardMap } from "./result.js";

/** Python's float() spelling (without digit underscores); anything else in reward.txt is not a reward. */
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;

/** Read one reward file's bytes into a map; null values stand for non-finite rewards (reported). */
export function readRewardFile(file: string, bytes: Uint8Array, errors: Finding[]): RewardMap | null {
  const bad = encodingProblem(bytes);
  if (bad !== null) {
    errors.push(finding("ENCODING", file, null, bad));
    return null;
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  return file.endsWith(".json") ? rewardJson(file, text, errors) : rewardTxt(file, text, errors);
}

function rewardTxt(file: string, text: string, errors: Finding[]): RewardMap | null {
  const t = text.trim();
  if (NON_FINITE.test(t) || (FLOAT.test(t) && !Number.isFinite(Number(t)))) {
    errors.push(finding("NOT_FINITE", file, null, `reward ${clip(t)} is not a finite number`));
    return { reward: null };
  }
  if (!FLOAT.test(t)) {
    errors.push(finding("SCHEMA", file, null, `expected one number, found ${t === "" ? "nothing" : clip(t)}`));
    return null;
  }
  return { reward: Number(t) };
}

function rewardJson(file: string, text: string, errors: Finding[]): RewardMap | null {
  const r = parseStrictJsonNoting(text, " \n");
  if (!r.ok) {
    errors.push(finding(r.issue.code, file, null, r.issue.message));
    return null;
  }
  for (const f of r.nonFinite) errors.push(finding("NOT_FINITE", file, null, `${fieldPath(f.path)}: ${f.token} is not a finite number`));
  if (!isPlainObject(r.value)) {
    errors.push(finding("SCHEMA", file, null, "expected a flat object of numbers"));
    return null;
  }
  // No prototype: nothing a key could name is inherited (reserved keys are refused below).
  const out: RewardMap = Object.create(null);
  const noted = new Set(r.nonFinite.map((f) => String(f.path[0])));
  for (const [k, v] of Object.entries(r.value)) {
    if (isReservedKey(k)) {
      errors.push(finding("SCHEMA", file, null, `${fieldKey(k)}: ${reservedKeyMessage(k)}`));
      continue;
    }
    const n = finiteNumber.safeParse(v);
    if (n.success) out[k] = n.data;
    else if (v === null) {
      if (!noted.has(k)) errors.push(finding("NOT_FINITE", file, null, `${fieldKey(k)}: null is not a finite number`));
      out[k] = null;
    } else errors.push(finding("SCHEMA", file, null, `${fieldKey(k)}: expected a number`));
  }
  return out;
}

/**
 * The rewards result.json claims at `field` must equal, as numbers, those in the reward file
 * Harbor read. Non-finite values are reported as NOT_FINITE and not compared again here.
 */
export function compareRewards(claimed: RewardMap, field: string, file: string, actual: RewardMap, errors: Finding[]): void {
  const keys = [...new Set([...Object.keys(claimed), ...Object.keys(actual)])].sort();
  // Own keys only: a key named __proto__ in one map is absent from the other, not its prototype.
  const own = (m: RewardMap, k: string) => (Object.hasOwn(m, k) ? m[k] : undefined);
  for (const k of keys) {
    const c = own(claimed, k);
    const a = own(actual, k);
    if (c === null || a === null) continue;
    if (c === undefined) errors.push(finding("REWARD_MISMATCH", "result.json", null, `${field}.${fieldKey(k)} is absent but ${file} holds ${a}`));
    else if (a === undefined) errors.push(finding("REWARD_MISMATCH", "result.json", null, `${field}.${fieldKey(k)} = ${c} but ${file} holds no such key`));
    else if (c !== a) errors.push(finding("REWARD_MISMATCH", "result.json", null, `${field}.${fieldKey(k)} = ${c} but ${file} says ${a}`));
  }
}
