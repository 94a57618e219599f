// `assay synth --profile swe-bench` and the demo's `swe/` (the face is kinds/synth.ts): one
// `run_evaluation` run as the harness leaves its working directory — the instance folders under
// logs/run_evaluation/<run_id>/<model>/, the final report <model>.<run_id>.json, the predictions
// (preds.jsonl) and the dataset's rows (dataset.jsonl, for --dataset). Instances cycle through the
// labelled cases of synth-cases.ts; every file is made as it is written.

import type { KindSynth, KindSynthFile, KindSynthOptions, KindSynthUnit } from "../synth.js";
import { CASES, instanceDir, instances, SWE_CASES, type Case } from "./synth-cases.js";
import { runFiles } from "./synth-run.js";

function* files(o: KindSynthOptions): Generator<KindSynthFile> {
  for (const p of instances(o)) {
    const make = (CASES[p.case] as Case).files;
    if (make) for (const [name, text] of make(p.text)) yield [`${instanceDir(p)}/${name}`, [text]];
  }
  yield* runFiles(o);
}

function* plan(o: KindSynthOptions): Generator<KindSynthUnit> {
  for (const p of instances(o)) {
    const c = CASES[p.case] as Case;
    yield {
      dir: c.files ? instanceDir(p) : null,
      profile: "swe-bench",
      experiment: `${p.text.run}/${p.text.model}`,
      trial: p.id,
      outcome: p.case,
      expect: c.expect,
    };
  }
}

export const sweBenchSynth: KindSynth = {
  profile: "swe-bench",
  description: `one SWE-bench run_evaluation run (instance folders, final report, preds.jsonl, dataset.jsonl) cycling through ${SWE_CASES.join(", ")}.`,
  units: "SWE-bench instances",
  files,
  plan,
  demo: {
    folder: "swe",
    n: SWE_CASES.length,
    holds: "a SWE-bench run (logs/run_evaluation/…) with its final report",
    next: ["assay score swe", "a SWE-bench run, each instance re-graded from its log"],
  },
};
