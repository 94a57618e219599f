// What the reports call Harbor trials, jobs and their figures.
import { TRIAL_COUNTS, TRIALS, type Words } from "../words.js";

export const harborWords: Words = {
  kind: "harbor",
  label: "Harbor",
  experiment: "Harbor job",
  heading: "job",
  evidence: "Harbor trial",
  evidencePlural: "Harbor trials",
  units: TRIALS,
  unnamed: "(lone trials)",
  claims: "Harbor says",
  claimFrom: "Harbor's result.json",
  ...TRIAL_COUNTS,
  headline:
    'Harbor: the mean of the reward key ("reward", else the first; every key in the details) over trials with a reward; coverage = trials scored / every trial but tool errors',
  errorsRule: (errors) =>
    errors === "zero"
      ? "Harbor trials without a reward (errors, cancelled, incomplete, unverified) count as reward 0 (--errors zero)"
      : "Harbor trials without a reward (errors, cancelled, incomplete, unverified) are left out of every mean (--errors zero counts them as 0)",
  trialsArePaths: false,
  logged: false,
  flagsElsewhere: true,
  invalidMeans: "its rewards count 0 in job metrics, as not reported",
  byFolder: true,
  sections: "rewards",
  claim: { says: "job says", none: "no reward", from: "its job's result.json; assay score compares the two" },
  lone: true,
};
