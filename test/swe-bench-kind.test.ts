// SWE-bench as a kind (contract §14), through the CLI in-process: `assay score` over run folders in
// the harness's layout (the run fixture's working directory, copied and edited per test) gives the
// states, figures, flags and claims §14 says, each rule on each side; the run's files are read where
// they lie; a copied archive is `#2`; nothing below logs/run_validation/ is a run.
//
// Workers run compiled code (dist/): `npm run build` first.
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packFor } from "../src/analysis/evidence.js";
import type { BundleEntry, Experiment, Results } from "../src/core/results.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const WORK = new URL("./fixtures/swe-bench/run/work", import.meta.url).pathname;
const RUN = "logs/run_evaluation/demo-run";
const MODEL = `${RUN}/org__model-7b`;
const REPORT = "org__model-7b.demo-run.json";
const NAME = "demo-run/org__model-7b";

const { at } = scratch("assay-swe-kind-");
let serial = 0;
/** A fresh copy of the run's working directory, edited by `edit` (given its path). */
function work(edit: (w: string) => void = () => {}): string {
  const w = at(`w${++serial}/work`);
  cpSync(WORK, w, { recursive: true });
  edit(w);
  return w;
}
const editJson = (file: string, change: (doc: any) => void) => {
  const doc = JSON.parse(readFileSync(file, "utf8"));
  change(doc);
  writeFileSync(file, JSON.stringify(doc, null, 4));
};

async function score(roots: string[], ...flags: string[]): Promise<Results> {
  const out = at(`out-${++serial}.json`);
  const r = await run(["score", ...roots, "--format", "json", "--quiet", "--out", out, ...flags]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, "utf8")) as Results;
}
const exp = (d: Results, name = NAME): Experiment => d.experiments.find((e) => e.experiment === name)!;
const entry = (d: Results, id: string): BundleEntry => d.bundles.find((b) => b.trial === id)!;
const codes = (e: Experiment) => e.flags.filter((f) => f.code !== "INFRA_SIGNATURE").map((f) => `${f.code} ${f.trial}`);

describe("a harness run as it lies", () => {
  it("gives each instance its state, its verdict re-derived, and report.json's claim", async () => {
    const d = await score([work()]);
    const states = Object.fromEntries(d.bundles.map((b) => [b.trial, [b.state, b.pass, b.reward_source]]));
    expect(states).toEqual({
      "pallets__flask-4045": ["resolved", true, "test_output.txt (pytest)"],
      "pallets__flask-4992": ["unresolved", false, "test_output.txt (pytest)"],
      "psf__requests-2317": ["error", null, null],
      "psf__requests-863": ["tests-not-run", false, "test_output.txt (pytest_options)"],
    });
    const ok = entry(d, "pallets__flask-4045");
    expect(ok).toMatchObject({
      profile: "swe-bench",
      experiment: NAME,
      task: "pallets__flask-4045",
      attempt: null,
      seed: null,
      validity: "valid",
      rewards: { resolved: 1 },
    });
    expect(ok.claimed).toEqual({ rewards: { resolved: 1 }, exception: null });
    expect(ok.swe_bench).toMatchObject({
      repo: "pallets/flask",
      parser: "pytest",
      log: "agrees",
      found: true,
      not_run: null,
      exit_code: 0,
      infra: null,
    });
    expect(ok.swe_bench!.tests).toEqual({
      FAIL_TO_PASS: { success: expect.any(Number), failure: 0 },
      PASS_TO_PASS: { success: expect.any(Number), failure: 0 },
    });
    const err = entry(d, "psf__requests-2317");
    expect([err.rewards, err.claimed, err.exception?.step]).toEqual([null, { rewards: null, exception: null }, null]);
    // The harness's own exception: create_container raises EvaluationError from docker's APIError (run_evaluation.py, 7a21e05).
    expect(err.exception).toMatchObject({
      type: "EvaluationError",
      message: expect.stringMatching(
        /^swebench\.harness\.utils\.EvaluationError: Error in evaluation for psf__requests-2317: 500 /,
      ),
    });
    expect(err.flags.map((f) => f.code)).toEqual(["INFRA_SIGNATURE"]);
    expect(entry(d, "pallets__flask-4992").flags).toEqual([]);
  });

  it("one experiment for the model folder: its states, the figure, the leaderboard's figure apart, the claims recounted", async () => {
    const d = await score([work()]);
    expect(d.experiments.map((e) => e.experiment)).toEqual([NAME]);
    const e = exp(d);
    expect(e.states).toMatchObject({
      resolved: 1,
      unresolved: 1,
      "tests-not-run": 1,
      "empty-patch": 1,
      error: 1,
      missing: 0,
      "not-submitted": 1,
    });
    expect([e.scheduled, e.job_id, e.job!.endsWith(RUN)]).toEqual([6, "demo-run", true]);
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 0.25, covered: 4, trials: 6, pass_at_k: { "1": 0.25 } });
    expect(e.excluded).toEqual([{ trial: "psf__requests-2317", reason: "error" }]);
    expect(e.missing).toEqual([{ count: 1, reason: "in the dataset, not submitted (incomplete_ids)" }]);
    expect([e.invalid, e.unscored, e.warnings, codes(e)]).toEqual([[], [], [], []]);
    expect(e.claimed!.source).toBe(REPORT);
    expect(e.claimed!.compared.map((c) => [c.metric, c.reason])).toEqual(
      e.claimed!.compared.map((c) => [c.metric, null]),
    );
    expect(e.swe_bench).toMatchObject({
      run_id: "demo-run",
      model: "org__model-7b",
      dataset: "dataset.jsonl",
      total: 6,
      submitted: 5,
      resolved_over_total: { resolved: 1, total: 6, value: 1 / 6 },
    });
    expect(e.swe_bench!.report!.endsWith(`work/${REPORT}`)).toBe(true);
    expect(e.swe_bench!.predictions!.endsWith("work/preds.jsonl")).toBe(true);
    expect(d.run.containers!["swe-bench"]).toHaveLength(1);
  });

  it("--errors zero counts the harness error 0: the harness's denominator", async () => {
    const e = exp(await score([work()], "--errors", "zero"));
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 0.2, covered: 5, trials: 6 });
    expect(e.excluded).toEqual([]);
  });
});

describe("the final report", () => {
  it("absent: RUN_REPORT_ABSENT, no claims; predictions in the run folder still give the empty patch", async () => {
    const e = exp(
      await score([
        work((w) => (rmSync(join(w, REPORT)), renameSync(join(w, "preds.jsonl"), join(w, RUN, "preds.jsonl")))),
      ]),
    );
    expect(e.warnings.map((w) => w.code)).toEqual(["RUN_REPORT_ABSENT"]);
    expect([e.claimed, codes(e)]).toEqual([null, []]);
    expect(e.states).toMatchObject({ "empty-patch": 1, "not-submitted": 0 });
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 4, trials: 5 });
  });

  it("absent, and predictions only beside where it would be: none are found", async () => {
    const e = exp(await score([work((w) => rmSync(join(w, REPORT)))]));
    expect([e.swe_bench!.predictions, e.states!["empty-patch"]]).toEqual([null, 0]);
  });

  it("without resolved_ids: RUN_REPORT_UNREADABLE, no claims", async () => {
    const e = exp(await score([work((w) => editJson(join(w, REPORT), (r) => delete r.resolved_ids))]));
    expect(e.warnings.map((w) => w.code)).toEqual(["RUN_REPORT_UNREADABLE"]);
    expect(e.claimed).toBe(null);
  });

  it("found in the run folder when not in the working directory", async () => {
    const e = exp(await score([work((w) => renameSync(join(w, REPORT), join(w, RUN, REPORT)))]));
    expect([e.warnings, e.claimed?.source]).toEqual([[], REPORT]);
  });

  it("a listed id its evidence contradicts: RUN_CLAIM_MISMATCH, with the count it breaks", async () => {
    const e = exp(
      await score([work((w) => editJson(join(w, REPORT), (r) => r.resolved_ids.push("pallets__flask-4992")))]),
    );
    expect(codes(e)).toEqual(
      expect.arrayContaining([
        "RUN_CLAIM_MISMATCH pallets__flask-4992",
        `RUN_COUNT_MISMATCH ${REPORT}`,
        "RUN_LIST_DUPLICATE pallets__flask-4992",
      ]),
    );
    expect(e.claimed!.compared.find((c) => c.metric === "resolved_instances")).toMatchObject({
      claimed: 1,
      assay: 1,
      reason: null,
    });
  });

  it("a claimed count that differs: its recount says why", async () => {
    const e = exp(await score([work((w) => editJson(join(w, REPORT), (r) => (r.resolved_instances = 3)))]));
    expect(e.claimed!.compared.find((c) => c.metric === "resolved_instances")).toMatchObject({
      claimed: 3,
      assay: 1,
      reason: "the evidence gives 1",
    });
    expect(codes(e)).toEqual([`RUN_COUNT_MISMATCH ${REPORT}`]);
  });

  it("a listed instance without its folder is missing (INSTANCE_MISSING); a folder no list names is counted (INSTANCE_UNLISTED)", async () => {
    const d = await score([
      work((w) => {
        rmSync(join(w, MODEL, "pallets__flask-4992"), { recursive: true });
        const copy = join(w, MODEL, "pallets__flask-4046");
        cpSync(join(w, MODEL, "pallets__flask-4045"), copy, { recursive: true });
        editJson(join(copy, "report.json"), (r) => {
          r["pallets__flask-4046"] = r["pallets__flask-4045"];
          delete r["pallets__flask-4045"];
        });
      }),
    ]);
    const e = exp(d);
    expect(codes(e)).toEqual(
      expect.arrayContaining(["INSTANCE_MISSING pallets__flask-4992", "INSTANCE_UNLISTED pallets__flask-4046"]),
    );
    expect(e.missing[0]).toBe("pallets__flask-4992");
    expect(e.states).toMatchObject({ missing: 1, resolved: 2 });
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 4, trials: 7 });
    expect(exp(await score([work()], "--errors", "zero")).states!["missing"]).toBe(0);
  });
});

describe("the predictions", () => {
  const editPatch = (w: string) =>
    writeFileSync(join(w, MODEL, "pallets__flask-4045", "patch.diff"), "diff --git a/x b/x\n");

  it("patch.diff that is not the prediction's model_patch: PATCH_MISMATCH, invalid, counted 0", async () => {
    const d = await score([work(editPatch)]);
    const b = entry(d, "pallets__flask-4045");
    expect([b.validity, b.errors.map((f) => [f.code, f.file])]).toEqual([
      "invalid",
      [["PATCH_MISMATCH", "patch.diff"]],
    ]);
    const e = exp(d);
    expect(e.invalid).toEqual([{ trial: "pallets__flask-4045", codes: ["PATCH_MISMATCH"] }]);
    expect(e.rewards!["resolved"]).toMatchObject({ mean: 0, covered: 4 });
    expect(e.swe_bench!.resolved_over_total.resolved).toBe(0);
  });

  it("without predictions there is nothing to compare: no PATCH_MISMATCH", async () => {
    const d = await score([
      work((w) => {
        editPatch(w);
        rmSync(join(w, "preds.jsonl"));
      }),
    ]);
    expect(entry(d, "pallets__flask-4045").validity).toBe("valid");
    expect(exp(d).swe_bench!.predictions).toBe(null);
  });
});

describe("recognition and naming", () => {
  it("a copied archive is a second experiment, #2, in path order", async () => {
    const w = work();
    cpSync(w, join(w, "..", "work2"), { recursive: true });
    const d = await score([join(w, "..", "work2"), w]);
    expect(d.experiments.map((e) => e.experiment).sort()).toEqual([NAME, `${NAME}#2`]);
    expect(d.bundles.filter((b) => b.experiment === `${NAME}#2`).map((b) => b.path.includes("work2/"))).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it("nothing below logs/run_validation/ is a run", async () => {
    const w = work((x) => {
      mkdirSync(join(x, "logs", "run_validation"), { recursive: true });
      renameSync(join(x, RUN), join(x, "logs", "run_validation", "demo-run"));
    });
    const r = await run(["score", w, "--format", "json", "--quiet", "--out", at(`out-${++serial}.json`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing under .* is .*SWE-bench run's model folder/);
  });

  it("a model folder given as a root finds its run's files above it", async () => {
    const e = exp(await score([join(work(), MODEL)]));
    expect([e.claimed?.source, e.swe_bench?.predictions?.endsWith("preds.jsonl"), e.scheduled]).toEqual([
      REPORT,
      true,
      6,
    ]);
  });

  it("a folder named like an instance id is a model folder's instance only when it holds a file the harness writes there", async () => {
    const root = at(`plain-${++serial}`);
    mkdirSync(join(root, "m", "pallets__flask-4045", "notes"), { recursive: true });
    writeFileSync(join(root, "m", "pallets__flask-4045", "README.txt"), "not the harness's\n");
    expect((await run(["score", root, "--quiet", "--format", "json", "--out", at(`out-${++serial}.json`)])).code).toBe(
      2,
    );
    writeFileSync(join(root, "m", "pallets__flask-4045", "eval.sh"), "#!/bin/bash\n");
    expect((await score([root])).bundles.map((b) => [b.trial, b.state])).toEqual([
      ["pallets__flask-4045", "incomplete"],
    ]);
  });

  it("an instance folder given as a root is scored as a member of its experiment", async () => {
    const d = await score([join(work(), MODEL, "pallets__flask-4045")]);
    expect(d.bundles.map((b) => [b.trial, b.experiment, b.state])).toEqual([["pallets__flask-4045", NAME, "resolved"]]);
  });
});

describe("assay analyze's evidence pack", () => {
  it("report.json, the patch, and the test output's region between the harness's markers; not eval.sh or the harness's log", async () => {
    const d = await score([work()]);
    const b = entry(d, "pallets__flask-4045");
    const text = packFor(b.path, b).text;
    expect(text).toContain("=== report.json ===");
    expect(text).toContain("=== patch.diff (the model's patch) ===");
    expect(text).toContain(
      "=== test_output.txt (the region between the harness's markers) ===\n| '\n| + pytest -rA tests/test_basic.py",
    );
    expect(text).not.toContain("conda activate testbed");
    expect(text).not.toContain("=== eval.sh");
  });

  it("a test output without markers is shown whole", async () => {
    const d = await score([
      work((w) => writeFileSync(join(w, MODEL, "pallets__flask-4045", "test_output.txt"), "no markers here\n")),
    ]);
    const b = entry(d, "pallets__flask-4045");
    expect(packFor(b.path, b).text).toContain("=== test_output.txt (the tests' output) ===\n| no markers here");
  });
});

describe("assay verify and shards", () => {
  it("verify on one instance folder: its state and verdict", async () => {
    const r = await run(["verify", join(work(), MODEL, "pallets__flask-4045")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/valid \(swe-bench/);
    expect(r.stdout).toContain("state    resolved");
  });

  it("verify on an instance its files make invalid exits 1", async () => {
    const w = work((x) =>
      editJson(join(x, MODEL, "pallets__flask-4992", "report.json"), (r) => (r["pallets__flask-4992"].resolved = true)),
    );
    const r = await run(["verify", join(w, MODEL, "pallets__flask-4992")]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toContain("REPORT_MISMATCH");
  });

  it("--shard 0/2 and 1/2, then merge: the single run's document", async () => {
    const w = work();
    const single = await score([w]);
    const files: string[] = [];
    for (const i of [0, 1]) {
      const f = at(`shard-${++serial}.json`);
      const r = await run(["score", w, "--shard", `${i}/2`, "--quiet", "--out", f]);
      expect(r.code, r.stderr).toBe(0);
      files.push(f);
    }
    const out = at(`merged-${++serial}.json`);
    const m = await run(["merge", ...files, "--out", out]);
    expect(m.code, m.stderr).toBe(0);
    const merged = JSON.parse(readFileSync(out, "utf8")) as Results;
    expect(JSON.stringify(merged.experiments)).toBe(JSON.stringify(single.experiments));
    expect(JSON.stringify(merged.bundles)).toBe(JSON.stringify(single.bundles));
    expect(JSON.stringify(merged.run.containers)).toBe(JSON.stringify(single.run.containers));
  });
});
