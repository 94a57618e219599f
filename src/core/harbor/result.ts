// Harbor's TrialResult (`result.json`, contract §11). Known fields are type-checked with zod;
// unknown ones are kept (Harbor adds fields between versions). What scoring needs is then read
// through `viewOf`, which takes only well-typed values, so a trial whose result.json has a schema
// error still gets its state (the error makes it invalid; its state is still shown).

import { z } from "zod";
import { finiteNumber, int, isReservedKey, record } from "../schema.js";
import { parseTimestamp } from "./time.js";

const timestamp = z.string().refine((s) => parseTimestamp(s) !== null, "expected an ISO 8601 timestamp");
const when = timestamp.nullable().optional();
const timing = z.looseObject({ started_at: when, finished_at: when }).nullable().optional();
/** A reward is a number; null is how pydantic writes NaN (NOT_FINITE, reported on its own). */
const rewards = record(z.string(), z.union([finiteNumber, z.null()])).nullable().optional();
const verifierResult = z.looseObject({ rewards }).nullable().optional();
const exceptionInfo = z
  .looseObject({ exception_type: z.string(), exception_message: z.string(), exception_traceback: z.string().nullable().optional(), occurred_at: when })
  .nullable()
  .optional();
const count = int(0).nullable().optional();
const agentResult = z
  .looseObject({ n_input_tokens: count, n_cache_tokens: count, n_output_tokens: count, cost_usd: finiteNumber.nullable().optional() })
  .nullable()
  .optional();

export const PHASES = ["environment_setup", "agent_setup", "agent_execution", "verifier"] as const;
export type Phase = (typeof PHASES)[number];
export const STEP_PHASES = ["agent_execution", "verifier"] as const;

export const stepResultSchema = z.looseObject({
  step_name: z.string(),
  agent_result: agentResult,
  verifier_result: verifierResult,
  exception_info: exceptionInfo,
  agent_execution: timing,
  verifier: timing,
});

export const trialResultSchema = z.looseObject({
  id: z.string().optional(),
  task_name: z.string(),
  trial_name: z.string(),
  task_checksum: z.string().nullable().optional(),
  agent_info: z
    .looseObject({
      name: z.string(),
      version: z.string().nullable().optional(),
      model_info: z.looseObject({ name: z.string(), provider: z.string().nullable().optional() }).nullable().optional(),
    })
    .nullable()
    .optional(),
  agent_result: agentResult,
  verifier_result: verifierResult,
  exception_info: exceptionInfo,
  started_at: when,
  finished_at: when,
  environment_setup: timing,
  agent_setup: timing,
  agent_execution: timing,
  verifier: timing,
  step_results: z.array(stepResultSchema).nullable().optional(),
});

// ---------------------------------------------------------------------------------------------
// The view: what the rules read, each value taken only when it has the right type.

export type RewardMap = Record<string, number | null>;
export interface ExceptionView {
  type: string;
  message: string;
}
export type Span = { started: bigint | null; finished: bigint | null; startedText: string | null; finishedText: string | null };
export interface StepView {
  index: number;
  name: string | null;
  rewards: RewardMap | null;
  exception: ExceptionView | null;
  phases: Partial<Record<(typeof STEP_PHASES)[number], Span>>;
}
export interface TrialView {
  taskName: string | null;
  trialName: string | null;
  taskChecksum: string | null;
  rewards: RewardMap | null;
  exception: ExceptionView | null;
  span: Span;
  phases: Partial<Record<Phase, Span>>;
  steps: StepView[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const numberOf = (v: unknown): number | null | undefined => {
  const r = finiteNumber.safeParse(v);
  return r.success ? r.data : v === null ? null : undefined;
};

/**
 * A rewards map: values that are numbers or null (non-finite); anything else is left out, and so
 * is a reserved key (the schema check has made it SCHEMA, naming it).
 */
function rewardsOf(verifier: unknown): RewardMap | null {
  if (!isObj(verifier) || !isObj(verifier["rewards"])) return null;
  const out: RewardMap = {};
  for (const [k, v] of Object.entries(verifier["rewards"])) {
    if (isReservedKey(k)) continue;
    const n = numberOf(v);
    if (n !== undefined) out[k] = n;
  }
  return out;
}

/** Anything but null (or absence) is an exception, however malformed: it can only lower a state. */
function exceptionOf(v: unknown): ExceptionView | null {
  if (v === null || v === undefined) return null;
  if (!isObj(v)) return { type: "(malformed exception_info)", message: JSON.stringify(v)?.slice(0, 200) ?? "" };
  return { type: str(v["exception_type"]) ?? "(unnamed exception)", message: str(v["exception_message"]) ?? "" };
}

function spanOf(v: unknown): Span {
  const at = (k: string) => {
    const text = isObj(v) ? str(v[k]) : null;
    return { text, t: text === null ? null : parseTimestamp(text) };
  };
  const s = at("started_at");
  const f = at("finished_at");
  return { started: s.t, finished: f.t, startedText: s.text, finishedText: f.text };
}

export function viewOf(raw: Obj): TrialView {
  const phases: TrialView["phases"] = {};
  for (const p of PHASES) if (isObj(raw[p])) phases[p] = spanOf(raw[p]);
  const steps = Array.isArray(raw["step_results"]) ? raw["step_results"] : [];
  return {
    taskName: str(raw["task_name"]),
    trialName: str(raw["trial_name"]),
    taskChecksum: str(raw["task_checksum"]),
    rewards: rewardsOf(raw["verifier_result"]),
    exception: exceptionOf(raw["exception_info"]),
    span: spanOf(raw),
    phases,
    steps: steps.map((s, index) => {
      const o = isObj(s) ? s : {};
      const stepPhases: StepView["phases"] = {};
      for (const p of STEP_PHASES) if (isObj(o[p])) stepPhases[p] = spanOf(o[p]);
      return { index, name: str(o["step_name"]), rewards: rewardsOf(o["verifier_result"]), exception: exceptionOf(o["exception_info"]), phases: stepPhases };
    }),
  };
}
