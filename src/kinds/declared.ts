// What the kinds declare (kinds/list.ts): their names, profiles, entries' states and own finding
// codes. The results schema, the code registry and the compact record derive their enumerations
// from these, so a new kind adds its line to the list and nothing to them. Data only: core reads it.
import { z } from "zod";
import type { Finding } from "../core/codes.js";
import { KIND_LIST } from "./list.js";

type Declared = (typeof KIND_LIST)[number]["declaration"];
export const DECLARED: readonly Declared[] = KIND_LIST.map((k) => k.declaration);
export type KindName = Declared["name"];
export type DeclaredProfile = Declared["profiles"][number];
export type DeclaredState = Declared["states"][number];

/** Every profile, in the kinds' order. */
export const DECLARED_PROFILES = DECLARED.flatMap((d) => d.profiles) as unknown as readonly [
  DeclaredProfile,
  ...DeclaredProfile[],
];
/** Every entry state, each once, in the kinds' order. */
export const DECLARED_STATES = [
  ...new Set(DECLARED.flatMap((d) => d.states as readonly DeclaredState[])),
] as unknown as readonly [DeclaredState, ...DeclaredState[]];

type Union<T> = (T extends unknown ? (x: T) => void : never) extends (x: infer I) => void ? I : never;
/** The codes the kinds add to the contract's, by code. */
export const KIND_CODES = Object.assign({}, ...DECLARED.map((d) => d.codes)) as Union<Declared["codes"]>;

/** The kind whose entries carry this profile. */
export function kindOfProfile(profile: string | null): KindName | null {
  return DECLARED.find((d) => (d.profiles as readonly string[]).includes(profile ?? ""))?.name ?? null;
}

/** The profiles whose entries carry per-task rewards (Harbor, Terminal-Bench), each with the states whose rewards are scored. */
export const SCORED_STATES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  DECLARED.flatMap((d) =>
    "scored" in d ? d.profiles.map((p): [string, ReadonlySet<string>] => [p, new Set<string>(d.scored)]) : [],
  ),
);

/** A kind's declaration. */
export const declarationOf = (kind: KindName): Declared => DECLARED.find((d) => d.name === kind)!;

/** What some kinds' entries carry beyond the shared fields: each such kind's one optional object, by its field name. */
export type EntryParts = {
  [D in Declared as D extends { entry: { field: infer F extends string } } ? F : never]: D extends {
    entry: { schema: infer S extends z.ZodType };
  }
    ? z.ZodOptional<S>
    : never;
};
export const entryParts = (): EntryParts =>
  Object.fromEntries(
    DECLARED.flatMap((d) => ("entry" in d ? [[d.entry.field, d.entry.schema.optional()]] : [])),
  ) as EntryParts;

/** What some kinds' experiments carry beyond the shared fields: each such kind's one optional object, by its field name (as `entry` is for entries). */
export type ExperimentParts = {
  [D in Declared as D extends { experiment: { field: infer F extends string } } ? F : never]: D extends {
    experiment: { schema: infer S extends z.ZodType };
  }
    ? z.ZodOptional<S>
    : never;
};
export const experimentParts = (): ExperimentParts =>
  Object.fromEntries(
    (DECLARED as readonly { experiment?: { field: string; schema: z.ZodType } }[]).flatMap((d) =>
      d.experiment === undefined ? [] : [[d.experiment.field, d.experiment.schema.optional()]],
    ),
  ) as ExperimentParts;

/** The kinds with container records of their own (`run.containers[name]`), each an array of its schema over the given finding schema. */
export type ContainerParts = {
  [D in Declared as D extends { containers: unknown } ? D["name"] : never]: D extends {
    containers: (f: never) => infer S extends z.ZodType;
  }
    ? z.ZodArray<S>
    : never;
};
export const containerParts = (finding: z.ZodType<Finding>): ContainerParts =>
  Object.fromEntries(
    DECLARED.flatMap((d) => ("containers" in d ? [[d.name, z.array(d.containers(finding))]] : [])),
  ) as unknown as ContainerParts;
