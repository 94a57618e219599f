// Workers: an assay bundle folder → its entry (contract §1–§8).
import { attributeBundle } from "./attribution.js";
import { scoreBundle } from "./score.js";
import type { FolderScorer } from "../scorer.js";

export const bundleScorer: FolderScorer = { form: "folder", score: scoreBundle, attribute: attributeBundle };
