// Writing a synthesised corpus to disk (the plan and the bytes come from synth/).

import { corpusFiles, planCorpus, type CorpusOptions } from "../synth/corpus.js";
import { isEmptyOrAbsent, writeTree } from "./output.js";

export const MANIFEST = "synth-manifest.json";

/** A target that is not empty: synthesis never writes over existing files. */
export class TargetNotEmpty extends Error {
  readonly code = "USAGE";
}

/** Synthesise a corpus into `out`; returns how many bundles were written. */
export function writeCorpus(out: string, o: CorpusOptions): number {
  if (!isEmptyOrAbsent(out)) throw new TargetNotEmpty(`${out} is not empty: synth never writes over existing files`);
  const plan = planCorpus(o);
  const files = corpusFiles(plan);
  const manifest = {
    format: "assay.synth-manifest/1",
    seed: o.seed,
    n: o.n,
    faults: o.faults,
    bundles: plan.map((b) => ({
      dir: b.dir, profile: b.profile, experiment: b.experiment, trial: b.trial, attempt: b.attempt,
      outcome: b.profile === "world" ? b.scenario : b.profile === "harbor" ? b.case : b.outcome,
      fault: b.profile === "native-game" ? (b.fault ?? null) : null, expect: b.expect,
    })),
  };
  files.push([MANIFEST, Buffer.from(JSON.stringify(manifest, null, 2) + "\n")]);
  writeTree(out, files);
  return plan.length;
}

