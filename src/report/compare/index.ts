// Output formats of `assay compare`: name → module. JSON is canonical; the others derive from it.
import type { Comparison, RankingDocument } from "../../core/compare/schema.js";
import * as html from "./html.js";
import * as json from "./json.js";
import * as md from "./md.js";
import * as table from "./table.js";

export const COMPARE_FORMATS = { table, json, md, html } satisfies Record<
  string,
  { render(doc: Comparison | RankingDocument, o?: { width?: number | undefined }): Iterable<string> }
>;
export type CompareFormat = keyof typeof COMPARE_FORMATS;
