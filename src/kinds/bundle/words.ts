// What the reports call assay bundles and their experiments, per profile.
import { assayWords, type Words } from "../words.js";

const NATIVE = assayWords("native-game", "victories", "native-game: accuracy = victories / scored trials (--invalid says how invalid ones count)");
const WORLD = assayWords("world", "dimensions", "world: pass = every hard dimension and task_completion passed; its dimensions are reported apart in the details: no blended score", "dimensions and pass are not reported");

export const bundleWords: Readonly<Record<"native-game" | "world", Words>> = { "native-game": NATIVE, world: WORLD };
