// Terminal-Bench runs end to end (docs/terminal-bench.md, wired in daef815): real run folders written
// as `tb run` writes them, scored by the real CLI in-process (`assay score ROOT --out FILE`, real
// workers), the JSON document read back. Discovery (a run under a parent, as a root, a task or a
// trial folder given as a root, a nested run, a run-shaped file that is no run), one experiment per
// run folder and its name, the figures beside the claims, the trial-vs-list rules, the plan, the
// store, shards and merge, --errors zero, `assay verify`, and the two real runs in ../shared.
//
// Workers run compiled code (dist/): `npm run build` first.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packFor } from "../src/analysis/evidence.js";
import { headlines, TrialOutcomes } from "../src/core/compare/trials.js";
import { trialVerdicts } from "../src/cli/commands/analyze.js";
import type { BundleEntry, Experiment, Results } from "../src/core/results.js";
import { inShard } from "../src/pipeline/shard.js";
import { run, spawnCli } from "./helpers/cli.js";
import { runsWithShared, SCRATCH, scratch, SHARED_DIR } from "./helpers/shared.js";
import {
  RUN_ID,
  tbLock,
  trialName,
  writeRun,
  writeRunFiles,
  writeTbTrial,
  type TbTrialSpec,
} from "./helpers/terminal-bench.js";

const { dir: BASE } = scratch("assay-tb-score-", SCRATCH);
let serial = 0;
/** A new evidence folder (outputs go beside it, never inside: assay writes nothing into evidence). */
const fresh = (label: string) => join(BASE, `${label}-${++serial}`, "ev");
const outFile = () => join(BASE, `out-${++serial}.json`);

const FAILED: Partial<TbTrialSpec> = { parserResults: { test_a: "passed", test_b: "failed" } };
/** Two tasks, one attempt each: hello resolved, bye unresolved. */
const PLAIN: TbTrialSpec[] = [{ task: "hello" }, { task: "bye", ...FAILED }];

/** `assay score ROOTS --out FILE --quiet …`, the document read back (and the exit code checked). */
async function score(roots: string[], ...extra: string[]): Promise<Results & { stderr: string }> {
  const file = outFile();
  const r = await run(["score", ...roots, "--out", file, "--quiet", ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return { ...(JSON.parse(readFileSync(file, "utf8")) as Results), stderr: r.stderr };
}
const exp = (doc: Results, name: string): Experiment => {
  const e = doc.experiments.find((x) => x.experiment === name);
  expect(e, `no experiment ${name} in ${doc.experiments.map((x) => x.experiment).join(", ")}`).toBeDefined();
  return e!;
};
const names = (doc: Results) => doc.experiments.map((e) => e.experiment).sort();
const codesOf = (xs: readonly { code: string }[]) => xs.map((x) => x.code).sort();
const trialsOf = (doc: Results) => doc.bundles.map((b) => b.trial).sort();
const T = (task: string, k = 1, of = 1) => trialName({ task, attempt: k, of });

// ---------------------------------------------------------------------------------------------

describe("discovery: where a run and its members are found", () => {
  it("a run under a parent root is one experiment named after its folder, job = its path, job_id = its run id", async () => {
    const root = fresh("parent");
    const dir = writeRun(join(root, "runs", "myrun"), { trials: PLAIN });
    const doc = await score([root]);
    expect(names(doc)).toEqual(["myrun"]);
    const e = exp(doc, "myrun");
    expect([e.profile, e.job, e.job_id, e.scheduled]).toEqual(["terminal-bench", dir, RUN_ID, 2]);
    expect(trialsOf(doc)).toEqual([T("bye"), T("hello")]);
    expect(doc.bundles.every((b) => b.experiment === "myrun" && b.job === dir && b.profile === "terminal-bench")).toBe(
      true,
    );
    expect(doc.run.containers?.["terminal-bench"]?.map((c) => [c.path, c.name, c.partial, c.run_id])).toEqual([
      [dir, "myrun", false, RUN_ID],
    ]);
    expect(e.states).toMatchObject({ resolved: 1, unresolved: 1 });
  });

  it("a run given as the root is the same experiment", async () => {
    const dir = writeRun(join(fresh("asroot"), "myrun"), { trials: PLAIN });
    const doc = await score([dir]);
    expect(names(doc)).toEqual(["myrun"]);
    expect([exp(doc, "myrun").job, exp(doc, "myrun").job_id]).toEqual([dir, RUN_ID]);
    expect(trialsOf(doc)).toEqual([T("bye"), T("hello")]);
  });

  it("a task folder and a single trial folder given as roots are members of their run: experiment = run name, job = run path", async () => {
    const dir = writeRun(join(fresh("member"), "myrun"), {
      trials: [
        { task: "hello", attempt: 1, of: 2 },
        { task: "hello", attempt: 2, of: 2, ...FAILED },
        { task: "bye", of: 2 },
        { task: "bye", attempt: 2, of: 2 },
      ],
    });
    const task = await score([join(dir, "hello")]);
    expect(trialsOf(task)).toEqual([T("hello", 1, 2), T("hello", 2, 2)]);
    expect(names(task)).toEqual(["myrun"]);
    expect(exp(task, "myrun").job).toBe(dir);
    expect(task.bundles.every((b) => b.experiment === "myrun" && b.job === dir)).toBe(true);
    const trial = await score([join(dir, "bye", T("bye", 2, 2))]);
    expect(trialsOf(trial)).toEqual([T("bye", 2, 2)]);
    expect(names(trial)).toEqual(["myrun"]);
    expect(exp(trial, "myrun").job).toBe(dir);
    expect(trial.bundles[0]).toMatchObject({ experiment: "myrun", job: dir, state: "resolved", pass: true });
    // The run itself was not given: it is known only from its member, its files unread.
    expect(trial.run.containers?.["terminal-bench"]?.map((c) => [c.path, c.partial])).toEqual([[dir, true]]);
  });

  it("a run nested inside a run's folder is found too: two experiments, each with its own trials", async () => {
    const outer = writeRun(join(fresh("nested"), "outer"), { trials: PLAIN });
    const inner = writeRun(join(outer, "archive", "inner"), { trials: [{ task: "deep" }] });
    const doc = await score([join(outer, "..")]);
    expect(names(doc)).toEqual(["inner", "outer"]);
    expect([exp(doc, "outer").job, exp(doc, "inner").job]).toEqual([outer, inner]);
    expect(doc.bundles.filter((b) => b.experiment === "inner").map((b) => b.trial)).toEqual([T("deep")]);
    expect(
      doc.bundles
        .filter((b) => b.experiment === "outer")
        .map((b) => b.trial)
        .sort(),
    ).toEqual([T("bye"), T("hello")]);
    // `archive` holds no trial-named folder: walked, not a task folder, so nothing is unlisted in `outer`.
    expect(exp(doc, "outer").invalid).toEqual([]);
    expect(codesOf(exp(doc, "outer").warnings)).toEqual([]);
  });

  it("a subfolder of a run that is not a task folder is walked, not a member; a task folder is", async () => {
    const dir = writeRun(join(fresh("walked"), "myrun"), { trials: PLAIN });
    // notes/misc/ holds files; logs/hello.1-of-1/ looks like a trial but lies in a folder not named as its task.
    mkdirSync(join(dir, "notes", "misc"), { recursive: true });
    writeFileSync(join(dir, "notes", "misc", "readme.txt"), "not a trial\n");
    mkdirSync(join(dir, "logs", "other"), { recursive: true });
    writeFileSync(join(dir, "logs", "other", "commands.txt"), "[]\n");
    const doc = await score([dir]);
    expect(trialsOf(doc)).toEqual([T("bye"), T("hello")]);
    expect(doc.bundles.some((b) => b.path.includes("/notes/") || b.path.includes("/logs/"))).toBe(false);
    const e = exp(doc, "myrun");
    expect([e.invalid, e.unscored, e.excluded]).toEqual([[], [], []]);
    expect(e.rewards!["resolved"]).toMatchObject({ trials: 2, covered: 2, mean: 1 / 2 });
  });

  it("a results.json that is not a run's (no trial list) beside tb.lock is counted unrecognised, not scored", async () => {
    const root = fresh("notrun");
    writeRun(join(root, "good"), { trials: PLAIN });
    writeRunFiles(join(root, "bad"), { results: { id: "x", note: "no list here" }, lock: tbLock() });
    writeTbTrial(join(root, "bad"), { task: "hello" });
    const doc = await score([root]);
    expect(names(doc)).toEqual(["good"]);
    expect(doc.run.unrecognised.count).toBe(1);
    expect(doc.run.unrecognised.paths).toEqual([join(root, "bad")]);
    expect(doc.bundles.every((b) => b.experiment === "good")).toBe(true);
    expect(doc.run.containers?.["terminal-bench"]?.map((c) => c.name)).toEqual(["good"]);
  });

  it("a results.json that is a FIFO beside tb.lock is not opened (an open would wait for a writer): unrecognised, and the run beside it scored", async () => {
    const root = fresh("fifo");
    writeRun(join(root, "good"), { trials: PLAIN });
    writeRunFiles(join(root, "pipe"), { lock: tbLock() });
    execFileSync("mkfifo", [join(root, "pipe", "results.json")]);
    const doc = await score([root]);
    expect(names(doc)).toEqual(["good"]);
    expect(doc.run.unrecognised.paths).toEqual([join(root, "pipe")]);
  });
});

describe("one experiment per run folder", () => {
  it("two run folders of one name in different parents are `name` and `name#2`, in path order; each entry carries its experiment's name", async () => {
    const root = fresh("twins");
    const a = writeRun(join(root, "a", "myrun"), { trials: PLAIN });
    const b = writeRun(join(root, "b", "myrun"), { trials: [{ task: "solo" }] });
    const doc = await score([root]);
    expect(names(doc)).toEqual(["myrun", "myrun#2"]);
    expect([exp(doc, "myrun").job, exp(doc, "myrun#2").job]).toEqual([a, b]);
    for (const bundle of doc.bundles)
      expect(bundle.experiment).toBe(bundle.path.startsWith(`${a}/`) ? "myrun" : "myrun#2");
    expect(doc.bundles.filter((x) => x.experiment === "myrun#2").map((x) => x.trial)).toEqual([T("solo")]);
    expect(exp(doc, "myrun#2").rewards!["resolved"]).toMatchObject({ mean: 1, trials: 1 });
    expect(exp(doc, "myrun").rewards!["resolved"]).toMatchObject({ mean: 1 / 2, trials: 2 });
  });
});

describe("the run's figures beside its claims", () => {
  it("claims that follow from the trials: every compared figure agrees (reason null), no flag, no warning", async () => {
    const doc = await score([writeRun(join(fresh("claims"), "ok"), { trials: PLAIN })]);
    const e = exp(doc, "ok");
    expect(e.claimed).toEqual({
      source: "results.json",
      metrics: { accuracy: 0.5, n_resolved: 1, n_unresolved: 1 },
      compared: [
        { metric: "accuracy", claimed: 0.5, assay: 0.5, reason: null },
        { metric: "n_resolved", claimed: 1, assay: 1, reason: null },
        { metric: "n_unresolved", claimed: 1, assay: 1, reason: null },
      ],
    });
    expect([e.flags, e.warnings, e.invalid, e.missing]).toEqual([[], [], [], []]);
  });

  it("claims the run's own list does not give: RUN_CLAIM_MISMATCH as a flag of the run, the compared figures say why", async () => {
    const doc = await score([
      writeRun(join(fresh("claims"), "bad"), {
        trials: PLAIN,
        results: (r) => Object.assign(r, { accuracy: 1, n_resolved: 2, n_unresolved: 0 }),
      }),
    ]);
    const e = exp(doc, "bad");
    // The run's flag names the run's file the claim is in, where a trial's names the trial.
    expect(e.flags.map((f) => [f.code, f.trial, f.attempt])).toEqual([["RUN_CLAIM_MISMATCH", "results.json", null]]);
    expect(e.claimed!.metrics).toEqual({ accuracy: 1, n_resolved: 2, n_unresolved: 0 });
    for (const c of e.claimed!.compared) expect(c.reason, c.metric).toEqual(expect.any(String));
    expect(e.claimed!.compared.map((c) => [c.metric, c.claimed, c.assay])).toEqual([
      ["accuracy", 1, 0.5],
      ["n_resolved", 2, 1],
      ["n_unresolved", 0, 1],
    ]);
    // A flag changes no verdict.
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 0.5, covered: 2 });
  });

  it("pass@k with 2 attempts per task: TB's pass@2 compared (right and wrong), assay's pass_at_k by hand", async () => {
    const trials: TbTrialSpec[] = [
      { task: "hello", attempt: 1, of: 2 },
      { task: "hello", attempt: 2, of: 2, ...FAILED },
      { task: "bye", attempt: 1, of: 2, ...FAILED },
      { task: "bye", attempt: 2, of: 2, ...FAILED },
    ];
    // hello 1 of 2 (pass@2 = 1), bye 0 of 2 (0): mean 0.5; pass@1 = mean of 1/2 and 0.
    const root = fresh("passk");
    writeRun(join(root, "right"), { trials, passAtK: { "2": 0.5 } });
    writeRun(join(root, "wrong"), { trials, passAtK: { "2": 1 } });
    const doc = await score([root]);
    const right = exp(doc, "right");
    expect(right.claimed!.compared.find((c) => c.metric === "pass_at_k/2")).toEqual({
      metric: "pass_at_k/2",
      claimed: 0.5,
      assay: 0.5,
      reason: null,
    });
    expect(right.flags).toEqual([]);
    expect(right.rewards!["resolved"]).toMatchObject({ mean: 0.25, trials: 4, pass_at_k: { "1": 0.25, "2": 0.5 } });
    const wrong = exp(doc, "wrong");
    expect(wrong.claimed!.compared.find((c) => c.metric === "pass_at_k/2")).toMatchObject({
      claimed: 1,
      assay: 0.5,
      reason: expect.any(String),
    });
    expect(codesOf(wrong.flags)).toEqual(["RUN_CLAIM_MISMATCH"]);
  });
});

describe("each trial beside the run's list", () => {
  it("TRIAL_RUN_MISMATCH (one field of a trial's file edited): invalid, counted 0 by default, left out with --invalid exclude", async () => {
    const dir = writeRun(join(fresh("mismatch"), "myrun"), {
      trials: [{ task: "hello" }, { task: "bye" }],
      editTrial: { 1: (t) => void (t["instruction"] = "Say goodbye.") },
    });
    const count = exp(await score([dir]), "myrun");
    expect(count.invalid).toEqual([{ trial: T("bye"), codes: ["TRIAL_RUN_MISMATCH"] }]);
    expect(count.rewards!["resolved"]).toMatchObject({ mean: 0.5, covered: 2, trials: 2 });
    const excl = exp(await score([dir], "--invalid", "exclude"), "myrun");
    expect(excl.invalid).toEqual([{ trial: T("bye"), codes: ["TRIAL_RUN_MISMATCH"] }]);
    expect(excl.rewards!["resolved"]).toMatchObject({ mean: 1, covered: 1, trials: 2 });
    // The other side of the line: the same run unedited has nothing invalid.
    const clean = exp(
      await score([writeRun(join(fresh("mismatch"), "myrun"), { trials: [{ task: "hello" }, { task: "bye" }] })]),
      "myrun",
    );
    expect([clean.invalid, clean.rewards!["resolved"]!.mean]).toEqual([[], 1]);
  });

  it("TRIAL_UNLISTED: a trial folder the run's list lacks is invalid", async () => {
    const doc = await score([
      writeRun(join(fresh("unlisted"), "myrun"), { trials: [{ task: "hello" }], unlisted: [{ task: "extra" }] }),
    ]);
    const e = exp(doc, "myrun");
    expect(trialsOf(doc)).toEqual([T("extra"), T("hello")]);
    expect(e.invalid).toEqual([{ trial: T("extra"), codes: ["TRIAL_UNLISTED"] }]);
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 0.5, covered: 2 });
  });

  it("TRIAL_MISSING (listed, folder deleted) is `missing` and in coverage's denominator; the evidence cannot give TB's figures", async () => {
    const doc = await score([
      writeRun(join(fresh("missing"), "myrun"), {
        trials: [{ task: "hello" }, { task: "bye" }, { task: "gone" }],
        absent: [2],
      }),
    ]);
    const e = exp(doc, "myrun");
    expect(e.missing).toEqual([T("gone")]);
    expect(codesOf(e.warnings)).toContain("TRIAL_MISSING");
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 1, covered: 2, trials: 3, coverage: 2 / 3 });
    expect(e.claimed!.compared.find((c) => c.metric === "accuracy")).toMatchObject({
      claimed: 1,
      assay: null,
      reason: expect.stringContaining("without a trial file"),
    });
  });

  it("a harness-exception entry (unknown_agent_error, no file) is `excluded` with the harness reason and in coverage's denominator", async () => {
    const doc = await score([
      writeRun(join(fresh("harness"), "myrun"), {
        trials: [{ task: "hello" }, { task: "bye" }, { task: "boom", harness: true }],
        absent: [2],
      }),
    ]);
    const e = exp(doc, "myrun");
    expect(e.excluded).toEqual([{ trial: T("boom"), reason: expect.stringContaining("harness exception") }]);
    expect([e.missing, e.invalid]).toEqual([[], []]);
    expect(codesOf(e.warnings)).not.toContain("TRIAL_MISSING");
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 1, covered: 2, trials: 3, coverage: 2 / 3 });
    // TB counts it unresolved: 2 of 3, and so does the evidence.
    expect(e.claimed!.compared.find((c) => c.metric === "accuracy")).toEqual({
      metric: "accuracy",
      claimed: 2 / 3,
      assay: 2 / 3,
      reason: null,
    });
  });
});

describe("the plan and finalisation", () => {
  it("fewer listed than planned: RUN_NOT_FINAL and the planned-but-unlisted count in `missing`", async () => {
    const doc = await score([
      writeRun(join(fresh("plan"), "myrun"), {
        trials: PLAIN,
        metadata: { dataset_size: 5, task_ids: ["hello", "bye", "c", "d", "e"] },
      }),
    ]);
    const e = exp(doc, "myrun");
    expect(codesOf(e.warnings)).toContain("RUN_NOT_FINAL");
    expect(e.missing).toEqual([{ count: 3, reason: expect.stringContaining("planned") }]);
    expect(e.scheduled).toBe(5);
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 2, trials: 5 });
  });

  it("run_metadata.json's end_time null: RUN_NOT_FINAL (and not with it set)", async () => {
    const root = fresh("final");
    writeRun(join(root, "open"), { trials: PLAIN, metadata: { end_time: null } });
    writeRun(join(root, "closed"), { trials: PLAIN });
    const doc = await score([root]);
    expect(codesOf(exp(doc, "open").warnings)).toEqual(["RUN_NOT_FINAL"]);
    expect(exp(doc, "open").missing).toEqual([]);
    expect(exp(doc, "closed").warnings).toEqual([]);
  });
});

describe.sequential("the store, shards and merge", () => {
  const SPECS: TbTrialSpec[] = [
    { task: "hello", attempt: 1, of: 2 },
    { task: "hello", attempt: 2, of: 2, ...FAILED },
    { task: "bye", attempt: 1, of: 2 },
    { task: "bye", attempt: 2, of: 2 },
    { task: "boom", attempt: 1, of: 2, harness: true },
    { task: "boom", attempt: 2, of: 2 },
  ];

  it("--store twice gives the same document, the second all from the store", async () => {
    const dir = writeRun(join(fresh("store"), "myrun"), { trials: SPECS, absent: [4] });
    const db = join(BASE, `store-${++serial}.sqlite`);
    const once = async () => {
      const file = outFile();
      const r = await run(["score", dir, "--store", db, "--out", file]);
      expect(r.code, r.stderr).toBe(0);
      return { doc: JSON.parse(readFileSync(file, "utf8")) as Results, stderr: r.stderr };
    };
    const first = await once();
    expect(first.stderr).toContain("(0 from store)");
    const second = await once();
    expect(second.stderr).toContain("5/5 trials (5 from store)");
    expect(JSON.stringify({ ...second.doc, run: { ...second.doc.run, started_at: null } })).toBe(
      JSON.stringify({ ...first.doc, run: { ...first.doc.run, started_at: null } }),
    );
    expect(exp(second.doc, "myrun").excluded).toEqual([
      { trial: T("boom", 1, 2), reason: expect.stringContaining("harness exception") },
    ]);
  });

  /** The single run's document and the merge of its two shards' documents. */
  let pair: Promise<{ single: Results; merged: Results }> | undefined;
  const singleAndMerged = () =>
    (pair ??= (async () => {
      // A root under which the run's trials fall in both shards (by construction, not by chance).
      let root: string;
      const paths = (r: string) => SPECS.filter((_, i) => i !== 4).map((s) => `${r}/myrun/${s.task}/${trialName(s)}`);
      do root = fresh("shards");
      while (new Set(paths(root).map((p) => inShard(p, { index: 0, count: 2 }))).size !== 2);
      writeRun(join(root, "myrun"), { trials: SPECS, absent: [4], results: (r) => void (r["accuracy"] = 0.9) });
      const single = await score([root]);
      const files: string[] = [];
      for (const i of [0, 1]) {
        const f = outFile();
        const r = await run(["score", root, "--shard", `${i}/2`, "--quiet", "--out", f]);
        expect(r.code, r.stderr).toBe(0);
        expect((JSON.parse(readFileSync(f, "utf8")) as Results).bundles.length, `shard ${i}`).toBeGreaterThan(0);
        files.push(f);
      }
      const out = outFile();
      const merged = await run(["merge", ...files, "--out", out]);
      expect(merged.code, merged.stderr).toBe(0);
      return { single, merged: JSON.parse(readFileSync(out, "utf8")) as Results };
    })());

  it("--shard 0/2 and 1/2 then assay merge give the single run's experiments and bundles byte for byte, and its run.containers", async () => {
    const { single, merged } = await singleAndMerged();
    expect(JSON.stringify(merged.experiments)).toBe(JSON.stringify(single.experiments));
    expect(JSON.stringify(merged.bundles)).toBe(JSON.stringify(single.bundles));
    expect(merged.run.containers).toEqual(single.run.containers);
    // What is compared is a run with a harness exception and a wrong claim: not an empty document.
    const e = exp(merged, "myrun");
    expect(codesOf(e.flags)).toEqual(["RUN_CLAIM_MISMATCH"]);
    expect(e.excluded).toEqual([{ trial: T("boom", 1, 2), reason: expect.stringContaining("harness exception") }]);
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 5, trials: 6 });
  });

  // `merge` re-reads the shards' run.containers through the results schema: its key order must be the one `score` writes.
  it("run.containers are byte-identical too (claims keep record.ts's key order through a merge)", async () => {
    const { single, merged } = await singleAndMerged();
    expect(JSON.stringify(merged.run.containers)).toBe(JSON.stringify(single.run.containers));
  });
});

describe("an invalid trial whose tests all passed (RESOLVED_MISMATCH)", () => {
  it("is credited with no pass, so the document it is in is one merge and compare read (they refused it: 'invalid evidence credited with a pass')", async () => {
    const dir = writeRun(join(fresh("invalid-pass"), "myrun"), {
      trials: [{ task: "hello" }, { task: "bye" }],
      editTrial: { 1: (t) => void (t["is_resolved"] = false) },
    });
    const shard = outFile();
    const scored = await run(["score", dir, "--shard", "0/1", "--quiet", "--out", shard]);
    expect(scored.code, scored.stderr).toBe(0);
    const bye = (JSON.parse(readFileSync(shard, "utf8")) as Results).bundles.find((b) => b.task === "bye")!;
    expect([bye.validity, bye.errors.map((f) => f.code), bye.state, bye.pass]).toEqual([
      "invalid",
      ["RESOLVED_MISMATCH"],
      "resolved",
      null,
    ]);
    const merged = outFile();
    const m = await run(["merge", shard, "--out", merged]);
    expect(m.code, m.stderr).toBe(0);
    const c = await run(["compare", merged, merged]);
    expect(c.stderr).not.toContain("credited with a pass");
    expect(c.code, c.stderr).toBe(0);
  });
});

describe("--errors zero", () => {
  it("a test-timeout trial is excluded by default and counted 0 (covered false) with --errors zero", async () => {
    const dir = writeRun(join(fresh("errors"), "myrun"), {
      trials: [{ task: "hello" }, { task: "slow", failureMode: "test_timeout", parserResults: null }],
    });
    const plain = exp(await score([dir]), "myrun");
    expect(plain.states).toMatchObject({ resolved: 1, "test-timeout": 1 });
    expect(plain.excluded).toEqual([{ trial: T("slow"), reason: "test-timeout" }]);
    expect(plain.rewards!["resolved"]).toMatchObject({ mean: 1, covered: 1, trials: 2, coverage: 0.5 });
    const zero = exp(await score([dir], "--errors", "zero"), "myrun");
    expect(zero.excluded).toEqual([]);
    expect(zero.rewards!["resolved"]).toMatchObject({ mean: 0.5, covered: 1, trials: 2, coverage: 0.5 });
    expect(zero.invalid).toEqual([]);
  });
});

describe("assay compare's units", () => {
  it("a run's resolved is paired by task, as Harbor's rewards are; a same-named Harbor job would be kept apart", async () => {
    const dir = writeRun(join(fresh("units"), "myrun"), {
      trials: [
        { task: "a", of: 2 },
        { task: "a", attempt: 2, of: 2, ...FAILED },
        { task: "b", of: 2 },
        { task: "b", attempt: 2, of: 2 },
      ],
    });
    const doc = await score([dir]);
    const t = new TrialOutcomes();
    for (const b of doc.bundles) t.add(b);
    const x = exp(doc, "myrun");
    expect(headlines(x)).toEqual([{ metric: "reward/resolved/mean", unit: "task" }]);
    const units = t.take(x, doc.run.options).get("reward/resolved/mean")!;
    expect([units.unit, units.ids, [...units.values]]).toEqual(["task", ["a", "b"], [0.5, 1]]);
    // The same experiment name under Harbor's profile finds none of these trials.
    expect(t.take({ ...x, profile: "harbor" }, doc.run.options).get("reward/resolved/mean")!.ids).toEqual([]);
  });
});

describe("assay analyze's evidence pack", () => {
  it("shows a trial's results.json, commands.txt and test output (the kind's pack, not a bundle's journal)", async () => {
    const dir = writeRun(join(fresh("pack"), "myrun"), { trials: PLAIN });
    writeFileSync(join(dir, "hello", T("hello"), "commands.txt"), "echo the-agent-typed-this\n");
    writeFileSync(join(dir, "hello", T("hello"), "panes", "post-test.txt"), "the test run's own words\n");
    const doc = await score([dir]);
    const hello = doc.bundles.find((b) => b.trial === T("hello"))!;
    const pack = packFor(hello.path, hello);
    expect(pack.text).toContain("=== results.json ===");
    expect(pack.text).toContain("| echo the-agent-typed-this");
    expect(pack.text).toContain("=== panes/post-test.txt (the tests' output) ===\n| the test run's own words");
    expect(pack.text).not.toContain("journal.jsonl");
  });
});

describe("assay verify", () => {
  it("exits 0 on a clean run and lists its trials", () => {
    const dir = writeRun(join(fresh("verify"), "myrun"), { trials: PLAIN });
    const r = spawnCli(["verify", dir]);
    expect(r.code, r.stderr).toBe(0);
    for (const t of [T("hello"), T("bye")]) expect(r.stdout).toContain(t);
  });
});

// ---------------------------------------------------------------------------------------------

const REAL = join(SHARED_DIR, "real-world", "terminal-bench");

describe.runIf(runsWithShared(join(REAL, "SOURCES.md")))("the real runs (../shared/real-world/terminal-bench)", () => {
  it("two experiments, every compared figure agrees, nothing invalid, no warning", async () => {
    const doc = await score([REAL]);
    expect(names(doc)).toEqual(["golden_solution_log", "qwen3-235b-a22b-instruct-2507"]);
    for (const e of doc.experiments) {
      expect([e.invalid, e.warnings, e.flags, e.missing, e.excluded], e.experiment!).toEqual([[], [], [], [], []]);
      expect(e.claimed!.compared.length, e.experiment!).toBeGreaterThan(0);
      for (const c of e.claimed!.compared)
        expect([e.experiment, c.metric, c.reason, c.assay]).toEqual([e.experiment, c.metric, null, c.claimed]);
      expect(e.job_id).toMatch(/^\d{4}-\d\d-\d\d__\d\d-\d\d-\d\d$/); // the run id, from the trial names (the folders were renamed)
    }
    expect(exp(doc, "golden_solution_log").rewards!["resolved"]).toMatchObject({ mean: 1, covered: 1, trials: 1 });
    expect(exp(doc, "qwen3-235b-a22b-instruct-2507").rewards!["resolved"]).toMatchObject({
      mean: 0,
      covered: 1,
      trials: 1,
    });
    expect(doc.run.unrecognised.count).toBe(0);
  });
});

describe("review findings: each trial once, each name once", () => {
  it("a task folder given beside its run, in either order or twice, scores each trial once", async () => {
    const dir = writeRun(join(fresh("overlap"), "myrun"), {
      trials: [
        { task: "a", of: 2 },
        { task: "a", attempt: 2, of: 2, ...FAILED },
        { task: "b", of: 2 },
        { task: "b", attempt: 2, of: 2 },
      ],
    });
    for (const roots of [
      [dir, join(dir, "a")],
      [join(dir, "a"), dir],
      [join(dir, "a"), `${join(dir, "a")}/`],
    ]) {
      const doc = await score(roots);
      const want = roots.includes(dir) ? 4 : 2;
      expect(doc.bundles.length, roots.join(" ")).toBe(want);
      expect(exp(doc, "myrun").invalid).toEqual([]);
    }
  });

  it("a listed trial whose folder holds no results.json is counted once: a harness exception (only commands.txt) is excluded as one, any other as incomplete, neither missing", async () => {
    const dir = writeRun(join(fresh("nofile"), "myrun"), {
      trials: [{ task: "a" }, { task: "b", harness: true }, { task: "c" }],
      absent: [1],
    });
    writeTbTrial(dir, { task: "b" }, { result: null }); // TB raised mid-trial: commands.txt only
    rmSync(join(dir, "c", T("c"), "results.json")); // lost from an otherwise kept folder
    const e = exp(await score([dir]), "myrun");
    expect(e.excluded).toEqual([
      { trial: T("b"), reason: expect.stringContaining("harness exception") },
      { trial: T("c"), reason: "incomplete" },
    ]);
    expect(e.missing).toEqual([]);
    expect(codesOf(e.warnings)).not.toContain("TRIAL_MISSING");
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 1, trials: 3 });
    expect(e.claimed!.compared.find((c) => c.metric === "accuracy")).toMatchObject({
      assay: null,
      reason: expect.stringContaining("without a trial file"),
    });
  });

  it("a trial folder that cannot be read is a tool error (exit 3): unscored, neither missing nor in coverage's denominator", () => {
    const root = fresh("shut");
    const dir = writeRun(join(root, "myrun"), { trials: PLAIN });
    for (let p = dir; p.startsWith(BASE); p = join(p, "..")) chmodSync(p, 0o755);
    chmodSync(BASE, 0o755);
    chmodSync(join(dir, "bye", T("bye")), 0o000);
    const r = spawnCli(["score", "-q", "--format", "json", dir], { unprivileged: true });
    chmodSync(join(dir, "bye", T("bye")), 0o755);
    expect(r.code, r.stderr).toBe(3);
    const e = exp(JSON.parse(r.stdout) as Results, "myrun");
    expect([e.unscored, e.missing, codesOf(e.warnings)]).toEqual([[T("bye")], [], []]);
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 1, covered: 1, trials: 1 });
  });

  it("a task folder that cannot be listed is a tool error too (exit 3), never silently skipped", () => {
    const root = fresh("shuttask");
    const dir = writeRun(join(root, "myrun"), { trials: PLAIN });
    for (let p = dir; p.startsWith(BASE); p = join(p, "..")) chmodSync(p, 0o755);
    chmodSync(BASE, 0o755);
    chmodSync(join(dir, "bye"), 0o000);
    const r = spawnCli(["score", "-q", "--format", "json", dir], { unprivileged: true });
    chmodSync(join(dir, "bye"), 0o755);
    expect(r.code, r.stderr).toBe(3);
    const doc = JSON.parse(r.stdout) as Results;
    expect(doc.bundles.find((b) => b.path === join(dir, "bye"))).toMatchObject({
      validity: "error",
      experiment: "myrun",
    });
    // Its listed trials are there, unread: not lost (no TRIAL_MISSING), not misnamed, outside coverage's denominator.
    const e = exp(doc, "myrun");
    expect([e.unscored, e.missing, codesOf(e.warnings)]).toEqual([["bye"], [], []]);
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 1, covered: 1, trials: 1 });
  });

  it("a trial folder the list lacks is counted once against the plan", async () => {
    const dir = writeRun(join(fresh("planned"), "myrun"), {
      trials: [...PLAIN, { task: "gone" }],
      absent: [2],
      unlisted: [{ task: "extra" }],
      metadata: { dataset_size: 5, task_ids: ["hello", "bye", "gone", "extra", "more"] },
    });
    const e = exp(await score([dir]), "myrun");
    expect(e.scheduled).toBe(5);
    // hello, bye; gone (listed, no folder); extra (a folder the list lacks, invalid as TRIAL_UNLISTED); and one planned trial never listed.
    expect(e.missing).toEqual([T("gone"), { count: 1, reason: expect.stringContaining("planned") }]);
    expect(e.rewards!["resolved"]).toMatchObject({ trials: 5 });
  });

  it("merge refuses a run record assay would not write (a listed trial's shape or fingerprints out of line): exit 2, never a silent verdict", async () => {
    const dir = writeRun(join(fresh("badmerge"), "myrun"), { trials: PLAIN });
    for (const [label, edit] of [
      ["shape", (l: Record<string, unknown>) => void (l["shape"] = 7)],
      ["fields", (l: Record<string, unknown>) => void (l["fields"] = String(l["fields"]).slice(0, 20))],
    ] as const) {
      const shard = outFile();
      expect((await run(["score", dir, "--shard", "0/1", "--out", shard, "--quiet"])).code).toBe(0);
      const doc = JSON.parse(readFileSync(shard, "utf8")) as Results;
      edit(doc.run.containers!["terminal-bench"]![0]!.listed![0] as unknown as Record<string, unknown>);
      writeFileSync(shard, JSON.stringify(doc));
      const merged = await run(["merge", shard, "--out", outFile()]);
      expect([label, merged.code]).toEqual([label, 2]);
      expect(merged.stderr).toMatch(/listed\[0\]: its shape is not one of field_names/);
    }
  });

  it("two trials whose folders hold the same bytes are not copies for analyze unless they are one trial", () => {
    const entry = (trial: string, path: string) =>
      ({ profile: "terminal-bench", validity: "valid", digest: "d".repeat(64), trial, path }) as unknown as BundleEntry;
    const doc = {
      bundles: [
        entry("c.1-of-1", "r/c/c.1-of-1"),
        entry("d.1-of-1", "r/d/d.1-of-1"),
        entry("d.1-of-1", "r2/d/d.1-of-1"),
      ],
      experiments: [],
    } as unknown as Results;
    expect([...trialVerdicts(doc).copies]).toEqual(["r2/d/d.1-of-1"]);
  });

  it("a run nested in a task folder is its own experiment, not a trial of the outer run", async () => {
    const outer = writeRun(join(fresh("intask"), "outer"), { trials: PLAIN });
    const inner = writeRun(join(outer, "hello", "inner"), { trials: [{ task: "deep" }] });
    const doc = await score([outer]);
    expect(names(doc)).toEqual(["inner", "outer"]);
    expect(exp(doc, "inner").job).toBe(inner);
    expect(
      doc.bundles
        .filter((b) => b.experiment === "outer")
        .map((b) => b.trial)
        .sort(),
    ).toEqual([T("bye"), T("hello")]);
    expect([exp(doc, "outer").invalid, exp(doc, "outer").rewards!["resolved"]!.mean]).toEqual([[], 0.5]);
  });

  it("a run folder named like another's numbered name gets a name of its own", async () => {
    const root = fresh("collide");
    for (const [parent, name] of [
      ["a", "myrun"],
      ["b", "myrun"],
      ["c", "myrun#2"],
    ])
      writeRun(join(root, parent!, name!), { trials: PLAIN });
    const doc = await score([root]);
    expect(names(doc)).toEqual(["myrun", "myrun#2", "myrun#3"]);
    expect(exp(doc, "myrun#2").job).toBe(join(root, "c", "myrun#2"));
    expect(exp(doc, "myrun#3").job).toBe(join(root, "b", "myrun"));
  });

  it("assay verify takes a task folder, as score does", () => {
    const dir = writeRun(join(fresh("verifytask"), "myrun"), { trials: PLAIN });
    const r = spawnCli(["verify", join(dir, "hello")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(T("hello"));
    expect(r.stdout).not.toContain(T("bye"));
  });
});
