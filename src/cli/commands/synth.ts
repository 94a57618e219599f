import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MANIFEST, writeCorpus } from "../../io/corpus.js";
import { NATIVE_FAULTS } from "../../synth/native.js";
import { positiveInt, usage } from "../args.js";
import { UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { scoreCommand } from "./score.js";


export const SYNTH_HELP = `assay synth --out DIR --n N [--seed S] [--faults] [--events E]
  Write N synthetic native-game trials (deterministic for a seed) with a known mix of
  outcomes; --faults adds one labelled broken bundle per fault kind. DIR must be empty or absent.
  ${MANIFEST} in DIR lists every bundle with its outcome, fault and expected verdict.
`;

export function synthCommand(argv: string[], io: CliIo): number {
  const { values } = usage(() =>
    parseArgs({
      args: argv,
      options: { out: { type: "string" }, n: { type: "string" }, seed: { type: "string" }, faults: { type: "boolean" }, events: { type: "string" } },
    }),
  );
  if (values.out === undefined) throw new UsageError("assay synth needs --out DIR");
  const n = writeCorpus(values.out, {
    n: positiveInt("n", values.n),
    seed: values.seed ?? "assay",
    faults: values.faults ?? false,
    events: positiveInt("events", values.events, 8),
  });
  io.stderr(`assay: wrote ${n} bundles to ${values.out}\n`);
  return 0;
}

export const DEMO_HELP = `assay demo [--keep]
  Synthesise a small mixed corpus (with labelled faults) into a temporary folder and score it.
`;

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = usage(() => parseArgs({ args: argv, options: { keep: { type: "boolean" } } }));
  const dir = mkdtempSync(join(tmpdir(), "assay-demo-"));
  try {
    const corpus = join(dir, "corpus");
    writeCorpus(corpus, { n: 24, seed: "demo", faults: true });
    io.stderr(`assay demo: synthesised 24 trials and ${NATIVE_FAULTS.length} labelled broken bundles in ${corpus}\n`);
    return await scoreCommand([corpus, "--quiet"], io);
  } finally {
    if (values.keep) io.stderr(`assay demo: corpus kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
