// The harness's seven log parsers (swe-bench/parsers*.ts) against what the harness's own code gives
// for the same text (fixtures/swe-bench/harness-cases.json), fed in chunks of every size; and the
// Python text primitives they stand on.
import { describe, expect, it } from "vitest";
import { crashSafe, newParser, ParserCrash, parseText } from "../src/kinds/swe-bench/parsers.js";
import { isBlank, linesOf, pyInt, pyLstrip, pyRstrip, pySplit, pyStrip } from "../src/kinds/swe-bench/python-text.js";
import { CHUNKINGS, harnessCases, linesInChunks } from "./swe-bench-cases.js";

describe("the parsers give what the harness's parsers give", () => {
  for (const c of harnessCases.parsers) {
    it(`${c.parser}: ${c.name}`, () => {
      for (const size of CHUNKINGS) {
        const lines = linesInChunks(c.text, size);
        if ("crash" in c.expected) expect(() => parseText(c.parser, lines), `chunks of ${size}`).toThrow(ParserCrash);
        else expect([...parseText(c.parser, lines)], `chunks of ${size}`).toEqual(c.expected.map);
      }
    });
  }
});

describe("a parser that raised", () => {
  it("stays raised, and raises only when its map is asked for", () => {
    const p = crashSafe(newParser("django"));
    p.line("FAIL:");
    p.line("test_a ... ok");
    expect(() => p.end()).toThrow(/IndexError/);
  });
  it("a parser that did not raise gives its map", () => {
    const p = crashSafe(newParser("django"));
    p.line("FAIL: test_b (m.C)");
    expect([...p.end()]).toEqual([["test_b", "FAILED"]]);
  });
});

describe("Python's str.split() and strip()", () => {
  it("splits at Python's whitespace: \\x1c–\\x1f and \\x85 are, \\ufeff and \\u200b are not", () => {
    expect(pySplit("a\x1cb\x1dc\x1ed\x1fe\x85f")).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(pySplit("a\ufeffb\u200bc")).toEqual(["a\ufeffb\u200bc"]);
    expect(pySplit("  \u3000 ")).toEqual([]);
    expect(pySplit("\u2028x\u2029y\u00a0z")).toEqual(["x", "y", "z"]);
  });
  it("strips Python's whitespace from the ends only", () => {
    expect(pyStrip("\x85 a b \x1f")).toBe("a b");
    expect(pyLstrip("\x0b a ")).toBe("a ");
    expect(pyRstrip(" a \x0c")).toBe(" a");
    expect(pyStrip("\ufeffa\ufeff")).toBe("\ufeffa\ufeff");
    expect(isBlank(" \t\x1c")).toBe(true);
    expect(isBlank(" \ufeff")).toBe(false);
  });
  it("reads any Unicode decimal digits as int() does", () => {
    expect(pyInt("0")).toBe(0n);
    expect(pyInt("137")).toBe(137n);
    expect(pyInt("-1")).toBe(-1n);
    expect(pyInt("١٢")).toBe(12n); // Arabic-Indic
    expect(pyInt("𝟗")).toBe(9n); // mathematical bold nine, a second block of ten after 𝟎–𝟗
    expect(pyInt("𝟙𝟘")).toBe(10n); // double-struck
  });
});

describe("universal newlines", () => {
  it("\\r\\n, lone \\r and \\n each end a line; the text after the last is a line", () => {
    expect(linesOf("a\r\nb\rc\nd")).toEqual(["a", "b", "c", "d"]);
    expect(linesOf("a\n")).toEqual(["a", ""]);
    expect(linesOf("")).toEqual([""]);
    expect(linesOf("\r\r\n\n")).toEqual(["", "", "", ""]);
  });
  it("a \\r\\n cut between its two chunks is one newline", () => {
    for (const size of [1, 2, 3]) expect(linesInChunks("a\r\nb\r\n\r\nc\r", size)).toEqual(["a", "b", "", "c", ""]);
  });
  it("a lone \\r ending a chunk is a newline when the next chunk is not \\n", () => {
    expect(linesInChunks("a\rb", 2)).toEqual(["a", "b"]);
    expect(linesInChunks("a\r\rb", 2)).toEqual(["a", "", "b"]);
  });
});
