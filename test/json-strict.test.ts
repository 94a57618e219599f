// The strict JSON layer (contract §2): encoding, line framing, syntax, duplicate keys, finiteness,
// integer literals and torn tails — through parseStrictJson, splitLines and whole bundles.

import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, splitLines } from "../src/core/json/lines.js";
import { JsonDecimal, parseStrictJson, parseStrictJsonByScan, plainParse } from "../src/core/json/strict.js";
import {
  bundle,
  codes,
  escaped,
  game,
  header,
  killed,
  live,
  score,
  sha,
  T0,
  warningCodes,
  ZERO,
  type Rec,
} from "./helpers/bundle.js";
import { rng } from "./helpers/random.js";

type Files = Record<string, string | Buffer>;
const MiB = 1024 * 1024;
const J = "journal.jsonl";

/** The journal lines of a bundle, without their \n. */
const linesOf = (files: Files) => String(files[J]).split("\n").slice(0, -1);

/**
 * Rewrite journal lines (1-based line number → new text or bytes) and re-chain every `prev` after
 * them, so only the edited lines are at fault; the summary's `journal` fields follow the new bytes.
 */
function edit(files: Files, edits: Record<number, (line: string) => string | Buffer>): Files {
  const out: Buffer[] = [];
  let prev = ZERO;
  linesOf(files).forEach((text, i) => {
    const s = JSON.stringify({ ...JSON.parse(text), prev });
    const changed = edits[i + 1]?.(s) ?? s;
    const b = Buffer.isBuffer(changed) ? changed : Buffer.from(changed);
    out.push(b);
    prev = sha(b);
  });
  const next: Files = { ...files, [J]: Buffer.concat(out.flatMap((b) => [b, Buffer.from("\n")])) };
  if (typeof files["summary.json"] === "string") {
    const summary = JSON.parse(files["summary.json"]);
    summary.journal = { records: out.length, head: prev };
    next["summary.json"] = JSON.stringify(summary);
  }
  return next;
}

/** Replace exactly one occurrence of `from` (fails loudly when the fixture does not hold it). */
const swap = (from: string, to: string) => (s: string) => {
  expect(s.split(from)).toHaveLength(2);
  return s.replace(from, to);
};
/** Pad a line with spaces (allowed around a JSONL value) to `bytes` bytes, without its \n. */
const padTo = (bytes: number) => (s: string) => s + " ".repeat(bytes - Buffer.byteLength(s));

/** [code, file, line] of every error, in report order. */
const found = (e: { errors: { code: string; file: string | null; line: number | null }[] }) =>
  e.errors.map((f) => [f.code, f.file, f.line]);

// game(): 1 header, 2 obs 0, 3 keys, 4 obs 1, 5 keys, 6 obs 2 (killed), 7 final score, 8 end.
const base = () => bundle(game());

describe("the fixture", () => {
  it("re-chaining an unedited bundle keeps it valid", () => {
    const e = score(edit(base(), {}));
    expect(found(e)).toEqual([]);
    expect(e.validity).toBe("valid");
  });
});

describe("parseStrictJson", () => {
  const issue = (text: string, outer: " " | " \n" = " ") => {
    const r = parseStrictJson(text, outer);
    return r.ok ? null : r.issue.code;
  };

  it("parses a plain value and decodes escapes", () => {
    expect(parseStrictJson('{"a":[1,"\\u0041\\n",true,null,{"b":-0.5}]}', " ")).toEqual({
      ok: true,
      value: { a: [1, "A\n", true, null, { b: expect.any(JsonDecimal) }] },
    });
  });

  it("boxes numbers spelled with a fraction or exponent, at any depth, and leaves integer literals plain", () => {
    const r = parseStrictJson('{"i":3,"f":1.0,"e":1e3,"n":[0,[2.5]],"o":{"x":-7E-1}}', " ");
    expect(r.ok).toBe(true);
    const v = (r as { value: Record<string, unknown> }).value as any;
    expect(v.i).toBe(3);
    expect(v.n[0]).toBe(0);
    for (const [box, value] of [
      [v.f, 1],
      [v.e, 1000],
      [v.n[1][0], 2.5],
      [v.o.x, -0.7],
    ] as const) {
      expect(box).toBeInstanceOf(JsonDecimal);
      expect(box.value).toBe(value);
    }
  });

  it("accepts a valid escaped surrogate pair", () => {
    expect(parseStrictJson('"\\ud83d\\ude00"', " ")).toEqual({ ok: true, value: "😀" });
    expect(parseStrictJson('"\\uD83D\\uDE00"', " ")).toEqual({ ok: true, value: "😀" });
  });

  it.each([
    ["a lone high surrogate", '"\\ud800"'],
    ["a high surrogate followed by text", '"\\ud800x"'],
    ["a high surrogate followed by a non-surrogate escape", '"\\ud800\\u0041"'],
    ["a high surrogate at the end of a key", '{"\\udbff":1}'],
    ["a lone low surrogate", '"\\udc00"'],
    ["a low surrogate before a high one", '"\\ude00\\ud83d"'],
  ])("rejects %s as ENCODING", (_name, text) => {
    expect(issue(text)).toBe("ENCODING");
  });

  it.each([
    ["a trailing comma in an object", '{"a":1,}'],
    ["a trailing comma in an array", "[1,2,]"],
    ["single quotes", "{'a':1}"],
    ["a leading zero", '{"a":01}'],
    ["a negative leading zero", "-01"],
    ["a bare fraction", ".5"],
    ["an empty text", ""],
    ["only spaces", "   "],
    ["two values", "{} {}"],
    ["an unterminated string", '"abc'],
    ["an invalid escape", '"\\x41"'],
    ["a raw control character in a string", '"a\tb"'],
    ["a comment", '{"a":1} // note'],
    ["an unquoted key", "{a:1}"],
    ["a missing value", '{"a":}'],
    ["a capitalised literal", "True"],
    ["an unclosed array", "[1,2"],
    ["a mismatched bracket", "[1,2}"],
  ])("rejects %s as JSON_SYNTAX", (_name, text) => {
    expect(issue(text)).toBe("JSON_SYNTAX");
  });

  it("allows only spaces around a JSONL line's value, and spaces or \\n around a document", () => {
    expect(issue("  {}  ")).toBeNull();
    expect(issue("\n{}\n")).toBe("JSON_SYNTAX");
    expect(issue("\n {} \n", " \n")).toBeNull();
    expect(issue("\t{}", " \n")).toBe("JSON_SYNTAX");
    // inside a value, JSON's own whitespace is fine
    expect(issue('{ "a" :\t[ 1 ,\n2 ] }')).toBeNull();
  });

  it.each([
    ["a repeated key", '{"a":1,"a":2}'],
    ["a key repeated through an escape", '{"a":1,"\\u0061":2}'],
    ["an escaped key repeated plainly", '{"\\u0062c":1,"bc":2}'],
    ["a repeat in a nested object", '{"x":{"a":1,"b":2,"a":3}}'],
    ["a repeat in an object inside an array", '[{"a":1},{"b":1,"b":1}]'],
    ["a repeat after a nested object closes", '{"a":{"b":1},"c":2,"a":3}'],
    ["a key repeated through an escaped solidus", '{"a/":1,"a\\/":2}'],
  ])("rejects %s as JSON_DUPLICATE_KEY", (_name, text) => {
    expect(issue(text)).toBe("JSON_DUPLICATE_KEY");
  });

  it("does not confuse equal keys in different objects with duplicates", () => {
    expect(issue('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}')).toBeNull();
    expect(issue('{"a":1,"A":2,"a ":3}')).toBeNull();
  });

  it.each([
    ["1e999", "1e999"],
    ["-1e999", "-1e999"],
    ["an overlong integer literal", "1" + "0".repeat(400)],
    ["bare NaN", "NaN"],
    ["bare Infinity", "Infinity"],
    ["bare -Infinity", "-Infinity"],
    ["NaN inside an object", '{"a":[1,NaN]}'],
    ["1e999 inside an object", '{"meta":{"x":1e999}}'],
  ])("rejects %s as NOT_FINITE", (_name, text) => {
    expect(issue(text)).toBe("NOT_FINITE");
  });

  it("accepts finite extremes and underflow inside a value", () => {
    expect(parseStrictJson("[1.7976931348623157e308]", " ").ok).toBe(true);
    expect(parseStrictJson('{"a":1e-999}', " ").ok).toBe(true);
  });

  it("parses a bare root number with a fraction or exponent without throwing", () => {
    for (const text of ["1.5", "1e3", "-0.25", "1.7976931348623157e308", "1e-999"]) {
      expect(() => parseStrictJson(text, " "), text).not.toThrow();
      expect(() => parseStrictJson(` ${text}\n`, " \n"), text).not.toThrow();
    }
  });

  it("never throws on deeply nested input: past MAX_JSON_DEPTH (512) it is JSON_TOO_DEEP, found before JSON.parse builds it", () => {
    const n = 100_000;
    const tooDeep = { ok: false, issue: { code: "JSON_TOO_DEEP" } };
    expect(parseStrictJson("[".repeat(n), " ")).toMatchObject(tooDeep);
    expect(parseStrictJson('{"a":'.repeat(n), " ")).toMatchObject(tooDeep);
    expect(parseStrictJson("[".repeat(n) + "]".repeat(n), " ")).toMatchObject(tooDeep);
    expect(parseStrictJson("[".repeat(n) + "1.5" + "]".repeat(n), " ")).toMatchObject(tooDeep);
    expect(parseStrictJson('{"a":'.repeat(n) + "1" + "}".repeat(n), " ")).toMatchObject(tooDeep);
    expect(parseStrictJson("[".repeat(n) + "]".repeat(n - 1), " ")).toMatchObject(tooDeep);
    // At the line, the same texts are read as before.
    expect(parseStrictJson("[".repeat(512), " ")).toMatchObject({ ok: false, issue: { code: "JSON_SYNTAX" } });
    expect(parseStrictJson("[".repeat(512) + "1.5" + "]".repeat(512), " ").ok).toBe(true);
    expect(parseStrictJson('{"a":'.repeat(512) + "1" + "}".repeat(512), " ").ok).toBe(true);
  });
});

describe("splitLines", () => {
  const chunked = (b: Buffer, size: number) => {
    const out: Buffer[] = [];
    for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
    return out;
  };
  const summary = (chunks: Iterable<Uint8Array>) =>
    [...splitLines(chunks)].map((l) => ({
      ...l,
      bytes: l.bytes === null ? null : Buffer.from(l.bytes).toString("latin1"),
    }));

  it("numbers lines from 1 and hashes each one's bytes without its \\n, whatever the chunking", () => {
    const text = Buffer.from('{"a":1}\n\n{"b":"é"}\ntail');
    const whole = summary([text]);
    expect(whole.map((l) => [l.number, l.length, l.digest, l.terminated])).toEqual([
      [1, 7, sha('{"a":1}'), true],
      [2, 0, sha(""), true],
      [3, 10, sha('{"b":"é"}'), true],
      [4, 4, sha("tail"), false],
    ]);
    expect(summary(chunked(text, 1))).toEqual(whole);
    expect(summary(chunked(text, 3))).toEqual(whole);
  });

  it("yields no torn line after a final \\n, and nothing for an empty stream", () => {
    expect([...splitLines([Buffer.from("{}\n")])].map((l) => l.terminated)).toEqual([true]);
    expect([...splitLines([])]).toEqual([]);
    expect([...splitLines([Buffer.alloc(0)])]).toEqual([]);
  });

  it("keeps a line of exactly 1 MiB with its \\n and drops one byte more, across chunk boundaries", () => {
    expect(MAX_LINE_BYTES).toBe(MiB);
    const fits = Buffer.alloc(MiB - 1, 0x20);
    const over = Buffer.alloc(MiB, 0x20);
    const text = Buffer.concat([fits, Buffer.from("\n"), over, Buffer.from("\n{}\n")]);
    const lines = [...splitLines(chunked(text, 4096))];
    expect(lines.map((l) => [l.number, l.length, l.bytes?.length ?? null, l.digest])).toEqual([
      [1, MiB - 1, MiB - 1, sha(fits)],
      [2, MiB, null, sha(over)],
      [3, 2, 2, sha("{}")],
    ]);
  });
});

describe("ENCODING in the journal", () => {
  it("rejects a byte order mark on line 1", () => {
    const e = score(edit(base(), { 1: (s) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(s)]) }));
    expect(found(e)).toEqual([["ENCODING", J, 1]]);
  });

  it.each([3, 8])("rejects a byte order mark at the start of line %i as ENCODING, not JSON_SYNTAX", (line) => {
    const e = score(edit(base(), { [line]: (s) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(s)]) }));
    expect(found(e)).toEqual([["ENCODING", J, line]]);
    expect(e.errors[0]!.message).toBe("byte order mark");
  });

  it("a U+FEFF inside a string is a character, not a byte order mark", () => {
    expect(found(score(edit(base(), { 3: swap('"keys":"l"', '"keys":"\ufeffl"') })))).toEqual([]);
  });

  it.each([
    ["at the end of a line", (s: string) => s + "\r"],
    ["inside a string", swap('"keys":"l"', '"keys":"l\r"')],
    ["as whitespace inside the object", swap('"keys":"l"', '"keys":\r"l"')],
  ])("rejects a raw \\r %s", (_name, change) => {
    expect(found(score(edit(base(), { 3: change })))).toEqual([["ENCODING", J, 3]]);
  });

  it.each([
    ["a 0xff byte", [0xff]],
    ["a truncated two-byte sequence", [0xc3]],
    ["an overlong encoding of '/'", [0xc0, 0xaf]],
    ["an encoded surrogate (CESU-8)", [0xed, 0xa0, 0x80]],
  ])("rejects invalid UTF-8: %s", (_name, bytes) => {
    const bad = (s: string) => {
      const [before, after] = s.split('"keys":"l');
      return Buffer.concat([Buffer.from(before + '"keys":"l'), Buffer.from(bytes), Buffer.from(after!)]);
    };
    expect(found(score(edit(base(), { 3: bad })))).toEqual([["ENCODING", J, 3]]);
  });

  it.each([
    ["an escaped lone high surrogate", '"keys":"\\ud800"'],
    ["an escaped lone low surrogate", '"keys":"\\udc00"'],
    ["a high surrogate escape followed by a plain letter", '"keys":"\\ud800a"'],
  ])("rejects %s", (_name, to) => {
    expect(found(score(edit(base(), { 5: swap('"keys":"l"', to) })))).toEqual([["ENCODING", J, 5]]);
  });

  it("accepts an escaped surrogate pair and raw multi-byte UTF-8", () => {
    const e = score(
      edit(base(), { 3: swap('"keys":"l"', '"keys":"\\ud83d\\ude00"'), 5: swap('"keys":"l"', '"keys":"é😀"') }),
    );
    expect(found(e)).toEqual([]);
    expect(e.validity).toBe("valid");
  });

  it("rejects a BOM, \\r or invalid UTF-8 in summary.json too", () => {
    const files = base();
    expect(found(score({ ...files, "summary.json": "\ufeff" + files["summary.json"] }))).toEqual([
      ["ENCODING", "summary.json", null],
    ]);
    expect(found(score({ ...files, "summary.json": files["summary.json"] + "\r\n" }))).toEqual([
      ["ENCODING", "summary.json", null],
    ]);
    const bad = Buffer.concat([Buffer.from(String(files["summary.json"])), Buffer.from([0x20, 0xfe])]);
    expect(found(score({ ...files, "summary.json": bad }))).toEqual([["ENCODING", "summary.json", null]]);
  });
});

describe("LINE_TOO_LONG", () => {
  it("accepts a line of exactly 1 MiB including its \\n", () => {
    const files = edit(base(), { 3: padTo(MiB - 1) });
    expect(Buffer.byteLength(linesOf(files)[2]!) + 1).toBe(MiB);
    const e = score(files);
    expect(found(e)).toEqual([]);
    expect(e.validity).toBe("valid");
  });

  it("rejects one byte more, and still judges the later lines on an intact chain", () => {
    const e = score(edit(base(), { 3: padTo(MiB), 5: swap('"keys":"l"', '"keys":"l",') }));
    // line 4's prev is the digest of the long line: no JOURNAL_CHAIN; line 5 is still parsed.
    expect(found(e)).toEqual([
      ["LINE_TOO_LONG", J, 3],
      ["JSON_SYNTAX", J, 5],
    ]);
  });

  it("counts bytes, not characters", () => {
    // 600k two-byte characters: 1.2 MB, though its JS length is under 1 Mi.
    const e = score(edit(base(), { 3: () => JSON.stringify("é".repeat(600_000)) }));
    expect(found(e)).toEqual([["LINE_TOO_LONG", J, 3]]);
  });

  it("keeps the long line in the chain: a wrong prev after it is still caught", () => {
    const files = edit(base(), { 3: padTo(MiB + 10) });
    const lines = linesOf(files);
    lines[3] = lines[3]!.replace(/"prev":"[0-9a-f]{64}"/, `"prev":"${sha(lines[2]!.trimEnd())}"`);
    const e = score({ ...files, [J]: lines.map((l) => l + "\n").join("") });
    // line 4 names the unpadded bytes; line 5 then names the altered line 4's old bytes
    expect(found(e)).toEqual([
      ["LINE_TOO_LONG", J, 3],
      ["JOURNAL_CHAIN", J, 4],
      ["JOURNAL_CHAIN", J, 5],
    ]);
  });
});

describe("JSON_SYNTAX and the one-object-per-line rule", () => {
  it.each([
    ["a trailing comma", swap('"keys":"l"', '"keys":"l",')],
    ["a blank line", () => ""],
    ["a line of spaces", () => "   "],
    ["single quotes", swap('"keys":"l"', "'keys':'l'")],
    ["a leading zero", swap('"frame":0', '"frame":00')],
    ["two objects on one line", (s: string) => s + s],
  ])("rejects %s", (_name, change) => {
    expect(found(score(edit(base(), { 3: change })))).toEqual([["JSON_SYNTAX", J, 3]]);
  });

  it.each([
    ["an array", "[1,2]"],
    ["a string", '"keys"'],
    ["null", "null"],
    ["a number", "3"],
    ["a fractional number", "1.5"],
    ["an exponent number", "2e3"],
  ])("rejects a line holding %s as SCHEMA", (_name, line) => {
    expect(found(score(edit(base(), { 3: () => line })))).toEqual([["SCHEMA", J, 3]]);
  });

  it("reports every failing line with its own number", () => {
    const e = score(edit(base(), { 3: swap('"keys":"l"', '"keys":"l",'), 5: swap('"keys":"l"', "'keys':'l'") }));
    expect(found(e)).toEqual([
      ["JSON_SYNTAX", J, 3],
      ["JSON_SYNTAX", J, 5],
    ]);
  });

  it("reports failing lines of different kinds together", () => {
    const e = score(
      edit(base(), { 3: swap('"keys":"l"', '"keys":"\\udc00"'), 5: swap('"keys":"l"', '"keys":"l","keys":"m"') }),
    );
    expect(found(e)).toEqual([
      ["ENCODING", J, 3],
      ["JSON_DUPLICATE_KEY", J, 5],
    ]);
  });

  it("does not throw on a deeply nested line: past 512 levels it is JSON_TOO_DEEP", () => {
    const n = 100_000;
    expect(found(score(edit(base(), { 3: () => "[".repeat(n) })))).toEqual([["JSON_TOO_DEEP", J, 3]]);
    expect(found(score(edit(base(), { 3: () => "[".repeat(n) + "]".repeat(n) })))).toEqual([["JSON_TOO_DEEP", J, 3]]);
    const nested = (s: string) => s.replace('"keys":"l"', `"keys":${"[".repeat(n)}${"]".repeat(n)}`);
    expect(found(score(edit(base(), { 3: nested })))).toEqual([["JSON_TOO_DEEP", J, 3]]);
    const atTheLine = (s: string) => s.replace('"keys":"l"', `"keys":${"[".repeat(511)}${"]".repeat(511)}`);
    expect(found(score(edit(base(), { 3: atTheLine })))).toEqual([["SCHEMA", J, 3]]);
  });

  it("rejects a syntax error in snapshot.json", () => {
    const files = base();
    const e = score({ ...files, "snapshot.json": String(files["snapshot.json"]).replace(/}$/, ",}") });
    expect(found(e)).toContainEqual(["JSON_SYNTAX", "snapshot.json", null]);
    expect(codes(e)).not.toContain("SCHEMA");
  });

  it.each(["[]", "3", "2.5", '"summary"', "null"])("rejects summary.json holding %s as SCHEMA", (doc) => {
    expect(found(score({ ...base(), "summary.json": doc }))).toEqual([["SCHEMA", "summary.json", null]]);
  });

  it("allows spaces and \\n around a .json document, nothing else", () => {
    const files = base();
    expect(found(score({ ...files, "summary.json": `\n  ${files["summary.json"]} \n\n` }))).toEqual([]);
    expect(found(score({ ...files, "summary.json": `\t${files["summary.json"]}` }))).toEqual([
      ["JSON_SYNTAX", "summary.json", null],
    ]);
    expect(found(score({ ...files, "summary.json": `${files["summary.json"]}{}` }))).toEqual([
      ["JSON_SYNTAX", "summary.json", null],
    ]);
  });
});

// An unscored, abnormal game whose last line before `end` is an observation (line 6): an
// undecodable observation there leaves no later frame to disturb. 7 is the end record.
const lastObs = () => bundle(game({ score: "none", end: "abnormal" }));

describe("JSON_DUPLICATE_KEY", () => {
  it.each([
    ["a repeated envelope key", 3, swap('"keys":"l"', '"keys":"l","keys":"l"')],
    ["a key repeated through a \\u escape", 3, swap('"keys":"l"', '"keys":"l","\\u006beys":"l"')],
    ["a repeat inside the nested state", 6, swap('"depth":7,', '"depth":7,"depth":0,')],
    ["a repeat inside an inventory item", 6, swap('"slot":0,', '"slot":0,"slot":1,')],
    ["a repeat inside meta", 1, swap('"model":"m-1"', '"model":"m-1","\\u006dodel":"m-2"')],
  ])("rejects %s", (_name, line, change) => {
    expect(found(score(edit(lastObs(), {})))).toEqual([]);
    expect(found(score(edit(lastObs(), { [line]: change })))).toEqual([["JSON_DUPLICATE_KEY", J, line]]);
  });

  it("rejects a duplicate key in summary.json, the way JSON.parse would hide a claimed victory", () => {
    const files = base();
    const summary = String(files["summary.json"]).replace('"victory":false', '"victory":false,"victory":true');
    expect(found(score({ ...files, "summary.json": summary }))).toEqual([["JSON_DUPLICATE_KEY", "summary.json", null]]);
  });
});

describe("NOT_FINITE", () => {
  it.each([
    ["1e999", "1e999"],
    ["-1e999", "-1e999"],
    ["a bare NaN", "NaN"],
    ["a bare Infinity", "Infinity"],
    ["a bare -Infinity", "-Infinity"],
  ])("rejects %s in meta", (_name, literal) => {
    const e = score(edit(base(), { 1: swap('"model":"m-1"', `"model":"m-1","x":${literal}`) }));
    expect(found(e)).toEqual([["NOT_FINITE", J, 1]]);
  });

  it("rejects 1e999 in an integer field as NOT_FINITE", () => {
    expect(found(score(edit(lastObs(), { 6: swap('"turn":500,', '"turn":1e999,') })))).toEqual([["NOT_FINITE", J, 6]]);
  });
});

// Line 1 that fails strict decoding: its lenient reading still names the profile, so the rest of
// the journal is judged (every failing line is reported) and the entry is labelled from it — but
// the bundle stays invalid and earns nothing.
describe("a header that fails strict decoding", () => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const breakers: [string, string, (s: string) => string | Buffer][] = [
    [
      "a duplicate key through a \\u escape",
      "JSON_DUPLICATE_KEY",
      swap('"model":"m-1"', '"model":"m-1","\\u006dodel":"m-2"'),
    ],
    ["a raw \\r inside a string", "ENCODING", swap('"model":"m-1"', '"model":"m-1\r"')],
    ["a raw \\r at the end", "ENCODING", (s) => s + "\r"],
    ["a byte order mark", "ENCODING", (s) => Buffer.concat([BOM, Buffer.from(s)])],
    ["a bare NaN", "NOT_FINITE", swap('"model":"m-1"', '"model":"m-1","x":NaN')],
    ["1e999", "NOT_FINITE", swap('"model":"m-1"', '"model":"m-1","x":1e999')],
    ["a seq written as a string (envelope)", "SCHEMA", swap('"seq":0,', '"seq":"0",')],
  ];

  it.each(breakers)(
    "%s: later lines are still judged as native-game, and the status is the end's",
    (_name, code, broken) => {
      const e = score(
        edit(base(), {
          1: broken,
          3: swap('"keys":"l"', '"keys":"l","extra":1'), // SCHEMA
          5: swap('"frame":1,', '"frame":0,'), // keys for a stale frame: TRANSITION
        }),
      );
      expect(found(e)).toEqual([
        [code, J, 1],
        ["SCHEMA", J, 3],
        ["TRANSITION", J, 5],
      ]);
      expect(e).toMatchObject({
        validity: "invalid",
        profile: "native-game",
        status: "completed",
        ending: true,
        victory: null,
        late: null,
      });
      expect(e).toMatchObject({ experiment: "exp", trial: "t1", attempt: 1 });
    },
  );

  it.each(breakers)("%s alone: only line 1 is reported, and a winning game earns no victory", (_name, code, broken) => {
    const files = bundle(game({ states: [live(), escaped()] }));
    expect(score(files)).toMatchObject({ validity: "valid", victory: true });
    const e = score(edit(files, { 1: broken }));
    expect(found(e)).toEqual([[code, J, 1]]);
    expect(e).toMatchObject({
      validity: "invalid",
      profile: "native-game",
      status: "completed",
      ending: true,
      victory: null,
      late: null,
    });
  });

  it("an unterminated journal under a broken header is labelled unterminated", () => {
    const e = score(edit(bundle(game({ end: null })), { 1: breakers[0]![2] }));
    expect(found(e)).toEqual([["JSON_DUPLICATE_KEY", J, 1]]);
    expect(e).toMatchObject({ profile: "native-game", status: "unterminated" });
  });

  it.each([
    ["an unsupported profile", swap('"profile":"native-game"', '"profile":"other"')],
    ["an unsupported format", swap('"format":"assay.bundle/1"', '"format":"assay.bundle/2"')],
    ["another record type", swap('"type":"session"', '"type":"observation"')],
  ])("a broken header with %s: the rest is not judged by a guessed profile", (_name, change) => {
    const e = score(
      edit(base(), { 1: (s) => change(breakers[0]![2](s) as string), 3: swap('"keys":"l"', '"keys":"l","extra":1') }),
    );
    expect(found(e)).toEqual([["JSON_DUPLICATE_KEY", J, 1]]);
    expect(e.profile).toBeNull();
  });

  it.each([
    ["profile", swap('"profile":"native-game"', '"profile":"world","profile":"native-game"')],
    [
      "profile, through a \\u escape and spaces",
      swap('"profile":"native-game"', `"\\u0070rofile"${" ".repeat(40)}:"world","profile":"native-game"`),
    ],
    ["type", swap('"type":"session"', '"type":"observation","type":"session"')],
    ["format", swap('"format":"assay.bundle/1"', '"format":"assay.bundle/2","format":"assay.bundle/1"')],
  ])(
    "a header with a duplicated %s: which one was meant is a guess, so no profile judges the rest",
    (_name, change) => {
      const e = score(edit(base(), { 1: change, 3: swap('"keys":"l"', '"keys":"l","extra":1') }));
      expect(found(e)).toEqual([["JSON_DUPLICATE_KEY", J, 1]]);
      expect(e.profile).toBeNull();
    },
  );

  it("a key named profile inside meta is no duplicate of the header's", () => {
    const e = score(edit(base(), { 1: (s) => swap('"model":"m-1"', '"model":"m-1","profile":"world","x":NaN')(s) }));
    expect(found(e)).toEqual([["NOT_FINITE", J, 1]]);
    expect(e).toMatchObject({ profile: "native-game", status: "completed" });
  });

  it("a header no lenient reading can parse names no profile", () => {
    const e = score(edit(base(), { 1: (s) => s.replace(/}$/, ",}"), 3: swap('"keys":"l"', '"keys":"l","extra":1') }));
    expect(found(e)).toEqual([["JSON_SYNTAX", J, 1]]);
    expect(e).toMatchObject({ profile: null, status: null, experiment: null });
  });
});

// A line that cannot be read never reaches the profile's records, which resynchronise on the next
// readable ones instead of reporting what that line may explain: one bad line, one finding.
describe("one unreadable line anywhere is one finding", () => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const ways: [string, string, (s: string) => string | Buffer][] = [
    ["a bare NaN", "NOT_FINITE", (s) => s.replace(/}$/, ',"x":NaN}')],
    ["1e999", "NOT_FINITE", (s) => s.replace(/}$/, ',"x":1e999}')],
    ["a duplicate key", "JSON_DUPLICATE_KEY", (s) => s.replace(/}$/, ',"\\u0074ype":"keys"}')],
    ["a raw \\r", "ENCODING", (s) => s + "\r"],
    ["a byte order mark", "ENCODING", (s) => Buffer.concat([BOM, Buffer.from(s)])],
    [
      "invalid UTF-8",
      "ENCODING",
      (s) => Buffer.concat([Buffer.from(s.replace(/}$/, ',"x":"')), Buffer.from([0xff]), Buffer.from('"}')]),
    ],
    ["a line too long", "LINE_TOO_LONG", padTo(MiB)],
    ["a syntax error", "JSON_SYNTAX", (s) => s.replace(/}$/, ",}")],
    ["a broken envelope", "SCHEMA", (s) => s.replace(/"seq":\d+,/, '"seq":"x",')],
  ];
  // game(): 1 header, 2 obs 0, 3 keys, 4 obs 1, 5 keys, 6 obs 2 (killed), 7 final score, 8 end.
  const cases = [2, 3, 4, 5, 6, 7, 8].flatMap((line) =>
    ways.map(([name, code, change]) => [line, name, code, change] as const),
  );

  it.each(cases)("line %i, %s", (line, _name, code, change) => {
    const e = score(edit(base(), { [line]: change }));
    expect(found(e)).toEqual([[code, J, line]]);
    expect(e).toMatchObject({
      validity: "invalid",
      profile: "native-game",
      status: line === 8 ? "unterminated" : "completed",
      victory: null,
    });
  });

  it.each(ways)(
    "an interrupted game whose final score is unreadable (%s) is not 'interrupted without a final score'",
    (_name, code, change) => {
      const files = bundle(game({ states: [live(), live({ turn: 20 })], end: "interrupted" })); // 5 final score, 6 end
      expect(found(score(files))).toEqual([]);
      expect(found(score(edit(files, { 5: change })))).toEqual([[code, J, 5]]);
    },
  );

  it("several unreadable lines in a row are one finding each", () => {
    const e = score(edit(base(), { 3: ways[2]![2], 4: ways[7]![2], 5: ways[0]![2] }));
    expect(found(e)).toEqual([
      ["JSON_DUPLICATE_KEY", J, 3],
      ["JSON_SYNTAX", J, 4],
      ["NOT_FINITE", J, 5],
    ]);
  });

  it("a malformed ending observation or final score is its SCHEMA finding only (it may have been the one the end needs)", () => {
    expect(found(score(edit(base(), { 6: swap('"depth":7,', '"depth":7,"extra":1,') })))).toEqual([["SCHEMA", J, 6]]);
    const files = bundle(game({ states: [live(), live({ turn: 20 })], end: "interrupted" })); // 5 final score, 6 end
    expect(found(score(edit(files, { 5: swap('"final":true', '"final":1') })))).toEqual([["SCHEMA", J, 5]]);
  });

  it("an observation whose frame is no integer is its SCHEMA finding only", () => {
    expect(found(score(edit(base(), { 4: swap('"frame":1,', '"frame":1.5,') })))).toEqual([["SCHEMA", J, 4]]);
    expect(found(score(edit(base(), { 4: swap('"frame":1,', '"frame":"1",') })))).toEqual([["SCHEMA", J, 4]]);
  });

  describe("what an unreadable line cannot explain is still reported", () => {
    const syntax = ways[7]![2];
    it("an observation frame beyond what the lost lines could hold", () => {
      const e = score(edit(base(), { 4: syntax, 6: swap('"frame":2,', '"frame":3,') }));
      expect(found(e)).toEqual([
        ["JSON_SYNTAX", J, 4],
        ["TRANSITION", J, 6],
      ]);
      expect(e.errors[1]!.message).toBe("observation frame 3; expected 1 to 2 (1 unreadable line since frame 0)");
    });

    it("an observation frame that repeats the last readable one", () => {
      // 1 header, 2 obs 0, 3 keys (unreadable), 4 obs 0 again, 5 keys, 6 obs 1 (killed), 7 final score, 8 end
      const t = (s: number) => T0 + s * 1000;
      const recs: Rec[] = [
        header(),
        { type: "observation", at: t(1), frame: 0, state: live() },
        { type: "keys", at: t(2), frame: 0, keys: "l" },
        { type: "observation", at: t(3), frame: 0, state: live() },
        { type: "keys", at: t(4), frame: 0, keys: "l" },
        { type: "observation", at: t(5), frame: 1, state: killed() },
        { type: "score", at: t(6), final: true, snapshot: "auto" },
        { type: "end", at: t(7), status: "completed", reason: "test" },
      ];
      expect(found(score(edit(bundle(recs), {})))).toEqual([["TRANSITION", J, 4]]);
      expect(found(score(edit(bundle(recs), { 3: syntax })))).toEqual([
        ["JSON_SYNTAX", J, 3],
        ["TRANSITION", J, 4],
      ]);
    });

    it("keys for a frame no lost line could have observed", () => {
      const e = score(edit(base(), { 4: syntax, 5: swap('"frame":1,', '"frame":2,') }));
      expect(found(e)).toEqual([
        ["JSON_SYNTAX", J, 4],
        ["TRANSITION", J, 5],
      ]);
      expect(e.errors[1]!.message).toBe(
        "keys for frame 2; the latest observation is frame 0 to 1 at most (1 unreadable line since frame 0)",
      );
    });

    it("keys for a frame a lost first line could not have observed", () => {
      const e = score(edit(base(), { 2: syntax, 3: swap('"frame":0,', '"frame":1,') }));
      expect(found(e)).toEqual([
        ["JSON_SYNTAX", J, 2],
        ["TRANSITION", J, 3],
      ]);
      expect(e.errors[1]!.message).toBe(
        "keys for frame 1; the latest observation is frame 0 at most (1 unreadable line since the header)",
      );
    });

    it("keys after the deadline, decreasing turns, flags changed after the ending: the intact journal's findings, plus the lost line's", () => {
      const recs = game({
        deadline: T0 + 4500,
        states: [
          live(),
          live({ turn: 20, playerturn: 10 }),
          killed(),
          killed({ turn: 600, is_dead: false }),
          live({ turn: 5 }),
        ],
      });
      // 1 header, 2 obs 0, 3 keys, 4 obs 1, 5 keys, 6 obs 2 (killed), 7 keys (late), 8 obs 3 (is_dead false), 9 keys (late), 10 obs 4 (turn 5), …
      const intact = found(score(edit(bundle(recs), {})));
      expect(intact.map(([, , line]) => line)).toEqual([7, 8, 9, 10, 10, 10]);
      expect(found(score(edit(bundle(recs), { 4: syntax })))).toEqual([["JSON_SYNTAX", J, 4], ...intact]);
    });
  });
});

describe("integer literals", () => {
  it.each([
    ["frame 1.0", 4, swap('"frame":1,', '"frame":1.0,')],
    ["frame 1e0", 4, swap('"frame":1,', '"frame":1e0,')],
    ["attempt 1.0", 1, swap('"attempt":1,', '"attempt":1.0,')],
    ["attempt 1e0", 1, swap('"attempt":1,', '"attempt":1e0,')],
    ["seq 2.0", 3, swap('"seq":2,', '"seq":2.0,')],
    ["turn 2e1", 4, swap('"turn":20,', '"turn":2e1,')],
    ["slot 0.0 in an inventory item", 4, swap('"slot":0,', '"slot":0.0,')],
  ])("rejects %s as SCHEMA", (_name, line, change) => {
    expect(found(score(edit(base(), { [line]: change })))).toEqual([["SCHEMA", J, line]]);
  });

  it("rejects 1e3 in an integer field whose value 1000 would otherwise be fine", () => {
    const files = bundle(game({ states: [live(), live({ turn: 1000, playerturn: 10 }), killed({ turn: 1000 })] }));
    expect(found(score(edit(files, {})))).toEqual([]);
    expect(found(score(edit(files, { 4: swap('"turn":1000,', '"turn":1e3,') })))).toEqual([["SCHEMA", J, 4]]);
  });

  it("accepts ±(2^53−1) and rejects one beyond, in an integer field", () => {
    const recs = game({ states: [live(), live({ turn: 20, game_type: 5 }), killed()], score: "none" });
    const files = bundle(recs); // 1 header, 2 obs, 3 keys, 4 obs (game_type 5), 5 keys, 6 obs (killed), 7 end
    for (const [literal, ok] of [
      ["9007199254740991", true],
      ["-9007199254740991", true],
      ["9007199254740992", false],
      ["-9007199254740992", false],
      ["12345678901234567890", false],
    ] as const) {
      const e = score(edit(files, { 4: swap('"game_type":5,', `"game_type":${literal},`) }));
      expect(found(e), literal).toEqual(ok ? [] : [["SCHEMA", J, 4]]);
    }
  });

  it("rejects an envelope `at` beyond 2^53−1", () => {
    expect(found(score(edit(base(), { 8: (s) => s.replace(/"at":\d+/, '"at":9007199254740993') })))).toEqual([
      ["SCHEMA", J, 8],
    ]);
  });

  it("lets meta hold any finite number, however spelled", () => {
    const files = bundle(game({ meta: { model: "m-1", temp: 1.5, big: 1000, neg: -2 } }));
    const e = score(
      edit(files, { 1: (s) => s.replace('"big":1000', '"big":1e3').replace('"neg":-2', '"neg":-2.5E-3') }),
    );
    expect(found(e)).toEqual([]);
    expect(e.validity).toBe("valid");
    expect(linesOf(edit(files, {}))[0]).toContain('"temp":1.5');
  });
});

describe("torn tail", () => {
  // An unterminated game: 1 header, 2 obs, 3 keys, 4 obs, 5 keys, 6 obs (killed), 7 final score.
  const unterminated = () => game({ end: null });

  it("is a JOURNAL_TORN warning; the complete lines are judged and stay valid", () => {
    const e = score(bundle(unterminated(), { tail: '{"seq":7,"at":17' }));
    expect(found(e)).toEqual([]);
    expect(e.warnings.map((w) => [w.code, w.file, w.line])).toEqual([["JOURNAL_TORN", J, 8]]);
    expect(e).toMatchObject({ validity: "valid", status: "unterminated", ending: true, final_score: true });
  });

  it("is not parsed: a torn tail that is complete JSON does not count", () => {
    const end = chainTail(unterminated(), { type: "end", at: T0 + 99_000, status: "completed", reason: "x" });
    const e = score(bundle(unterminated(), { tail: end }));
    expect(found(e)).toEqual([]);
    expect(warningCodes(e)).toEqual(["JOURNAL_TORN"]);
    expect(e.status).toBe("unterminated");
  });

  it("is not parsed: garbage in a torn tail is no JSON_SYNTAX or ENCODING", () => {
    const e = score(bundle(unterminated(), { tail: "{'half\r" }));
    expect(found(e)).toEqual([]);
    expect(warningCodes(e)).toEqual(["JOURNAL_TORN"]);
  });

  it("after an end record is TRANSITION", () => {
    const e = score(bundle(game(), { tail: '{"seq":8' }));
    expect(found(e)).toContainEqual(["TRANSITION", J, 9]);
    expect(e.validity).toBe("invalid");
  });

  it("as the only line leaves no header", () => {
    const e = score({ [J]: JSON.stringify({ seq: 0, ...header() }) });
    expect(codes(e)).toEqual(["HEADER_MISSING"]);
    expect(warningCodes(e)).toEqual(["JOURNAL_TORN"]);
  });
});

/** The text a writer would have appended next (without its \n) after `records`. */
function chainTail(records: Rec[], next: Rec): string {
  const lines = linesOf(bundle(records));
  return JSON.stringify({
    seq: lines.length,
    at: next["at"],
    type: next["type"],
    prev: sha(lines[lines.length - 1]!),
    ...next,
  });
}

// parseStrictJson skips the character pass when cheap native searches prove the text holds
// nothing it would catch. That shortcut must never decide differently: seeded texts built to sit
// on its lines (keys whose colon has whitespace before it, `":` inside strings, escapes, decimal
// and huge literals, duplicates) are judged by both and must agree exactly.
describe("the shortcut agrees with the character pass", () => {
  const judge = (r: ReturnType<typeof parseStrictJson>) =>
    r.ok ? { ok: true, value: r.value } : { ok: false, code: r.issue.code };

  it.each([
    ["a duplicate hidden behind an escaped quote and colon in a string", '{"a":"x\\":","a":1}'],
    ["a duplicate hidden behind a string that opens with a colon", '{"a":":","a":1}'],
    ["a duplicate whose colon has a space before it", '{"a":1,"a" :2}'],
    ["a duplicate whose colon has a tab before it", '{"a":1,"a"\t:2}'],
    ["a duplicate beside a key with a space before its colon", '{"b" :":","a":1,"a":2}'],
    ["a duplicate in a nested array", '{"x":[{"k":1,"k":2}]}'],
  ])("rejects %s", (_name, text) => {
    expect(judge(parseStrictJson(text, " "))).toEqual({ ok: false, code: "JSON_DUPLICATE_KEY" });
  });

  it.each([
    ['{"a":1.0}', " "],
    ['{"a":[1,\n2.0]}', " "],
    ['{"a":[-3e2]}', " "],
    ['{"a": 1E1}', " "],
    ['{"a":"1.5","b":2}', " "],
    ['{"a":12345678901234567890}', " "],
    ['{"a":1' + "0".repeat(400) + "}", " "],
    ['{"a":"\\ud800"}', " "],
    ['{"a":"\\u0041","\\u0061":1}', " "],
    [' {"a":1} ', " "],
    ['\t{"a":1}', " "],
    ['{"a":1}\n', " "],
    ['\n{"a":1}\n', " \n"],
    ['{"a":-0}', " "],
    ['{"__proto__":1,"__proto__":2}', " "],
  ])("judges %j as the character pass does", (text, outer) => {
    expect(judge(parseStrictJson(text, outer as " " | " \n"))).toEqual(
      judge(parseStrictJsonByScan(text, outer as " " | " \n")),
    );
  });

  it("on 20,000 seeded texts", () => {
    const r = rng(20261130);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
    const ws = () => pick(["", "", "", " ", "\t", "\n", "  "]);
    const KEYS = ['"a"', '"b"', '"a"', '":"', '"x\\":"', '"\\u0061"', '"a\\\\"', '"__proto__"', '""'];
    const NUMS = ["0", "-0", "7", "-12", "1.0", "2.5", "1e3", "1E-2", "-0.0", "9007199254740993", "1e999", "0.1e1"];
    const STRS = ['"x"', '":"', '"1.5"', '",2e3"', '"\\":"', '"\\u00e9"', '"\\ud800"', '"a\\"b"', '"[1.0"', '"\\\\"'];
    const value = (depth: number): string => {
      const k = Math.floor(r() * (depth > 2 ? 3 : 5));
      if (k === 0) return pick(NUMS);
      if (k === 1) return pick(STRS);
      if (k === 2) return pick(["true", "false", "null"]);
      if (k === 3) {
        const n = Math.floor(r() * 4);
        return "[" + Array.from({ length: n }, () => ws() + value(depth + 1) + ws()).join(",") + "]";
      }
      const n = Math.floor(r() * 5);
      return (
        "{" +
        Array.from({ length: n }, () => ws() + pick(KEYS) + ws() + ":" + ws() + value(depth + 1) + ws()).join(",") +
        "}"
      );
    };
    const counts = { shortcut: 0, accepted: 0, rejected: 0 };
    for (let i = 0; i < 20_000; i++) {
      const outer = pick([" ", " \n"] as const);
      const text =
        pick(["", " ", "\n"]) + (r() < 0.7 ? "{" + `"k":${value(1)}` + "}" : value(0)) + pick(["", " ", "\n"]);
      const fast = judge(parseStrictJson(text, outer));
      const full = judge(parseStrictJsonByScan(text, outer));
      expect(fast, text).toEqual(full);
      if (plainParse(text, outer) !== undefined) counts.shortcut++;
      counts[fast.ok ? "accepted" : "rejected"]++;
    }
    // Both sides of every line were reached: the shortcut decided many texts, the character
    // pass many others, and many texts were rejected.
    expect(counts.shortcut).toBeGreaterThan(2000);
    expect(counts.accepted - counts.shortcut).toBeGreaterThan(2000);
    expect(counts.rejected).toBeGreaterThan(3000);
  });
});
