// A Harbor trial's run identity (issue 37), read from its own files and never guessed: who ran it
// (result.json's agent_info, which Harbor fills from the agent that ran; else the TrialConfig's
// agent), on which dataset (the trial config's task.source: the dataset's name for a registry or
// local dataset, null for an ad-hoc task: Harbor's eval key then says "adhoc"), and when. The
// Harbor version is the job's (its lock.json): the trial records none, so the job sets it where
// the trial lies (kinds/harbor/book.ts). Pure.

import { NO_ENTRY_IDENTITY, text, timesOf, type Benchmark, type EntryIdentity } from "../../core/identity.js";
import { isPlainObject, objectAt } from "../../core/json/decode.js";
import { textTooDeep } from "../../core/json/strict.js";

export const HARBOR_HARNESS = "harbor";

/**
 * The identity a trial records: `result` is its result.json (null when absent or unreadable),
 * `config` its TrialConfig (result.json's copy, else config.json, written before the trial ran,
 * so an incomplete trial still names its agent and model). The model is the config's
 * `model_name` ("anthropic/claude-sonnet-4-6"), which every trial records the same way (its
 * config.json, result.json's copy, the job's lock.json), else agent_info's `model_info.name`
 * ("claude-sonnet-4-6"): one spelling per job where the config has one, never a guessed one.
 */
export function harborIdentity(
  result: Record<string, unknown> | null,
  config: Record<string, unknown> | null,
): EntryIdentity {
  const info = objectAt(result, "agent_info");
  const agent = objectAt(config, "agent");
  const source = text(result?.["source"]) ?? text(objectAt(config, "task")?.["source"]);
  return {
    ...NO_ENTRY_IDENTITY,
    agent: text(info?.["name"]) ?? text(agent?.["name"]),
    model: text(agent?.["model_name"]) ?? text(objectAt(info, "model_info")?.["name"]),
    benchmark: source === null ? null : { name: source, version: null, dataset: null },
    harness: { name: HARBOR_HARNESS, version: null },
    ...timesOf(result?.["started_at"], result?.["finished_at"]),
  };
}

/**
 * The benchmark a job's config.json (JobConfig) says all its trials are drawn from: its one
 * registry dataset (`datasets[]` entry with a `name`: name and version as configured) where it names
 * no other dataset and no ad-hoc task (`tasks`); else null, each trial's own `task.source` saying
 * which (a version the job configures for that name is added where the trial lies: withRun).
 */
export function jobBenchmark(config: Uint8Array | null | { unreadable: string }): Benchmark | null {
  if (!(config instanceof Uint8Array)) return null;
  let doc: unknown;
  try {
    const text = Buffer.from(config).toString("utf8");
    if (textTooDeep(text)) return null;
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainObject(doc)) return null;
  const datasets = Array.isArray(doc["datasets"]) ? doc["datasets"] : [];
  const tasks = Array.isArray(doc["tasks"]) ? doc["tasks"] : [];
  if (datasets.length !== 1 || tasks.length > 0 || !isPlainObject(datasets[0])) return null;
  const name = text(datasets[0]["name"]);
  return name === null ? null : { name, version: text(datasets[0]["version"]), dataset: null };
}
