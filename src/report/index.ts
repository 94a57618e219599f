// Output formats: name → module. JSON is canonical; the others derive from the same document.
// Each renders a view of the document as pieces, reading its bundle entries once, in path order.
import { viewOf, type Results, type ResultsView } from "../core/results.js";
import * as html from "./html/index.js";
import * as json from "./json.js";
import * as jsonl from "./jsonl.js";
import * as table from "./table.js";

/** A format renders pieces; html first draws its charts, which Vega does asynchronously. */
export interface Format {
  render(doc: ResultsView): Iterable<string> | Promise<Iterable<string>>;
}
export const FORMATS = { json, jsonl, table, html } satisfies Record<string, Format>;
export type FormatName = keyof typeof FORMATS;
export const isFormat = (s: string): s is FormatName => Object.hasOwn(FORMATS, s);

/** The formats that render without waiting (every one but html). */
type SyncFormat = { [K in FormatName]: ReturnType<(typeof FORMATS)[K]["render"]> extends Iterable<string> ? K : never }[FormatName];

/** A document rendered whole into one string (small documents, tests; a run writes pieces). */
export const renderText = (format: SyncFormat, doc: Results | ResultsView): string => [...FORMATS[format].render("tally" in doc ? doc : viewOf(doc))].join("");
