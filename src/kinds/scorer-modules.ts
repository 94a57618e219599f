// The workers' registry of kinds loaded kind by kind: name → its scorer, imported when a worker is
// first handed a thing of that kind (a worker scoring bundles never loads Harbor's, Inspect's or
// Terminal-Bench's). The same scorers as scorers.ts, which in-process scoring takes whole.
import type { KindName } from "./declared.js";
import type { Scorer } from "./scorer.js";

export const SCORER_MODULES: Readonly<Record<KindName, () => Promise<Scorer>>> = {
  bundle: async () => (await import("./bundle/scorer.js")).bundleScorer,
  harbor: async () => (await import("./harbor/scorer.js")).harborScorer,
  inspect: async () => (await import("./inspect/scorer.js")).inspectScorer,
  "terminal-bench": async () => (await import("./terminal-bench/scorer.js")).terminalBenchScorer,
};
