// A container kind's experiments are named after their folders (a Terminal-Bench run, a SWE-bench
// model folder): a name's first folder in path byte order keeps it, later ones become `#2`, `#3`…,
// never a name another folder already has (a copied archive is told apart, never merged into one).
import type { Finding } from "../codes.js";
import type { Experiment } from "../results.js";
import { byteCompare } from "../text.js";
import type { KindBatch } from "./kind.js";
import type { BatchRecord } from "./record.js";

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

/** A container's experiment, and the hard findings its rules give each of its members (by the record's path): bundles[] says them too. */
export interface JudgedContainer {
  experiment: Experiment;
  errors: Map<string, Finding[]>;
}

/**
 * A container kind's batch (a Terminal-Bench run, a SWE-bench model folder): its records grouped
 * by container (`job`; every container the book found is one, members or not), each named by
 * containerNames over `baseOf`, and judged once, when its experiment or a member's findings are
 * first asked for.
 */
export function containerBatch(
  records: readonly BatchRecord[],
  containers: readonly string[],
  baseOf: (path: string, first: BatchRecord | undefined) => string | null,
  judge: (name: string | null, path: string, members: BatchRecord[]) => JudgedContainer,
): KindBatch {
  const groups = new Map<string, BatchRecord[]>(containers.map((p) => [p, []]));
  for (const r of records) {
    const key = r.job ?? "";
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(r);
  }
  const names = containerNames(groups.keys(), (path) => baseOf(path, groups.get(path)![0]));
  const judged = new Map<string, JudgedContainer>();
  const judgedOf = (path: string): JudgedContainer => {
    let j = judged.get(path);
    if (j === undefined) judged.set(path, (j = judge(names.get(path) ?? null, path, groups.get(path)!)));
    return j;
  };
  return {
    nameOf: (e) => names.get(e.job ?? "") ?? e.experiment,
    experiments: () => [...groups.keys()].map((path) => judgedOf(path).experiment),
    errorsOf: (e) => (groups.has(e.job ?? "") ? (judgedOf(e.job ?? "").errors.get(e.path) ?? []) : []),
  };
}
