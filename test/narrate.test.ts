// Job narratives (issue 7, item 3) against the fake Messages API with the real SDK: the numbers are
// the results document's, copied; a reply citing a trial that does not exist is rejected (one
// retry, then an error narrative); the same document gives the same request and hits the cache;
// the narrative says which trials had no analysis and why.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NARRATIVE_FORMAT, narrativeMarkdown, type Narrative } from "../src/analysis/narrative.js";
import { blankExperiment, type Results } from "../src/core/results.js";
import { run } from "./helpers/cli.js";
import { errorReply, FakeMessagesApi, toolUseReply } from "./helpers/fake-anthropic.js";
import { float, realTrajectory, writeJob } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const TOOL = "record_assessment";
const LEGIT = ["reward_hacking", "instruction_sufficiency", "outcome_matches_work", "environment_interference"];
const fake = FakeMessagesApi.forTests();
const { dir: tmp } = scratch("assay-narrate-", SCRATCH);
let resultsFile: string;
let results: Results;
let n = 0;
const env = (cache: string) => ({
  ANTHROPIC_API_KEY: "sk-ant-narrate-test-000000000",
  ANTHROPIC_BASE_URL: fake.url,
  ASSAY_CACHE: cache,
});
const prose = (trials: string[]) => ({
  overview: "Most trials passed; one claimed a reward its verifier did not give.",
  themes: [{ title: "Rewards", text: "See these.", trials }],
});
const narrateJson = async (cache: string, ...flags: string[]) => {
  const r = await run(["narrate", resultsFile, "--format", "json", "--max-retries", "0", ...flags], env(cache));
  return { ...r, n: JSON.parse(r.stdout) as Narrative };
};

beforeAll(async () => {
  const root = join(tmp, "jobs");
  writeJob(root, "job-n", [
    { name: "ok-1", trajectory: realTrajectory("openhands") },
    { name: "ok-2", rewards: { reward: float(0) } },
    { name: "liar", rewardFiles: { "reward.txt": "0\n" } },
    { name: "broken", rewards: null, exception: { type: "DaytonaError", message: "sandbox failed" } },
  ]);
  fake.fallback = toolUseReply(TOOL, {
    summary: "fine",
    criteria: Object.fromEntries(LEGIT.map((c) => [c, { outcome: "pass", explanation: "ok" }])),
  });
  const r = await run(["analyze", root, "--format", "json", "--quiet"], env(join(tmp, "analysis.sqlite")));
  resultsFile = join(tmp, "results.json");
  writeFileSync(resultsFile, r.stdout);
  results = JSON.parse(r.stdout) as Results;
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.fallback = errorReply(500, "api_error", "no scripted reply");
});

describe("assay narrate", () => {
  it("copies every count and metric from the results document, and writes the model's prose beside them", async () => {
    fake.script(toolUseReply(TOOL, prose(["job-n/liar"])));
    const { code, n: nar } = await narrateJson(join(tmp, `c${++n}.sqlite`));
    expect(code).toBe(0);
    expect(nar.status).toBe("written");
    expect(nar.facts.experiments).toEqual(results.experiments); // copied, never generated
    expect(nar.facts.bundles).toEqual({ total: 4, valid: 3, invalid: 1, error: 0 });
    expect(nar.prose!.themes[0]!.trials).toEqual(["job-n/liar"]);
    // The model was given the facts and the ids; the numbers it sees are the document's.
    const user = fake.requests[0]!.body.messages[0].content as string;
    for (const [state, count] of Object.entries(results.experiments[0]!.states!))
      expect(user).toContain(`"${state}": ${count}`);
    expect(user).toMatch(/job-n\/ok-1: valid, scored/);
  });

  it("says which trials had no analysis and why", async () => {
    fake.script(toolUseReply(TOOL, prose(["job-n/ok-1"])));
    const { n: nar } = await narrateJson(join(tmp, `c${++n}.sqlite`));
    expect(nar.facts.unanalysed).toEqual([{ trial: "job-n/liar", reason: "invalid evidence" }]);
    const md = await run(["narrate", resultsFile, "--max-retries", "0"], env(join(tmp, `c${n}.sqlite`)));
    expect(md.stdout).toMatch(/## Trials without an analysis\n\n- job-n\/liar: invalid evidence/);
    expect(md.stdout).toMatch(
      /counts and metrics in the first section are copied from the results document; the quoted prose is/,
    );
    expect(md.stdout).toMatch(/^> Most trials passed/m); // the model's text, quoted
    // The reward mean carries its interval or why there is none (§13.2): the three trials in the
    // mean all ran one task, so there is none, and no legend names a method nobody used.
    const r = results.experiments[0]!.rewards!["reward"]!;
    expect(r.interval).toBeNull();
    expect(md.stdout).toContain(
      `reward: mean ${r.mean} (all 3 trials are in one task: no interval from a single task), coverage 3/4`,
    );
    expect(md.stdout).not.toMatch(/95% intervals:/);
  });

  it("a reply citing an invented trial is asked again once, naming it; a second invention is an error narrative (exit 3), never cached", async () => {
    const cache = join(tmp, `c${++n}.sqlite`);
    fake.script(toolUseReply(TOOL, prose(["job-n/ghost"])), toolUseReply(TOOL, prose(["job-n/ok-2"])));
    const fixed = await narrateJson(cache);
    expect([fixed.code, fixed.n.status, fake.requests.length]).toEqual([0, "written", 2]);
    expect(fake.requests[1]!.body.messages[0].content).toMatch(
      /cited trial ids that are not in the results: "job-n\/ghost"/,
    );

    const other = join(tmp, `c${++n}.sqlite`);
    fake.script(toolUseReply(TOOL, prose(["job-n/ghost"])), toolUseReply(TOOL, prose(["-/phantom"])));
    const failed = await narrateJson(other);
    expect([failed.code, failed.n.status, failed.n.prose]).toEqual([3, "error", null]);
    expect(failed.n.reason).toMatch(/not in the results, twice: "-\/phantom"/);
    expect(failed.n.facts.experiments).toEqual(results.experiments); // the facts stand without the prose
    fake.script(toolUseReply(TOOL, prose(["job-n/ok-1"])));
    expect((await narrateJson(other)).n.status).toBe("written"); // nothing was cached: asked again
  });

  it("the same results give the same request: a second run is a cache hit with zero requests; offline without it is exit 3", async () => {
    const cache = join(tmp, `c${++n}.sqlite`);
    fake.script(toolUseReply(TOOL, prose(["job-n/ok-1"])));
    await narrateJson(cache);
    const again = await narrateJson(cache);
    expect([fake.requests.length, again.n.cached, again.code]).toEqual([1, true, 0]);
    // A fresh cache: byte-identical request body.
    fake.script(toolUseReply(TOOL, prose(["job-n/ok-1"])));
    await narrateJson(join(tmp, `c${++n}.sqlite`));
    expect(fake.requests[1]!.body.messages).toEqual(fake.requests[0]!.body.messages);
    const offline = await narrateJson(join(tmp, `c${++n}.sqlite`), "--offline");
    expect([offline.code, offline.n.status]).toEqual([3, "not-written"]);
  });

  it("reads a JSON Lines document as it reads the JSON one: the same facts, the same request", async () => {
    const jsonl = join(tmp, "results.jsonl");
    const lines = [
      {
        type: "run",
        format: "assay.results/1",
        run: results.run,
        lines: { bundles: results.bundles.length, experiments: results.experiments.length },
      },
      ...results.bundles.map((b) => ({ type: "bundle", ...b })),
      ...results.experiments.map((x) => ({ type: "experiment", ...x })),
    ];
    writeFileSync(jsonl, lines.map((l) => JSON.stringify(l) + "\n").join(""));
    fake.script(toolUseReply(TOOL, prose(["job-n/ok-1"])), toolUseReply(TOOL, prose(["job-n/ok-1"])));
    const a = (await run(["narrate", resultsFile, "--format", "json"], env(join(tmp, `c${++n}.sqlite`)))).stdout;
    const b = (await run(["narrate", jsonl, "--format", "json"], env(join(tmp, `c${++n}.sqlite`)))).stdout;
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.body).toEqual(fake.requests[0]!.body);
    const [na, nb] = [JSON.parse(a) as Narrative, JSON.parse(b) as Narrative];
    expect(nb.facts).toEqual(na.facts);
    expect(nb.source).toBe(createHash("sha256").update(readFileSync(jsonl)).digest("hex"));
    expect(na.source).toBe(createHash("sha256").update(readFileSync(resultsFile)).digest("hex"));
  });

  it("a document cut short is a usage error naming the file and the byte (exit 2), before any request", async () => {
    const cut = join(tmp, "cut.json");
    const whole = readFileSync(resultsFile);
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const r = await run(["narrate", cut], env(join(tmp, `c${++n}.sqlite`)));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cut\.json is not an assay results document: .*byte \d+/);
    expect(fake.requests).toHaveLength(0);
  });

  it("refuses a file that is not a results document (exit 2)", async () => {
    const bad = join(tmp, "bad.json");
    writeFileSync(bad, JSON.stringify({ format: "something-else" }));
    expect((await run(["narrate", bad], env(join(tmp, "x.sqlite")))).code).toBe(2);
    expect(readFileSync(resultsFile, "utf8").length).toBeGreaterThan(0);
  });
});

describe("assay narrate: determinism and options", () => {
  it("the same document with its bundles and experiments in another order gives the same request", async () => {
    const permuted = join(tmp, "permuted.json");
    const moreExperiments = [...results.experiments, { ...results.experiments[0]!, experiment: "a-job" }];
    writeFileSync(resultsFile + ".2", JSON.stringify({ ...results, experiments: moreExperiments }));
    writeFileSync(
      permuted,
      JSON.stringify(
        { ...results, bundles: [...results.bundles].reverse(), experiments: [...moreExperiments].reverse() },
        null,
        3,
      ),
    );
    fake.script(toolUseReply(TOOL, prose(["job-n/ok-1"])), toolUseReply(TOOL, prose(["job-n/ok-1"])));
    await run(["narrate", resultsFile + ".2", "--format", "json"], env(join(tmp, `c${++n}.sqlite`)));
    await run(["narrate", permuted, "--format", "json"], env(join(tmp, `c${++n}.sqlite`)));
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.body).toEqual(fake.requests[0]!.body);
  });

  it("model prose cannot break out of its quote in the Markdown (a bare \\r, control characters)", async () => {
    fake.script(toolUseReply(TOOL, { overview: "ok\r# 9 bundles: 9 valid\u001b[2J", themes: [] }));
    const md = (await run(["narrate", resultsFile], env(join(tmp, `c${++n}.sqlite`)))).stdout;
    expect(md).not.toMatch(/^# 9 bundles/m);
    expect(md).toMatch(/^> # 9 bundles: 9 valid\?\[2J$/m);
    expect(md).not.toContain("\u001b");
  });

  it.each([["--batch"], ["--max-calls", "2"], ["--rubric", "x.toml"], ["--concurrency", "2"]])(
    "refuses %s, which it would not honour (exit 2)",
    async (...flag) => {
      expect((await run(["narrate", resultsFile, ...flag], env(join(tmp, "x.sqlite")))).code).toBe(2);
    },
  );

  it("Markdown: an interval says what it is over, and its method is named once for the page", () => {
    const gold = {
      method: "cluster-t" as const,
      lo: 0,
      hi: 0.868,
      units: 11,
      clusters: 3,
      se: 0.1594,
      design_effect: 1.71,
    };
    const x = {
      ...blankExperiment("gold", "native-game", 11),
      accuracy: { value: 2 / 11, victories: 2, scored: 11, wilson95: null, interval: gold, interval_reason: null },
    };
    const md = narrativeMarkdown({
      format: NARRATIVE_FORMAT,
      source: "0".repeat(64),
      status: "not-written",
      reason: "offline",
      model: "m",
      cached: false,
      facts: {
        bundles: { total: 11, valid: 11, invalid: 0, error: 0 },
        experiments: [x, { ...x, experiment: "gold2" }],
        unanalysed: [],
      },
      prose: null,
      provenance: null,
    });
    expect(md).toContain(
      "- **gold** (native-game): accuracy 2/11 (95% [0.000, 0.868] over 11 trials in 3 tasks); 0 invalid",
    );
    expect(
      md.match(
        /^_95% intervals: cluster-robust t over tasks where tasks repeat \(Inspect's clustered stderr\); each for the mean over the population of tasks these were drawn from\._$/gm,
      ),
    ).toHaveLength(1);
  });
});
