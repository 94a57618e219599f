// Which experiments of different runs are runs of the same thing (issue 37), pure. By default an
// experiment matches the one of the same name (kind and id, names.ts), else of the same benchmark
// identity, else of the same task set; `--by` chooses one of the three, `--pair` names them. Each
// key is scoped to one kind (a Harbor job never matches an Inspect log). Where a key holds more than
// one candidate on a side of a two-run comparison, nothing is guessed: the candidates are reported.

import { benchmarkKey, valuesOf, type Identity } from "../identity.js";
import type { Experiment } from "../results.js";
import { kindOf, keyOf } from "./names.js";
import type { Units } from "./trials.js";

export const MATCH_BY = ["name", "benchmark", "tasks"] as const;
export type MatchBy = (typeof MATCH_BY)[number];
/** How a match was made: one of MATCH_BY, or named with `--pair`. */
export type MatchHow = MatchBy | "pair";

/** The key `x` matches others by under `by` (null: it has nothing to match by, e.g. no recorded benchmark). */
export function matchKey(x: Experiment, by: MatchBy): string | null {
  if (by === "name") return keyOf(x);
  const id = x.identity;
  if (id === null || x.experiment === null) return null;
  if (by === "benchmark") {
    const bs = valuesOf(id.benchmark);
    return bs.length === 0 ? null : JSON.stringify([kindOf(x), "benchmark", bs.map(benchmarkKey)]);
  }
  return id.tasks === null || id.tasks.count === 0
    ? null
    : JSON.stringify([kindOf(x), "tasks", id.tasks.unit, id.tasks.digest]);
}

/** What a key says, for people: the benchmark, or the task set's size and digest. */
export function describeKey(x: Experiment, by: MatchBy): string {
  const id = x.identity;
  if (by === "benchmark")
    return valuesOf(id?.benchmark ?? null)
      .map(
        (b) =>
          `${b.name}${b.version === null ? "" : ` v${b.version}`}${b.dataset === null || b.dataset === b.name ? "" : ` (${b.dataset})`}`,
      )
      .join(" + ");
  if (by === "tasks" && id?.tasks)
    return `the same ${id.tasks.count} ${id.tasks.unit}${id.tasks.count === 1 ? "" : "s"} (${id.tasks.digest.slice(0, 19)}…)`;
  return x.experiment ?? "(no id)";
}

/** The order criteria are tried in: the one `--by` names, or all three. */
export const criteria = (by: MatchBy | undefined): readonly MatchBy[] => (by === undefined ? MATCH_BY : [by]);

/**
 * One run's identity, for telling the same run given twice (an Inspect log as .eval and as .json, a
 * copied job folder) from two runs: everything it records, its start included. Null without a start
 * time: two runs of one agent, model and task set are not the same run unless their times say so.
 */
export function runKey(x: Experiment): string | null {
  const id: Identity | null = x.identity;
  if (id === null || id.started_at === null) return null;
  return JSON.stringify([
    kindOf(x),
    id.agent,
    id.model,
    id.benchmark,
    id.tasks?.digest ?? null,
    id.started_at,
    id.finished_at,
  ]);
}

/** An experiment's figures and counts (not where it lies): equal for one run given twice. */
const figuresOf = (x: Experiment) =>
  JSON.stringify([
    x.scheduled,
    x.accuracy,
    x.completion,
    x.pass,
    x.dimensions,
    x.rewards,
    x.inspect,
    x.states,
    x.invalid.length,
    x.excluded.length,
  ]);

/**
 * Whether `a` and `b` are one run given twice (an Inspect log as .eval and as .json, a copied job
 * folder, a document given twice): the same identity with its start (runKey), the same figures, and
 * the same value on every unit of every headline metric (`ua`, `ub`: each one's units by metric).
 * What tells a run given twice from two runs recorded alike (a Harbor task mean of 1 from four
 * trials or from one).
 */
export function sameRun(
  a: Experiment,
  ua: ReadonlyMap<string, Units> | undefined,
  b: Experiment,
  ub: ReadonlyMap<string, Units> | undefined,
): boolean {
  const k = runKey(a);
  if (k === null || k !== runKey(b) || figuresOf(a) !== figuresOf(b)) return false;
  const metrics = new Set([...(ua?.keys() ?? []), ...(ub?.keys() ?? [])]);
  for (const m of metrics) {
    const [x, y] = [ua?.get(m), ub?.get(m)];
    if (x === undefined || y === undefined || x.ids.length !== y.ids.length) return false;
    for (let i = 0; i < x.ids.length; i++)
      if (x.ids[i] !== y.ids[i] || !Object.is(x.values[i], y.values[i])) return false;
  }
  return true;
}

export interface Ambiguity {
  by: MatchBy;
  /** What the candidates share (a benchmark, a task set). */
  key: string;
  base: string[];
  head: string[];
}

export interface TwoSidedMatch {
  matched: { base: Experiment; head: Experiment; how: MatchHow }[];
  onlyBase: Experiment[];
  onlyHead: Experiment[];
  ambiguous: Ambiguity[];
}

/**
 * BASE's experiments matched with HEAD's: the `pairs` first, then by each criterion in turn over
 * what is left. A key with one candidate on each side matches; a key with more on either side is
 * ambiguous: reported with its candidates, and its experiments are matched by no later criterion.
 */
export function matchTwo(
  base: readonly Experiment[],
  head: readonly Experiment[],
  pairs: readonly (readonly [Experiment, Experiment])[],
  by: MatchBy | undefined,
  names: ReadonlyMap<Experiment, string>,
): TwoSidedMatch {
  const matched: TwoSidedMatch["matched"] = pairs.map(([b, h]) => ({ base: b, head: h, how: "pair" as const }));
  const used = new Set<Experiment>(pairs.flat());
  const ambiguous: Ambiguity[] = [];
  for (const c of criteria(by)) {
    const buckets = new Map<string, { base: Experiment[]; head: Experiment[] }>();
    const put = (x: Experiment, side: "base" | "head") => {
      const k = used.has(x) ? null : matchKey(x, c);
      if (k === null) return;
      const b = buckets.get(k) ?? { base: [], head: [] };
      buckets.set(k, b);
      b[side].push(x);
    };
    for (const x of base) put(x, "base");
    for (const x of head) put(x, "head");
    for (const b of buckets.values()) {
      if (b.base.length === 0 || b.head.length === 0) continue;
      if (b.base.length === 1 && b.head.length === 1) matched.push({ base: b.base[0]!, head: b.head[0]!, how: c });
      else
        ambiguous.push({
          by: c,
          key: describeKey(b.base[0]!, c),
          base: b.base.map((x) => names.get(x)!),
          head: b.head.map((x) => names.get(x)!),
        });
      for (const x of [...b.base, ...b.head]) used.add(x);
    }
  }
  const inMatch = new Set(matched.flatMap((m) => [m.base, m.head]));
  return {
    matched,
    onlyBase: base.filter((x) => !inMatch.has(x)),
    onlyHead: head.filter((x) => !inMatch.has(x)),
    ambiguous,
  };
}

/** One run in a group: its document's index on the command line and its experiment. */
export interface Member {
  side: number;
  x: Experiment;
}

export interface Group {
  how: MatchHow;
  members: Member[];
}

/**
 * Runs grouped for a ranking, over any number of documents: `pairs` (each a group named with
 * `--pair`), then by each criterion in turn over the runs not yet in a group of two or more. A group
 * holds every run of its key, however many (ranking needs no one-to-one match).
 */
export function groupRuns(
  runs: readonly Member[],
  pairs: readonly (readonly Member[])[],
  by: MatchBy | undefined,
): { groups: Group[]; single: Member[] } {
  const groups: Group[] = pairs.map((members) => ({ how: "pair", members: [...members] }));
  const used = new Set<Experiment>(pairs.flatMap((g) => g.map((m) => m.x)));
  for (const c of criteria(by)) {
    const buckets = new Map<string, Member[]>();
    for (const m of runs) {
      const k = used.has(m.x) ? null : matchKey(m.x, c);
      if (k === null) continue;
      const b = buckets.get(k) ?? [];
      buckets.set(k, b);
      b.push(m);
    }
    for (const members of buckets.values()) {
      if (members.length < 2) continue;
      groups.push({ how: c, members });
      for (const m of members) used.add(m.x);
    }
  }
  return { groups, single: runs.filter((m) => !used.has(m.x)) };
}
