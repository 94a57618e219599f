// Writing a synthesised corpus to disk (the plan and the bytes come from synth/).

import { bundleFiles, planCorpus, type CorpusOptions } from "../synth/corpus.js";
import { isEmptyOrAbsent, writeTree } from "./write.js";

export const MANIFEST = "synth-manifest.json";

/** A target that is not empty: synthesis never writes over existing files. */
export class TargetNotEmpty extends Error {
  readonly code = "USAGE";
}

/** Synthesise a corpus into `out`; returns how many bundles were written. */
export function writeCorpus(out: string, o: CorpusOptions): number {
  if (!isEmptyOrAbsent(out)) throw new TargetNotEmpty(`${out} is not empty: synth never writes over existing files`);
  const plan = planCorpus(o);
  const files: [string, Uint8Array][] = [];
  for (const b of plan) for (const [rel, bytes] of bundleFiles(b)) files.push([`${b.dir}/${rel}`, bytes]);
  const manifest = {
    format: "assay.synth-manifest/1",
    seed: o.seed,
    n: o.n,
    faults: o.faults,
    bundles: plan.map((b) => ({
      dir: b.dir, profile: b.profile, experiment: b.experiment, trial: b.trial, attempt: b.attempt,
      outcome: b.profile === "world" ? b.scenario : b.outcome, fault: b.profile === "world" ? null : (b.fault ?? null), expect: b.expect,
    })),
  };
  files.push([MANIFEST, Buffer.from(JSON.stringify(manifest, null, 2) + "\n")]);
  writeTree(out, files);
  return plan.length;
}

