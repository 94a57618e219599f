// What a kind may add to `assay synth` and `assay demo` (its line's optional `synth()` in list.ts):
// a deterministic corpus of its evidence, laid out as its harness writes it, each planned unit
// labelled with the verdict assay must reach. Pure: paths and bytes; writing is src/io/corpus.ts's.
// Both are generators read as they are written, so a million units are never in memory at once.

export interface KindSynthOptions {
  n: number;
  seed: string;
  /** The experiment's name where the kind lets the corpus choose it (default: the kind's own). */
  experiment?: string;
}

/** One file of the corpus: its path under the corpus root, and its bytes in pieces made as they are read. */
export type KindSynthFile = [path: string, pieces: Iterable<string | Uint8Array>];

/** What assay must say of a planned unit: its entry's validity, a code it (or its experiment, for this trial) raises, its state. */
export interface KindSynthExpect {
  validity: "valid" | "invalid";
  code: string | null;
  state?: string;
  /** What changes when the kind's extra input is given (SWE-bench: `--dataset`). */
  with_dataset?: { validity: "valid" | "invalid"; code: string | null; state?: string };
}

/** A unit's line in synth-manifest.json. */
export interface KindSynthUnit {
  /** The unit's folder under the corpus root; null: its harness writes none (the run's own files name it). */
  dir: string | null;
  profile: string;
  experiment: string;
  trial: string;
  /** Its labelled case. */
  outcome: string;
  expect: KindSynthExpect;
}

export interface KindSynth {
  /** `assay synth --profile` names it so. */
  readonly profile: string;
  /** One line for `assay synth --help`. */
  readonly description: string;
  /** What `assay synth` says it wrote N of ("SWE-bench instances"). */
  readonly units: string;
  files(o: KindSynthOptions): Generator<KindSynthFile>;
  /** The planned units, in the order the manifest lists them. */
  plan(o: KindSynthOptions): Generator<KindSynthUnit>;
  /** Its folder in `assay demo` (and `demo --out DIR`): name, size, what the closing message says it holds, and the command it suggests next (run from DIR; exit 0). */
  readonly demo?: {
    readonly folder: string;
    readonly n: number;
    readonly holds: string;
    readonly next?: readonly [command: string, what: string];
  };
}
