// Output formats: name → module. JSON is canonical; the others derive from the same document.
// Each renders a view of the document as pieces, reading its bundle entries once, in path order.
import { viewOf, type Results, type ResultsView } from "../core/results.js";
import * as json from "./json.js";
import * as jsonl from "./jsonl.js";
import * as junit from "./junit.js";
import * as md from "./md.js";
import * as table from "./table.js";

export interface Format {
  render(doc: ResultsView): Iterable<string>;
}
export const FORMATS = { json, jsonl, table, junit, md } satisfies Record<string, Format>;
export type FormatName = keyof typeof FORMATS;
export const isFormat = (s: string): s is FormatName => Object.hasOwn(FORMATS, s);

/** A document rendered whole into one string (small documents, tests; a run writes pieces). */
export const renderText = (format: FormatName, doc: Results | ResultsView): string => [...FORMATS[format].render("tally" in doc ? doc : viewOf(doc))].join("");
