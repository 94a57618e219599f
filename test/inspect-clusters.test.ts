// Inspect samples paired in their clusters (contract §13.7, item 2 of issue 36): a results entry
// keeps each planned sample's cluster under the metadata key its scorer's `stderr(cluster=…)`
// names, and compare pairs the samples of two runs in those clusters (cluster-paired-t over the
// differences, C − 1 degrees of freedom). Real .json logs, scored and compared by the CLI; every
// expected figure is worked out by hand in the comments beside it (t quantiles: published tables).

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { pairedDifference } from "../src/core/stats/paired.js";
import { TrialOutcomes, OLDER_CLUSTERS, type Units } from "../src/core/compare/trials.js";
import { pairing } from "../src/core/compare/paired.js";
import type { Experiment } from "../src/core/results.js";
import { readShard } from "../src/io/shard-reader.js";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { sampleRecord } from "../src/kinds/inspect/sample.js";
import { recordBytes, scoreInspectLog } from "../src/kinds/inspect/read.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { inspectLogBytes } from "../src/synth/inspect.js";
import { zipBytes } from "../src/synth/zip.js";
import { editor, ok, refused } from "./helpers/documents.js";
import { scratch } from "./helpers/shared.js";
import { json, members, type Member } from "./helpers/inspect.js";

const { at } = scratch("assay-inspect-clusters-");
const edit = editor(at);

/** t(0.975, ν) and t(0.80, 2) (NIST/SEMATECH e-Handbook 1.3.6.7.2; for ν = 2 the closed form t_p² = 2a²/(1 − a²), a = 2p − 1: t(0.80, 2) = √(0.72/0.64) = √1.125). */
const T975 = { 2: 4.302652729749464, 3: 3.182446305284263, 11: 2.200985160082949 };
const T80_2 = Math.sqrt(1.125);

// Three tasks × four samples, accuracy 0/1:
//   task   BASE        HEAD        HEAD − BASE   Σd
//   A      1 1 1 0     1 1 1 1     0 0 0 1       1
//   B      1 0 0 0     1 1 1 0     0 1 1 0       2
//   C      1 1 0 0     1 0 0 0     0 −1 0 0     −1
// P = 12, Σd = 2, d̄ = 1/6.
const TASKS = ["A", "B", "C"];
const BASE = [1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0];
const HEAD = [1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0];
const D_BAR = 1 / 6;

/** Inspect's clustered stderr of the values (the log's own claim, so that it agrees): √(C/(C−1)·Σ_c(Σ(x − x̄))²)/n. */
function clusteredSe(xs: number[], task: (i: number) => string | undefined): number {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sums = new Map<string, number>();
  xs.forEach((x, i) => sums.set(task(i) ?? `#${i}`, (sums.get(task(i) ?? `#${i}`) ?? 0) + x - mean));
  const C = sums.size;
  return Math.sqrt((C / (C - 1)) * [...sums.values()].reduce((a, s) => a + s * s, 0)) / xs.length;
}

/** A .json log (Inspect 0.3.255) of one scorer `match` (accuracy, stderr) over samples 1..12, each with metadata task (`lacking`: these ids without it). */
function log(run: string, values: number[], o: { cluster: boolean; lacking?: number[]; errored?: number }) {
  const ids = values.map((_, i) => i + 1);
  const task = (i: number) => (o.lacking?.includes(i + 1) ? undefined : TASKS[Math.floor(i / 4)]!);
  const stderrParams = o.cluster ? { cluster: "task" } : {};
  const scored = values.filter((_, i) => i + 1 !== o.errored);
  const k = scored.reduce((a, b) => a + b, 0);
  const n = scored.length;
  const se = o.cluster ? clusteredSe(values, task) : Math.sqrt(((k / n) * (1 - k / n)) / (n - 1)); // claimed only without an errored sample
  return {
    version: 2,
    status: "success",
    eval: {
      eval_id: `e-${run}`,
      run_id: `r-${run}`,
      created: "2025-11-03T10:00:00+00:00",
      task: "clusters",
      task_id: "T1",
      model: "m/x",
      dataset: { name: "clusters", samples: n, sample_ids: ids },
      config: { epochs: 1, epochs_reducer: ["mean"] },
      packages: { inspect_ai: "0.3.255" },
      scorers: [
        {
          name: "match",
          options: {},
          metrics: [
            { name: "inspect_ai/accuracy", options: {} },
            { name: "inspect_ai/stderr", options: stderrParams },
          ],
          metadata: {},
        },
      ],
    },
    results: {
      total_samples: values.length,
      // With an errored sample the log's stderr claim is left out (the entry is judged on what it holds).
      scores: [
        {
          name: "match",
          scorer: "match",
          reducer: "mean",
          params: {},
          metrics: {
            accuracy: { name: "accuracy", value: k / n, params: {} },
            ...(o.errored === undefined ? { stderr: { name: "stderr", value: se, params: stderrParams } } : {}),
          },
        },
      ],
    },
    stats: { started_at: "2025-11-03T10:00:00+00:00", completed_at: "2025-11-03T10:05:00+00:00" },
    samples: values.map((v, i) => ({
      id: i + 1,
      epoch: 1,
      input: "q",
      target: "a",
      metadata: task(i) === undefined ? { other: 1 } : { task: task(i) },
      ...(i + 1 === o.errored
        ? { scores: {}, error: { message: "RuntimeError('boom')", traceback: "" } }
        : { scores: { match: { value: v === 1 ? "C" : "I" } } }),
    })),
  };
}

/** Both runs' logs scored into documents: `<name>-base.json`, `<name>-head.json`. */
async function documents(
  name: string,
  o: { cluster: boolean; lacking?: number[]; only?: "base"; errored?: number },
  flags: string[] = [],
): Promise<[string, string]> {
  const out: string[] = [];
  for (const [side, values] of [
    ["base", BASE],
    ["head", HEAD],
  ] as const) {
    const dir = at(`${name}-${side}`);
    mkdirSync(dir, { recursive: true });
    const only = (v: number[] | number | undefined) => (o.only === undefined || o.only === side ? v : undefined);
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_clusters_run.json"),
      JSON.stringify(
        log(`${name}-${side}`, values, {
          ...o,
          lacking: only(o.lacking) as number[] | undefined,
          errored: only(o.errored) as number | undefined,
        }),
      ),
    );
    await ok(["score", dir, "--format", "json", "--out", at(`${name}-${side}.json`), "--quiet", ...flags]);
    out.push(at(`${name}-${side}.json`));
  }
  return out as [string, string];
}

const METRIC = "inspect/match/mean/accuracy/value";

/** compare's JSON `paired` of the accuracy. */
async function paired(base: string, head: string) {
  const doc = JSON.parse((await ok(["compare", base, head, "--format", "json"])).stdout);
  return doc.experiments[0].metrics.find((m: any) => m.metric === METRIC).paired;
}

/** Each document's accuracy units as compare takes them (the real reader and TrialOutcomes), and the pairs' difference. */
function difference(base: string, head: string) {
  const units = (file: string): Units => {
    const t = new TrialOutcomes();
    const xs: Experiment[] = [];
    const run = readShard(
      file,
      (e) => t.add(e),
      (x) => xs.push(x),
    ).run;
    return t
      .take(
        xs.find((x) => x.profile === "inspect")!,
        run.options,
      )
      .get(METRIC)!;
  };
  const [b, h] = [units(base), units(head)];
  return { base: b, head: h, d: pairedDifference(pairing(b, h), "sample") };
}

let clustered: [string, string];
beforeAll(async () => {
  clustered = await documents("clustered", { cluster: true });
});

describe("the entry keeps each sample's cluster (§13.7)", () => {
  it("by the metadata key of the scorer's stderr(cluster=…), one per sample id, the same value the same cluster", () => {
    const e = JSON.parse(readFileSync(clustered[0], "utf8")).bundles.find((x: any) => x.profile === "inspect");
    expect(e.inspect.sample_ids).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]);
    // Names are the values as Inspect's clustering compares them ("s": a string), in order of first sight.
    expect(e.inspect.sample_clusters).toEqual({
      by: { "match/mean/accuracy": "task" },
      keys: { task: { names: ["sA", "sB", "sC"], of: [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2] } },
    });
    // The interval the clusters were the basis of: 12 samples in 3 tasks.
    expect(e.inspect.metrics["match/mean/accuracy"].exclude.interval).toMatchObject({ units: 12, clusters: 3 });
  });

  it("without a cluster key: no metric is clustered, no key kept", async () => {
    const [base] = await documents("plain", { cluster: false });
    const e = JSON.parse(readFileSync(base, "utf8")).bundles.find((x: any) => x.profile === "inspect");
    expect(e.inspect.sample_clusters).toEqual({ by: {}, keys: {} });
  });
});

describe("compare pairs the samples in their clusters", () => {
  it('3 tasks × 4 under stderr(cluster="task"): cluster-paired-t, 3 clusters, df 2', async () => {
    // Cluster sums of d − d̄: A 1 − 4/6 = 1/3, B 2 − 4/6 = 4/3, C −1 − 4/6 = −5/3; squares 1/9 + 16/9 + 25/9 = 14/3.
    // SE = √(C/(C−1) · 14/3)/P = √(3/2 · 14/3)/12 = √7/12 = 0.2204793…
    // The floor s_d/√P: Σd² = 4 (three 1s, one −1), Σ(d − d̄)² = 4 − 12/36 = 11/3, s_d² = (11/3)/11 = 1/3,
    // s_d/√P = √(1/3)/√12 = 1/6 < √7/12: the cluster-robust SE stands.
    // t = d̄/SE = (1/6)/(√7/12) = 2/√7; for df 2, P(|T| > t) = 1 − t/√(t² + 2) = 1 − (2/√7)/√(18/7) = 1 − √2/3 = 0.4714…→ p = 0.5285954…
    const SE = Math.sqrt(7) / 12;
    const p = await paired(...clustered);
    expect(p).toMatchObject({ unit: "sample", pairs: 12, only_base: 0, only_head: 0, unpaired: [] });
    expect(p.mean_diff).toBeCloseTo(D_BAR, 12);
    expect(p.interval.method).toBe("cluster-paired-t");
    expect(p.interval.lo).toBeCloseTo(D_BAR - T975[2] * SE, 9); // 1/6 − 0.948637… = −0.781970…
    expect(p.interval.hi).toBeCloseTo(D_BAR + T975[2] * SE, 9); // 1.115304…
    // mde80 = (t(0.975, 2) + t(0.80, 2))·SE = (4.302653 + 1.060660)·0.220479 = 1.182497…
    expect(p.mde80).toBeCloseTo((T975[2] + T80_2) * SE, 9);
    const { d, base } = difference(...clustered);
    expect(base.clusters).toEqual(["sA", "sA", "sA", "sA", "sB", "sB", "sB", "sB", "sC", "sC", "sC", "sC"]);
    expect(d).toMatchObject({ test: "cluster-paired-t", clusters: 3, df: 2 });
    expect(d.se).toBeCloseTo(SE, 14);
    expect(d.p).toBeCloseTo(1 - Math.SQRT2 / 3, 9);
  });

  it("the same logs without the cluster key: unclustered, binary, so exact McNemar decides; the paired-t interval beside it", async () => {
    // b (1→0) = 1 (task C), c (0→1) = 3; p = min(1, 2·P(X ≤ 1)), X ~ Binomial(4, ½): 2·(1 + 4)/16 = 0.625.
    // Interval: d̄ ± t(0.975, 11)·s_d/√P = 1/6 ± 2.200985·1/6 = [−0.200164…, 0.533497…].
    const [b, h] = await documents("plain", { cluster: false });
    const p = await paired(b, h);
    expect(p.interval.method).toBe("paired-t");
    expect(p.interval.lo).toBeCloseTo(D_BAR - T975[11] / 6, 9);
    expect(p.interval.hi).toBeCloseTo(D_BAR + T975[11] / 6, 9);
    const { d, base } = difference(b, h);
    expect(base.clusters).toBeNull();
    expect(d).toMatchObject({ test: "mcnemar", clusters: null, discordant: { b: 1, c: 3 }, regression: false });
    expect(d.p).toBeCloseTo(0.625, 14);
  });

  it("a sample lacking the key (id 4, in both runs): its interval is null, and it pairs in one cluster with any other such sample (4 clusters)", async () => {
    // Clusters: A = samples 1–3 (d 0 0 0), B, C as above, and "no task" = sample 4 (d = 1). d̄ = 1/6 still.
    // Sums of d − d̄: A 0 − 3/6 = −1/2, B 4/3, C −5/3, none 1 − 1/6 = 5/6;
    // squares 9/36 + 64/36 + 100/36 + 25/36 = 198/36 = 11/2. SE = √(4/3 · 11/2)/12 = √(22/3)/12 = 0.2256677… (> 1/6: no floor).
    const [b, h] = await documents("lacking", { cluster: true, lacking: [4] });
    const e = JSON.parse(readFileSync(b, "utf8")).bundles.find((x: any) => x.profile === "inspect");
    expect(e.inspect.sample_clusters.keys.task.of).toEqual([0, 0, 0, null, 1, 1, 1, 1, 2, 2, 2, 2]);
    expect(e.inspect.metrics["match/mean/accuracy"].exclude.interval).toBeNull();
    const SE = Math.sqrt(22 / 3) / 12;
    const p = await paired(b, h);
    expect(p.interval.method).toBe("cluster-paired-t");
    expect(p.interval.lo).toBeCloseTo(D_BAR - T975[3] * SE, 9);
    expect(p.interval.hi).toBeCloseTo(D_BAR + T975[3] * SE, 9);
    const note = '1 sample without metadata "task": clustered as the other run names it, else in one cluster together';
    expect(p.unpaired).toEqual([`BASE: ${note}`, `HEAD: ${note}`]);
    const { d } = difference(b, h);
    expect(d).toMatchObject({ test: "cluster-paired-t", clusters: 4, df: 3 });
    expect(d.se).toBeCloseTo(SE, 14);
  });

  it("a sample lacking the key in BASE only pairs in HEAD's cluster (reading 5: BASE's, else HEAD's): the 3-task figures", async () => {
    // Sample 4 is in HEAD's task A, so the clusters are those of the first case: SE = √7/12, df 2.
    const [b, h] = await documents("base-lacking", { cluster: true, lacking: [4], only: "base" });
    const { d, base, head } = difference(b, h);
    expect([base.clusters![3]!.startsWith("\u0000"), head.clusters![3]]).toEqual([true, "sA"]);
    expect(d).toMatchObject({ test: "cluster-paired-t", clusters: 3, df: 2 });
    expect(d.se).toBeCloseTo(Math.sqrt(7) / 12, 14);
    expect((await paired(b, h)).unpaired).toEqual([expect.stringMatching(/^BASE: 1 sample without metadata "task"/)]);
  });

  it("a sample out of the figure (errored, --errors exclude) has no unit, and each unit keeps its own cluster; under --errors zero it pairs as 0", async () => {
    // BASE's sample 2 (task A) errored. Excluded: 11 pairs; d̄ = (2 − 0)/11 (sample 2's d was 0) = 2/11.
    const byId = (u: Units) => Object.fromEntries(u.ids.map((id, i) => [id, u.clusters![i]]));
    const task = (id: string) => `s${TASKS[Math.floor((Number(id) - 1) / 4)]}`;
    const [b, h] = await documents("errored", { cluster: true, errored: 2, only: "base" });
    const ex = difference(b, h);
    expect(ex.base.ids).not.toContain("2");
    expect(Object.entries(byId(ex.base)).every(([id, c]) => c === task(id))).toBe(true);
    expect(ex.d).toMatchObject({ pairs: 11, clusters: 3, test: "cluster-paired-t" });
    expect(ex.d.mean_diff).toBeCloseTo(2 / 11, 14);
    // --errors zero: sample 2 counts 0 in BASE (d = 1 − 0 = 1): 12 pairs, Σd = 3, d̄ = 1/4.
    const [bz, hz] = await documents("errored-zero", { cluster: true, errored: 2, only: "base" }, ["--errors", "zero"]);
    const zero = difference(bz, hz);
    expect(Object.entries(byId(zero.base)).every(([id, c]) => c === task(id))).toBe(true);
    expect(zero.d).toMatchObject({ pairs: 12, clusters: 3 });
    expect(zero.d.mean_diff).toBeCloseTo(1 / 4, 14);
  });

  it("a document from before (no sample_clusters): unclustered pairs, and a note that its metric's interval was clustered", async () => {
    const older = clustered.map((f) =>
      edit(f, (doc) => doc.bundles.forEach((e: any) => e.inspect && delete e.inspect.sample_clusters)),
    );
    const p = await paired(older[0]!, older[1]!);
    expect(p.interval.method).toBe("paired-t");
    expect(p.interval.lo).toBeCloseTo(D_BAR - T975[11] / 6, 9);
    expect(p.unpaired).toEqual([`BASE: ${OLDER_CLUSTERS}`, `HEAD: ${OLDER_CLUSTERS}`]);
    expect(difference(older[0]!, older[1]!).d).toMatchObject({ test: "mcnemar", clusters: null });
    // An older document of logs without a cluster key says nothing of clusters.
    const [b, h] = await documents("plain", { cluster: false });
    const plain = [b, h].map((f) =>
      edit(f, (doc) => doc.bundles.forEach((e: any) => e.inspect && delete e.inspect.sample_clusters)),
    );
    expect((await paired(plain[0]!, plain[1]!)).unpaired).toEqual([]);
  });
});

describe("compare checks the clusters against the intervals they were the basis of", () => {
  it("every sample made its own cluster (pairs made to look independent): refused, naming the metric; the document as written compares", async () => {
    const edited = edit(clustered[0], (doc) => {
      const k = doc.bundles.find((e: any) => e.profile === "inspect").inspect.sample_clusters.keys.task;
      k.names = Array.from({ length: 12 }, (_, i) => `s${i}`);
      k.of = Array.from({ length: 12 }, (_, i) => i);
    });
    await refused(
      ["compare", edited, clustered[1]],
      edited,
      /its Inspect metric "match\/mean\/accuracy"'s exclude interval \(korn-graubard, 3 clusters\) is not what its sample clusters by "task" give \(wilson, 12 clusters\)/,
    );
    expect((await ok(["compare", clustered[0], clustered[1]])).code).toBe(0);
  });

  it("the metric's key dropped from `by`: refused", async () => {
    const edited = edit(
      clustered[1],
      (doc) => void (doc.bundles.find((e: any) => e.profile === "inspect").inspect.sample_clusters.by = {}),
    );
    await refused(["compare", clustered[0], edited], edited, /its sample clusters give \(wilson, 12 clusters\)/);
  });

  it("clusters not one per sample id, or naming a key it lacks: the entry is refused as no entry assay writes", async () => {
    const short = edit(
      clustered[0],
      (doc) => void doc.bundles.find((e: any) => e.profile === "inspect").inspect.sample_clusters.keys.task.of.pop(),
    );
    await refused(
      ["compare", short, clustered[1]],
      short,
      /its Inspect sample clusters by "task" are 11, not one per sample id \(12\)/,
    );
    const past = edit(
      clustered[0],
      (doc) => void (doc.bundles.find((e: any) => e.profile === "inspect").inspect.sample_clusters.keys.task.of[0] = 3),
    );
    await refused(["compare", past, clustered[1]], past, /point past their 3 names/);
    const keyless = edit(
      clustered[0],
      (doc) => void (doc.bundles.find((e: any) => e.profile === "inspect").inspect.sample_clusters.keys = {}),
    );
    await refused(
      ["compare", keyless, clustered[1]],
      keyless,
      /is clustered by "task", whose sample clusters it lacks/,
    );
  });

  it("merge's shard reader: a shard whose clusters are not one per sample id is refused; the shard as written merges to the same entry", async () => {
    const shard = at("shard-0-1.json");
    writeFileSync(shard, (await ok(["score", at("clustered-base"), "--shard", "0/1", "--format", "json"])).stdout);
    const merged = JSON.parse((await ok(["merge", shard, "--format", "json"])).stdout);
    expect(merged.bundles[0].inspect.sample_clusters).toEqual(
      JSON.parse(readFileSync(clustered[0], "utf8")).bundles[0].inspect.sample_clusters,
    );
    const short = edit(shard, (doc) => void doc.bundles[0].inspect.sample_clusters.keys.task.of.pop());
    await refused(
      ["merge", short, "--format", "json"],
      short,
      /its Inspect sample clusters by "task" are 11, not one per sample id \(12\)/,
    );
  });
});

describe("a log read in parts keeps the same clusters", () => {
  /** A generated .eval (40 samples × 2 epochs, padded) whose scorer declares stderr(cluster="task"), each sample's metadata task t0–t2 by id. */
  function clusteredEval(): Member[] {
    writeFileSync(
      at("gen.eval"),
      inspectLogBytes({
        task: "parts",
        model: "m/x",
        samples: 40,
        epochs: 2,
        format: "eval",
        method: 8,
        seed: "parts",
        offset: 0,
        case: "clean",
        padding: 3000,
      }),
    );
    return members(at("gen.eval")).map((m) => {
      if (m.name !== "header.json" && m.name !== "_journal/start.json" && !/^samples\/.+\.json$/.test(m.name)) return m;
      const v = json(m);
      if (v.eval?.scorers) v.eval.scorers[0].metrics[1].options = { cluster: "task" };
      // The log's own stderr claim is unclustered: left out, so the entry is judged on what it holds.
      if (v.results) delete v.results.scores[0].metrics.stderr;
      if (v.scores) v.metadata = { task: `t${Number(v.id) % 3}` };
      return { ...m, data: Buffer.from(JSON.stringify(v)) };
    });
  }
  /** A monolith sample as `inspect log convert-chunked` writes it: shell, metadata.json, skeleton, messages, events in chunks. */
  function chunk(m: Member): Member[] {
    const { messages, events, attachments: _a, events_data: _d, metadata, ...shell } = json(m);
    const prefix = m.name.slice(0, -".json".length);
    const part = (name: string, v: unknown): Member => ({
      name: `${prefix}/${name}`,
      data: Buffer.from(JSON.stringify(v)),
      method: 8,
    });
    return [
      part("sample.json", { ...shell, message_refs: [[0, messages.length]] }),
      part("metadata.json", metadata),
      part("skeleton.json", { spans: [] }),
      part("messages/0.json", messages),
      part("events/0.json", events),
      part("events/stats.json", { chunks: [] }),
      part("events/uuids.json", []),
    ];
  }

  it("whole, split over two workers in parts of a few KB, and chunked: one sample_clusters", async () => {
    const ms = clusteredEval();
    const dir = at("parts");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "2025-11-03T10-00-00+00-00_parts.eval"), zipBytes(ms));
    const opts: ScoreRunOptions = { schedules: [], ...DEFAULT_BATCH, jobs: 2 };
    const whole = await scoreRoots([dir], opts);
    const split = await scoreRoots([dir], { ...opts, inspectSplit: { logBytes: 1, partBytes: 4_000 } });
    const clusters = whole.bundles[0]!.inspect!.sample_clusters!;
    // Ids 1..40 by id mod 3: 1 → t1, 2 → t2, 3 → t0, …: three names in order of first sight.
    expect(clusters.by).toEqual({ "match/mean/accuracy": "task" });
    expect(clusters.keys["task"]!.names).toEqual(["st1", "st2", "st0"]);
    expect(clusters.keys["task"]!.of).toEqual(Array.from({ length: 40 }, (_, i) => [2, 0, 1][(i + 1) % 3]));
    expect(whole.bundles[0]!.inspect!.metrics["match/mean/accuracy"]!.exclude.interval).toMatchObject({
      units: 40,
      clusters: 3,
    });
    expect(split.bundles[0]!.inspect!.sample_clusters).toEqual(clusters);
    writeFileSync(
      at("chunked.eval"),
      zipBytes(ms.flatMap((m) => (/^samples\/[^/]+_epoch_\d+\.json$/.test(m.name) ? chunk(m) : [m]))),
    );
    expect(scoreInspectLog(at("chunked.eval"), "eval").inspect!.sample_clusters).toEqual(clusters);
  });

  it("a record's kept metadata value counts 80 bytes more against its log's budget (a slot and a name in the entry's sample clusters)", () => {
    const plain = sampleRecord({ id: 1, epoch: 1, scores: { match: { value: "C" } } }, "samples/1_epoch_1.json", [])!;
    const tagged = sampleRecord(
      { id: 1, epoch: 1, scores: { match: { value: "C" } }, metadata: { task: "x".repeat(20) } },
      "samples/1_epoch_1.json",
      [],
    )!;
    // The kept pair [key, value] (a value this short is kept as it is): 32 + (16 + 24 + 2·4) + (16 + 24 + 2·20)
    // = 160 bytes held, against the empty list's 32: 128 more, and 80 for its one value's cluster slot and name: 208.
    expect(recordBytes(tagged) - recordBytes(plain)).toBe(208);
  });
});
