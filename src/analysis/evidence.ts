// Evidence packs (analysis.md §5): what the model sees of a bundle, a Harbor trial or a task
// folder — built deterministically (fixed parts in a fixed order, each capped), credentials
// redacted, wrapped as untrusted data, and digested (the digest is the cache's evidence key).

import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../core/folder.js";
import { splitLines } from "../core/json/lines.js";
import type { BundleEntry } from "../core/results.js";
import { byteCompare } from "../core/text.js";
import { readChunks } from "../io/bundle-source.js";
import { redact } from "../core/redact.js";

export interface EvidencePack {
  /** What goes in the user turn: every part, capped and redacted, inside untrusted-data tags. */
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
const OPEN = "<untrusted-evidence>";
const CLOSE = "</untrusted-evidence>";

/** Head and tail of `text` when it is over `cap`, saying how much was cut. */
export function capText(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const head = Math.ceil(cap * 0.6);
  const tail = cap - head;
  return `${text.slice(0, head)}\n[… cut ${text.length - cap} characters …]\n${text.slice(text.length - tail)}`;
}

export function buildPack(parts: readonly Part[]): EvidencePack {
  const body = parts
    // Redact first: a cut could split a credential into pieces no pattern recognises.
    .map((p) => `=== ${p.name} ===\n${capText(redact(p.text), p.cap)}`)
    .join("\n\n")
    // No text inside may close (or reopen) the untrusted block.
    .replace(/<(\/?)untrusted-evidence/gi, "<$1untrusted_evidence");
  const text = `${OPEN}\n${body}\n${CLOSE}`;
  return { text, digest: sha256(text) };
}

/** A regular file's text (never a link, FIFO or folder), read up to a bound; null when absent. */
function readText(file: string, bound = 1024 * 1024): string | null {
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (st === undefined || !st.isFile()) return null;
  const chunks: Buffer[] = [];
  let n = 0;
  for (const c of readChunks(file)) {
    chunks.push(Buffer.from(c));
    if ((n += c.length) >= bound) break;
  }
  const text = Buffer.concat(chunks).subarray(0, bound).toString("utf8");
  return n > bound || st.size > bound ? `${text}\n[… file continues: ${st.size} bytes in all …]` : text;
}

const part = (name: string, text: string | null, cap: number = CAPS.part): Part[] => (text === null ? [] : [{ name, text, cap }]);

/** The hard result as the tool computed it (ground truth for the model), without where it lies. */
function hardResult(entry: BundleEntry): Part {
  const { path: _p, advisory: _a, ...hard } = entry;
  return { name: "hard result (computed by assay from the evidence; not the agent's claim)", text: JSON.stringify(hard, null, 1), cap: CAPS.part };
}

/**
 * Visit a journal's records as a stream (a journal may be GBs): each with its line number, its
 * type, and its text redacted and cut to MAX_LINE (marked). Only what the visitor keeps stays in memory.
 */
function scanJournal(file: string, visit: (line: number, type: string, text: string) => void): void {
  for (const raw of splitLines(readChunks(file))) {
    if (raw.bytes === null) continue;
    const text = raw.bytes.toString("utf8");
    let rec: unknown;
    try {
      rec = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof rec === "object" && rec !== null) visit(raw.number, String((rec as { type?: unknown }).type), capText(redact(text), MAX_LINE));
  }
}

/** Native game: header, summary, hard result, the last observation, final score, end, and the last key batches. */
export function nativePack(dir: string, entry: BundleEntry): EvidencePack {
  const KEYS = 8;
  let lastObservation: [number, string] | null = null;
  const keys: [number, string][] = [];
  const fixed = new Map<number, string>();
  scanJournal(join(dir, "journal.jsonl"), (line, type, text) => {
    if (type === "observation") lastObservation = [line, text];
    else if (type === "keys") {
      keys.push([line, text]);
      if (keys.length > KEYS) keys.shift();
    } else if (line === 1 || type === "score" || type === "end") fixed.set(line, text);
  });
  const numbered = (xs: [number, string][]) => xs.map(([n, t]) => `journal.jsonl:${n} ${t}`).join("\n");
  const header = fixed.get(1) ?? null;
  fixed.delete(1);
  return buildPack([
    hardResult(entry),
    ...part("journal.jsonl line 1 (session header)", header, CAPS.small),
    ...part("summary.json", readText(join(dir, "summary.json")), CAPS.small),
    ...part("journal.jsonl: the last observation (the ending, if any)", lastObservation && numbered([lastObservation])),
    ...part("journal.jsonl: score and end records", fixed.size ? numbered([...fixed]) : null, CAPS.small),
    ...part(`journal.jsonl: the last ${KEYS} key batches`, keys.length ? numbered(keys) : null, CAPS.small),
  ]);
}

/** World: hard result, scenario, and every journal or world record a dimension's detail names. */
export function worldPack(dir: string, entry: BundleEntry): EvidencePack {
  const named = { "journal.jsonl": new Set<number>(), "world.jsonl": new Set<number>() };
  for (const d of Object.values(entry.dimensions ?? {}))
    for (const m of d.detail.matchAll(/\b(journal|world)\.jsonl:(\d+)/g)) named[`${m[1] as "journal" | "world"}.jsonl`].add(Number(m[2]));
  const lines = (f: keyof typeof named) => {
    const picked: string[] = [];
    scanJournal(join(dir, f), (n, _, text) => void (named[f].has(n) && picked.push(`${f}:${n} ${text}`)));
    return picked.length ? picked.join("\n") : null;
  };
  return buildPack([
    hardResult(entry),
    ...part("scenario.json", readText(join(dir, "scenario.json")), CAPS.part),
    ...part("journal.jsonl: the records the dimensions name", lines("journal.jsonl")),
    ...part("world.jsonl: the records the dimensions name", lines("world.jsonl")),
  ]);
}

/** Harbor trial: hard result, result.json, the trajectory (capped), test output and exception. */
export function harborPack(dir: string, entry: BundleEntry): EvidencePack {
  const steps = (lstatSync(join(dir, "steps"), { throwIfNoEntry: false })?.isDirectory() ? readdirSync(join(dir, "steps")) : []).sort(byteCompare);
  const perStep = (rel: string, label: string, cap: number) => steps.flatMap((s) => part(`steps/${s}/${rel} (${label})`, readText(join(dir, "steps", s, rel)), cap));
  return buildPack([
    hardResult(entry),
    ...part("result.json", readText(join(dir, "result.json"))),
    ...part("exception.txt", readText(join(dir, "exception.txt")), CAPS.small),
    ...part("agent/trajectory.json", readText(join(dir, "agent/trajectory.json"), 8 * 1024 * 1024), CAPS.trajectory),
    ...perStep("agent/trajectory.json", "step trajectory", CAPS.small * 2),
    ...part("verifier/test-stdout.txt", readText(join(dir, "verifier/test-stdout.txt")), CAPS.small),
    ...perStep("verifier/test-stdout.txt", "step test output", CAPS.small),
  ]);
}

/** A task folder (Harbor layout): instruction, task config, tests, solution, environment. */
export function taskPack(dir: string): EvidencePack {
  const tree = (sub: string, cap: number): Part[] => {
    const root = join(dir, sub);
    if (!lstatSync(root, { throwIfNoEntry: false })?.isDirectory()) return [];
    const files: string[] = [];
    const walk = (rel: string) => {
      for (const name of readdirSync(join(root, rel)).sort(byteCompare)) {
        const p = rel ? `${rel}/${name}` : name;
        const st = lstatSync(join(root, p));
        if (st.isDirectory()) walk(p);
        else if (st.isFile()) files.push(p);
      }
    };
    walk("");
    const text = files.map((f) => `--- ${sub}/${f} ---\n${readText(join(root, f), 256 * 1024)}`).join("\n");
    return files.length ? [{ name: `${sub}/ (${files.length} files)`, text, cap }] : [];
  };
  return buildPack([
    ...part("instruction.md", readText(join(dir, "instruction.md"))),
    ...part("task.toml", readText(join(dir, "task.toml")), CAPS.small),
    ...tree("tests", CAPS.tests),
    ...tree("solution", CAPS.part),
    ...tree("environment", CAPS.part),
  ]);
}

/** The pack for a scored entry, by profile. */
export function packFor(dir: string, entry: BundleEntry): EvidencePack {
  return entry.profile === "harbor" ? harborPack(dir, entry) : entry.profile === "world" ? worldPack(dir, entry) : nativePack(dir, entry);
}
