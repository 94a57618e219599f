// §13.6: three or more runs ranked. Holm's adjustment against a worked example, tie groups, the
// paired t p-values of a ranking against closed forms (Student's t with 3 degrees of freedom has
// F(t) = ½ + (1/π)·(u/(1 + u²) + atan u), u = t/√3), and the ranking through the CLI (in-process,
// and a spawned `node dist/cli.js` for the exit code of --fail-on regression).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Side } from "../src/core/compare/compare.js";
import { rankRuns } from "../src/core/compare/rank.js";
import { rankingDocumentSchema } from "../src/core/compare/schema.js";
import type { Units } from "../src/core/compare/trials.js";
import { holm, tieGroups } from "../src/core/stats/paired.js";
import { blankExperiment, type Results } from "../src/core/results.js";
import { writeBigResults } from "./helpers/big-results.js";
import { run, spawnCli } from "./helpers/cli.js";

const close = (actual: number | null | undefined, expected: number, tol = 1e-6) => expect(Math.abs(actual! - expected)).toBeLessThan(tol);

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
    const groups = tieGroups([0, 1, 2, 3], adjusted({ "01": 0.2, "02": 0.01, "03": 0.001, "12": 0.3, "13": 0.04, "23": 0.5 }));
    expect([...groups]).toEqual([[0, 1], [1, 1], [2, 2], [3, 2]]);
  });
  it("a run may join the leader's group past one that did not", () => {
    const groups = tieGroups([0, 1, 2], adjusted({ "01": 0.01, "02": 0.06, "12": 0.9 }));
    expect([...groups]).toEqual([[0, 1], [2, 1], [1, 2]]);
  });
});

describe("a ranking of three runs, by hand", () => {
  const run: Results["run"] = {
    tool_version: "0.1.0", scoring_version: 7, started_at: "2026-12-01T00:00:00.000Z", complete: true, shard: null, roots: ["r"],
    options: { invalid: "count", resource_bound: "default", errors: "exclude", schedules: [], hmac_key: null }, jobs: [], unrecognised: { count: 0, paths: [] },
  };
  const side = (file: string, outcomes: number[]): Side => {
    const x = blankExperiment("x", "native-game", 4);
    const k = outcomes.reduce((a, b) => a + b, 0);
    x.accuracy = { value: k / 4, victories: k, scored: 4, wilson95: null, interval: null, interval_reason: "hand-built" };
    const units: Units = { unit: "trial", ids: ["a", "b", "c", "d"], values: Float64Array.from(outcomes), checksums: null, reason: null };
    return { file, run, experiments: [x], units: new Map([[x, new Map([["accuracy", units]])]]) };
  };
  // R1 = 1 1 1 0 (0.75), R2 = 0 1 0 0 (0.25), R3 = 1 1 1 1 (1).
  // R1→R2: d = −1 0 −1 0, mean −0.5, s² = 1/3, SE = √(1/12), t = −√3 (u = 1): F = ½ + (½ + π/4)/π,
  //   p = 2(1 − F) = 0.181690.
  // R1→R3: d = 0 0 0 1, mean 0.25, s² = 0.25, SE = 0.25, t = 1 (u = 1/√3): p = 0.391002.
  // R2→R3: d = 1 0 1 1, mean 0.75, SE = 0.25, t = 3 (u = √3): p = 0.057672.
  // Holm: 0.057672·3 = 0.173016; 0.181690·2 = 0.363380; 0.391002 → every p_holm ≥ 0.05: one group.
  const p3 = (t: number) => {
    const u = Math.abs(t) / Math.sqrt(3);
    return 2 * (1 - (0.5 + (u / (1 + u * u) + Math.atan(u)) / Math.PI));
  };
  const doc = rankRuns([side("r1.json", [1, 1, 1, 0]), side("r2.json", [0, 1, 0, 0]), side("r3.json", [1, 1, 1, 1])]);
  const r = doc.experiments[0]!.ranking;
  it("runs best first, each with its own value and interval, one tie group", () => {
    expect(r.metric).toBe("accuracy");
    expect(r.runs.map((x) => [x.run, x.value, x.group, x.interval_reason])).toEqual([["r3.json", 1, 1, "hand-built"], ["r1.json", 0.75, 1, "hand-built"], ["r2.json", 0.25, 1, "hand-built"]]);
  });
  it("every pair: mean_diff, p of the paired t, Holm's p", () => {
    expect(r.pairs.map((p) => [p.a, p.b, p.units, p.mean_diff])).toEqual([["r1.json", "r2.json", 4, -0.5], ["r1.json", "r3.json", 4, 0.25], ["r2.json", "r3.json", 4, 0.75]]);
    close(p3(-Math.sqrt(3)), 0.18169, 1e-5); // the closed form itself, against the figures above
    close(r.pairs[0]!.p, p3(-Math.sqrt(3)));
    close(r.pairs[1]!.p, p3(1));
    close(r.pairs[2]!.p, p3(3));
    close(r.pairs[0]!.p_holm, 2 * p3(Math.sqrt(3)));
    close(r.pairs[1]!.p_holm, p3(1));
    close(r.pairs[2]!.p_holm, 3 * p3(3));
    expect(doc.regressions).toEqual([]);
  });
  it("identical runs: p = 1 (SE = 0, mean_diff 0); one pair with all differences equal and not 0: p = 0", () => {
    const same = rankRuns([side("a", [1, 0, 1, 0]), side("b", [1, 0, 1, 0]), side("c", [0, 0, 0, 0])]).experiments[0]!.ranking;
    expect(same.pairs.map((p) => [p.a, p.b, p.mean_diff])).toEqual([["a", "b", 0], ["a", "c", -0.5], ["b", "c", -0.5]]);
    expect(same.pairs[0]!.p).toBe(1);
    close(same.pairs[1]!.p, p3(-Math.sqrt(3)));
    const shifted = rankRuns([side("a", [0, 0, 0, 0]), side("b", [1, 1, 1, 1]), side("c", [0, 0, 0, 0])]).experiments[0]!.ranking;
    expect(shifted.pairs.map((p) => p.p)).toEqual([0, 1, 0]);
    // b above a and c with p_holm 0: its own group; a and c tie.
    expect(shifted.runs.map((x) => [x.run, x.group])).toEqual([["b", 1], ["a", 2], ["c", 2]]);
  });
});

describe("three runs through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "assay-compare-rank-"));
  const at = (p: string) => join(dir, p);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
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
    // Ties by command-line order: R1 before R3.
    expect(e.ranking.runs.map((x) => [x.run, x.value, x.group])).toEqual([[at("r1.json"), 200 / 300, 1], [at("r3.json"), 200 / 300, 1], [at("r2.json"), 180 / 300, 2]]);
    // d R1→R2: twenty −1 of 300, mean −1/15; Σ(d − mean)² = 20·(14/15)² + 280·(1/15)² = 4200/225;
    // SE = √(4200/225/299/300) = 0.0144256, t = −4.6214 with 299 degrees of freedom: p ≈ 6e-6.
    const [p12, p13, p23] = e.ranking.pairs;
    expect([p12!.units, p12!.mean_diff]).toEqual([300, -20 / 300]);
    expect(p12!.p).toBeGreaterThan(1e-6);
    expect(p12!.p).toBeLessThan(1e-5);
    expect([p13!.mean_diff, p13!.p, p13!.p_holm]).toEqual([0, 1, 1]);
    // R2→R3 mirrors R1→R2: the two smallest p are equal, Holm multiplies both by 3 (the running maximum).
    expect(p23!.p).toBe(p12!.p);
    close(p12!.p_holm, 3 * p12!.p, 1e-18);
    expect(doc.regressions).toEqual([{ experiment: "big", metric: "accuracy", run: at("r2.json") }]);
  });

  it("every format shows the ranking with its groups; the HTML a forest plot and the matrix of pairs", async () => {
    const files = [at("r1.json"), at("r2.json"), at("r3.json")];
    const table = (await run(["compare", ...files])).stdout;
    expect(table).toContain("accuracy, ranked (paired t over the trials each two runs count, Holm-adjusted)");
    expect(table).toMatch(/1 regression: .*r2\.json big accuracy/);
    const md = (await run(["compare", ...files, "--format", "md"])).stdout;
    expect(md).toContain("| group | run | value | 95% interval |");
    const html = (await run(["compare", ...files, "--format", "html"])).stdout;
    expect(html).toContain('<svg class="forest"');
    expect(html.match(/<circle class="pt"/g)).toHaveLength(3);
    expect(html).toContain("<th>row − column</th>");
    expect(html).not.toMatch(/<script|src=|href=|@import|url\(/i);
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
    expect(r.stderr).toMatch(/r1\.json and .*zero\.json were scored with different options \(--errors exclude vs zero\)/);
  });
});
