// Harbor's TrialResult (`result.json`, contract §11). Known fields are type-checked with zod;
// unknown ones are kept (Harbor adds fields between versions). What scoring needs is then read
// through `viewOf`, which takes only well-typed values, so a trial whose result.json has a schema
// error still gets its state (the error makes it invalid; its state is still shown).

import { z } from "zod";
import { finiteNumber, int, isReservedKey, record } from "../../core/schema.js";
import { addUsage, harborUsage, noUsage, recordsAny, type Usage } from "../../core/usage.js";
import type { EntryIdentity } from "../../core/identity.js";
import { harborIdentity } from "./identity.js";
import { isNaive, parseTimestamp } from "../../core/timestamp.js";

const timestamp = z.string().refine((s) => parseTimestamp(s) !== null, "expected an ISO 8601 timestamp");
const when = timestamp.nullable().optional();
const timing = z.looseObject({ started_at: when, finished_at: when }).nullable().optional();
/** A reward is a number; null is how pydantic writes NaN (NOT_FINITE, reported on its own). */
const rewards = record(z.string(), z.union([finiteNumber, z.null()]))
  .nullable()
  .optional();
const verifierResult = z.looseObject({ rewards }).nullable().optional();
const exceptionInfo = z
  .looseObject({
    exception_type: z.string(),
    exception_message: z.string(),
    exception_traceback: z.string().nullable().optional(),
    occurred_at: when,
  })
  .nullable()
  .optional();
const count = int(0).nullable().optional();
const agentResult = z
  .looseObject({
    n_input_tokens: count,
    n_cache_tokens: count,
    n_output_tokens: count,
    cost_usd: finiteNumber.nullable().optional(),
  })
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

/** The trial's config as result.json repeats it: what decides how its rewards were produced, and its job. */
const trialConfig = z
  .looseObject({
    job_id: z.string().nullable().optional(),
    verifier: z
      .looseObject({ import_path: z.string().nullable().optional(), disable: z.boolean().nullable().optional() })
      .nullable()
      .optional(),
  })
  .nullable()
  .optional();

export const trialResultSchema = z.looseObject({
  id: z.string().optional(),
  config: trialConfig,
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
/** A phase's two timestamps; `naive`: written without an offset (Harbor's older local times), compared only with other naive ones. */
export interface Stamp {
  t: bigint;
  text: string;
  naive: boolean;
}
export type Span = { started: Stamp | null; finished: Stamp | null };
export interface StepView {
  index: number;
  name: string | null;
  rewards: RewardMap | null;
  exception: ExceptionView | null;
  phases: Partial<Record<(typeof STEP_PHASES)[number], Span>>;
}
/** How the trial's rewards were produced: Harbor's reward files, a custom verifier (`verifier.import_path`), or none (`verifier.disable`). */
export type VerifierMode = "standard" | "custom" | "disabled";
export interface TrialView {
  id: string | null;
  jobId: string | null;
  verifier: VerifierMode;
  taskName: string | null;
  trialName: string | null;
  taskChecksum: string | null;
  /** task_id.path: where a local task lay, as the job's lock.json names it too. */
  taskPath: string | null;
  rewards: RewardMap | null;
  exception: ExceptionView | null;
  span: Span;
  phases: Partial<Record<Phase, Span>>;
  steps: StepView[];
  /** §13.5: the trial's agent_result, else (multi-step) its steps' summed; fields null where nothing records them. */
  usage: Usage;
  /** Issue 37: who ran the trial, on which dataset, when (identity.ts). */
  identity: EntryIdentity;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const numberOf = (v: unknown): number | null | undefined => {
  const r = finiteNumber.safeParse(v);
  return r.success ? r.data : v === null ? null : undefined;
};

/**
 * A rewards map: values that are numbers or null (non-finite). A reserved key is left out, and a
 * value of another type leaves the trial without rewards: the schema check has made either SCHEMA,
 * naming it, and a map read only in part would be compared as if it were whole.
 */
function rewardsOf(verifier: unknown): RewardMap | null {
  if (!isObj(verifier) || !isObj(verifier["rewards"])) return null;
  const out: RewardMap = {};
  for (const [k, v] of Object.entries(verifier["rewards"])) {
    if (isReservedKey(k)) continue;
    const n = numberOf(v);
    if (n === undefined) return null;
    out[k] = n;
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
  const at = (k: string): Stamp | null => {
    const text = isObj(v) ? str(v[k]) : null;
    const t = text === null ? null : parseTimestamp(text);
    return t === null ? null : { t, text: text!, naive: isNaive(text!) };
  };
  return { started: at("started_at"), finished: at("finished_at") };
}

function verifierOf(config: unknown): VerifierMode {
  const v = isObj(config) && isObj(config["verifier"]) ? config["verifier"] : {};
  if (v["disable"] === true) return "disabled";
  return typeof v["import_path"] === "string" && v["import_path"] !== "" ? "custom" : "standard";
}

/** The trial's own agent_result when it records anything; else the sum of its steps' (Harbor may record usage per step only). */
function usageOf(raw: Obj, steps: readonly unknown[]): Usage {
  const top = harborUsage(raw["agent_result"]);
  if (recordsAny(top)) return top;
  const sum = noUsage();
  for (const s of steps) addUsage(sum, (isObj(s) ? harborUsage(s["agent_result"]) : null) ?? noUsage());
  return sum;
}

export function viewOf(raw: Obj): TrialView {
  const phases: TrialView["phases"] = {};
  for (const p of PHASES) if (isObj(raw[p])) phases[p] = spanOf(raw[p]);
  const steps = Array.isArray(raw["step_results"]) ? raw["step_results"] : [];
  const config = raw["config"];
  return {
    id: str(raw["id"]),
    jobId: isObj(config) ? str(config["job_id"]) : null,
    verifier: verifierOf(config),
    taskName: str(raw["task_name"]),
    trialName: str(raw["trial_name"]),
    taskChecksum: str(raw["task_checksum"]),
    taskPath: isObj(raw["task_id"]) ? str(raw["task_id"]["path"]) : null,
    rewards: rewardsOf(raw["verifier_result"]),
    exception: exceptionOf(raw["exception_info"]),
    span: spanOf(raw),
    phases,
    usage: usageOf(raw, steps),
    identity: harborIdentity(raw, isObj(config) ? config : null),
    steps: steps.map((s, index) => {
      const o = isObj(s) ? s : {};
      const stepPhases: StepView["phases"] = {};
      for (const p of STEP_PHASES) if (isObj(o[p])) stepPhases[p] = spanOf(o[p]);
      return {
        index,
        name: str(o["step_name"]),
        rewards: rewardsOf(o["verifier_result"]),
        exception: exceptionOf(o["exception_info"]),
        phases: stepPhases,
      };
    }),
  };
}
