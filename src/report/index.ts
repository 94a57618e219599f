// Output formats: name → module. JSON is canonical; the others derive from the same document.
import type { Results } from "../core/results.js";
import * as json from "./json.js";
import * as table from "./table.js";

export interface Format {
  render(results: Results): string;
}
export const FORMATS = { json, table } satisfies Record<string, Format>;
export type FormatName = keyof typeof FORMATS;
export const isFormat = (s: string): s is FormatName => Object.hasOwn(FORMATS, s);
