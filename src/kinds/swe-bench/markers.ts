// The harness's markers (constants/__init__.py at 7a21e05): what the eval script and run_evaluation
// write into test_output.txt and run_instance.log.

export const START_TEST_OUTPUT = ">>>>> Start Test Output";
export const END_TEST_OUTPUT = ">>>>> End Test Output";
export const TEST_EXIT_CODE = ">>>>> Test Exit Code";
export const APPLY_PATCH_FAIL = ">>>>> Patch Apply Failed";
/** Markers of a run that gave no results, in the order get_logs_eval names them. */
export const NOT_RUN_MARKERS = [
  APPLY_PATCH_FAIL,
  ">>>>> Reset Failed",
  ">>>>> Tests Errored",
  ">>>>> Tests Timed Out",
] as const;
