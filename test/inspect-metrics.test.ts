// Property test (contract §12): on random sample sets, the figures assay recomputes equal Inspect's
// rules as written here independently — value_to_float, the mean reducer, accuracy, mean, stderr,
// std and var — and a log claiming the oracle's figures is judged to agree. The oracle is first
// held to the figures Inspect itself wrote in the real logs.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { scoreInspectLog } from "../src/kinds/inspect/read.js";
import { fixture, json, member, members, place } from "./helpers/inspect.js";
import { rng, type Rng } from "../src/fuzz/random.js";

// ---- the oracle: Inspect's rules (scorer/_metric.py value_to_float; _metrics/*.py; statistics.mean) ----
function toFloat(v: unknown): number {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return v;
  if (typeof v !== "string") return 0;
  if (v === "C") return 1;
  if (v === "P") return 0.5;
  if (v === "I" || v === "N") return 0;
  const s = v.toLowerCase().trim();
  if (s === "yes" || s === "true") return 1;
  if (s === "no" || s === "false") return 0;
  const x = Number(s);
  return s !== "" && Number.isFinite(x) ? x : 0;
}
/** statistics.mean: exact for the small dyadic values drawn here, so plain summation is exact too. */
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
function sampleVar(xs: number[]): number {
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
}
const ORACLE: Record<string, (xs: number[]) => number> = {
  accuracy: (xs) => (xs.length === 0 ? NaN : mean(xs)),
  mean: (xs) => (xs.length === 0 ? NaN : mean(xs)),
  var: (xs) => (xs.length === 0 ? NaN : xs.length < 2 ? 0 : sampleVar(xs)),
  std: (xs) => (xs.length === 0 ? NaN : xs.length < 2 ? 0 : Math.sqrt(sampleVar(xs))),
  stderr: (xs) => (xs.length === 0 ? NaN : xs.length < 2 ? 0 : Math.sqrt(sampleVar(xs)) / Math.sqrt(xs.length)),
};
/** Per sample id: the mean of its non-NaN epoch values (NaN when none), then NaN dropped. */
function reduced(records: { id: number; value: unknown }[]): number[] {
  const by = new Map<number, number[]>();
  for (const r of records) {
    if (typeof r.value === "number" && Number.isNaN(r.value)) continue;
    by.set(r.id, [...(by.get(r.id) ?? []), toFloat(r.value)]);
  }
  return [...by.values()].map(mean);
}
const close = (a: number, b: number) =>
  Number.isNaN(a) ? Number.isNaN(b) : Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1e-3);

describe("the oracle against Inspect's own figures in the real logs", () => {
  it("popularity.json (C, C, I) and log_streaming.eval (I,C | C,C over two epochs)", () => {
    const pop = JSON.parse(readFileSync(fixture("2025-05-12T20-28-13-04-00_popularity.json"), "utf8"));
    const popValues = reduced(pop.samples.map((s: any) => ({ id: s.id, value: s.scores.match.value })));
    expect(ORACLE["accuracy"]!(popValues)).toBe(pop.results.scores[0].metrics.accuracy.value);
    expect(ORACLE["stderr"]!(popValues)).toBeCloseTo(pop.results.scores[0].metrics.stderr.value, 15);
    const ms = members(fixture("log_streaming.eval"));
    const header = json(member(ms, "header.json"));
    const recs = ms
      .filter((m) => m.name.startsWith("samples/"))
      .map((m) => json(m))
      .map((s) => ({ id: s.id, value: s.scores.match.value }));
    expect(ORACLE["accuracy"]!(reduced(recs))).toBe(header.results.scores[0].metrics.accuracy.value);
    expect(ORACLE["stderr"]!(reduced(recs))).toBe(header.results.scores[0].metrics.stderr.value);
  });
});

// ---- random logs ----
const VALUES: ((r: Rng) => unknown)[] = [
  () => "C",
  () => "I",
  () => "P",
  () => "N",
  () => true,
  () => false,
  (r) => Math.floor(r() * 9) / 8,
  (r) => String(Math.floor(r() * 5) / 4),
  () => "yes",
  () => "No",
  () => NaN,
];
function randomLog(r: Rng) {
  const ids = Array.from({ length: 1 + Math.floor(r() * 12) }, (_, i) => i + 1);
  const epochs = 1 + Math.floor(r() * 3);
  const samples: { id: number; epoch: number; value: unknown; error: boolean }[] = [];
  for (const id of ids)
    for (let epoch = 1; epoch <= epochs; epoch++) {
      if (r() < 0.1) continue; // missing
      const error = r() < 0.1;
      samples.push({
        id,
        epoch,
        value: error && r() < 0.5 ? undefined : VALUES[Math.floor(r() * VALUES.length)]!(r),
        error,
      });
    }
  // Inspect (0.3.247 on): every record with a score enters, errored or not.
  const values = reduced(samples.filter((s) => s.value !== undefined).map((s) => ({ id: s.id, value: s.value })));
  const claims = Object.fromEntries(Object.entries(ORACLE).map(([k, f]) => [k, f(values)]));
  return { ids, epochs, samples, claims, values };
}
/** Python's JSON: NaN as a bare token. */
const py = (v: unknown) =>
  JSON.stringify(v, (_k, x) => (typeof x === "number" && Number.isNaN(x) ? "__NaN__" : x)).replaceAll(
    '"__NaN__"',
    "NaN",
  );

function logText(l: ReturnType<typeof randomLog>): string {
  return py({
    version: 2,
    status: "success",
    eval: {
      task: "prop",
      task_id: "prop",
      run_id: "r",
      model: "m",
      created: "2026-01-01T00:00:00+00:00",
      dataset: { sample_ids: l.ids },
      config: { epochs: l.epochs },
      packages: { inspect_ai: "0.3.255" },
      scorers: [
        { name: "s", options: {}, metrics: Object.keys(ORACLE).map((m) => ({ name: `inspect_ai/${m}`, options: {} })) },
      ],
    },
    results: {
      scores: [
        {
          name: "s",
          scorer: "s",
          params: {},
          metrics: Object.fromEntries(Object.entries(l.claims).map(([k, v]) => [k, { name: k, value: v, params: {} }])),
        },
      ],
    },
    samples: l.samples.map((s) => ({
      id: s.id,
      epoch: s.epoch,
      scores: s.value === undefined ? {} : { s: { value: s.value } },
      ...(s.error ? { error: { message: "RuntimeError('x')" } } : {}),
    })),
  });
}

describe("random sample sets", () => {
  it("300 logs: every claim computed by Inspect's rules agrees, and assay's own value over the plan is the oracle's", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const l = randomLog(rng(seed));
      const e = scoreInspectLog(place(`prop-${seed}.json`, logText(l)), "json");
      expect(e.errors, `seed ${seed}`).toEqual([]);
      for (const [name, want] of Object.entries(l.claims)) {
        const m = e.inspect!.metrics[`s/-/${name}`]!;
        expect(m.check, `seed ${seed} ${name}`).toBe("agrees");
        // Every record here is planned (ids × epochs): assay's own value is the same figure.
        const got = m.exclude.value ?? NaN;
        expect(close(got, want), `seed ${seed} ${name}: ${got} vs ${want}`).toBe(true);
      }
    }
  });
  it("and a claim off by more than the tolerance is a mismatch", () => {
    let tried = 0;
    for (let seed = 1; tried < 50; seed++) {
      const l = randomLog(rng(seed));
      if (Number.isNaN(l.claims["accuracy"]!)) continue;
      tried++;
      l.claims["accuracy"] = l.claims["accuracy"]! + 1e-6;
      const e = scoreInspectLog(place(`prop-off-${seed}.json`, logText(l)), "json");
      expect(e.inspect!.metrics["s/-/accuracy"]!.check, `seed ${seed}`).toBe("mismatch");
    }
  });
});

// ---- one scorer's metrics share their derivation, each judged on its own ----
describe("the metrics of one results entry", () => {
  it("a built-in that agrees, a custom metric and a stderr that does not agree, side by side", () => {
    // Two epochs: sample 1 (C, I) → 0.5, sample 2 (C, C) → 1, sample 3 (I, I) → 0.
    const values: Record<number, string[]> = { 1: ["C", "I"], 2: ["C", "C"], 3: ["I", "I"] };
    const reducedValues = [0.5, 1, 0];
    const stderr = ORACLE["stderr"]!(reducedValues);
    const log = py({
      version: 2,
      status: "success",
      eval: {
        task: "mix",
        task_id: "mix",
        run_id: "r",
        model: "m",
        created: "2026-01-01T00:00:00+00:00",
        dataset: { sample_ids: [1, 2, 3] },
        config: { epochs: 2 },
        packages: { inspect_ai: "0.3.255" },
        scorers: [
          {
            name: "s",
            options: {},
            metrics: [
              { name: "inspect_ai/accuracy", options: {} },
              { name: "mine/custom", options: {} },
              { name: "inspect_ai/stderr", options: {} },
            ],
          },
        ],
      },
      // scored_samples is off by one: one COUNT_MISMATCH for the entry, not one per metric.
      results: {
        scores: [
          {
            name: "s",
            scorer: "s",
            params: {},
            scored_samples: 4,
            unscored_samples: 0,
            metrics: {
              accuracy: { name: "accuracy", value: 0.5, params: {} },
              custom: { name: "custom", value: 0.25, params: {} },
              stderr: { name: "stderr", value: stderr + 0.01, params: {} },
            },
          },
        ],
      },
      samples: Object.entries(values).flatMap(([id, vs]) =>
        vs.map((v, i) => ({ id: Number(id), epoch: i + 1, scores: { s: { value: v } } })),
      ),
    });
    const e = scoreInspectLog(place("mix.json", log), "json");
    const m = e.inspect!.metrics;
    expect(m["s/-/accuracy"]!.check).toBe("agrees");
    expect(m["s/-/accuracy"]!.exclude.value).toBe(0.5);
    expect(m["s/-/accuracy"]!.values).toEqual({ exclude: reducedValues, zero: reducedValues });
    expect(m["s/-/custom"]!.check).toBe("unverified");
    expect(m["s/-/custom"]!.note).toBe("not a built-in metric with default options");
    expect(m["s/-/custom"]!.exclude.value).toBeNull();
    expect(m["s/-/stderr"]!.check).toBe("mismatch");
    expect(m["s/-/stderr"]!.values).toBeNull();
    // One METRIC_MISMATCH, stderr's, and the entry's counts checked once.
    expect(e.errors.map((f) => [f.code, f.message.split(":")[0]])).toEqual([
      ["COUNT_MISMATCH", "results.scores[0].scored_samples"],
      ["METRIC_MISMATCH", "results.scores[0].metrics.stderr.value"],
    ]);
    for (const k of ["s/-/accuracy", "s/-/custom", "s/-/stderr"])
      expect(m[k]!.coverage).toEqual({ scored: 6, planned: 6 });
  });
});
