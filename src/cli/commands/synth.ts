import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { writeCorpus } from "../../io/corpus.js";
import { INSPECT_CASES } from "../../synth/inspect.js";
import { NATIVE_FAULTS } from "../../synth/native.js";
import { readyZstd } from "../../synth/zip.js";
import { WORLD_SCENARIOS } from "../../synth/world.js";
import { oneOf, positiveInt, usage } from "../args.js";
import { UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { scoreCommand } from "./score.js";



export async function synthCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = usage(() =>
    parseArgs({
      args: argv,
      options: {
        out: { type: "string" }, n: { type: "string" }, seed: { type: "string" }, faults: { type: "boolean" }, events: { type: "string" },
        profile: { type: "string" },
      },
    }),
  );
  if (values.out === undefined) throw new UsageError("assay synth needs --out DIR");
  if (values.faults && values.profile !== undefined && values.profile !== "native-game")
    throw new UsageError("--faults is for native-game corpora (world, harbor and inspect corpora are made of labelled cases)");
  const profile = oneOf("profile", values.profile, ["native-game", "world", "harbor", "inspect"] as const, "native-game");
  if (profile === "inspect") await readyZstd();
  const n = writeCorpus(values.out, {
    n: positiveInt("n", values.n),
    seed: values.seed ?? "assay",
    faults: values.faults ?? false,
    events: positiveInt("events", values.events, 8),
    profile,
  });
  io.stderr(`assay: wrote ${n} ${profile === "inspect" ? "Inspect logs" : "bundles"} to ${values.out}\n`);
  return 0;
}


export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = usage(() => parseArgs({ args: argv, options: { keep: { type: "boolean" } } }));
  const dir = mkdtempSync(join(tmpdir(), "assay-demo-"));
  try {
    const corpus = join(dir, "corpus");
    writeCorpus(join(corpus, "game"), { n: 24, seed: "demo", faults: true });
    writeCorpus(join(corpus, "world"), { n: WORLD_SCENARIOS.length, seed: "demo", faults: false, profile: "world" });
    writeCorpus(join(corpus, "harbor"), { n: 16, seed: "demo", faults: false, profile: "harbor" });
    await readyZstd();
    writeCorpus(join(corpus, "inspect"), { n: INSPECT_CASES.length, seed: "demo", faults: false, profile: "inspect" });
    io.stderr(
      `assay demo: synthesised 24 game trials, ${NATIVE_FAULTS.length} labelled broken bundles, ${WORLD_SCENARIOS.length} world scenarios, a Harbor job of 16 trials and ${INSPECT_CASES.length} Inspect logs in ${corpus}\n`,
    );
    return await scoreCommand([corpus, "--quiet"], io);
  } finally {
    if (values.keep) io.stderr(`assay demo: corpus kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
