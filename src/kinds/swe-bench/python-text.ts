// Python 3's text primitives as SWE-bench's harness uses them, so a re-derivation splits, strips
// and reads lines exactly as the harness did: `str.split()`/`strip()` (str.isspace: Unicode
// whitespace with \x1c–\x1f and \x85, not \ufeff, unlike JS's \s), `re`'s `\d` (any Unicode
// decimal digit, which `int()` reads) and `open().read()`'s universal newlines.

/** Every character Python 3's str.isspace() accepts, as a regex class body. */
export const PY_WS =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's `\d` on str: a Unicode decimal digit (category Nd). Use with the `u` flag. */
export const PY_DIGIT = "\\p{Nd}";
/** Python's `\w` on str (str.isalnum() or `_`). Use with the `u` flag. */
export const PY_WORD = "[\\p{L}\\p{N}_]";

const WS_RUN = new RegExp(`[${PY_WS}]+`, "u");
const ONE_WS = new RegExp(`^[${PY_WS}]$`, "u");
// Every whitespace character is in the BMP: one code unit each.
const WS_UNITS = new Set(
  Array.from({ length: 0x3001 }, (_, c) => String.fromCharCode(c)).filter((ch) => ONE_WS.test(ch)),
);

/** `s.split()`: the words between runs of whitespace, none empty. */
export function pySplit(s: string): string[] {
  return s.split(WS_RUN).filter((w) => w !== "");
}

// Scanned, not matched: `[\s]+$` retries every run of spaces, quadratic on a line of them.
export function pyLstrip(s: string): string {
  let i = 0;
  while (i < s.length && WS_UNITS.has(s.charAt(i))) i++;
  return s.slice(i);
}
export function pyRstrip(s: string): string {
  let j = s.length;
  while (j > 0 && WS_UNITS.has(s.charAt(j - 1))) j--;
  return s.slice(0, j);
}
export const pyStrip = (s: string): string => pyRstrip(pyLstrip(s));
/** True when `s` is empty or only whitespace. */
export const isBlank = (s: string): boolean => pyLstrip(s) === "";

const ND = /^\p{Nd}$/u;

/**
 * `int()` of a match of `-?\d+`. Unicode keeps every decimal digit block as ten contiguous code
 * points from 0 to 9, adjacent blocks in whole tens, so a digit's value is the count of digits
 * just before it, mod 10.
 */
export function pyInt(text: string): bigint {
  const negative = text.startsWith("-");
  let value = 0n;
  for (const ch of negative ? text.slice(1) : text) value = value * 10n + BigInt(digitValue(ch));
  return negative ? -value : value;
}

function digitValue(ch: string): number {
  let cp = ch.codePointAt(0) ?? 0;
  let run = 0;
  while (ND.test(String.fromCodePoint(cp - 1))) {
    run++;
    cp--;
  }
  return run % 10;
}

/**
 * Universal newlines over a stream of decoded chunks: `\r\n` and a lone `\r` end a line as `\n`
 * does, also when a chunk ends between the `\r` and the `\n`. Lines are what `text.split("\n")`
 * gives: the last one, after the final newline, is given too (empty then).
 */
export class LineSplitter {
  private partial = "";
  private afterCr = false;

  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: string): void {
    let start = this.afterCr && chunk.startsWith("\n") ? 1 : 0;
    if (chunk !== "") this.afterCr = false;
    const breaks = /\r\n?|\n/g;
    breaks.lastIndex = start;
    for (let m = breaks.exec(chunk); m !== null; m = breaks.exec(chunk)) {
      this.emit(this.partial + chunk.slice(start, m.index));
      this.partial = "";
      start = breaks.lastIndex;
      // A \r that ends the chunk may be the first half of a \r\n.
      if (m[0] === "\r" && start === chunk.length) this.afterCr = true;
    }
    this.partial += chunk.slice(start);
  }

  end(): void {
    this.emit(this.partial);
    this.partial = "";
    this.afterCr = false;
  }
}

/** The lines of a whole text (tests and small inputs): chunks as one. */
export function linesOf(text: string): string[] {
  const out: string[] = [];
  const splitter = new LineSplitter((l) => out.push(l));
  splitter.push(text);
  splitter.end();
  return out;
}
