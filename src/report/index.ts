// Output formats: name → module. JSON is canonical; the others derive from the same document.
// Each renders a view of the document as pieces, reading its bundle entries in path order (once;
// JUnit, whose suites are per experiment, and html, which surveys before it writes, in a few passes).
import { extname } from "node:path";
import { viewOf, type Results, type ResultsView } from "../core/results.js";
import * as html from "./html/index.js";
import * as json from "./json.js";
import * as jsonl from "./jsonl.js";
import * as junit from "./junit.js";
import * as md from "./md.js";
import * as table from "./table.js";

/** A format renders pieces; html first draws its charts, which Vega does asynchronously. */
export interface Format {
  render(doc: ResultsView): Iterable<string> | Promise<Iterable<string>>;
}
export const FORMATS = { json, jsonl, table, html, junit, md } satisfies Record<string, Format>;
export type FormatName = keyof typeof FORMATS;
export const isFormat = (s: string): s is FormatName => Object.hasOwn(FORMATS, s);

/** The formats that render without waiting (every one but html). */
type SyncFormat = { [K in FormatName]: ReturnType<(typeof FORMATS)[K]["render"]> extends Iterable<string> ? K : never }[FormatName];

/** What an output file's extension asks for, when --format is not given (a format not registered asks for nothing). */
const BY_EXTENSION: Record<string, string> = { ".json": "json", ".jsonl": "jsonl", ".html": "html", ".xml": "junit", ".md": "md" };

/** The format `--out FILE` picks by its extension (any case), or undefined: the command's default. */
export function formatForFile(file: string | undefined): FormatName | undefined {
  const ext = file === undefined ? "" : extname(file).toLowerCase();
  const name = Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext]! : undefined;
  return name !== undefined && isFormat(name) ? name : undefined;
}

/** A document rendered whole into one string (small documents, tests; a run writes pieces). */
export const renderText = (format: SyncFormat, doc: Results | ResultsView): string => [...FORMATS[format].render("tally" in doc ? doc : viewOf(doc))].join("");
