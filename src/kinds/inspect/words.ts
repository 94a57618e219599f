// What the reports call Inspect logs, task runs and their samples.
import { SAMPLES, type Words } from "../words.js";

export const inspectWords: Words = {
  kind: "inspect",
  label: "Inspect",
  experiment: "Inspect task run",
  heading: "task run",
  evidence: "Inspect log",
  evidencePlural: "Inspect logs",
  units: SAMPLES,
  // Logs read but tied to no task run (their header names none, or is invalid): not the tool errors `unscored` lists.
  unnamed: "(logs not attributed to a task run)",
  claims: "Inspect claims",
  claimFrom: "Inspect's log",
  column: "records",
  scheduled: "planned record",
  scheduledPlural: "planned records",
  // Not "unscored": that is a sample's state in Inspect's own words (the samples line counts it).
  unscored: "unread logs",
  unscoredMeans: "logs the tool could not read: outside every metric",
  usageUnit: "log",
  headline:
    "Inspect: the log's first accuracy or mean metric (never a stderr, std or var; the first metric if none is) as assay recomputes it over the samples present; coverage = scored / planned records (sample × epoch)",
  errorsRule: (errors) =>
    errors === "zero"
      ? "Inspect samples without a score (error, cancelled, sandbox-unavailable, missing, unscored, invalidated) and refusals count 0 (--errors zero); early-stopped and grader-failed ones are left out"
      : "Inspect samples without a score (error, cancelled, sandbox-unavailable, missing, unscored, invalidated) are left out of every value (--errors zero counts them as 0); a refusal is the model's 0",
  trialsArePaths: true,
  logged: true,
  flagsElsewhere: true,
  invalidMeans: "every planned sample of this log counts 0 in its task run's metrics (unless --invalid exclude)",
  byFolder: true,
  sections: "samples",
  lone: false,
};
