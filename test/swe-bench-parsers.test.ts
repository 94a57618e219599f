// The harness's seven log parsers (swe-bench/parsers*.ts) against what the harness's own code gives
// for the same text (fixtures/swe-bench/harness-cases.json), fed in chunks of every size; and the
// Python text primitives they stand on.
import { describe, expect, it } from "vitest";
import { LogEvidence } from "../src/kinds/swe-bench/log-evidence.js";
import { failureHeader } from "../src/kinds/swe-bench/parser-sympy.js";
import { crashSafe, newParser, ParserCrash, parseText } from "../src/kinds/swe-bench/parsers.js";
import { optionOf } from "../src/kinds/swe-bench/parsers-pytest.js";
import { PARSERS } from "../src/kinds/swe-bench/repo.js";
import { TestOutputScan } from "../src/kinds/swe-bench/grade.js";
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

// Linear stand-ins for the harness's regexes that backtrack on hostile lines, checked against the
// regex itself (as JS runs it with Python's meaning) on many random short lines.

function randomLines(tokens: string[], count: number, seed: number): string[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, () =>
    Array.from({ length: Math.floor(next() * 12) }, () => tokens[Math.floor(next() * tokens.length)]).join(""),
  );
}

describe("linear stand-ins give what the harness's regexes give", () => {
  it("sympy's (_*) (.*)\\.py:(.*) (_*)", () => {
    const re = /(_*) (.*)\.py:(.*) (_*)/su;
    for (const line of randomLines(["_", " ", ".py:", "a", ".", "py", ":", "__ "], 20000, 7)) {
      const m = re.exec(line);
      expect(failureHeader(line), JSON.stringify(line)).toBe(m ? `${m[2]}.py:${m[3]}` : null);
    }
  });
  it("pytest_options' (.*?)\\[(.*)\\]", () => {
    const re = /(.*?)\[(.*)\]/su;
    for (const word of randomLines(["[", "]", "a", "/", "]x", "[/"], 20000, 11)) {
      const m = re.exec(word);
      expect(optionOf(word), JSON.stringify(word)).toEqual(m ? [m[1], m[2]] : null);
    }
  });
  it("SUITE_RAN's [1-9]\\d* passing and specs, failures", () => {
    const re = /[1-9]\p{Nd}* passing|[1-9]\p{Nd}* specs?, \p{Nd}+ failures?/u;
    for (const line of randomLines(["0", "1", "9", "٣", " passing", " spec", "s", ", 0 failure", "x"], 20000, 5)) {
      const evidence = new LogEvidence();
      evidence.line(line);
      expect(evidence.suiteRan, JSON.stringify(line)).toBe(re.test(line));
    }
  });
});

describe("hostile lines take linear time", () => {
  // Each line makes a backtracking regex retry at every character (quadratic or worse); at this
  // size that would outlast the test's timeout.
  const n = 200_000;
  const lines = [
    " ".repeat(n) + "x",
    " ".repeat(n) + "a.py:b",
    "PASSED " + "[".repeat(n),
    "1".repeat(n) + "x passing",
    " ...".repeat(n / 4),
    "_ ".repeat(n / 2) + ".py",
    ">>>>> Test Exit Code:" + " ".repeat(n) + "x",
  ];
  it.each([...PARSERS])("%s", { timeout: 20_000 }, (parser) => {
    const scan = new TestOutputScan(parser);
    for (const l of [">>>>> Start Test Output", ...lines, ">>>>> End Test Output"]) scan.line(l);
    expect(scan.finish().exit_code).toBe(null);
  });
});
