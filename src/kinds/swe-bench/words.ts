// What the reports call SWE-bench instances, runs and their figures.
import { TRIAL_COUNTS, type Words } from "../words.js";

export const sweBenchWords: Words = {
  kind: "swe-bench",
  label: "SWE-bench",
  experiment: "SWE-bench run",
  heading: "run",
  evidence: "SWE-bench instance",
  evidencePlural: "SWE-bench instances",
  units: {
    unit: "instance",
    cluster: "instance",
    legend: {
      wilson: "Wilson where each instance ran once",
      "korn-graubard": "Korn–Graubard (Clopper–Pearson at the effective number of instances)",
      "cluster-t": "cluster-robust t over instances",
      t: "t for non-binary means",
    },
    question: "the resolve rate over the population of instances these were drawn from",
  },
  unnamed: "(instances outside a run)",
  claims: "SWE-bench's final report says",
  claimFrom: "SWE-bench's final report",
  ...TRIAL_COUNTS,
  column: "instances",
  scheduled: "instance",
  scheduledPlural: "instances",
  unscoredMeans: "instances with a tool error: outside every metric",
  usageUnit: "instance",
  headline:
    "SWE-bench: resolved = instances re-derived resolved from test_output.txt, over instances with a verdict (empty and unapplied patches count 0); the leaderboard's % resolved (over total_instances) is stated apart",
  errorsRule: (errors) =>
    errors === "zero"
      ? "SWE-bench instances without a verdict (tests timed out, harness error, incomplete, unverified, missing) count 0 (--errors zero): the harness's denominator"
      : "SWE-bench instances without a verdict (tests timed out, harness error, incomplete, unverified, missing) are left out of every figure (--errors zero counts them 0, as the harness does)",
  trialsArePaths: false,
  logged: false,
  flagsElsewhere: true,
  invalidMeans: "it counts unresolved in its run's figures",
  byFolder: true,
  sections: "rewards",
  claim: {
    says: "report.json says",
    none: "nothing (no readable report.json)",
    from: "the instance's own verdict; assay re-derives it from test_output.txt: REPORT_MISMATCH where they differ",
  },
  lone: false,
};
