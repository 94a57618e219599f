// Every archive kind assay reads, declared once: its name, its profiles, its entries' states and
// its own finding codes. The results schema, the code registry and the compact record derive their
// enumerations from this list, so a new kind adds its line here and nothing to them.
import { bundleDeclaration } from "./bundle/declaration.js";
import { harborDeclaration } from "./harbor/declaration.js";
import { inspectDeclaration } from "./inspect/declaration.js";
import { terminalBenchDeclaration } from "./terminal-bench/declaration.js";

export const DECLARED = [bundleDeclaration, harborDeclaration, inspectDeclaration, terminalBenchDeclaration] as const;

type Declared = (typeof DECLARED)[number];
export type KindName = Declared["name"];
export type DeclaredProfile = Declared["profiles"][number];
export type DeclaredState = Declared["states"][number];

/** Every profile, in the kinds' order. */
export const DECLARED_PROFILES = DECLARED.flatMap((d) => d.profiles) as unknown as readonly [DeclaredProfile, ...DeclaredProfile[]];
/** Every entry state, each once, in the kinds' order. */
export const DECLARED_STATES = [...new Set(DECLARED.flatMap((d) => d.states as readonly DeclaredState[]))] as unknown as readonly [DeclaredState, ...DeclaredState[]];

type Union<T> = (T extends unknown ? (x: T) => void : never) extends (x: infer I) => void ? I : never;
/** The codes the kinds add to the contract's, by code. */
export const KIND_CODES = Object.assign({}, ...DECLARED.map((d) => d.codes)) as Union<Declared["codes"]>;

/** The kind whose entries carry this profile. */
export function kindOfProfile(profile: string | null): KindName | null {
  return DECLARED.find((d) => (d.profiles as readonly string[]).includes(profile ?? ""))?.name ?? null;
}

/** The profiles whose entries carry per-task rewards (Harbor, Terminal-Bench), each with the states whose rewards are scored. */
export const SCORED_STATES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  DECLARED.flatMap((d) => ("scored" in d ? d.profiles.map((p): [string, ReadonlySet<string>] => [p, new Set<string>(d.scored)]) : [])),
);

/** A kind's declaration. */
export const declarationOf = (kind: KindName): Declared => DECLARED.find((d) => d.name === kind)!;
