// Strict JSON (contract §2). JSON.parse (native, fast) builds the value; what it forgives or
// cannot see — duplicate keys after unescaping, non-finite literals, escaped lone surrogates,
// integer literal spelling — is checked by an iterative character pass, or, for the common text
// that provably holds none of them (plainParse), by cheap native searches. Nesting depth cannot
// overflow the stack: the scanner keeps its own, and a value nested deeper than MAX_JSON_DEPTH is
// refused (JSON_TOO_DEEP) before JSON.parse builds it, so no walk over an accepted value can.

export type JsonIssueCode = "JSON_SYNTAX" | "JSON_DUPLICATE_KEY" | "NOT_FINITE" | "ENCODING" | "JSON_TOO_DEEP";

/**
 * The deepest nesting of arrays and objects assay reads (`[[1]]` is 2 deep): deeper is
 * JSON_TOO_DEEP. Readers of these files stop sooner (jiter, pydantic's parser, which Inspect and
 * Harbor read their files with, keeps its depth in a u8: below 256), while every walk over a value, V8's own
 * JSON.stringify and structured clone (≈ 3,000–4,000 on a main thread) stays far from its stack.
 */
export const MAX_JSON_DEPTH = 512;
/** Past this many characters, a text with more openers than MAX_JSON_DEPTH has its depth read before JSON.parse (which spends ~60 bytes a level). */
const DEPTH_PREPASS_CHARS = 1 << 20;
const tooDeep = (where: string): never =>
  fail("JSON_TOO_DEEP", `nested deeper than ${MAX_JSON_DEPTH} arrays and objects ${where}`);
export interface JsonIssue {
  code: JsonIssueCode;
  message: string;
  /**
   * The text ends where a value was still being read: every byte so far could begin a valid
   * document (what a writer killed mid-write leaves). Set on JSON_SYNTAX only.
   */
  endOfInput?: boolean;
}
export type JsonResult = { ok: true; value: unknown } | { ok: false; issue: JsonIssue };

/**
 * A number written with a fraction or exponent (`1.0`, `1e3`). JSON.parse erases the spelling;
 * the contract does not (an integer field rejects `1.0`), so such values reach the schemas boxed.
 */
export class JsonDecimal {
  constructor(readonly value: number) {}
}

import { clip } from "../text.js";

const OBJ = 1;
const ARR = 2;

class Fail {
  constructor(readonly issue: JsonIssue) {}
}
const fail = (code: JsonIssueCode, message: string, endOfInput = false): never => {
  throw new Fail(endOfInput ? { code, message, endOfInput } : { code, message });
};

const isWs = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

type Path = (string | number)[];

/**
 * Parse `text` as exactly one JSON value. `outerSpaces`: the characters allowed around the value
 * (" " for a JSONL line, " \n" for a .json document).
 */
export function parseStrictJson(text: string, outerSpaces: " " | " \n"): JsonResult {
  const plain = plainParse(text, outerSpaces);
  return plain !== undefined ? { ok: true, value: plain } : parseStrictJsonByScan(text, outerSpaces);
}

/** parseStrictJson without the plainParse shortcut (its tests hold the shortcut to this). */
export function parseStrictJsonByScan(text: string, outerSpaces: " " | " \n"): JsonResult {
  let decimals: Path[] | null;
  let value: unknown;
  try {
    // A quick pass checks syntax and counts key tokens without reading keys; JSON.parse keeps
    // one property per distinct key, so equal counts prove there is no duplicate. Only a
    // mismatch, or a decimal literal to box, needs the detailed pass that names keys and paths.
    const quick = scan(text, outerSpaces, false);
    value = JSON.parse(text);
    if (!quick.decimal && countKeys(value) === quick.keys) return { ok: true, value };
    decimals = scan(text, outerSpaces, true).decimals;
  } catch (e) {
    if (e instanceof Fail) return { ok: false, issue: e.issue };
    throw e;
  }
  if (decimals === null) return { ok: true, value };
  if (decimals.length === 1 && decimals[0]!.length === 0) return { ok: true, value: new JsonDecimal(value as number) };
  for (const p of decimals) box(value, p);
  return { ok: true, value };
}

// Text that might hold a decimal literal (`:1.5`, `,1e3`, `[-2.0`) or whitespace between a key
// and its colon. It may also match inside strings: that only costs the slower path.
const RISKY = /[:,[][ \t\n\r]*-?[0-9]+[.eE]|"[ \t\n\r]+:/;

/**
 * The common case without the character pass: an object or array whose text has no escape that
 * may make a surrogate. Each key token ends in `":` when no whitespace precedes its colon; an
 * escaped quote's `\":` is skipped, and every other `":` in the text (an opening quote before a
 * colon) only adds to the count — so as many `":` as JSON.parse kept keys proves no key was
 * dropped as a duplicate (keys equal once unescaped included: JSON.parse keeps one of them). Every number
 * must be an integer literal, proven one of two ways. Text without whitespace (compact writers):
 * a number is an array element or follows its key's `":` at once, so reading the digits after
 * each `":` and finding no array that holds a number proves it. Otherwise, no match of RISKY.
 * Numbers must come out as safe integers (a huge literal is the scan's to judge). Returns undefined
 * whenever the proof does not hold: the full path then decides.
 */
export function plainParse(s: string, outer: string): unknown {
  if (!containerWithin(s, outer) || mayHoldSurrogate(s)) return undefined;
  const compact = s.indexOf(" ") === -1 && s.indexOf("\n") === -1 && s.indexOf("\t") === -1 && s.indexOf("\r") === -1;
  if (!compact && RISKY.test(s)) return undefined;
  const deep = mayBeTooDeep(s);
  if (deep === true) return undefined; // the scan names it
  let value: unknown;
  try {
    value = JSON.parse(s);
  } catch {
    return undefined;
  }
  let colons = 0;
  for (let i = s.indexOf('":'); i !== -1; i = s.indexOf('":', i + 2)) {
    if (escapedAt(s, i)) continue;
    colons++;
    if (compact && decimalAt(s, i + 2)) return undefined;
  }
  return countKeys(value, true, compact, deep === "maybe") === colons ? value : undefined;
}

/**
 * An escape that may make a surrogate (`\uD800`–`\uDFFF`), lone or paired: the scan judges those.
 * It may also match an escaped backslash before a `u` (`\\uD8`): that only costs the slower path.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/y;
/** Whether `s` may hold a surrogate escape (a native search first: most texts hold no `\u` at all). */
function mayHoldSurrogate(s: string): boolean {
  for (let i = s.indexOf("\\u"); i !== -1; i = s.indexOf("\\u", i + 2)) {
    SURROGATE_ESCAPE.lastIndex = i;
    if (SURROGATE_ESCAPE.test(s)) return true;
  }
  return false;
}
/**
 * `s` is an object or an array with only `outer` characters around it, as the scan allows them
 * (JSON.parse also takes tabs and \r there: a shortcut must not).
 */
function containerWithin(s: string, outer: string): boolean {
  let a = 0;
  let b = s.length - 1;
  while (a <= b && outer.includes(s[a]!)) a++;
  while (b >= a && outer.includes(s[b]!)) b--;
  const open = s.charCodeAt(a);
  const close = s.charCodeAt(b);
  return (open === 0x7b && close === 0x7d) || (open === 0x5b && close === 0x5d);
}
/** Whitespace between a key and its colon: that key's `":` is not there to count. */
const SPACED_KEY = /"[ \t\n\r]+:/;

/** The quote at `i` is escaped (an odd run of backslashes before it): inside a string, never a key's end. */
function escapedAt(s: string, i: number): boolean {
  let k = i;
  while (k > 0 && s.charCodeAt(k - 1) === 0x5c) k--;
  return (i - k) % 2 === 1;
}

/** A number literal written with a fraction or exponent starts at `i` (false for anything else). */
function decimalAt(s: string, i: number): boolean {
  let c = s.charCodeAt(i);
  if (c === 0x2d) c = s.charCodeAt(++i);
  if (!isDigit(c)) return false;
  do c = s.charCodeAt(++i);
  while (isDigit(c));
  return c === 0x2e || c === 0x65 || c === 0x45;
}

/** A non-finite number or bare NaN/Infinity token: where it stands in the text and in the value. */
export interface NonFinite {
  path: Path;
  start: number;
  end: number;
  token: string;
}

/**
 * Parse strictly, except that non-finite numbers and bare NaN/Infinity tokens are read as null and
 * listed with their paths, so a caller can name the field (Python writes NaN so; Harbor's files).
 */
export function parseStrictJsonNoting(text: string, outerSpaces: " " | " \n"): JsonResult & { nonFinite: NonFinite[] } {
  const first = parseStrictJson(text, outerSpaces);
  if (first.ok || first.issue.code !== "NOT_FINITE") return { ...first, nonFinite: [] };
  const nonFinite: NonFinite[] = [];
  try {
    scan(text, outerSpaces, true, nonFinite);
  } catch (e) {
    if (e instanceof Fail) return { ok: false, issue: e.issue, nonFinite: [] };
    throw e;
  }
  let patched = "";
  let at = 0;
  for (const f of nonFinite) {
    patched += `${text.slice(at, f.start)}null`;
    at = f.end;
  }
  return { ...parseStrictJson(patched + text.slice(at), outerSpaces), nonFinite };
}

/**
 * Properties of every object in a parsed value (iterative: nesting depth is unbounded).
 * `safeIntegers`: -1 as soon as a number is not a safe integer; `noArrayNumbers`: -1 as soon as
 * an array holds a number (plainParse's compact proof does not see those); `depth`: -1 as soon as
 * the value nests deeper than MAX_JSON_DEPTH (the scan then names it).
 */
function countKeys(root: unknown, safeIntegers = false, noArrayNumbers = false, depth = false): number {
  let n = 0;
  const stack: unknown[] = [root];
  // Each container's depth, beside it on `stack`, only when asked (most texts cannot be that deep).
  const depths: number[] | null = depth ? [1] : null;
  const unsafe = (x: unknown) => safeIntegers && typeof x === "number" && !Number.isSafeInteger(x);
  while (stack.length > 0) {
    const v = stack.pop();
    const d = depths === null ? 0 : depths.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (d > MAX_JSON_DEPTH) return -1;
    if (Array.isArray(v)) {
      for (const x of v)
        if (typeof x === "object" && x !== null) {
          stack.push(x);
          depths?.push(d + 1);
        } else if (unsafe(x) || (noArrayNumbers && typeof x === "number")) return -1;
    } else
      for (const k in v) {
        n++;
        const x = (v as Record<string, unknown>)[k];
        if (typeof x === "object" && x !== null) {
          stack.push(x);
          depths?.push(d + 1);
        } else if (unsafe(x)) return -1;
      }
  }
  return n;
}

/**
 * Whether `s` could nest deeper than MAX_JSON_DEPTH: false when it holds no more openers (`[`, `{`)
 * than that, counted natively; else, for a long text, true or false from a pass over its
 * structure (JSON.parse is never asked to build 10^7 levels); else "maybe" (the value decides).
 */
function mayBeTooDeep(s: string): boolean | "maybe" {
  // A value MAX_JSON_DEPTH + 1 deep needs an opener and a closer a level: a shorter text that
  // JSON.parse accepts cannot be (and one it refuses goes to the scan, which keeps count).
  if (s.length < 2 * (MAX_JSON_DEPTH + 1)) return false;
  // Up to DEPTH_PREPASS_CHARS, JSON.parse builds at most ~500,000 levels (~30 MB): the value decides.
  if (s.length <= DEPTH_PREPASS_CHARS) return "maybe";
  return nestsTooDeep(s);
}

/**
 * The text nests deeper than MAX_JSON_DEPTH (strings skipped; it need not be valid JSON): for a
 * reader that calls JSON.parse itself on text no finding rests on (a trajectory scanned for review
 * flags), so V8 is never asked to build 10^7 levels. Cheap unless the text holds many openers.
 * `short`: false leaves texts up to DEPTH_PREPASS_CHARS unread (JSON.parse builds at most ~50 MB
 * of them) for a reader whose schema bounds the value it keeps.
 */
export function textTooDeep(s: string, short = true): boolean {
  const deep = mayBeTooDeep(s);
  return deep === "maybe" ? short && textDeeperThan(s, MAX_JSON_DEPTH) : deep;
}

/**
 * The text nests deeper than MAX_JSON_DEPTH, for a reader that JSON.parses text and then walks the
 * value (recursion a deep value overflows): its openers counted natively first, so a text of few
 * (nearly every one) costs no scan in JavaScript.
 */
export function nestsTooDeep(s: string): boolean {
  if (s.length < 2 * (MAX_JSON_DEPTH + 1)) return false;
  let openers = 0;
  for (const c of ["[", "{"])
    for (let i = s.indexOf(c); i !== -1 && openers <= MAX_JSON_DEPTH; i = s.indexOf(c, i + 1)) openers++;
  return openers > MAX_JSON_DEPTH && textDeeperThan(s, MAX_JSON_DEPTH);
}

/** The text's arrays and objects nest deeper than `max` (strings skipped; the text need not be valid). */
function textDeeperThan(s: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x22) {
      for (i = s.indexOf('"', i + 1); i !== -1; i = s.indexOf('"', i + 1)) {
        let k = i - 1;
        while (s.charCodeAt(k) === 0x5c) k--;
        if ((i - k) % 2 === 1) break; // after an even run of backslashes (or none): the closing quote
      }
      if (i === -1) return false;
    }
  }
  return false;
}

/** Replace the number at `path` (non-empty) with its boxed form. */
function box(root: unknown, path: Path): void {
  let node = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) node = node[path[i]!] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  const v = node[last] as number;
  node[last] = new JsonDecimal(v);
}

/**
 * One pass over `s`. `detailed`: also read every key (duplicates, with their names) and record
 * the path of each decimal literal; otherwise only count keys and note whether a decimal occurs.
 */
function scan(
  s: string,
  outer: string,
  detailed: boolean,
  nonFinite: NonFinite[] | null = null,
): { keys: number; decimal: boolean; decimals: Path[] | null } {
  const n = s.length;
  let i = 0;
  const stack: number[] = [];
  // Keys seen per open object: a short array (most records), a Set past 16 keys so a hostile
  // object with 100k keys stays linear.
  const keys: (string[] | Set<string>)[] = [];
  const path: Path = [];
  let decimals: Path[] | null = null;
  let keyCount = 0;
  let decimal = false;

  const skipOuter = () => {
    while (i < n && outer.includes(s[i]!)) i++;
  };
  const skipWs = () => {
    while (i < n && isWs(s.charCodeAt(i))) i++;
  };
  const where = () => `at character ${i + 1}`;
  /** A syntax error; `cut`: the input ends inside the token being read (default: at the end). */
  const syntax = (message: string, cut = i >= n): never => fail("JSON_SYNTAX", message, cut);
  /** What is left of the text is a proper beginning of `word` (a literal cut short). */
  const cutShort = (...words: string[]) => i < n && words.some((w) => w.length > n - i && w.startsWith(s.slice(i)));
  // Fast path for strings: when the text holds no control character and no backslash before the
  // closing quote, indexOf finds the end natively. `escapeAt` caches the next backslash.
  const clean = !/[\u0000-\u001f]/.test(s);
  let escapeAt = clean ? s.indexOf("\\") : 0;

  // Reads a string starting at the opening quote; returns its decoded value only when wanted.
  const readString = (want: boolean): string => {
    const start = ++i;
    if (clean) {
      if (escapeAt !== -1 && escapeAt < start) escapeAt = s.indexOf("\\", start);
      const q = s.indexOf('"', start);
      if (q !== -1 && (escapeAt === -1 || q < escapeAt)) {
        i = q + 1;
        return want ? s.slice(start, q) : "";
      }
    }
    let escaped = false;
    for (;;) {
      if (i >= n) syntax("unterminated string");
      const c = s.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) syntax(`raw control character in a string ${where()}`);
      if (c === 0x5c) {
        escaped = true;
        const e = s.charCodeAt(i + 1);
        if (e === 0x75) {
          const unit = readHex4(i + 2);
          if (unit >= 0xd800 && unit <= 0xdbff) {
            // A high surrogate escape must be followed at once by a low surrogate escape.
            if (s.charCodeAt(i + 6) !== 0x5c || s.charCodeAt(i + 7) !== 0x75)
              fail("ENCODING", `escaped lone surrogate ${where()}`);
            const low = readHex4(i + 8);
            if (low < 0xdc00 || low > 0xdfff) fail("ENCODING", `escaped lone surrogate ${where()}`);
            i += 12;
          } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            fail("ENCODING", `escaped lone surrogate ${where()}`);
          } else i += 6;
          continue;
        }
        if (
          e === 0x22 ||
          e === 0x5c ||
          e === 0x2f ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        ) {
          i += 2;
          continue;
        }
        syntax(`invalid escape ${where()}`, i + 1 >= n);
      }
      i++;
    }
    const end = i++;
    if (!want) return "";
    return escaped ? (JSON.parse(s.slice(start - 1, end + 1)) as string) : s.slice(start, end);
  };
  const readHex4 = (at: number): number => {
    for (let k = at; k < at + 4; k++) if (!isHex(s.charCodeAt(k))) syntax(`invalid \\u escape ${where()}`, k >= n);
    return parseInt(s.slice(at, at + 4), 16);
  };

  const readKey = () => {
    if (s.charCodeAt(i) !== 0x22) syntax(`expected a key ${where()}`);
    keyCount++;
    if (!detailed) {
      readString(false);
      skipWs();
      if (s.charCodeAt(i) !== 0x3a) syntax(`expected ':' ${where()}`);
      i++;
      return;
    }
    const key = readString(true);
    const seen = keys[keys.length - 1]!;
    if (Array.isArray(seen)) {
      if (seen.includes(key)) fail("JSON_DUPLICATE_KEY", `duplicate key ${clip(key)}`);
      if (seen.length < 16) seen.push(key);
      else keys[keys.length - 1] = new Set(seen).add(key);
    } else {
      if (seen.has(key)) fail("JSON_DUPLICATE_KEY", `duplicate key ${clip(key)}`);
      seen.add(key);
    }
    path[path.length - 1] = key;
    skipWs();
    if (s.charCodeAt(i) !== 0x3a) syntax(`expected ':' ${where()}`);
    i++;
  };

  // A non-finite value: fails the parse, or (collecting) is noted with its span and path.
  const notFinite = (start: number, end: number, message: string) => {
    if (nonFinite === null) fail("NOT_FINITE", message);
    nonFinite!.push({ path: path.slice(), start, end, token: s.slice(start, Math.min(end, start + 40)) });
    i = end;
  };

  const readNumber = () => {
    const start = i;
    if (s.charCodeAt(i) === 0x2d) i++;
    if (s.startsWith("Infinity", i)) return notFinite(start, i + 8, "bare -Infinity token");
    let c = s.charCodeAt(i);
    if (c === 0x30) i++;
    else if (c >= 0x31 && c <= 0x39) while (isDigit(s.charCodeAt(i))) i++;
    else syntax(`invalid number ${where()}`, i >= n || cutShort("Infinity"));
    let isDecimal = false;
    if (s.charCodeAt(i) === 0x2e) {
      isDecimal = true;
      i++;
      if (!isDigit(s.charCodeAt(i))) syntax(`invalid number ${where()}`);
      while (isDigit(s.charCodeAt(i))) i++;
    }
    c = s.charCodeAt(i);
    if (c === 0x65 || c === 0x45) {
      isDecimal = true;
      i++;
      c = s.charCodeAt(i);
      if (c === 0x2b || c === 0x2d) i++;
      if (!isDigit(s.charCodeAt(i))) syntax(`invalid number ${where()}`);
      while (isDigit(s.charCodeAt(i))) i++;
    }
    if ((isDecimal || i - start > 300) && !Number.isFinite(Number(s.slice(start, i))))
      return notFinite(start, i, `number ${s.slice(start, Math.min(i, start + 40))} is not a finite double`);
    if (isDecimal) {
      decimal = true;
      if (detailed) (decimals ??= []).push(path.slice());
    }
  };

  const literal = (word: string) => {
    if (!s.startsWith(word, i)) syntax(`unexpected token ${where()}`, cutShort(word));
    i += word.length;
  };

  skipOuter();
  for (;;) {
    // A value starts at i (the root's surroundings were checked by skipOuter).
    if (stack.length > 0) skipWs();
    const c = s.charCodeAt(i);
    if (c === 0x7b) {
      i++;
      skipWs();
      if (s.charCodeAt(i) === 0x7d) i++;
      else {
        if (stack.push(OBJ) > MAX_JSON_DEPTH) tooDeep(where());
        if (detailed) keys.push([]);
        path.push("");
        readKey();
        continue;
      }
    } else if (c === 0x5b) {
      i++;
      skipWs();
      if (s.charCodeAt(i) === 0x5d) i++;
      else {
        if (stack.push(ARR) > MAX_JSON_DEPTH) tooDeep(where());
        path.push(0);
        continue;
      }
    } else if (c === 0x22) readString(false);
    else if (c === 0x2d || isDigit(c)) readNumber();
    else if (c === 0x74) literal("true");
    else if (c === 0x66) literal("false");
    else if (c === 0x6e) literal("null");
    else if (c === 0x4e && s.startsWith("NaN", i)) notFinite(i, i + 3, "bare NaN token");
    else if (c === 0x49 && s.startsWith("Infinity", i)) notFinite(i, i + 8, "bare Infinity token");
    else
      syntax(
        i >= n ? "unexpected end of input" : `unexpected character ${where()}`,
        i >= n || cutShort("NaN", "Infinity"),
      );

    // After a value: close containers or move to the next member.
    let next = false;
    while (stack.length > 0) {
      skipWs();
      const d = s.charCodeAt(i);
      const top = stack[stack.length - 1];
      if (d === 0x2c) {
        i++;
        skipWs();
        if (top === OBJ) readKey();
        else (path[path.length - 1] as number)++;
        next = true;
        break;
      }
      if ((top === OBJ && d === 0x7d) || (top === ARR && d === 0x5d)) {
        i++;
        if (top === OBJ && detailed) keys.pop();
        stack.pop();
        path.pop();
        continue;
      }
      syntax(i >= n ? "unexpected end of input" : `unexpected character ${where()}`);
    }
    if (!next) break;
  }
  skipOuter();
  if (i < n) syntax(`unexpected data after the value ${where()}`, false);
  return { keys: keyCount, decimal, decimals };
}

/**
 * Strict JSON with one relaxation (contract §12, Inspect's files): the bare tokens `NaN`,
 * `Infinity` and `-Infinity` are read as those numbers (Python writes them so), while a literal
 * that overflows (`1e999`) is still NOT_FINITE. Duplicate keys, encoding and syntax as §2.
 * Decimal literals are not boxed: Inspect's integer fields are judged by value (pydantic reads
 * `1.0` as 1). Text without those tokens takes JSON.parse's path with the plainParse proof.
 */
export function parseLenientJson(text: string): JsonResult {
  const plain = lenientPlainParse(text);
  return plain !== undefined ? { ok: true, value: plain } : parseLenientJsonByScan(text);
}

/** parseLenientJson without the lenientPlainParse shortcut (its tests hold the shortcut to this). */
export function parseLenientJsonByScan(text: string): JsonResult {
  const nonFinite: NonFinite[] = [];
  try {
    scan(text, " \n", true, nonFinite);
  } catch (e) {
    if (e instanceof Fail) return { ok: false, issue: e.issue };
    throw e;
  }
  const tokens = new Map([
    ["NaN", NaN],
    ["Infinity", Infinity],
    ["-Infinity", -Infinity],
  ]);
  const overflow = nonFinite.find((f) => !tokens.has(f.token));
  if (overflow !== undefined)
    return { ok: false, issue: { code: "NOT_FINITE", message: `number ${overflow.token} is not a finite double` } };
  let patched = "";
  let at = 0;
  for (const f of nonFinite) {
    patched += `${text.slice(at, f.start)}null`;
    at = f.end;
  }
  const value: unknown = JSON.parse(patched + text.slice(at));
  if (nonFinite.length === 1 && nonFinite[0]!.path.length === 0)
    return { ok: true, value: tokens.get(nonFinite[0]!.token)! };
  for (const f of nonFinite) setAt(value, f.path, tokens.get(f.token)!);
  return { ok: true, value };
}

/** JSON.parse's value when the plainParse proof holds with decimals allowed and every number finite; else undefined. */
export function lenientPlainParse(s: string): unknown {
  if (!containerWithin(s, " \n") || mayHoldSurrogate(s) || SPACED_KEY.test(s)) return undefined;
  const deep = mayBeTooDeep(s);
  if (deep === true) return undefined; // the scan names it
  let value: unknown;
  try {
    value = JSON.parse(s);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  let colons = 0;
  for (let i = s.indexOf('":'); i !== -1; i = s.indexOf('":', i + 2)) if (!escapedAt(s, i)) colons++;
  // An overflowing literal is the only way JSON.parse makes a non-finite number.
  return countFiniteKeys(value, deep === "maybe") === colons ? value : undefined;
}

/**
 * Properties of every object, or -1 when a number is not finite (or, with `depth`, when the value
 * nests deeper than MAX_JSON_DEPTH). Only containers go on the stack (with their depth, when
 * asked): a sample's strings and numbers are looked at in place.
 */
function countFiniteKeys(root: unknown, depth = false): number {
  if (typeof root !== "object" || root === null) return typeof root === "number" && !Number.isFinite(root) ? -1 : 0;
  let n = 0;
  const stack: object[] = [root];
  const depths: number[] | null = depth ? [1] : null;
  while (stack.length > 0) {
    const v = stack.pop()!;
    const d = depths === null ? 0 : depths.pop()!;
    if (d > MAX_JSON_DEPTH) return -1;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === "object") {
          if (x === null) continue;
          stack.push(x);
          depths?.push(d + 1);
        } else if (typeof x === "number" && !Number.isFinite(x)) return -1;
      }
    } else
      for (const k in v) {
        n++;
        const x: unknown = (v as Record<string, unknown>)[k];
        if (typeof x === "object") {
          if (x === null) continue;
          stack.push(x);
          depths?.push(d + 1);
        } else if (typeof x === "number" && !Number.isFinite(x)) return -1;
      }
  }
  return n;
}

/** Set the value at a non-empty `path`. */
function setAt(root: unknown, path: Path, v: number): void {
  let node = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) node = node[path[i]!] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = v;
}
