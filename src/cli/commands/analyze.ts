import type { Target } from "../../analysis/engine.js";
import { packFor } from "../../analysis/evidence.js";
import { kindOfEntry } from "../../kinds/registry.js";
import { materialize, viewOf, type Advisory, type BundleEntry, type Results } from "../../core/results.js";
import { withSqliteFiles } from "../../io/output.js";
import { parseOptions } from "../args.js";
import { exitForResults, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { ANALYSIS_OPTIONS, analysisFromOptions, runAnalysis } from "./analysis-options.js";
import { SCORE_OPTIONS, sayUncheckedSeals, scoreFromOptions, withDatasetCheck, writeResults } from "./score.js";

/**
 * What the model may see of an entry. Not analysed: tool errors, invalid bundles, bundles of a
 * trial the batch rules made invalid (a duplicate, an attempt sequence, a seed…), and a Harbor
 * trial byte-identical to one before it. `invalidTrials` maps "experiment\0trial" to the trial's codes.
 */
export function targetFor(
  entry: BundleEntry,
  invalidTrials: ReadonlyMap<string, string[]> = new Map(),
  copies: ReadonlySet<string> = new Set(),
): Target {
  const trialCodes = invalidTrials.get(`${entry.experiment}\u0000${entry.trial}`);
  return () =>
    entry.validity === "error"
      ? { skip: "tool error: the bundle was not scored" }
      : entry.validity === "invalid"
        ? { skip: "invalid evidence" }
        : trialCodes !== undefined
          ? { skip: `invalid evidence: its trial is invalid (${trialCodes.join(", ")})` }
          : copies.has(entry.path)
            ? { skip: "a byte-identical copy of a trial analysed elsewhere in this run" }
            : packFor(entry.path, entry);
}

/**
 * Trials the batch rules made invalid, and members of containers (Harbor, Terminal-Bench trials)
 * byte-identical to one earlier in the run (a copy within a job, counted once there, or a copied
 * job, flagged TRIAL_DUPLICATE_ID): the same evidence is asked about once.
 */
export function trialVerdicts(results: Results): { invalidTrials: Map<string, string[]>; copies: Set<string> } {
  const invalidTrials = new Map<string, string[]>();
  for (const e of results.experiments)
    for (const t of e.invalid) invalidTrials.set(`${e.experiment}\u0000${t.trial}`, t.codes);
  const copies = new Set<string>();
  const seen = new Set<string>();
  for (const b of results.bundles) {
    if (kindOfEntry(b.profile).book === undefined || b.validity !== "valid") continue;
    // The same bytes under the same trial name: two trials of one folder's bytes (two Terminal-Bench trials that left only the same commands.txt) are not copies.
    const key = `${b.digest}\u0000${b.trial ?? ""}`;
    if (seen.has(key)) copies.add(b.path);
    else seen.add(key);
  }
  return { invalidTrials, copies };
}

/** The document with each entry's advisory record beside it; every hard field is copied unchanged. */
export function withAdvisories(results: Results, advisories: readonly (Advisory | null)[]): Results {
  return { ...results, bundles: results.bundles.map((b, i) => ({ ...b, advisory: advisories[i] ?? null })) };
}

export async function analyzeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { ...SCORE_OPTIONS, ...ANALYSIS_OPTIONS },
  });
  if (values.shard !== undefined)
    throw new UsageError("assay analyze scores whole runs: --shard is for assay score and assay merge");
  // Every analysis option is checked, and the rubric and prompt read, before any scoring.
  const analysis = analysisFromOptions("trial-legitimacy", values, io.env, positionals);
  try {
    const kept = [...withSqliteFiles(analysis.setup.cache.file), values.rubric, values.prompt];
    const scored = await scoreFromOptions(values, positionals, io, "analyze", kept);
    if (typeof scored === "number") return scored;
    // Each entry gains its advisory record: the entries are read into memory (a model analysis of
    // an archive runs within a budget, not over a million trials at once).
    let doc: Results;
    try {
      doc = materialize(scored.results);
    } finally {
      scored.results.close();
    }
    const { invalidTrials, copies } = trialVerdicts(doc);
    const targets = doc.bundles.map((b) => targetFor(b, invalidTrials, copies));
    const advisories = await runAnalysis("analyze", analysis, targets, io, values.quiet, doc.run.options.hmac_key);
    const results = viewOf(withAdvisories(doc, advisories));
    await writeResults(results, scored.format, scored.out, io, scored);
    sayUncheckedSeals(scored.uncheckedSeals, io);
    return withDatasetCheck(exitForResults(results, scored.failOnInvalid), scored.datasetUnused, io);
  } finally {
    analysis.setup.cache.close();
  }
}
