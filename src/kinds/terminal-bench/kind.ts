// Terminal-Bench runs in the main process: their words. NOT YET WIRED (issue 25): discovery does
// not recognise a run folder yet (it says one looks like evidence but is not read), so no run of
// assay scores a Terminal-Bench trial; the pure core in this folder (trial.ts, run.ts) is tested on its own. Until
// the run's book and batch rules land, an entry of this kind from another document gets no
// experiment: it is listed, never credited.
import type { Kind } from "../kind.js";
import { RUN_METADATA, RUN_RESULTS, TB_LOCK } from "./record.js";
import { terminalBenchWords } from "./words.js";

export const terminalBenchKind: Kind = {
  name: "terminal-bench",
  // Not scored yet, never passed over in silence: a run folder is said to look like evidence.
  recogniser: {
    description: "a Terminal-Bench run",
    markers: [RUN_RESULTS, TB_LOCK, RUN_METADATA],
    looksLike: (l) => l.has(RUN_RESULTS) && (l.has(TB_LOCK) || l.has(RUN_METADATA)),
  },
  words: { "terminal-bench": terminalBenchWords },
  batch: () => ({ nameOf: (e) => e.experiment, experiments: () => [] }),
};
