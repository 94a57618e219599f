// §15.4 the projection of a results document to the Statement `assay attest` signs: §15.9's
// example rebuilt from the real Harbor job it names, then each profile's metrics and claims from the
// demo corpus and a Terminal-Bench run scored by the real CLI, the counts, the evidence leaves
// (entries and containers, per experiment), and the one pass over entries that lets a spilled
// document stream. Roots use a stand-in Merkle function (helpers/attest.ts): which leaves went in.
//
// Workers run compiled code (dist/): `npm run build` first.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { evaluateCriteria, parseCriteria } from "../src/core/attest/criteria.js";
import type { ExperimentProjection, Statement } from "../src/core/attest/statement.js";
import type { BundleEntry, Results } from "../src/core/results.js";
import { copy, demoDocument, project, scoreDocument, sha256, standInMerkle } from "./helpers/attest.js";
import { runsWithShared, scratch, SHARED_DIR } from "./helpers/shared.js";
import { writeRun } from "./helpers/terminal-bench.js";

const { fresh } = scratch("assay-attest-statement-");

const JOB = join(SHARED_DIR, "real-world/harbor-jobs/Imdhiraj007--Assignment/jobs/test-oracle");
const CONTRACT = join(SHARED_DIR, "design/bundle-contract.md");

/** §15.9's statement, as the contract prints it. */
function contractExample(): Statement {
  const text = readFileSync(CONTRACT, "utf8");
  const from = text.indexOf("**15.9 Example.**");
  const block = /```json\n([\s\S]*?)```/.exec(text.slice(from));
  if (from < 0 || block === null) throw new Error("no §15.9 example in the contract");
  return JSON.parse(block[1]!) as Statement;
}

/**
 * What depends on when and with what the example was made, or on another part of #39 (roots:
 * merkle.ts; the job folder's digest: containers): set to one placeholder on both sides, so
 * every other value and every key's order is compared.
 */
function normalised(s: Statement): Statement {
  const n = copy(s);
  n.subject[0]!.digest["sha256"] = "<document>";
  n.subject[1]!.digest["assayEvidenceMerkle1"] = "<root>";
  n.subject[1]!.annotations = { leaves: "<leaves>" };
  const p = n.predicate;
  Object.assign(p.harness, { scoringVersion: 0, runtime: "<runtime>", digest: { dirHash: "<dirHash>" } });
  Object.assign(p, { scoredAt: "<scoredAt>", attestedAt: "<attestedAt>" });
  Object.assign(p.evidence, { containers: "<containers>", merkleRoot: "<root>" });
  for (const e of p.experiments) e.evidence = { leaves: -1, merkleRoot: "<root>" };
  return n;
}

describe.runIf(runsWithShared(JOB))("§15.9's example from the real Harbor job it names", () => {
  let statement: Statement;
  let doc: Results;
  let bytes: Buffer;
  beforeAll(async () => {
    const scored = await scoreDocument([JOB], fresh("example"));
    doc = scored.doc;
    bytes = scored.bytes;
    const base = project(doc, scored.bytes);
    const criteria = parseCriteria(
      Buffer.from("test-oracle rewards/reward >= 0.5\ntest-oracle rewards/reward.lo >= 0.5\n"),
      "criteria.txt",
    );
    statement = {
      ...base,
      predicate: { ...base.predicate, ...evaluateCriteria(criteria, base.predicate.experiments) },
    };
  });

  it("is the contract's statement, field for field and in its order, but for times, roots and versions", () => {
    expect(JSON.stringify(normalised(statement), null, 1)).toBe(JSON.stringify(normalised(contractExample()), null, 1));
  });

  it("names the document by its bytes' digest and the evidence by its root over every entry", () => {
    const [docSubject, evidence] = statement.subject;
    expect(docSubject!.name).toBe("results.json");
    expect(docSubject!.digest["sha256"]).toBe(sha256(bytes));
    const entries = doc.bundles.map((b) => b.digest);
    expect(entries).toHaveLength(1);
    // Without container digests (another part of #39) the root is the one entry's.
    const containers = doc.run.jobs.flatMap((j) => ((j as { digest?: string }).digest === undefined ? [] : [j]));
    if (containers.length === 0) {
      expect(evidence!.digest["assayEvidenceMerkle1"]).toBe(standInMerkle(entries));
      expect(evidence!.annotations).toEqual({ leaves: 1 });
    }
    expect(statement.predicate.evidence.merkleRoot).toBe(evidence!.digest["assayEvidenceMerkle1"]);
    expect(statement.predicate.experiments[0]!.evidence.merkleRoot).toBe(statement.predicate.evidence.merkleRoot);
  });

  it("copies the document's run: versions, when it was scored, its options", () => {
    const p = statement.predicate;
    expect(p.harness).toMatchObject({
      name: "assay",
      version: doc.run.tool_version,
      scoringVersion: doc.run.scoring_version,
    });
    expect(p.scoredAt).toBe(doc.run.started_at);
    expect(Object.keys(p.options)).toEqual(["invalid", "resource_bound", "errors", "schedules", "hmac_key"]);
  });
});

const metricsOf = (s: Statement, experiment: string): ExperimentProjection =>
  s.predicate.experiments.find((e) => e.experiment === experiment)!;

describe("each profile's metrics and claims (the demo corpus, scored)", () => {
  let doc: Results;
  let s: Statement;
  beforeAll(async () => {
    const demo = await demoDocument(fresh("demo"));
    doc = demo.doc;
    s = project(doc, demo.bytes);
  });
  const experiment = (profile: string) => doc.experiments.find((e) => e.profile === profile)!;

  it("native: accuracy and completion, of the experiment's scheduled trials", () => {
    const e = experiment("native-game");
    const p = metricsOf(s, e.experiment!);
    expect(p.metrics.map((m) => m.name)).toEqual(["accuracy", "completion"]);
    const [acc, done] = p.metrics;
    expect(acc).toEqual({
      name: "accuracy",
      value: e.accuracy!.value,
      successes: e.accuracy!.victories,
      units: e.accuracy!.scored,
      planned: e.scheduled,
      clusters: e.accuracy!.interval!.clusters,
      interval: { method: e.accuracy!.interval!.method, lo: e.accuracy!.interval!.lo, hi: e.accuracy!.interval!.hi },
      intervalReason: null,
    });
    expect(done).toMatchObject({
      successes: e.completion!.completed,
      units: e.completion!.scheduled,
      planned: e.scheduled,
    });
    // Its summaries' claims are findings, not claims.
    expect(p.claims).toEqual([]);
    expect(p.invalidCodes["SUMMARY_MISMATCH"]).toBe(1);
  });

  it("world: pass and each dimension, passed/total divided", () => {
    const e = experiment("world");
    const p = metricsOf(s, e.experiment!);
    expect(p.metrics.map((m) => m.name)).toEqual(["pass", ...Object.keys(e.dimensions!).map((d) => `dimensions/${d}`)]);
    expect(p.metrics[0]).toMatchObject({
      value: e.pass!.passed / e.pass!.total,
      successes: e.pass!.passed,
      units: e.pass!.total,
    });
    expect(p.metrics.every((m) => m.planned === e.scheduled)).toBe(true);
  });

  it("world: a total of 0 is a null value, not a division", () => {
    const edited = copy(doc);
    const e = edited.experiments.find((x) => x.profile === "world")!;
    e.pass = { ...e.pass!, passed: 0, total: 0, interval: null, interval_reason: "no trial" };
    const p = metricsOf(project(edited), e.experiment!);
    expect(p.metrics[0]).toMatchObject({
      value: null,
      successes: 0,
      units: 0,
      interval: null,
      intervalReason: "no trial",
    });
  });

  it("harbor: rewards/<key> over covered of trials; its job's claim, differing", () => {
    const e = experiment("harbor");
    const p = metricsOf(s, e.experiment!);
    const r = e.rewards!["reward"]!;
    expect(p.metrics).toEqual([
      {
        name: "rewards/reward",
        value: r.mean,
        successes: null,
        units: r.covered,
        planned: r.trials,
        clusters: r.interval!.clusters,
        interval: { method: r.interval!.method, lo: r.interval!.lo, hi: r.interval!.hi },
        intervalReason: null,
      },
    ]);
    const c = e.claimed!.compared[0]!;
    expect(c.reason).not.toBeNull();
    expect(p.claims).toEqual([
      { source: e.claimed!.source, metric: c.metric, claimed: c.claimed, recounted: c.assay, verdict: "differs" },
    ]);
  });

  it("harbor: a claim assay cannot recount is unverified", () => {
    const edited = copy(doc);
    const e = edited.experiments.find((x) => x.profile === "harbor")!;
    e.claimed!.compared[0]!.assay = null;
    expect(metricsOf(project(edited), e.experiment!).claims[0]!.verdict).toBe("unverified");
  });

  it("swe-bench: rewards/resolved, and the final report's claims beside the recount", () => {
    const e = experiment("swe-bench");
    const p = metricsOf(s, e.experiment!);
    expect(p.metrics.map((m) => m.name)).toEqual(["rewards/resolved"]);
    expect(p.metrics[0]).toMatchObject({ value: e.rewards!["resolved"]!.mean, units: e.rewards!["resolved"]!.covered });
    expect(p.claims.map((c) => [c.metric, c.verdict])).toEqual(
      e.claimed!.compared.map((c) => [c.metric, c.reason === null ? "agrees" : "differs"]),
    );
    expect(p.claims.find((c) => c.metric === "resolved_instances")).toMatchObject({ claimed: 4, recounted: 2 });
  });

  it("inspect: its means and accuracies only; every metric it claims or checks", () => {
    const clean = doc.experiments.find((e) => e.experiment?.startsWith("clean-0"))!;
    const p = metricsOf(s, clean.experiment!);
    expect(p.metrics.map((m) => m.name)).toEqual(["inspect/match/mean/accuracy"]);
    expect(p.metrics[0]).toMatchObject({ units: 10, planned: 10, successes: null });
    expect(p.claims).toEqual([
      { source: "inspect log results", metric: "match/mean/accuracy", claimed: 0.8, recounted: 0.8, verdict: "agrees" },
      {
        source: "inspect log results",
        metric: "match/mean/stderr",
        claimed: clean.inspect!["match/mean/stderr"]!.claimed,
        recounted: clean.inspect!["match/mean/stderr"]!.value,
        verdict: "agrees",
      },
    ]);
    // A log cut short claims nothing assay could check.
    const killed = doc.experiments.find((e) => e.experiment?.startsWith("killed-0"))!;
    expect(metricsOf(s, killed.experiment!).claims).toEqual([]);
    const inflated = doc.experiments.find((e) => e.experiment?.startsWith("metric-inflated-0"))!;
    expect(metricsOf(s, inflated.experiment!).claims[0]).toMatchObject({ claimed: 0.6, verdict: "mismatch" });
  });

  it("counts: entries by validity, scheduled, missing, excluded, unscored; codes and flags byte-ordered", () => {
    const e = experiment("native-game");
    const p = metricsOf(s, e.experiment!);
    const mine = doc.bundles.filter((b) => b.experiment === e.experiment && b.profile === e.profile);
    expect(p.counts).toEqual({
      entries: mine.length,
      valid: mine.filter((b) => b.validity === "valid").length,
      invalid: mine.filter((b) => b.validity === "invalid").length,
      toolErrors: 0,
      scheduled: e.scheduled,
      missing: 0,
      excluded: 1,
      unscored: 0,
    });
    expect(Object.values(p.invalidCodes).reduce((a, b) => a + b, 0)).toBe(10);
    const codes = Object.keys(p.invalidCodes);
    expect(codes).toEqual([...codes].sort());
    expect(p.flags).toEqual({ SUPERSEDED: 3, UNTERMINATED_WITH_ENDING: 3 });
    const swe = metricsOf(s, experiment("swe-bench").experiment!);
    expect(swe.counts).toMatchObject({ missing: 1, excluded: 2 });
    // An entry with two codes counts once under each.
    expect(swe.invalidCodes).toEqual({ EXIT_CODE_CONTRADICTION: 1, REPORT_MISMATCH: 2 });
  });

  it("counts: a plan's absent trials count by their number; a tool error is neither valid nor invalid", () => {
    const edited = copy(doc);
    const e = edited.experiments.find((x) => x.profile === "harbor")!;
    e.missing = ["a", { count: 3, reason: "the job planned 3 more" }];
    const b = edited.bundles.find((x) => x.experiment === e.experiment)!;
    Object.assign(b, {
      validity: "error",
      digest: "",
      errors: [{ code: "TIMEOUT", file: null, line: null, message: "t" }],
    });
    const p = metricsOf(project(edited), e.experiment!);
    expect(p.counts).toMatchObject({ missing: 4, toolErrors: 1 });
    expect(p.invalidCodes["TIMEOUT"]).toBe(1);
    // An entry without a digest is counted, and is no leaf.
    const before = metricsOf(s, e.experiment!);
    expect(p.counts.entries).toBe(before.counts.entries);
    expect(p.evidence.leaves).toBe(before.evidence.leaves - 1);
  });

  it("evidence: every entry and every container is a leaf of the archive's root; every entry of its experiment's", () => {
    const all = doc.bundles.map((b) => b.digest);
    const containers = [...doc.run.jobs, ...Object.values(doc.run.containers ?? {}).flat()].map(
      (c) => (c as { digest?: string | null }).digest,
    );
    expect(containers.length).toBeGreaterThan(0); // the demo's Harbor job and SWE-bench model folder (§10's digest)
    expect(containers.every((d) => typeof d === "string")).toBe(true);
    const leaves = [...all, ...(containers as string[])];
    expect(s.predicate.evidence).toEqual({
      entries: all.length,
      containers: containers.length,
      merkleRoot: standInMerkle(leaves),
    });
    expect(s.subject[1]!.annotations).toEqual({ leaves: leaves.length });
    for (const e of s.predicate.experiments) {
      const mine = doc.bundles.filter((b) => b.experiment === e.experiment && b.profile === e.profile);
      const own = doc.experiments.find((x) => x.experiment === e.experiment && x.profile === e.profile)!;
      // An experiment with a container (a job, a model folder) has it as one more leaf.
      expect(e.evidence.leaves).toBe(mine.length + (own.job === null ? 0 : 1));
    }
  });

  it("evidence: a container with a digest is a leaf of the archive and of the experiment it holds", () => {
    const edited = copy(doc);
    const job = "a".repeat(64);
    const swe = "b".repeat(64);
    const stray = "c".repeat(64);
    Object.assign(edited.run.jobs[0]!, { digest: job });
    const run = edited.run.containers!["swe-bench"]![0]!;
    Object.assign(run, { digest: swe });
    // A job no experiment holds (an empty folder's): in the archive's root only.
    edited.run.jobs.push({ ...copy(edited.run.jobs[0]!), path: "elsewhere", digest: stray } as never);
    const t = project(edited);
    expect(t.predicate.evidence.containers).toBe(3);
    expect(t.subject[1]!.annotations).toEqual({ leaves: doc.bundles.length + 3 });
    const harbor = edited.experiments.find((e) => e.profile === "harbor")!;
    expect(harbor.job).toBe(edited.run.jobs[0]!.path);
    const digestsOf = (e: Results["experiments"][number]) =>
      edited.bundles.filter((b) => b.experiment === e.experiment && b.profile === e.profile).map((b) => b.digest);
    expect(metricsOf(t, harbor.experiment!).evidence).toEqual({
      leaves: digestsOf(harbor).length + 1,
      merkleRoot: standInMerkle([...digestsOf(harbor), job]),
    });
    // A SWE-bench experiment names its run folder; its container is that folder's model folder.
    const sweExperiment = edited.experiments.find((e) => e.profile === "swe-bench")!;
    expect(sweExperiment.job).toBe(run.run);
    expect(metricsOf(t, sweExperiment.experiment!).evidence.merkleRoot).toBe(
      standInMerkle([...digestsOf(sweExperiment), swe]),
    );
    // Another model in the same run folder is not this experiment's.
    Object.assign(run, { model: "org__other" });
    expect(metricsOf(project(edited), sweExperiment.experiment!).evidence.leaves).toBe(digestsOf(sweExperiment).length);
  });

  it("reads the entries once, as an iterable: a streamed document gives the same statement", () => {
    let passes = 0;
    const entries = doc.bundles;
    const streamed = {
      format: doc.format,
      run: doc.run,
      experiments: doc.experiments,
      bundles: {
        *[Symbol.iterator](): Iterator<BundleEntry> {
          passes++;
          yield* entries;
        },
      },
    };
    expect(project(streamed, "x")).toEqual(project(doc, "x"));
    expect(passes).toBe(1);
  });

  it("is the same for the same document and inputs (only the document's bytes name it)", () => {
    expect(JSON.stringify(project(copy(doc), "x"))).toBe(JSON.stringify(project(doc, "x")));
    expect(project(doc, "y").subject[0]!.digest["sha256"]).toBe(sha256("y"));
  });
});

describe("terminal-bench: rewards/resolved and the run's claims", () => {
  it("projects a run scored by the real CLI", async () => {
    const root = fresh("tb");
    writeRun(join(root, "ev", "myrun"), {
      trials: [{ task: "hello" }, { task: "bye", parserResults: { test_a: "passed", test_b: "failed" } }],
    });
    const { doc } = await scoreDocument([join(root, "ev")], root);
    const e = doc.experiments.find((x) => x.profile === "terminal-bench")!;
    const p = metricsOf(project(doc), e.experiment!);
    expect(p.metrics.map((m) => m.name)).toEqual(["rewards/resolved"]);
    expect(p.metrics[0]).toMatchObject({ value: 0.5, successes: null, units: 2, planned: 2 });
    expect(p.claims.length).toBeGreaterThan(0);
    expect(p.claims.every((c) => c.source === e.claimed!.source && c.verdict === "agrees")).toBe(true);
    expect(p.counts).toMatchObject({ entries: 2, valid: 2 });
  });
});
