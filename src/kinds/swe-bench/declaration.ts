// SWE-bench harness runs (`run_evaluation` output read in place; contract §14). What both threads
// and the results schema need to know of the kind: data only (its schemas are entry.ts, data too).
import { sweBenchExperimentSchema, sweBenchRunSchema, sweBenchSchema } from "./entry.js";

export const sweBenchDeclaration = {
  name: "swe-bench",
  form: "folder",
  profiles: ["swe-bench"],
  /** One state per instance folder, none collapsed into a silent 0 (§14 "States"); empty-patch, missing and not-submitted have no folder: only the experiment counts them. */
  states: [
    "resolved",
    "unresolved",
    "tests-not-run",
    "patch-apply-failed",
    "tests-timeout",
    "error",
    "incomplete",
    "unverified",
  ],
  /** The states with a verdict, scored per instance. */
  scored: ["resolved", "unresolved", "tests-not-run", "patch-apply-failed"],
  codes: {
    REPORT_MISMATCH:
      "§14: report.json's resolved, patch_successfully_applied or a test's place in tests_status is not what test_output.txt re-derives",
    REPORT_INCONSISTENT:
      "§14: report.json its harness could not have written (resolved with a failure, not applied, or no tests_status; patch_exists equal to patch_is_None)",
    EXIT_CODE_CONTRADICTION:
      "§14: test_output.txt shows results and no failure, but a non-zero recorded test exit code (passes the run did not have, #620)",
    EXIT_CODE_CONFLICT:
      "§14: test_output.txt records different test exit codes; the harness reads the first, which a test run can forge (#608)",
    TEST_OUTPUT_MISSING:
      "§14: report.json without test_output.txt, which the harness writes first: the verdict has no evidence",
    PATCH_MISMATCH: "§14: patch.diff is not the predictions' model_patch for the instance",
    DATASET_MISMATCH:
      "§14 with --dataset (issue 38): report.json's tests_status drops, adds or moves a FAIL_TO_PASS or PASS_TO_PASS test of the dataset's, or the dataset lacks the instance",
    EXIT_CODE_UNRECORDED:
      "§14 warning: results found but no recorded test exit code (a harness before #620): the forged-pass check could not run",
    REPORT_UNREADABLE:
      "§14 warning: report.json empty, cut short, or without the folder's id and its resolved: the harness's own error; the state follows the other files",
    LOG_TOO_LARGE: "§14 warning: test_output.txt or run_instance.log over 64 MiB: not read, the instance unverified",
    RUN_REPORT_ABSENT:
      "§14 warning: no final report <model>.<run_id>.json found (killed before its end, or not archived): the run's claims are unknown",
    RUN_REPORT_UNREADABLE:
      "§14 warning: the final report is malformed or lacks total_instances and resolved_ids: no claims",
    RUN_FILES_UNREAD:
      "§14 warning: only instance folders of the model folder were given as roots: the final report, predictions and run.json are not read, so the run's claims are unchecked (give the model folder to check them)",
    PREDICTIONS_UNREADABLE:
      "§14 warning: a predictions file beside the final report or in the run folder that the harness could not load: not used",
    INFRA_SIGNATURE:
      "§14 review flag: an instance without a resolved verdict whose logs match infra_failure.py's signatures (advisory, never a verdict)",
    RUN_COUNT_MISMATCH:
      "§14 flag: the final report's <x>_instances is not the length of <x>_ids, or total_instances not its partition's size",
    RUN_LIST_DUPLICATE:
      "§14 flag: an id twice in one of the final report's lists, or in two lists the harness keeps apart",
    INSTANCE_MISSING: "§14 flag: an instance the final report lists as submitted and not empty-patch has no folder",
    INSTANCE_UNLISTED:
      "§14 flag: an instance folder none of the final report's lists names (a later --instance_ids run rewrote it): counted by its evidence",
  },
  /** What its entries carry beyond the shared fields: one optional object, under this name (results schema). */
  entry: { field: "swe_bench", schema: sweBenchSchema },
  /** What its experiments carry beyond the shared fields. */
  experiment: { field: "swe_bench", schema: sweBenchExperimentSchema },
  /** Its model folders' run files, kept in `run.containers["swe-bench"]` (a merge recomputes its batch rules from them). */
  containers: sweBenchRunSchema,
  /** Instance folders carry no seal. */
  seal: null,
  unsealed: "SWE-bench instance folders carry no seal",
} as const;
