// A golden results document (contract §6, §10) for a small synthesised corpus. Every expected
// value below is derived by hand from the spec list, in the comments beside it — never recorded
// from the program's output.

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Experiment, Results } from "../src/core/results.js";
import { assemble, scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { renderText } from "../src/report/index.js";
import { synthNative, type NativeSpec } from "../src/synth/native.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const Z = 1.959963984540054;
const DEFAULTS: ScoreRunOptions = { schedules: [], invalid: "count", resourceBound: "exclude", errors: "exclude" };

/** Wilson interval in counts: (k + z²/2 ± z·sqrt(k(n−k)/n + z²/4)) / (n + z²), clamped to [0, 1]. */
function wilson(k: number, n: number): [number, number] {
  const z2 = Z * Z;
  const half = Z * Math.sqrt((k * (n - k)) / n + z2 / 4);
  return [Math.max(0, (k + z2 / 2 - half) / (n + z2)), Math.min(1, (k + z2 / 2 + half) / (n + z2))];
}
const C = (n: number, k: number): number => {
  if (k > n) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return r;
};
/** pass^k by hand: mean over tasks of C(c,k)/C(n,k), for k = 1..smallest n. */
function passHatNumbers(groups: [c: number, n: number][]): Record<string, number> {
  const out: Record<string, number> = {};
  const kMax = Math.min(...groups.map(([, n]) => n));
  for (let k = 1; k <= kMax; k++)
    out[String(k)] = groups.reduce((s, [c, n]) => s + C(c, k) / C(n, k), 0) / groups.length;
  return out;
}
const passHat = (groups: [c: number, n: number][]) =>
  Object.fromEntries(Object.entries(passHatNumbers(groups)).map(([k, v]) => [k, expect.closeTo(v, 12)]));
const closeInterval = ([lo, hi]: [number, number]) => [expect.closeTo(lo, 12), expect.closeTo(hi, 12)];

// t(0.975, df), R's qt (tables: 2.228, 2.179, 2.262, 4.303, 3.182).
const T975 = {
  2: 4.302652729749464,
  3: 3.182446305284263,
  9: 2.262157162798205,
  10: 2.228138851986274,
  12: 2.178812829667228,
} as const;
/**
 * A Korn–Graubard interval (§13.7) from its hand-derived pieces: SE_c² and SE_i² (design effect
 * d = max(1, SE_c²/SE_i²), se = max of the two), and the Clopper–Pearson bounds at n*_df, worked in
 * the comments with R's qbeta.
 */
const kornGraubard = (seC2: number, seI2: number, lo: number, hi: number, units: number, clusters: number) => ({
  method: "korn-graubard",
  lo: expect.closeTo(lo, 7),
  hi: expect.closeTo(hi, 7),
  units,
  clusters,
  se: expect.closeTo(Math.sqrt(Math.max(seC2, seI2)), 12),
  design_effect: expect.closeTo(Math.max(1, seC2 / seI2), 9),
});
const wilsonInterval = (k: number, n: number) => {
  const [lo, hi] = wilson(k, n);
  return {
    method: "wilson",
    lo: expect.closeTo(lo, 12),
    hi: expect.closeTo(hi, 12),
    units: n,
    clusters: n,
    se: null,
    design_effect: null,
  };
};

const seed = (n: number) => n.toString(16).padStart(2, "0").repeat(16);

// The corpus. Experiment "gold" has 13 trials over tasks A and B (and C, which only an excluded
// trial carries); "Zeta" has 2 trials without tasks. In byte order "Zeta" < "gold".
const SPECS: NativeSpec[] = [
  // t01: a victory under A.
  { experiment: "gold", trial: "t01", attempt: 1, seed: seed(1), outcome: "victory", task: "A" },
  // t02: a death under A.
  { experiment: "gold", trial: "t02", attempt: 1, seed: seed(2), outcome: "death", task: "A" },
  // t03: attempt 1 abnormal (under task C: superseded, so its task must not count), attempt 2 wins under A.
  { experiment: "gold", trial: "t03", attempt: 1, seed: seed(3), outcome: "abnormal", task: "C" },
  { experiment: "gold", trial: "t03", attempt: 2, seed: seed(3), outcome: "victory", task: "A" },
  // t04: a death, then a victory: the retry is ignored (best-of-n never leaks).
  { experiment: "gold", trial: "t04", attempt: 1, seed: seed(4), outcome: "death", task: "B" },
  { experiment: "gold", trial: "t04", attempt: 2, seed: seed(4), outcome: "victory", task: "B" },
  // t05: an escape accepted after the deadline: an ending, not a victory.
  { experiment: "gold", trial: "t05", attempt: 1, seed: seed(5), outcome: "late-victory", task: "B" },
  // t06: interrupted: scored (a non-victory), incomplete, not retried.
  { experiment: "gold", trial: "t06", attempt: 1, seed: seed(6), outcome: "interrupted", task: "B" },
  // t07: resource-bound without an ending: excluded by default.
  { experiment: "gold", trial: "t07", attempt: 1, seed: seed(7), outcome: "resource-bound", task: "B" },
  // t08: unterminated without ending or final score, then abnormal: no adjudicated attempt.
  { experiment: "gold", trial: "t08", attempt: 1, seed: seed(8), outcome: "unterminated", task: "C" },
  { experiment: "gold", trial: "t08", attempt: 2, seed: seed(8), outcome: "abnormal", task: "C" },
  // t09: a death whose end record was torn: unterminated with an ending.
  { experiment: "gold", trial: "t09", attempt: 1, seed: seed(9), outcome: "torn-ending", task: "A" },
  // t10: retirement without a task.
  { experiment: "gold", trial: "t10", attempt: 1, seed: seed(10), outcome: "retire" },
  // t11: a death whose summary claims a victory: invalid evidence.
  {
    experiment: "gold",
    trial: "t11",
    attempt: 1,
    seed: seed(11),
    outcome: "death",
    task: "B",
    fault: "summary-claims-victory",
  },
  // t12: save-and-quit (a suspension, then abnormal), then an escape without a quest item.
  { experiment: "gold", trial: "t12", attempt: 1, seed: seed(12), outcome: "save-quit", task: "A" },
  { experiment: "gold", trial: "t12", attempt: 2, seed: seed(12), outcome: "escape-empty", task: "A" },
  // t13: the attempts disagree on the seed. Attempt 1 (the lowest) is under B, attempt 2 under A.
  { experiment: "gold", trial: "t13", attempt: 1, seed: seed(13), outcome: "abnormal", task: "B" },
  { experiment: "gold", trial: "t13", attempt: 2, seed: seed(113), outcome: "victory", task: "A" },
  // Zeta: one victory, one death.
  { experiment: "Zeta", trial: "z1", attempt: 1, seed: seed(21), outcome: "victory" },
  { experiment: "Zeta", trial: "z2", attempt: 1, seed: seed(22), outcome: "death" },
];

const { dir: root } = scratch("assay-golden-");
const { dir: unicodeRoot } = scratch("assay-golden-u-");
beforeAll(() => {
  for (const s of SPECS) {
    const dir = join(root, s.experiment, s.trial, `a${s.attempt}`);
    mkdirSync(dir, { recursive: true });
    for (const [p, b] of synthNative({ ...s, events: 3 })) writeFileSync(join(dir, p), b);
  }
});

// ------------------------------------------------------------------------------------------
// Derivation for "gold" with the defaults (--invalid count, --resource-bound exclude).
//
// trial  adjudicated        scored  victory  ending(completion)  other
// t01    a1 victory         yes     1        yes
// t02    a1 death           yes     0        yes
// t03    a2 victory         yes     1        yes                 SUPERSEDED a1
// t04    a1 death           yes     0        yes                 RETRY_AFTER_OUTCOME a2
// t05    a1 late escape     yes     0        yes
// t06    a1 interrupted     yes     0        no
// t07    a1 resource-bound  no      0        no                  excluded (resource-bound)
// t08    none               no      0        no                  excluded (no adjudicated attempt), retry
// t09    a1 torn death      yes     0        yes                 UNTERMINATED_WITH_ENDING a1
// t10    a1 retire          yes     0        yes
// t11    — invalid          yes(0)  0        no                  invalid SUMMARY_MISMATCH
// t12    a2 escape-empty    yes     0        yes                 SUPERSEDED a1
// t13    — invalid          yes(0)  0        no                  invalid SEED_MISMATCH
//
// scored = 11 (all but t07, t08), victories = 2 (t01, t03): accuracy 2/11.
// raw_record = [1,0,1,0,0,0,0,0,0,0,0,0,0], mean 2/13.
// completion = 8 endings (t01 t02 t03 t04 t05 t09 t10 t12) / 13.
// Repeats over the 11 scored trials with a task (adjudicated attempt's; invalid: lowest attempt's):
//   A: t01 P, t02 F, t03 P, t09 F, t12 F            → c=2, n=5
//   B: t04 F, t05 F, t06 F, t11 F, t13 F (a1 is B)  → c=0, n=5
//   C: nobody (t03's a1 is superseded, t08 excluded). t10 has no task.
//   k = 1..5: k=1 (2/5+0)/2 = 0.2; k=2 (1/10+0)/2 = 0.05; k≥3 0.
// Accuracy's interval (§13.2): 11 units in 3 clusters — A (5 units, 2 wins), B (5, 0), and t10
// alone (no task: its own cluster). x̄ = 2/11. Deviation sums: A 2 − 10/11 = 12/11,
// B −10/11, t10 −2/11; their squares sum to 248/121. SE = √(3/2 · 248/121)/11 = √372/121.
// s² = (2·(9/11)² + 9·(2/11)²)/10 = 198/1210, so s²/n = 198/13310. t(0.975, 2).
// Completion's: 13 units in 4 clusters — A (t01 t02 t03 t09 t12: 5 endings of 5), B (t04 t05
// ended; t06 t07 t11 t13 not: 2 of 6), C (t08, whose lowest attempt is under C: 0 of 1), t10 (1
// of 1). x̄ = 8/13. Deviation sums 25/13, −22/13, −8/13, 5/13; squares 1198/169.
// SE = √(4/3 · 1198/169)/13; s² = (8·(5/13)² + 5·(8/13)²)/12 = 520/2028, s²/n = 520/26364. t(0.975, 3).
// Both are binary units in clusters, so the interval is Korn–Graubard (§13.7; docs/metrics.md
// works accuracy's through): SE_c as above, SE_i² = x̄(1 − x̄)/n, d = max(1, SE_c²/SE_i²), n* = n/d,
// n*_df = n*·(t(0.975, n − 1)/t(0.975, C − 1))², Clopper–Pearson for x̄·n*_df of n*_df (R's qbeta).
// Accuracy: SE_c² = 372/14641 (0.159399²), SE_i² = (2/11)(9/11)/11 = 198/14641 (0.116291²);
//   d = 372/198 = 1.878788; n* = 11/d = 5.854839; t(0.975, 10) = 2.228139, t(0.975, 2) = 4.302653,
//   ratio² = 0.517852² = 0.268171; n*_df = 1.570098; successes 2/11 · 1.570098 = 0.285472.
//   lo = qbeta(0.025, 0.285472, 2.284626) = 8.672349e-7; hi = qbeta(0.975, 1.285472, 1.284626) = 0.9547716.
// Completion: SE_c² = (4/3 · 1198/169)/169 (0.236489²), SE_i² = (8/13)(5/13)/13 = 40/2197 (0.134932²);
//   d = 4792/1560 = 3.071795; n* = 13/d = 4.232053; t(0.975, 12) = 2.178813, t(0.975, 3) = 3.182446,
//   ratio² = 0.684635² = 0.468725; n*_df = 1.983667; successes 8/13 · 1.983667 = 1.220718.
//   lo = qbeta(0.025, 1.220718, 1.762949) = 0.02886535; hi = qbeta(0.975, 2.220718, 0.762949) = 0.9966063.
const GOLD_FLAGS = [
  { code: "SUPERSEDED", trial: "t03", attempt: 1, evidence: null },
  { code: "RETRY_AFTER_OUTCOME", trial: "t04", attempt: 2, evidence: null },
  { code: "UNTERMINATED_WITH_ENDING", trial: "t09", attempt: 1, evidence: null },
  { code: "SUPERSEDED", trial: "t12", attempt: 1, evidence: null },
];
const RESOURCE_REASON = expect.stringMatching(/resource-bound/i);
const NO_OUTCOME_REASON = expect.stringMatching(/adjudicated|abnormal|unterminated/i);

// Identity (issue 37): every header records harness silq-bench 0.5.0 and meta.model "m-1", and no
// agent or benchmark. Every run starts at 1_788_000_000_000 ms (2026-08-29T10:40:00Z); one with an
// ending ends 10 one-second steps later (first observation, 3 key/observation pairs, the ending,
// the final score, end). The tasks are the entries' (every attempt's: A, B, C), `sha256:` of the
// ids one per line; Zeta's trials have none.
const nativeIdentity = (tasks: string[] | null) => ({
  agent: null,
  model: "m-1",
  benchmark: null,
  tasks:
    tasks === null
      ? null
      : {
          count: tasks.length,
          digest: `sha256:${createHash("sha256")
            .update(tasks.map((t) => `${t}\n`).join(""))
            .digest("hex")}`,
          unit: "task" as const,
        },
  harness: { name: "silq-bench", version: "0.5.0" },
  started_at: "2026-08-29T10:40:00.000Z",
  finished_at: "2026-08-29T10:40:10.000Z",
  clock: "utc" as const,
});

const zeta: Experiment = {
  // z1 victory, z2 death: 1/2, both endings, no tasks.
  experiment: "Zeta",
  profile: "native-game",
  scheduled: 2,
  invalid: [],
  missing: [],
  excluded: [],
  unscored: [],
  flags: [],
  // Two trials without a task: two clusters of one unit each, binary → Wilson.
  accuracy: {
    value: 1 / 2,
    victories: 1,
    scored: 2,
    wilson95: closeInterval(wilson(1, 2)) as [number, number],
    interval: wilsonInterval(1, 2) as never,
    interval_reason: null,
  },
  raw_record: { values: [1, 0], mean: 1 / 2 },
  completion: { value: 1, completed: 2, scheduled: 2, interval: wilsonInterval(2, 2) as never, interval_reason: null },
  retry: [],
  dimensions: null,
  pass: null,
  pass_hat_k: null,
  rewards: null,
  states: null,
  claimed: null,
  job: null,
  job_id: null,
  exceptions: null,
  warnings: [],
  log: null,
  inspect: null,
  usage: null,
  identity: nativeIdentity(null),
};

const goldDefaults = {
  experiment: "gold",
  profile: "native-game",
  scheduled: 13,
  invalid: [
    { trial: "t11", codes: ["SUMMARY_MISMATCH"] },
    { trial: "t13", codes: ["SEED_MISMATCH"] },
  ],
  missing: [],
  excluded: [
    { trial: "t07", reason: RESOURCE_REASON },
    { trial: "t08", reason: NO_OUTCOME_REASON },
  ],
  unscored: [],
  flags: GOLD_FLAGS,
  accuracy: {
    value: 2 / 11,
    victories: 2,
    scored: 11,
    wilson95: closeInterval(wilson(2, 11)),
    interval: kornGraubard(372 / 14641, 198 / 14641, 8.672349e-7, 0.9547716, 11, 3),
    interval_reason: null,
  },
  raw_record: { values: [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], mean: 2 / 13 },
  completion: {
    value: 8 / 13,
    completed: 8,
    scheduled: 13,
    interval: kornGraubard(((4 / 3) * (1198 / 169)) / 169, 40 / 2197, 0.02886535, 0.9966063, 13, 4),
    interval_reason: null,
  },
  retry: ["t08"],
  dimensions: null,
  pass: null,
  pass_hat_k: passHat([
    [2, 5],
    [0, 5],
  ]),
  rewards: null,
  states: null,
  claimed: null,
  job: null,
  job_id: null,
  exceptions: null,
  warnings: [],
  log: null,
  inspect: null,
  usage: null,
  identity: nativeIdentity(["A", "B", "C"]),
};

// With --invalid exclude --resource-bound loss: t11 and t13 leave accuracy (still listed invalid);
// t07 becomes a scored loss (no longer excluded; still no ending, never retried).
//   scored = 11 − 2 + 1 = 10, victories 2. Completion and raw_record unchanged.
//   A: c=2, n=5; B: t04 t05 t06 t07 → c=0, n=4 → k = 1..4.
//   Accuracy's interval: 10 units in 3 clusters (A 2 of 5, B 0 of 4, t10 0 of 1), x̄ = 0.2.
//   Deviation sums 1, −0.8, −0.2; squares 1.68. SE = √(3/2 · 1.68)/10 = √2.52/10;
//   s² = (2·0.8² + 8·0.2²)/9 = 1.6/9, s²/n = 1.6/90. Korn–Graubard: SE_c² = 0.0252, SE_i² = 0.2·0.8/10
//   = 0.016, d = 1.575, n* = 6.349206; t(0.975, 9) = 2.262157 → ratio² = 0.525759² = 0.276422;
//   n*_df = 1.755062; successes 0.351012. lo = qbeta(0.025, 0.351012, 2.404049) = 9.368143e-6;
//   hi = qbeta(0.975, 1.351012, 1.404049) = 0.9442151.
const goldExcludeLoss = {
  ...goldDefaults,
  excluded: [{ trial: "t08", reason: NO_OUTCOME_REASON }],
  accuracy: {
    value: 2 / 10,
    victories: 2,
    scored: 10,
    wilson95: closeInterval(wilson(2, 10)),
    interval: kornGraubard(0.0252, 0.016, 9.368143e-6, 0.9442151, 10, 3),
    interval_reason: null,
  },
  pass_hat_k: passHat([
    [2, 5],
    [0, 4],
  ]),
};

/** Flags have no order in the contract: compare them sorted by trial, attempt, code. */
const canon = (xs: Experiment[]) =>
  xs.map((x) => ({
    ...x,
    flags: [...x.flags].sort((a, b) =>
      a.trial < b.trial
        ? -1
        : a.trial > b.trial
          ? 1
          : (a.attempt ?? 0) - (b.attempt ?? 0) || (a.code < b.code ? -1 : 1),
    ),
  }));

const byteSorted = (xs: string[]) => [...xs].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

describe("golden results for a synthesised corpus", () => {
  it("hand-derived constants are what the comments say", async () => {
    expect(
      passHatNumbers([
        [2, 5],
        [0, 5],
      ]),
    ).toEqual({ "1": expect.closeTo(0.2, 15), "2": expect.closeTo(0.05, 15), "3": 0, "4": 0, "5": 0 });
    expect(
      passHatNumbers([
        [2, 5],
        [0, 4],
      ]),
    ).toEqual({ "1": expect.closeTo(0.2, 15), "2": expect.closeTo(0.05, 15), "3": 0, "4": 0 });
    const [lo, hi] = wilson(2, 11);
    expect(lo).toBeGreaterThan(0.05);
    expect(lo).toBeLessThan(0.06); // Wilson 95% for 2/11 ≈ [0.0514, 0.4770]
    expect(hi).toBeCloseTo(0.477, 3);
    // Korn–Graubard's n*_df, as the comments above give them.
    expect((11 / (372 / 198)) * (T975[10] / T975[2]) ** 2).toBeCloseTo(1.570098, 6);
    expect((13 / (4792 / 1560)) * (T975[12] / T975[3]) ** 2).toBeCloseTo(1.983667, 6);
    expect((10 / 1.575) * (T975[9] / T975[2]) ** 2).toBeCloseTo(1.755062, 6);
  });

  it("experiments equal the hand derivation (defaults)", async () => {
    const r = await scoreRoots([root], DEFAULTS);
    expect(canon(r.experiments)).toEqual([zeta, goldDefaults]);
  });

  it("experiments equal the hand derivation (--invalid exclude, --resource-bound loss)", async () => {
    const r = await scoreRoots([root], { ...DEFAULTS, invalid: "exclude", resourceBound: "loss", errors: "exclude" });
    expect(canon(r.experiments)).toEqual([zeta, goldExcludeLoss]);
    expect(r.run.options).toMatchObject({ invalid: "exclude", resource_bound: "loss" });
  });

  it("bundles: one per attempt, at root/<experiment>/<trial>/a<n>, sorted by path in byte order, each judged as its spec says", async () => {
    const r = await scoreRoots([root], DEFAULTS);
    const paths = r.bundles.map((b) => b.path);
    expect(paths).toEqual(byteSorted(SPECS.map((s) => `${root}/${s.experiment}/${s.trial}/a${s.attempt}`)));
    expect(paths[0]).toBe(`${root}/Zeta/z1/a1`);
    // [validity, status, ending, victory] from the outcome names alone.
    const want: Record<string, [string, string, boolean, boolean | null]> = {
      "Zeta/z1/a1": ["valid", "completed", true, true],
      "Zeta/z2/a1": ["valid", "completed", true, false],
      "gold/t01/a1": ["valid", "completed", true, true],
      "gold/t02/a1": ["valid", "completed", true, false],
      "gold/t03/a1": ["valid", "abnormal", false, false],
      "gold/t03/a2": ["valid", "completed", true, true],
      "gold/t04/a1": ["valid", "completed", true, false],
      "gold/t04/a2": ["valid", "completed", true, true],
      "gold/t05/a1": ["valid", "completed", true, false],
      "gold/t06/a1": ["valid", "interrupted", false, false],
      "gold/t07/a1": ["valid", "resource-bound", false, false],
      "gold/t08/a1": ["valid", "unterminated", false, false],
      "gold/t08/a2": ["valid", "abnormal", false, false],
      "gold/t09/a1": ["valid", "unterminated", true, false],
      "gold/t10/a1": ["valid", "completed", true, false],
      "gold/t11/a1": ["invalid", "completed", true, null],
      "gold/t12/a1": ["valid", "abnormal", false, false],
      "gold/t12/a2": ["valid", "completed", true, false],
      "gold/t13/a1": ["valid", "abnormal", false, false],
      "gold/t13/a2": ["valid", "completed", true, true],
    };
    const got = Object.fromEntries(
      r.bundles.map((b) => [b.path.slice(root.length + 1), [b.validity, b.status, b.ending, b.victory]]),
    );
    expect(got).toEqual(want);
    const late = r.bundles.find((b) => b.path.endsWith("gold/t05/a1"))!;
    expect(late.late).toBe(true);
    const t11 = r.bundles.find((b) => b.path.endsWith("gold/t11/a1"))!;
    expect([...new Set(t11.errors.map((e) => e.code))]).toEqual(["SUMMARY_MISMATCH"]);
    const t03 = r.bundles.filter((b) => b.path.includes("gold/t03/"));
    expect(t03.map((b) => [b.experiment, b.trial, b.attempt, b.seed, b.task])).toEqual([
      ["gold", "t03", 1, seed(3), "C"],
      ["gold", "t03", 2, seed(3), "A"],
    ]);
  });

  it("the JSON document is byte-identical across runs apart from `run`", async () => {
    const a = await scoreRoots([root], DEFAULTS);
    const b = await scoreRoots([root], DEFAULTS);
    const fixedRun = a.run;
    const textA = renderText("json", a);
    const textB = renderText("json", { ...b, run: fixedRun });
    expect(textB).toBe(textA);
    // Assembling the same entries in another order changes nothing either.
    const c = assemble([...b.bundles].reverse(), DEFAULTS, a.run.started_at, { complete: true, roots: a.run.roots });
    expect(renderText("json", { ...c, run: fixedRun })).toBe(textA);
    // And the document parses back to the same value.
    expect(JSON.parse(textA)).toEqual(JSON.parse(JSON.stringify(a)));
    expect(Object.keys(JSON.parse(textA))).toEqual(["format", "run", "bundles", "experiments"]);
    expect(JSON.parse(textA).format).toBe("assay.results/1");
  });

  it("the CLI (`assay score ROOT --format json`) prints the same document", async () => {
    const r = await run(["score", root, "--format", "json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Results;
    expect(doc.format).toBe("assay.results/1");
    expect(canon(doc.experiments)).toEqual([zeta, goldDefaults]);
    const lib = await scoreRoots([root], DEFAULTS);
    expect(doc.bundles).toEqual(JSON.parse(JSON.stringify(lib.bundles)));
    expect(r.stdout).toBe(renderText("json", { ...lib, run: doc.run }));
    // The CLI's default is each profile's rule, which for native runs is "exclude": same experiments.
    expect(doc.run.options).toMatchObject({ invalid: "count", resource_bound: "default", schedules: [] });
  });

  it("the CLI honours --invalid exclude --resource-bound loss", async () => {
    const r = await run(["score", root, "--format", "json", "--invalid", "exclude", "--resource-bound", "loss"]);
    expect(r.code).toBe(0);
    expect(canon((JSON.parse(r.stdout) as Results).experiments)).toEqual([zeta, goldExcludeLoss]);
  });

  it("bundles are sorted by the byte order of path, not UTF-16 or locale order, across roots", async () => {
    // Byte order: "B" (42) < "a" (61) < U+E000 (EE 80 80) < U+1F600 (F0 9F 98 80).
    // UTF-16 order would put U+1F600 (D83D …) before U+E000; locale order would put "a" before "B".
    const names = ["\u{1F600}", "a", "\u{E000}", "B"];
    names.forEach((name, i) => {
      const dir = join(unicodeRoot, name);
      mkdirSync(dir);
      for (const [p, b] of synthNative({
        experiment: "uni",
        trial: `u${i}`,
        attempt: 1,
        seed: seed(40 + i),
        outcome: "death",
        events: 1,
      }))
        writeFileSync(join(dir, p), b);
    });
    const r = await scoreRoots([unicodeRoot, root], DEFAULTS);
    const paths = r.bundles.map((b) => b.path);
    expect(paths).toHaveLength(SPECS.length + 4);
    expect(paths).toEqual(byteSorted(paths));
    const uni = paths.filter((p) => p.startsWith(`${unicodeRoot}/`)).map((p) => p.slice(unicodeRoot.length + 1));
    expect(uni).toEqual(["B", "a", "\u{E000}", "\u{1F600}"]);
    // Experiments by id in byte order: "Zeta" < "gold" < "uni".
    expect(r.experiments.map((x) => x.experiment)).toEqual(["Zeta", "gold", "uni"]);
  });
});
