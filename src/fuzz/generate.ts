// Cases from a seed: a base drawn from the table of profiles, 1–3 seeded mutations of its folder,
// the size of the pieces its files are read in, and the batch options of the document built from
// it. Case i of seed s is the same on every run and needs none of the cases before it.

import { DEFAULT_BATCH, type BatchOptions } from "../core/batch/experiments.js";
import type { ScoredBundle } from "../core/results.js";
import { mutate } from "./mutate.js";
import { PROFILES, type FuzzProfile } from "./profiles.js";
import { caseSeed, pick, rng, weighted } from "./random.js";
import { treeSource, type Tree } from "./tree.js";

export interface Base {
  name: string;
  profile: FuzzProfile;
  tree: Tree;
  weight: number;
  /** The base's own entry, scored once. */
  entry: ScoredBundle;
}

export interface FuzzCase {
  seed: number;
  index: number;
  base: Base;
  tree: Tree;
  /** What was done to the base, in order. */
  ops: string[];
  /** The journal was re-chained or its summary re-headed: consistently rewritten, as its writer could. */
  rewritten: boolean;
  /** Files are read in pieces of at most this many bytes. */
  chunk: number;
  batch: BatchOptions;
  /** The document also lists the base's own entry (batch rules then see two folders). */
  withBase: boolean;
}

const CHUNKS: [number, number][] = [
  [8, Infinity],
  [1, 1],
  [1, 7],
  [1, 64],
  [1, 4096],
];

export class Generator {
  readonly bases: readonly Base[];
  private readonly trees: readonly Tree[];

  constructor(private readonly profiles: readonly FuzzProfile[] = PROFILES) {
    this.bases = profiles.flatMap((profile) =>
      profile.bases().map((b) => {
        const entry = profile.score(treeSource(b.tree));
        // A base is valid evidence by construction; one that is not means the synthesiser drifted.
        if (entry.validity !== "valid")
          throw new Error(`fuzz base ${b.name} is ${entry.validity}: ${entry.errors.map((f) => f.code).join(", ")}`);
        return { ...b, profile, entry };
      }),
    );
    this.trees = this.bases.map((b) => b.tree);
  }

  caseAt(seed: number, index: number): FuzzCase {
    const r = rng(caseSeed(seed, index));
    const profile = weighted(
      r,
      this.profiles.map((p) => [p.weight, p] as const),
    );
    const own = this.bases.filter((b) => b.profile === profile);
    const base = weighted(
      r,
      own.map((b) => [b.weight, b] as const),
    );
    const tree: Tree = new Map(base.tree);
    const { ops, rewritten } = mutate(r, tree, {
      all: this.trees,
      siblings: own.filter((b) => b !== base).map((b) => b.tree),
      extraNames: profile.extraNames,
    });
    // Tiny pieces of a megabyte file would only cost time: small ones are for small files.
    const big = [...tree.values()].some((n) => n.kind === "file" && n.bytes.length > 65536);
    const chunk = big ? Infinity : weighted(r, CHUNKS);
    const batch: BatchOptions = {
      invalid: pick(r, ["count", "count", "exclude"] as const),
      resourceBound: pick(r, ["default", "default", "exclude", "loss"] as const),
      errors: pick(r, ["exclude", "exclude", "zero"] as const),
    };
    return {
      seed,
      index,
      base,
      tree,
      ops,
      rewritten,
      chunk,
      batch: r() < 0.2 ? batch : DEFAULT_BATCH,
      withBase: r() < 0.5,
    };
  }
}
