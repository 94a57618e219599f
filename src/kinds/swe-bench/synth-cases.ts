// The labelled cases of a synthesised SWE-bench run (synth.ts), each with its folder's files, the
// final report's lists it is in, and the state and code the kind's rules (state.ts, checks.ts,
// run-claims.ts, dataset.ts) give it; and which instance is which (a pure function of its index).

import type { KindSynthExpect, KindSynthOptions } from "../synth.js";
import {
  applyFailedLog,
  errorLog,
  evalScript,
  gradedLog,
  patchOf,
  reportJson,
  testOutput,
  timeoutLog,
  type InstanceText,
  type SynthRepo,
} from "./synth-texts.js";

export const FLASK: SynthRepo = {
  repo: "pallets/flask",
  source: "src/flask/blueprints.py",
  testFile: "tests/test_blueprints.py",
  FAIL_TO_PASS: [
    "tests/test_blueprints.py::test_dotted_name_not_allowed",
    "tests/test_blueprints.py::test_empty_name_not_allowed",
  ],
  PASS_TO_PASS: [
    "tests/test_blueprints.py::test_blueprint_specific_error_handling",
    "tests/test_blueprints.py::test_route_decorator_custom_endpoint",
  ],
};
export const REQUESTS: SynthRepo = {
  repo: "psf/requests",
  source: "requests/sessions.py",
  testFile: "tests/test_requests.py",
  FAIL_TO_PASS: [
    "tests/test_requests.py::TestRequests::test_params_are_merged_case_sensitive",
    "tests/test_requests.py::TestRequests::test_header_remove_is_case_insensitive",
  ],
  PASS_TO_PASS: [
    "tests/test_requests.py::TestRequests::test_invalid_url[MissingSchema-hiwpefhipowhefopw]",
    "tests/test_requests.py::TestRequests::test_basic_building",
  ],
};
export const DJANGO: SynthRepo = {
  repo: "django/django",
  source: "django/contrib/auth/validators.py",
  testFile: "tests/auth_tests/test_validators.py",
  FAIL_TO_PASS: [
    "test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)",
    "test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests)",
  ],
  PASS_TO_PASS: [
    "test_help_text (auth_tests.test_validators.MinimumLengthValidatorTest)",
    "test_validate (auth_tests.test_validators.MinimumLengthValidatorTest)",
  ],
};

/** The final report's lists an instance is in, beside submitted_ids (every instance is submitted). */
export type ReportList = "completed" | "resolved" | "unresolved" | "empty_patch" | "error" | "ambiguous_failure";

export interface Case {
  repo: SynthRepo;
  /** Its folder's files; null: the harness wrote none. */
  files: ((t: InstanceText) => [string, string][]) | null;
  lists: readonly ReportList[];
  /** failure_reasons' entry (infra_failure.py's reason over its logs). */
  reason?: string;
  expect: KindSynthExpect;
}

const valid = (state: string, code: string | null = null): KindSynthExpect => ({ validity: "valid", code, state });
const invalid = (state: string, code: string): KindSynthExpect => ({ validity: "invalid", code, state });

/** A graded instance's folder: its log, patch, eval script, test output, and report.json. */
const graded =
  (
    shape: "all-pass" | "one-fails" | "forged",
    verdict: (r: SynthRepo) => Parameters<typeof reportJson>[1],
    logSays: boolean,
  ) =>
  (t: InstanceText): [string, string][] => [
    ["run_instance.log", gradedLog(t, logSays)],
    ["patch.diff", patchOf(t)],
    ["eval.sh", evalScript(t)],
    ["test_output.txt", testOutput(t, shape)],
    ["report.json", reportJson(t, verdict(t.repo))],
  ];
const all = (r: SynthRepo) => ({
  resolved: true,
  F2P: [[...r.FAIL_TO_PASS], []] as [string[], string[]],
  P2P: [[...r.PASS_TO_PASS], []] as [string[], string[]],
});
/** As get_eval_report grades "one-fails": the second FAIL_TO_PASS test failed. */
const oneFailed = (r: SynthRepo) => ({
  resolved: false,
  F2P: [[r.FAIL_TO_PASS[0]], [r.FAIL_TO_PASS[1]]] as [string[], string[]],
  P2P: [[...r.PASS_TO_PASS], []] as [string[], string[]],
});

export const CASES = {
  resolved: {
    repo: FLASK,
    files: graded("all-pass", all, true),
    lists: ["completed", "resolved"],
    expect: valid("resolved"),
  },
  /** A FAIL_TO_PASS test FAILED, exit code 1. */
  unresolved: {
    repo: FLASK,
    files: graded("one-fails", oneFailed, false),
    lists: ["completed", "unresolved"],
    expect: valid("unresolved"),
  },
  /** None of the four apply commands took the patch: run_instance.log only, no tests run. */
  "patch-apply-failed": {
    repo: DJANGO,
    files: (t) => [
      ["run_instance.log", applyFailedLog(t)],
      ["patch.diff", patchOf(t)],
    ],
    lists: ["error"],
    expect: valid("patch-apply-failed"),
  },
  /** The harness's timeout line ends test_output.txt; no report.json; infra_failure.py says tests_timed_out. */
  "tests-timeout": {
    repo: REQUESTS,
    files: (t) => [
      ["run_instance.log", timeoutLog(t)],
      ["patch.diff", patchOf(t)],
      ["eval.sh", evalScript(t)],
      ["test_output.txt", testOutput(t, "timeout")],
    ],
    lists: ["error", "ambiguous_failure"],
    reason: "tests_timed_out",
    expect: valid("tests-timeout", "INFRA_SIGNATURE"),
  },
  /** A harness exception (the container stopped under an exec): no test output, no report. */
  error: {
    repo: REQUESTS,
    files: (t) => [
      ["run_instance.log", errorLog(t)],
      ["patch.diff", patchOf(t)],
    ],
    lists: ["error"],
    expect: valid("error"),
  },
  /**
   * #620: the patch prints PASSED lines and the test command exits 2; a harness before #620 graded
   * it resolved (report.json and the final report say so): unresolved, invalid, and its listing in
   * resolved_ids a RUN_CLAIM_MISMATCH.
   */
  "forged-pass": {
    repo: FLASK,
    files: graded("forged", (r) => ({ ...all(r), old: true }), true),
    lists: ["completed", "resolved"],
    expect: invalid("unresolved", "EXIT_CODE_CONTRADICTION"),
  },
  /** report.json edited after the run to say resolved; its log (and the final report) say not. */
  "report-mismatch": {
    repo: REQUESTS,
    files: graded("one-fails", all, false),
    lists: ["completed", "unresolved"],
    expect: invalid("unresolved", "REPORT_MISMATCH"),
  },
  /** An honest unresolved instance the final report lists as resolved. */
  "claim-mismatch": {
    repo: FLASK,
    files: graded("one-fails", oneFailed, false),
    lists: ["completed", "resolved"],
    expect: valid("unresolved", "RUN_CLAIM_MISMATCH"),
  },
  /** model_patch "": never run, no folder, in empty_patch_ids. */
  "empty-patch": { repo: REQUESTS, files: null, lists: ["empty_patch"], expect: valid("empty-patch") },
  /** Submitted with a patch, in error_ids, and no folder in the archive. */
  missing: { repo: FLASK, files: null, lists: ["error"], expect: valid("missing", "INSTANCE_MISSING") },
  /**
   * report.json leaves out the FAIL_TO_PASS test that failed (the dataset lists it): resolved and
   * clean over the report's own lists; with --dataset, DATASET_MISMATCH and unresolved.
   */
  "dataset-dropped": {
    repo: FLASK,
    files: graded("one-fails", (r) => ({ ...all(r), F2P: [[r.FAIL_TO_PASS[0]], []] }), true),
    lists: ["completed", "resolved"],
    expect: { ...valid("resolved"), with_dataset: invalid("unresolved", "DATASET_MISMATCH") },
  },
} satisfies Record<string, Case>;
export type SweCase = keyof typeof CASES;
export const SWE_CASES = Object.keys(CASES) as SweCase[];

export const SYNTH_MODEL = "org/model-7b";
const MODEL_FOLDER = SYNTH_MODEL.replaceAll("/", "__");
const DEFAULT_RUN = "synth-swe";

/** One planned instance: its index, id and case. */
export interface PlannedInstance {
  index: number;
  id: string;
  case: SweCase;
  text: InstanceText;
}

/** Instance ids of one width for the whole run, so their byte order (the report's sorted lists) is repo, then index. */
const firstNumber = (n: number): number => 10 ** Math.max(3, String(n - 1).length);

export function planned(o: KindSynthOptions, index: number): PlannedInstance {
  const c = SWE_CASES[index % SWE_CASES.length]!;
  const repo = CASES[c].repo;
  const id = `${repo.repo.replace("/", "__")}-${firstNumber(o.n) + index}`;
  return {
    index,
    id,
    case: c,
    text: { id, index, repo, run: o.experiment ?? DEFAULT_RUN, model: MODEL_FOLDER, seed: o.seed },
  };
}

export function* instances(o: KindSynthOptions): Generator<PlannedInstance> {
  for (let i = 0; i < o.n; i++) yield planned(o, i);
}

export const listsOf = (c: SweCase): readonly ReportList[] => CASES[c].lists;
export const reasonOf = (c: SweCase): string | undefined => (CASES[c] as Case).reason;
export const instanceDir = (p: PlannedInstance): string => `logs/run_evaluation/${p.text.run}/${p.text.model}/${p.id}`;
