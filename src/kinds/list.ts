// Every kind assay reads, named once: its declaration (data both threads and core read), its
// main-process face (kind.ts: words, recogniser, batch rules, evidence pack) and its workers' scorer
// (scorer.ts), both loaded only when asked for. A folder in src/kinds/ with these three files, and
// its line here, is a kind; a kind missing a part (or a part missing a member) does not compile.
// The order is the codes' and the schema's enumerations'; reports list folder kinds first, then the
// kinds read as files (registry.ts). test/kinds.test.ts checks every folder is listed and runs the
// same test over each.
import type { KindName } from "./declared.js";
import type { Kind } from "./kind.js";
import type { Scorer } from "./scorer.js";
import type { KindSynth } from "./synth.js";
import { bundleDeclaration } from "./bundle/declaration.js";
import { harborDeclaration } from "./harbor/declaration.js";
import { inspectDeclaration } from "./inspect/declaration.js";
import { sweBenchDeclaration } from "./swe-bench/declaration.js";
import { terminalBenchDeclaration } from "./terminal-bench/declaration.js";

/** What every kind's declaration holds (each is `as const`, so its lists are literal types). */
export interface Declaration {
  readonly name: string;
  /** What a worker scores: a folder (listed, digested, stored by its digest) or one file read in place. */
  readonly form: "folder" | "file";
  readonly profiles: readonly string[];
  readonly states: readonly string[];
  /** The states whose rewards are scored per task unit (kinds whose entries carry per-task rewards). */
  readonly scored?: readonly string[];
  readonly codes: Readonly<Record<string, string>>;
  /** The file an assay seal is kept in, out of the digest (null: the kind carries no seal). */
  readonly seal: string | null;
  /** Why `assay seal` passes it over (null: it seals). */
  readonly unsealed: string | null;
}

interface Listed {
  readonly declaration: Declaration;
  kind(): Promise<Kind>;
  scorer(): Promise<Scorer>;
  /** Optional: its part of `assay synth` and `assay demo` (kinds/synth.ts), loaded when asked for. */
  synth?(): Promise<KindSynth>;
}

export const KIND_LIST = [
  {
    declaration: bundleDeclaration,
    kind: async () => (await import("./bundle/kind.js")).bundleKind,
    scorer: async () => (await import("./bundle/scorer.js")).bundleScorer,
  },
  {
    declaration: harborDeclaration,
    kind: async () => (await import("./harbor/kind.js")).harborKind,
    scorer: async () => (await import("./harbor/scorer.js")).harborScorer,
  },
  {
    declaration: inspectDeclaration,
    kind: async () => (await import("./inspect/kind.js")).inspectKind,
    scorer: async () => (await import("./inspect/scorer.js")).inspectScorer,
  },
  {
    declaration: terminalBenchDeclaration,
    kind: async () => (await import("./terminal-bench/kind.js")).terminalBenchKind,
    scorer: async () => (await import("./terminal-bench/scorer.js")).terminalBenchScorer,
  },
  {
    declaration: sweBenchDeclaration,
    kind: async () => (await import("./swe-bench/kind.js")).sweBenchKind,
    scorer: async () => (await import("./swe-bench/scorer.js")).sweBenchScorer,
    synth: async () => (await import("./swe-bench/synth.js")).sweBenchSynth,
  },
] as const satisfies readonly Listed[];

/** A kind's scorer, loaded when first asked for (a worker's first thing of that kind; a failed worker's thing). */
export const scorerOf = (name: KindName): Promise<Scorer> =>
  KIND_LIST.find((k) => k.declaration.name === name)!.scorer();

/** Every listed kind's synth part, in the list's order (`assay synth --profile`, `assay demo`, their help). */
export const listedSynths = (): Promise<KindSynth[]> =>
  Promise.all((KIND_LIST as readonly Listed[]).flatMap((k) => (k.synth ? [k.synth()] : [])));
