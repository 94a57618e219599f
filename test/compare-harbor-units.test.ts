// compare's Harbor pairing units (contract §13.4, §13.6): per task, the mean of the trials that
// enter the reward key's `mean` under the active options. Real job folders are scored by the real
// batch, then their entries are read into compare's TrialOutcomes as `assay compare` reads a
// document. The invariant tying the two: the mean of the task units weighted by each task's trial
// count (counted by hand below) is the experiment's own `rewards.<key>.mean`, under --invalid
// count/exclude and --errors exclude/zero, with conflicting names, byte-identical copies, trials
// naming no task and invalid trials.
//
// Workers run compiled code (dist/): build first.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { TrialOutcomes, type Units } from "../src/core/compare/trials.js";
import type { Experiment, Results } from "../src/core/results.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { CLI } from "./helpers/cli.js";
import { float, writeJob, writeTrial, type TrialSpec } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const DOCKER = { type: "RuntimeError", message: "Docker compose command failed: network not found" };
/** Each trial its own Harbor id (equal ids across the two jobs would be a copied job, TRIAL_DUPLICATE_ID). */
const ided = (job: string, specs: TrialSpec[]): TrialSpec[] =>
  specs.map((s) => ({ ...s, extra: { ...s.extra, id: `${job}/${s.name}` } }));

/**
 * job-units, key `reward` (folder: task, what it holds):
 *   a__1 a 1 · a__2 a 0 · a__3 a infrastructure-error (no reward)
 *   b__1 b 1 · b__2x and b__2y, both trial_name b__2 (task b), rewards 1 and 0: other bytes under one name, both invalid
 *   c__1 c 1 · c__1-copy: the same bytes in a second folder (counted once)
 *   d__1 d 1 · d__1-copy (same bytes) · d__1-other, trial_name d__1, reward 0: three folders of one name, not all alike, all invalid
 *   e__1 e claims 1, its reward.txt says 0 (REWARD_MISMATCH, invalid) · e__2 e 1
 *   h__1 h 1 · h__1i, trial_name h__1 but task i: a conflicting name over two tasks (each folder's 0 in its own task)
 *   n__1 no result.json (incomplete, names no task) · n__2 result.json not JSON (JSON_SYNTAX: invalid, names no task)
 */
const C1: TrialSpec = { name: "c__1", task: "c", rewards: { reward: float(1) } };
const D1: TrialSpec = { name: "d__1", task: "d", rewards: { reward: float(1) } };
const UNITS: TrialSpec[] = ided("units", [
  { name: "a__1", task: "a", rewards: { reward: float(1) } },
  { name: "a__2", task: "a", rewards: { reward: float(0) } },
  { name: "a__3", task: "a", rewards: null, exception: DOCKER },
  { name: "b__1", task: "b", rewards: { reward: float(1) } },
  { name: "b__2x", trial_name: "b__2", task: "b", rewards: { reward: float(1) } },
  { name: "b__2y", trial_name: "b__2", task: "b", rewards: { reward: float(0) } },
  C1,
  D1,
  { name: "d__1-other", trial_name: "d__1", task: "d", rewards: { reward: float(0) } },
  { name: "e__1", task: "e", rewards: { reward: float(1) }, rewardFiles: { "reward.txt": "0\n" } },
  { name: "e__2", task: "e", rewards: { reward: float(1) } },
  { name: "h__1", task: "h", rewards: { reward: float(1) } },
  { name: "h__1i", trial_name: "h__1", task: "i", rewards: { reward: float(1) } },
  { name: "n__1", result: null, rewardFiles: null },
  { name: "n__2", result: "not json\n", rewardFiles: null },
]);

/**
 * job-keys, keys `correct` and `partial` (reward.json):
 *   p__1 p {correct 1, partial 0.5} · p__2 p {correct 0, partial 0.25}
 *   q__1 q {correct 1} (in no `partial` mean) · q__2 q claims {correct 1, partial 1}, its reward.json {correct 0, partial 1} (REWARD_MISMATCH)
 *   r__1x and r__1y, trial_name r__1 (task r): {correct 1, partial 1} and {correct 0, partial 0}, both invalid
 *   s__1 s infrastructure-error
 */
const KEYS: TrialSpec[] = ided("keys", [
  { name: "p__1", task: "p", rewards: { correct: float(1), partial: float(0.5) } },
  { name: "p__2", task: "p", rewards: { correct: float(0), partial: float(0.25) } },
  { name: "q__1", task: "q", rewards: { correct: float(1) } },
  {
    name: "q__2",
    task: "q",
    rewards: { correct: float(1), partial: float(1) },
    rewardFiles: { "reward.json": '{"correct": 0.0, "partial": 1.0}' },
  },
  { name: "r__1x", trial_name: "r__1", task: "r", rewards: { correct: float(1), partial: float(1) } },
  { name: "r__1y", trial_name: "r__1", task: "r", rewards: { correct: float(0), partial: float(0) } },
  { name: "s__1", task: "s", rewards: null, exception: DOCKER },
]);

type Options = Pick<ScoreRunOptions, "invalid" | "errors">;
/** Per task (compare's unit id): [trials entering the mean, their mean], counted by hand from the lists above. */
type Expected = Record<string, [n: number, value: number]>;
const N1 = "n__1 (a trial naming no task)";
const N2 = "n__2 (a trial naming no task)";

const CASES: { options: Options; units: Expected; keys: { correct: Expected; partial: Expected } }[] = [
  {
    // Invalid as 0, errors out. units: a (1, 0); b (1, and the two b__2 folders 0, 0); c once (1);
    // d three folders 0; e (0 invalid, 1); h 0 and i 0 (h__1's two folders); n__2 0 → 4/14.
    // keys correct: p (1, 0), q (1, 0 invalid), r (0, 0) → 2/6; partial: p (0.5, 0.25), q (0: q__1
    // has no partial), r (0, 0) → 0.75/5.
    options: { invalid: "count", errors: "exclude" },
    units: { a: [2, 1 / 2], b: [3, 1 / 3], c: [1, 1], d: [3, 0], e: [2, 1 / 2], h: [1, 0], i: [1, 0], [N2]: [1, 0] },
    keys: { correct: { p: [2, 1 / 2], q: [2, 1 / 2], r: [2, 0] }, partial: { p: [2, 0.375], q: [1, 0], r: [2, 0] } },
  },
  {
    // As above, plus a__3, n__1 and s__1 as 0: units 4/16; correct 2/7; partial 0.75/6.
    options: { invalid: "count", errors: "zero" },
    units: {
      a: [3, 1 / 3],
      b: [3, 1 / 3],
      c: [1, 1],
      d: [3, 0],
      e: [2, 1 / 2],
      h: [1, 0],
      i: [1, 0],
      [N1]: [1, 0],
      [N2]: [1, 0],
    },
    keys: {
      correct: { p: [2, 1 / 2], q: [2, 1 / 2], r: [2, 0], s: [1, 0] },
      partial: { p: [2, 0.375], q: [1, 0], r: [2, 0], s: [1, 0] },
    },
  },
  {
    // Invalid and errors out: a (1, 0), b (1), c (1), e (1) → 4/5; d, h, i and the taskless trials
    // have no unit. correct: p (1, 0), q (1) → 2/3; partial: p → 0.375.
    options: { invalid: "exclude", errors: "exclude" },
    units: { a: [2, 1 / 2], b: [1, 1], c: [1, 1], e: [1, 1] },
    keys: { correct: { p: [2, 1 / 2], q: [1, 1] }, partial: { p: [2, 0.375] } },
  },
  {
    // Invalid out, errors 0: units a (1, 0, 0), b, c, e (1), n__1 0 → 4/7; correct p, q (1), s 0 → 2/4; partial p, s → 0.75/3.
    options: { invalid: "exclude", errors: "zero" },
    units: { a: [3, 1 / 3], b: [1, 1], c: [1, 1], e: [1, 1], [N1]: [1, 0] },
    keys: { correct: { p: [2, 1 / 2], q: [1, 1], s: [1, 0] }, partial: { p: [2, 0.375], s: [1, 0] } },
  },
];

/** Σ n·value / Σ n over the tasks, each task's value from `value`. */
const weighted = (e: Expected, value: (id: string) => number) => {
  const ids = Object.keys(e);
  return ids.reduce((s, id) => s + e[id]![0] * value(id), 0) / ids.reduce((s, id) => s + e[id]![0], 0);
};
const asMap = (u: Units) => new Map(u.ids.map((id, i) => [id, u.values[i]!]));

const { dir: root } = scratch("assay-compare-harbor-units-", SCRATCH);
beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(new URL("../dist/pool/worker.js", import.meta.url)))
    throw new Error("these tests run compiled workers: build first");
  mkdirSync(root, { recursive: true });
  const units = writeJob(root, "job-units", UNITS);
  // Byte-identical second folders: the same spec written under another folder name.
  writeTrial(
    join(units, "c__1-copy"),
    UNITS.find((s) => s.name === C1.name)!,
  );
  writeTrial(
    join(units, "d__1-copy"),
    UNITS.find((s) => s.name === D1.name)!,
  );
  writeJob(root, "job-keys", KEYS);
});

const score = (options: Options) => scoreRoots([root], { schedules: [], ...DEFAULT_BATCH, jobs: 2, ...options });
const experiment = (doc: Results, name: string): Experiment =>
  doc.experiments.find((x) => x.experiment === name && x.profile === "harbor")!;
/** compare's units of every headline metric, the entries read in the given order (as a document is read). */
function unitsOf(doc: Results, x: Experiment, order: "document" | "reversed"): Map<string, Units> {
  const t = new TrialOutcomes();
  for (const e of order === "document" ? doc.bundles : [...doc.bundles].reverse()) t.add(e);
  return t.take(x, doc.run.options);
}

describe.sequential("a Harbor task's unit is the mean of its trials in the key's mean", () => {
  for (const c of CASES) {
    it(`--invalid ${c.options.invalid} --errors ${c.options.errors}: units weighted by trial counts give each key's mean`, async () => {
      const doc = await score(c.options);
      expect(doc.run.options).toMatchObject(c.options);
      const units = experiment(doc, "job-units");
      const keys = experiment(doc, "job-keys");
      // The batch saw what the lists above say: the conflicting names invalid, the copies excluded as copies.
      expect(units.invalid.map((t) => t.trial).sort()).toEqual([
        "b__2",
        "b__2",
        "d__1",
        "d__1",
        "d__1",
        "e__1",
        "h__1",
        "h__1",
        "n__2",
      ]);
      expect(units.excluded.filter((t) => t.reason.startsWith("a byte-identical copy")).map((t) => t.trial)).toEqual([
        "c__1",
      ]);
      expect(keys.invalid.map((t) => t.trial).sort()).toEqual(["q__2", "r__1", "r__1"]);

      for (const order of ["document", "reversed"] as const) {
        for (const [x, key, expected] of [
          [units, "reward", c.units],
          [keys, "correct", c.keys.correct],
          [keys, "partial", c.keys.partial],
        ] as const) {
          const mean = x.rewards![key]!.mean!;
          // The hand counts agree with the batch's figure...
          expect(
            weighted(expected, (id) => expected[id]![1]),
            `${key}: hand counts`,
          ).toBeCloseTo(mean, 12);
          // ...compare's units are those tasks with those values...
          const u = unitsOf(doc, x, order).get(`reward/${key}/mean`)!;
          expect(u.unit).toBe("task");
          const got = asMap(u);
          expect([...got.keys()].sort(), `${key} (${order})`).toEqual(Object.keys(expected).sort());
          for (const [id, [, v]] of Object.entries(expected))
            expect(got.get(id), `${key} ${id} (${order})`).toBeCloseTo(v, 12);
          // ...and weighted by the tasks' trial counts they give the key's mean.
          expect(
            weighted(expected, (id) => got.get(id)!),
            `${key} (${order})`,
          ).toBeCloseTo(mean, 12);
        }
      }
    });
  }

  it("a task's checksum travels with its unit; a trial naming no task has none", async () => {
    const doc = await score({ invalid: "count", errors: "zero" });
    const u = unitsOf(doc, experiment(doc, "job-units"), "document").get("reward/reward/mean")!;
    const checksums = Object.fromEntries(u.ids.map((id, i) => [id, u.checksums![i]]));
    expect(checksums).toMatchObject({ a: "c0ffee", b: "c0ffee", d: "c0ffee", i: "c0ffee", [N1]: null, [N2]: null });
  });
});
