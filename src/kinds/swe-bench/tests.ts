// grading.py's placement of the deciding tests (get_eval_tests_report, pass_and_fail) and
// get_resolution_status: a test's key is itself or, for an id cut inside its brackets (#290), the
// first key starting with it when every such key agrees on pass vs not.

import type { StatusMap } from "./parsers.js";
import { ERROR, FAILED, PASSED, SKIPPED, XFAIL } from "./statuses.js";

export interface Lists {
  success: string[];
  failure: string[];
}
export interface DecidingTests {
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
}
export interface TestsReport {
  FAIL_TO_PASS: Lists;
  PASS_TO_PASS: Lists;
}

export interface Lookup {
  /** The status map's key the test is read from; null: none. */
  key: string | null;
  status: string | null;
  /** Found by #290's prefix rule. */
  byPrefix: boolean;
}

const passes = (status: string): boolean => status === PASSED || status === XFAIL;
const count = (s: string, ch: string): number => s.split(ch).length - 1;

export function lookup(test: string, map: StatusMap): Lookup {
  const exact = map.get(test);
  if (exact !== undefined) return { key: test, status: exact, byPrefix: false };
  if (count(test, "[") > count(test, "]")) {
    const keys = [...map.keys()].filter((k) => k.startsWith(test));
    const first = keys[0];
    if (first !== undefined && new Set(keys.map((k) => passes(map.get(k) ?? ""))).size === 1) {
      return { key: first, status: map.get(first) ?? null, byPrefix: true };
    }
  }
  return { key: null, status: null, byPrefix: false };
}

/** Where a test goes: success, failure, or neither (a status such as `XPASS` or `ERROR:`). */
export function placeOf(list: keyof DecidingTests, found: Lookup): keyof Lists | null {
  const s = found.status;
  if (s !== null && passes(s)) return "success";
  // A skipped FAIL_TO_PASS test is no resolution (#598); a skipped PASS_TO_PASS test no regression.
  if (list === "PASS_TO_PASS" && s === SKIPPED) return "success";
  if (s === null || s === FAILED || s === ERROR || s === SKIPPED) return "failure";
  return null;
}

export function placeTests(map: StatusMap, deciding: DecidingTests): TestsReport {
  const place = (list: keyof DecidingTests): Lists => {
    const out: Lists = { success: [], failure: [] };
    for (const test of deciding[list]) {
      const where = placeOf(list, lookup(test, map));
      if (where) out[where].push(test);
    }
    return out;
  };
  return { FAIL_TO_PASS: place("FAIL_TO_PASS"), PASS_TO_PASS: place("PASS_TO_PASS") };
}

/** RESOLVED_FULL: both ratios 1, an empty list's 0/0 counting as 1. */
export const isResolved = (tests: TestsReport): boolean =>
  tests.FAIL_TO_PASS.failure.length === 0 && tests.PASS_TO_PASS.failure.length === 0;
