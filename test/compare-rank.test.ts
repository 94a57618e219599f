// §13.6: three or more runs ranked. Holm's adjustment against a worked example, tie groups, the
// paired t p-values of a ranking against closed forms (Student's t with 3 degrees of freedom has
// F(t) = ½ + (1/π)·(u/(1 + u²) + atan u), u = t/√3), and the ranking through the CLI (in-process,
// and a spawned `node dist/cli.js` for the exit code of --fail-on regression).

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Side } from "../src/core/compare/compare.js";
import { rankRuns, uncompared } from "../src/core/compare/rank.js";
import { rankingDocumentSchema } from "../src/core/compare/schema.js";
import type { Units } from "../src/core/compare/trials.js";
import { holm, tieGroups } from "../src/core/stats/paired.js";
import { blankExperiment, type Experiment, type Results } from "../src/core/results.js";
import { writeBigResults } from "./helpers/big-results.js";
import { run, spawnCli } from "./helpers/cli.js";
import { transcriptMisses } from "./helpers/docs.js";
import { float, writeJob } from "./helpers/harbor.js";
import { scratch } from "./helpers/shared.js";

const close = (actual: number | null | undefined, expected: number, tol = 1e-6) =>
  expect(Math.abs(actual! - expected)).toBeLessThan(tol);

describe("Holm's step-down adjustment", () => {
  it("p = 0.01, 0.04, 0.03, 0.005 → 0.03, 0.06, 0.06, 0.02", () => {
    // Sorted: 0.005·4 = 0.02; 0.01·3 = 0.03; 0.03·2 = 0.06; 0.04·1 = 0.04, raised to the running
    // maximum 0.06. Back in input order: 0.03, 0.06, 0.06, 0.02.
    const adjusted = holm([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((v, i) => close(adjusted[i], v, 1e-15));
  });
  it("caps at 1", () => expect(holm([0.6, 0.7])).toEqual([1, 1]));
});

describe("tie groups down a ranking", () => {
  const adjusted = (table: Record<string, number>) => (a: number, b: number) => table[a < b ? `${a}${b}` : `${b}${a}`]!;
  it("the best run's group takes every run not significantly below it; the next ungrouped run opens the next", () => {
    const groups = tieGroups(
      [0, 1, 2, 3],
      adjusted({ "01": 0.2, "02": 0.01, "03": 0.001, "12": 0.3, "13": 0.04, "23": 0.5 }),
    );
    expect([...groups]).toEqual([
      [0, 1],
      [1, 1],
      [2, 2],
      [3, 2],
    ]);
  });
  it("a run may join the leader's group past one that did not", () => {
    const groups = tieGroups([0, 1, 2], adjusted({ "01": 0.01, "02": 0.06, "12": 0.9 }));
    expect([...groups]).toEqual([
      [0, 1],
      [2, 1],
      [1, 2],
    ]);
  });
});

describe("a ranking of three runs, by hand", () => {
  const run: Results["run"] = {
    tool_version: "0.1.0",
    scoring_version: 7,
    started_at: "2026-12-01T00:00:00.000Z",
    complete: true,
    shard: null,
    roots: ["r"],
    options: {
      invalid: "count",
      resource_bound: "default",
      errors: "exclude",
      schedules: [],
      hmac_key: null,
      filters: null,
    },
    jobs: [],
    unrecognised: { count: 0, paths: [] },
  };
  /** A native run of the trials `ids` with these values (fractional values stand in for scores), optionally clustered. */
  const side = (
    file: string,
    outcomes: number[],
    ids = ["a", "b", "c", "d", "e", "f"].slice(0, outcomes.length),
    clusters?: string[],
  ): Side => {
    const x = blankExperiment("x", "native-game", outcomes.length);
    const k = outcomes.reduce((a, b) => a + b, 0);
    x.accuracy = {
      value: k / outcomes.length,
      victories: k,
      scored: outcomes.length,
      wilson95: null,
      interval: null,
      interval_reason: "hand-built",
    };
    const units: Units = {
      unit: "trial",
      ids,
      values: Float64Array.from(outcomes),
      checksums: null,
      reason: null,
      clusters: clusters ?? null,
    };
    return { file, run, experiments: [x], units: new Map([[x, new Map([["accuracy", units]])]]) };
  };
  const p3 = (t: number) => {
    const u = Math.abs(t) / Math.sqrt(3);
    return 2 * (1 - (0.5 + (u / (1 + u * u) + Math.atan(u)) / Math.PI));
  };

  it("binary trials, none sharing a task: exact McNemar gives p (§13.7), one group", () => {
    // R1 = 1 1 1 0 (0.75), R2 = 0 1 0 0 (0.25), R3 = 1 1 1 1 (1).
    // R1→R2: b = 2 (pass→fail), c = 0: p = min(1, 2·P(X ≤ 0)), X ~ Bin(2, ½) = 2·¼ = 0.5.
    // R1→R3: b = 0, c = 1: 2·P(X ≤ 0), X ~ Bin(1, ½) = 2·½ = 1.
    // R2→R3: b = 0, c = 3: 2·⅛ = 0.25.
    // Holm: 0.25·3 = 0.75; 0.5·2 = 1; 1 → p_holm 1, 1, 0.75: one group. (Before: paired t, p 0.18, 0.39, 0.058.)
    const doc = rankRuns([side("r1.json", [1, 1, 1, 0]), side("r2.json", [0, 1, 0, 0]), side("r3.json", [1, 1, 1, 1])]);
    const r = doc.experiments[0]!.ranking;
    expect([r.metric, r.units, r.reason]).toEqual(["accuracy", 4, null]);
    expect(r.runs.map((x) => [x.run, x.value, x.headline.value, x.group, x.interval_reason])).toEqual([
      ["r3.json", 1, 1, 1, "hand-built"],
      ["r1.json", 0.75, 0.75, 1, "hand-built"],
      ["r2.json", 0.25, 0.25, 1, "hand-built"],
    ]);
    expect(r.pairs.map((p) => [p.a, p.b, p.units, p.mean_diff, p.test, p.clusters])).toEqual([
      ["r1.json", "r2.json", 4, -0.5, "mcnemar", null],
      ["r1.json", "r3.json", 4, 0.25, "mcnemar", null],
      ["r2.json", "r3.json", 4, 0.75, "mcnemar", null],
    ]);
    [
      [0.5, 1],
      [1, 1],
      [0.25, 0.75],
    ].forEach(([p, q], k) => (close(r.pairs[k]!.p, p!, 1e-12), close(r.pairs[k]!.p_holm, q!, 1e-12)));
    expect(doc.regressions).toEqual([]);
  });

  it("fractional units: the paired t (closed form with 3 degrees of freedom)", () => {
    // The same patterns halved: every difference halves with its SE, so t is as for 0/1 units.
    // R1→R2: d = −½ 0 −½ 0, mean −0.25, s² = 1/12, SE = √(1/48) = 0.144338, t = −√3 (u = 1):
    //   p = 2(1 − F), F = ½ + (½ + π/4)/π: p = 0.181690.
    // R1→R3: d = 0 0 0 ½, mean 0.125, SE = 0.125, t = 1: p = 0.391002. R2→R3: d = ½ 0 ½ ½, t = 3: p = 0.057672.
    // Holm: 0.057672·3 = 0.173016; 0.181690·2 = 0.363380; 0.391002.
    const r = rankRuns([
      side("r1.json", [0.5, 0.5, 0.5, 0]),
      side("r2.json", [0, 0.5, 0, 0]),
      side("r3.json", [0.5, 0.5, 0.5, 0.5]),
    ]).experiments[0]!.ranking;
    close(p3(-Math.sqrt(3)), 0.18169, 1e-5); // the closed form itself, against the figures above
    expect(r.pairs.map((p) => p.test)).toEqual(["paired-t", "paired-t", "paired-t"]);
    close(r.pairs[0]!.p, p3(-Math.sqrt(3)));
    close(r.pairs[1]!.p, p3(1));
    close(r.pairs[2]!.p, p3(3));
    close(r.pairs[0]!.p_holm, 2 * p3(Math.sqrt(3)));
    close(r.pairs[1]!.p_holm, p3(1));
    close(r.pairs[2]!.p_holm, 3 * p3(3));
  });

  it("every difference the same: the exact sign test, never p = 0 (attack); identical runs: p = 1 (neighbour)", () => {
    // a = c = ¼ everywhere, b = ¾ everywhere: d(a, b) = +½ on each of 4 units, SE = 0.
    // Before: p = 0, b a group of its own. Now the sign test: p = 2·½⁴ = 0.125; Holm over
    // 0.125, 1, 0.125: 0.125·3 = 0.375, 0.125·2 = 0.25 → 0.375 (running maximum), 1: one group.
    const shifted = rankRuns([
      side("a", [0.25, 0.25, 0.25, 0.25]),
      side("b", [0.75, 0.75, 0.75, 0.75]),
      side("c", [0.25, 0.25, 0.25, 0.25]),
    ]).experiments[0]!.ranking;
    expect(shifted.pairs.map((p) => [p.test, p.p, p.p_holm])).toEqual([
      ["sign", 0.125, 0.375],
      ["none", 1, 1],
      ["sign", 0.125, 0.375],
    ]);
    expect(shifted.runs.map((x) => [x.run, x.group])).toEqual([
      ["b", 1],
      ["a", 1],
      ["c", 1],
    ]);
    const same = rankRuns([side("a", [0.5, 0, 0.5, 0]), side("b", [0.5, 0, 0.5, 0]), side("c", [0.5, 0, 0.5, 0])])
      .experiments[0]!.ranking;
    expect(same.pairs.map((p) => [p.mean_diff, p.test, p.p])).toEqual([
      [0, "none", 1],
      [0, "none", 1],
      [0, "none", 1],
    ]);
  });

  it("units sharing a task: the cluster-paired t over the tasks (df C − 1), not McNemar over the trials", () => {
    // Six trials in tasks A A B B C C. R1 = 1 1 1 1 0 0, R2 = 0 0 1 0 0 0, R3 = R1.
    // R1→R2: d = −1 −1 | 0 −1 | 0 0, mean −½. Per task Σ(d − d̄): A −1, B 0, C +1; Σ² = 2;
    //   SE_c = √(3/2 · 2)/6 = √3/6 = 0.288675; s_d/√P = √(6·¼/5)/√6 = √0.05 = 0.223607 (the floor,
    //   below SE_c); t = −½/(√3/6) = −√3 with 2 df: two-sided p = 1 − |t|/√(t² + 2) = 1 − √(3/5) = 0.225403.
    // R1→R3: every d 0: p = 1. R2→R3 mirrors R1→R2. Holm: 0.225403·3 = 0.676209 (twice, the running maximum), 1.
    // Unclustered (the honest neighbour) McNemar decides: b = 3, c = 0, p = 2·⅛ = 0.25.
    const tasks = ["A", "A", "B", "B", "C", "C"];
    const [v1, v2] = [
      [1, 1, 1, 1, 0, 0],
      [0, 0, 1, 0, 0, 0],
    ];
    const r = rankRuns([
      side("r1", v1, undefined, tasks),
      side("r2", v2, undefined, tasks),
      side("r3", v1, undefined, tasks),
    ]).experiments[0]!.ranking;
    const pt = 1 - Math.sqrt(3 / 5);
    close(pt, 0.225403, 1e-6);
    expect(r.pairs.map((p) => [p.test, p.clusters])).toEqual([
      ["cluster-paired-t", 3],
      ["none", 3],
      ["cluster-paired-t", 3],
    ]);
    close(r.pairs[0]!.p, pt, 1e-9);
    close(r.pairs[0]!.p_holm, 3 * pt, 1e-9);
    close(r.pairs[2]!.p_holm, 3 * pt, 1e-9);
    const plain = rankRuns([side("r1", v1), side("r2", v2), side("r3", v1)]).experiments[0]!.ranking;
    expect(plain.pairs.map((p) => [p.test, p.clusters])).toEqual([
      ["mcnemar", null],
      ["mcnemar", null],
      ["mcnemar", null],
    ]);
    [0.25, 1, 0.25].forEach((p, k) => close(plain.pairs[k]!.p, p, 1e-12));
  });

  it("one estimand: value, order and every difference over the units every run holds; mean_diff(a, b) = value_b − value_a exactly", () => {
    // R1 holds a..e, R2 a b c d f, R3 b c d e f: every run holds b c d.
    // R1 = a1 b0 c0 d0 e1: headline 2/5 = 0.4, over b c d 0.
    // R2 = a0 b1 c1 d0 f0: headline 0.4, over b c d 2/3.
    // R3 = b0.1 c0.2 d0.3 e1 f1: headline 2.6/5 = 0.52 (first by headline), over b c d 0.2.
    // Order by the common figure: R2 (2/3), R3 (0.2), R1 (0); before, R3 was first by its headline.
    const doc = rankRuns([
      side("r1", [1, 0, 0, 0, 1], ["a", "b", "c", "d", "e"]),
      side("r2", [0, 1, 1, 0, 0], ["a", "b", "c", "d", "f"]),
      side("r3", [0.1, 0.2, 0.3, 1, 1], ["b", "c", "d", "e", "f"]),
    ]);
    const e = doc.experiments[0]!;
    expect(e.ranking.units).toBe(3);
    expect(e.ranking.runs.map((x) => x.run)).toEqual(["r2", "r3", "r1"]);
    const value = new Map(e.ranking.runs.map((x) => [x.run, x.value!]));
    close(value.get("r2"), 2 / 3, 1e-15);
    close(value.get("r3"), 0.2, 1e-15);
    expect(value.get("r1")).toBe(0);
    expect(e.ranking.runs.map((x) => x.headline.value)).toEqual([0.4, 0.52, 0.4]);
    for (const p of e.ranking.pairs) {
      expect(p.mean_diff).toBe(value.get(p.b)! - value.get(p.a)!);
      expect(p.units).toBe(3);
    }
    expect(e.notes).toEqual([
      "accuracy, r1: 2 trials not held by every ranked run, left out of the ranked figure",
      "accuracy, r2: 2 trials not held by every ranked run, left out of the ranked figure",
      "accuracy, r3: 2 trials not held by every ranked run, left out of the ranked figure",
    ]);
    expect(uncompared(doc)).toEqual([]);
  });

  it("no unit every run holds: not ranked, no group, no pair, said so; one common unit: compared, every p = 1", () => {
    const doc = rankRuns([
      side("r1", [1, 0], ["a", "b"]),
      side("r2", [1, 1], ["b", "c"]),
      side("r3", [0, 1], ["c", "d"]),
    ]);
    const r = doc.experiments[0]!.ranking;
    expect([r.units, r.reason, r.pairs]).toEqual([
      0,
      "no trial is held by every run: nothing compared, not ranked",
      [],
    ]);
    expect(r.runs.map((x) => [x.run, x.value, x.group, x.headline.value])).toEqual([
      ["r1", null, null, 0.5],
      ["r2", null, null, 1],
      ["r3", null, null, 0.5],
    ]);
    expect(uncompared(doc)).toEqual(["x accuracy: no trial is held by every run: nothing compared, not ranked"]);
    // Every run holds trial b only: r1 0, r2 1, r3 0. One pair each: p = 1 (§13.7, P < 2), so one group.
    const one = rankRuns([
      side("r1", [1, 0], ["a", "b"]),
      side("r2", [1, 0], ["b", "c"]),
      side("r3", [0, 1], ["b", "d"]),
    ]);
    const o = one.experiments[0]!;
    expect(o.ranking.pairs.map((p) => [p.units, p.mean_diff, p.test, p.p])).toEqual([
      [1, 1, "none", 1],
      [1, 0, "none", 1],
      [1, -1, "none", 1],
    ]);
    expect(o.ranking.runs.map((x) => x.group)).toEqual([1, 1, 1]);
    expect(o.notes).toContain(
      "accuracy: one trial held by every ranked run: no test can tell runs apart from one pair (every p = 1)",
    );
    expect(uncompared(one)).toEqual([]);
  });

  it("R1 holds the experiment but no figure of it (every trial left out): listed as unranked, and the gate fails; another run so is only listed", () => {
    const without = (file: string): Side => {
      const x = blankExperiment("x", "native-game", 0);
      x.accuracy = null;
      return { file, run, experiments: [x], units: new Map([[x, new Map()]]) };
    };
    const doc = rankRuns([without("r1"), side("r2", [1, 0, 1]), side("r3", [1, 1, 0])]);
    expect(doc.experiments[0]!.ranking.runs.map((x) => x.run)).toEqual(["r2", "r3"]);
    expect(doc.unranked).toEqual([{ experiment: "x", metric: "accuracy", run: "r1" }]);
    expect(uncompared(doc)).toEqual(["x accuracy: R1 holds the experiment but no figure of it: not compared with R1"]);
    const other = rankRuns([side("r1", [1, 0, 1]), without("r2"), side("r3", [1, 1, 0])]);
    expect(other.unranked).toEqual([{ experiment: "x", metric: "accuracy", run: "r2" }]);
    expect(uncompared(other)).toEqual([]);
  });
});

describe("which units a ranking leaves out, and which runs", () => {
  const run: Results["run"] = {
    tool_version: "0.1.0",
    scoring_version: 7,
    started_at: "2026-12-01T00:00:00.000Z",
    complete: true,
    shard: null,
    roots: ["r"],
    options: {
      invalid: "count",
      resource_bound: "default",
      errors: "exclude",
      schedules: [],
      hmac_key: null,
      filters: null,
    },
    jobs: [],
    unrecognised: { count: 0, paths: [] },
  };
  /** A Harbor-like run of one reward key: its task units (values, task_checksums), or a reason it has none. */
  const side = (file: string, values: number[], checksums: (string | null)[], reason: string | null = null): Side => {
    const x = blankExperiment("job", "harbor", values.length);
    const reward = {
      mean: values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length,
      interval: null,
      interval_reason: "hand-built",
    };
    x.rewards = { reward: reward as unknown as NonNullable<Experiment["rewards"]>[string] };
    const units: Units = {
      unit: "task",
      ids: ["a", "b", "c"].slice(0, values.length),
      values: Float64Array.from(values),
      checksums,
      reason,
    };
    return { file, run, experiments: [x], units: new Map([[x, new Map([["reward/reward/mean", units]])]]) };
  };

  it("a task whose task_checksum differs between runs is left out of every run (attack); one recorded on one side only pairs by name (neighbour)", () => {
    // Task b: x, y, x — not one task across the runs. Task a: x, x and none (an older Harbor): kept, and said so.
    const doc = rankRuns([
      side("r1", [1, 0, 0.5], ["x", "x", "x"]),
      side("r2", [0, 1, 0.5], ["x", "y", "x"]),
      side("r3", [0.5, 1, 0], [null, "x", "x"]),
    ]);
    const e = doc.experiments[0]!;
    expect(e.ranking.units).toBe(2);
    expect(e.ranking.runs.map((x) => [x.run, x.value])).toEqual([
      ["r1", 0.75],
      ["r2", 0.25],
      ["r3", 0.25],
    ]);
    expect(e.notes).toEqual([
      "reward/reward/mean: task_checksum differs between runs for 1 task: left out (a changed task is not one unit)",
      "reward/reward/mean, r1: 1 task not held by every ranked run, left out of the ranked figure",
      "reward/reward/mean, r2: 1 task not held by every ranked run, left out of the ranked figure",
      "reward/reward/mean, r3: 1 task not held by every ranked run, left out of the ranked figure",
      "reward/reward/mean, r1 vs r3: task_checksum on one side only: 1 task paired by task name (an older Harbor records none)",
      "reward/reward/mean, r2 vs r3: task_checksum on one side only: 1 task paired by task name (an older Harbor records none)",
    ]);
  });

  it("a run without units of the metric is listed, not ranked; the others rank; R1 without units fails the gate", () => {
    const old = "the Inspect log's entry holds no per-sample values";
    const doc = rankRuns([
      side("r1", [1, 0, 1], ["x", "x", "x"]),
      side("r2", [], [], old),
      side("r3", [1, 1, 1], ["x", "x", "x"]),
    ]);
    const e = doc.experiments[0]!;
    expect(e.ranking.runs.map((x) => [x.run, x.value, x.group])).toEqual([
      ["r3", 1, 1],
      ["r1", 2 / 3, 1],
      ["r2", null, null],
    ]);
    expect(e.ranking.pairs.map((p) => [p.a, p.b])).toEqual([["r1", "r3"]]);
    expect(e.notes).toContain(`reward/reward/mean, r2: ${old}: not ranked`);
    expect(uncompared(doc)).toEqual([]);
    const r1Without = rankRuns([
      side("r2", [], [], old),
      side("r1", [1, 0, 1], ["x", "x", "x"]),
      side("r3", [1, 1, 1], ["x", "x", "x"]),
    ]);
    expect(uncompared(r1Without)).toEqual(["job reward/reward/mean: R1 holds no task of it: not compared with R1"]);
  });
});

describe("three runs through the CLI", () => {
  const { at } = scratch("assay-compare-rank-");
  const N = 300;
  beforeAll(() => {
    writeBigResults(at("r1.json"), N, (i) => i % 3 === 0);
    writeBigResults(at("r2.json"), N, (i) => i % 3 === 0 || i % 10 === 1); // 20 winners of R1 lose
    writeBigResults(at("r3.json"), N, (i) => i % 3 === 0);
  });

  it("ranks R1 and R3 together, R2 below in a group of its own; JSON is the schema's document", async () => {
    const r = await run(["compare", at("r1.json"), at("r2.json"), at("r3.json"), "--format", "json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const doc = rankingDocumentSchema.parse(JSON.parse(r.stdout));
    expect(doc.runs.map((s) => s.file)).toEqual([at("r1.json"), at("r2.json"), at("r3.json")]);
    const e = doc.experiments[0]!;
    expect([e.experiment, e.unit, e.ranking.metric]).toEqual(["big", "trial", "accuracy"]);
    // The same value: command-line order, R1 before R3.
    expect(e.ranking.runs.map((x) => [x.run, x.value, x.headline.value, x.group])).toEqual([
      [at("r1.json"), 200 / 300, 200 / 300, 1],
      [at("r3.json"), 200 / 300, 200 / 300, 1],
      [at("r2.json"), 180 / 300, 180 / 300, 2],
    ]);
    // R1→R2: every trial 0/1 and none shares a task: exact McNemar, b = 20 pass→fail, c = 0:
    // p = 2·½²⁰ = 1.9073e-6 (before: the paired t over 299 df, 6e-6).
    const [p12, p13, p23] = e.ranking.pairs;
    expect([p12!.units, p12!.test, p13!.test]).toEqual([300, "mcnemar", "mcnemar"]);
    close(p12!.mean_diff, -20 / 300, 1e-15);
    close(p12!.p, 2 * 0.5 ** 20, 1e-18);
    expect([p13!.mean_diff, p13!.p, p13!.p_holm]).toEqual([0, 1, 1]);
    // R2→R3 mirrors R1→R2: the two smallest p are equal, Holm multiplies both by 3 (the running maximum).
    expect(p23!.p).toBe(p12!.p);
    close(p12!.p_holm, 3 * p12!.p, 1e-18);
    expect(doc.regressions).toEqual([{ experiment: "big", metric: "accuracy", run: at("r2.json") }]);
  });

  it("every format names the ranked figure, the headline, each p's test and what a group says, never 'tie' or 'equal'", async () => {
    const files = [at("r1.json"), at("r2.json"), at("r3.json")];
    const table = (await run(["compare", ...files])).stdout;
    expect(table).toContain(
      "ranked by the mean over 300 paired trials: the trials every ranked run holds; each run's headline",
    );
    expect(table).toContain("group  run");
    expect(table).toMatch(/mean over 300 paired trials +headline +headline 95% interval/);
    expect(table).toMatch(/r1\.json +\S*r2\.json +−6\.7 pts +exact McNemar +1\.9e-6 +5\.7e-6/);
    expect(table).toMatch(/1 regression: .*r2\.json big accuracy/);
    const md = (await run(["compare", ...files, "--format", "md"])).stdout;
    expect(md).toContain(
      "| group | run | agent / model | started | mean over 300 paired trials | headline | headline 95% interval |",
    );
    expect(md).toContain("| a | b | b − a | test | p | p (Holm) |");
    const html = (await run(["compare", ...files, "--format", "html"])).stdout;
    expect(html).toContain('<svg class="forest"');
    expect(html.match(/<circle class="pt"/g)).toHaveLength(3); // each headline
    expect(html.match(/<polygon class="rk"/g)).toHaveLength(3); // each ranked figure
    expect(html).toContain("<th>row − column (mean over 300 paired trials)</th>");
    expect(html).toContain("exact McNemar, p (Holm) 5.7e-6");
    expect(html).not.toMatch(/<script|src=|href=|@import|url\(/i);
    const json = (await run(["compare", ...files, "--format", "json"])).stdout;
    for (const out of [table, md, html]) expect(out).toContain("not distinguished at 95% (Holm over 3 pairs)");
    for (const out of [table, md, html, json]) expect(out).not.toMatch(/\btie|\btied\b|\bequal|equivalent/i);
  });

  it("--fail-on regression exits 1 when a run is significantly below R1 (spawned), 0 when R1 is the worst", () => {
    const below = spawnCli(["compare", at("r1.json"), at("r2.json"), at("r3.json"), "--fail-on", "regression"]);
    expect([below.code, below.stderr]).toEqual([1, ""]);
    expect(spawnCli(["compare", at("r2.json"), at("r1.json"), at("r3.json"), "--fail-on", "regression"]).code).toBe(0);
  });

  it("refuses a document scored under other options than R1's, in third place too", () => {
    const doc = JSON.parse(readFileSync(at("r3.json"), "utf8"));
    doc.run.options.errors = "zero";
    writeFileSync(at("zero.json"), JSON.stringify(doc));
    const r = spawnCli(["compare", at("r1.json"), at("r3.json"), at("zero.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /r1\.json and .*zero\.json were scored with different options \(--errors exclude vs zero\)/,
    );
  });
});

describe("rankings through the CLI where the old rules claimed too much (§13.7)", () => {
  const { at } = scratch("assay-compare-rank-137-");

  it("three one-trial runs, one flipped: p = 1 for every pair, one group, no regression exit (before: p = 0, a group of its own, exit 1)", () => {
    writeBigResults(at("one1.json"), 1, () => false);
    writeBigResults(at("one2.json"), 1, () => true); // R1's one trial, lost
    writeBigResults(at("one3.json"), 1, () => false);
    const files = [at("one1.json"), at("one2.json"), at("one3.json")];
    const r = spawnCli(["compare", ...files, "--format", "json", "--fail-on", "regression"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const e = rankingDocumentSchema.parse(JSON.parse(r.stdout)).experiments[0]!;
    expect(e.ranking.pairs.map((p) => [p.units, p.mean_diff, p.test, p.p, p.p_holm])).toEqual([
      [1, -1, "none", 1, 1],
      [1, 0, "none", 1, 1],
      [1, 1, "none", 1, 1],
    ]);
    expect(e.ranking.runs.map((x) => x.group)).toEqual([1, 1, 1]);
    expect(e.notes).toContain(
      "accuracy: one trial held by every ranked run: no test can tell runs apart from one pair (every p = 1)",
    );
  });

  it("runs that share no trial: not ranked and said so in every format; --fail-on regression fails (exit 1) and says why; a run sharing them passes", () => {
    writeBigResults(at("t.json"), 4, (i) => i === 0);
    const renamed = (file: string, letter: string) =>
      writeFileSync(
        at(file),
        readFileSync(at("t.json"), "utf8")
          .replaceAll('"t0000', `"${letter}0000`)
          .replaceAll("/t0000", `/${letter}0000`),
      );
    renamed("u.json", "u");
    renamed("v.json", "v");
    const files = [at("t.json"), at("u.json"), at("v.json")];
    const plain = spawnCli(["compare", ...files]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("not ranked: no trial is held by every run: nothing compared, not ranked");
    expect(plain.stdout).toContain(
      "nothing compared (--fail-on regression fails): big accuracy: no trial is held by every run",
    );
    const gate = spawnCli(["compare", ...files, "--fail-on", "regression"]);
    expect([gate.code, gate.stderr]).toEqual([
      1,
      "assay: --fail-on regression: big accuracy: no trial is held by every run: nothing compared, not ranked\n",
    ]);
    const doc = rankingDocumentSchema.parse(JSON.parse(spawnCli(["compare", ...files, "--format", "json"]).stdout));
    expect(doc.experiments[0]!.ranking.runs.map((x) => [x.value, x.headline.value, x.group])).toEqual([
      [null, 0.75, null],
      [null, 0.75, null],
      [null, 0.75, null],
    ]);
    expect(spawnCli(["compare", ...files, "--format", "md"]).stdout).toContain(
      "**Nothing compared** (--fail-on regression fails)",
    );
    expect(spawnCli(["compare", ...files, "--format", "html"]).stdout).toContain(
      '<p class="reg">Nothing compared (--fail-on regression fails)',
    );
    // The honest neighbour: the same three documents sharing their trials pass the gate.
    expect(spawnCli(["compare", at("t.json"), at("t.json"), at("t.json"), "--fail-on", "regression"]).code).toBe(0);
  });

  it("Harbor: ranked by the mean of task means, which here reverses the trial-weighted headlines' order", async () => {
    // Each run one job `rank-job`, key `reward`:
    //   A: t1 four trials 1 1 1 1, t2 one trial 0 → headline (trials) 4/5 = 0.8, task means 1 and 0 → 0.5
    //   B: t1 one trial 1, t2 four trials 1 1 0 0 → headline 3/5 = 0.6, task means 1 and ½ → 0.75
    //   C: t1 one trial 1, t2 one trial 0 → headline 0.5, task means → 0.5
    // Headlines order A, B, C; the ranked figure orders B (0.75), A (0.5), C (0.5, after A by command line).
    // Pairs over the tasks t1, t2 (fractional: paired t, 1 df, where two-sided p = 1 − (2/π)·atan|t|):
    //   A→B: d = 0, +½: mean +¼ = 0.75 − 0.5, s_d = √(2·(¼)²) = 0.353553, SE = ¼, t = 1: p = ½.
    //   A→C: task means 1, 0 on both sides, all 0/1: exact McNemar (reading 11), no discordant task: p = 1.
    //   B→C: d = 0, −½: t = −1, p = ½.
    //   Holm: ½·3 → 1, ½·2 → 1, 1: one group; no regression.
    const jobs: Record<string, [string, number][]> = {
      A: [
        ["t1", 1],
        ["t1", 1],
        ["t1", 1],
        ["t1", 1],
        ["t2", 0],
      ],
      B: [
        ["t1", 1],
        ["t2", 1],
        ["t2", 1],
        ["t2", 0],
        ["t2", 0],
      ],
      C: [
        ["t1", 1],
        ["t2", 0],
      ],
    };
    for (const [job, trials] of Object.entries(jobs)) {
      const root = at(`harbor-${job}`);
      mkdirSync(root);
      writeJob(
        root,
        "rank-job",
        trials.map(([task, v], k) => ({
          name: `${task}__${k}`,
          task,
          rewards: { reward: float(v) },
          extra: { id: `${job}/${task}__${k}` },
        })),
      );
      const s = await run(["score", root, "--format", "json", "--out", at(`harbor-${job}.json`), "--quiet"]);
      expect([s.code, s.stderr]).toEqual([0, ""]);
    }
    const files = ["A", "B", "C"].map((r) => at(`harbor-${r}.json`));
    const r = await run(["compare", ...files, "--format", "json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const e = rankingDocumentSchema.parse(JSON.parse(r.stdout)).experiments[0]!;
    expect([e.unit, e.ranking.metric, e.ranking.units]).toEqual(["task", "reward/reward/mean", 2]);
    expect(e.ranking.runs.map((x) => [x.run, x.value, x.headline.value, x.group])).toEqual([
      [files[1], 0.75, 0.6, 1],
      [files[0], 0.5, 0.8, 1],
      [files[2], 0.5, 0.5, 1],
    ]);
    expect(e.ranking.pairs.map((p) => [p.a, p.b, p.mean_diff, p.test])).toEqual([
      [files[0], files[1], 0.25, "paired-t"],
      [files[0], files[2], 0, "mcnemar"],
      [files[1], files[2], -0.25, "paired-t"],
    ]);
    close(e.ranking.pairs[0]!.p, 0.5, 1e-9);
    close(e.ranking.pairs[2]!.p, 0.5, 1e-9);
    expect(e.ranking.pairs.map((p) => p.p_holm)).toEqual([1, 1, 1]);
    const table = (await run(["compare", ...files])).stdout;
    expect(table).toContain("ranked by the mean over 2 paired tasks (each task's value the mean of its trials)");
    expect(table).toMatch(/1 +\S*harbor-B\.json +.+? +75\.0% +60\.0%/);
  });
});

describe("docs/metrics.md's worked example: four runs, Holm over six pairs, groups", () => {
  const { dir } = scratch("assay-compare-rank-docs-");
  beforeAll(() => {
    // A wins trials 1–10 of 12, B 1–8, C 1–3, D 1 (indices from 0).
    for (const [file, wins] of [
      ["a.json", 10],
      ["b.json", 8],
      ["c.json", 3],
      ["d.json", 1],
    ] as const)
      writeBigResults(join(dir, file), 12, (i) => i >= wins);
  });
  const files = ["a.json", "b.json", "c.json", "d.json"];

  it("the figures worked by hand on the page", () => {
    const r = spawnCli(["compare", ...files, "--format", "json", "--fail-on", "regression"], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([1, ""]);
    const doc = rankingDocumentSchema.parse(JSON.parse(r.stdout));
    const k = doc.experiments[0]!.ranking;
    // McNemar, every flip one way: p = 2·½^b with b = 2, 7, 9, 5, 7, 2 (A→B, A→C, A→D, B→C, B→D, C→D).
    const p = [2, 7, 9, 5, 7, 2].map((b) => Math.min(1, 2 * 0.5 ** b));
    // Holm, by hand: A→D 6p, A→C 5p, B→D 4p raised to A→C's, B→C 3p, A→B 2p capped at 1, C→D raised to 1.
    const holmByHand = [1, 0.078125, 0.0234375, 0.1875, 0.078125, 1];
    expect(k.pairs.map((q) => q.test)).toEqual(Array(6).fill("mcnemar"));
    k.pairs.forEach((q, i) => (close(q.p, p[i]!, 1e-15), close(q.p_holm, holmByHand[i]!, 1e-15)));
    expect(k.runs.map((x) => [x.run, x.group])).toEqual([
      ["a.json", 1],
      ["b.json", 1],
      ["c.json", 1],
      ["d.json", 2],
    ]);
    expect(doc.regressions).toEqual([{ experiment: "big", metric: "accuracy", run: "d.json" }]);
  });

  it("the page's block is what the CLI prints", () => {
    const page = readFileSync(new URL("../docs/metrics.md", import.meta.url), "utf8");
    const block = /<!-- worked example: four runs -->\n```\n([^]*?)```/.exec(page)![1]!.split("\n");
    const out = spawnCli(["compare", ...files], { cwd: dir }).stdout;
    expect(block.length).toBeGreaterThan(10);
    expect(transcriptMisses(block, out)).toEqual([]);
  });
});

describe("an Inspect ranking: samples by id", () => {
  const { dir } = scratch("assay-compare-rank-inspect-");

  it("one run thrice: ranked over the samples every run holds, each headline beside it, every p = 1 (McNemar for a one-epoch binary scorer, reading 11), one group", async () => {
    expect(spawnCli(["demo", "--out", join(dir, "demo")]).code).toBe(0);
    const logs = join(dir, "logs.json");
    expect((await run(["score", join(dir, "demo/logs"), "--format", "json", "--out", logs, "--quiet"])).code).toBe(0);
    // Three runs with the same outcomes (copies of one, started at other times: a given document thrice is one run, never ranked against itself).
    const rerun = (n: number) => {
      const d = JSON.parse(readFileSync(logs, "utf8"));
      for (const x of d.experiments)
        if (x.identity?.started_at)
          x.identity.started_at = x.identity.started_at.replace(/^\d{4}/, (y: string) => String(Number(y) + n));
      const out = join(dir, `logs-${n}.json`);
      writeFileSync(out, JSON.stringify(d));
      return out;
    };
    const r = await run(["compare", logs, rerun(1), rerun(2), "--format", "json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const clean = rankingDocumentSchema
      .parse(JSON.parse(r.stdout))
      .experiments.find((e) => e.experiment.startsWith("clean-0"))!;
    expect([clean.unit, clean.ranking.metric, clean.ranking.units]).toEqual([
      "sample",
      "inspect/match/mean/accuracy/value",
      10,
    ]);
    expect(clean.ranking.runs.map((x) => [x.value, x.headline.value, x.group])).toEqual([
      [0.8, 0.8, 1],
      [0.8, 0.8, 1],
      [0.8, 0.8, 1],
    ]);
    expect(clean.ranking.pairs.map((p) => [p.mean_diff, p.test, p.p, p.p_holm])).toEqual(
      Array(3).fill([0, "mcnemar", 1, 1]),
    );
  });
});
