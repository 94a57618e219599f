// What a run cost (contract §13.5): tokens and dollars as the evidence records them, summed, never
// estimated from a price list. A field no part records stays null (never 0). Pure.

import { isPlainObject } from "./json/decode.js";
import { finiteNumber } from "./schema.js";

export interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cost_usd: number | null;
}
export const USAGE_FIELDS = ["input_tokens", "output_tokens", "cache_read_tokens", "cost_usd"] as const;
export const noUsage = (): Usage => ({
  input_tokens: null,
  output_tokens: null,
  cache_read_tokens: null,
  cost_usd: null,
});

/** A count or a cost as recorded: a finite number ≥ 0, however the strict reader kept it (anything else is not a record of it). */
function recorded(v: unknown): number | null {
  const r = finiteNumber.safeParse(v);
  return r.success && r.data >= 0 ? r.data : null;
}

/** Some field of it is recorded (an empty or all-null record says nothing). */
export const recordsAny = (u: Usage | null): u is Usage => u !== null && USAGE_FIELDS.some((f) => u[f] !== null);

/** Adds `part` into `into`, field by field; a field stays null until some part records it. */
export function addUsage(into: Usage, part: Usage): Usage {
  for (const f of USAGE_FIELDS) {
    const v = part[f];
    if (v !== null) into[f] = (into[f] ?? 0) + v;
  }
  return into;
}

/** Harbor's AgentResult (`n_input_tokens`, `n_output_tokens`, `n_cache_tokens`, `cost_usd`), or null when there is none. */
export function harborUsage(agentResult: unknown): Usage | null {
  if (!isPlainObject(agentResult)) return null;
  return {
    input_tokens: recorded(agentResult["n_input_tokens"]),
    output_tokens: recorded(agentResult["n_output_tokens"]),
    cache_read_tokens: recorded(agentResult["n_cache_tokens"]),
    cost_usd: recorded(agentResult["cost_usd"]),
  };
}

/** Inspect's `model_usage` (model → ModelUsage) summed over its models, or null when there is none. */
export function inspectUsage(modelUsage: unknown): Usage | null {
  if (!isPlainObject(modelUsage)) return null;
  const out = noUsage();
  for (const u of Object.values(modelUsage)) {
    if (!isPlainObject(u)) continue;
    addUsage(out, {
      input_tokens: recorded(u["input_tokens"]),
      output_tokens: recorded(u["output_tokens"]),
      cache_read_tokens: recorded(u["input_tokens_cache_read"]),
      cost_usd: recorded(u["total_cost"]),
    });
  }
  return out;
}

/** One of an experiment's two totals: the four sums, over how many entries, and how many of them record a cost. */
export interface UsageTotal extends Usage {
  entries: number;
  costed: number;
}
export const emptyTotal = (): UsageTotal => ({ entries: 0, costed: 0, ...noUsage() });
export function addToTotal(total: UsageTotal, u: Usage | null): void {
  total.entries++;
  if (u === null) return;
  if (u.cost_usd !== null) total.costed++;
  addUsage(total, u);
}

export interface ExperimentUsage {
  spent: UsageTotal;
  counted: UsageTotal;
  successes: number;
  cost_per_success: number | null;
}

/**
 * An experiment's usage: what every entry spent (`spent`: retried, superseded and errored ones
 * included) and what its counted units spent, with cost per success = spent / successes.
 */
export function experimentUsage(
  spent: readonly (Usage | null)[],
  counted: readonly (Usage | null)[],
  successes: number,
): ExperimentUsage {
  const total = (list: readonly (Usage | null)[]) => {
    const t = emptyTotal();
    for (const u of list) addToTotal(t, u);
    return t;
  };
  const s = total(spent);
  return {
    spent: s,
    counted: total(counted),
    successes,
    cost_per_success: s.cost_usd === null || successes === 0 ? null : s.cost_usd / successes,
  };
}
