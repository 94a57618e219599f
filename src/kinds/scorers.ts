// The workers' registry of kinds: name → scorer. The pool hands each found thing to its kind's
// scorer and never branches on a kind's name.
import { bundleScorer } from "./bundle/scorer.js";
import type { KindName } from "./declared.js";
import { harborScorer } from "./harbor/scorer.js";
import { inspectScorer } from "./inspect/scorer.js";
import type { Scorer } from "./scorer.js";
import { terminalBenchScorer } from "./terminal-bench/scorer.js";

export const SCORERS: Readonly<Record<KindName, Scorer>> = {
  bundle: bundleScorer,
  harbor: harborScorer,
  inspect: inspectScorer,
  "terminal-bench": terminalBenchScorer,
};
