// The library API.
export { scoreBundle } from "./kinds/bundle/score.js";
export { scoreTrial } from "./kinds/harbor/trial.js";
export { bundleDigest, type BundleSource, type BundleEntryInfo } from "./core/folder.js";
export { DEFAULT_BATCH, type BatchOptions } from "./core/batch/experiments.js";
export { computeExperiments } from "./kinds/batch.js";
export { parseSchedule, type Schedule } from "./core/batch/schedule.js";
export { CODES, type Code, type Finding } from "./core/codes.js";
export {
  resultsSchema,
  bundleEntrySchema,
  experimentSchema,
  type Results,
  type BundleEntry,
  type Experiment,
} from "./core/results.js";
export { scoreRoots, assemble, loadSchedule } from "./pipeline/score.js";
export { scoreDirectory } from "./pool/score-directory.js";
export { BundlePool } from "./pool/pool.js";
export { ResultStore, storeKey } from "./store/store.js";
export { diskBundle } from "./io/bundle-source.js";
export { discover } from "./io/discover.js";
export { FORMATS } from "./report/index.js";
export { SCORING_VERSION, TOOL_VERSION } from "./version.js";
