// Workers: an Inspect log file → its entry (contract §12), read whole, or one part of a large
// .eval the main thread split (its other parts are read by other workers at once).
import { readPart, scoreInspectLog, type InspectTask } from "./read.js";
import type { FileScorer } from "../scorer.js";

export const inspectScorer: FileScorer = {
  form: "file",
  score(file, path, task) {
    const t = task as InspectTask;
    return t.part === "whole" ? { path, ...scoreInspectLog(file, t.format, t.timeoutMs) } : readPart(file, path, t);
  },
};
