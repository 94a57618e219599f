// Output formats of `assay compare`: name → module. JSON is canonical; the others derive from it.
import type { Comparison } from "../../core/compare/schema.js";
import * as html from "./html.js";
import * as json from "./json.js";
import * as md from "./md.js";
import * as table from "./table.js";

export const COMPARE_FORMATS = { table, json, md, html } satisfies Record<string, { render(doc: Comparison): Iterable<string> }>;
export type CompareFormat = keyof typeof COMPARE_FORMATS;
export const isCompareFormat = (s: string): s is CompareFormat => Object.hasOwn(COMPARE_FORMATS, s);

/** The format an output file's extension names (null: none it names). */
export function formatOfFile(file: string): CompareFormat | null {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  return ext === "json" ? "json" : ext === "md" || ext === "markdown" ? "md" : ext === "html" || ext === "htm" ? "html" : ext === "txt" ? "table" : null;
}
