// What an analysis needs, from its settings and the environment: the rubric and prompt (the
// project's defaults or the user's files), the cache file, and the backend — live only with an API
// key and without offline mode. (The command-line options that fill these live in cli/.)

import { readFileSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { AnthropicBackend, DEFAULT_MODEL, type Backend } from "./backend.js";
import { checkKept } from "../io/output.js";
import { AnalysisCache } from "./cache.js";
import type { Analysis } from "./engine.js";
import { parseTemplate, type Template } from "./prompt.js";
import { parseRubric } from "./rubric.js";

/** The package's root (rubrics/ and prompts/ ship beside dist/ and src/). */
const ROOT = new URL("../../", import.meta.url).pathname;
export const ANALYSES = ["task-quality", "trial-legitimacy"] as const;
export type AnalysisName = (typeof ANALYSES)[number];
/** Every prompt the project ships: one per analysis, and the job narrative's. */
export type PromptName = AnalysisName | "narrative";

export interface SetupOptions {
  rubric?: string | undefined;
  prompt?: string | undefined;
  cache?: string | undefined;
  model?: string | undefined;
  offline?: boolean | undefined;
  requestTimeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  /** Folders the command reads: a cache it writes may not lie inside them. */
  roots?: readonly string[] | undefined;
}

export interface ModelSetup {
  template: Template;
  cache: AnalysisCache;
  backend: Backend | null;
  model: string;
  /** Why the backend is off, for the user (null when live). */
  offlineBecause: string | null;
}
export interface AnalysisSetup extends ModelSetup {
  analysis: Analysis;
}

export function setupAnalysis(
  name: AnalysisName,
  o: SetupOptions,
  env: Record<string, string | undefined>,
  cwd = process.cwd(),
): AnalysisSetup {
  const rubricFile = o.rubric ?? join(ROOT, "rubrics", `${name}.toml`);
  const rubric = parseRubric(basename(rubricFile, extname(rubricFile)), readFileSync(rubricFile));
  const model = setupModel(name, o, env, cwd);
  return { ...model, analysis: { name, rubric, template: model.template } };
}

/** The prompt, the cache and the backend (live only with a key and without --offline). */
export function setupModel(
  name: PromptName,
  o: SetupOptions,
  env: Record<string, string | undefined>,
  cwd = process.cwd(),
): ModelSetup {
  const promptFile = o.prompt ?? join(ROOT, "prompts", `${name}.md`);
  const template = parseTemplate(basename(promptFile, extname(promptFile)), readFileSync(promptFile));
  const cacheFile = resolve(cwd, o.cache ?? env["ASSAY_CACHE"] ?? join("cache", "assay.sqlite"));
  const key = env["ANTHROPIC_API_KEY"] ?? "";
  const offlineBecause = o.offline ? "--offline" : key === "" ? "no ANTHROPIC_API_KEY in the environment" : null;
  if (offlineBecause === null) checkKept(cacheFile, "the analysis cache", o.roots ?? []); // before it is created
  return {
    template,
    cache: new AnalysisCache(cacheFile, offlineBecause !== null), // replay reads, never writes
    backend:
      offlineBecause === null
        ? new AnthropicBackend(key, {
            baseURL: env["ANTHROPIC_BASE_URL"] || undefined,
            timeoutMs: o.requestTimeoutMs,
            maxRetries: o.maxRetries,
            env,
          })
        : null,
    model: o.model ?? DEFAULT_MODEL,
    offlineBecause,
  };
}
