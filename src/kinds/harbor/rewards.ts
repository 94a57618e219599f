// Reward files (contract §11), read the way Harbor's verifier reads them, and compared with the
// rewards result.json claims. reward.txt is one number as Python's float() reads it (§2 does not
// apply to it, but for UTF-8); reward.json is a flat object whose values Harbor's lax model
// coerces to numbers ("1.0" and true are 1.0, said by REWARD_COERCED), under §2's strict JSON.

import { isUtf8 } from "node:buffer";
import { finding, type Finding } from "../../core/codes.js";
import { encodingProblem, isPlainObject } from "../../core/json/decode.js";
import { parseStrictJsonNoting } from "../../core/json/strict.js";
import { clip, fieldKey, fieldPath } from "../../core/text.js";
import { finiteNumber, isReservedKey, reservedKeyMessage } from "../../core/schema.js";
import type { RewardMap } from "./result.js";

/**
 * What a reward file gave: a map (null values stand for non-finite rewards, reported), a file
 * Harbor could not have read a reward from (`unreadable`, why), or nothing to compare (an error
 * on the file itself was reported).
 */
export type RewardRead = { map: RewardMap } | { unreadable: string } | null;

/**
 * reward.txt's text as CPython's float() reads it (Harbor calls float() on the file's text, no
 * strip() first): each non-ASCII character becomes a space if it is white space, its digit if it is a
 * decimal digit (`١` is 1), else a character no number holds; then ASCII white space (space,
 * \t \n \v \f \r) is stripped around it. U+0085 and U+3000 around a number are spaces; U+001C–U+001F
 * and U+FEFF are not (Python's str.strip() would take the first four: float() does not).
 */
function pythonFloatText(text: string): string {
  if (!/[^\x00-\x7f]/.test(text)) return text.replace(ASCII_SPACE, "");
  let out = "";
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    out += c < 0x80 ? ch : UNICODE_SPACE.test(ch) ? " " : DECIMAL.test(ch) ? String(digitOf(c)) : "\ufffd";
  }
  return out.replace(ASCII_SPACE, "");
}
const ASCII_SPACE = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;
/** The non-ASCII characters Python's str.isspace() holds. */
const UNICODE_SPACE = /^[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
const DECIMAL = /^\p{Nd}$/u;
/**
 * A decimal digit's value: Unicode's decimal digits come in runs of whole 0–9 blocks, each from its 0.
 * Kept per digit (Unicode has fewer than a thousand): a file of 16 million such digits walks back
 * once per distinct digit, not up to fifty steps each.
 */
function digitOf(c: number): number {
  let d = DIGIT_VALUES.get(c);
  if (d === undefined) {
    let start = c;
    while (start > 0 && DECIMAL.test(String.fromCodePoint(start - 1))) start--;
    DIGIT_VALUES.set(c, (d = (c - start) % 10));
  }
  return d;
}
const DIGIT_VALUES = new Map<number, number>();
/** Python float() syntax: digits may be grouped by single underscores (`1_0` is 10). */
const DIGITS = String.raw`\d(?:_?\d)*`;
const PY_FLOAT = new RegExp(String.raw`^[+-]?(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`);
const PY_NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;
/** What pydantic reads from a string as a float (Rust's syntax: no underscores). */
const LAX_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Read one reward file's bytes as Harbor would; findings on the file itself go to `errors`/`warnings`. */
export function readRewardFile(file: string, bytes: Uint8Array, errors: Finding[], warnings: Finding[]): RewardRead {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (file.endsWith(".json")) return rewardJson(file, bytes, text, errors, warnings);
  // reward.txt is exempt from §2 but for UTF-8: Python reads "1\r\n" as 1.0.
  if (!isUtf8(bytes)) {
    errors.push(finding("ENCODING", file, null, "invalid UTF-8"));
    return null;
  }
  const t = pythonFloatText(text);
  if (t === "") return { unreadable: "it is empty" };
  const shown = clip(text.trim());
  if (PY_NON_FINITE.test(t) || (PY_FLOAT.test(t) && !Number.isFinite(Number(t.replace(/_/g, ""))))) {
    errors.push(finding("NOT_FINITE", file, null, `reward ${shown} is not a finite number`));
    return { map: { reward: null } };
  }
  if (!PY_FLOAT.test(t)) return { unreadable: `it holds ${shown}, which Python's float() does not read` };
  return { map: { reward: Number(t.replace(/_/g, "")) } };
}

function rewardJson(file: string, bytes: Uint8Array, text: string, errors: Finding[], warnings: Finding[]): RewardRead {
  const bad = encodingProblem(bytes);
  if (bad !== null) {
    errors.push(finding("ENCODING", file, null, bad));
    return null;
  }
  if (text.trim() === "") return { unreadable: "it is empty" };
  const r = parseStrictJsonNoting(text, " \n");
  if (!r.ok) {
    if (r.issue.code === "JSON_SYNTAX") return { unreadable: `it does not parse (${r.issue.message})` };
    errors.push(finding(r.issue.code, file, null, r.issue.message));
    return null;
  }
  for (const f of r.nonFinite)
    errors.push(finding("NOT_FINITE", file, null, `${fieldPath(f.path)}: ${f.token} is not a finite number`));
  if (!isPlainObject(r.value)) {
    errors.push(finding("SCHEMA", file, null, "expected a flat object of numbers"));
    return null;
  }
  // No prototype: nothing a key could name is inherited (reserved keys are refused below).
  const out: RewardMap = Object.create(null);
  const noted = new Set(r.nonFinite.map((f) => String(f.path[0])));
  let schema = false;
  const wrong = (k: string, what: string) => {
    errors.push(finding("SCHEMA", file, null, `${fieldKey(k)}: ${what}`));
    schema = true;
  };
  for (const [k, v] of Object.entries(r.value)) {
    if (isReservedKey(k)) {
      wrong(k, reservedKeyMessage(k));
      continue;
    }
    const n = finiteNumber.safeParse(v);
    if (n.success) out[k] = n.data;
    else if (v === null && noted.has(k)) out[k] = null;
    else if (typeof v === "boolean" || typeof v === "string") {
      const s = typeof v === "string" ? v.trim() : "";
      if (typeof v === "string" && PY_NON_FINITE.test(s)) {
        errors.push(finding("NOT_FINITE", file, null, `${fieldKey(k)}: ${clip(v)} is not a finite number`));
        out[k] = null;
      } else if (typeof v === "boolean" || (LAX_FLOAT.test(s) && Number.isFinite(Number(s)))) {
        out[k] = typeof v === "boolean" ? Number(v) : Number(s);
        warnings.push(
          finding(
            "REWARD_COERCED",
            file,
            null,
            `${fieldKey(k)}: ${JSON.stringify(v)} read as ${out[k]}, as Harbor's model coerces it`,
          ),
        );
      } else wrong(k, `${clip(v)} is not a number Harbor could read (its verifier failed)`);
    } else wrong(k, "expected a number (nested values and null mean Harbor's verifier failed)");
  }
  return schema ? null : { map: out };
}

/**
 * How the rewards result.json claims at `field` differ, as numbers, from a reward file's: one
 * message per key. Non-finite values are reported as NOT_FINITE and not compared again here.
 */
export function rewardDifferences(claimed: RewardMap, field: string, file: string, actual: RewardMap): string[] {
  const keys = [...new Set([...Object.keys(claimed), ...Object.keys(actual)])].sort();
  // Own keys only: a key named __proto__ in one map is absent from the other, not its prototype.
  const own = (m: RewardMap, k: string) => (Object.hasOwn(m, k) ? m[k] : undefined);
  const out: string[] = [];
  for (const k of keys) {
    const c = own(claimed, k);
    const a = own(actual, k);
    if (c === null || a === null) continue;
    if (c === undefined) out.push(`${field}.${fieldKey(k)} is absent but ${file} holds ${a}`);
    else if (a === undefined) out.push(`${field}.${fieldKey(k)} = ${c} but ${file} holds no such key`);
    else if (c !== a) out.push(`${field}.${fieldKey(k)} = ${c} but ${file} says ${a}`);
  }
  return out;
}

/** Two reward maps equal as numbers, key for key (non-finite values, reported elsewhere, match anything). */
export const sameRewards = (a: RewardMap | null, b: RewardMap | null): boolean =>
  a === null || b === null ? a === b : rewardDifferences(a, "", "", b).length === 0;

// reward_source when both reward files exist and only one agrees: which reading order it needs.
// Harbor read reward.txt first up to 0.6.x and reward.json first from 0.7.0; the job's lock.json
// says which Harbor wrote the trial, so the job-level rules can hold a trial to it (batch.ts).
const ONLY = /^verifier\/reward\.(json|txt) \(not verifier\/reward\.(?:json|txt)\)$/;
export const onlyAgreeing = (file: string, other: string): string => `${file} (not ${other})`;
/** The file a trial's rewards agree with only when Harbor read it first ("json" or "txt"), or null. */
export const agreesOnlyWith = (source: string | null): "json" | "txt" | null =>
  source === null ? null : ((ONLY.exec(source)?.[1] ?? null) as "json" | "txt" | null);
