// Issue 37's matching rules, pure: an experiment matches the one of the same name, else of the same
// recorded benchmark, else of the same task set; a key with several candidates on a side is
// ambiguous (reported, never guessed); keys never cross kinds; `--by` takes one criterion. Ranking
// groups runs the same way within one document or across many, ranks the same run given twice
// once, and lists a group with nothing to rank instead of passing it.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { comparisonSchema } from "../src/core/compare/schema.js";
import { run, spawnCli } from "./helpers/cli.js";
import { freshFolders } from "./helpers/shared.js";
import type { Side } from "../src/core/compare/compare.js";
import { compareRuns, uncomparedPairs } from "../src/core/compare/compare.js";
import { groupRuns, matchKey, matchTwo, runKey } from "../src/core/compare/match.js";
import { rankRuns, uncompared } from "../src/core/compare/rank.js";
import type { Units } from "../src/core/compare/trials.js";
import { tasksDigest, type Identity } from "../src/core/identity.js";
import { blankExperiment, type Experiment, type Profile, type Results } from "../src/core/results.js";

const identity = (f: Partial<Identity> = {}): Identity => ({
  agent: null,
  model: null,
  benchmark: null,
  tasks: null,
  harness: null,
  started_at: null,
  finished_at: null,
  clock: null,
  ...f,
});
const tasks = (...ids: string[]) => ({ ...tasksDigest(ids), unit: "task" as const });
const bench = (name: string, version: string | null = null) => ({ name, version, dataset: null });

/** An experiment with a pass figure over its trials (world profile: pass is a headline). */
function exp(name: string, id: Partial<Identity> | null, profile: Profile = "world"): Experiment {
  const x = blankExperiment(name, profile, 0);
  x.identity = id === null ? null : identity(id);
  return x;
}

function withPass(x: Experiment, values: readonly number[]): { x: Experiment; units: Units } {
  const passed = values.filter((v) => v === 1).length;
  x.pass = { passed, total: values.length, interval: null, interval_reason: "test" };
  return {
    x,
    units: {
      unit: "trial",
      ids: values.map((_, i) => `t${i}`),
      values: Float64Array.from(values),
      checksums: null,
      reason: null,
    },
  };
}

const RUN: Results["run"] = {
  tool_version: "t",
  scoring_version: 10,
  started_at: "",
  complete: true,
  shard: null,
  roots: [],
  jobs: [],
  unrecognised: { count: 0, paths: [] },
  options: { invalid: "count", resource_bound: "default", errors: "exclude", schedules: [], hmac_key: null },
} as unknown as Results["run"];

function side(file: string, xs: readonly { x: Experiment; units?: Units }[]): Side {
  return {
    file,
    run: RUN,
    experiments: xs.map((e) => e.x),
    units: new Map(xs.map((e) => [e.x, new Map(e.units === undefined ? [] : [["pass", e.units]])])),
  };
}

const names = (...xs: Experiment[]) => new Map(xs.map((x) => [x, x.experiment!]));

describe("matchKey: what an experiment matches by", () => {
  it("a name is scoped to its kind; a benchmark or task set only where recorded", () => {
    const h = exp("job", { benchmark: bench("tb", "2.0"), tasks: tasks("a") }, "harbor");
    const i = exp("job", { benchmark: bench("tb", "2.0"), tasks: tasks("a") }, "inspect");
    for (const by of ["name", "benchmark", "tasks"] as const) expect(matchKey(h, by)).not.toBe(matchKey(i, by));
    expect(matchKey(exp("x", null), "benchmark")).toBeNull();
    expect(matchKey(exp("x", {}), "tasks")).toBeNull();
    expect(
      matchKey(exp("x", { tasks: { count: 0, digest: tasksDigest([]).digest, unit: "task" } }), "tasks"),
    ).toBeNull();
    // A version is part of the benchmark: v1 and v2 are not one benchmark.
    expect(matchKey(exp("x", { benchmark: bench("b", "1") }), "benchmark")).not.toBe(
      matchKey(exp("y", { benchmark: bench("b", "2") }), "benchmark"),
    );
    expect(matchKey(exp("x", { tasks: tasks("a", "b") }), "tasks")).toBe(
      matchKey(exp("y", { tasks: tasks("b", "a", "a") }), "tasks"),
    );
  });
});

describe("matchTwo: BASE with HEAD", () => {
  it("name first, then benchmark, then task set; each match says how", () => {
    const b = [
      exp("same", {}),
      exp("b-bench", { benchmark: bench("swe", "1") }),
      exp("b-tasks", { tasks: tasks("t1", "t2") }),
      exp("b-alone", { tasks: tasks("zz") }),
    ];
    const h = [
      exp("h-tasks", { tasks: tasks("t2", "t1") }),
      exp("same", {}),
      exp("h-bench", { benchmark: bench("swe", "1") }),
      exp("h-alone", { tasks: tasks("yy") }),
    ];
    const m = matchTwo(b, h, [], undefined, names(...b, ...h));
    expect(m.matched.map((x) => [x.base.experiment, x.head.experiment, x.how])).toEqual([
      ["same", "same", "name"],
      ["b-bench", "h-bench", "benchmark"],
      ["b-tasks", "h-tasks", "tasks"],
    ]);
    expect([m.onlyBase.map((x) => x.experiment), m.onlyHead.map((x) => x.experiment), m.ambiguous]).toEqual([
      ["b-alone"],
      ["h-alone"],
      [],
    ]);
  });

  it("two candidates on a side: ambiguous, with the candidates; not matched, not even by a later criterion", () => {
    const b = [
      exp("gemma", { benchmark: bench("popularity"), tasks: tasks("s1") }),
      exp("llama", { benchmark: bench("popularity"), tasks: tasks("s2") }),
    ];
    const h = [exp("qwen", { benchmark: bench("popularity"), tasks: tasks("s1") })];
    const m = matchTwo(b, h, [], undefined, names(...b, ...h));
    expect(m.matched).toEqual([]);
    expect(m.ambiguous).toEqual([{ by: "benchmark", key: "popularity", base: ["gemma", "llama"], head: ["qwen"] }]);
    // --by tasks asks for the task set alone: one candidate each, matched.
    const byTasks = matchTwo(b, h, [], "tasks", names(...b, ...h));
    expect(byTasks.matched.map((x) => [x.base.experiment, x.head.experiment, x.how])).toEqual([
      ["gemma", "qwen", "tasks"],
    ]);
    // One each (the neighbour): matched by benchmark.
    expect(matchTwo([b[0]!], h, [], undefined, names(...b, ...h)).matched.map((x) => x.how)).toEqual(["benchmark"]);
  });

  it("--by name never falls back; --pair comes first and takes its experiments out of the rest", () => {
    const b = [exp("a", { tasks: tasks("t") })];
    const h = [exp("b", { tasks: tasks("t") })];
    expect(matchTwo(b, h, [], "name", names(...b, ...h)).matched).toEqual([]);
    expect(matchTwo(b, h, [], undefined, names(...b, ...h)).matched.map((x) => x.how)).toEqual(["tasks"]);
    expect(matchTwo(b, h, [[b[0]!, h[0]!]], undefined, names(...b, ...h)).matched.map((x) => x.how)).toEqual(["pair"]);
  });
});

describe("groupRuns: a ranking's groups", () => {
  it("one document: its runs of one task set together, the rest alone", () => {
    const xs = [
      exp("nop", { agent: "nop", tasks: tasks("event-summary") }),
      exp("oracle", { agent: "oracle", tasks: tasks("event-summary") }),
      exp("codex", { agent: "codex", tasks: tasks("event-summary") }),
      exp("other", { tasks: tasks("x") }),
    ];
    const { groups, single } = groupRuns(
      xs.map((x) => ({ side: 0, x })),
      [],
      undefined,
    );
    expect(groups.map((g) => [g.how, g.members.map((m) => m.x.experiment)])).toEqual([
      ["tasks", ["nop", "oracle", "codex"]],
    ]);
    expect(single.map((m) => m.x.experiment)).toEqual(["other"]);
  });
});

describe("runKey: the same run given twice", () => {
  it("equal for identical identities with a start; none without a start; a different start is another run", () => {
    const id = {
      model: "m",
      benchmark: bench("popularity"),
      tasks: tasks("s"),
      started_at: "2025-05-13T00:28:13.000Z",
      clock: "utc" as const,
    };
    expect(runKey(exp("a.eval", id))).toBe(runKey(exp("a.json", id)));
    expect(runKey(exp("a", { ...id, started_at: null }))).toBeNull();
    expect(runKey(exp("a", id))).not.toBe(runKey(exp("b", { ...id, started_at: "2025-05-13T00:28:14.000Z" })));
  });
});

describe("rankRuns within one document", () => {
  const t = tasks("t0", "t1", "t2", "t3");
  it("ranks a document's runs of one task set, labels them by name, and ranks the same run given twice once", () => {
    const start = { started_at: "2026-01-01T00:00:00.000Z", clock: "utc" as const };
    const a = withPass(exp("run-a", { agent: "a", tasks: t, ...start }), [1, 1, 1, 1]);
    const b = withPass(exp("run-b", { agent: "b", tasks: t }), [0, 0, 1, 0]);
    const copy = withPass(exp("run-a-copy", { agent: "a", tasks: t, ...start }), [1, 1, 1, 1]);
    const doc = rankRuns([side("one.json", [a, b, copy])]);
    expect(doc.experiments.map((e) => [e.match, e.ranking.metric, e.ranking.runs.map((r) => r.run)])).toEqual([
      ["tasks", "pass", ["run-a", "run-b"]],
    ]);
    expect(doc.experiments[0]!.duplicates).toEqual([{ run: "run-a-copy", same_as: "run-a" }]);
    expect(doc.experiments[0]!.members.map((m) => [m.run, m.file, m.experiment])).toEqual([
      ["run-a", "one.json", "run-a"],
      ["run-b", "one.json", "run-b"],
      ["run-a-copy", "one.json", "run-a-copy"],
    ]);
    expect(doc.unscored).toEqual([]);
  });

  it("a group with no score in any run is listed with its runs, not ranked, and the gate fails on it", () => {
    const doc = rankRuns([
      side("one.json", [{ x: exp("m1", { model: "m1", tasks: t }) }, { x: exp("m2", { model: "m2", tasks: t }) }]),
    ]);
    expect(doc.experiments).toEqual([]);
    expect(doc.unscored.map((u) => [u.match, u.members.map((m) => m.run), u.reason])).toEqual([
      ["tasks", ["m1", "m2"], "no run of the group records a score (no scorer, or nothing scored): listed, not ranked"],
    ]);
    expect(uncompared(doc)).toEqual([
      `${doc.unscored[0]!.experiment}: no run of the group records a score (no scorer, or nothing scored): listed, not ranked`,
    ]);
  });

  it("--trend: each ranking's runs in start order with the slope per run; without it, no trend", () => {
    const at = (d: number) => ({ started_at: `2026-01-0${d}T00:00:00.000Z`, clock: "utc" as const, tasks: t });
    const runs = [
      withPass(exp("late", at(3)), [0, 0, 0, 1]),
      withPass(exp("early", at(1)), [1, 1, 1, 1]),
      withPass(exp("mid", at(2)), [1, 0, 1, 1]),
    ];
    const trend = rankRuns([side("one.json", runs)], { trend: true }).experiments[0]!.trend!;
    expect(trend.runs.map((r) => [r.run, r.position, r.value])).toEqual([
      ["early", 0, 1],
      ["mid", 1, 0.75],
      ["late", 2, 0.25],
    ]);
    expect(trend.slope).toBeCloseTo(-0.375, 12);
    expect(rankRuns([side("one.json", runs)]).experiments[0]!.trend).toBeNull();
  });

  it("across documents, one name per document is labelled by its document, as before", () => {
    const doc = rankRuns(
      ["r1.json", "r2.json"].map((f, i) => side(f, [withPass(exp("e", {}), i === 0 ? [1, 1] : [0, 1])])),
    );
    expect(doc.experiments.map((e) => [e.match, e.experiment, e.ranking.runs.map((r) => r.run)])).toEqual([
      ["name", "e", ["r1.json", "r2.json"]],
    ]);
  });
});

describe("compareRuns: the same run on both sides is said", () => {
  it("notes a run compared with itself, and not two runs that differ in start or in outcome", () => {
    const id = { model: "m", tasks: tasks("t0", "t1"), started_at: "2026-01-01T00:00:00.000Z", clock: "utc" as const };
    const same = compareRuns(
      side("a.json", [withPass(exp("e", id), [1, 0])]),
      side("b.json", [withPass(exp("e", id), [1, 0])]),
      [],
    );
    expect(same.notes.some((n) => n.includes("a run compared with itself"))).toBe(true);
    const other = compareRuns(
      side("a.json", [withPass(exp("e", id), [1, 0])]),
      side("b.json", [withPass(exp("e", { ...id, started_at: "2026-02-01T00:00:00.000Z" }), [1, 0])]),
      [],
    );
    expect(other.notes.some((n) => n.includes("a run compared with itself"))).toBe(false);
    // The same identity and times but other outcomes: two runs recorded alike, not one given twice.
    const alike = compareRuns(
      side("a.json", [withPass(exp("e", id), [1, 0])]),
      side("b.json", [withPass(exp("e", id), [0, 0])]),
      [],
    );
    expect(alike.notes.some((n) => n.includes("a run compared with itself"))).toBe(false);
  });
});

describe("the gate on what a two-run comparison could not compare", () => {
  it("an ambiguous key fails the gate with its candidates; a matched experiment with no metric on both sides too; a plain match does not", () => {
    const b = [
      withPass(exp("gemma", { benchmark: bench("popularity") }), [1, 0]),
      withPass(exp("llama", { benchmark: bench("popularity") }), [1, 1]),
    ];
    const h = [withPass(exp("qwen", { benchmark: bench("popularity") }), [0, 0]), withPass(exp("same", {}), [1, 1])];
    const doc = compareRuns(side("b.json", [...b, withPass(exp("same", {}), [1, 1])]), side("h.json", h), []);
    expect(uncomparedPairs(doc)).toEqual([
      "by benchmark, popularity: BASE gemma, llama and HEAD qwen are ambiguous: not compared (name them with --pair)",
    ]);
    const plain = compareRuns(
      side("b.json", [withPass(exp("same", {}), [1, 1])]),
      side("h.json", [withPass(exp("same", {}), [1, 1])]),
      [],
    );
    expect(uncomparedPairs(plain)).toEqual([]);
    // A world run against a Harbor job named alike holds no metric of the other's: nothing of it compared.
    const [world, job] = [withPass(exp("w", {}), [1, 1]), { x: exp("j", {}, "harbor") }];
    const none = compareRuns(side("b.json", [world]), side("h.json", [job]), [[world.x, job.x]]);
    expect(uncomparedPairs(none)).toEqual(["w: no metric on both sides: nothing compared"]);
  });
});

describe("compare's filters (the documents checked whole, then only the selected experiments matched)", () => {
  const dir = freshFolders("assay-compare-filter-");
  it("--agent selects what is compared; a filter selecting nothing exits 2 naming it; the same run on both sides is said", async () => {
    const doc = join(dir("doc"), "jobs.json");
    expect(
      spawnCli([
        "score",
        new URL("fixtures/identity/harbor", import.meta.url).pathname,
        "--quiet",
        "--format",
        "json",
        "--out",
        doc,
      ]).code,
    ).toBeLessThanOrEqual(1);
    const all = comparisonSchema.parse(JSON.parse((await run(["compare", doc, doc, "--format", "json"])).stdout));
    expect(all.experiments.map((e) => [e.base, e.match])).toEqual([
      ["codex-job", "name"],
      ["old-job", "name"],
    ]);
    expect(all.notes.filter((n) => n.includes("a run compared with itself"))).toHaveLength(2);
    const codex = await run(["compare", doc, doc, "--agent", "codex", "--format", "json"]);
    expect(codex.code).toBe(0);
    expect(comparisonSchema.parse(JSON.parse(codex.stdout)).experiments.map((e) => e.base)).toEqual(["codex-job"]);
    const none = spawnCli(["compare", doc, doc, "--model", "claude-*"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no experiment matches --model 'claude-*' (of 4 in the documents)");
    // --pair: two kinds share no metric: refused; a name holding "=" is split where both sides name one.
    expect(spawnCli(["compare", doc, doc, "--pair", "codex-job=old-job"]).code).toBe(0);
    // Documents filtered differently still compare (filters select, never change a figure), and say so.
    const nop = join(dir("doc"), "nop.json");
    expect(
      spawnCli([
        "score",
        new URL("fixtures/identity/harbor", import.meta.url).pathname,
        "--agent",
        "nop",
        "--quiet",
        "--format",
        "json",
        "--out",
        nop,
      ]).code,
    ).toBeLessThanOrEqual(1);
    const filtered = comparisonSchema.parse(JSON.parse((await run(["compare", doc, nop, "--format", "json"])).stdout));
    expect(filtered.notes.some((n) => n.startsWith("the documents were filtered differently"))).toBe(true);
    // --since: the local (zone-less) start of old-job is on neither side of a date far from it: only codex-job is after.
    const since = spawnCli(["compare", doc, doc, "--since", "2026-06-01", "--format", "json"]);
    expect(since.code).toBe(0);
    expect(comparisonSchema.parse(JSON.parse(since.stdout)).experiments.map((e) => e.base)).toEqual(["codex-job"]);
  });
});
