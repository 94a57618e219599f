// Lexical rules shared by every schema (contract §2–3) and byte-order comparison.

export const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const DIGEST_RE = /^[0-9a-f]{64}$/;
/** Canonical seed: lowercase hex, 16..128 digits, even length. */
export const SEED_RE = /^(?:[0-9a-f]{2}){8,64}$/;
export const META_KEY_RE = /^[a-z][a-z0-9_.-]{0,63}$/;
export const ZERO_DIGEST = "0".repeat(64);

export const isId = (v: unknown): v is string => typeof v === "string" && ID_RE.test(v);
/** A digest: 64 lowercase hex digits (a loop: this runs several times per journal line). */
export function isDigest(v: unknown): v is string {
  if (typeof v !== "string" || v.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = v.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** Length in Unicode code points (the contract measures strings so). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * Compare two strings by the byte order of their UTF-8 encodings (= code point order).
 * JS `<` compares UTF-16 units, which disagrees for astral characters vs U+E000..U+FFFF.
 */
export function byteCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1; // a surrogate encodes an astral code point: it sorts last
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** "1 task", "3 tasks" ("3 replies" with `many`): a count with its noun. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export const isInteger = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

/** A value echoed into a message, quoted and cut short: evidence can hold megabyte strings. */
export function clip(v: unknown, max = 80): string {
  const s = typeof v === "string" ? v : String(v);
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

/** `s` cut to `max` code units with an ellipsis, unquoted (for prose: evidence, names). */
export const shorten = (s: string, max = 80): string => (s.length > max ? `${s.slice(0, max)}…` : s);

/** A key as it reads in a field path: bare when it is a plain word, else quoted (and cut). */
export const fieldKey = (k: string): string => (/^[A-Za-z0-9_-]{1,64}$/.test(k) ? k : clip(k, 60));

/** A path into a JSON value as a reader writes it: `step_results[1].verifier_result.rewards.reward`. */
export const fieldPath = (path: readonly (string | number)[]): string =>
  path.map((k, i) => (typeof k === "number" ? `[${k}]` : `${i > 0 ? "." : ""}${fieldKey(k)}`)).join("") || "(value)";

/**
 * Characters a name must not carry raw to a terminal: C0 and C1 controls and DEL (escape sequences,
 * forged lines), bidirectional overrides and isolates (text that reads other than it is), line and
 * paragraph separators, and the backslash and quote that would make the escaped form ambiguous.
 */
const HIDDEN = "\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";
const UNUSUAL = new RegExp(`[${HIDDEN}"\\\\]`);
const UNUSUAL_ALL = new RegExp(UNUSUAL.source, "g");
const HIDDEN_ALL = new RegExp(`[${HIDDEN}]`, "g");
/** What printable replaces: HIDDEN but the tab and the line feed, which prose keeps. */
const HIDDEN_BUT_LAYOUT = new RegExp(`(?![\\t\\n])[${HIDDEN}]`, "g");

/** Prose for a terminal or a Markdown quote, its lines kept: every hidden character shown as "?" (model text could carry escape sequences or bidi overrides). */
export const printable = (text: string): string => text.replace(HIDDEN_BUT_LAYOUT, "?");

/**
 * A name from evidence or the file system (a path, an experiment, a trial, a reward key) as a
 * terminal shows it: unchanged when it is plain, else quoted with every unusual character escaped
 * (as git quotes paths), so no name can move the cursor, clear the screen or forge an output line.
 */
export function forTerminal(name: string): string {
  if (!UNUSUAL.test(name)) return name;
  return `"${name.replace(UNUSUAL_ALL, (c) => (c === '"' || c === "\\" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))}"`;
}

/**
 * Prose that may quote evidence (a finding's message, a reason, a detail, a model's words) as a
 * terminal shows it: each character forTerminal would escape, but the quote and the backslash,
 * escaped in place, unquoted (the prose already quotes the values it names).
 */
export const terminalText = (text: string): string =>
  text.replace(HIDDEN_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
