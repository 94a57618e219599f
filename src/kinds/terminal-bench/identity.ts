// A Terminal-Bench trial's run identity (issue 37), never guessed. A trial's results.json records
// only its own times; who ran it (agent, model) and on which dataset are the run's to say
// (run_metadata.json, else tb.lock), read by the run's book and set where the trial lies. Pure.

import { objectAt } from "../../core/json/decode.js";
import { NO_ENTRY_IDENTITY, text, timesOf, type EntryIdentity } from "../../core/identity.js";
import type { Obj } from "./models.js";

export const TB_HARNESS = "terminal-bench";

/** What a trial's own results.json records: its span (trial_started_at..trial_ended_at), under TB's harness of unknown version. */
export function trialIdentity(results: Obj | null): EntryIdentity {
  return {
    ...NO_ENTRY_IDENTITY,
    harness: { name: TB_HARNESS, version: null },
    ...timesOf(results?.["trial_started_at"], results?.["trial_ended_at"]),
  };
}

/**
 * What a run's files record of its trials' run: agent and model (run_metadata.json's agent_name
 * and model_name, else tb.lock's agent), the dataset (dataset_name and dataset_version, else
 * tb.lock's dataset; null for a run over a local folder of tasks, which names none) and TB's
 * version (tb.lock harness.version). Null when neither file was read.
 */
export function runIdentity(meta: Obj | null, lock: Obj | null): EntryIdentity | null {
  if (meta === null && lock === null) return null;
  const agent = objectAt(lock, "agent");
  const dataset = objectAt(lock, "dataset");
  const name = text(meta?.["dataset_name"]) ?? text(dataset?.["name"]);
  const version = text(meta?.["dataset_version"]) ?? text(dataset?.["version"]);
  return {
    ...NO_ENTRY_IDENTITY,
    agent: text(meta?.["agent_name"]) ?? text(agent?.["name"]),
    model: text(meta?.["model_name"]) ?? text(agent?.["model_name"]),
    benchmark: name === null ? null : { name, version, dataset: null },
    harness: { name: TB_HARNESS, version: text(objectAt(lock, "harness")?.["version"]) },
  };
}
