// Which trials are repeats of one task, for pass@k, pass^k and the interval's clusters (contract
// §11; research §D.5), in a reward key's metrics (reward-metrics.ts). A task is its task_name and
// an identity: the TaskLock digest (`sha256:…`, the trial's own lock.json in Harbor ≥ 0.20, else
// the job's lock.json for a name with one digest) or, failing that, the deprecated Task.checksum
// (a dirhash: another hash of the same task, so the two are never compared). Trials of one name
// that record identities of different kinds are grouped by the name alone, and that is said; so
// is a name with no identity at all. Pure.

import type { BatchRecord } from "./record.js";

type Kind = "digest" | "checksum" | "none";
const kindOf = (checksum: string | null): Kind =>
  checksum === null ? "none" : checksum.startsWith("sha256:") ? "digest" : "checksum";

const WORDS: Record<Kind, string> = {
  digest: "task_name and lock.json task.digest",
  checksum: "task_name and checksum",
  none: "task_name alone (no trial records a digest or checksum)",
};

/** Each trial's task key (null: it names no task), and what the keys rest on, in words. */
export function taskKeys(trials: readonly Pick<BatchRecord, "task" | "task_checksum">[]): {
  key: (t: Pick<BatchRecord, "task" | "task_checksum">) => string | null;
  identity: string | null;
} {
  const kinds = new Map<string, Set<Kind>>();
  for (const t of trials)
    if (t.task !== null) (kinds.get(t.task) ?? kinds.set(t.task, new Set()).get(t.task)!).add(kindOf(t.task_checksum));
  const mixed = new Set([...kinds].filter(([, k]) => k.size > 1).map(([name]) => name));
  const used = new Set([...kinds].filter(([name]) => !mixed.has(name)).map(([, k]) => [...k][0]!));
  const parts = [...(["digest", "checksum", "none"] as const)].filter((k) => used.has(k)).map((k) => WORDS[k]);
  if (mixed.size > 0)
    parts.push(
      `task_name alone for ${mixed.size} task${mixed.size === 1 ? "" : "s"} whose trials mix a lock digest, a checksum or none`,
    );
  return {
    key: (t) =>
      t.task === null
        ? null
        : mixed.has(t.task) || t.task_checksum === null
          ? t.task
          : `${t.task}\u0000${t.task_checksum}`,
    identity: parts.length === 0 ? null : parts.join("; "),
  };
}
