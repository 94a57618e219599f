// What an analysis command needs, from its options and the environment: the rubric and prompt
// (the project's defaults or the user's files), the cache file, and the backend — live only with
// an API key and without --offline.

import { readFileSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { AnthropicBackend, DEFAULT_MODEL, type Backend } from "./backend.js";
import { AnalysisCache } from "./cache.js";
import type { Analysis } from "./engine.js";
import { parseTemplate } from "./prompt.js";
import { parseRubric } from "./rubric.js";
import { UsageError } from "../errors.js";

/** The package's root (rubrics/ and prompts/ ship beside dist/ and src/). */
const ROOT = new URL("../../", import.meta.url).pathname;
export const ANALYSES = ["task-quality", "trial-legitimacy"] as const;
export type AnalysisName = (typeof ANALYSES)[number];

export interface SetupOptions {
  rubric?: string | undefined;
  prompt?: string | undefined;
  cache?: string | undefined;
  model?: string | undefined;
  offline?: boolean | undefined;
  "request-timeout"?: string | undefined;
  "max-retries"?: string | undefined;
}

export interface AnalysisSetup {
  analysis: Analysis;
  cache: AnalysisCache;
  backend: Backend | null;
  model: string;
  /** Why the backend is off, for the user (null when live). */
  offlineBecause: string | null;
}

export function setupAnalysis(name: AnalysisName, o: SetupOptions, env: Record<string, string | undefined>, cwd = process.cwd()): AnalysisSetup {
  const rubricFile = o.rubric ?? join(ROOT, "rubrics", `${name}.toml`);
  const promptFile = o.prompt ?? join(ROOT, "prompts", `${name}.md`);
  const rubric = parseRubric(basename(rubricFile, extname(rubricFile)), readFileSync(rubricFile));
  const template = parseTemplate(basename(promptFile, extname(promptFile)), readFileSync(promptFile));
  const cacheFile = resolve(cwd, o.cache ?? env["ASSAY_CACHE"] ?? join("cache", "assay.sqlite"));
  const key = env["ANTHROPIC_API_KEY"] ?? "";
  const offlineBecause = o.offline ? "--offline" : key === "" ? "no ANTHROPIC_API_KEY in the environment" : null;
  return {
    analysis: { name, rubric, template },
    cache: new AnalysisCache(cacheFile),
    backend:
      offlineBecause === null
        ? new AnthropicBackend(key, {
            baseURL: env["ANTHROPIC_BASE_URL"] || undefined,
            timeoutMs: o["request-timeout"] === undefined ? undefined : seconds("request-timeout", o["request-timeout"]) * 1000,
            maxRetries: o["max-retries"] === undefined ? undefined : count("max-retries", o["max-retries"]),
          })
        : null,
    model: o.model ?? DEFAULT_MODEL,
    offlineBecause,
  };
}

const seconds = (name: string, v: string): number => {
  if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0) throw new UsageError(`--${name} must be a positive number of seconds (got ${JSON.stringify(v)})`);
  return Number(v);
};
const count = (name: string, v: string): number => {
  if (!/^\d{1,2}$/.test(v)) throw new UsageError(`--${name} must be an integer from 0 to 99 (got ${JSON.stringify(v)})`);
  return Number(v);
};

/** Options the analysis commands share (node:util parseArgs shapes). */
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
