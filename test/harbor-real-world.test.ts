// Real Harbor archives (../shared/real-world/harbor-jobs: 42 job folders, 61 trial folders from six
// public repositories, Harbor 0.13 to 0.22; provenance in its SOURCES.md), scored as a user would.
// Harbor's own reading of each trial and job is taken from its files with JSON.parse here, apart
// from src/. Where an archive is itself defective (a partial copy), what assay must say about it is
// asserted, not a clean bill. Skips without ../shared; fails without it when CI=true.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resultsSchema, type BundleEntry, type Experiment, type Results } from "../src/core/results.js";
import { run, spawnCli } from "./helpers/cli.js";
import { expectShared, runsWithShared, SCRATCH, scratchInTest, SHARED_DIR } from "./helpers/shared.js";

const ROOT = join(SHARED_DIR, "real-world/harbor-jobs");
const MATRAIX = join(ROOT, "MatrAIx-ai--MatrAIx/jobs");
/** What SOURCES.md says was left of the leaked key: the prefix, then X's. */
const KEY = /sk-ant-api03-X{8,}/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const readJson = (file: string): unknown => {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
};

/** Harbor's own state and top-level rewards for a trial's result.json (Harbor's job stats read the same fields). */
function harborsOwn(result: Obj): { state: string; rewards: Obj | null } {
  const rewards =
    isObj(result["verifier_result"]) && isObj(result["verifier_result"]["rewards"])
      ? result["verifier_result"]["rewards"]
      : null;
  const steps = Array.isArray(result["step_results"]) ? result["step_results"].filter(isObj) : [];
  const ex = isObj(result["exception_info"])
    ? result["exception_info"]
    : ((steps.find((s) => isObj(s["exception_info"]))?.["exception_info"] as Obj | undefined) ?? null);
  const disabled =
    isObj(result["config"]) && isObj(result["config"]["verifier"]) && result["config"]["verifier"]["disable"] === true;
  const state = disabled
    ? "unverified"
    : rewards !== null
      ? ex !== null
        ? "scored-with-exception"
        : "scored"
      : ex !== null
        ? ex["exception_type"] === "CancelledError"
          ? "cancelled"
          : "infrastructure-error"
        : "incomplete";
  return { state, rewards };
}

/** Every folder below ROOT holding a job-shaped result.json, or job.log. */
function jobFolders(dir = ROOT): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (!statSync(p).isDirectory()) continue;
    const r = readJson(join(p, "result.json"));
    if (existsSync(join(p, "job.log")) || (isObj(r) && "n_total_trials" in r && "stats" in r)) out.push(p);
    else out.push(...jobFolders(p));
  }
  return out;
}

let doc: Results;
let jsonText: string;
let table: string;
let jsonl: string;
const byPath = (p: string): BundleEntry => {
  const e = doc.bundles.find((b) => b.path === p);
  expect(e, p).toBeDefined();
  return e!;
};
const experimentAt = (jobDir: string): Experiment => {
  const e = doc.experiments.find((x) => x.job === jobDir);
  expect(e, jobDir).toBeDefined();
  return e!;
};

describe.runIf(runsWithShared(join(ROOT, "SOURCES.md")))(
  "real Harbor archives (../shared/real-world/harbor-jobs)",
  () => {
    beforeAll(async () => {
      expectShared(join(ROOT, "SOURCES.md"));
      const json = await run(["score", ROOT, "--format", "json", "--quiet"]);
      expect(json.code, json.stderr).toBe(0);
      jsonText = json.stdout;
      doc = resultsSchema.parse(JSON.parse(json.stdout));
      table = (await run(["score", ROOT, "--quiet", "--details"])).stdout;
      jsonl = (await run(["score", ROOT, "--format", "jsonl", "--quiet"])).stdout;
    }, 60_000);

    it("every folder is read without a crash or a tool error; every job folder is an experiment", () => {
      expect(doc.bundles.length).toBe(61);
      expect(doc.bundles.every((b) => b.profile === "harbor" && b.validity !== "error")).toBe(true);
      const jobs = jobFolders();
      expect(jobs.length).toBe(42);
      for (const j of jobs) experimentAt(j);
      expect(doc.run.unrecognised).toEqual({ count: 0, paths: [] });
    });

    it("on every trial with a complete result.json, assay's state and top-level rewards are Harbor's own", () => {
      let compared = 0;
      for (const b of doc.bundles) {
        const r = readJson(join(b.path, "result.json"));
        if (!isObj(r)) continue;
        const own = harborsOwn(r);
        expect([b.path, b.state, b.rewards]).toEqual([b.path, own.state, own.rewards]);
        compared++;
      }
      expect(compared).toBeGreaterThanOrEqual(56);
    });

    it("the two unrelated test-oracle jobs are two experiments, each with its own figure", async () => {
      const names = doc.experiments.map((e) => e.experiment).filter((n) => n?.startsWith("test-oracle@"));
      expect(names.sort()).toEqual(["test-oracle@76d6b071", "test-oracle@ebc017d1"]);
      const pass = doc.experiments.find((e) => e.experiment === "test-oracle@ebc017d1")!;
      const error = doc.experiments.find((e) => e.experiment === "test-oracle@76d6b071")!;
      expect([pass.rewards!["reward"]!.mean, pass.states!["scored"]]).toEqual([1, 1]);
      expect([error.rewards!["reward"]!.mean, error.states!["infrastructure-error"], error.exceptions]).toEqual([
        null,
        1,
        { NotImplementedError: 1 },
      ]);
      const zero = resultsSchema.parse(
        JSON.parse((await run(["score", ROOT, "--format", "json", "--quiet", "--errors", "zero"])).stdout),
      );
      expect(
        ["test-oracle@ebc017d1", "test-oracle@76d6b071"].map(
          (n) => zero.experiments.find((e) => e.experiment === n)!.rewards!["reward"]!.mean,
        ),
      ).toEqual([1, 0]);
    });

    it("the trial that never started is incomplete and counted in its job, which verify reads as a job", () => {
      const job = join(MATRAIX, "appSim-recommender-agent-local");
      const e = experimentAt(job);
      expect([e.scheduled, e.states!["incomplete"], e.excluded]).toEqual([
        1,
        1,
        [{ trial: "recommender-agent_chat_api__UN87m6k", reason: "incomplete" }],
      ]);
      expect(e.rewards!["reward"]).toMatchObject({ covered: 0, trials: 1, coverage: 0 });
      expect(byPath(`${job}/recommender-agent_chat_api__UN87m6k`)).toMatchObject({
        validity: "valid",
        state: "incomplete",
      });
      const v = spawnCli(["verify", job]);
      expect(v.code, v.stderr).toBe(0);
      expect(v.stdout).toMatch(/recommender-agent_chat_api__UN87m6k: valid/);
    });

    it("the cancelled trials are cancelled, apart from infrastructure errors, as Harbor counts them", () => {
      const cancelled = doc.bundles.filter((b) => b.state === "cancelled").map((b) => b.trial);
      expect(cancelled.sort()).toEqual(["recommender-agent_chat_api__BjCdZje", "recommender-agent_chat_api__VBb5pcf"]);
    });

    it("the eight trials copied from persona-* jobs into appSim-* jobs carry TRIAL_DUPLICATE_ID in both", () => {
      const flagged = doc.experiments.flatMap((e) =>
        e.flags.filter((f) => f.code === "TRIAL_DUPLICATE_ID").map((f) => `${e.experiment}/${f.trial}`),
      );
      expect(flagged).toHaveLength(16);
      const trials = new Set(flagged.map((f) => f.split("/")[1]));
      expect(trials.size).toBe(8);
      for (const f of flagged) expect(f).toMatch(/^(persona|appSim)-/);
    });

    it("each job's claimed metrics equal its own result.json", () => {
      let jobs = 0;
      for (const dir of jobFolders()) {
        const r = readJson(join(dir, "result.json"));
        const evals = isObj(r) && isObj(r["stats"]) && isObj(r["stats"]["evals"]) ? r["stats"]["evals"] : {};
        const want: Record<string, number> = {};
        for (const [key, ev] of Object.entries(evals)) {
          if (!isObj(ev)) continue;
          (Array.isArray(ev["metrics"]) ? ev["metrics"] : []).forEach((m: unknown, i: number) => {
            for (const [name, v] of Object.entries(isObj(m) ? m : {}))
              if (typeof v === "number") want[`${key}/${i}/${name}`] = v;
          });
          for (const [k, v] of Object.entries(isObj(ev["pass_at_k"]) ? ev["pass_at_k"] : {}))
            if (typeof v === "number") want[`${key}/pass_at_k/${k}`] = v;
        }
        expect([dir, experimentAt(dir).claimed?.metrics ?? null]).toEqual([
          dir,
          Object.keys(want).length === 0 ? null : want,
        ]);
        jobs++;
      }
      expect(jobs).toBe(42);
    });

    it("where the figures differ from Harbor's, a reason is given; otherwise they agree", () => {
      const compared = doc.experiments.flatMap((e) => e.claimed?.compared ?? []);
      expect(compared.length).toBeGreaterThan(30);
      for (const c of compared)
        if (c.assay === null || Math.abs(c.assay - c.claimed) > 1e-9) expect(c.reason, c.metric).toMatch(/\w/);
    });

    describe("defective archives: what assay says about each", () => {
      it("MenendezJuan (the index left out reward.txt): the four trials are REWARD_FILE_MISSING, invalid, counted as 0", () => {
        const menendez = doc.bundles.filter((b) => b.path.includes("MenendezJuan--"));
        expect(menendez).toHaveLength(4);
        for (const b of menendez)
          expect([b.validity, b.errors.map((f) => f.code)]).toEqual(["invalid", ["REWARD_FILE_MISSING"]]);
      });

      it("books-interest-cocoa (the snapshot lacks its 4 MiB result.json): incomplete, its reward.txt shows the verifier ran, so it counts 0 (issue 35); the job's claim of reward 1 stands against none", () => {
        for (const job of ["persona-web-cocoa-local", "appSim-example-web-cocoa-local"]) {
          const e = experimentAt(join(MATRAIX, job));
          expect(byPath(join(MATRAIX, job, "books-interest-cocoa__cARWDzg"))).toMatchObject({
            validity: "valid",
            state: "incomplete",
            claimed: { rewards: { reward: 1 }, exception: null },
          });
          expect(e.flags).toEqual([
            expect.objectContaining({ code: "REWARD_WITHOUT_RESULT", trial: "books-interest-cocoa__cARWDzg" }),
            expect.objectContaining({
              code: "JOB_CLAIM_MISMATCH",
              trial: "books-interest-cocoa__cARWDzg",
              evidence: expect.stringContaining("no readable result.json (none)"),
            }),
          ]);
          // Nothing can check its reward.txt's 1 against a result.json: 0, not covered (was n/a, 0/1).
          expect([e.rewards!["reward"]!.mean, e.rewards!["reward"]!.covered, e.rewards!["reward"]!.trials]).toEqual([
            0, 0, 1,
          ]);
          expect(e.claimed!.compared[0]).toMatchObject({
            claimed: 1,
            assay: 0,
            reason: expect.stringContaining("which assay counts (its verifier ran) as 0"),
          });
        }
      });

      it("samyyy2423 (evidence flattened into the job folder): jobs without a trial folder, the planned trial missing, the named one absent", () => {
        for (const [name, trial] of [
          ["nop", "log-report__MnvRHgf"],
          ["oracle", "log-report__Ugr99YQ"],
        ]) {
          const e = experimentAt(join(ROOT, "samyyy2423--dynamo-log-report/evidence", name!));
          expect([e.scheduled, e.missing]).toEqual([
            1,
            [{ count: 1, reason: "planned by the job, absent from its folder" }],
          ]);
          expect(e.flags.map((f) => [f.code, f.trial])).toEqual([["JOB_CLAIM_MISMATCH", trial]]);
        }
      });
    });

    it("the table and verify show each exception; the table groups them by type", () => {
      expect(table).toMatch(/exceptions {3}AgentTimeoutError 2/);
      expect(table).toMatch(/recommender-agent_chat_api__VBb5pcf: cancelled CancelledError/);
      expect(table).toMatch(/json-transform__Rubkzat: infrastructure-error RunloopError: /);
      const v = spawnCli([
        "verify",
        join(ROOT, "akashraajputh--New_hire-akash-horbor_task/jobs/test-oracle-runloop/json-transform__Rubkzat"),
      ]);
      expect(v.stdout).toMatch(/exception RunloopError: /);
    });

    it("the redacted API key in books-interest-cocoa appears in no output: table, JSON, JSON Lines, verify", () => {
      expect(
        readFileSync(join(MATRAIX, "persona-web-cocoa-local/books-interest-cocoa__cARWDzg/agent/cocoa.txt"), "utf8"),
      ).toMatch(KEY); // the evidence does hold it
      const outputs = [table, JSON.stringify(doc), jsonl];
      for (const job of ["persona-web-cocoa-local", "appSim-example-web-cocoa-local"]) {
        const dir = join(MATRAIX, job);
        for (const target of [dir, join(dir, "books-interest-cocoa__cARWDzg")]) {
          const v = spawnCli(["verify", target]);
          const j = spawnCli(["verify", target, "--json"]);
          outputs.push(v.stdout, v.stderr, j.stdout, j.stderr);
        }
      }
      for (const o of outputs) {
        expect(o).not.toMatch(KEY);
        expect(o).not.toContain("sk-ant-api03");
      }
    });

    it("shards of the whole archive merge into the single run's document (the job-level data travels in the documents)", async () => {
      const { dir } = scratchInTest("assay-real-world-shards-", SCRATCH);
      const files: string[] = [];
      for (const i of [0, 1, 2]) {
        const s = await run(["score", ROOT, "--shard", `${i}/3`, "--format", i === 1 ? "jsonl" : "json", "--quiet"]);
        expect(s.code, s.stderr).toBe(0);
        files.push(join(dir, `shard-${i}`));
        writeFileSync(files[i]!, s.stdout);
      }
      const merged = await run(["merge", ...files, "--format", "json"]);
      expect(merged.code, merged.stderr).toBe(0);
      const withoutRun = (t: string) => JSON.stringify({ ...JSON.parse(t), run: null });
      expect(withoutRun(merged.stdout)).toBe(withoutRun(jsonText));
    });
  },
);
