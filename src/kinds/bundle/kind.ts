// assay bundles in the main process (contract §1–§8): their words. Their records carry only the
// common fields.
import type { Kind } from "../kind.js";
import { bundleWords } from "./words.js";

export const bundleKind: Kind = { name: "bundle", words: bundleWords };
