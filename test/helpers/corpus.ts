// A corpus with every kind of evidence assay reads, for the report formats' tests: native games
// (with one labelled broken bundle per fault), world scenarios, a Harbor job, and an Inspect log
// of every synthesised case.
import { join } from "node:path";
import { writeCorpus } from "../../src/io/corpus.js";
import { INSPECT_CASES } from "../../src/synth/inspect.js";
import { readyZstd } from "../../src/synth/zip.js";

/** Write it under `root` (game/, world/, harbor/, inspect/), deterministic for `seed`. */
export async function writeEveryKind(root: string, seed: string): Promise<void> {
  await readyZstd();
  writeCorpus(join(root, "game"), { n: 12, seed, faults: true });
  writeCorpus(join(root, "world"), { n: 11, seed, faults: false, profile: "world" });
  writeCorpus(join(root, "harbor"), { n: 12, seed, faults: false, profile: "harbor" });
  writeCorpus(join(root, "inspect"), { n: INSPECT_CASES.length, seed, faults: false, profile: "inspect" });
}
