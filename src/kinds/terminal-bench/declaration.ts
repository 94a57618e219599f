// Terminal-Bench runs (`tb run` output; docs/terminal-bench.md). What both threads and the results
// schema need to know of the kind: data only (its entry's schema is entry.ts, itself data).
import { terminalBenchRunSchema, terminalBenchSchema } from "./entry.js";

export const terminalBenchDeclaration = {
  name: "terminal-bench",
  form: "folder",
  profiles: ["terminal-bench"],
  /**
   * One state per trial, none collapsed into a silent 0: the two verdicts, a verdict TB reached
   * under a failure mode, the three ways TB records no verdict, and a folder without a readable
   * results.json (as a Harbor trial's).
   */
  states: [
    "resolved",
    "unresolved",
    "resolved-with-failure-mode",
    "test-timeout",
    "parse-error",
    "harness-error",
    "incomplete",
  ],
  /** Its entries' rewards (`resolved`) are per-task units (`assay compare` pairs them by task): the states with a verdict. */
  scored: ["resolved", "unresolved", "resolved-with-failure-mode"],
  /** Its codes: TB's rules are not the contract's. */
  codes: {
    RESOLVED_MISMATCH:
      "TB: a trial's is_resolved is not what TB's rule gives over its parser_results (true: every test passed; false: one failed; null: none parsed)",
    NO_TESTS_PARSED:
      "TB: a trial resolved with parser_results {}: no test line was parsed, and TB's all([]) counted it passed",
    PANE_MISMATCH: "TB: a trial's parser_results differ from panes/post-test.txt re-parsed as TB's parser parses it",
    TRIAL_RUN_MISMATCH:
      "TB: a trial's results.json differs from the run results.json entry of the same trial_name, field for field",
    TRIAL_UNLISTED:
      "TB: a trial folder holds results.json but the run's results.json does not list it (TB rebuilds that list from the trial files)",
    TRIAL_MISSING:
      "TB warning: a trial the run lists has no trial folder, and its entry is not the harness-exception shape TB writes no file for",
    RUN_METADATA_MISMATCH: "TB warning: run_metadata.json's accuracy or pass_at_k differ from results.json's",
    RUN_NOT_FINAL:
      "TB warning: the run is in progress, was killed, or was finished by a resume (end_time null, or fewer trials than planned): its figures are not final",
    RUN_PLAN_EXCEEDED: "TB warning: the run lists more trials than its plan (tasks × n_attempts)",
    RUN_FILE_UNREADABLE:
      "TB warning: a run-level file (results.json, run_metadata.json, tb.lock) is malformed or too large: what it says is unknown",
    TRIAL_NAME_MISMATCH:
      "TB warning: a trial name is not <task>.<k>-of-<n>.<run_id> with its task folder, n_attempts and run_id, or attempts are not 1..k",
    PANE_NOT_REDERIVED:
      "TB warning: panes/post-test.txt absent, too large, not UTF-8, or in no known parser's format: parser_results are not checked against it",
    PANE_PARTIAL_SUMMARY:
      "TB warning: a test-timeout trial's pane holds test results TB never parsed (it stops at the timeout)",
    SKIPPED_AS_PASSED:
      "TB review flag: a resolved trial whose tests include SKIPPED or XFAIL lines, which TB counts as passed",
    DUPLICATE_TEST_NAME: "TB review flag: a test name appears twice in the pane's summary; TB keeps the last status",
    RESOLVED_WITH_FAILURE_MODE:
      "TB review flag: a resolved trial with a failure mode (an agent timeout, an agent error): TB counts it resolved",
    // issue 35: terminal-bench
    HARNESS_ERROR_CONTRADICTED:
      "TB: a trial TB's harness raised on (its unknown_agent_error entry, or no trial results.json) whose panes/post-test.txt holds test results: the tests ran, so the pane decides its verdict",
    TRIAL_UNCHECKED:
      "TB: nothing checks the trial's verdict (the run's results list cannot be read and its pane does not re-derive it, or its results.json is cut short or a link while the run lists it): it earns no credit (counted 0)",
    TRIAL_FOLDER_UNNAMED:
      "TB warning: a folder in the task folder of a listed trial that has no folder of its name, itself not named as a trial (renamed?): not scored, named so the missing trial can be looked for",
    PANE_UNREADABLE:
      "TB: a resolved trial whose panes/post-test.txt is there but cannot be re-parsed (over 16 MiB, not UTF-8, not a regular file): TB writes none such, so the claim it would check earns no credit",
    PANE_FAILED_NO_VERDICT:
      "TB warning: a trial without a verdict (test timeout, parse error, an unreadable results.json) whose pane holds pytest's complete summary with a failed test: it counts unresolved",
  },
  /** What its entries carry beyond the shared fields: one optional object, under this name (results schema). */
  entry: { field: "terminal_bench", schema: terminalBenchSchema },
  /** Its container records, kept in `run.containers["terminal-bench"]` (a merge recomputes its batch rules from them); `finding` is the results schema's. */
  containers: terminalBenchRunSchema,
  /** Trials carry no seal: a seal.json in a trial folder is an ordinary file. */
  seal: null,
  /** Why `assay seal` passes it over. */
  unsealed: "Terminal-Bench trials carry no seal",
} as const;
