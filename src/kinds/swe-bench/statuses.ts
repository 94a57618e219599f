// The harness's TestStatus values (constants/__init__.py) and the skip-summary guard its pytest
// parsers share (#598).

export const PASSED = "PASSED";
export const FAILED = "FAILED";
export const SKIPPED = "SKIPPED";
export const ERROR = "ERROR";
export const XFAIL = "XFAIL";
export const STATUSES = [FAILED, PASSED, SKIPPED, ERROR, XFAIL] as const;

export const startsWithStatus = (line: string): boolean => STATUSES.some((s) => line.startsWith(s));
export const endsWithStatus = (line: string): boolean => STATUSES.some((s) => line.endsWith(s));

const SKIP_SUMMARY_COUNT = /^\[\p{Nd}+\]$/u;
/** pytest's `SKIPPED [N] path:line: reason` summary, where `[N]` is a count, not a test. */
export const isSkipSummary = (status: string, name: string): boolean =>
  status === SKIPPED && SKIP_SUMMARY_COUNT.test(name);

/** Python raised while parsing (django's `FAIL:`/`ERROR:` line of one word: IndexError). */
export class ParserCrash extends Error {}
