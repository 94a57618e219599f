// Workers: a SWE-bench instance folder (`<model>/<instance_id>/`) → its entry; what the run's final
// report and predictions say of it is judged later, by the batch rules (batch.ts). No seal.
import type { FolderScorer } from "../scorer.js";
import { scoreSweBenchInstance } from "./instance-entry.js";

export const sweBenchScorer: FolderScorer = { form: "folder", score: (src) => scoreSweBenchInstance(src) };
