// Writing a synthesised corpus to disk (the plan and the bytes come from synth/).

import { corpusFiles, plannedBundles, type CorpusOptions, type PlannedBundle } from "../synth/corpus.js";
import { isEmptyOrAbsent, writeTree } from "./output.js";

export const MANIFEST = "synth-manifest.json";

/** A target that is not empty: synthesis never writes over existing files. */
export class TargetNotEmpty extends Error {
  readonly code = "USAGE";
}

/** The manifest's entry for a planned bundle. */
const manifestEntry = (b: PlannedBundle) => ({
  dir: b.dir,
  profile: b.profile,
  experiment: b.experiment,
  trial: b.trial,
  attempt: b.attempt,
  outcome: b.profile === "world" ? b.scenario : b.profile === "harbor" || b.profile === "inspect" ? b.case : b.outcome,
  fault: b.profile === "native-game" ? (b.fault ?? null) : null,
  expect: b.expect,
});

/**
 * The manifest as pieces, entry by entry (the same text as JSON.stringify(manifest, null, 2)):
 * a manifest of a million bundles is never one string.
 */
function* manifestText(o: CorpusOptions): Generator<string> {
  const head = JSON.stringify(
    { format: "assay.synth-manifest/1", seed: o.seed, n: o.n, faults: o.faults, bundles: [] },
    null,
    2,
  );
  yield head.slice(0, head.lastIndexOf("[]")) + "[";
  let first = true;
  for (const b of plannedBundles(o)) {
    yield `${first ? "" : ","}\n${JSON.stringify(manifestEntry(b), null, 2).replace(/^/gm, "    ")}`;
    first = false;
  }
  yield "\n  ]\n}\n";
}

/** Synthesise a corpus into `out`, bundle by bundle (the plan is made twice: files, then manifest); returns how many bundles were written. */
export function writeCorpus(out: string, o: CorpusOptions): number {
  if (!isEmptyOrAbsent(out)) throw new TargetNotEmpty(`${out} is not empty: synth never writes over existing files`);
  let n = 0;
  const counted = function* () {
    for (const b of plannedBundles(o)) {
      n++;
      yield b;
    }
  };
  writeTree(out, corpusFiles(counted()));
  writeTree(out, [[MANIFEST, manifestText(o)]]);
  return n;
}
