// Re-deriving an instance from test_output.txt (contract §14 steps 1–6; grading.py get_logs_eval,
// get_eval_tests_report, get_resolution_status at 7a21e05). One pass over the text's lines feeds a
// parser of the region and one of the whole text (#402's fallback), the marker and exit-code
// searches; `finish` then decides in the harness's order.

import { LogEvidence } from "./log-evidence.js";
import { crashSafe, newParser, ParserCrash, type LogParser, type StatusMap } from "./parsers.js";
import { pyRstrip } from "./python-text.js";
import { END_TEST_OUTPUT, NOT_RUN_MARKERS, START_TEST_OUTPUT } from "./markers.js";
import { RegionLines } from "./region.js";
import type { ParserName } from "./repo.js";
import { ERROR, FAILED } from "./statuses.js";
import { isResolved, placeTests, type DecidingTests, type TestsReport } from "./tests.js";

/** Why no results were found; `parser-error`: the harness's parser raised on this text. */
export type NotRun = `marker:${string}` | "no-markers" | "no-results" | "exit-code" | "parser-error";

export interface LogEvaluation {
  found: boolean;
  not_run: NotRun | null;
  /** The status map graded (empty unless found). */
  statuses: StatusMap;
  /** Found only in the whole text, the region parsing to nothing (#402). */
  outsideRegion: boolean;
  /** The first recorded exit code (what the harness reads), and every distinct one in order. */
  exit_code: number | null;
  exit_codes: number[];
  /** The parser's exception when not_run is `parser-error`. */
  crash: string | null;
  /** The text's last line that is not blank ends with the harness's timeout line: that line. */
  timeoutLine: string | null;
}

const TIMEOUT_LINE = /Timeout error: -?\p{Nd}+ seconds exceeded\.$/u;

export class TestOutputScan {
  private readonly region: LogParser | null;
  private readonly whole: LogParser | null;
  private readonly regionLines: RegionLines;
  private readonly evidence = new LogEvidence();
  private readonly markers = new Set<string>();
  private lastFilled = "";

  /** `parser` null (an unsupported repo): the markers, exit codes and timeout line only. */
  constructor(parser: ParserName | null) {
    this.region = parser === null ? null : crashSafe(newParser(parser));
    this.whole = parser === null ? null : crashSafe(newParser(parser));
    this.regionLines = new RegionLines((l) => this.region?.line(l));
  }

  line(text: string): void {
    for (const m of [...NOT_RUN_MARKERS, START_TEST_OUTPUT, END_TEST_OUTPUT]) if (text.includes(m)) this.markers.add(m);
    this.regionLines.line(text);
    this.whole?.line(text);
    this.evidence.line(text);
    const filled = pyRstrip(text);
    if (filled !== "") this.lastFilled = filled;
  }

  finish(): LogEvaluation {
    const codes = this.evidence.exitCodes;
    const base = {
      exit_code: codes[0] === undefined ? null : Number(codes[0]),
      exit_codes: [...new Set(codes)].map(Number),
      timeoutLine: TIMEOUT_LINE.test(this.lastFilled) ? this.lastFilled : null,
    };
    const none = (not_run: NotRun, crash: string | null = null): LogEvaluation => ({
      ...base,
      found: false,
      not_run,
      statuses: new Map(),
      outsideRegion: false,
      crash,
    });
    // An unsupported repo: nothing is graded, so nothing is said about why.
    if (this.region === null || this.whole === null) return { ...none("no-results"), not_run: null };
    const marker = NOT_RUN_MARKERS.find((m) => this.markers.has(m));
    if (marker) return none(`marker:${marker}`);
    if (!this.markers.has(START_TEST_OUTPUT) || !this.markers.has(END_TEST_OUTPUT)) return none("no-markers");
    let statuses: StatusMap;
    let outsideRegion = false;
    try {
      statuses = this.region.end();
      if (statuses.size === 0) {
        statuses = this.whole.end();
        outsideRegion = statuses.size > 0;
      }
    } catch (e) {
      if (e instanceof ParserCrash) return none("parser-error", e.message);
      throw e;
    }
    if (statuses.size === 0 && !this.evidence.suiteRan) return none("no-results");
    const claimsNoFailure = ![...statuses.values()].some((s) => s === FAILED || s === ERROR);
    // A log that shows no failure from a test command that exited non-zero is not its log (#620).
    if (base.exit_code !== null && codes[0] !== 0n && statuses.size > 0 && claimsNoFailure) return none("exit-code");
    return { ...base, found: true, not_run: null, statuses, outsideRegion, crash: null };
  }
}

export interface Rederivation {
  found: boolean;
  not_run: NotRun | null;
  exit_code: number | null;
  exit_codes: number[];
  /** The deciding tests placed; empty lists when not found. */
  tests: TestsReport;
  resolved: boolean;
}

/** Step 6: the deciding tests placed by the evaluation's map, and the verdict. */
export function rederive(evaluation: LogEvaluation, deciding: DecidingTests): Rederivation {
  const tests = evaluation.found
    ? placeTests(evaluation.statuses, deciding)
    : placeTests(new Map(), { FAIL_TO_PASS: [], PASS_TO_PASS: [] });
  const { found, not_run, exit_code, exit_codes } = evaluation;
  return { found, not_run, exit_code, exit_codes, tests, resolved: found && isResolved(tests) };
}
