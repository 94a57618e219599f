// Workers: a Harbor trial folder → its entry (contract §11); what its job says is judged later, by
// the batch rules. Harbor trials carry no seal (§8), so the run's key is not theirs.
import { isTrialEvidence } from "./analysis.js";
import { scoreTrial } from "./trial.js";
import type { FolderScorer } from "../scorer.js";

export const harborScorer: FolderScorer = {
  form: "folder",
  score: (src) => scoreTrial(src),
  isEvidence: isTrialEvidence,
};
