// A Harbor trial whose result.json is cut short (a killed writer) names no task of its own (issue 35
// §5): `--errors zero` made it a task of its own ("8 in 4 tasks" for the demo's 3). Its task now
// comes from what survives, its config.json's task path, matched against the job's trials whose
// result.json records that path; where nothing places it, it stays a trial of unknown task.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Results } from "../src/core/results.js";
import { run } from "./helpers/cli.js";
import { float, writeJob, type TrialSpec } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-harbor-task-place-", SCRATCH);

const CUT = '{\n    "id": "00000000-0000-4000-8000-a30000000000",\n    "task_name": "task-a",\n    "trial_na';
const config = (path: string | null, name: string) =>
  JSON.stringify({ trial_name: name, task: path === null ? { git_url: null } : { path } }, null, 4);
const pass = (name: string, task: string): TrialSpec => ({ name, task, rewards: { reward: float(1) } });
const fail = (name: string, task: string): TrialSpec => ({ name, task, rewards: { reward: float(0) } });
/** Trial a3 of task-a, its result.json cut short; its config.json names `path` (default: task-a's). */
const cut = (o: { folder?: string; path?: string | null } = {}): TrialSpec => {
  const name = o.folder ?? "task-a__a3";
  return {
    name,
    task: "task-a",
    result: CUT,
    rewardFiles: null,
    files: o.path === undefined ? {} : { "config.json": config(o.path, name) },
  };
};
const others = [
  pass("task-a__a1", "task-a"),
  pass("task-a__a2", "task-a"),
  fail("task-b__b1", "task-b"),
  fail("task-b__b2", "task-b"),
];

let n = 0;
async function score(trials: TrialSpec[], errors: "zero" | "exclude" = "zero") {
  const job = writeJob(join(tmp, `root-${++n}`), "job", trials);
  const json = await run(["score", job, "--errors", errors, "--format", "json", "--quiet"]);
  expect(json.code, json.stderr).toBe(0);
  const doc = JSON.parse(json.stdout) as Results;
  const table = await run(["score", job, "--errors", errors, "--quiet"]);
  return { job, doc, reward: doc.experiments[0]!.rewards!["reward"]!, table: table.stdout };
}

describe("--errors zero: a trial with a truncated result.json is placed in its task", () => {
  it("by its config.json's task path: 5 trials in 2 tasks (was 3), the interval and pass@k of a whole result.json saying 0", async () => {
    const placed = await score([...others, cut()]);
    expect(placed.reward.mean).toBeCloseTo(0.4, 12);
    expect(placed.reward.interval).toEqual(expect.objectContaining({ method: "korn-graubard", units: 5, clusters: 2 }));
    expect(placed.reward.interval).not.toHaveProperty("unplaced");
    expect(placed.table).toMatch(/\b5 in 2 tasks\b/);
    expect(placed.reward.pass_at_k_reason).toBeNull(); // was: "1 trial in the mean names no task"
    expect(placed.reward.pass_at_k!["1"]).toBeCloseTo(1 / 3, 12);
    // The honest neighbour: the same trial with a whole result.json scoring 0. Same figures.
    const whole = await score([...others, fail("task-a__a3", "task-a")]);
    expect(placed.reward.interval).toEqual(whole.reward.interval);
    expect(placed.reward.pass_at_k).toEqual(whole.reward.pass_at_k);
    // Its entry says what its own evidence says: no task_name (result.json names none), the path its config names.
    const entry = placed.doc.bundles.find((b) => b.path.endsWith("task-a__a3"))!;
    expect(entry).toMatchObject({ task: null, task_path: "tasks/task-a", state: "incomplete" });
    expect(entry.warnings.map((w) => w.code)).toContain("RESULT_TRUNCATED");
  });

  it("the folder's name is a label: config.json decides, and a task_name unlike the path's last part is the one the job recorded", async () => {
    const misnamed = await score([...others, cut({ folder: "task-b__a3", path: "tasks/task-a" })]);
    expect(misnamed.reward.pass_at_k!["1"]).toBeCloseTo(1 / 3, 12); // in task-a (2/3, 0/2); in task-b it would be 0.5 (2/2, 0/3)
    const asB = await score([...others, fail("task-b__a3", "task-b")]);
    const asA = await score([...others, fail("task-b__a3", "task-a")]);
    expect(misnamed.reward.interval).toEqual(asA.reward.interval);
    expect(misnamed.reward.interval).not.toEqual(asB.reward.interval);

    // Harbor's newer task_name (`local-lab/event-summary`) is not the path's folder name: matched by path.
    const lab = (t: TrialSpec): TrialSpec => ({
      ...t,
      extra: { task_id: { path: `/lab/tasks/${t.task}` } },
      task: `local-lab/${t.task}`,
    });
    const named = await score([...others.map(lab), cut({ path: "/lab/tasks/task-a" })]);
    expect(named.reward.interval).toMatchObject({ units: 5, clusters: 2 });
  });

  it("--errors exclude (the default) is unchanged: the trial is out of the mean either way", async () => {
    const placed = await score([...others, cut()], "exclude");
    expect(placed.reward.mean).toBeCloseTo(0.5, 12);
    expect(placed.reward.interval).toMatchObject({ units: 4, clusters: 2 });
    expect(placed.doc.experiments[0]!.excluded).toEqual([{ trial: "task-a__a3", reason: "incomplete" }]);
  });
});

describe("where nothing places it, its task is unknown, and said so", () => {
  it("a config.json naming no path, a path no trial of the job records, or one two tasks share: not placed", async () => {
    for (const path of [null, "tasks/task-z"]) {
      const r = await score([...others, cut({ path })]);
      expect(r.reward.pass_at_k).toBeNull();
      expect(r.reward.pass_at_k_reason).toMatch(/^1 trial in the mean names no task \(no readable result\.json\)/);
      expect(r.doc.bundles.find((b) => b.path.endsWith("task-a__a3"))!.task_path).toBe(path);
      // A cluster of its own in the interval (its task may be any), never counted as a task: was "5 in 3 tasks".
      expect(r.reward.interval).toMatchObject({ method: "korn-graubard", units: 5, clusters: 3, unplaced: 1 });
      expect(r.table).toMatch(/\b5 in 2 tasks \+ 1 unknown\b/);
      expect(r.table).not.toMatch(/in 3 tasks/);
      const details = await run(["score", r.job, "--errors", "zero", "--details", "--quiet"]);
      expect(details.stdout).toMatch(/over 5 trials in 2 tasks \+ 1 trial of unknown task\b/);
    }
    // tasks/task-a recorded under two checksums (the task changed mid-job): neither is the cut trial's.
    const edited = await score([
      pass("task-a__a1", "task-a"),
      { ...pass("task-a__a2", "task-a"), checksum: "beef" },
      ...others.slice(2),
      cut(),
    ]);
    expect(edited.reward.pass_at_k_reason).toMatch(/names no task/);
  });
});
