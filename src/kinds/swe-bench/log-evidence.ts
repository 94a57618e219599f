// What grading.py searches the whole of test_output.txt for, read line by line: SUITE_RAN (a sign
// the test runner ran) and every `>>>>> Test Exit Code:\s*(-?\d+)`. Python's `\s` takes newlines,
// so `Tests:` / `Test Suites:` / the exit code marker at a line's end (whitespace aside) is
// finished on the next line that is not blank.

import { TEST_EXIT_CODE } from "./markers.js";
import { isBlank, PY_DIGIT, PY_WORD, PY_WS, pyInt, pyLstrip } from "./python-text.js";

const D = PY_DIGIT;
// `[1-9]\d* <word>` from any start retries every digit of a run: quadratic. It matches where a
// whole run (not after a digit) holds a 1–9 and the word follows, which is linear.
const COUNT = `(?<!${D})(?=${D}*[1-9])${D}+`;
// The alternatives of grading.py's SUITE_RAN that stay within a line (`^`, `$` under re.M are a
// line's start and end).
const SUITE_RAN_IN_LINE = new RegExp(
  [
    `Executed [1-9]${D}* of ${D}+`,
    `TOTAL: [1-9]${D}* (?:SUCCESS|FAILED)`,
    `${COUNT} passing`,
    `Tests:[${PY_WS}]+[1-9]`,
    `Test Suites:[${PY_WS}]+(?:${D}+ ${PY_WORD}+, )*[1-9]${D}* total`,
    `^# tests [1-9]`,
    `${COUNT} specs?, ${D}+ failures?`,
    `': ok$`,
  ].join("|"),
  "u",
);
const TESTS_AT_END = new RegExp(`Tests:[${PY_WS}]*$`, "u");
const SUITES_AT_END = new RegExp(`Test Suites:[${PY_WS}]*$`, "u");
const SUITES_GO_ON = new RegExp(`^(?:${D}+ ${PY_WORD}+, )*[1-9]${D}* total`, "u");

const EXIT_CODE = new RegExp(`${TEST_EXIT_CODE}:[${PY_WS}]*(-?${D}+)`, "gu");
const EXIT_CODE_AT_END = new RegExp(`${TEST_EXIT_CODE}:[${PY_WS}]*$`, "u");
const EXIT_CODE_GOES_ON = new RegExp(`^-?${D}+`, "u");

export class LogEvidence {
  suiteRan = false;
  /** Every recorded exit code, in the text's order (the harness reads the first). */
  readonly exitCodes: bigint[] = [];
  private testsOpen = false;
  private suitesOpen = false;
  private exitCodeOpen = false;

  line(text: string): void {
    if (isBlank(text)) return; // a blank line continues what a line's end left open
    const head = pyLstrip(text);
    if (this.testsOpen && /^[1-9]/.test(head)) this.suiteRan = true;
    if (this.suitesOpen && SUITES_GO_ON.test(head)) this.suiteRan = true;
    const open = this.exitCodeOpen ? EXIT_CODE_GOES_ON.exec(head) : null;
    if (open) this.exitCodes.push(pyInt(open[0]));
    if (!this.suiteRan && SUITE_RAN_IN_LINE.test(text)) this.suiteRan = true;
    for (const m of text.matchAll(EXIT_CODE)) this.exitCodes.push(pyInt(m[1] ?? "0"));
    this.testsOpen = TESTS_AT_END.test(text);
    this.suitesOpen = SUITES_AT_END.test(text);
    this.exitCodeOpen = EXIT_CODE_AT_END.test(text);
  }
}
