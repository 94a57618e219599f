// An instance folder's state (§14 "States"), decided in this order: patch-apply-failed,
// tests-timeout, then with a readable report.json unverified or the re-derived state, else error,
// incomplete. `empty-patch`, `missing` and `not-submitted` have no folder: the run decides them.

import type { LogEvaluation, Rederivation } from "./grade.js";
import type { InstanceReport } from "./instance-report.js";
import type { RunLogFacts } from "./run-log.js";

export type FolderState =
  | "resolved"
  | "unresolved"
  | "tests-not-run"
  | "patch-apply-failed"
  | "tests-timeout"
  | "error"
  | "incomplete"
  | "unverified";

export interface StateEvidence {
  /** report.json's entry when readable. */
  report: InstanceReport | null;
  /** test_output.txt: read, absent, or there but not read (over 64 MiB, or an I/O error). */
  testOutput: "absent" | "too-large" | "unreadable" | "read";
  /** The scan of test_output.txt when read. */
  evaluation: LogEvaluation | null;
  /** The re-derivation, for a supported repo with a readable report and a read log. */
  rederivation: Rederivation | null;
  /** The repo has one of the seven parsers. */
  supported: boolean;
  /** run_instance.log's facts (null: absent or not read). */
  runLog: RunLogFacts | null;
  /** run_instance.log is there but was not read (over 64 MiB, or an I/O error): what it would say is unknown. */
  runLogUnread?: boolean;
}

export interface StateDecision {
  state: FolderState;
  /** For error, tests-timeout and patch-apply-failed: the harness's line, first 200 characters. */
  exception: { type: string; message: string } | null;
  /** The verdict comes from report.json alone (unverified, or TEST_OUTPUT_MISSING): never credited. */
  reportOnly: boolean;
}

const clip = (line: string): string => [...line].slice(0, 200).join("");
const decided = (
  state: FolderState,
  exception: StateDecision["exception"] = null,
  reportOnly = false,
): StateDecision => ({ state, exception, reportOnly });

export function decideState(e: StateEvidence): StateDecision {
  const applyFailed = e.runLog?.patchApplyFailed;
  // The patch is logged ("Git diff before") once applied, so the marker counts only where no test ran.
  if (applyFailed && e.testOutput === "absent")
    return decided("patch-apply-failed", { type: "PatchApplyFailed", message: clip(applyFailed) });
  const timeout = e.evaluation?.timeoutLine;
  if (timeout) return decided("tests-timeout", { type: "TestsTimeout", message: clip(timeout) });
  // §14: a log over 64 MiB makes the instance unverified, run_instance.log as test_output.txt (its
  // patch-apply and exception lines decide states): never credited, never a guessed error.
  if (e.runLogUnread) return decided("unverified", null, e.report !== null);
  if (e.report) return reportState(e, e.report);
  const line = e.runLog?.exceptionMessage ?? e.runLog?.exceptionLine;
  if (line) return decided("error", { type: e.runLog?.exceptionType ?? "error", message: clip(line) });
  return decided("incomplete");
}

function reportState(e: StateEvidence, report: InstanceReport): StateDecision {
  if (!e.supported || e.testOutput === "too-large" || e.testOutput === "unreadable")
    return decided("unverified", null, true);
  if (e.testOutput === "absent" || !e.rederivation)
    return decided(report.resolved ? "resolved" : "unresolved", null, true);
  const r = e.rederivation;
  if (r.found) {
    // Without tests_status the deciding tests are unknown: nothing is credited.
    return decided(r.resolved && report.tests_status ? "resolved" : "unresolved");
  }
  // Step 5's case ran its tests, which exited non-zero; the others found no results.
  return decided(r.not_run === "exit-code" ? "unresolved" : "tests-not-run");
}
