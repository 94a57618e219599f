// What `assay analyze` shows a model of an assay bundle (after assay's hard result).
import { join } from "node:path";
import type { BundleEntry } from "../../core/results.js";
import { buildPack, CAPS, numbered, part, readText, scanJournal, type EvidencePack } from "../pack.js";

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
      ...part(
        "journal.jsonl: the last observation (the ending, if any)",
        numbered(J, last.observation ? [last.observation] : []),
      ),
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
    for (const m of d.detail.matchAll(/\b(journal|world)\.jsonl:(\d+)/g))
      named[`${m[1] as "journal" | "world"}.jsonl`].add(Number(m[2]));
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
