// The canonical output: the §10 document, byte-identical for identical inputs and options apart from `run`.
import type { Results } from "../core/results.js";

export const render = (results: Results): string => JSON.stringify(results, null, 2) + "\n";
