// The hard checks of §14 on an instance that need only its report.json and the re-derivation from
// test_output.txt, and the warning EXIT_CODE_UNRECORDED. Plain findings: the lead's registry maps
// the codes (all `invalid` but EXIT_CODE_UNRECORDED, a warning).

import type { LogEvaluation, Rederivation } from "./grade.js";
import type { InstanceReport } from "./instance-report.js";
import { mismatchFindings } from "./mismatch.js";

export interface Finding {
  code: string;
  message: string;
}
export const WARNING_CODES: ReadonlySet<string> = new Set(["EXIT_CODE_UNRECORDED"]);

export interface InstanceEvidence {
  /** report.json's entry when readable. */
  report: InstanceReport | null;
  testOutputPresent: boolean;
  /** The scan of test_output.txt (null: not read). */
  evaluation: LogEvaluation | null;
  /** The re-derivation (null: unsupported repo, log not read, or no report). */
  rederivation: Rederivation | null;
}

export function instanceFindings(e: InstanceEvidence): Finding[] {
  const out: Finding[] = [];
  if (e.report) out.push(...inconsistencies(e.report));
  if (e.report && !e.testOutputPresent) {
    out.push({
      code: "TEST_OUTPUT_MISSING",
      message: "report.json without test_output.txt, which the harness writes before it: the verdict has no evidence",
    });
  }
  if (e.report && e.evaluation && e.rederivation) out.push(...mismatchFindings(e.report, e.evaluation, e.rederivation));
  if (e.evaluation) out.push(...exitCodeFindings(e.evaluation));
  return out;
}

/** REPORT_INCONSISTENT: a report the harness's own rules could not have written. */
export function inconsistencies(r: InstanceReport): Finding[] {
  const why: string[] = [];
  if (r.resolved) {
    const t = r.tests_status;
    if (!t) why.push("resolved without tests_status");
    else if (t.FAIL_TO_PASS.failure.length + t.PASS_TO_PASS.failure.length > 0)
      why.push("resolved with a failure in its own tests_status");
    if (r.patch_successfully_applied === false) why.push("resolved with patch_successfully_applied false");
  }
  if (r.patch_exists !== undefined && r.patch_is_None !== undefined && r.patch_exists === r.patch_is_None) {
    why.push(`patch_exists ${r.patch_exists} beside patch_is_None ${r.patch_is_None}`);
  }
  return why.map((w) => ({ code: "REPORT_INCONSISTENT", message: `report.json: ${w}` }));
}

export function exitCodeFindings(ev: LogEvaluation): Finding[] {
  const out: Finding[] = [];
  if (ev.not_run === "exit-code") {
    out.push({
      code: "EXIT_CODE_CONTRADICTION",
      message: `test_output.txt shows results and no failure, but the test command's recorded exit code is ${ev.exit_code}: the log claims passes the run did not have (#620)`,
    });
  }
  if (ev.exit_codes.length > 1) {
    out.push({
      code: "EXIT_CODE_CONFLICT",
      message: `test_output.txt records the exit codes ${ev.exit_codes.join(", ")}: the harness reads the first, which a test run can print ahead of the real one (#608)`,
    });
  }
  if (ev.found && ev.exit_code === null) {
    out.push({
      code: "EXIT_CODE_UNRECORDED",
      message:
        "results found but no recorded test exit code (a harness before #620): the check against forged passes could not run",
    });
  }
  return out;
}
