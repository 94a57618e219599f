// The files of one synthesised instance folder, in the shapes run_evaluation.py writes at 7a21e05
// (copied from test/fixtures/swe-bench/: run_instance.log's logger lines, eval.sh, test_output.txt
// with its `set -x` traces, markers and `>>>>> Test Exit Code:`, report.json as get_eval_report
// dumps it). Seeded: container ids, commits, runtimes and the patch come from the seed.

import { createHash } from "node:crypto";

/** A repo of the corpus: the file its patches touch, its test file, and its deciding tests. */
export interface SynthRepo {
  repo: string;
  source: string;
  testFile: string;
  FAIL_TO_PASS: readonly [string, string];
  PASS_TO_PASS: readonly [string, string];
}

/** What one instance's test run printed: each deciding test's status, or a forged run, or a timeout. */
export type RunShape = "all-pass" | "one-fails" | "forged" | "timeout";

export interface InstanceText {
  id: string;
  /** Its index in the run: timestamps follow it. */
  index: number;
  repo: SynthRepo;
  run: string;
  model: string;
  seed: string;
}

/** Hex derived from the seed and a label: stateless, so any instance's bytes are made alone. */
export const seeded = (seed: string, label: string, chars = 12): string =>
  createHash("sha256").update(`${seed}\0${label}`).digest("hex").slice(0, chars);

const HEADER_WIDTH = 80;
/** pytest's `==== title ====` line, 80 wide. */
const rule = (title: string, fill = "="): string => {
  const side = Math.max(1, Math.floor((HEADER_WIDTH - title.length - 2) / 2));
  const line = `${fill.repeat(side)} ${title} ${fill.repeat(side)}`;
  return line.length < HEADER_WIDTH ? line + fill : line;
};

/** The logger's `%(asctime)s`: the instance's minute, plus `s` seconds. */
function stamp(t: InstanceText, s: number): string {
  const d = new Date(Date.UTC(2026, 7, 20, 10, 0, 0) + t.index * 60_000 + Math.round(s * 1000));
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)},${iso.slice(20, 23)}`;
}
const logLine = (t: InstanceText, s: number, text: string, level = "INFO") => `${stamp(t, s)} - ${level} - ${text}`;
const folderOf = (t: InstanceText) => `logs/run_evaluation/${t.run}/${t.model}/${t.id}`;
export const commitOf = (t: InstanceText) => seeded(t.seed, `${t.id}/base`, 40);
const runtime = (t: InstanceText): string =>
  ((parseInt(seeded(t.seed, `${t.id}/runtime`, 4), 16) % 900) / 100 + 1).toFixed(2);

/** The model's patch (patch.diff and the prediction's model_patch, byte for byte). */
export const patchOf = (t: InstanceText): string =>
  [
    `diff --git a/${t.repo.source} b/${t.repo.source}`,
    `--- a/${t.repo.source}`,
    `+++ b/${t.repo.source}`,
    "@@ -1 +1 @@",
    "-        return False",
    `+        return True  # ${seeded(t.seed, `${t.id}/patch`, 8)}`,
    "",
  ].join("\n");

export function evalScript(t: InstanceText): string {
  const base = commitOf(t);
  return [
    "#!/bin/bash",
    "set -uxo pipefail",
    "source /opt/miniconda3/bin/activate",
    "conda activate testbed",
    "cd /testbed",
    "git config --global --add safe.directory /testbed",
    "git status",
    `git -c core.fileMode=false diff ${base}`,
    `git checkout ${base} ${t.repo.testFile}`,
    "git apply -v - <<'EOF_114329324912'",
    `diff --git a/${t.repo.testFile} b/${t.repo.testFile}`,
    "EOF_114329324912",
    ": '>>>>> Start Test Output'",
    `pytest -rA ${t.repo.testFile}`,
    "SWEBENCH_TEST_EXIT_CODE=$?",
    ": '>>>>> End Test Output'",
    "echo '>>>>> Test Exit Code: '$SWEBENCH_TEST_EXIT_CODE",
    `git checkout ${base} ${t.repo.testFile}`,
    "",
  ].join("\n");
}

/** test_output.txt: the eval script's traces and pytest's `-rA` summary. */
export function testOutput(t: InstanceText, shape: RunShape): string {
  const { repo } = t;
  const base = commitOf(t);
  const [f0, f1] = repo.FAIL_TO_PASS;
  const head = [
    "+ source /opt/miniconda3/bin/activate",
    "++ _CONDA_ROOT=/opt/miniconda3",
    "+ conda activate testbed",
    "+ cd /testbed",
    "+ git config --global --add safe.directory /testbed",
    `+ git checkout ${base} ${repo.testFile}`,
    `Updated 0 paths from ${base.slice(0, 10)}`,
    "+ git apply -v -",
    `Checking patch ${repo.testFile}...`,
    `Applied patch ${repo.testFile} cleanly.`,
    "+ : '>>>>> Start Test Output'",
    `+ pytest -rA ${repo.testFile}`,
    rule("test session starts"),
    "platform linux -- Python 3.11.5, pytest-7.4.0, pluggy-1.3.0",
    "rootdir: /testbed",
    "collected 4 items",
    "",
  ];
  const end = (code: number) => [
    `+ SWEBENCH_TEST_EXIT_CODE=${code}`,
    "+ : '>>>>> End Test Output'",
    `+ echo '>>>>> Test Exit Code: ${code}'`,
    `>>>>> Test Exit Code: ${code}`,
    `+ git checkout ${base} ${repo.testFile}`,
    `Updated 1 path from ${base.slice(0, 10)}`,
    "",
  ];
  const tests = [...repo.FAIL_TO_PASS, ...repo.PASS_TO_PASS];
  switch (shape) {
    case "timeout":
      // The harness appends its timeout line to what the tests had printed when it stopped them.
      return [...head, `${repo.testFile} ..`, "", "Timeout error: 1800 seconds exceeded.", ""].join("\n");
    case "forged":
      // A patch that prints pytest's summary lines itself, then fails to collect: exit 2 (#620).
      return [...head, ...tests.map((n) => `PASSED ${n}`), rule("1 error in 0.12s"), ...end(2)].join("\n");
    case "all-pass":
      return [
        ...head,
        `${repo.testFile} ....${" ".repeat(HEADER_WIDTH - repo.testFile.length - 11)}[100%]`,
        "",
        rule("short test summary info"),
        ...tests.map((n) => `PASSED ${n}`),
        rule("4 passed in 0.31s"),
        ...end(0),
      ].join("\n");
    case "one-fails":
      return [
        ...head,
        `${repo.testFile} .F..${" ".repeat(HEADER_WIDTH - repo.testFile.length - 11)}[100%]`,
        "",
        rule("FAILURES"),
        rule(testName(f1), "_"),
        "",
        `    def ${testName(f1)}():`,
        ">       assert result is True",
        "E       assert False is True",
        "",
        `${repo.testFile}:118: AssertionError`,
        rule("short test summary info"),
        `PASSED ${f0}`,
        ...repo.PASS_TO_PASS.map((n) => `PASSED ${n}`),
        `FAILED ${f1} - assert False is True`,
        rule("1 failed, 3 passed in 0.35s"),
        ...end(1),
      ].join("\n");
  }
}

const testName = (id: string): string => id.slice(id.lastIndexOf("::") + 2);

/** report.json as get_eval_report dumps it (indent 4, no newline); `old`: a harness before the infra fields. */
export function reportJson(
  t: InstanceText,
  verdict: { resolved: boolean; F2P: [string[], string[]]; P2P: [string[], string[]]; old?: boolean },
): string {
  const lists = ([success, failure]: [string[], string[]]) => ({ success, failure });
  return JSON.stringify(
    {
      [t.id]: {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: verdict.resolved,
        ...(verdict.old ? {} : { infra_failure: false }),
        tests_status: {
          FAIL_TO_PASS: lists(verdict.F2P),
          PASS_TO_PASS: lists(verdict.P2P),
          FAIL_TO_FAIL: lists([[], []]),
          PASS_TO_FAIL: lists([[], []]),
        },
      },
    },
    null,
    4,
  );
}

const py = (b: boolean) => (b ? "True" : "False");

/** run_instance.log of an instance whose tests ran to the end and were graded. */
export function gradedLog(t: InstanceText, resolved: boolean): string {
  const cid = seeded(t.seed, `${t.id}/container`);
  const patch = patchOf(t).trimEnd();
  const r = runtime(t);
  return [
    logLine(t, 0.001, `Creating container for ${t.id}...`),
    logLine(t, 1.002, `Container for ${t.id} created: ${cid}`),
    logLine(t, 1.503, `Container for ${t.id} started: ${cid}`),
    logLine(
      t,
      1.504,
      `Intermediate patch for ${t.id} written to ${folderOf(t)}/patch.diff, now applying to container...`,
    ),
    logLine(t, 1.9, ">>>>> Applied Patch:"),
    `Checking patch ${t.repo.source}...`,
    `Applied patch ${t.repo.source} cleanly.`,
    "",
    logLine(t, 2.1, "Git diff before:"),
    patch,
    logLine(t, 2.2, `Eval script for ${t.id} written to ${folderOf(t)}/eval.sh; copying to container...`),
    logLine(t, 2.2 + Number(r), `Test runtime: ${r} seconds`),
    logLine(t, 2.201 + Number(r), `Test output for ${t.id} written to ${folderOf(t)}/test_output.txt`),
    logLine(t, 2.4 + Number(r), "Git diff after:"),
    patch,
    logLine(t, 2.401 + Number(r), `Grading answer for ${t.id}...`),
    logLine(
      t,
      2.402 + Number(r),
      `report: {'${t.id}': {'patch_is_None': False, 'patch_exists': True, 'patch_successfully_applied': True, 'resolved': ${py(resolved)}}}`,
    ),
    `Result for ${t.id}: resolved: ${py(resolved)}`,
    logLine(t, 2.8 + Number(r), `Attempting to stop container sweb.eval.${t.id}.${t.run}...`),
    logLine(t, 18 + Number(r), `Container sweb.eval.${t.id}.${t.run} removed.`),
    "",
  ].join("\n");
}

/** run_instance.log when none of the four apply commands took the patch: the harness raises before any test. */
export function applyFailedLog(t: InstanceText): string {
  const cid = seeded(t.seed, `${t.id}/container`);
  const file = t.repo.source;
  const failed = [
    `patching file ${file}`,
    "Hunk #1 FAILED at 1.",
    `1 out of 1 hunk FAILED -- saving rejects to file ${file}.rej`,
  ];
  return [
    logLine(t, 0.001, `Creating container for ${t.id}...`),
    logLine(t, 1.002, `Container for ${t.id} created: ${cid}`),
    logLine(t, 1.503, `Container for ${t.id} started: ${cid}`),
    logLine(
      t,
      1.504,
      `Intermediate patch for ${t.id} written to ${folderOf(t)}/patch.diff, now applying to container...`,
    ),
    logLine(t, 1.7, "Failed to apply patch to container: git apply --verbose"),
    logLine(t, 1.9, "Failed to apply patch to container: git apply --verbose --3way"),
    logLine(t, 2.1, "Failed to apply patch to container: git apply --verbose --reject"),
    logLine(t, 2.3, "Failed to apply patch to container: patch --batch --forward --fuzz=5 -p1 -i"),
    logLine(t, 2.4, ">>>>> Patch Apply Failed:"),
    ...failed,
    "",
    logLine(t, 2.401, "Traceback (most recent call last):"),
    '  File "/usr/lib/python3.11/site-packages/swebench/harness/run_evaluation.py", line 333, in run_instance',
    "    raise EvaluationError(",
    `swebench.harness.utils.EvaluationError: Error in evaluation for ${t.id}: >>>>> Patch Apply Failed:`,
    ...failed.slice(0, 2),
    "",
    `Check (${folderOf(t)}/run_instance.log) for more information.`,
    "",
    logLine(t, 2.9, `Attempting to stop container sweb.eval.${t.id}.${t.run}...`),
    logLine(t, 18.1, `Container sweb.eval.${t.id}.${t.run} removed.`),
    "",
  ].join("\n");
}

/** run_instance.log when the tests ran past the timeout: the harness raises; no report.json. */
export function timeoutLog(t: InstanceText): string {
  const cid = seeded(t.seed, `${t.id}/container`);
  return [
    logLine(t, 0.001, `Creating container for ${t.id}...`),
    logLine(t, 1.002, `Container for ${t.id} created: ${cid}`),
    logLine(t, 1.503, `Container for ${t.id} started: ${cid}`),
    logLine(t, 2.2, `Eval script for ${t.id} written to ${folderOf(t)}/eval.sh; copying to container...`),
    logLine(t, 1802.21, "Test runtime: 1800.01 seconds"),
    logLine(t, 1802.211, `Test output for ${t.id} written to ${folderOf(t)}/test_output.txt`),
    logLine(t, 1802.212, "Traceback (most recent call last):"),
    '  File "/usr/lib/python3.11/site-packages/swebench/harness/run_evaluation.py", line 377, in run_instance',
    "    raise EvaluationError(",
    `swebench.harness.utils.EvaluationError: Error in evaluation for ${t.id}: Test timed out after 1800 seconds.`,
    `Check (${folderOf(t)}/run_instance.log) for more information.`,
    "",
    logLine(t, 1818.1, `Container sweb.eval.${t.id}.${t.run} removed.`),
    "",
  ].join("\n");
}

/** run_instance.log of a harness exception mid-run (the container stopped under it): no test output, no report. */
export function errorLog(t: InstanceText): string {
  const cid = seeded(t.seed, `${t.id}/container`);
  const exec = seeded(t.seed, `${t.id}/exec`, 4);
  const why = `500 Server Error for http+docker://localhost/v1.47/exec/${exec}/start: Internal Server Error ("container ${cid} is not running")`;
  return [
    logLine(t, 0.001, `Creating container for ${t.id}...`),
    logLine(t, 1.002, `Container for ${t.id} created: ${cid}`),
    logLine(t, 1.503, `Container for ${t.id} started: ${cid}`),
    logLine(t, 2.1, `Error in evaluating model for ${t.id}: ${why}`, "ERROR"),
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.11/site-packages/swebench/harness/run_evaluation.py", line 367, in run_instance',
    "    test_output, timed_out, total_runtime = exec_run_with_timeout(",
    `docker.errors.APIError: ${why}`,
    "",
    `Check (${folderOf(t)}/run_instance.log) for more information.`,
    logLine(t, 5.1, `Container sweb.eval.${t.id}.${t.run} removed.`),
    "",
  ].join("\n");
}
