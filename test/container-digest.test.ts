// Contract §15.3 "§10 gains": each container record's `digest` (run.jobs[] for Harbor jobs,
// run.containers.<kind>[] for Terminal-Bench runs and SWE-bench model folders), the §7 digest over
// the files that hold the container's own claims, which no entry's digest covers. Real folders,
// scored by the real CLI in-process; each expected digest recomputed here from the files.
//
// Workers run compiled code (dist/): `npm run build` first.
import { createHash } from "node:crypto";
import { appendFileSync, cpSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Results } from "../src/core/results.js";
import { run } from "./helpers/cli.js";
import { writeJob, writeTree } from "./helpers/harbor.js";
import { scratch } from "./helpers/shared.js";
import { writeRun, type TbTrialSpec } from "./helpers/terminal-bench.js";

const { at, fresh } = scratch("assay-container-digest-");
let serial = 0;

async function score(root: string, ...flags: string[]): Promise<Results> {
  const out = at(`out-${++serial}.json`);
  const r = await run(["score", root, "--format", "json", "--quiet", "--out", out, ...flags]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, "utf8")) as Results;
}

/** The §7 digest as the contract states it: "<path>\t<SHA-256 of the file>\n" for each path, by byte order. */
function expected(dir: string, paths: string[]): string {
  const h = createHash("sha256");
  for (const p of [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))))
    h.update(
      `${p}\t${createHash("sha256")
        .update(readFileSync(join(dir, p)))
        .digest("hex")}\n`,
    );
  return h.digest("hex");
}

/** Each shard's record of the containers, and the merge's, beside the single run's. */
async function shardsAndMerge(root: string, records: (d: Results) => unknown) {
  const files: string[] = [];
  for (const i of [0, 1]) {
    const f = at(`shard-${++serial}.json`);
    const r = await run(["score", root, "--shard", `${i}/2`, "--quiet", "--out", f]);
    expect(r.code, r.stderr).toBe(0);
    files.push(f);
  }
  const out = at(`merged-${++serial}.json`);
  const m = await run(["merge", ...files, "--out", out]);
  expect(m.code, m.stderr).toBe(0);
  const read = (f: string) => records(JSON.parse(readFileSync(f, "utf8")) as Results);
  return { shards: files.map(read), merged: read(out), single: records(await score(root)) };
}

const trials = [{ name: "hello__a1" }, { name: "hello__b2", rewards: { reward: 0 } }, { name: "bye__c3" }];

describe("Harbor: run.jobs[].digest", () => {
  const job = () => writeJob(fresh("harbor"), "job", trials);
  const digestOf = async (dir: string) => (await score(dir)).run.jobs[0]!.digest;

  it("is the §7 digest over the job folder's top-level files, less analysis.json, analysis.md, summary.md; a link is not followed", async () => {
    const dir = job();
    writeTree(dir, { "lock.json": "{}", "analysis.json": "{}", "analysis.md": "# x\n", "summary.md": "# y\n" });
    symlinkSync("job.log", join(dir, "job-link.log"));
    expect(await digestOf(dir)).toBe(expected(dir, ["config.json", "job.log", "lock.json", "result.json"]));
  });

  it("changes when a file of the job's changes, or one is added; not when a trial's file changes (its entry's digest does) or analysis.json is added", async () => {
    const dir = job();
    const before = await score(dir);
    const d0 = before.run.jobs[0]!.digest!;
    expect(d0).toMatch(/^[0-9a-f]{64}$/);

    appendFileSync(join(dir, "hello__a1", "trial.log"), "one more line\n");
    writeTree(dir, { "analysis.json": JSON.stringify({ summary: "fine" }), "summary.md": "# fine\n" });
    const after = await score(dir);
    expect(after.run.jobs[0]!.digest).toBe(d0);
    const trialDigest = (d: Results) => d.bundles.find((b) => b.path.endsWith("hello__a1"))!.digest;
    expect(trialDigest(after)).not.toBe(trialDigest(before));

    appendFileSync(join(dir, "job.log"), "job finished\n");
    const d1 = await digestOf(dir);
    expect(d1).not.toBe(d0);
    writeTree(dir, { "notes.txt": "an operator's note\n" });
    expect(await digestOf(dir)).not.toBe(d1);
  });

  it("is null when only a trial of the job was given (its files are not read)", async () => {
    const dir = job();
    const d = await score(join(dir, "hello__a1"));
    expect(d.run.jobs.map((j) => [j.name, j.digest])).toEqual([["job", null]]);
  });

  it("agrees across shards, and a merge keeps it", async () => {
    const dir = job();
    const { shards, merged, single } = await shardsAndMerge(dir, (d) => d.run.jobs);
    expect((single as Results["run"]["jobs"])[0]!.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(shards[0]).toEqual(single);
    expect(shards[1]).toEqual(single);
    expect(JSON.stringify(merged)).toBe(JSON.stringify(single));
  });
});

describe("Terminal-Bench: run.containers['terminal-bench'][].digest", () => {
  const SPECS: TbTrialSpec[] = [
    { task: "hello", attempt: 1, of: 2 },
    { task: "hello", attempt: 2, of: 2, parserResults: { test_a: "passed", test_b: "failed" } },
    { task: "bye", attempt: 1, of: 2 },
    { task: "bye", attempt: 2, of: 2 },
  ];
  const tbRun = () => writeRun(join(fresh("tb"), "myrun"), { trials: SPECS });
  const records = (d: Results) => d.run.containers?.["terminal-bench"] ?? [];
  const digestOf = async (dir: string) => records(await score(dir))[0]!.digest;
  const trialFile = (dir: string) =>
    join(dir, "hello", (readFileSync(join(dir, "results.json"), "utf8").match(/hello\.1-of-2\.[^"]+/) ?? [""])[0]);

  it("covers the run's top-level files and those directly in its task folders, less a top-level analysis.json; not a subfolder walked on its own", async () => {
    const dir = tbRun();
    writeTree(dir, {
      "run.log": "started\n",
      "hello/notes.txt": "a file of the task folder\n",
      "analysis.json": "{}",
      "analysis.md": "# x\n",
      "extra/readme.txt": "not a task folder: walked on its own\n",
    });
    expect(await digestOf(dir)).toBe(
      expected(dir, ["results.json", "run_metadata.json", "tb.lock", "run.log", "hello/notes.txt"]),
    );
  });

  it("changes when a file of the run's changes; not when a trial's file changes or analysis.json is added", async () => {
    const dir = tbRun();
    const d0 = await digestOf(dir);
    expect(d0).toMatch(/^[0-9a-f]{64}$/);
    appendFileSync(join(trialFile(dir), "commands.txt"), "['exit', 'Enter']\n");
    writeTree(dir, { "analysis.json": "{}", "summary.md": "# s\n" });
    expect(await digestOf(dir)).toBe(d0);
    appendFileSync(join(dir, "tb.lock"), "\n");
    const d1 = await digestOf(dir);
    expect(d1).not.toBe(d0);
    writeTree(dir, { "bye/notes.txt": "added to a task folder\n" });
    expect(await digestOf(dir)).not.toBe(d1);
  });

  it("is null when only a trial of the run was given", async () => {
    const dir = tbRun();
    const d = await score(trialFile(dir));
    expect(records(d).map((c) => [c.partial, c.digest])).toEqual([[true, null]]);
  });

  it("agrees across shards, and a merge keeps it byte for byte", async () => {
    const dir = tbRun();
    const { shards, merged, single } = await shardsAndMerge(dir, records);
    expect((single as ReturnType<typeof records>)[0]!.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(shards[0]).toEqual(single);
    expect(shards[1]).toEqual(single);
    expect(JSON.stringify(merged)).toBe(JSON.stringify(single));
  });
});

describe("SWE-bench: run.containers['swe-bench'][].digest", () => {
  const WORK = new URL("./fixtures/swe-bench/run/work", import.meta.url).pathname;
  const MODEL = "logs/run_evaluation/demo-run/org__model-7b";
  const REPORT = "org__model-7b.demo-run.json";
  const work = () => {
    const w = join(fresh("swe"), "work");
    cpSync(WORK, w, { recursive: true });
    return w;
  };
  const records = (d: Results) => d.run.containers?.["swe-bench"] ?? [];
  const digestOf = async (w: string) => records(await score(w))[0]!.digest;

  it("covers the model folder's own files and, by their paths relative to it, the final report, the predictions and run.json it was read from", async () => {
    const w = work();
    writeTree(join(w, MODEL), { "notes.txt": "beside the instances\n", "analysis.json": "{}" });
    expect(await digestOf(w)).toBe(
      expected(join(w, MODEL), ["notes.txt", `../../../../${REPORT}`, "../../../../preds.jsonl", "../run.json"]),
    );
  });

  it("changes when the report, the predictions or run.json change; not when an instance's file changes, analysis.json is added, or another file lies beside the report", async () => {
    const w = work();
    const d0 = await digestOf(w);
    expect(d0).toMatch(/^[0-9a-f]{64}$/);
    appendFileSync(join(w, MODEL, "pallets__flask-4045", "run_instance.log"), "one more line\n");
    writeTree(w, {
      [`${MODEL}/analysis.json`]: "{}",
      "notes.txt": "the operator's notes\n",
      "other__model.demo-run.json": readFileSync(join(w, REPORT)),
    });
    expect(await digestOf(w)).toBe(d0);
    const seen = new Set([d0]);
    for (const file of [REPORT, "preds.jsonl", "logs/run_evaluation/demo-run/run.json"]) {
      appendFileSync(join(w, file), "\n");
      const d = (await digestOf(w))!;
      expect(seen.has(d), file).toBe(false);
      seen.add(d);
    }
  });

  it("is null when only an instance folder was given", async () => {
    const w = work();
    const d = await score(join(w, MODEL, "pallets__flask-4045"));
    expect(records(d).map((c) => [c.partial, c.digest])).toEqual([[true, null]]);
  });

  it("agrees across shards, and a merge keeps it byte for byte", async () => {
    const w = work();
    const { shards, merged, single } = await shardsAndMerge(w, records);
    expect((single as ReturnType<typeof records>)[0]!.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(shards[0]).toEqual(single);
    expect(shards[1]).toEqual(single);
    expect(JSON.stringify(merged)).toBe(JSON.stringify(single));
  });
});
