// §15.5 pre-registered criteria (`assay.criteria/1`): each parsing rule with a file it accepts and
// one it refuses (naming file, line and why), then each evaluation rule on both sides: the four
// comparators at their edge, thresholds read to the nearest binary64, interval bounds, and absent
// or null figures failing; what a statement records (criteria, preRegistration, #575 claims).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  CriteriaError,
  evaluateCriteria,
  holds,
  observe,
  parseCriteria,
  type CriteriaErrorCode,
} from "../src/core/attest/criteria.js";
import { hasPairedRules, type UnitsOf } from "../src/core/attest/paired.js";
import type { ExperimentProjection, MetricProjection, Statement } from "../src/core/attest/statement.js";
import type { Units } from "../src/core/compare/trials.js";

const parse = (text: string | Uint8Array) =>
  parseCriteria(typeof text === "string" ? Buffer.from(text, "utf8") : text, "crit.txt");
const rulesOf = (text: string) => parse(text).rules;

/** The error a file is refused with. */
function refusal(text: string | Uint8Array): CriteriaError {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof CriteriaError) return e;
    throw e;
  }
  throw new Error("accepted");
}
const refused = (text: string | Uint8Array, reason: CriteriaErrorCode, line: number | null) => {
  const e = refusal(text);
  expect({ reason: e.reason, line: e.line, file: e.file }).toEqual({ reason, line, file: "crit.txt" });
  expect(e.message).toMatch(
    line === null ? /^criteria crit\.txt: / : new RegExp(`^criteria crit\\.txt line ${line}: `),
  );
};

describe("parsing assay.criteria/1", () => {
  it("reads one rule a line, blank-separated (spaces or tabs, any number)", () => {
    expect(rulesOf("a rewards/reward >= 0.5\nb\tpass  <\t1\n")).toEqual([
      { line: 1, experiment: "a", metric: "rewards/reward", comparator: ">=", threshold: "0.5" },
      { line: 2, experiment: "b", metric: "pass", comparator: "<", threshold: "1" },
    ]);
  });

  it("skips blank lines and lines starting with #, numbering lines as the file does", () => {
    expect(rulesOf("# bars\n\n   \t\na m > 0\n#x y z w\n").map((r) => r.line)).toEqual([4]);
    // A # after blanks starts no comment: it is a field, and the line is refused.
    refused("  # a comment?\n", "CRITERIA_FIELDS", 1);
  });

  it("takes a JSON string as one field, blanks and escapes included", () => {
    const [r] = rulesOf('"clean-0 (openai/gpt-4o-mini)" "inspect/match/mean/accuracy" >= 0.8\n');
    expect(r).toMatchObject({ experiment: "clean-0 (openai/gpt-4o-mini)", metric: "inspect/match/mean/accuracy" });
    expect(rulesOf('"a \\"b\\"\\u00e9" m >= 1')[0]!.experiment).toBe('a "b"é');
    refused('"never closed m >= 1', "CRITERIA_FIELDS", 1);
    refused('"a"b m >= 1', "CRITERIA_FIELDS", 1);
  });

  it("wants exactly four fields", () => {
    refused("ok m >= 1\na m >=\n", "CRITERIA_FIELDS", 2);
    refused("a m >= 1 extra\n", "CRITERIA_FIELDS", 1);
    refused('a "" >= 1\n', "CRITERIA_FIELDS", 1);
  });

  it("knows #575's four comparators, and no other", () => {
    for (const c of [">=", ">", "<=", "<"]) expect(rulesOf(`a m ${c} 1`)[0]!.comparator).toBe(c);
    for (const c of ["==", "=>", "!=", "ge"]) refused(`a m ${c} 1`, "CRITERIA_COMPARATOR", 1);
  });

  it("keeps a threshold as written, when it is a finite decimal literal", () => {
    for (const t of ["0.5", "-1", "0", "1e-3", "2.50E+1", "0.30000000000000004"])
      expect(rulesOf(`a m >= ${t}`)[0]!.threshold).toBe(t);
    for (const t of [".5", "1.", "+1", "01", "0x1", "NaN", "Infinity", "1e400", "1,5", "½"])
      refused(`a m >= ${t}`, "CRITERIA_THRESHOLD", 1);
  });

  it("is UTF-8 without a byte order mark; a CRLF line end is read as a line end", () => {
    refused(Buffer.from([0x61, 0x20, 0xff, 0x0a]), "ENCODING", null);
    refused("\uFEFFa m >= 1\n", "ENCODING", 1);
    expect(rulesOf("a m >= 1\r\nb m < 2\r\n").map((r) => [r.experiment, r.threshold])).toEqual([
      ["a", "1"],
      ["b", "2"],
    ]);
  });

  it("digests the file's bytes as given", () => {
    const bytes = Buffer.from("a m >= 1\r\n# note\n");
    expect(parse(bytes).sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(parse("").rules).toEqual([]);
  });
});

const metric = (name: string, value: number | null, interval: [number, number] | null = null): MetricProjection => ({
  name,
  value,
  successes: null,
  units: 10,
  planned: 10,
  clusters: interval === null ? null : 5,
  interval: interval === null ? null : { method: "t", lo: interval[0], hi: interval[1] },
  intervalReason: interval === null ? "one trial" : null,
});
const experiment = (name: string, metrics: MetricProjection[]): ExperimentProjection => ({
  experiment: name,
  profile: "harbor",
  evidence: { leaves: 0, merkleRoot: "" },
  counts: { entries: 0, valid: 0, invalid: 0, toolErrors: 0, scheduled: 0, missing: 0, excluded: 0, unscored: 0 },
  invalidCodes: {},
  flags: {},
  metrics,
  claims: [],
});
const FIGURES = [
  experiment("a", [metric("rewards/reward", 0.5, [0.25, 0.75]), metric("rewards/none", null), metric("odd.lo", 7)]),
  experiment("b", [metric("rewards/reward", 0.1 + 0.2)]),
];

describe("evaluating rules over a projection's figures", () => {
  it("each comparator, at its edge and on either side", () => {
    const cases: [string, number, boolean][] = [
      [">=", 0.5, true],
      [">=", 0.50001, false],
      [">", 0.5, false],
      [">", 0.49999, true],
      ["<=", 0.5, true],
      ["<=", 0.49999, false],
      ["<", 0.5, false],
      ["<", 0.50001, true],
    ];
    for (const [c, t, passed] of cases) expect([c, t, holds(0.5, c, String(t))]).toEqual([c, t, passed]);
  });

  it("reads the threshold to the nearest binary64, as JSON.parse does", () => {
    expect(observe(FIGURES, "b", "rewards/reward")).toBe(0.30000000000000004);
    expect(holds(0.1 + 0.2, ">=", "0.3")).toBe(true);
    expect(holds(0.1 + 0.2, "<=", "0.3")).toBe(false);
    expect(holds(0.1 + 0.2, "<=", "0.30000000000000004")).toBe(true);
    // Closer to 0.3 than to the next double: the same binary64 as 0.3.
    expect(holds(0.3, ">=", "0.30000000000000001")).toBe(true);
  });

  it("METRIC.lo and METRIC.hi are the interval's bounds; a name as written wins", () => {
    expect(observe(FIGURES, "a", "rewards/reward.lo")).toBe(0.25);
    expect(observe(FIGURES, "a", "rewards/reward.hi")).toBe(0.75);
    expect(observe(FIGURES, "a", "odd.lo")).toBe(7);
    expect(observe(FIGURES, "a", "rewards/reward.mid")).toBeNull();
  });

  it("an absent or null figure fails, whatever the comparator", () => {
    for (const [e, m] of [
      ["a", "rewards/none"],
      ["a", "rewards/none.lo"],
      ["a", "rewards/missing"],
      ["z", "rewards/reward"],
    ] as const) {
      expect(observe(FIGURES, e, m)).toBeNull();
      for (const c of [">=", ">", "<=", "<"]) expect(holds(null, c, "0")).toBe(false);
    }
  });

  it("records criteria, preRegistration and #575's claims in the statement's shape", () => {
    const c = parse("a rewards/reward >= 0.5\na rewards/reward.lo >= 0.5\nz pass < 1\n");
    expect(evaluateCriteria(c, FIGURES)).toEqual({
      criteria: {
        digest: { sha256: c.sha256 },
        rules: [
          {
            experiment: "a",
            metric: "rewards/reward",
            comparator: ">=",
            threshold: "0.5",
            observed: 0.5,
            passed: true,
          },
          {
            experiment: "a",
            metric: "rewards/reward.lo",
            comparator: ">=",
            threshold: "0.5",
            observed: 0.25,
            passed: false,
          },
          { experiment: "z", metric: "pass", comparator: "<", threshold: "1", observed: null, passed: false },
        ],
      },
      preRegistration: { alg: "sha256", value: c.sha256 },
      claims: [
        { metric: "a:rewards/reward", comparator: ">=", threshold: "0.5", passed: true },
        { metric: "a:rewards/reward.lo", comparator: ">=", threshold: "0.5", passed: false },
        { metric: "z:pass", comparator: "<", threshold: "1", passed: false },
      ],
    });
  });
});

// Paired rules: `HEAD - BASE METRIC COMPARATOR THRESHOLD`, decided on HEAD − BASE over the units
// both experiments count (core/compare's pairing, test and interval), never on two means.
describe("paired rules (HEAD - BASE METRIC …)", () => {
  const units = (unit: Units["unit"], pairs: Record<string, number>, clusters?: (string | null)[]): Units => ({
    unit,
    ids: Object.keys(pairs),
    values: Float64Array.from(Object.values(pairs)),
    checksums: null,
    reason: null,
    ...(clusters === undefined ? {} : { clusters }),
  });
  const tasks = (vs: number[], from = 0) => Object.fromEntries(vs.map((v, i) => [`t${i + from}`, v]));
  const BASE = tasks([0, 0, 0.5, 1, 0, 0.5, 0, 0.5]);
  const HEAD = tasks([0.5, 0.5, 1, 1, 0.5, 0.5, 0.5, 1]); // +0.375 on average (paired t: 0.18 to 0.57)
  const of =
    (m: Record<string, Record<string, Units>>): UnitsOf =>
    (experiment) => {
      const x = m[experiment ?? ""];
      return x === undefined ? undefined : new Map(Object.entries(x));
    };
  const UNITS = of({
    a: { "reward/reward/mean": units("task", BASE) },
    b: { "reward/reward/mean": units("task", HEAD) },
    far: { "reward/reward/mean": units("task", tasks([1, 1], 100)) },
  });
  const PAIRED_FIGURES = [
    ...FIGURES,
    experiment("far", [metric("rewards/reward", 1)]),
    { ...experiment("log", [metric("inspect/match/mean/accuracy", 0.5)]), profile: "inspect" },
  ];
  const rule = (text: string) => evaluateCriteria(parse(text), PAIRED_FIGURES, UNITS).criteria.rules[0]!;

  it("parses six fields with a bare - as a paired rule; the single form is unchanged", () => {
    expect(rulesOf('b - a rewards/reward.lo >= 0.05\n"b 2" - "a 1" pass > 0\nb rewards/reward >= 0\n')).toEqual([
      { line: 1, experiment: "b", baseline: "a", metric: "rewards/reward.lo", comparator: ">=", threshold: "0.05" },
      { line: 2, experiment: "b 2", baseline: "a 1", metric: "pass", comparator: ">", threshold: "0" },
      { line: 3, experiment: "b", metric: "rewards/reward", comparator: ">=", threshold: "0" },
    ]);
    refused("b vs a rewards/reward >= 0.05\n", "CRITERIA_FIELDS", 1);
    refused("b - a rewards/reward >=\n", "CRITERIA_FIELDS", 1);
    refused("b - b rewards/reward >= 0\n", "CRITERIA_FIELDS", 1);
    refused("b - a rewards/reward == 0\n", "CRITERIA_COMPARATOR", 1);
    refused("b - a rewards/reward >= .5\n", "CRITERIA_THRESHOLD", 1);
  });

  it("observes the mean paired difference, and with .lo / .hi its interval's bounds", () => {
    const mean = rule("b - a rewards/reward >= 0.375");
    expect(mean).toMatchObject({ experiment: "b", baseline: "a", observed: 0.375, passed: true });
    expect(mean.paired).toMatchObject({ unit: "task", pairs: 8, onlyBase: 0, onlyHead: 0, meanDiff: 0.375 });
    expect(mean.paired!.interval!.method).toBe("paired-t");
    expect(mean.paired!.assumes).toMatch(/paired t: the tasks are taken as independent/);
    const lo = rule("b - a rewards/reward.lo >= 0.05");
    expect(lo.observed).toBe(mean.paired!.interval!.lo);
    expect(lo.observed!).toBeGreaterThan(0.05);
    expect(lo.passed).toBe(true);
    // The other side of the bar, and of the sign: A does not beat B.
    expect(rule("b - a rewards/reward > 0.375").passed).toBe(false);
    expect(rule("b - a rewards/reward.lo >= 0.2").passed).toBe(false);
    expect(rule("a - b rewards/reward.hi < 0").observed).toBeCloseTo(-mean.paired!.interval!.lo, 12);
    expect(rule("a - b rewards/reward > 0").passed).toBe(false);
  });

  it("is decided on the pairs, not on two means: units only one side counts are left out and named", () => {
    const split = of({
      a: { "reward/reward/mean": units("task", { ...BASE, extra: 0 }) },
      b: { "reward/reward/mean": units("task", { ...HEAD, t9: 1, t10: 1 }) },
    });
    const r = evaluateCriteria(parse("b - a rewards/reward >= 0.375"), PAIRED_FIGURES, split).criteria.rules[0]!;
    expect(r).toMatchObject({ observed: 0.375, passed: true });
    expect(r.paired).toMatchObject({ pairs: 8, onlyBase: 1, onlyHead: 2 });
    expect(r.paired!.unpaired.join("; ")).toMatch(/only in BASE: 1 task.*only in HEAD: 2 tasks/);
  });

  it("clustered units give the cluster-paired interval, and say so", () => {
    const clusters = ["x", "x", "y", "y", "z", "z", "w", "w"];
    const c = of({
      a: { "reward/reward/mean": units("task", BASE, clusters) },
      b: { "reward/reward/mean": units("task", HEAD, clusters) },
    });
    const r = evaluateCriteria(parse("b - a rewards/reward.lo >= 0"), PAIRED_FIGURES, c).criteria.rules[0]!;
    expect(r.paired).toMatchObject({ clusters: 4, interval: { method: "cluster-paired-t" } });
    expect(r.paired!.assumes).toMatch(/cluster-paired t over 4 clusters/);
    expect(r.observed).toBe(r.paired!.interval!.lo);
  });

  it("fails, saying why, where nothing pairs: no experiment, other kinds, a metric without units, no common unit", () => {
    const cases: [string, RegExp][] = [
      ["b - nowhere rewards/reward >= 0", /no experiment "nowhere"/],
      ["log - a rewards/reward >= 0", /HEAD is inspect, BASE harbor/],
      ["b - a rewards/none >= 0", /"rewards\/none" has no units to pair/],
      ["b - a completion >= 0", /"completion" has no units to pair/],
      ["far - a rewards/reward <= 1", /no task|0 tasks|no pair/i],
    ];
    for (const [text, why] of cases) {
      const r = rule(text);
      expect({ text, observed: r.observed, passed: r.passed }).toEqual({ text, observed: null, passed: false });
      expect(r.paired!.reason, text).toMatch(why);
      for (const c of ["<", "<=", ">", ">="]) expect(holds(r.observed, c, "0")).toBe(false);
    }
    // Without units at all (a caller that read none), a paired rule never passes.
    expect(evaluateCriteria(parse("b - a rewards/reward >= 0"), PAIRED_FIGURES).criteria.rules[0]!.passed).toBe(false);
  });

  it("a statement has paired rules only where a rule names a BASE (then verify gathers unit values, else not)", () => {
    const withRules = (text: string) =>
      ({ predicate: evaluateCriteria(parse(text), PAIRED_FIGURES, UNITS) }) as unknown as Statement;
    expect(hasPairedRules(withRules("b - a rewards/reward >= 0\nb rewards/reward >= 0\n"))).toBe(true);
    expect(hasPairedRules(withRules("b rewards/reward >= 0\n"))).toBe(false);
    expect(hasPairedRules({ predicate: {} } as unknown as Statement)).toBe(false);
    expect(hasPairedRules(null)).toBe(false);
  });

  it("records #575's claim as HEAD - BASE:METRIC", () => {
    const e = evaluateCriteria(parse("b - a rewards/reward.lo >= 0.05\n"), PAIRED_FIGURES, UNITS);
    expect(e.claims).toEqual([
      { metric: "b - a:rewards/reward.lo", comparator: ">=", threshold: "0.05", passed: true },
    ]);
  });
});
