// What every kind's evidence pack (analysis.md §5; a kind's `pack`) is built from: fixed parts in a
// fixed order, each capped, credentials redacted, the whole digested (the digest is the cache's
// evidence key). The hard result assay computed goes first, in its own block; the files' text
// follows as untrusted data, every line prefixed so that no text inside can pass for a heading or
// close the block. Files are read without following a link out of the folder.

import { closeSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../core/folder.js";
import { splitLines } from "../core/json/lines.js";
import { redact } from "../core/redact.js";
import type { BundleEntry } from "../core/results.js";
import { byteCompare } from "../core/text.js";
import { readChunks } from "../io/bundle-source.js";

export interface EvidencePack {
  /** What goes in the user turn: the hard result, then every part capped and redacted as untrusted data. */
  text: string;
  digest: string;
}
export interface Part {
  name: string;
  text: string;
  cap: number;
}

/** Per-part caps, in characters. The pack's size never follows the evidence's. */
export const CAPS = { small: 4_000, part: 12_000, trajectory: 48_000, tests: 24_000 } as const;
const MAX_LINE = 4_000;

/** Head and tail of `text` when it is over `cap`, saying how much was cut. */
export function capText(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const head = Math.ceil(cap * 0.6);
  const tail = cap - head;
  return `${text.slice(0, head)}\n[… cut ${text.length - cap} characters …]\n${text.slice(text.length - tail)}`;
}

/** Untrusted text, quoted line by line: nothing in it can open, close or fake a section. */
const quoted = (text: string) =>
  text
    .replace(/<\s*\/?\s*untrusted[\s_-]*evidence/gi, (m) => m.replace(/</, "‹"))
    .split("\n")
    .map((l) => `| ${l}`)
    .join("\n");

export function buildPack(parts: readonly Part[], hard?: BundleEntry): EvidencePack {
  const body = parts
    // Redact first: a cut could split a credential into pieces no pattern recognises.
    .map((p) => `=== ${p.name} ===\n${quoted(capText(redact(p.text), p.cap))}`)
    .join("\n\n");
  const head = hard === undefined ? "" : `${hardResult(hard)}\n\n`;
  const text = `${head}<untrusted-evidence>\n${body}\n</untrusted-evidence>`;
  return { text, digest: sha256(text) };
}

/** The hard result as assay computed it from the evidence (ground truth), without where it lies. */
function hardResult(entry: BundleEntry): string {
  const { path: _p, advisory: _a, ...hard } = entry;
  return `<assay-hard-result>\n${capText(redact(JSON.stringify(hard, null, 1)), CAPS.part)}\n</assay-hard-result>`;
}

/**
 * A regular file's text, at most `bound` bytes, found without following any link on the way (a
 * link in a trial or task folder is never followed out of it); null when absent or not a file.
 * A file with a NUL byte in its first 8 KiB is binary: named, not quoted.
 */
export function readText(root: string, rel: string, bound = 1024 * 1024): string | null {
  const path = inside(root, rel, "file");
  if (path === null) return null;
  const size = lstatSync(path).size;
  const buf = Buffer.alloc(Math.min(size, bound));
  const fd = openSync(path, "r");
  let n = 0;
  try {
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
  } finally {
    closeSync(fd);
  }
  if (buf.subarray(0, Math.min(n, 8192)).includes(0)) return `[binary file, ${size} bytes]`;
  const text = buf.subarray(0, n).toString("utf8");
  return size > n ? `${text}\n[… file continues: ${size} bytes in all …]` : text;
}

/**
 * root/rel when every component on the way is a real folder (no link anywhere) and the last is a
 * `kind`; null otherwise. A link in a trial or task folder is never followed out of it.
 */
function inside(root: string, rel: string, kind: "file" | "dir"): string | null {
  const parts = rel.split("/");
  let path = root;
  for (let i = 0; i < parts.length; i++) {
    path = join(path, parts[i]!);
    let st;
    try {
      st = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      return null; // ENOTDIR and the like: not there
    }
    const last = i === parts.length - 1;
    if (st === undefined || st.isSymbolicLink() || (last && kind === "file" ? !st.isFile() : !st.isDirectory()))
      return null;
  }
  return path;
}

export const part = (name: string, text: string | null, cap: number = CAPS.part): Part[] =>
  text === null ? [] : [{ name, text, cap }];

/** Sorted names of the subfolders (never links) of root/rel. */
export const subfolders = (root: string, rel: string): string[] =>
  subfolderEntries(root, rel)
    .filter((e) => e.dir)
    .map((e) => e.name);

/** Visit a journal's records as a stream (a journal may be GBs), with their line, type and raw text. */
export function scanJournal(file: string, visit: (line: number, type: string, text: string) => void): void {
  if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) return;
  for (const raw of splitLines(readChunks(file))) {
    if (raw.bytes === null) continue;
    const text = raw.bytes.toString("utf8");
    let rec: unknown;
    try {
      rec = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof rec === "object" && rec !== null) visit(raw.number, String((rec as { type?: unknown }).type), text);
  }
}
/** Kept journal lines, numbered, each redacted and cut to MAX_LINE (redaction only on what is kept). */
export const numbered = (file: string, xs: readonly [number, string][]) =>
  xs.length === 0
    ? null
    : xs.map(([n, t]) => `${file}:${n} ${capText(redact(t.slice(0, 4 * MAX_LINE)), MAX_LINE)}`).join("\n");

/** Entries of root/rel (regular files and folders, never links), sorted; none when rel is not a real folder. */
export function subfolderEntries(root: string, rel: string): { name: string; dir: boolean }[] {
  const path = inside(root, rel, "dir");
  if (path === null) return [];
  return readdirSync(path, { withFileTypes: true })
    .filter((d) => d.isDirectory() || d.isFile())
    .map((d) => ({ name: d.name, dir: d.isDirectory() }))
    .sort((a, b) => byteCompare(a.name, b.name));
}
