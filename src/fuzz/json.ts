// The oracle's own reading of §2 JSON: written apart from src/core/json on purpose, so the fuzzer
// judges the scorer against an independent reader. Small and recursive (depth-capped): it reads
// evidence files of a few kilobytes, never a whole archive.

import { isDeepStrictEqual } from "node:util";

/**
 * A number as evidence: `1` and `1.0` differ (an integer field rejects `1.0`), while integer
 * literals are their values (`-0` is `0`, as the contract's integer literal allows).
 */
export class Literal {
  readonly text: string;
  constructor(written: string) {
    this.text = /^-?(?:0|[1-9][0-9]*)$/.test(written) ? BigInt(written).toString() : written;
  }
}

const MAX_DEPTH = 256;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Read one §2 JSON value from `bytes`: UTF-8 without BOM, no raw \r, no duplicate key (after
 * unescaping), no escaped lone surrogate, finite numbers only, and only `outer` characters around
 * the value. Numbers come back as their literals. Returns why not, as a string, when it breaks a rule.
 */
export function readJson(bytes: Uint8Array, outer: " " | " \n"): { value: unknown } | { problem: string } {
  let s: string;
  try {
    s = decoder.decode(bytes);
  } catch {
    return { problem: "invalid UTF-8" };
  }
  if (s.includes("\r")) return { problem: "raw \\r" };
  let i = 0;
  const fail = (why: string): never => {
    throw new Problem(`${why} at ${i}`);
  };
  const ws = () => {
    while (s[i] === " " || s[i] === "\t" || s[i] === "\n") i++;
  };
  const str = (): string => {
    let out = "";
    i++;
    for (;;) {
      const c = s[i++];
      if (c === undefined) fail("unterminated string");
      if (c === '"') return out;
      if (c! < " ") fail("control character in a string");
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = s[i++];
      const simple: Record<string, string> = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
      };
      if (e !== undefined && e in simple) out += simple[e];
      else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(s.slice(i, i + 4))) {
        out += String.fromCharCode(parseInt(s.slice(i, i + 4), 16));
        i += 4;
      } else fail("bad escape");
    }
  };
  const value = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail("too deep");
    if (depth > 0) ws(); // around the whole value only `outer` is allowed
    const c = s[i];
    if (c === "{") {
      i++;
      const o: Record<string, unknown> = {};
      const seen = new Set<string>();
      ws();
      if (s[i] === "}") return (i++, o);
      for (;;) {
        ws();
        if (s[i] !== '"') fail("expected a key");
        const k = str();
        if (seen.has(k)) fail(`duplicate key ${JSON.stringify(k)}`);
        seen.add(k);
        ws();
        if (s[i++] !== ":") fail("expected :");
        // defineProperty: a "__proto__" key is an own property like any other, never the prototype.
        Object.defineProperty(o, k, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
        ws();
        const d = s[i++];
        if (d === "}") return o;
        if (d !== ",") fail("expected , or }");
      }
    }
    if (c === "[") {
      i++;
      const a: unknown[] = [];
      ws();
      if (s[i] === "]") return (i++, a);
      for (;;) {
        a.push(value(depth + 1));
        ws();
        const d = s[i++];
        if (d === "]") return a;
        if (d !== ",") fail("expected , or ]");
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const)
      if (s.startsWith(word, i)) return ((i += word.length), v);
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(s);
    if (m === null) return fail("expected a value");
    if (!Number.isFinite(Number(m[0]))) fail("a number that is not finite");
    i += m[0].length;
    return new Literal(m[0]);
  };
  try {
    let a = 0;
    while (outer.includes(s[a] ?? "x")) a++;
    i = a;
    const v = value(0);
    while (outer.includes(s[i] ?? "x")) i++;
    if (i !== s.length) fail("text after the value");
    if (/\\u[dD][89a-fA-F][0-9a-fA-F]{2}/.test(s) && hasLoneSurrogate(v))
      return { problem: "an escaped lone surrogate" };
    return { value: v };
  } catch (e) {
    if (e instanceof Problem) return { problem: e.message };
    throw e;
  }
}

class Problem extends Error {}

function hasLoneSurrogate(v: unknown): boolean {
  if (typeof v === "string") return !v.isWellFormed();
  if (Array.isArray(v)) return v.some(hasLoneSurrogate);
  if (typeof v === "object" && v !== null && !(v instanceof Literal))
    return Object.entries(v).some(([k, x]) => !k.isWellFormed() || hasLoneSurrogate(x));
  return false;
}

/** The complete lines of a log (without their \n): a torn tail after the last \n is not one. */
export function completeLines(b: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let from = 0;
  for (let nl = b.indexOf(0x0a); nl !== -1; nl = b.indexOf(0x0a, from)) {
    lines.push(b.subarray(from, nl));
    from = nl + 1;
  }
  return lines;
}

/** Each complete line of a JSONL log read as above (the torn tail after the last \n is not judged). */
export function jsonlProblem(bytes: Buffer): string | null {
  for (const [i, line] of completeLines(bytes).entries()) {
    if (line.length + 1 > 1024 * 1024) return `line ${i + 1} is over 1 MiB`;
    const r = readJson(line, " ");
    if ("problem" in r) return `line ${i + 1}: ${r.problem}`;
    if (typeof r.value !== "object" || r.value === null || Array.isArray(r.value) || r.value instanceof Literal)
      return `line ${i + 1} is not an object`;
  }
  return null;
}

/** Two .json documents hold the same §2 value (spelling of numbers included); `a` must obey §2. */
export function sameJson(a: Uint8Array, b: Uint8Array): boolean {
  const x = readJson(a, " \n");
  const y = readJson(b, " \n");
  return "value" in x && "value" in y && isDeepStrictEqual(x.value, y.value);
}
