// A container kind's experiments are named after their folders (a Terminal-Bench run, a SWE-bench
// model folder): a name's first folder in path byte order keeps it, later ones become `#2`, `#3`…,
// never a name another folder already has (a copied archive is told apart, never merged into one).
import { byteCompare } from "../text.js";

/** Each path's experiment name, from its base name (null: no name, kept as null). */
export function containerNames(
  paths: Iterable<string>,
  baseOf: (path: string) => string | null,
): Map<string, string | null> {
  const sorted = [...paths].sort(byteCompare);
  const used = new Set(sorted.map(baseOf).filter((b) => b !== null));
  const first = new Set<string>();
  const names = new Map<string, string | null>();
  for (const path of sorted) {
    const base = baseOf(path);
    if (base === null || !first.has(base)) {
      names.set(path, base);
      if (base !== null) first.add(base);
      continue;
    }
    let n = 2;
    while (used.has(`${base}#${n}`)) n++;
    used.add(`${base}#${n}`);
    names.set(path, `${base}#${n}`);
  }
  return names;
}
