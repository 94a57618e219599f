// One colour per meaning, for every chart that colours states or outcomes (issue 40): a colour
// follows what a state means, never its place in a list, so infrastructure-error is never green
// and incomplete never the colour of a pass. Okabe–Ito's colours (charts.ts's PALETTE), safe for
// the common colour blindnesses.

export type Meaning = "pass" | "fail" | "scored" | "infrastructure" | "unfinished" | "unverified" | "other";

export const MEANING_COLOUR: Readonly<Record<Meaning, string>> = {
  pass: "#009E73", // bluish green
  fail: "#D55E00", // vermillion
  scored: "#0072B2", // blue: counted, with something to read (an exception, a failure mode)
  infrastructure: "#E69F00", // orange: the harness or its tools failed, not the agent
  unfinished: "#999999", // grey: cancelled, incomplete, not scored
  unverified: "#CC79A7", // reddish purple: there, but nothing could check it
  other: "#56B4E9", // sky blue: a state this version does not know
};

/** Every state or outcome the kinds and charts name, by what it means. */
const MEANING: Readonly<Record<string, Meaning>> = {
  scored: "pass",
  complete: "pass",
  resolved: "pass",
  victory: "pass",
  pass: "pass",
  unresolved: "fail",
  "no victory": "fail",
  fail: "fail",
  "patch-apply-failed": "fail",
  "scored-with-exception": "scored",
  "resolved-with-failure-mode": "scored",
  "infrastructure-error": "infrastructure",
  error: "infrastructure",
  "harness-error": "infrastructure",
  "parse-error": "infrastructure",
  "tests-timeout": "infrastructure",
  "test-timeout": "infrastructure",
  "tests-not-run": "infrastructure",
  cancelled: "unfinished",
  incomplete: "unfinished",
  "not scored": "unfinished",
  unverified: "unverified",
};

export const meaningOf = (state: string): Meaning => (Object.hasOwn(MEANING, state) ? MEANING[state]! : "other");

/** A state's colour, by its meaning. */
export const stateColour = (state: string): string => MEANING_COLOUR[meaningOf(state)];
