// Output formats by name, each module loaded only when a document is written in it: `score` loads
// the one it writes, not all six (html's Vega, JUnit's xmlbuilder2). index.ts holds them all loaded
// (the library's FORMATS, renderText).
import { extname } from "node:path";
import type { ResultsView } from "../core/results.js";
import { forTerminal } from "../core/text.js";
import { UsageError } from "../errors.js";
import type { RenderOptions } from "./json.js";

/** A format renders pieces; html first draws its charts, which Vega does asynchronously. */
export interface Format {
  render(doc: ResultsView, o?: RenderOptions): Iterable<string> | Promise<Iterable<string>>;
}

const MODULES = {
  json: () => import("./json.js"),
  jsonl: () => import("./jsonl.js"),
  table: () => import("./table.js"),
  html: () => import("./html/index.js"),
  junit: () => import("./junit.js"),
  md: () => import("./md.js"),
} satisfies Record<string, () => Promise<Format>>;
export type FormatName = keyof typeof MODULES;
export const FORMAT_NAMES = Object.keys(MODULES) as FormatName[];

/** The format's module, loaded on first use. */
export const loadFormat = (name: FormatName): Promise<Format> => MODULES[name]();

/**
 * What an output file's extension names, for every command that writes a file (score, analyze,
 * merge, compare). .txt names no format: any text format may fairly go in one (`--format json
 * --out r.txt`), and without --format it holds the command's default.
 */
const BY_EXTENSION: Record<string, string> = {
  ".json": "json",
  ".jsonl": "jsonl",
  ".html": "html",
  ".htm": "html",
  ".xml": "junit",
  ".md": "md",
  ".markdown": "md",
};
const ANY_FORMAT = ".txt";

/**
 * The format a command writes: --format, else the one --out's extension (any case) names, else
 * `fallback`. One rule for every command, so a file never holds what its name denies: a --format
 * the extension contradicts, or an extension naming a format the command does not write (`.xml`
 * for compare), is a usage error; so is an extension naming no format (`report.pdf`) without a
 * --format, which would otherwise get a table silently. A name without an extension, or .txt,
 * gets `fallback`.
 */
export function formatForFile<F extends string>(
  out: string | undefined,
  o: { format: string | undefined; formats: readonly F[]; fallback: F },
): F {
  const { format, formats } = o;
  if (format !== undefined && !formats.includes(format as F))
    throw new UsageError(`--format must be one of ${formats.join(", ")}`);
  const ext = out === undefined ? "" : extname(out).toLowerCase();
  const named = Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext]! : undefined;
  if (named === undefined) {
    if (format !== undefined) return format as F;
    if (ext !== "" && ext !== ANY_FORMAT)
      throw new UsageError(
        `--out ${forTerminal(out!)}: ${forTerminal(ext)} names no format; use ${knownExtensions(formats)} (or give --format, or - for standard output)`,
      );
    return o.fallback;
  }
  if (format !== undefined && format !== named)
    throw new UsageError(`--format ${format}, but --out ${forTerminal(out!)} names ${named}`);
  if (!formats.includes(named as F))
    throw new UsageError(
      `--out ${forTerminal(out!)} names ${named}, not a format this command writes (${formats.join(", ")}): name the file for one of them`,
    );
  return named as F;
}

/** The extensions a command's formats go by, as the refusal lists them: ".json (json), .md/.markdown (md), .txt (the default)". */
function knownExtensions(formats: readonly string[]): string {
  const byFormat = new Map<string, string[]>();
  for (const [ext, f] of Object.entries(BY_EXTENSION))
    if (formats.includes(f)) byFormat.set(f, [...(byFormat.get(f) ?? []), ext]);
  return [...[...byFormat].map(([f, exts]) => `${exts.join("/")} (${f})`), `${ANY_FORMAT} (the default)`].join(", ");
}
