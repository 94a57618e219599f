// One Terminal-Bench trial folder (`<task>/<trial>/`) → its entry, as a pure function of its bytes
// (docs/terminal-bench.md): the verdict re-derived from the evidence (TB's rule over the tests the
// pane shows, else over parser_results), the hard checks that make a trial invalid
// (RESOLVED_MISMATCH, NO_TESTS_PARSED, PANE_MISMATCH, SCHEMA and the §2 JSON findings), the state,
// the review flags, and the tokens as recorded. What the run says of the trial is judged by run.ts.

import { isUtf8 } from "node:buffer";
import { finding, type Finding } from "../../core/codes.js";
import { EvidenceFolder, type BundleSource } from "../../core/folder.js";
import { isPlainObject } from "../../core/json/decode.js";
import { blankEntry, type BundleEntry, type ScoredBundle } from "../../core/results.js";
import { check } from "../../core/schema.js";
import type { TbState, TerminalBenchPart } from "./entry.js";
import {
  CLEAN_MODES,
  fingerprints,
  isHarnessShape,
  readJson,
  trialResultsSchema,
  trialViewOf,
  type TrialView,
} from "./models.js";
import { candidates, completeFailure, differences, MAX_PANE_BYTES, sameResults, type Parsed } from "./panes.js";
import { parseTrialName } from "./recognise.js";
import { trialIdentity } from "./identity.js";

export const RESULTS = "results.json";
export const PANE = "panes/post-test.txt";
/** The reward key a verdict is reported under: 1 resolved, 0 not. */
export const REWARD_KEY = "resolved";

type Flag = BundleEntry["flags"][number];
interface PaneCheck {
  check: TerminalBenchPart["pane"];
  /** The re-parse the verdict rests on (agreeing or not); null when the claim stands alone. */
  parsed: Parsed | null;
  /** TB recorded no verdict, and the pane's tests give one (rule 8a): `parsed` decides. */
  decides?: true;
  /** The pane is there but cannot be re-parsed (rule 7a): TB writes none such. */
  unreadable?: true;
}

/** The profile of the kind's entries (declaration.ts). */
export const TB_PROFILE = "terminal-bench";
/** A scored trial: every field of a ScoredBundle, its profile Terminal-Bench's. */
export type TerminalBenchEntry = Omit<ScoredBundle, "profile"> & { profile: typeof TB_PROFILE };

export function scoreTerminalBenchTrial(src: BundleSource): TerminalBenchEntry {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const folder = new EvidenceFolder(src, errors, warnings, "ignored");
  const raw = readTrial(folder, errors, warnings);
  const view = raw === null ? null : trialViewOf(raw);
  if (view !== null) checkResolved(view, errors);
  const pane = checkPane(folder, view, errors, warnings);

  // The verdict: TB's rule (every test passed) over the tests the pane shows, else over
  // parser_results; none where TB reached none (a test timeout, a parse error, a harness exception).
  const claim = view?.parserResults;
  const results: ReadonlyMap<string, string> | null = pane.decides
    ? pane.parsed!.results
    : claim === null || claim === undefined
      ? null
      : (pane.parsed?.results ?? new Map(Object.entries(claim)));
  const pass = results === null ? null : [...results.values()].every((s) => s === "passed");
  if (pass === true && pane.unreadable)
    errors.push(
      finding(
        "PANE_UNREADABLE",
        PANE,
        null,
        "the pane is there but cannot be re-parsed (see the warning), and TB writes none such: the resolved claim it would check earns no credit",
      ),
    );
  const state = stateOf(view, pass);

  const flags: Flag[] = [];
  const tests = results === null ? null : testsOf(results, pane.parsed);
  if (pass === true && tests !== null && tests.skipped_as_passed > 0)
    flags.push({
      code: "SKIPPED_AS_PASSED",
      evidence: `${tests.skipped_as_passed} of ${results!.size} tests passed only as SKIPPED or XFAIL lines in ${PANE}`,
    });
  if (tests !== null && tests.duplicates > 0)
    flags.push({
      code: "DUPLICATE_TEST_NAME",
      evidence: `${tests.duplicates} summary line${tests.duplicates === 1 ? " repeats" : "s repeat"} an earlier test name in ${PANE}; TB kept the last status`,
    });
  if (state === "resolved-with-failure-mode")
    flags.push({
      code: "RESOLVED_WITH_FAILURE_MODE",
      evidence: `failure_mode ${view!.failureMode}, and every test passed: TB counts it resolved`,
    });

  const mode = view?.failureMode ?? null;
  const tokens =
    view === null || (view.input === null && view.output === null)
      ? "not-recorded"
      : view.input === 0 && view.output === 0
        ? "reported-none"
        : "recorded";
  const part: TerminalBenchPart = {
    failure_mode: mode,
    parser: pane.parsed?.parser ?? null,
    pane: pane.check,
    tests,
    tokens,
    fields: raw === null ? null : fingerprints(raw),
  };
  const { identity: _, ...entry } = blankEntry({
    digest: folder.digest(null), // every file of the trial: results.json, commands.txt, panes/, sessions/, agent-logs/
    trial: view?.trialName ?? null,
    attempt:
      view?.trialName == null ? null : (parseTrialName(view.trialName, view.taskId ?? undefined)?.attempt ?? null),
    task: view?.taskId ?? null,
    validity: errors.length === 0 ? "valid" : "invalid",
    errors,
    warnings,
    pass: errors.length === 0 ? pass : null, // §8: invalid evidence is credited with nothing (its verdict stays in state and rewards)
    state,
    rewards: pass === null ? null : { [REWARD_KEY]: pass ? 1 : 0 },
    reward_source:
      pass === null ? null : pane.parsed !== null ? `${PANE} (${pane.parsed.parser})` : `${RESULTS} parser_results`,
    flags,
    exception:
      mode === null || CLEAN_MODES.has(mode)
        ? null
        : { type: mode, message: MODES[mode] ?? "a failure mode this version does not describe", step: null },
    claimed:
      view === null
        ? null
        : {
            rewards: typeof view.isResolved === "boolean" ? { [REWARD_KEY]: view.isResolved ? 1 : 0 } : null,
            exception: mode === null || CLEAN_MODES.has(mode) ? null : mode,
          },
    // Rule 10: 0 and 0 is an agent that reports nothing (TB's AgentResult default), not a measured zero.
    usage: {
      input_tokens: tokens === "recorded" ? view!.input : null,
      output_tokens: tokens === "recorded" ? view!.output : null,
      cache_read_tokens: null,
      cost_usd: null,
    },
    terminal_bench: part,
  });
  // In the results schema's key order: profile keeps its place in blankEntry's; identity follows terminal_bench.
  return { ...entry, profile: TB_PROFILE, identity: trialIdentity(raw) };
}

/** TB's FailureMode values (research §A.3), in words. */
const MODES: Record<string, string> = {
  unknown: "TB recorded an unknown failure",
  test_timeout: "the tests ran past their timeout; TB parsed nothing",
  agent_timeout: "the agent ran past its timeout; the tests still ran",
  unknown_agent_error: "the agent, or the harness, raised",
  parse_error: "TB's parser raised on the test output; no verdict",
  fatal_llm_parse_error: "the agent could not parse its model's replies",
  context_length_exceeded: "the agent's model ran out of context",
  output_length_exceeded: "the agent's model ran out of output length",
  agent_installation_failed: "the agent could not be installed",
};

/** The trial's results.json as an object, or null: absent, too large, cut short by a killed writer, or not a TrialResults. */
function readTrial(folder: EvidenceFolder, errors: Finding[], warnings: Finding[]): Record<string, unknown> | null {
  const bytes = folder.read(RESULTS);
  if (!bytes) return null;
  const r = readJson(bytes, RESULTS, errors);
  if (!r.ok) {
    if (r.truncated)
      warnings.push(
        finding(
          "RESULT_TRUNCATED",
          RESULTS,
          null,
          "results.json is empty or ends mid-document: a writer killed mid-write; not evidence, the trial is incomplete",
        ),
      );
    return null;
  }
  if (!isPlainObject(r.value)) {
    errors.push(finding("SCHEMA", RESULTS, null, "expected a TrialResults object"));
    return null;
  }
  check(trialResultsSchema, r.value, RESULTS, null, errors);
  return r.value;
}

/** Rule 4: is_resolved is what TB's rule gives over parser_results; rule 5: never resolved on no test at all. */
function checkResolved(v: TrialView, errors: Finding[]): void {
  if (v.isResolved === undefined || v.parserResults === undefined) return; // ill-typed or absent: SCHEMA said so
  const pr = v.parserResults;
  const expected = pr === null ? null : Object.values(pr).every((s) => s === "passed");
  if (v.isResolved !== expected) {
    const shown =
      pr === null
        ? "null"
        : `${Object.values(pr).filter((s) => s === "failed").length} failed of ${Object.keys(pr).length}`;
    errors.push(
      finding(
        "RESOLVED_MISMATCH",
        RESULTS,
        null,
        `is_resolved is ${String(v.isResolved)} but parser_results (${shown}) give ${String(expected)}`,
      ),
    );
  }
  // TB stops before parsing on both (Harness._run_trial): parser_results there cannot be TB's.
  if (pr !== null && (v.failureMode === "test_timeout" || v.failureMode === "parse_error"))
    errors.push(
      finding(
        "RESOLVED_MISMATCH",
        RESULTS,
        null,
        `failure_mode ${v.failureMode}, yet parser_results are set: TB leaves them null when it stops there`,
      ),
    );
  if (pr !== null && Object.keys(pr).length === 0 && v.isResolved === true)
    errors.push(
      finding(
        "NO_TESTS_PARSED",
        RESULTS,
        null,
        "is_resolved is true with parser_results {}: no test result was parsed, and TB's all() over none is true",
      ),
    );
}

/** Rules 6–8: parser_results against the pane re-parsed as TB parses it. */
function checkPane(folder: EvidenceFolder, view: TrialView | null, errors: Finding[], warnings: Finding[]): PaneCheck {
  const claim = view?.parserResults;
  const notDerived = (why: string | null, unreadable = false): PaneCheck => {
    if (why !== null)
      warnings.push(finding("PANE_NOT_REDERIVED", PANE, null, `${why}: parser_results are not checked against it`));
    return unreadable ? { check: "not-rederived", parsed: null, unreadable } : { check: "not-rederived", parsed: null };
  };
  if (!folder.has(PANE)) {
    if (claim)
      warnings.push(
        finding("PANE_NOT_REDERIVED", PANE, null, "absent: parser_results are not checked against the test output"),
      );
    return { check: "absent", parsed: null };
  }
  const entry = folder.regular(PANE);
  if (entry === null) return notDerived(null, true); // a link or a folder: warned of as such
  if (entry.size > MAX_PANE_BYTES)
    return notDerived(`${entry.size} bytes, more than the ${MAX_PANE_BYTES} assay re-parses`, true);
  const bytes = folder.read(PANE, MAX_PANE_BYTES);
  if (!bytes) return notDerived(null, true);
  if (!isUtf8(bytes)) return notDerived("not UTF-8, so not the text TB parsed", true);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (view === null) return noTrialFile(folder.has(RESULTS), text, errors, warnings);
  if (claim === undefined) return notDerived(null); // no readable claim to compare
  const found = candidates(text, claim);
  if (claim === null) return noClaim(view, found, text, errors, warnings);
  const agreeing = found.find((p) => sameResults(claim, p));
  if (agreeing !== undefined) return { check: "agrees", parsed: agreeing };
  const first = found[0];
  if (first === undefined) {
    errors.push(
      finding(
        "PANE_MISMATCH",
        PANE,
        null,
        "parser_results are set, but the pane has no short test summary info header: TB's pytest parser would have raised (parse_error, no verdict)",
      ),
    );
    return { check: "differs", parsed: null };
  }
  errors.push(
    finding(
      "PANE_MISMATCH",
      PANE,
      null,
      `parser_results differ from the pane re-parsed with TB's ${first.parser} parser: ${differences(claim, first).join("; ")}`,
    ),
  );
  return { check: "differs", parsed: first };
}

/** Rule 8a: TB's harness raised (its entry's shape, or no trial file), yet the pane shows the tests ran: the pane decides, and the label is contradicted. */
function harnessContradicted(found: Parsed[], label: string, errors: Finding[]): PaneCheck | null {
  const p = found.find((f) => f.results.size > 0);
  if (p === undefined) return null;
  const failed = [...p.results.values()].filter((s) => s === "failed").length;
  errors.push(
    finding(
      "HARNESS_ERROR_CONTRADICTED",
      PANE,
      null,
      `${label}, yet the pane holds ${p.results.size} test results (${p.parser}, ${failed} failed): the tests ran, and TB writes no trial file when its harness raised; the pane decides the verdict`,
    ),
  );
  return { check: "differs", parsed: p, decides: true };
}

/** Rule 8b: no verdict recorded, but the pane holds pytest's summary run to its end with a failed test: the trial cannot have passed. */
function failedWithoutVerdict(text: string, why: string, warnings: Finding[]): PaneCheck | null {
  const p = completeFailure(text);
  if (p === null) return null;
  warnings.push(
    finding(
      "PANE_FAILED_NO_VERDICT",
      PANE,
      null,
      `${why}, yet the pane holds pytest's complete summary with a failed test: the tests ran and one failed, so the trial counts unresolved`,
    ),
  );
  return { check: "differs", parsed: p, decides: true };
}

/** No readable trial file: absent is TB's harness exception (rule 8a); unreadable or cut short, a complete failure still decides (rule 8b). */
function noTrialFile(present: boolean, text: string, errors: Finding[], warnings: Finding[]): PaneCheck {
  const decided = present
    ? failedWithoutVerdict(text, "results.json cannot be read", warnings)
    : harnessContradicted(candidates(text, null), "no results.json (TB's harness exception)", errors);
  return decided ?? { check: "not-rederived", parsed: null };
}

/** TB recorded no parser_results: the pane must hold nothing a parser would read, unless the tests timed out (TB stops before parsing). */
function noClaim(view: TrialView, found: Parsed[], text: string, errors: Finding[], warnings: Finding[]): PaneCheck {
  const decided = isHarnessShape(view)
    ? harnessContradicted(
        found,
        "results.json is TB's entry for a harness exception (unknown_agent_error, no verdict)",
        errors,
      )
    : failedWithoutVerdict(text, `no verdict (failure_mode ${String(view.failureMode)})`, warnings);
  if (decided !== null) return decided;
  const tests = found.reduce((n, p) => n + p.results.size, 0);
  if (view.failureMode === "test_timeout") {
    if (found.length > 0)
      warnings.push(
        finding(
          "PANE_PARTIAL_SUMMARY",
          PANE,
          null,
          `the tests timed out, and TB parsed nothing; the pane holds ${tests} test result${tests === 1 ? "" : "s"} (${found[0]!.parser}), not counted`,
        ),
      );
    return { check: "ignored", parsed: null };
  }
  if (found.length === 0) return { check: "agrees", parsed: null };
  warnings.push(
    finding(
      "PANE_NOT_REDERIVED",
      PANE,
      null,
      `parser_results are null (failure_mode ${String(view.failureMode)}) but the pane holds ${found[0]!.parser} results: the task's parser may be one whose format is absent (the run does not record which)`,
    ),
  );
  return { check: "not-rederived", parsed: null };
}

function testsOf(results: ReadonlyMap<string, string>, parsed: Parsed | null): NonNullable<TerminalBenchPart["tests"]> {
  let passed = 0;
  for (const s of results.values()) if (s === "passed") passed++;
  return {
    passed,
    failed: results.size - passed,
    skipped_as_passed: parsed?.skippedAsPassed ?? 0,
    duplicates: parsed?.duplicates ?? 0,
  };
}

/** Rule 3: one state per trial, from the verdict and TB's failure mode. */
function stateOf(view: TrialView | null, pass: boolean | null): TbState {
  if (pass === true) return CLEAN_MODES.has(view?.failureMode ?? null) ? "resolved" : "resolved-with-failure-mode";
  if (pass === false) return "unresolved";
  if (view === null) return "incomplete";
  if (view.failureMode === "test_timeout") return "test-timeout";
  if (view.failureMode === "parse_error") return "parse-error";
  return isHarnessShape(view) ? "harness-error" : "incomplete";
}
