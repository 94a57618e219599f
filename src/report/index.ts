// Output formats: name → module, every one loaded (the library's FORMATS, renderText; a command
// loads the one it writes through formats.ts). JSON is canonical; the others derive from the same
// document. Each renders a view of the document as pieces, reading its bundle entries in path order
// (once; JUnit, whose suites are per experiment, and html, which surveys before it writes, in a few passes).
import { viewOf, type Results, type ResultsView } from "../core/results.js";
import type { Format, FormatName } from "./formats.js";
import type { RenderOptions } from "./json.js";
import * as html from "./html/index.js";
import * as json from "./json.js";
import * as jsonl from "./jsonl.js";
import * as junit from "./junit.js";
import * as md from "./md.js";
import * as table from "./table.js";

export { FORMAT_NAMES, formatForFile, type Format, type FormatName } from "./formats.js";
/** json and jsonl: a key makes the document end with its MAC; the other formats are never read back and ignore it. */
export type { RenderOptions } from "./json.js";
export const FORMATS = { json, jsonl, table, html, junit, md } satisfies Record<FormatName, Format>;

/** The formats that render without waiting (every one but html). */
type SyncFormat = {
  [K in FormatName]: ReturnType<(typeof FORMATS)[K]["render"]> extends Iterable<string> ? K : never;
}[FormatName];

/** A document rendered whole into one string (small documents, tests; a run writes pieces). */
export const renderText = (format: SyncFormat, doc: Results | ResultsView, o: RenderOptions = {}): string =>
  [...FORMATS[format].render("tally" in doc ? doc : viewOf(doc), o)].join("");
