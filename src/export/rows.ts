// An entry of a results document → its row in `entries` and its rows in `units` (tables.ts).
// Neutral: a kind's face says where its evidence is (Kind.evidence) and, for a kind whose entry
// holds many units (Inspect's samples × epochs), reads them from the evidence (Kind.units); every
// other entry is its own one unit, its metrics read from the fields every kind shares.

import type { BundleEntry, Experiment } from "../core/results.js";
import type { Usage } from "../core/usage.js";
import type { Kind, UnitOf } from "../kinds/kind.js";
import { kindOfEntry } from "../kinds/registry.js";

/** A row: one value per column of its table, in order (null: SQL NULL). */
export type Value = string | number | boolean | null | Readonly<Record<string, number | null>>;
export type Row = Value[];

/** What every row of an entry says of its run. */
function identity(document: string, e: BundleEntry): Value[] {
  const id = e.identity;
  return [
    document,
    e.experiment,
    id?.agent ?? null,
    id?.model ?? e.inspect?.model ?? null,
    id?.benchmark?.name ?? null,
    e.task,
  ];
}

const usage = (u: Usage | null): Value[] => [
  u?.input_tokens ?? null,
  u?.output_tokens ?? null,
  u?.cache_read_tokens ?? null,
  u?.cost_usd ?? null,
];

/** An entry that is its own unit: its metrics from the fields the kinds share (rewards, victory, pass, dimensions). */
export function entryScores(e: BundleEntry): Record<string, number | null> {
  const out: Record<string, number | null> = { ...(e.rewards ?? {}) };
  if (e.victory !== null) out["victory"] = e.victory ? 1 : 0;
  if (e.pass !== null) out["pass"] = e.pass ? 1 : 0;
  for (const [d, v] of Object.entries(e.dimensions ?? {})) out[`dimensions.${d}`] = v.pass ? 1 : 0;
  return out;
}

/** The entry's state in one word: Harbor's or Inspect's state, else a bundle's status. */
const stateOf = (e: BundleEntry): string | null => (e.validity === "error" ? "tool error" : (e.state ?? e.status));

/** The unit row of an entry that is its own unit. */
export function entryUnit(document: string, e: BundleEntry, kind: Kind): Row {
  const ev = kind.evidence?.(e.path) ?? { file: null, open: null };
  return [
    e.path,
    e.path,
    kind.name,
    e.profile,
    ...identity(document, e),
    e.trial ?? e.task,
    null,
    e.attempt,
    stateOf(e),
    e.validity,
    entryScores(e),
    ...usage(e.usage),
    e.path,
    ev.file,
    ev.open,
    ev.at ?? null,
    null,
  ];
}

/** One row of an entry holding many units (Inspect: a sample's epoch). */
export function manyUnit(document: string, e: BundleEntry, kind: Kind, u: UnitOf): Row {
  const ev = kind.evidence?.(e.path, u.epoch === null ? undefined : { id: u.unit, epoch: u.epoch }) ?? {
    file: null,
    open: null,
  };
  return [
    `${e.path}#${u.unit}@${u.epoch ?? ""}`,
    e.path,
    kind.name,
    e.profile,
    ...identity(document, e),
    u.unit,
    u.epoch,
    null,
    u.state,
    e.validity,
    u.scores,
    ...usage(u.usage),
    e.path,
    u.file,
    ev.open,
    ev.at ?? null,
    u.detail,
  ];
}

/** An entry's row in `entries`. */
export function entryRow(document: string, e: BundleEntry): Row {
  const codes = [...new Set([...e.errors, ...e.warnings].map((f) => f.code))].join(" ");
  return [
    e.path,
    kindOfEntry(e.profile).name,
    e.profile,
    ...identity(document, e),
    e.trial,
    e.attempt,
    e.validity,
    e.state,
    e.status,
    codes,
    [...new Set(e.flags.map((f) => f.code))].join(" "),
    ...usage(e.usage),
    e.digest,
    JSON.stringify(e),
  ];
}

export const experimentRow = (document: string, x: Experiment): Row => [
  document,
  x.experiment,
  x.profile,
  x.scheduled,
  JSON.stringify(x),
];
