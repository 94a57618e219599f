// Workers: a Terminal-Bench trial folder (`<task>/<trial>/`) → its entry; what the run says of it
// is judged later, by the run-level rules (run.ts). Trials carry no seal, so the run's key is not theirs.
import type { FolderScorer } from "../scorer.js";
import { scoreTerminalBenchTrial } from "./trial.js";

export const terminalBenchScorer: FolderScorer = { form: "folder", score: (src) => scoreTerminalBenchTrial(src) };
