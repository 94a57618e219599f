// What changed, unit by unit (issue 37), pure: for a headline metric of two runs, every unit whose
// value differs (flipped between 0 and 1, or moved) with each side's value and where its evidence
// is, and the units one side alone counts; for many runs, a unit × run matrix of values. Only the
// units' own arrays are read: no entry is held.

import { byteCompare } from "../text.js";
import type { UnitChange } from "./schema.js";
import { sameTask, type Units } from "./trials.js";

type UnitSide = NonNullable<UnitChange["base"]>;

/** Differences this small are floating-point noise (a task's mean summed in another order), not a change. */
const NOISE = 1e-12;

/** Unit `i` of a side as a change shows it. */
function sideAt(u: Units, i: number): UnitSide {
  const log = u.log ?? null;
  return {
    value: u.values[i]!,
    trials: u.trials?.[i] ?? 1,
    zeroed: u.zeroed?.[i] ?? 0,
    evidence: log !== null ? `${log}#${u.ids[i]}` : (u.paths?.[i] ?? null),
  };
}

const binary = (v: number) => v === 0 || v === 1;

/** What happened to a unit both sides count as one: null where its value is the same. */
function kindOf(b: number, h: number): UnitChange["change"] | null {
  if (Math.abs(h - b) <= NOISE) return null;
  if (binary(b) && binary(h)) return b === 1 ? "pass_to_fail" : "fail_to_pass";
  return "moved";
}

/** The order changes are listed in: flips, then moved units, then those that are not one unit on both sides. */
const RANK: Record<UnitChange["change"], number> = {
  pass_to_fail: 0,
  fail_to_pass: 0,
  moved: 1,
  checksum_changed: 2,
  only_base: 3,
  only_head: 4,
};

/** Flips first, then |delta| largest first, then each kind of unpaired unit; ties in byte order of the unit. */
function byChange(a: UnitChange, b: UnitChange): number {
  return (
    RANK[a.change] - RANK[b.change] || Math.abs(b.delta ?? 0) - Math.abs(a.delta ?? 0) || byteCompare(a.unit, b.unit)
  );
}

/**
 * Every unit of `base` and `head` (one headline metric) whose value differs or that one side alone
 * counts, sorted by `byChange`; never an unchanged unit. Null where a side's units are not known
 * (`reason`: an Inspect log without per-sample values), so nothing could be told.
 */
export function unitChanges(base: Units, head: Units): UnitChange[] | null {
  if (base.reason !== null || head.reason !== null) return null;
  const index = new Map<string, number>();
  base.ids.forEach((id, i) => index.set(id, i));
  const out: UnitChange[] = [];
  head.ids.forEach((id, j) => {
    const i = index.get(id);
    const h = sideAt(head, j);
    if (i === undefined) return void out.push({ unit: id, change: "only_head", base: null, head: h, delta: null });
    index.delete(id);
    const b = sideAt(base, i);
    if (!sameTask(base.checksums?.[i] ?? null, head.checksums?.[j] ?? null))
      return void out.push({ unit: id, change: "checksum_changed", base: b, head: h, delta: null });
    const change = kindOf(b.value, h.value);
    if (change !== null) out.push({ unit: id, change, base: b, head: h, delta: h.value - b.value });
  });
  for (const i of index.values())
    out.push({ unit: base.ids[i]!, change: "only_base", base: sideAt(base, i), head: null, delta: null });
  return out.sort(byChange);
}

/** Rows a unit × run matrix shows unless told otherwise. */
export const MATRIX_ROWS = 50;

/** Units (rows) by run (columns, in the order given): each value, null where the run does not count the unit. */
export interface UnitMatrix {
  labels: string[];
  /** `same_task` false: a Harbor task whose task_checksum differs between runs (or within one), so its values are of different tasks. */
  rows: { unit: string; values: (number | null)[]; same_task: boolean }[];
  /** Every unit some run counts: `rows` holds the first `cap` of them. */
  total: number;
}

/** How far a row's values spread (largest − smallest over the runs that count it). */
const spread = (values: readonly (number | null)[]) => {
  const held = values.filter((v): v is number => v !== null);
  return held.length === 0 ? 0 : Math.max(...held) - Math.min(...held);
};
const missing = (values: readonly (number | null)[]) => values.filter((v) => v === null).length;

/**
 * The units of several runs of one headline metric as a matrix: rows whose values spread most
 * first, then those some run does not count, then in byte order of the unit; the first `cap` rows.
 */
export function unitMatrix(columns: readonly { label: string; units: Units }[], cap = MATRIX_ROWS): UnitMatrix {
  const byUnit = new Map<string, { values: (number | null)[]; checksum: string | null; same_task: boolean }>();
  columns.forEach(({ units }, c) =>
    units.ids.forEach((id, i) => {
      let row = byUnit.get(id);
      if (row === undefined)
        byUnit.set(
          id,
          (row = { values: Array<number | null>(columns.length).fill(null), checksum: null, same_task: true }),
        );
      row.values[c] = units.values[i]!;
      const checksum = units.checksums?.[i] ?? null;
      row.same_task &&= sameTask(row.checksum, checksum);
      row.checksum ??= checksum;
    }),
  );
  const rows = [...byUnit].map(([unit, { values, same_task }]) => ({
    unit,
    values,
    same_task,
    spread: spread(values),
    missing: missing(values),
  }));
  rows.sort((a, b) => b.spread - a.spread || b.missing - a.missing || byteCompare(a.unit, b.unit));
  return {
    labels: columns.map((c) => c.label),
    rows: rows.slice(0, cap).map(({ unit, values, same_task }) => ({ unit, values, same_task })),
    total: rows.length,
  };
}
