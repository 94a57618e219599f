// What the reports call Terminal-Bench trials, runs and their figures.
import { TRIAL_COUNTS, TRIALS, type Words } from "../words.js";

export const terminalBenchWords: Words = {
  kind: "terminal-bench",
  label: "Terminal-Bench",
  experiment: "Terminal-Bench run",
  heading: "run",
  evidence: "Terminal-Bench trial",
  evidencePlural: "Terminal-Bench trials",
  units: TRIALS,
  unnamed: "(trials outside a run)",
  claims: "Terminal-Bench says",
  claimFrom: "Terminal-Bench's results.json",
  ...TRIAL_COUNTS,
  headline:
    "Terminal-Bench: resolved = trials whose every test passed, re-derived from the pane, over trials with a verdict; Terminal-Bench's own accuracy counts trials without one as unresolved",
  errorsRule: (errors) =>
    errors === "zero"
      ? "Terminal-Bench trials without a verdict (test timeout, parse error, harness error) count as unresolved (--errors zero), as Terminal-Bench counts them"
      : "Terminal-Bench trials without a verdict (test timeout, parse error, harness error) are left out of every figure (--errors zero counts them unresolved, as Terminal-Bench does)",
  trialsArePaths: false,
  logged: false,
  flagsElsewhere: true,
  invalidMeans: "it counts unresolved in its run's figures",
  byFolder: true,
  sections: "rewards",
  claim: {
    says: "trial says",
    none: "no verdict",
    from: "its results.json's is_resolved and failure_mode; assay re-derives the verdict from the tests",
  },
  lone: false,
};
