import { parseArgs } from "node:util";
import { analyseAll, type Target } from "../../analysis/engine.js";
import { packFor } from "../../analysis/evidence.js";
import { ANALYSIS_HELP, ANALYSIS_OPTIONS, setupAnalysis } from "../../analysis/setup.js";
import type { BundleEntry, Results } from "../../core/results.js";
import { scoreRoots } from "../../pipeline/score.js";
import { isFormat } from "../../report/index.js";
import { positiveInt, usage } from "../args.js";
import { exitForResults, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { writeResults } from "./score.js";

export const ANALYZE_HELP = `assay analyze ROOT... [--format table|json] [--out FILE] [--jobs N] [options]
  Score every bundle and Harbor trial first (in the pool, as assay score), then ask a model for the
  trial-legitimacy analysis of each valid one. The results gain an advisory record per bundle;
  no verdict, state or metric changes, and the exit code is score's. Invalid evidence is not
  analysed. Answers are cached by evidence digest (a rerun asks nothing it has asked).
${ANALYSIS_HELP}
`;

/** What the model may see of an entry; an entry with no trustworthy evidence is not analysed. */
export function targetFor(entry: BundleEntry): Target {
  if (entry.validity === "error") return { pack: { skip: "tool error: the bundle was not scored" } };
  if (entry.validity === "invalid") return { pack: { skip: "invalid evidence" } };
  try {
    return { pack: packFor(entry.path, entry) };
  } catch (e) {
    return { pack: { skip: `evidence could not be read: ${(e as Error).message}` } };
  }
}

/** The document with each entry's advisory record beside it; every hard field is copied unchanged. */
export function withAdvisories(results: Results, advisories: readonly (BundleEntry["advisory"])[]): Results {
  return { ...results, bundles: results.bundles.map((b, i) => ({ ...b, advisory: advisories[i] ?? null })) };
}

export async function analyzeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...ANALYSIS_OPTIONS, format: { type: "string" }, out: { type: "string" }, jobs: { type: "string" }, quiet: { type: "boolean" } },
    }),
  );
  if (positionals.length === 0) throw new UsageError("assay analyze needs at least one ROOT");
  const format = values.format ?? "table";
  if (!isFormat(format)) throw new UsageError(`--format must be table or json (got ${JSON.stringify(format)})`);
  const setup = setupAnalysis("trial-legitimacy", values, io.env);
  try {
    const scored = await scoreRoots(positionals, {
      schedules: [],
      invalid: "count",
      resourceBound: "default",
      errors: "exclude",
      jobs: values.jobs === undefined ? undefined : positiveInt("jobs", values.jobs),
      onSkip: (path, reason) => io.stderr(`assay: skipped ${path}: ${reason}\n`),
    });
    if (setup.offlineBecause && !values.quiet) io.stderr(`assay analyze: offline (${setup.offlineBecause}): answers come from the cache only\n`);
    const advisories = await analyseAll(setup.analysis, scored.bundles.map(targetFor), {
      cache: setup.cache,
      backend: setup.backend,
      model: setup.model,
      concurrency: positiveInt("concurrency", values.concurrency, 4),
    });
    const results = withAdvisories(scored, advisories);
    writeResults(results, format, values.out, io);
    return exitForResults(results, false);
  } finally {
    setup.cache.close();
  }
}
