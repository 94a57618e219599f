// Whose a sample's outcome is (issue 35): the model's (a verdict, or no answer it gave), the
// instrument's (a grader without a verdict, a scorer that raised on it, a sandbox that died
// under it), or nobody's yet (an error, no score). Evidence decides, read by the writer's version;
// a reason written beside a definite value never removes it. Pure.

import type { SampleRecord } from "./sample.js";
import { isNaNValue } from "./value.js";
import { atLeast, SINCE } from "./version.js";

/**
 * One record's outcome for one scorer: `verdict` (its value counts), `refused` (the model gave no
 * answer: 0 in both figures), `grader` (the instrument gave none: in neither figure), `infra` and
 * `none` (left out; 0 under --errors zero), `out` (invalidated: the same).
 */
export type Outcome = "verdict" | "refused" | "grader" | "infra" | "none" | "out";

/** The sandbox died under the sample: Inspect's typed tool error from 0.3.260, docker's own line in the tool's output before. */
export function sandboxDied(r: SampleRecord, version: readonly number[] | null): boolean {
  return r.sandbox !== null && r.sandbox.typed === atLeast(version, SINCE.sandboxUnavailable);
}

/**
 * From #5310, choice() raises on a sample without options: that sample's error is the scorer's. The
 * error's words alone never decide it: the sample must lack options, and the score be choice()'s.
 * Before it, Inspect scored such a sample INCORRECT: a definite value, which counts as written (an
 * absent field, like a reason, never removes a verdict).
 */
export function choiceRaised(r: SampleRecord, version: readonly number[] | null): boolean {
  return r.error === "scorer" && r.noChoices && atLeast(version, SINCE.choiceScoring);
}

/** The outcome of `r` for `scorer`, whose value (or the key of it a metric reads) is `value`. */
export function outcomeOf(r: SampleRecord, scorer: string, value: unknown, version: readonly number[] | null): Outcome {
  if (r.invalidated) return "out";
  if (sandboxDied(r, version)) return "infra";
  const given = value !== undefined && !isNaNValue(value);
  if (given && value !== null) return "verdict";
  // No verdict (NaN, None, no score): whose the silence is.
  if (r.error === "refusal" || r.modelFailed.some(([k]) => k === scorer)) return "refused";
  if ((scorer === "choice" && choiceRaised(r, version)) || r.graderFailed.some(([k]) => k === scorer)) return "grader";
  return given ? "verdict" : "none"; // None with no reason: Inspect's fallback 0, as before
}

/** The model answered nothing for `scorer` (the refusal count): refused, or a verdict that is the no-answer letter `N` (#5333) or carries the model's reason. */
export function noAnswer(r: SampleRecord, scorer: string, o: Outcome, value: unknown): boolean {
  return o === "refused" || (o === "verdict" && (value === "N" || r.modelFailed.some(([k]) => k === scorer)));
}
