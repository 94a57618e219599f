// A corpus plan: which bundles to synthesise, with a known mix of outcomes (and, with faults,
// labelled broken evidence). Pure: the plan and each bundle's bytes; writing is the caller's.

import { HARBOR_EXPECT, harborCaseAt, synthHarborJobFiles, synthHarborTrial, type HarborSpec } from "./harbor.js";
import { FAULT_CODES, NATIVE_FAULTS, synthNative, type NativeFault, type NativeOutcome, type NativeSpec } from "./native.js";
import { Random } from "./random.js";
import { synthWorld, WORLD_EXPECT, WORLD_SCENARIOS, type WorldExpect, type WorldSpec } from "./world.js";

interface Planned {
  /** Relative directory of the bundle under the corpus root. */
  dir: string;
  /** World bundles also carry each dimension's expected pass/fail and `pass`. */
  expect: { validity: "valid" | "invalid"; code: string | null } & Partial<WorldExpect>;
}
export type PlannedBundle = Planned &
  (({ profile: "native-game" } & NativeSpec) | ({ profile: "world" } & WorldSpec) | ({ profile: "harbor"; experiment: string; attempt: null; seed: null } & HarborSpec));

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
  /** native-game (default); world: the canonical world scenarios, in turn; harbor: one Harbor job. */
  profile?: "native-game" | "world" | "harbor";
  /** Key batches per bundle. */
  events?: number;
  experiment?: string;
}

export function planCorpus(o: CorpusOptions): PlannedBundle[] {
  if (o.profile === "world") return planWorld(o);
  if (o.profile === "harbor") return planHarbor(o);
  const r = new Random(o.seed);
  const experiment = o.experiment ?? "synth-native";
  const out: PlannedBundle[] = [];
  const add = (trial: string, attempt: number, outcome: NativeOutcome, seed: string, task: string, fault?: NativeFault) =>
    out.push({
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
    add(trial, 1, outcome, seed, task);
    if (RETRIED.has(outcome)) add(trial, 2, r.next() < 0.5 ? "victory" : "death", seed, task);
  }
  if (o.faults) for (const fault of NATIVE_FAULTS) add(`fault-${fault}`, 1, "death", r.hex(16), "faults", fault);
  return out;
}

/** World trials cycle through the canonical scenarios; each scenario is a task (its repeats). */
function planWorld(o: CorpusOptions): PlannedBundle[] {
  const r = new Random(o.seed);
  const experiment = o.experiment ?? "synth-world";
  return Array.from({ length: o.n }, (_, i) => {
    const scenario = WORLD_SCENARIOS[i % WORLD_SCENARIOS.length]!;
    const trial = `${scenario}-${String(Math.floor(i / WORLD_SCENARIOS.length)).padStart(3, "0")}`;
    return { profile: "world" as const, experiment, trial, attempt: 1, seed: r.hex(16), scenario, task: scenario,
      dir: `${experiment}/${trial}/a1`, expect: { validity: "valid" as const, code: null, ...WORLD_EXPECT[scenario] } };
  });
}

/** One Harbor job; trials cycle through the labelled cases over three tasks, named as Harbor names them. */
function planHarbor(o: CorpusOptions): PlannedBundle[] {
  const r = new Random(o.seed);
  const job = o.experiment ?? "synth-harbor-job";
  return Array.from({ length: o.n }, (_, i) => {
    const task = `task-${i % 3}`;
    const trial = `${task}__${r.hex(4)}`;
    const c = harborCaseAt(i);
    const { validity, code } = HARBOR_EXPECT[c];
    return { profile: "harbor" as const, experiment: job, job, trial, attempt: null, seed: null, task, case: c, offset: i * 6, dir: `${job}/${trial}`, expect: { validity, code } };
  });
}

const bundleFiles = (b: PlannedBundle): Map<string, Buffer> =>
  b.profile === "world" ? synthWorld(b) : b.profile === "harbor" ? synthHarborTrial(b) : synthNative(b);

/** Every file of a planned corpus (relative path → bytes): each bundle's, and a Harbor job's own. */
export function corpusFiles(plan: readonly PlannedBundle[]): [string, Uint8Array][] {
  const files: [string, Uint8Array][] = [];
  for (const b of plan) for (const [rel, bytes] of bundleFiles(b)) files.push([`${b.dir}/${rel}`, bytes]);
  const jobs = new Map<string, HarborSpec[]>();
  for (const b of plan) if (b.profile === "harbor") jobs.set(b.job, [...(jobs.get(b.job) ?? []), b]);
  for (const [job, trials] of jobs) for (const [rel, bytes] of synthHarborJobFiles(job, trials)) files.push([`${job}/${rel}`, bytes]);
  return files;
}
