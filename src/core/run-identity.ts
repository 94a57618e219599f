// What a container's own files record of the run its members belong to (issue 37): a
// Terminal-Bench run's agent, model and dataset (run_metadata.json, tb.lock), a Harbor job's
// Harbor version (lock.json) and dataset (config.json). A member's worker sees only its own folder, so this is set where the
// member lies (pipeline/placed.ts), under the member's own record. Pure.

import { NO_ENTRY_IDENTITY, type Benchmark, type EntryIdentity, type Harness } from "./identity.js";

/**
 * A member's identity with its container's record where its own is silent: each of agent, model,
 * benchmark and tasks the member's own when it records one; the harness the container's when the
 * member's names no version (the same harness, or none). Times stay the member's own: a trial's
 * span is not its run's.
 */
export function withRun(own: EntryIdentity | null, run: EntryIdentity): EntryIdentity {
  const o = own ?? NO_ENTRY_IDENTITY;
  return {
    ...o,
    agent: o.agent ?? run.agent,
    model: o.model ?? run.model,
    benchmark: benchmarkOf(o.benchmark, run.benchmark),
    tasks: o.tasks ?? run.tasks,
    harness: harnessOf(o.harness, run.harness),
  };
}

/** The member's benchmark, with the version its container configures for that very name where the member records none. */
function benchmarkOf(own: Benchmark | null, run: Benchmark | null): Benchmark | null {
  if (own === null) return run;
  return own.version === null && run !== null && run.name === own.name && run.version !== null
    ? { ...own, version: run.version }
    : own;
}

function harnessOf(own: Harness | null, run: Harness | null): Harness | null {
  if (own === null) return run;
  if (own.version !== null || run === null || run.name !== own.name) return own;
  return run;
}
