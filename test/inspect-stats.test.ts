// Inspect statistics (contract §13): each mean/accuracy metric's interval over the reduced samples
// in their clusters (§13.1, §13.2, §13.6), a clustered `stderr` claim re-derived and checked, pass^k
// over epochs (§13.3), and the per-sample values compare pairs by (§13.4). Every expected figure is
// worked out by hand in the comments beside it; t quantiles are the published table's.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { MAX_METADATA_KEYS } from "../src/kinds/inspect/sample.js";
import type { Results } from "../src/core/results.js";
import { scoreRoots } from "../src/pipeline/score.js";
import { scoreJson, scratch } from "./helpers/inspect.js";

/** Student t quantiles t(0.975, ν) (published tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2). */
const T975 = { 2: 4.302652729749464, 3: 3.182446305284263 };
/** The Wilson interval's z. */
const Z = 1.959963984540054;

interface S {
  id: number | string;
  epoch?: number;
  value?: unknown;
  metadata?: Record<string, unknown>;
  error?: boolean;
}

/** A .json log (Inspect 0.3.255) of one scorer `match` with the given samples and metrics. */
function log(o: {
  samples: S[];
  ids?: (number | string)[];
  epochs?: number;
  reducer?: string[];
  metrics: Record<string, { value: unknown; params?: Record<string, unknown> }>;
  declare?: boolean;
}) {
  const ids = o.ids ?? [...new Set(o.samples.map((s) => s.id))];
  const reducer = o.reducer ?? ["mean"];
  return {
    version: 2,
    status: "success",
    eval: {
      eval_id: "e1",
      run_id: "r1",
      created: "2025-11-03T10:00:00+00:00",
      task: "stats",
      task_id: "T1",
      model: "m/x",
      dataset: { name: "stats", samples: ids.length, sample_ids: ids },
      config: { epochs: o.epochs ?? 1, epochs_reducer: reducer },
      packages: { inspect_ai: "0.3.255" },
      ...(o.declare === false
        ? {}
        : {
            scorers: [
              {
                name: "match",
                options: {},
                metrics: Object.keys(o.metrics).map((k) => ({
                  name: `inspect_ai/${k}`,
                  options: o.metrics[k]!.params ?? {},
                })),
                metadata: {},
              },
            ],
          }),
    },
    results: {
      total_samples: ids.length * (o.epochs ?? 1),
      scores: [
        {
          name: "match",
          scorer: "match",
          ...(reducer.length > 0 ? { reducer: reducer[0] } : {}),
          params: {},
          metrics: Object.fromEntries(
            Object.entries(o.metrics).map(([k, m]) => [k, { name: k, value: m.value, params: m.params ?? {} }]),
          ),
        },
      ],
    },
    stats: { started_at: "2025-11-03T10:00:00+00:00", completed_at: "2025-11-03T10:05:00+00:00" },
    samples: o.samples.map((s) => ({
      id: s.id,
      epoch: s.epoch ?? 1,
      input: "q",
      target: "a",
      scores: s.value === undefined ? {} : { match: { value: s.value } },
      metadata: s.metadata ?? {},
      ...(s.error ? { error: { message: "RuntimeError('boom')", traceback: "" } } : {}),
    })),
  };
}

// Twelve samples in four clusters by metadata "group", values in quarters (the mean metric):
//   g1: .25 .5 .5   g2: .75 .5 1   g3: .25 0 .5   g4: .5 .75 .5      Σ = 6, n = 12, x̄ = 0.5
// The cluster sums of deviations Σ_{i∈c}(x_i − x̄): g1 1.25 − 1.5 = −0.25, g2 2.25 − 1.5 = 0.75,
// g3 0.75 − 1.5 = −0.75, g4 1.75 − 1.5 = 0.25; their squares sum to 0.0625·2 + 0.5625·2 = 1.25.
// SE = √(C/(C−1) · 1.25)/n = √(4/3 · 1.25)/12, so SE² = (5/3)/144 = 5/432 (SE = 0.1075828…).
// Unclustered: Σ(x_i − x̄)² = 0.0625·4 + 0.25·2 = 0.75, s² = 0.75/11, (s/√n)² = 0.75/132 = 1/176.
// design_effect = SE²/(s²/n) = (5/432)·176 = 880/432 = 2.037037…
// Group identities are compared as Python's == does: g2's 1, 1.0 and True are one cluster; g4's
// value is a string longer than a record keeps (kept as its digest: still one cluster).
const LONG = "a group name much longer than forty characters, kept as a digest";
const GROUPS: [unknown, number[]][] = [
  ["g1", [0.25, 0.5, 0.5]],
  [
    [1, 1.0, true],
    [0.75, 0.5, 1],
  ],
  ["g3", [0.25, 0, 0.5]],
  [LONG, [0.5, 0.75, 0.5]],
];
const clustered: S[] = GROUPS.flatMap(([g, xs], c) =>
  xs.map((x, i) => ({ id: c * 3 + i + 1, value: x, metadata: { group: Array.isArray(g) ? g[i] : g } })),
);
const SE = Math.sqrt(5 / 432);

describe("intervals of a metric (§13.2)", () => {
  it('cluster-t: samples grouped by a scorer\'s stderr(cluster="group"); the clustered claim is re-derived and agrees', () => {
    const { entry } = scoreJson(
      log({
        samples: clustered,
        metrics: { mean: { value: 0.5 }, stderr: { value: SE, params: { cluster: "group" } } },
      }),
    );
    expect(entry.errors).toEqual([]);
    const m = entry.inspect!.metrics["match/mean/mean"]!;
    const half = T975[3] * SE; // t(0.975, C − 1 = 3) · SE = 0.342373…
    expect(m.exclude.interval!.method).toBe("cluster-t");
    expect(m.exclude.interval).toMatchObject({ units: 12, clusters: 4, design_effect: expect.closeTo(880 / 432, 12) });
    expect(m.exclude.interval!.se).toBeCloseTo(SE, 14);
    expect(m.exclude.interval!.lo).toBeCloseTo(0.5 - half, 9);
    expect(m.exclude.interval!.hi).toBeCloseTo(0.5 + half, 9);
    expect(m.exclude.interval_reason).toBeNull();
    expect(entry.inspect!.metrics["match/mean/stderr"]).toMatchObject({ check: "agrees", note: null });
    // The stderr entry is no mean: it has no interval of its own.
    expect(entry.inspect!.metrics["match/mean/stderr"]!.exclude).toMatchObject({
      interval: null,
      interval_reason: null,
    });
  });

  it("a `ci` metric declaring the cluster groups the scorer's intervals too (itself unverified: not a built-in)", () => {
    const { entry } = scoreJson(
      log({ samples: clustered, metrics: { mean: { value: 0.5 }, ci: { value: 0.2, params: { cluster: "group" } } } }),
    );
    expect(entry.inspect!.metrics["match/mean/mean"]!.exclude.interval).toMatchObject({
      method: "cluster-t",
      clusters: 4,
      se: expect.closeTo(SE, 14),
    });
    expect(entry.inspect!.metrics["match/mean/ci"]!.check).toBe("unverified");
  });

  it("a clustered stderr claim that is not Inspect's figure is METRIC_MISMATCH (declared in results only, no eval.scorers)", () => {
    // The unclustered figure s/√n = √(1/176) = 0.0753778… is what a log that forgot the clusters would claim.
    const { entry } = scoreJson(
      log({
        samples: clustered,
        declare: false,
        metrics: { mean: { value: 0.5 }, stderr: { value: Math.sqrt(1 / 176), params: { cluster: "group" } } },
      }),
    );
    expect(entry.errors.map((e) => e.code)).toEqual(["METRIC_MISMATCH"]);
    expect(entry.errors[0]!.message).toContain(`Inspect's rules give ${SE}`);
    expect(entry.inspect!.metrics["match/mean/stderr"]!.check).toBe("mismatch");
    expect(entry.inspect!.metrics["match/mean/mean"]!.exclude.interval!.method).toBe("cluster-t");
  });

  it("0/1 samples in groups: korn-graubard, and Inspect's clustered stderr is still held to SE_c (Inspect's formula), not the interval's se", () => {
    // g1: 1 1 0  g2: 1 0 0  g3: 1 1 0  g4: 0 1 0 — n = 12, x̄ = 0.5; cluster sums of deviations
    // 0.5, −0.5, 0.5, −0.5 → squares 1; SE_c = √(4/3 · 1)/12 = 0.0962250. SE_i = √(0.25/12) = 0.1443376 > SE_c,
    // so Korn–Graubard's se = SE_i and its design effect max(1, (SE_c/SE_i)²) = max(1, 4/9) = 1.
    const bin: S[] = [
      [1, 1, 0],
      [1, 0, 0],
      [1, 1, 0],
      [0, 1, 0],
    ].flatMap((xs, c) => xs.map((x, i) => ({ id: c * 3 + i + 1, value: x, metadata: { group: `g${c + 1}` } })));
    const seC = Math.sqrt(4 / 3) / 12;
    const seI = Math.sqrt(0.25 / 12);
    const honest = scoreJson(
      log({
        samples: bin,
        metrics: { accuracy: { value: 0.5 }, stderr: { value: seC, params: { cluster: "group" } } },
      }),
    ).entry;
    expect(honest.errors).toEqual([]);
    expect(honest.inspect!.metrics["match/mean/stderr"]!.check).toBe("agrees");
    expect(honest.inspect!.metrics["match/mean/accuracy"]!.exclude.interval).toMatchObject({
      method: "korn-graubard",
      units: 12,
      clusters: 4,
      se: expect.closeTo(seI, 14),
      design_effect: 1,
    });
    // The interval's se is no figure Inspect's clustered stderr gives.
    const claimedKg = scoreJson(
      log({
        samples: bin,
        declare: false,
        metrics: { accuracy: { value: 0.5 }, stderr: { value: seI, params: { cluster: "group" } } },
      }),
    ).entry;
    expect(claimedKg.errors.map((e) => e.code)).toEqual(["METRIC_MISMATCH"]);
    expect(claimedKg.inspect!.metrics["match/mean/stderr"]!.check).toBe("mismatch");
  });

  it("one cluster (C = 1): Inspect's 0 or NaN is the claim and agrees; assay's interval is null, with the reason", () => {
    const one = clustered.map((s) => ({ ...s, metadata: { group: "all" } }));
    for (const claim of ["0", "NaN"]) {
      const text = JSON.stringify(
        log({
          samples: one,
          metrics: { mean: { value: 0.5 }, stderr: { value: 12345, params: { cluster: "group" } } },
        }),
      ).replace("12345", claim);
      const { entry } = scoreJson(text);
      expect(entry.errors, claim).toEqual([]);
      expect(entry.inspect!.metrics["match/mean/stderr"]!.check, claim).toBe("agrees");
      const m = entry.inspect!.metrics["match/mean/mean"]!;
      expect(m.exclude.interval).toBeNull();
      expect(m.exclude.interval_reason).toBe("all 12 samples are in one group: no interval from a single group");
    }
    // Any other claim over one cluster is no figure Inspect gives.
    expect(
      scoreJson(
        log({ samples: one, metrics: { stderr: { value: 0.1, params: { cluster: "group" } } } }),
      ).entry.errors.map((e) => e.code),
    ).toEqual(["METRIC_MISMATCH"]);
  });

  it("a sample lacking the key: the interval is null with the reason, and the clustered claim unverified; a key not kept says so", () => {
    const lacking = clustered.map((s) => (s.id === 5 ? { ...s, metadata: { other: 1 } } : s));
    const { entry } = scoreJson(
      log({ samples: lacking, metrics: { mean: { value: 0.5 }, stderr: { value: SE, params: { cluster: "group" } } } }),
    );
    expect(entry.errors).toEqual([]);
    const m = entry.inspect!.metrics["match/mean/mean"]!;
    expect(m.exclude.interval).toBeNull();
    expect(m.exclude.interval_reason).toBe(
      `clustered by metadata "group", but sample "5" has no metadata "group" (Inspect's clustered stderr raises on such a sample)`,
    );
    expect(entry.inspect!.metrics["match/mean/stderr"]).toMatchObject({
      check: "unverified",
      note: expect.stringContaining(`sample "5" has no metadata "group"`),
    });
    // The key past the metadata a record keeps (MAX_METADATA_KEYS scalar values, in the sample's order).
    const crowded = clustered.map((s) =>
      s.id === 5
        ? {
            ...s,
            metadata: {
              ...Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS }, (_, i) => [`k${i}`, i])),
              group: 1,
            },
          }
        : s,
    );
    const cut = scoreJson(
      log({ samples: crowded, metrics: { mean: { value: 0.5 }, stderr: { value: SE, params: { cluster: "group" } } } }),
    ).entry;
    expect(cut.inspect!.metrics["match/mean/mean"]!.exclude.interval_reason).toContain(
      `sample "5"'s metadata "group" was not kept (assay keeps up to ${MAX_METADATA_KEYS} scalar metadata values per sample`,
    );
    expect(cut.inspect!.metrics["match/mean/stderr"]!.check).toBe("unverified");
  });

  it("t for non-binary samples each its own cluster; Wilson for binary ones", () => {
    // .25 .5 .5 .75: x̄ = 0.5, s² = (0.0625 + 0 + 0 + 0.0625)/3 = 1/24, s/√n = √(1/24)/2 = 0.1020620…
    const t = scoreJson(
      log({
        samples: [0.25, 0.5, 0.5, 0.75].map((value, i) => ({ id: i + 1, value })),
        metrics: { mean: { value: 0.5 } },
      }),
    ).entry;
    const se = Math.sqrt(1 / 24) / 2;
    expect(t.inspect!.metrics["match/mean/mean"]!.exclude.interval).toEqual({
      method: "t",
      lo: expect.closeTo(0.5 - T975[3] * se, 9),
      hi: expect.closeTo(0.5 + T975[3] * se, 9),
      units: 4,
      clusters: 4,
      se: expect.closeTo(se, 14),
      design_effect: null,
    });
    // C C I: 2 of 3. Wilson: p = 2/3, z² = 3.8414588…; centre (p + z²/6)/(1 + z²/3), half z·√(p(1−p)/3 + z²/36)/(1 + z²/3)
    // = [0.20765, 0.93849] (Newcombe 1998, table I's method 3 gives 0.2077–0.9385 for 2/3).
    const w = scoreJson(
      log({
        samples: ["C", "C", "I"].map((value, i) => ({ id: i + 1, value })),
        metrics: { accuracy: { value: 2 / 3 } },
      }),
    ).entry;
    const z2 = Z * Z;
    const centre = (2 / 3 + z2 / 6) / (1 + z2 / 3);
    const halfW = (Z * Math.sqrt(2 / 9 / 3 + z2 / 36)) / (1 + z2 / 3);
    expect(w.inspect!.metrics["match/mean/accuracy"]!.exclude.interval).toEqual({
      method: "wilson",
      lo: expect.closeTo(centre - halfW, 12),
      hi: expect.closeTo(centre + halfW, 12),
      units: 3,
      clusters: 3,
      se: null,
      design_effect: null,
    });
    expect(w.inspect!.metrics["match/mean/accuracy"]!.exclude.interval!.lo).toBeCloseTo(0.2077, 4);
    // One sample: no interval, even binary (§13.6).
    const single = scoreJson(log({ samples: [{ id: 1, value: "C" }], metrics: { accuracy: { value: 1 } } })).entry;
    expect(single.inspect!.metrics["match/mean/accuracy"]!.exclude).toMatchObject({
      interval: null,
      interval_reason: "one sample: no interval from a single value",
    });
  });

  it("no value of assay's own (no sample record behind the claim): no interval, and why", () => {
    const { entry } = scoreJson(log({ samples: [], ids: [1, 2], metrics: { accuracy: { value: 0.5 } } }));
    const m = entry.inspect!.metrics["match/mean/accuracy"]!;
    expect([m.exclude.interval, m.zero.interval, m.values]).toEqual([null, null, null]);
    expect(m.exclude.interval_reason).toBe("assay computes no value of its own: no sample record behind it");
    expect(entry.inspect!.sample_ids).toBeNull();
  });
});

// Three samples over three epochs, binary: s1 1 1 1 (c = 3), s2 1 0 1 (c = 2), s3 0 0 1 (c = 1).
// pass^k = mean over samples of C(c,k)/C(3,k):
//   k = 1: (3/3 + 2/3 + 1/3)/3 = 2/3;  k = 2: (3/3 + 1/3 + 0/3)/3 = 4/9;  k = 3: (1 + 0 + 0)/3 = 1/3.
const EPOCHS: S[] = [
  [1, 1, 1],
  [1, 0, 1],
  [0, 0, 1],
].flatMap((xs, s) => xs.map((value, e) => ({ id: s + 1, epoch: e + 1, value })));

describe("pass^k over epochs (§13.3)", () => {
  it("3 epochs by hand; the mean of binary epochs is not binary, so its interval is t", () => {
    const { entry } = scoreJson(log({ samples: EPOCHS, epochs: 3, metrics: { accuracy: { value: 2 / 3 } } }));
    expect(entry.errors).toEqual([]);
    const f = entry.inspect!.metrics["match/mean/accuracy"]!.exclude;
    expect(f.pass_hat_k).toEqual({
      1: expect.closeTo(2 / 3, 14),
      2: expect.closeTo(4 / 9, 14),
      3: expect.closeTo(1 / 3, 14),
    });
    // Reduced values 1, 2/3, 1/3: x̄ = 2/3, s² = (1/9 + 0 + 1/9)/2 = 1/9, s/√3 = 1/(3√3).
    expect(f.interval).toMatchObject({
      method: "t",
      units: 3,
      clusters: 3,
      se: expect.closeTo(1 / (3 * Math.sqrt(3)), 14),
    });
    expect(f.wilson95).toBeNull();
  });

  it("unreduced (epochs_reducer []): each epoch a unit, a sample's epochs one cluster; values give each sample's mean", () => {
    const { entry } = scoreJson(
      log({ samples: EPOCHS, epochs: 3, reducer: [], metrics: { accuracy: { value: 2 / 3 } } }),
    );
    expect(entry.errors).toEqual([]);
    const m = entry.inspect!.metrics["match/-/accuracy"]!;
    // Units 1 1 1 | 1 0 1 | 0 0 1: x̄ = 6/9; cluster sums 3 − 2 = 1, 2 − 2 = 0, 1 − 2 = −1; SE_c = √(3/2 · 2)/9 = √3/9.
    // 0/1 epochs in clusters: Korn–Graubard (§13.7). SE_i² = (2/3)(1/3)/9 = 2/81 < SE_c² = 3/81, so se = SE_c,
    // design effect (3/81)/(2/81) = 1.5.
    expect(m.exclude.interval).toMatchObject({
      method: "korn-graubard",
      units: 9,
      clusters: 3,
      se: expect.closeTo(Math.sqrt(3) / 9, 14),
      design_effect: expect.closeTo(1.5, 12),
    });
    expect(m.exclude.pass_hat_k).toEqual({
      1: expect.closeTo(2 / 3, 14),
      2: expect.closeTo(4 / 9, 14),
      3: expect.closeTo(1 / 3, 14),
    });
    expect(m.values!.exclude).toEqual([1, expect.closeTo(2 / 3, 15), expect.closeTo(1 / 3, 15)]);
  });

  it("null for a fractional scorer and for a single epoch", () => {
    const frac = EPOCHS.map((s) => (s.id === 2 && s.epoch === 2 ? { ...s, value: 0.5 } : s));
    expect(
      scoreJson(log({ samples: frac, epochs: 3, metrics: { mean: { value: (3 + 2.5 + 1) / 9 } } })).entry.inspect!
        .metrics["match/mean/mean"]!.exclude.pass_hat_k,
    ).toBeNull();
    expect(
      scoreJson(log({ samples: EPOCHS.filter((s) => s.epoch === 1), metrics: { accuracy: { value: 2 / 3 } } })).entry
        .inspect!.metrics["match/mean/accuracy"]!.exclude.pass_hat_k,
    ).toBeNull();
  });
});

describe("per-sample values for paired comparison (§13.4), through a run", () => {
  // Plan order 30, 10, 20, 40 (not sorted); 10 and 30 scored (.5 and 1), 20 errored, 40 missing.
  const planned = log({
    ids: [30, 10, 20, 40],
    samples: [
      { id: 10, value: 0.5 },
      { id: 20, error: true },
      { id: 30, value: 1 },
    ],
    metrics: { mean: { value: 0.75 } },
  });
  const dir = (name: string, text: unknown) => {
    const d = join(scratch(), name);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "2025-11-03T10-00-00+00-00_stats_T1.json"), JSON.stringify(text));
    return d;
  };
  const score = (d: string, errors: "exclude" | "zero") =>
    scoreRoots([d], { schedules: [], ...DEFAULT_BATCH, jobs: 1, errors });
  const inspectOf = (doc: Results) =>
    doc.experiments.find((x) => x.experiment === "stats (m/x)")!.inspect!["match/mean/mean"]!;

  it("sample_ids in plan order; values aligned to it under both --errors settings; the experiment carries the chosen figure's interval", async () => {
    const d = dir("paired", planned);
    for (const errors of ["exclude", "zero"] as const) {
      const doc = await score(d, errors);
      const e = doc.bundles[0]!;
      expect(e.inspect!.sample_ids).toEqual(["30", "10", "20", "40"]);
      expect(e.inspect!.metrics["match/mean/mean"]!.values).toEqual({
        exclude: [1, 0.5, null, null],
        zero: [1, 0.5, 0, 0],
      });
      const x = inspectOf(doc);
      // exclude: 1, .5 — x̄ .75, s = √(2 · .0625) = .35355…, SE = s/√2 = .25, t(0.975, 1) = 12.7062…: clipped to [0, 1].
      // zero: 1, .5, 0, 0 — x̄ .375, s² = (.390625 + .015625 + .140625·2)/3 = .6875/3, SE = √(.6875/3)/2.
      const se = errors === "exclude" ? 0.25 : Math.sqrt(0.6875 / 3) / 2;
      expect(x.interval).toMatchObject({
        method: "t",
        units: errors === "exclude" ? 2 : 4,
        se: expect.closeTo(se, 14),
      });
      expect(x.value).toBe(errors === "exclude" ? 0.75 : 0.375);
    }
  });

  it("an invalid chain counts every planned sample 0: its interval is that of the zeros (Wilson 0 of 4)", async () => {
    const d = dir("zeroed", {
      ...planned,
      results: {
        ...planned.results,
        scores: [{ ...planned.results.scores[0]!, metrics: { mean: { name: "mean", value: 0.9, params: {} } } }],
      },
    });
    const x = inspectOf(await score(d, "exclude"));
    expect(x.value).toBe(0);
    // Wilson with k = 0: centre = half = (z²/2n)/(1 + z²/n), so hi = z²/(n + z²) = 3.8414588/7.8414588 = 0.48989…
    expect(x.interval).toEqual({
      method: "wilson",
      lo: 0,
      hi: expect.closeTo((Z * Z) / (4 + Z * Z), 12),
      units: 4,
      clusters: 4,
      se: null,
      design_effect: null,
    });
  });
});
