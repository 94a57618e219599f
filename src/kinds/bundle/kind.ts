// assay bundles in the main process (contract §1–§8): their words. Their records carry only the
// common fields.
import { assayExperiments } from "./batch.js";
import { nativePack, worldPack } from "./pack.js";
import type { Kind } from "../kind.js";
import { bundleRecogniser } from "./recognise.js";
import { bundleWords } from "./words.js";

export const bundleKind: Kind = {
  name: "bundle",
  trialTasks: true,
  recogniser: bundleRecogniser,
  words: bundleWords,
  // The hash-chained record of the run (§1).
  evidence: () => ({ file: "journal.jsonl", open: null }),
  pack: (dir, entry) => (entry.profile === "world" ? worldPack : nativePack)(dir, entry),
  // Each bundle names its own experiment (§3): nothing to name over the run.
  batch: (records, run) => ({
    nameOf: (e) => e.experiment,
    experiments: () => assayExperiments(records, run.schedules, run.options),
  }),
};
