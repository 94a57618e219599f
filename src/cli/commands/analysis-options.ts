// The command-line options the analysis commands share, and their checks.

import { setupAnalysis, type AnalysisName, type AnalysisSetup, type SetupOptions } from "../../analysis/setup.js";
import { Budget } from "../../analysis/budget.js";
import { parsePrice, type Price } from "../../analysis/prices.js";
import type { Advisory } from "../../core/results.js";
import { analyseAll, type Target } from "../../analysis/engine.js";
import { positiveInt } from "../args.js";
import type { CliIo } from "../io.js";
import { UsageError } from "../exit.js";

/** Options of every command that asks a model (narrate takes these alone). */
export const MODEL_OPTIONS = {
  prompt: { type: "string" },
  cache: { type: "string" },
  model: { type: "string" },
  offline: { type: "boolean" },
  "request-timeout": { type: "string" },
  "max-retries": { type: "string" },
  price: { type: "string", multiple: true },
} as const;

export const ANALYSIS_OPTIONS = {
  ...MODEL_OPTIONS,
  rubric: { type: "string" },
  concurrency: { type: "string" },
  "max-calls": { type: "string" },
  "max-cost": { type: "string" },
  batch: { type: "boolean" },
  "poll-interval": { type: "string" },
  "batch-wait": { type: "string" },
} as const;

export type Values = {
  [K in Exclude<keyof typeof ANALYSIS_OPTIONS, "price">]?: (typeof ANALYSIS_OPTIONS)[K]["type"] extends "boolean"
    ? boolean
    : string;
} & {
  price?: string[];
};

export interface AnalysisRun {
  setup: AnalysisSetup;
  concurrency: number;
  budget: Budget | undefined;
  prices: Map<string, Price>;
  /** Batch mode's polling interval and how long to poll, when --batch. */
  pollMs: number | undefined;
  waitMs: number;
  adoptAfterMs: number;
  /** How often a status line is printed. */
  statusMs: number;
}

/** Progress of a long analysis on stderr: a line at most every `everyMs` (and at the end, by runSummary). */
function progressLines(
  command: string,
  total: number,
  budget: Budget | undefined,
  write: (line: string) => void,
  everyMs: number,
) {
  let done = 0;
  let cached = 0;
  let asked = 0;
  let failed = 0;
  let last = Date.now();
  let cost = 0;
  return (a: Advisory) => {
    done++;
    if (a.status === "analysed") {
      if (a.cached) cached++;
      else {
        asked++;
        cost += a.provenance?.cost_usd ?? 0;
      }
      if (Object.values(a.outcomes).some((o) => o.outcome === "error")) failed++;
    }
    const now = Date.now();
    if (now - last < everyMs || done === total) return;
    last = now;
    const spent = budget ? budget.describe() : `${cost.toFixed(4)} USD so far (known prices)`;
    write(
      `assay ${command}: ${done}/${total} settled: ${cached} from the cache, ${asked} answered, ${failed} failed; ${spent}\n`,
    );
  };
}

/** A positive decimal option (`unit` names it in the error), or undefined when it was not given. */
function positiveNumber(name: string, value: string | undefined, unit: string): number | undefined {
  if (value === undefined) return undefined;
  if (!(/^\d+(\.\d+)?$/.test(value) && Number(value) > 0))
    throw new UsageError(`--${name} must be a positive number of ${unit} (got ${JSON.stringify(value)})`);
  return Number(value);
}

/** The options every model command shares, checked: what setupModel/setupAnalysis take, and prices. */
export function modelOptions(v: Values): { setup: SetupOptions; prices: Map<string, Price> } {
  const prices = new Map<string, Price>();
  for (const spec of v.price ?? []) {
    const p = parsePrice(spec);
    if (p === null)
      throw new UsageError(`--price takes MODEL=IN,OUT in US dollars per million tokens (got ${JSON.stringify(spec)})`);
    prices.set(...p);
  }
  const timeout = positiveNumber("request-timeout", v["request-timeout"], "seconds");
  const retries = v["max-retries"];
  if (retries !== undefined && !/^\d{1,2}$/.test(retries))
    throw new UsageError(`--max-retries must be an integer from 0 to 99 (got ${JSON.stringify(retries)})`);
  return {
    setup: {
      rubric: v.rubric,
      prompt: v.prompt,
      cache: v.cache,
      model: v.model,
      offline: v.offline,
      requestTimeoutMs: timeout === undefined ? undefined : timeout * 1000,
      maxRetries: retries === undefined ? undefined : Number(retries),
    },
    prices,
  };
}

/** Check every analysis option before any work, then set the analysis up (`roots`: the folders the command reads). */
export function analysisFromOptions(
  name: AnalysisName,
  v: Values,
  env: Record<string, string | undefined>,
  roots: readonly string[],
): AnalysisRun {
  const concurrency = positiveInt("concurrency", v.concurrency, 4);
  const maxCalls = v["max-calls"] === undefined ? undefined : positiveInt("max-calls", v["max-calls"]);
  const limits = { maxCalls, maxCostUsd: positiveNumber("max-cost", v["max-cost"], "US dollars") };
  const pollMs = v.batch ? (positiveNumber("poll-interval", v["poll-interval"], "seconds") ?? 30) * 1000 : undefined;
  const waitMs = (positiveNumber("batch-wait", v["batch-wait"], "seconds") ?? 26 * 3600) * 1000;
  // How old a lost create's placeholder must be before its batch is looked for (another run may be creating it).
  const adopt = Number(env["ASSAY_BATCH_ADOPT_SECONDS"] ?? 600);
  if (!(adopt >= 0)) throw new UsageError("ASSAY_BATCH_ADOPT_SECONDS must be a number of seconds");
  const status = Number(env["ASSAY_STATUS_SECONDS"] ?? 5); // checked before any work
  if (!(status > 0 && status <= 86_400))
    throw new UsageError("ASSAY_STATUS_SECONDS must be a number of seconds above 0");
  const { setup: options, prices } = modelOptions(v);
  const setup = setupAnalysis(name, { ...options, roots }, env);
  const limited = limits.maxCalls !== undefined || limits.maxCostUsd !== undefined;
  let budget: Budget | undefined;
  try {
    budget = limited ? new Budget(limits, setup.model, prices) : undefined;
  } catch (e) {
    setup.cache.close();
    throw e;
  }
  return { setup, concurrency, budget, prices, pollMs, waitMs, adoptAfterMs: adopt * 1000, statusMs: status * 1000 };
}

/** What the answers of this run (not the cache's) cost, where the price is known. */
const knownCost = (results: readonly Advisory[]) =>
  results.reduce((s, a) => s + (a.cached ? 0 : (a.provenance?.cost_usd ?? 0)), 0);

/** What a run took from the cache and what it asked, recorded for `assay cache stats` (never fatal). */
function recordRun(
  setup: AnalysisSetup,
  command: string,
  results: readonly Advisory[],
  warn: (m: string) => void,
): void {
  if (setup.cache.readOnly) return; // offline replay writes nothing, not even its statistics
  const analysed = results.filter((a) => a.status === "analysed");
  const hits = analysed.filter((a) => a.cached);
  try {
    setup.cache.recordRun(command, {
      hits: hits.length,
      asked: analysed.length - hits.length,
      errors: analysed.filter((a) => Object.values(a.outcomes).some((o) => o.outcome === "error")).length,
      notAnalysed: results.length - analysed.length,
      costUsd: knownCost(results),
      savedUsd: hits.reduce((s, a) => s + (a.provenance?.cost_usd ?? 0), 0),
    });
  } catch (e) {
    warn(`could not record this run in the cache (${(e as Error).message})`);
  }
}

/** One line on what a run analysed and what it left, for stderr. */
function runSummary(command: string, results: readonly Advisory[], budget: Budget | undefined): string {
  const analysed = results.filter((a) => a.status === "analysed");
  const cached = analysed.filter((a) => a.cached).length;
  const errors = analysed.filter((a) => Object.values(a.outcomes).some((o) => o.outcome === "error")).length;
  const byBudget = results.filter((a) => a.status === "not-analysed" && a.reason?.startsWith("budget reached")).length;
  const other = results.length - analysed.length - byBudget;
  const parts = [`${analysed.length} analysed (${cached} from the cache${errors ? `, ${errors} with errors` : ""})`];
  if (byBudget)
    parts.push(
      `${byBudget} left for a later run: ${budget?.reason ?? "budget reached"} (the cache keeps every answer)`,
    );
  if (other) parts.push(`${other} not analysed (invalid evidence, offline misses…)`);
  if (budget) parts.push(budget.describe());
  return `assay ${command}: ${parts.join("; ")}\n`;
}

/**
 * Run an analysis over targets as a command does: progress, the closing summary, the run recorded.
 * `keyFingerprint`: the key file seals were checked with, if any (part of the cache key).
 */
export async function runAnalysis(
  command: string,
  run: AnalysisRun,
  targets: readonly Target[],
  io: CliIo,
  quiet = false,
  keyFingerprint: string | null = null,
): Promise<Advisory[]> {
  const say = (line: string) => quiet || io.stderr(`assay ${command}: ${line}\n`);
  const warn = (m: string) => io.stderr(`assay ${command}: ${m}\n`);
  const { setup, budget } = run;
  if (setup.offlineBecause) say(`offline (${setup.offlineBecause}): answers come from the cache only`);
  const results = await analyseAll(setup.analysis, targets, {
    cache: setup.cache,
    backend: setup.backend,
    model: setup.model,
    concurrency: run.concurrency,
    budget,
    prices: run.prices,
    keyFingerprint,
    warn,
    batch:
      run.pollMs === undefined
        ? undefined
        : { pollMs: run.pollMs, waitMs: run.waitMs, adoptAfterMs: run.adoptAfterMs, progress: say },
    onSettled: quiet ? undefined : progressLines(command, targets.length, budget, io.stderr, run.statusMs),
  });
  if (!quiet) io.stderr(runSummary(command, results, budget));
  recordRun(setup, command, results, warn);
  return results;
}
