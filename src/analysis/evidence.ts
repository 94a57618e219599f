// Evidence packs (analysis.md §5): what the model sees of a bundle, a Harbor trial, an Inspect
// log's samples or a task folder — built deterministically (fixed parts in a fixed order, each capped), credentials
// redacted, and digested (the digest is the cache's evidence key). The hard result assay computed
// goes first, in its own block; the files' text follows as untrusted data, every line prefixed so
// that no text inside can pass for a heading or close the block.

import { closeSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../core/folder.js";
import { splitLines } from "../core/json/lines.js";
import { redact } from "../core/redact.js";
import type { BundleEntry } from "../core/results.js";
import { byteCompare } from "../core/text.js";
import { readChunks } from "../io/bundle-source.js";
import { firstSamples } from "../io/inspect.js";
import { kindOfEntry } from "../kinds/registry.js";

export interface EvidencePack {
  /** What goes in the user turn: the hard result, then every part capped and redacted as untrusted data. */
  text: string;
  digest: string;
}
interface Part {
  name: string;
  text: string;
  cap: number;
}

/** Per-part caps, in characters. The pack's size never follows the evidence's. */
export const CAPS = { small: 4_000, part: 12_000, trajectory: 48_000, tests: 24_000 } as const;
const MAX_LINE = 4_000;
/** Steps of a multi-step trial shown (each step adds parts); the rest are named, not shown. */
const MAX_STEPS = 8;
/** Files read per folder of a task (tests/, solution/, environment/), and bytes read of each. */
const MAX_FILES = 64;
const FILE_BOUND = 256 * 1024;

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
    if (st === undefined || st.isSymbolicLink() || (last && kind === "file" ? !st.isFile() : !st.isDirectory())) return null;
  }
  return path;
}

export const part = (name: string, text: string | null, cap: number = CAPS.part): Part[] => (text === null ? [] : [{ name, text, cap }]);

/** Sorted names of the subfolders (never links) of root/rel. */
const subfolders = (root: string, rel: string): string[] => subfolderEntries(root, rel).filter((e) => e.dir).map((e) => e.name);

/** Visit a journal's records as a stream (a journal may be GBs), with their line, type and raw text. */
function scanJournal(file: string, visit: (line: number, type: string, text: string) => void): void {
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
const numbered = (file: string, xs: readonly [number, string][]) =>
  xs.length === 0 ? null : xs.map(([n, t]) => `${file}:${n} ${capText(redact(t.slice(0, 4 * MAX_LINE)), MAX_LINE)}`).join("\n");

/** Native game: header, summary, the last observation, final score, end, and the last key batches. */
export function nativePack(dir: string, entry: BundleEntry): EvidencePack {
  const KEYS = 8;
  const last: { observation: [number, string] | null } = { observation: null };
  const keys: [number, string][] = [];
  const fixed: [number, string][] = [];
  let header: [number, string] | null = null;
  scanJournal(join(dir, "journal.jsonl"), (line, type, text) => {
    if (line === 1) header = [line, text];
    else if (type === "observation") last.observation = [line, text];
    else if (type === "keys") {
      keys.push([line, text]);
      if (keys.length > KEYS) keys.shift();
    } else if (type === "score" || type === "end") fixed.push([line, text]);
  });
  const J = "journal.jsonl";
  return buildPack(
    [
      ...part("journal.jsonl line 1 (session header)", numbered(J, header ? [header] : []), CAPS.small),
      ...part("summary.json", readText(dir, "summary.json"), CAPS.small),
      ...part("journal.jsonl: the last observation (the ending, if any)", numbered(J, last.observation ? [last.observation] : [])),
      ...part("journal.jsonl: score and end records", numbered(J, fixed.slice(-8)), CAPS.small),
      ...part(`journal.jsonl: the last ${KEYS} key batches`, numbered(J, keys), CAPS.small),
    ],
    entry,
  );
}

/** World: the scenario, and every journal or world record a dimension's detail names. */
export function worldPack(dir: string, entry: BundleEntry): EvidencePack {
  const named = { "journal.jsonl": new Set<number>(), "world.jsonl": new Set<number>() };
  for (const d of Object.values(entry.dimensions ?? {}))
    for (const m of d.detail.matchAll(/\b(journal|world)\.jsonl:(\d+)/g)) named[`${m[1] as "journal" | "world"}.jsonl`].add(Number(m[2]));
  const lines = (f: keyof typeof named) => {
    const picked: [number, string][] = [];
    scanJournal(join(dir, f), (n, _, text) => void (named[f].has(n) && picked.length < 200 && picked.push([n, text])));
    return numbered(f, picked);
  };
  return buildPack(
    [
      ...part("scenario.json", readText(dir, "scenario.json"), CAPS.part),
      ...part("journal.jsonl: the records the dimensions name", lines("journal.jsonl")),
      ...part("world.jsonl: the records the dimensions name", lines("world.jsonl")),
    ],
    entry,
  );
}

/** Harbor trial: result.json, exception, the trajectory (capped), test output; the first steps' too. */
export function harborPack(dir: string, entry: BundleEntry): EvidencePack {
  const steps = subfolders(dir, "steps");
  const shown = steps.slice(0, MAX_STEPS);
  const perStep = (rel: string, label: string, cap: number) => shown.flatMap((s) => part(`steps/${s}/${rel} (${label})`, readText(dir, `steps/${s}/${rel}`), cap));
  return buildPack(
    [
      ...part("result.json", readText(dir, "result.json")),
      ...part("exception.txt", readText(dir, "exception.txt"), CAPS.small),
      ...part("agent/trajectory.json", readText(dir, "agent/trajectory.json", 8 * 1024 * 1024), CAPS.trajectory),
      ...perStep("agent/trajectory.json", "step trajectory", CAPS.small * 2),
      ...part("verifier/test-stdout.txt", readText(dir, "verifier/test-stdout.txt"), CAPS.small),
      ...perStep("verifier/test-stdout.txt", "step test output", CAPS.small),
      ...part("steps not shown", steps.length > MAX_STEPS ? steps.slice(MAX_STEPS).join(", ") : null, CAPS.small),
    ],
    entry,
  );
}

/** Samples of an Inspect log shown (each a part); the log's others are counted, not shown. */
const MAX_SAMPLES = 12;

/** What a sample's text field holds: a string, or the text of a list of content parts or messages. */
function textOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(textOf).filter((t) => t !== "").join("\n");
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    if (typeof o["text"] === "string") return o["text"];
    if (o["content"] !== undefined) return `${typeof o["role"] === "string" ? `${o["role"]}: ` : ""}${textOf(o["content"])}`;
  }
  return "";
}

/** One Inspect sample as the model sees it: input, target, the final answer, each score's value, answer and explanation, the error. */
function inspectSample(s: Record<string, unknown>): string {
  const output = s["output"] as { choices?: { message?: { content?: unknown } }[]; completion?: unknown } | undefined;
  const answer = typeof output?.completion === "string" && output.completion !== "" ? output.completion : textOf(output?.choices?.[0]?.message?.content);
  const scores = typeof s["scores"] === "object" && s["scores"] !== null ? Object.entries(s["scores"] as Record<string, Record<string, unknown>>) : [];
  const error = typeof s["error"] === "object" && s["error"] !== null ? String((s["error"] as Record<string, unknown>)["message"] ?? "") : null;
  return [
    `input: ${capText(textOf(s["input"]), CAPS.small)}`,
    `target: ${capText(textOf(s["target"]), CAPS.small / 4)}`,
    `final answer: ${capText(answer, CAPS.small)}`,
    ...scores.map(([name, sc]) => `score ${name}: value ${JSON.stringify(sc?.["value"] ?? null)}; answer ${capText(textOf(sc?.["answer"]), 500)}; explanation ${capText(textOf(sc?.["explanation"]), CAPS.small / 2)}`),
    ...(error === null ? [] : [`error: ${capText(error, CAPS.small / 2)}`]),
  ].join("\n");
}

/**
 * An Inspect log (§12): its samples as trials — each shown sample's input, target, final answer,
 * scores with their explanations and error — after the hard result (the log's states, plan and
 * metrics). The first MAX_SAMPLES records are read, a sample at a time.
 */
export function inspectPack(file: string, entry: BundleEntry): EvidencePack {
  const format = entry.inspect?.format ?? (file.endsWith(".eval") ? "eval" : "json");
  const samples = firstSamples(file, format, MAX_SAMPLES);
  const planned = entry.inspect?.plan.records ?? samples.length;
  return buildPack(
    [
      ...samples.map(({ where, sample }) => ({ name: `${where} (sample ${JSON.stringify(sample["id"] ?? null)}, epoch ${JSON.stringify(sample["epoch"] ?? null)})`, text: inspectSample(sample), cap: CAPS.part })),
      ...part("samples not shown", planned > samples.length ? `${planned - samples.length} more planned records of this log are not shown` : null, CAPS.small),
    ],
    entry,
  );
}

/** A task folder (Harbor layout): instruction, task config, tests, solution, environment. */
export function taskPack(dir: string): EvidencePack {
  const tree = (sub: string, cap: number): Part[] => {
    const files: string[] = [];
    const walk = (rel: string) => {
      for (const name of subfolderEntries(dir, rel)) {
        if (files.length >= MAX_FILES) return;
        const p = `${rel}/${name.name}`;
        if (name.dir) walk(p);
        else files.push(p);
      }
    };
    walk(sub);
    let text = "";
    for (const f of files) {
      if (text.length > 2 * cap) break; // enough to fill the cap (head and tail); the rest is named
      text += `--- ${f} ---\n${readText(dir, f, FILE_BOUND) ?? "[not readable]"}\n`;
    }
    const unread = files.filter((f) => !text.includes(`--- ${f} ---`));
    if (unread.length > 0) text += `[… ${unread.length} more files not shown: ${unread.slice(0, 20).join(", ")} …]\n`;
    return files.length ? [{ name: `${sub}/ (${files.length}${files.length >= MAX_FILES ? "+" : ""} files)`, text, cap }] : [];
  };
  return buildPack([
    ...part("instruction.md", readText(dir, "instruction.md")),
    ...part("task.toml", readText(dir, "task.toml"), CAPS.small),
    ...tree("tests", CAPS.tests),
    ...tree("solution", CAPS.part),
    ...tree("environment", CAPS.part),
  ]);
}

/** Entries of root/rel (regular files and folders, never links), sorted; none when rel is not a real folder. */
function subfolderEntries(root: string, rel: string): { name: string; dir: boolean }[] {
  const path = inside(root, rel, "dir");
  if (path === null) return [];
  return readdirSync(path, { withFileTypes: true })
    .filter((d) => d.isDirectory() || d.isFile())
    .map((d) => ({ name: d.name, dir: d.isDirectory() }))
    .sort((a, b) => byteCompare(a.name, b.name));
}

/** The pack for a scored entry: its kind's (an entry naming no profile this version knows: a native bundle's). */
export const packFor = (dir: string, entry: BundleEntry): EvidencePack => kindOfEntry(entry.profile).pack(dir, entry);
