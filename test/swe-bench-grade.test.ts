// Re-deriving an instance from test_output.txt (swe-bench/grade.ts, tests.ts, read.ts): against what
// the harness's get_logs_eval / get_eval_tests_report give (fixtures/swe-bench/harness-cases.json),
// and a case on each side of each of §14's steps 1–6.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratch } from "./helpers/shared.js";
import { rederive, TestOutputScan, type LogEvaluation } from "../src/kinds/swe-bench/grade.js";
import { ParserCrash, parseText } from "../src/kinds/swe-bench/parsers.js";
import { readLogLines } from "../src/kinds/swe-bench/read.js";
import type { ParserName } from "../src/kinds/swe-bench/repo.js";
import { isResolved, lookup, placeTests } from "../src/kinds/swe-bench/tests.js";
import { CHUNKINGS, harnessCases, linesInChunks } from "./swe-bench-cases.js";

const S = ">>>>> Start Test Output";
const E = ">>>>> End Test Output";

function scan(text: string, parser: ParserName | null = "pytest", size = Infinity): LogEvaluation {
  const s = new TestOutputScan(parser);
  for (const l of linesInChunks(text, size)) s.line(l);
  return s.finish();
}

describe("the scan finds what the harness's get_logs_eval finds", () => {
  for (const c of harnessCases.grading) {
    it(`${c.parser}: ${c.name}`, () => {
      for (const size of CHUNKINGS) {
        const ev = scan(c.text, c.parser, size);
        if ("crash" in c.expected) expect(ev.not_run, `chunks of ${size}`).toBe("parser-error");
        else expect({ found: ev.found, map: [...ev.statuses] }, `chunks of ${size}`).toEqual(c.expected);
      }
    });
  }
});

describe("random texts: the parser's map and the scan's results are the harness's", () => {
  it(`${harnessCases.random.length} texts, in chunks of every size`, () => {
    harnessCases.random.forEach((c, i) => {
      for (const size of CHUNKINGS) {
        const lines = linesInChunks(c.text, size);
        const what = `case ${i} (${c.parser}), chunks of ${size}`;
        if ("crash" in c.expected) expect(() => parseText(c.parser, lines), what).toThrow(ParserCrash);
        else expect([...parseText(c.parser, lines)], what).toEqual(c.expected.map);
        const ev = scan(c.text, c.parser, size);
        if ("crash" in c.grading) expect(ev.not_run, what).toBe("parser-error");
        else expect({ found: ev.found, map: [...ev.statuses] }, what).toEqual(c.grading);
      }
    });
  });
});

describe("the tests are placed as the harness's get_eval_tests_report places them", () => {
  for (const c of harnessCases.reports) {
    it(c.name, () => {
      const tests = placeTests(new Map(c.map), { FAIL_TO_PASS: c.FAIL_TO_PASS, PASS_TO_PASS: c.PASS_TO_PASS });
      expect({ ...tests, resolved: isResolved(tests) }).toEqual(c.expected);
    });
  }
  it("a prefix lookup says so (#290); an exact one does not", () => {
    const map = new Map([
      ["t[a-1]", "PASSED"],
      ["u[x]", "FAILED"],
    ]);
    expect(lookup("t[a", map)).toEqual({ key: "t[a-1]", status: "PASSED", byPrefix: true });
    expect(lookup("u[x]", map)).toEqual({ key: "u[x]", status: "FAILED", byPrefix: false });
    expect(
      lookup(
        "u[",
        new Map([
          ["u[x]", "PASSED"],
          ["u[y]", "FAILED"],
        ]),
      ),
    ).toEqual({ key: null, status: null, byPrefix: false });
  });
});

describe("why no results were found (not_run)", () => {
  const ok = `${S}\nPASSED a\n${E}\n`;
  it("step 1: a marker of a run that gave none, the harness's first named", () => {
    expect(scan(`${ok}>>>>> Tests Timed Out\n>>>>> Reset Failed\n`).not_run).toBe("marker:>>>>> Reset Failed");
    expect(scan(`${ok}>>>>> Patch Apply Failed`).not_run).toBe("marker:>>>>> Patch Apply Failed");
    expect(scan(ok).not_run).toBe(null);
  });
  it("step 2: a missing start or end marker", () => {
    expect(scan(`${S}\nPASSED a\n`).not_run).toBe("no-markers");
    expect(scan(`PASSED a\n${E}\n`).not_run).toBe("no-markers");
  });
  it("step 3: the whole text only when the region parses to nothing (#402)", () => {
    expect(scan(`PASSED out\n${S}\nPASSED in\n${E}\n`)).toMatchObject({
      found: true,
      outsideRegion: false,
      statuses: new Map([["in", "PASSED"]]),
    });
    expect(scan(`PASSED out\n${S}\n${E}\n`)).toMatchObject({
      found: true,
      outsideRegion: true,
      statuses: new Map([["out", "PASSED"]]),
    });
  });
  it("step 4: nothing parsed and no sign the suite ran", () => {
    expect(scan(`${S}\nnothing\n${E}\n`).not_run).toBe("no-results");
    expect(scan(`${S}\n5 passing\n${E}\n`)).toMatchObject({ found: true, not_run: null });
  });
  it("step 5: results, no failure, a non-zero recorded exit code (#620)", () => {
    expect(scan(`${ok}>>>>> Test Exit Code: 1\n`).not_run).toBe("exit-code");
    expect(scan(`${ok}>>>>> Test Exit Code: 0\n`).not_run).toBe(null);
    expect(scan(`${S}\nFAILED a\n${E}\n>>>>> Test Exit Code: 1\n`).not_run).toBe(null);
    // An empty map backed by SUITE_RAN is not a claim of passes.
    expect(scan(`${S}\n5 passing\n${E}\n>>>>> Test Exit Code: 1\n`).not_run).toBe(null);
  });
  it("the harness's parser raising on the text it grades", () => {
    expect(scan(`${S}\nFAIL:\n${E}\n`, "django")).toMatchObject({
      found: false,
      not_run: "parser-error",
      crash: expect.stringMatching(/IndexError/),
    });
  });
  it("an unsupported repo's scan grades nothing", () => {
    expect(scan(`${ok}>>>>> Test Exit Code: 3\n`, null)).toMatchObject({ found: false, not_run: null, exit_code: 3 });
  });
});

describe("recorded exit codes", () => {
  const ok = `${S}\nPASSED a\n${E}\n`;
  it("the first is read; every distinct value is kept in order", () => {
    const ev = scan(
      `${S}\nFAILED a\n>>>>> Test Exit Code: 0\n${E}\n+ echo '>>>>> Test Exit Code: 1'\n>>>>> Test Exit Code: 1\n`,
    );
    expect([ev.exit_code, ev.exit_codes]).toEqual([0, [0, 1]]);
  });
  it("the set -x trace repeats the real value: one value", () => {
    const ev = scan(`${S}\nFAILED a\n${E}\n+ echo '>>>>> Test Exit Code: 1'\n>>>>> Test Exit Code: 1\n`);
    expect([ev.exit_code, ev.exit_codes]).toEqual([1, [1]]);
  });
  it("Python's \\s* reaches the next line that is not blank; other text stops it", () => {
    expect(scan(`${ok}>>>>> Test Exit Code: \n \n 2\n`).exit_codes).toEqual([2]);
    expect(scan(`${ok}>>>>> Test Exit Code:\nx 2\n`).exit_code).toBe(null);
  });
  it("none recorded", () => expect(scan(ok)).toMatchObject({ exit_code: null, exit_codes: [] }));
});

describe("the timeout line the harness appends", () => {
  it("ends the text, trailing whitespace aside", () => {
    expect(scan(`${S}\nx\n\nTimeout error: 1800 seconds exceeded.\n \n`).timeoutLine).toBe(
      "Timeout error: 1800 seconds exceeded.",
    );
  });
  it("followed by other text, it is not the end", () => {
    expect(scan(`Timeout error: 1800 seconds exceeded.\n${S}\n`).timeoutLine).toBe(null);
    expect(scan(`Timeout error: 1800 seconds exceeded. more`).timeoutLine).toBe(null);
  });
});

describe("step 6: the deciding tests and the verdict", () => {
  const deciding = { FAIL_TO_PASS: ["f1", "f2"], PASS_TO_PASS: ["p1"] };
  it("results: placed, resolved when both failure lists are empty", () => {
    const red = rederive(scan(`${S}\nPASSED f1\nXFAIL f2\nSKIPPED p1\n${E}\n>>>>> Test Exit Code: 0\n`), deciding);
    expect(red).toMatchObject({ found: true, resolved: true, exit_code: 0 });
    expect(red.tests.PASS_TO_PASS).toEqual({ success: ["p1"], failure: [] });
  });
  it("a skipped FAIL_TO_PASS test is a failure (#598): not resolved", () => {
    const red = rederive(scan(`${S}\nPASSED f1\nSKIPPED f2\nPASSED p1\n${E}\n`), deciding);
    expect(red).toMatchObject({
      found: true,
      resolved: false,
      tests: { FAIL_TO_PASS: { success: ["f1"], failure: ["f2"] } },
    });
  });
  it("no results: nothing placed, not resolved", () => {
    const red = rederive(scan(`${S}\nPASSED f1\n${E}\n>>>>> Tests Errored`), deciding);
    expect(red).toMatchObject({ found: false, resolved: false, not_run: "marker:>>>>> Tests Errored" });
    expect(red.tests).toEqual({
      FAIL_TO_PASS: { success: [], failure: [] },
      PASS_TO_PASS: { success: [], failure: [] },
    });
  });
});

describe("the log reader", () => {
  const { dir } = scratch("assay-swe-read-");
  const read = async (bytes: Buffer, chunk: number, max?: number) => {
    const file = join(dir, `f${chunk}`);
    writeFileSync(file, bytes);
    const lines: string[] = [];
    const r = await readLogLines(file, (l) => lines.push(l), max, chunk);
    return { r, lines };
  };
  it("decodes UTF-8 across chunk ends, invalid bytes as U+FFFD, keeps a BOM, reads \\r\\n cut by a chunk as one newline", async () => {
    const bytes = Buffer.concat([
      Buffer.from("\ufeffé€😀\r\n", "utf8"),
      Buffer.from([0xff, 0x41, 0xe2, 0x82]),
      Buffer.from("\r\rz", "utf8"),
    ]);
    for (const chunk of [1, 2, 3, 5, 1024]) {
      const { r, lines } = await read(bytes, chunk);
      expect(r).toEqual({ read: "ok", bytes: bytes.length });
      expect(lines).toEqual(["\ufeffé€😀", "\ufffdA\ufffd", "", "z"]);
    }
  });
  it("does not read a log over the limit; at the limit it does", async () => {
    expect((await read(Buffer.from("abcd"), 2, 3)).r).toEqual({ read: "too-large", bytes: 4 });
    expect((await read(Buffer.from("abc"), 2, 3)).r).toEqual({ read: "ok", bytes: 3 });
  });
  it("an absent file, a folder", async () => {
    expect(await readLogLines(join(dir, "none"), () => {})).toEqual({ read: "absent" });
    expect(await readLogLines(dir, () => {})).toMatchObject({ read: "unreadable" });
  });
});
