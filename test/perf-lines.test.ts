// Speed-only paths in line framing and decoding must give the verdicts of the plain path: a line
// proven ASCII by its chunk skips its own encoding check and decodes as Latin-1; a line that is not
// goes through the full check. Seeded byte soups, every chunking, against the unproven path.
import { describe, expect, it } from "vitest";
import type { Finding } from "../src/core/codes.js";
import { decodeLine } from "../src/core/json/decode.js";
import { splitLines, type RawLine } from "../src/core/json/lines.js";
import { rng } from "./helpers/random.js";

// Pieces of lines that sit on the §2 lines: raw \r, a BOM, non-ASCII (valid and invalid UTF-8),
// escapes, decimals, duplicates, and plain records.
const PIECES = [
  '{"a":1}',
  '{"a":1,"a":2}',
  '{"a":1.0}',
  '{"b":"é"}',
  '{"c":"\\u00e9"}',
  '{"d":"\\ud800"}',
  "\r",
  "\uFEFF",
  "é",
  "😀",
  '{"x":[1,2,{"y":true}]}',
  " ",
  "{",
  "}",
  '"',
  ":",
  "NaN",
  "1e999",
  '{"k" :1}',
  "null",
  "",
];
const BYTES = [
  Buffer.from([0xff]),
  Buffer.from([0xc3]),
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from([0x0d]),
  Buffer.from([0xed, 0xa0, 0x80]),
];

function soup(r: () => number): Buffer {
  const parts: Buffer[] = [];
  const lines = 1 + Math.floor(r() * 6);
  for (let l = 0; l < lines; l++) {
    const n = Math.floor(r() * 4);
    for (let i = 0; i < n; i++)
      parts.push(
        r() < 0.15 ? BYTES[Math.floor(r() * BYTES.length)]! : Buffer.from(PIECES[Math.floor(r() * PIECES.length)]!),
      );
    if (l < lines - 1 || r() < 0.8) parts.push(Buffer.from("\n"));
  }
  return Buffer.concat(parts);
}

const chunked = (b: Buffer, size: number): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

/** Each line's framing and its decoded verdict (value or findings), with the line's proof or without it. */
function verdicts(chunks: Buffer[], proof: boolean): unknown[] {
  return [...splitLines(chunks)].map((raw: RawLine) => {
    const out: Finding[] = [];
    const line = proof ? raw : { ...raw, ascii: false };
    const value = raw.terminated ? decodeLine(line, "journal.jsonl", out) : null;
    return { number: raw.number, digest: raw.digest, length: raw.length, terminated: raw.terminated, value, out };
  });
}

describe("line framing: the per-chunk ASCII proof", () => {
  it("gives every line the verdict of the full per-line check, whatever the chunking", () => {
    const r = rng(12);
    let proven = 0;
    for (let i = 0; i < 3000; i++) {
      const text = soup(r);
      const expected = verdicts([text], false);
      for (const size of [text.length || 1, 1, 2, 3, 7]) expect(verdicts(chunked(text, size), true)).toEqual(expected);
      proven += [...splitLines([text])].filter((l) => l.ascii).length;
    }
    expect(proven).toBeGreaterThan(1000); // the proof is exercised, not only the fallback
  });

  it("proves a line ASCII only when it is ASCII without \\r", () => {
    const lines = [...splitLines([Buffer.from('{"a":1}\n{"b":"é"}\n{"c":1}\r\n\n')])];
    expect(lines.map((l) => l.ascii)).toEqual([true, false, false, true]);
    const spread = [...splitLines(chunked(Buffer.from('{"a":1}\n\r\n'), 2))];
    expect(spread.map((l) => l.ascii)).toEqual([true, false]);
  });
});
