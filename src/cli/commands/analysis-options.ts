// The command-line options the analysis commands share, and their checks.

import { DEFAULT_MODEL } from "../../analysis/backend.js";
import { setupAnalysis, type AnalysisName, type AnalysisSetup } from "../../analysis/setup.js";
import { positiveInt } from "../args.js";
import { UsageError } from "../exit.js";

export const ANALYSIS_OPTIONS = {
  rubric: { type: "string" },
  prompt: { type: "string" },
  cache: { type: "string" },
  model: { type: "string" },
  offline: { type: "boolean" },
  concurrency: { type: "string" },
  "request-timeout": { type: "string" },
  "max-retries": { type: "string" },
} as const;

export const ANALYSIS_HELP = `  --rubric FILE            a rubric in Harbor's TOML shape ([[criteria]] name, description, guidance)
  --prompt FILE            a prompt template (default: prompts/<analysis>.md)
  --model M                the model (default ${DEFAULT_MODEL})
  --cache FILE             the analysis cache (default: $ASSAY_CACHE, else cache/assay.sqlite here)
  --offline                answer from the cache only: a miss is "not analysed: not in cache"
  --concurrency N          model requests in flight at once (default 4)
  --request-timeout S      seconds one model request may take (default 120); the SDK retries
  --max-retries N          the SDK's retries of a failed request, with its backoff (default 4)
  The API key comes from ANTHROPIC_API_KEY (without it: offline); ANTHROPIC_BASE_URL moves the endpoint.`;

type Values = { [K in keyof typeof ANALYSIS_OPTIONS]?: (typeof ANALYSIS_OPTIONS)[K]["type"] extends "boolean" ? boolean : string };

/** Check every analysis option before any work, then set the analysis up. */
export function analysisFromOptions(name: AnalysisName, v: Values, env: Record<string, string | undefined>): { setup: AnalysisSetup; concurrency: number } {
  const concurrency = positiveInt("concurrency", v.concurrency, 4);
  const timeout = v["request-timeout"];
  if (timeout !== undefined && !(/^\d+(\.\d+)?$/.test(timeout) && Number(timeout) > 0))
    throw new UsageError(`--request-timeout must be a positive number of seconds (got ${JSON.stringify(timeout)})`);
  const retries = v["max-retries"];
  if (retries !== undefined && !/^\d{1,2}$/.test(retries)) throw new UsageError(`--max-retries must be an integer from 0 to 99 (got ${JSON.stringify(retries)})`);
  const setup = setupAnalysis(
    name,
    {
      rubric: v.rubric,
      prompt: v.prompt,
      cache: v.cache,
      model: v.model,
      offline: v.offline,
      requestTimeoutMs: timeout === undefined ? undefined : Number(timeout) * 1000,
      maxRetries: retries === undefined ? undefined : Number(retries),
    },
    env,
  );
  return { setup, concurrency };
}
