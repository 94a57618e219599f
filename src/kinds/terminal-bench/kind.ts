// Terminal-Bench runs in the main process: their words. NOT YET WIRED (issue 25): discovery does
// not recognise a run folder yet (its recogniser recognises nothing), so no run of assay scores a
// Terminal-Bench trial; the pure core in this folder (trial.ts, run.ts) is tested on its own. Until
// the run's book and batch rules land, an entry of this kind from another document gets no
// experiment: it is listed, never credited.
import type { Kind } from "../kind.js";
import { terminalBenchWords } from "./words.js";

export const terminalBenchKind: Kind = {
  name: "terminal-bench",
  recogniser: { description: "a Terminal-Bench run", markers: [] },
  words: { "terminal-bench": terminalBenchWords },
  batch: () => ({ nameOf: (e) => e.experiment, experiments: () => [] }),
};
