// Issue 37's "done when", on real archives nobody here wrote (../shared/real-world), run as a new
// user would: the three event-summary Harbor jobs of one task by three agents (nop, oracle, codex)
// pair and rank without --pair, in one document and in three; --trend over them orders them by
// their recorded start; the popularity Inspect logs (six runs, four models) rank by their recorded
// benchmark; the fourteen `_inner` models of one task are listed, and since none of their logs
// records a score, nothing is ranked and the exit says so; every Harbor job shows its agent and
// model; two jobs of different tasks match nothing and exit 2 with a suggestion.

import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { comparisonSchema, rankingDocumentSchema } from "../src/core/compare/schema.js";
import { resultsSchema } from "../src/core/results.js";
import { run, spawnCli } from "./helpers/cli.js";
import { expectShared, freshFolders, runsWithShared, SHARED_DIR } from "./helpers/shared.js";

const REAL = join(SHARED_DIR, "real-world");
const RUNS = join(REAL, "harbor-jobs/PeterMakhnatch--eval-lab/research/evidence/runs");
const EVENT_SUMMARY = [
  "event-summary-nop-evidence",
  "event-summary-oracle-evidence",
  "canary-event-summary-codex-20260815",
];
const INNER = join(REAL, "inspect-more/YuehHanChen--ccot_oe_results/logs");
const POPULARITY = [
  ...[
    "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval",
    "2025-05-12T20-28-13-04-00_popularity.json",
    "log_formats.eval",
    "log_read_sample.eval",
    "log_streaming.eval",
  ].map((f) => join(REAL, "inspect", f)),
  join(
    REAL,
    "inspect-more/meridianlabs-ai--inspect_scout/tests/recorder/logs/2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval",
  ),
];
const folder = freshFolders("assay-identity-real-");

/** Scores `roots` into a JSON document; exit 0 or 1 (findings), never a tool failure. */
function score(roots: readonly string[], out: string): string {
  const r = spawnCli(["score", ...roots, "--quiet", "--format", "json", "--out", out]);
  expect(r.code, r.stderr).toBeLessThanOrEqual(1);
  return out;
}

describe.runIf(runsWithShared(RUNS))("issue 37 on real archives", () => {
  let dir: string;
  beforeAll(() => {
    expectShared(RUNS);
    dir = folder("real");
  });

  it("the three event-summary jobs in one document pair by their task set and rank, each with its agent and model", async () => {
    const doc = score(
      EVENT_SUMMARY.map((j) => join(RUNS, j)),
      join(dir, "event-summary.json"),
    );
    const r = await run(["compare", doc, "--format", "json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const ranked = rankingDocumentSchema.parse(JSON.parse(r.stdout));
    expect(new Set(ranked.experiments.map((e) => e.match))).toEqual(new Set(["tasks"]));
    const reward = ranked.experiments.find((e) => e.ranking.metric === "reward/reward/mean")!;
    expect(reward.ranking.reason).toBeNull();
    // Ties in the document's order (names in byte order).
    expect(reward.ranking.runs.map((x) => [x.run, x.value])).toEqual([
      ["canary-event-summary-codex-20260815", 1],
      ["event-summary-oracle-evidence", 1],
      ["event-summary-nop-evidence", 0],
    ]);
    expect(reward.members.map((m) => [m.run, m.identity?.agent, m.identity?.model])).toEqual([
      ["canary-event-summary-codex-20260815", "codex", "gpt-5.6-terra"],
      ["event-summary-nop-evidence", "nop", null],
      ["event-summary-oracle-evidence", "oracle", null],
    ]);
    const table = (await run(["compare", doc])).stdout;
    expect(table).toContain("matched by task set (the same tasks, no benchmark recorded)");
    expect(table).toMatch(/canary-event-summary-codex-20260815 +codex \/ gpt-5\.6-terra +2026-08-15T06:57:23\.206Z/);
  });

  it("in three documents, the same three pair by task set without --pair; --by name matches nothing and exits 2 with what to do", async () => {
    const docs = EVENT_SUMMARY.map((j) => score([join(RUNS, j)], join(dir, `${j}.json`)));
    const r = await run(["compare", ...docs, "--format", "json"]);
    expect(r.code).toBe(0);
    const ranked = rankingDocumentSchema.parse(JSON.parse(r.stdout));
    expect(ranked.experiments.every((e) => e.match === "tasks" && e.ranking.runs.length === 3)).toBe(true);
    expect(ranked.experiments[0]!.members.map((m) => m.run)).toEqual(
      EVENT_SUMMARY.map((j) => `${join(dir, j)}.json: ${j}`),
    );
    const byName = spawnCli(["compare", ...docs, "--by", "name"]);
    expect(byName.code).toBe(2);
    expect(byName.stderr).toContain("assay compare: nothing compared: no two runs share a name (--by name)");
    expect(byName.stderr).toContain("--pair R1_NAME=R2_NAME=R3_NAME");
  });

  it("--trend over the three: ordered by their recorded start, a slope per run; one task is one cluster, so no interval, and it says why", async () => {
    const doc = join(dir, "event-summary.json");
    if (!existsSync(doc))
      score(
        EVENT_SUMMARY.map((j) => join(RUNS, j)),
        doc,
      );
    const r = await run(["compare", doc, "--trend", "--format", "json"]);
    expect(r.code).toBe(0);
    const trend = rankingDocumentSchema
      .parse(JSON.parse(r.stdout))
      .experiments.find((e) => e.ranking.metric === "reward/reward/mean")!.trend!;
    expect(trend.runs.map((x) => [x.run, x.position, x.value])).toEqual([
      ["event-summary-oracle-evidence", 0, 1],
      ["event-summary-nop-evidence", 1, 0],
      ["canary-event-summary-codex-20260815", 2, 1],
    ]);
    expect(trend.slope).toBe(0);
    expect([trend.interval, trend.verdict, trend.clusters]).toEqual([null, "not estimated", 1]);
    expect(trend.reason).toBe("one unit held by two runs or more: no cluster-robust interval from a single cluster");
    expect(trend.assumes).toMatch(/start-time order/);
  });

  it("the popularity logs: six runs of four models, one benchmark, ranked", async () => {
    const logs = folder("popularity");
    for (const f of POPULARITY) cpSync(f, join(logs, f.split("/").pop()!));
    const doc = score([logs], join(dir, "popularity.json"));
    const r = await run(["compare", doc, "--format", "json"]);
    expect(r.code).toBe(0);
    const ranked = rankingDocumentSchema.parse(JSON.parse(r.stdout));
    const e = ranked.experiments.find((x) => x.experiment.startsWith("popularity"))!;
    expect(e.match).toBe("benchmark");
    expect(e.members).toHaveLength(6);
    expect(new Set(e.members.map((m) => m.identity?.model)).size).toBe(4);
    expect(e.ranking.reason).toBeNull();
    // Every run that counted a sample is ranked; the one that counted none is listed, not ranked.
    expect(e.ranking.runs.filter((x) => x.group !== null)).toHaveLength(5);
  });

  it("the fourteen _inner models of one task: listed with their models, none ranked (no log records a score), exit 2 and the gate fails", async () => {
    const doc = score([INNER], join(dir, "inner.json"));
    const r = spawnCli(["compare", doc, "--format", "json"]);
    expect(r.code).toBe(2);
    const ranked = rankingDocumentSchema.parse(JSON.parse(r.stdout));
    expect(ranked.experiments).toEqual([]);
    expect(ranked.unscored).toHaveLength(1);
    const u = ranked.unscored[0]!;
    expect([u.match, u.members.length, new Set(u.members.map((m) => m.identity?.model)).size]).toEqual([
      "benchmark",
      14,
      14,
    ]);
    expect(u.reason).toContain("no run of the group records a score");
    expect(r.stderr).toContain("assay compare: nothing compared:");
    expect(r.stderr).toContain("no run of the group records a score");
  });

  it("every Harbor job with a trial shows its agent, and its model where the evidence records one", () => {
    const owners = readdirSync(join(REAL, "harbor-jobs")).filter((d) => d.includes("--"));
    const doc = score(
      owners.map((o) => join(REAL, "harbor-jobs", o)),
      join(dir, "harbor.json"),
    );
    const results = resultsSchema.parse(JSON.parse(readFileSync(doc, "utf8")));
    const jobs = results.experiments.filter(
      (x) =>
        x.profile === "harbor" &&
        x.experiment !== null &&
        results.bundles.some((b) => b.experiment === x.experiment && b.profile === "harbor"),
    );
    expect(jobs.length).toBeGreaterThan(20);
    for (const x of jobs) {
      expect(x.identity?.agent, x.experiment!).not.toBeNull();
      // nop and oracle run no model: null, never a guess.
      if (!["nop", "oracle"].includes(String(x.identity?.agent)))
        expect(x.identity?.model, x.experiment!).not.toBeNull();
    }
  });

  it("two jobs of different tasks match nothing: exit 2, naming both and suggesting --pair", async () => {
    const [a, b] = [
      "canary-transaction-reconciliation-codex-20260815",
      "canary-terminal-bench-html-js-filter-codex-20260815",
    ].map((j) => score([join(RUNS, j)], join(dir, `${j}.json`)));
    const r = spawnCli(["compare", a!, b!]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/nothing compared/);
    expect(r.stdout).not.toMatch(/no regression/i);
    expect(r.stderr).toContain(
      "only in BASE: canary-transaction-reconciliation-codex-20260815; only in HEAD: canary-terminal-bench-html-js-filter-codex-20260815",
    );
    expect(r.stderr).toContain(
      "--pair 'canary-transaction-reconciliation-codex-20260815=canary-terminal-bench-html-js-filter-codex-20260815'",
    );
    // The neighbour: named with --pair, they are compared (tasks differ, so no unit pairs: the gate fails on that, not on nothing matched).
    const paired = await run([
      "compare",
      a!,
      b!,
      "--pair",
      "canary-transaction-reconciliation-codex-20260815=canary-terminal-bench-html-js-filter-codex-20260815",
      "--format",
      "json",
    ]);
    expect(paired.code).toBe(0);
    expect(comparisonSchema.parse(JSON.parse(paired.stdout)).experiments.map((e) => e.match)).toEqual(["pair"]);
  });
});
