// plainParse's proof for compact text (no whitespace at all): the digits after each `":` and no
// array holding a number stand in for the RISKY regex. It must judge every text as the character
// pass does: seeded texts, mostly compact, with decimals in every place a number can stand, `":`
// inside strings followed by digits, escaped quotes, and whitespace (\r too) where it changes the proof.
// parseLenientJson's shortcut (Inspect's files: NaN and Infinity allowed) is held to its scan alike.
import { describe, expect, it } from "vitest";
import {
  lenientPlainParse,
  parseLenientJson,
  parseLenientJsonByScan,
  parseStrictJson,
  parseStrictJsonByScan,
  plainParse,
} from "../src/core/json/strict.js";
import { rng } from "./helpers/random.js";

const judge = (r: ReturnType<typeof parseStrictJson>) =>
  r.ok ? { ok: true, value: r.value } : { ok: false, code: r.issue.code };

describe("plainParse on compact text agrees with the character pass", () => {
  it.each([
    ['{"a":1.5}'],
    ['{"a":-1.0}'],
    ['{"a":1e3}'],
    ['{"a":-2E1}'],
    ['{"a":[1.0]}'],
    ['{"a":[1,2.0]}'],
    ["[1.5]"],
    ["[[0],[1e0]]"],
    ['{"a":{"b":[{"c":3.0}]}}'],
    ['{"a":"x\\":1.5"}'],
    ['{"a":1,"\\u0061":2}'],
    ['{"a":"\\ud800"}'],
    ['{"a":"\\udc00x"}'],
    ['{"a":"\\ud83d\\ude00"}'],
    ['{"a":"\\u001b[0m","b":"\\\\ud800"}'],
    ['{"a":"\\\\","a":1}'],
    ['{"a\\\\":1,"a\\\\":2}'],
    ['{"x":"{\\"k\\":1}","k":1}'],
    ['{"a":"\\":1"}'],
    ['{"a":1,"a":2}'],
    ['{"a":1,"a"\r:2}'],
    ['{"a":1\r,"a":2}'],
    ['{"a"\r:1.0}'],
    ['{"a":\r1.0}'],
    ['{"a":-0}'],
    ['{"a":0}'],
    ['{"a":[-0]}'],
    ['{"a":"1.5","b":[]}'],
    ['{"a":9007199254740993}'],
  ])("%j", (text) => {
    expect(judge(parseStrictJson(text, " "))).toEqual(judge(parseStrictJsonByScan(text, " ")));
  });

  it("on 30,000 seeded texts, mostly compact", () => {
    const r = rng(20261201);
    for (const compactShare of [0.97, 0.6]) {
      const counts = { shortcut: 0, accepted: 0, rejected: 0 };
      for (let i = 0; i < 15_000; i++) {
        const text = seededText(r, compactShare, NUMS);
        const fast = judge(parseStrictJson(text, " "));
        expect(fast, JSON.stringify(text)).toEqual(judge(parseStrictJsonByScan(text, " ")));
        if (plainParse(text, " ") !== undefined) counts.shortcut++;
        counts[fast.ok ? "accepted" : "rejected"]++;
      }
      // Both sides of the line: the shortcut decided many texts, the character pass many others.
      expect(counts.shortcut).toBeGreaterThan(1500);
      expect(counts.accepted - counts.shortcut).toBeGreaterThan(1500);
      expect(counts.rejected).toBeGreaterThan(1000);
    }
  });
});

describe("parseLenientJson's shortcut agrees with its character pass", () => {
  it.each([
    ['{"a":1.5,"b":NaN}'],
    ['\t{"a":1}'],
    ['{"a":1}\t'],
    ['\n{"a":1} \n'],
    ['\t{"a":NaN}'],
    ['{"a":"\\u001b[0m\\":1","a":2}'],
    ['{"a":"\\ud800"}'],
    ['{"a":1,"\\u0061":2}'],
    ['{"x":"{\\"k\\":1}","k":1e999}'],
    ["[Infinity,-Infinity]"],
  ])("%j", (text) => {
    expect(judge(parseLenientJson(text))).toEqual(judge(parseLenientJsonByScan(text)));
  });

  it("on 30,000 seeded texts, with Python's NaN and Infinity among the numbers", () => {
    const r = rng(20261202);
    for (const compactShare of [0.97, 0.6]) {
      const counts = { shortcut: 0, accepted: 0, rejected: 0 };
      for (let i = 0; i < 15_000; i++) {
        const text = seededText(r, compactShare, [...NUMS, "NaN", "Infinity", "-Infinity"]);
        const fast = judge(parseLenientJson(text));
        expect(fast, JSON.stringify(text)).toEqual(judge(parseLenientJsonByScan(text)));
        if (lenientPlainParse(text) !== undefined) counts.shortcut++;
        counts[fast.ok ? "accepted" : "rejected"]++;
      }
      expect(counts.shortcut).toBeGreaterThan(1500);
      expect(counts.accepted - counts.shortcut).toBeGreaterThan(1500);
      expect(counts.rejected).toBeGreaterThan(1000);
    }
  });
});

const KEYS = [
  '"a"',
  '"b"',
  '"a"',
  '":"',
  '"x\\":"',
  '"a\\\\"',
  '"1"',
  '"__proto__"',
  '""',
  '"\\u0061"',
  '"a\\\\\\":"',
  '"\\ud83d\\ude00"',
];
const NUMS = [
  "0",
  "-0",
  "7",
  "-12",
  "10",
  "1.0",
  "2.5",
  "-1.5",
  "1e3",
  "1E2",
  "1e-2",
  "-0.0",
  "0.1e1",
  "9007199254740993",
  "1e999",
  "123456",
];
/** Strings with `":` inside, escaped quotes and backslashes, ANSI escapes, and surrogate escapes lone, paired and escaped away. */
const STRS = [
  '"x"',
  '":"',
  '"\\":1.5"',
  '"\\":-1e2"',
  '"\\":7"',
  '"1.5"',
  '",2e3"',
  '"a\\"b"',
  '"[1.0"',
  '"\\\\"',
  '"\\":"',
  '"\\u001b[0m"',
  '"\\ud800"',
  '"\\udc00\\ud800"',
  '"\\ud83d\\ude00"',
  '"\\\\ud800"',
  '"\\\\\\":1.5"',
];

/** A seeded JSON-like text (valid or not): whitespace where it changes the proofs in 1 − compactShare of them. */
function seededText(r: () => number, compactShare: number, nums: readonly string[]): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const spaced = r() > compactShare;
  const ws = () => (spaced && r() < 0.3 ? pick([" ", "\t", "\n", "\r", "\r\n"]) : "");
  const value = (depth: number): string => {
    const k = Math.floor(r() * (depth > 2 ? 3 : 5));
    if (k === 0) return pick(nums);
    if (k === 1) return pick(STRS);
    if (k === 2) return pick(["true", "false", "null"]);
    if (k === 3)
      return "[" + Array.from({ length: Math.floor(r() * 4) }, () => ws() + value(depth + 1) + ws()).join(",") + "]";
    return (
      "{" +
      Array.from(
        { length: Math.floor(r() * 5) },
        () => ws() + pick(KEYS) + ws() + ":" + ws() + value(depth + 1) + ws(),
      ).join(",") +
      "}"
    );
  };
  const text = r() < 0.8 ? "{" + `"k":${value(1)}` + "}" : value(0);
  // Around the value too: only spaces (and \n in a document) are allowed there.
  return r() < 0.1 ? pick([" ", "\t", "\n", "\r"]) + text + pick(["", " ", "\t", "\n"]) : text;
}
