// What the reports call assay bundles and their experiments, per profile.
import { assayWords, type Words } from "../words.js";
import { HARD_DIMENSIONS } from "./world/dimensions.js";

const NATIVE = assayWords(
  "native-game",
  "victories",
  "native-game: accuracy = victories / scored trials (--invalid says how invalid ones count)",
);
const WORLD = assayWords(
  "world",
  "dimensions",
  "world: pass = every hard dimension and task_completion passed; its dimensions are reported apart in the details: no blended score",
  "dimensions and pass are not reported",
);
const WORLD_WORDS: Words = { ...WORLD, hardDimensions: HARD_DIMENSIONS };

export const bundleWords: Readonly<Record<"native-game" | "world", Words>> = {
  "native-game": NATIVE,
  world: WORLD_WORDS,
};
