// A corpus plan: which bundles to synthesise, with a known mix of outcomes (and, with faults,
// labelled broken evidence). Pure: the plan and each bundle's bytes; writing is the caller's. Both
// are produced as they are consumed, so a corpus of a million bundles is never in memory at once.

import { HARBOR_EXPECT, harborCaseAt, synthHarborJobFiles, synthHarborTrial, type HarborSpec } from "./harbor.js";
import { INSPECT_CASES, INSPECT_EXPECT, inspectFileName, inspectLogBytes, type InspectSpec } from "./inspect.js";
import {
  FAULT_CODES,
  NATIVE_FAULTS,
  nativeFiles,
  type NativeFault,
  type NativeOutcome,
  type NativeSpec,
} from "./native.js";
import { Random } from "./random.js";
import { synthWorld, WORLD_EXPECT, WORLD_SCENARIOS, type WorldExpect, type WorldSpec } from "./world.js";

interface Planned {
  /** Relative directory of the bundle under the corpus root. */
  dir: string;
  /** World bundles also carry each dimension's expected pass/fail and `pass`. */
  expect: { validity: "valid" | "invalid"; code: string | null } & Partial<WorldExpect>;
}
export type PlannedBundle = Planned &
  (
    | ({ profile: "native-game" } & NativeSpec)
    | ({ profile: "world" } & WorldSpec)
    | ({ profile: "harbor"; experiment: string; attempt: null; seed: null } & HarborSpec)
    | ({ profile: "inspect"; experiment: string; trial: null; attempt: null } & InspectSpec)
  );

const WEIGHTED: [NativeOutcome, number][] = [
  ["victory", 3],
  ["death", 6],
  ["late-victory", 1],
  ["retire", 1],
  ["escape-empty", 1],
  ["interrupted", 1],
  ["resource-bound", 1],
  ["abnormal", 1],
  ["save-quit", 1],
  ["torn-ending", 1],
  ["unterminated", 1],
];

function pickOutcome(r: Random): NativeOutcome {
  const total = WEIGHTED.reduce((s, [, w]) => s + w, 0);
  let x = r.int(total);
  for (const [o, w] of WEIGHTED) if ((x -= w) < 0) return o;
  return "death";
}

/** Outcomes after which a harness would retry the trial (no outcome was decided). */
const RETRIED = new Set<NativeOutcome>(["abnormal", "save-quit", "unterminated"]);

export interface CorpusOptions {
  n: number;
  seed: string;
  faults: boolean;
  /** native-game (default); world: the canonical world scenarios, in turn; harbor: one Harbor job; inspect: Inspect logs of labelled cases. */
  profile?: "native-game" | "world" | "harbor" | "inspect";
  /** Key batches per bundle. */
  events?: number;
  experiment?: string;
}

export const planCorpus = (o: CorpusOptions): PlannedBundle[] => [...plannedBundles(o)];

/** The plan, one bundle at a time (the same sequence as planCorpus). */
export function* plannedBundles(o: CorpusOptions): Generator<PlannedBundle> {
  if (o.profile === "world") return yield* planWorld(o);
  if (o.profile === "harbor") return yield* planHarbor(o);
  if (o.profile === "inspect") return yield* planInspect(o);
  const r = new Random(o.seed);
  const experiment = o.experiment ?? "synth-native";
  const add = (
    trial: string,
    attempt: number,
    outcome: NativeOutcome,
    seed: string,
    task: string,
    fault?: NativeFault,
  ): PlannedBundle => ({
    profile: "native-game",
    experiment,
    trial,
    attempt,
    seed,
    outcome,
    task,
    events: o.events,
    fault,
    dir: `${experiment}/${trial}/a${attempt}`,
    expect: fault ? { validity: "invalid", code: FAULT_CODES[fault] } : { validity: "valid", code: null },
  });
  for (let i = 0; i < o.n; i++) {
    const trial = `t${String(i).padStart(4, "0")}`;
    const seed = r.hex(16);
    const task = `task-${Math.floor(i / 3)}`; // three independent repeats per task
    const outcome = pickOutcome(r);
    yield add(trial, 1, outcome, seed, task);
    if (RETRIED.has(outcome)) yield add(trial, 2, r.next() < 0.5 ? "victory" : "death", seed, task);
  }
  if (o.faults) for (const fault of NATIVE_FAULTS) yield add(`fault-${fault}`, 1, "death", r.hex(16), "faults", fault);
}

/** World trials cycle through the canonical scenarios; each scenario is a task (its repeats). */
function* planWorld(o: CorpusOptions): Generator<PlannedBundle> {
  const r = new Random(o.seed);
  const experiment = o.experiment ?? "synth-world";
  for (let i = 0; i < o.n; i++) {
    const scenario = WORLD_SCENARIOS[i % WORLD_SCENARIOS.length]!;
    const trial = `${scenario}-${String(Math.floor(i / WORLD_SCENARIOS.length)).padStart(3, "0")}`;
    yield {
      profile: "world" as const,
      experiment,
      trial,
      attempt: 1,
      seed: r.hex(16),
      scenario,
      task: scenario,
      dir: `${experiment}/${trial}/a1`,
      expect: { validity: "valid" as const, code: null, ...WORLD_EXPECT[scenario] },
    };
  }
}

/** One Harbor job; trials cycle through the labelled cases over three tasks, named as Harbor names them. */
function* planHarbor(o: CorpusOptions): Generator<PlannedBundle> {
  const r = new Random(o.seed);
  const job = o.experiment ?? "synth-harbor-job";
  for (let i = 0; i < o.n; i++) {
    const task = `task-${i % 3}`;
    const trial = `${task}__${r.hex(4)}`;
    const c = harborCaseAt(i);
    const { validity, code } = HARBOR_EXPECT[c];
    yield {
      profile: "harbor" as const,
      experiment: job,
      job,
      trial,
      attempt: null,
      seed: null,
      task,
      case: c,
      offset: i * 6,
      dir: `${job}/${trial}`,
      expect: { validity, code },
    };
  }
}

/** How each case is written: both formats, both compressions (zstd in two frames once). */
const INSPECT_FORMS: Record<string, Pick<InspectSpec, "format" | "method" | "frames">> = {
  clean: { format: "eval", method: 93 },
  "errors-hidden": { format: "eval", method: 8 },
  epochs: { format: "json", method: 0 },
  "metric-inflated": { format: "eval", method: 93, frames: 2 },
  "summary-edited": { format: "eval", method: 8 },
  killed: { format: "eval", method: 93 },
  truncated: { format: "eval", method: 8 },
  "corrupt-member": { format: "eval", method: 93 },
  "limits-and-edits": { format: "json", method: 0 },
  "retried-error": { format: "eval", method: 93 },
  "retried-success": { format: "eval", method: 8 },
};

/** Inspect logs cycling through the labelled cases; the two retried ones are one task run (an eval-retry chain). */
function* planInspect(o: CorpusOptions): Generator<PlannedBundle> {
  const experiment = o.experiment ?? "synth-inspect";
  for (let i = 0; i < o.n; i++) {
    const c = INSPECT_CASES[i % INSPECT_CASES.length]!;
    const round = Math.floor(i / INSPECT_CASES.length);
    const retried = c.startsWith("retried-");
    const task = retried ? `retried-${round}` : `${c}-${round}`;
    const spec: InspectSpec = {
      task,
      model: "openai/gpt-4o-mini",
      case: c,
      samples: 10,
      epochs: c === "epochs" ? 3 : 1,
      ...INSPECT_FORMS[c]!,
      seed: o.seed,
      offset: i * 30,
      ...(retried
        ? {
            taskId: `retry${round}${o.seed}`
              .replace(/[^A-Za-z0-9]/g, "")
              .padEnd(22, "x")
              .slice(0, 22),
          }
        : {}),
    };
    const { validity, code } = INSPECT_EXPECT[c];
    yield {
      profile: "inspect" as const,
      experiment,
      trial: null,
      attempt: null,
      ...spec,
      dir: `${experiment}/${inspectFileName(spec)}`,
      expect: { validity, code },
    };
  }
}

/** A bundle's files, each as pieces made when they are read (a native journal's lines one by one). */
function bundleFiles(b: Exclude<PlannedBundle, { profile: "inspect" }>): [string, Iterable<string | Uint8Array>][] {
  if (b.profile === "native-game")
    return nativeFiles(b).map(([rel, bytes]) => [rel, { [Symbol.iterator]: () => bytes()[Symbol.iterator]() }]);
  return [...(b.profile === "world" ? synthWorld(b) : synthHarborTrial(b))].map(([rel, bytes]) => [rel, [bytes]]);
}

/**
 * Every file of a planned corpus (path under the corpus → pieces), bundle by bundle as the plan
 * is read; a Harbor job's own files after its trials (a job's trials are few: they are kept).
 */
export function* corpusFiles(plan: Iterable<PlannedBundle>): Generator<[string, Iterable<string | Uint8Array>]> {
  const jobs = new Map<string, HarborSpec[]>();
  for (const b of plan) {
    if (b.profile === "inspect") {
      yield [b.dir, [inspectLogBytes(b)]]; // a log is one file
      continue;
    }
    for (const [rel, bytes] of bundleFiles(b)) yield [`${b.dir}/${rel}`, bytes];
    if (b.profile === "harbor") jobs.set(b.job, [...(jobs.get(b.job) ?? []), b]);
  }
  for (const [job, trials] of jobs)
    for (const [rel, bytes] of synthHarborJobFiles(job, trials)) yield [`${job}/${rel}`, [bytes]];
}
