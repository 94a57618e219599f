// Workers: an assay bundle folder → its entry (contract §1–§8).
import { scoreBundle } from "../../core/bundle.js";
import type { FolderScorer } from "../scorer.js";

export const bundleScorer: FolderScorer = { form: "folder", score: scoreBundle };
