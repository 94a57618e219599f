// --dataset FILE: the benchmark's own task list (SWE-bench's instances), checked before the run by
// every kind that reads one, so a wrong file is refused at once rather than as one finding per unit.
// The run carries its path and digest; each worker reads it once and checks it is still those bytes.
import { createHash } from "node:crypto";
import type { DatasetFile } from "../core/folder.js";
import { forTerminal } from "../core/text.js";
import { readChunks } from "../io/bundle-source.js";
import { declarationOf, type KindName } from "../kinds/declared.js";
import { KINDS } from "../kinds/registry.js";
import type { Tally } from "../core/results.js";
import { UsageError } from "./exit.js";

export interface GivenDataset {
  file: DatasetFile;
  /** The kinds that read it (every kind with a dataset reader that took it). */
  readers: KindName[];
}

export function checkDataset(file: string): GivenDataset {
  if (file === "") throw new UsageError("--dataset needs a file");
  const readers: KindName[] = [];
  const refusals: string[] = [];
  for (const k of KINDS) {
    if (k.dataset === undefined) continue;
    const r = k.dataset.check(file);
    if (r.ok) readers.push(k.name);
    else refusals.push(`not ${k.dataset.describe}: ${forTerminal(r.why)}`);
  }
  if (readers.length === 0) throw new UsageError(`--dataset ${forTerminal(file)} is ${refusals.join("; ")}`);
  const hash = createHash("sha256");
  for (const c of readChunks(file)) hash.update(c);
  return { file: { file, sha256: hash.digest("hex") }, readers };
}

/**
 * Nothing compared is not a pass: a dataset no unit was checked against (no unit of a kind that
 * reads one was scored), said, or null. Asked of a whole run: a shard may hold none of them.
 */
export function checkedNothing(file: string, tally: Tally): string | null {
  const readers = KINDS.filter((k) => k.dataset !== undefined).map((k) => k.name);
  const profiles = readers.flatMap((k) => declarationOf(k).profiles as readonly string[]);
  if (profiles.some((p) => (tally.byProfile[p] ?? 0) > 0)) return null;
  return `--dataset ${forTerminal(file)} checked nothing: no ${readers.join(" or ")} evidence was scored`;
}
