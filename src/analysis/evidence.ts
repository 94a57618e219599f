// Evidence packs (analysis.md §5): what the model sees of a scored entry (its kind's pack:
// kinds/pack.ts builds them) or of a task folder before launch.

import type { BundleEntry } from "../core/results.js";
import { kindOfEntry } from "../kinds/registry.js";
import { buildPack, CAPS, part, readText, subfolderEntries, type EvidencePack, type Part } from "../kinds/pack.js";

export type { EvidencePack } from "../kinds/pack.js";

/** Files read per folder of a task (tests/, solution/, environment/), and bytes read of each. */
const MAX_FILES = 64;
const FILE_BOUND = 256 * 1024;

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
    return files.length
      ? [{ name: `${sub}/ (${files.length}${files.length >= MAX_FILES ? "+" : ""} files)`, text, cap }]
      : [];
  };
  return buildPack([
    ...part("instruction.md", readText(dir, "instruction.md")),
    ...part("task.toml", readText(dir, "task.toml"), CAPS.small),
    ...tree("tests", CAPS.tests),
    ...tree("solution", CAPS.part),
    ...tree("environment", CAPS.part),
  ]);
}

/** The pack for a scored entry: its kind's (an entry naming no profile this version knows: a native bundle's). */
export const packFor = (dir: string, entry: BundleEntry): EvidencePack => kindOfEntry(entry.profile).pack(dir, entry);
