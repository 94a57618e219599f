// The folders the docs' commands use, as `assay demo --out DIR` writes them (and the docs' own test
// builds its sandbox with that command, so a newcomer gets exactly what the docs were checked on).
// Pure: paths and bytes; writing is the caller's.

import type { KindSynth } from "../kinds/synth.js";
import { corpusFiles, plannedBundles, type CorpusOptions } from "./corpus.js";
import { WORLD_SCENARIOS } from "./world.js";

/** The Harbor job's folder: a timestamp, as `harbor run` names a job given no --job-name. */
export const DEMO_JOB = "2025-11-03__10-00-00";

interface DemoFolder {
  folder: string;
  corpus: CorpusOptions;
  /** What the closing message says the folder holds. */
  holds: string;
  /** Where a corpus path goes under DIR. */
  place: (rel: string) => string;
}

const folder = (
  name: string,
  corpus: CorpusOptions,
  holds: (n: number) => string,
  place = (rel: string) => `${name}/${rel}`,
): DemoFolder => ({
  folder: name,
  corpus,
  holds: holds(corpus.n),
  place,
});

/** The corpora, in the order the message names them. */
export const DEMO_FOLDERS: readonly DemoFolder[] = [
  folder(
    "runs",
    { n: 24, seed: "assay", faults: true },
    (n) => `assay's own game bundles: ${n} trials and one labelled broken bundle per fault`,
  ),
  folder(
    "worlds",
    { n: WORLD_SCENARIOS.length, seed: "assay", faults: false, profile: "world" },
    () => "simulated world runs, one per canonical scenario",
  ),
  folder(
    "jobs",
    { n: 8, seed: "assay", faults: false, profile: "harbor", experiment: DEMO_JOB },
    (n) => `a Harbor job of ${n} trials (jobs/${DEMO_JOB})`,
  ),
  // Inspect writes its logs side by side in one folder: the plan's experiment folder is dropped.
  folder(
    "logs",
    { n: 6, seed: "assay", faults: false, profile: "inspect" },
    (n) => `${n} Inspect AI logs (.eval and .json)`,
    (rel) => `logs/${rel.slice(rel.indexOf("/") + 1)}`,
  ),
];

/** Two Harbor task folders for `assay check-task` (an instruction, a task.toml, a test each). */
const TASKS: Record<string, { instruction: string; test: string }> = {
  "hello-world": {
    instruction: "Create /app/hello.txt containing exactly `Hello, world!` and a newline.\n",
    test: 'assert open("/app/hello.txt").read() == "Hello, world!\\n"\n',
  },
  "csv-merge": {
    instruction: "Merge /data/a.csv and /data/b.csv on `id` into /app/out.csv, sorted by id, with a header row.\n",
    test: 'import csv\nrows = list(csv.DictReader(open("/app/out.csv")))\nassert [r["id"] for r in rows] == sorted(r["id"] for r in rows)\n',
  },
};
export const DEMO_TASKS_HOLD = `two Harbor task folders (${Object.keys(TASKS)
  .map((t) => `tasks/${t}`)
  .join(", ")}) for assay check-task`;

/** The listed kinds that have a demo folder (kinds/list.ts), each with it. */
export const withDemo = (listed: readonly KindSynth[]): { synth: KindSynth; demo: NonNullable<KindSynth["demo"]> }[] =>
  listed.flatMap((synth) => (synth.demo ? [{ synth, demo: synth.demo }] : []));

/** Every file of the demo folder (path under DIR → pieces), corpus by corpus, the listed kinds' after the built-in ones, then the tasks. */
export function* demoFiles(listed: readonly KindSynth[]): Generator<[string, Iterable<string | Uint8Array>]> {
  for (const f of DEMO_FOLDERS)
    for (const [rel, bytes] of corpusFiles(plannedBundles(f.corpus))) yield [f.place(rel), bytes];
  for (const { synth, demo } of withDemo(listed))
    for (const [rel, bytes] of synth.files({ n: demo.n, seed: "assay" })) yield [`${demo.folder}/${rel}`, bytes];
  for (const [name, t] of Object.entries(TASKS)) {
    yield [`tasks/${name}/instruction.md`, [t.instruction]];
    yield [
      `tasks/${name}/task.toml`,
      ['version = "1.0"\n[verifier]\ntimeout_sec = 120.0\n[agent]\ntimeout_sec = 600.0\n'],
    ];
    yield [`tasks/${name}/tests/test_outputs.py`, [t.test]];
  }
}
