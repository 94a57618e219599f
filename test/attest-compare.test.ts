// §15.6 a signed statement against the verifier's own: none for an identical pair, and every code
// produced by an edit of the field it guards, at each place the edit touches. The statements are
// the demo corpus's (every kind) scored by the real CLI; the recounts score it again, as is, with
// another option, and with a reward file edited.
//
// Workers run compiled code (dist/): `npm run build` first.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { passes, type AttestCode, type AttestFailure } from "../src/core/attest/codes.js";
import { BOUND_TOLERANCE, compareStatements, jsonEqual, type CompareOptions } from "../src/core/attest/compare.js";
import { evaluateCriteria, parseCriteria, type Criteria } from "../src/core/attest/criteria.js";
import { readStatement } from "../src/core/attest/statement-schema.js";
import type { ExperimentProjection, Statement } from "../src/core/attest/statement.js";
import type { Results } from "../src/core/results.js";
import { copy, demoDocument, project, scoreDocument } from "./helpers/attest.js";
import { scratch } from "./helpers/shared.js";

const { fresh } = scratch("assay-attest-compare-");

let doc: Results;
let bytes: Buffer;
let corpus: string;
let base: Statement;
let criteria: Criteria;
const HARBOR = "2025-11-03__10-00-00";
const CRITERIA = `${HARBOR} rewards/reward >= 0.5\n${HARBOR} rewards/reward.lo >= 0.5\n"synth-world" pass > 0.9\n`;

/** A statement with the criteria evaluated over its own figures, as attest records them. */
const withCriteria = (s: Statement, c: Criteria = criteria): Statement => ({
  ...s,
  predicate: { ...s.predicate, ...evaluateCriteria(c, s.predicate.experiments) },
});

beforeAll(async () => {
  const demo = await demoDocument(fresh("demo"));
  ({ doc, bytes, corpus } = demo);
  criteria = parseCriteria(Buffer.from(CRITERIA), "criteria.txt");
  base = withCriteria(project(doc, bytes));
});

/** The failures of an edited copy of the signed statement against the document's own. */
function edited(edit: (s: Statement) => void, opts: Partial<CompareOptions> = {}): AttestFailure[] {
  const signed = copy(base);
  edit(signed);
  return compareStatements(signed, base, { recount: false, criteria, ...opts });
}
const codes = (fs: AttestFailure[]): [AttestCode, string][] => fs.map((f) => [f.code, f.where]);
const harbor = (s: Statement): ExperimentProjection => s.predicate.experiments.find((e) => e.experiment === HARBOR)!;

describe("an identical pair", () => {
  it("has no failure: from the document, and given the criteria file", () => {
    expect(compareStatements(copy(base), base, { recount: false, criteria })).toEqual([]);
    expect(compareStatements(copy(base), base, { recount: true })).toEqual([]);
  });

  it("compares as JSON values: 1 is not true, null is not absent, member order does not count", () => {
    expect(jsonEqual({ a: 1, b: [null] }, { b: [null], a: 1 })).toBe(true);
    expect(jsonEqual(1, true)).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual("1", 1)).toBe(false);
  });
});

describe("each code from an edit of what it guards", () => {
  it("DIGEST_MISMATCH: the document's digest (not on recount, unless the document is given)", () => {
    const edit = (s: Statement) => void (s.subject[0]!.digest["sha256"] = "0".repeat(64));
    expect(codes(edited(edit))).toEqual([["DIGEST_MISMATCH", "subject.sha256"]]);
    expect(edited(edit, { recount: true })).toEqual([]);
    expect(codes(edited(() => {}, { recount: true, documentSha256: "1".repeat(64) }))).toEqual([
      ["DIGEST_MISMATCH", "subject.sha256"],
    ]);
  });

  it("DIGEST_MISMATCH: the evidence root, in the subject and the predicate; an experiment's root", () => {
    expect(codes(edited((s) => void (s.subject[1]!.digest["assayEvidenceMerkle1"] = "0".repeat(64))))).toEqual([
      ["DIGEST_MISMATCH", "subject.assayEvidenceMerkle1"],
    ]);
    expect(codes(edited((s) => void (s.predicate.evidence.merkleRoot = "0".repeat(64))))).toEqual([
      ["DIGEST_MISMATCH", "evidence.merkleRoot"],
    ]);
    expect(codes(edited((s) => void (harbor(s).evidence.merkleRoot = "0".repeat(64))))).toEqual([
      ["DIGEST_MISMATCH", `experiments["${HARBOR}"].evidence.merkleRoot`],
    ]);
  });

  it("SUBJECT_MISSING: either subject absent", () => {
    expect(codes(edited((s) => void s.subject.shift()))).toEqual([["SUBJECT_MISSING", "subject"]]);
    const f = edited((s) => void s.subject.pop());
    expect(codes(f)).toEqual([["SUBJECT_MISSING", "subject"]]);
    expect(f[0]!.detail).toMatch(/assayEvidenceMerkle1/);
  });

  it("OPTIONS_MISMATCH: each option", () => {
    const values = { invalid: "exclude", resource_bound: "loss", errors: "zero", schedules: ["x:y"], hmac_key: "k" };
    for (const [k, v] of Object.entries(values))
      expect(codes(edited((s) => void Object.assign(s.predicate.options, { [k]: v })))).toEqual([
        ["OPTIONS_MISMATCH", `options.${k}`],
      ]);
  });

  it("SCORING_VERSION: and then no figure, count or claim is compared; the document's tool version", () => {
    const f = edited((s) => {
      s.predicate.harness.scoringVersion += 1;
      harbor(s).metrics[0]!.value = 0;
      harbor(s).counts.valid += 1;
    });
    expect(codes(f)).toEqual([["SCORING_VERSION", "harness.scoringVersion"]]);
    expect(codes(edited((s) => void (s.predicate.harness.version = "0.0.9")))).toEqual([
      ["SCORING_VERSION", "harness.version"],
    ]);
  });

  it("HARNESS_DIFFERS: another build at the same scoring version, on recount: a warning that passes", () => {
    const f = edited(
      (s) => {
        s.predicate.harness.runtime = "node v22.0.0";
        s.predicate.harness.digest = { dirHash: "e".repeat(64) };
        s.predicate.harness.version = "0.2.0";
      },
      { recount: true },
    );
    expect(codes(f)).toEqual([
      ["HARNESS_DIFFERS", "harness.version"],
      ["HARNESS_DIFFERS", "harness.runtime"],
      ["HARNESS_DIFFERS", "harness.digest"],
    ]);
    expect(passes(f)).toBe(true);
    expect(passes([...f, { code: "COUNT_MISMATCH", where: "x", detail: "y" }])).toBe(false);
  });

  it("EXPERIMENT_MISMATCH: on one side only, or another profile", () => {
    expect(codes(edited((s) => void s.predicate.experiments.splice(0, 1)))).toEqual([
      ["EXPERIMENT_MISMATCH", `experiments["${HARBOR}"]`],
    ]);
    expect(codes(edited((s) => void (harbor(s).experiment = "renamed")))).toEqual([
      ["EXPERIMENT_MISMATCH", `experiments["renamed"]`],
      ["EXPERIMENT_MISMATCH", `experiments["${HARBOR}"]`],
    ]);
    expect(codes(edited((s) => void (harbor(s).profile = "terminal-bench")))).toEqual([
      ["EXPERIMENT_MISMATCH", `experiments["${HARBOR}"].profile`],
    ]);
  });

  it("COUNT_MISMATCH: counts, invalidCodes, flags, results, evidence counts and leaves", () => {
    const cases: [(s: Statement) => void, string][] = [
      [(s) => void (harbor(s).counts.valid += 1), `experiments["${HARBOR}"].counts.valid`],
      [(s) => void (harbor(s).counts.missing = 5), `experiments["${HARBOR}"].counts.missing`],
      [(s) => void (harbor(s).invalidCodes["SCHEMA"] = 1), `experiments["${HARBOR}"].invalidCodes["SCHEMA"]`],
      [(s) => void delete harbor(s).flags["STEP_EXCEPTION"], `experiments["${HARBOR}"].flags["STEP_EXCEPTION"]`],
      [(s) => void (harbor(s).evidence.leaves += 1), `experiments["${HARBOR}"].evidence.leaves`],
      [(s) => void (s.predicate.results.complete = false), "results.complete"],
      [(s) => void (s.predicate.results.unrecognised = 2), "results.unrecognised"],
      [(s) => void (s.predicate.evidence.entries -= 1), "evidence.entries"],
      [(s) => void (s.predicate.evidence.containers = 9), "evidence.containers"],
      [(s) => void (s.subject[1]!.annotations = { leaves: 1 }), "subject.annotations.leaves"],
    ];
    for (const [edit, where] of cases) expect(codes(edited(edit))).toEqual([["COUNT_MISMATCH", where]]);
  });

  it("FIGURE_MISMATCH: each field of a metric, and a metric on one side only", () => {
    const w = `experiments["synth-native"].metrics["accuracy"]`;
    const native = (s: Statement) => s.predicate.experiments.find((e) => e.experiment === "synth-native")!.metrics[0]!;
    const cases: [(s: Statement) => void, string][] = [
      [(s) => void (native(s).value = 0.5), `${w}.value`],
      [(s) => void (native(s).successes = 3), `${w}.successes`],
      [(s) => void (native(s).units = 1), `${w}.units`],
      [(s) => void (native(s).planned = 1), `${w}.planned`],
      [(s) => void (native(s).clusters = 1), `${w}.clusters`],
      [(s) => void (native(s).intervalReason = "why"), `${w}.intervalReason`],
      [(s) => void (native(s).interval!.method = "t"), `${w}.interval`],
      [(s) => void (native(s).interval = null), `${w}.interval`],
    ];
    for (const [edit, where] of cases) expect(codes(edited(edit))).toEqual([["FIGURE_MISMATCH", where]]);
    expect(
      codes(edited((s) => void s.predicate.experiments.find((e) => e.experiment === "synth-native")!.metrics.pop())),
    ).toEqual([["FIGURE_MISMATCH", `experiments["synth-native"].metrics["completion"]`]]);
  });

  it("FIGURE_MISMATCH: interval bounds within 1e-12 pass on recount only", () => {
    const w = `experiments["synth-native"].metrics["accuracy"].interval`;
    const nudge = (by: number) => (s: Statement) => {
      s.predicate.experiments.find((e) => e.experiment === "synth-native")!.metrics[0]!.interval!.lo += by;
    };
    expect(edited(nudge(BOUND_TOLERANCE / 4), { recount: true })).toEqual([]);
    expect(codes(edited(nudge(BOUND_TOLERANCE / 4)))).toEqual([["FIGURE_MISMATCH", w]]);
    expect(codes(edited(nudge(BOUND_TOLERANCE * 10), { recount: true }))).toEqual([["FIGURE_MISMATCH", `${w}.lo`]]);
    // Any other figure is exact on recount too.
    const value = (s: Statement) =>
      void (s.predicate.experiments.find((e) => e.experiment === "synth-native")!.metrics[0]!.value! += 1e-15);
    expect(codes(edited(value, { recount: true }))).toEqual([
      ["FIGURE_MISMATCH", `experiments["synth-native"].metrics["accuracy"].value`],
    ]);
  });

  it("CLAIM_MISMATCH: the archive's claim, assay's recount of it, its verdict; a claim on one side only", () => {
    const c = harbor(base).claims[0]!;
    const w = `experiments["${HARBOR}"].claims[${JSON.stringify([c.source, c.metric])}]`;
    expect(c).toMatchObject({ claimed: 0.75, verdict: "differs" });
    for (const [k, v] of [
      ["claimed", 0.5],
      ["recounted", 0.5],
      ["verdict", "agrees"],
    ] as const)
      expect(codes(edited((s) => void Object.assign(harbor(s).claims[0]!, { [k]: v })))).toEqual([
        ["CLAIM_MISMATCH", `${w}.${k}`],
      ]);
    expect(codes(edited((s) => void harbor(s).claims.pop()))).toEqual([["CLAIM_MISMATCH", w]]);
  });

  it("a figure edited with its claim, re-signed: shows at both places", () => {
    const f = edited((s) => {
      harbor(s).metrics[0]!.value = 0.9;
      harbor(s).claims[0]!.recounted = 0.9;
    });
    expect(f.map((x) => x.code)).toEqual(["FIGURE_MISMATCH", "CLAIM_MISMATCH"]);
  });

  it("CRITERIA_MISMATCH: another file, a rule edited, observed or passed not what the figures give", () => {
    const other = parseCriteria(Buffer.from(CRITERIA.replace(">= 0.5", ">= 0.4")), "other.txt");
    expect(codes(edited(() => {}, { criteria: other }))).toEqual([
      ["CRITERIA_MISMATCH", "criteria.digest.sha256"],
      ["CRITERIA_MISMATCH", "criteria.rules"],
    ]);
    // A failed rule flipped, its claim too, and re-signed.
    const lo = base.predicate.criteria!.rules[1]!;
    expect(lo).toMatchObject({ metric: "rewards/reward.lo", passed: false });
    const flipped = (s: Statement) => {
      s.predicate.criteria!.rules[1]!.passed = true;
      s.predicate.claims![1]!.passed = true;
    };
    expect(codes(edited(flipped))).toEqual([["CRITERIA_MISMATCH", "criteria.rules[1].passed"]]);
    // Without the file the verifier still re-evaluates every signed rule.
    expect(codes(edited(flipped, { criteria: null }))).toEqual([["CRITERIA_MISMATCH", "criteria.rules[1].passed"]]);
    // Even at another scoring version, a verdict must follow from its own figure.
    expect(
      codes(
        edited((s) => {
          flipped(s);
          s.predicate.harness.scoringVersion += 1;
        }),
      ),
    ).toEqual([
      ["SCORING_VERSION", "harness.scoringVersion"],
      ["CRITERIA_MISMATCH", "criteria.rules[1].passed"],
    ]);
    expect(codes(edited((s) => void (s.predicate.criteria!.rules[0]!.observed = 0.1)))).toEqual([
      ["CRITERIA_MISMATCH", "criteria.rules[0].observed"],
    ]);
    expect(codes(edited((s) => void (s.predicate.claims![0]!.passed = false)))).toEqual([
      ["CRITERIA_MISMATCH", "claims"],
    ]);
    expect(codes(edited((s) => void (s.predicate.preRegistration!.value = "0".repeat(64))))).toEqual([
      ["CRITERIA_MISMATCH", "preRegistration"],
    ]);
    // A file given to a statement made without one; criteria's fields without criteria.
    const bare = project(doc, bytes);
    expect(codes(compareStatements(copy(bare), bare, { recount: false, criteria }))).toEqual([
      ["CRITERIA_MISMATCH", "criteria"],
    ]);
    const stray = { ...copy(bare), predicate: { ...copy(bare).predicate, claims: [] } };
    expect(codes(compareStatements(stray, bare, { recount: false }))).toEqual([["CRITERIA_MISMATCH", "claims"]]);
  });
});

describe("STATEMENT_MALFORMED: a payload read as a statement first", () => {
  const read = (edit: (s: any) => void) => {
    const s = JSON.parse(JSON.stringify(base)) as any;
    edit(s);
    return readStatement(s);
  };
  const malformed = (edit: (s: any) => void): [string, string][] => {
    const r = read(edit);
    if (!("failures" in r)) throw new Error("read as a statement");
    return r.failures.map((f) => [f.code, f.where]);
  };

  it("reads a statement as written, unknown fields ignored", () => {
    expect(read(() => {})).toEqual({ statement: base });
    const r = read((s) => {
      s.predicate.evaluator = { id: "x" };
      s.predicate.experiments[0].extra = 1;
    });
    expect("statement" in r).toBe(true);
  });

  it("refuses another type, predicate or assurance level", () => {
    expect(malformed((s) => (s._type = "https://in-toto.io/Statement/v0.1"))).toEqual([
      ["STATEMENT_MALFORMED", "_type"],
    ]);
    expect(malformed((s) => (s.predicateType = "https://in-toto.io/attestation/eval-result/v0.1"))).toEqual([
      ["STATEMENT_MALFORMED", "predicateType"],
    ]);
    expect(malformed((s) => (s.predicate.assuranceLevel = "self_attested"))).toEqual([
      ["STATEMENT_MALFORMED", "predicate.assuranceLevel"],
    ]);
  });

  it("refuses a required field missing or of another type, naming where", () => {
    expect(malformed((s) => delete s.predicate.options)).toEqual([["STATEMENT_MALFORMED", "predicate.options"]]);
    expect(malformed((s) => (s.predicate.experiments[0].counts.valid = -1))).toEqual([
      ["STATEMENT_MALFORMED", "predicate.experiments[0].counts.valid"],
    ]);
    expect(malformed((s) => (s.predicate.experiments[0].metrics[0].value = "1"))).toEqual([
      ["STATEMENT_MALFORMED", "predicate.experiments[0].metrics[0].value"],
    ]);
    expect(malformed((s) => (s.predicate.criteria.rules[0].comparator = "=="))).toEqual([
      ["STATEMENT_MALFORMED", "predicate.criteria.rules[0].comparator"],
    ]);
    expect(malformed((s) => (s.predicate.claims[0].threshold = 0.5))).toEqual([
      ["STATEMENT_MALFORMED", "predicate.claims[0].threshold"],
    ]);
    expect("failures" in readStatement(null)).toBe(true);
  });
});

describe("recounts: the demo corpus scored again", () => {
  const recount = async (label: string, extra: string[] = []) => {
    const folders = ["runs", "worlds", "jobs", "logs", "swe"].map((f) => join(corpus, f));
    const again = await scoreDocument(folders, fresh(label), "again.json", extra);
    return project(again.doc, again.bytes);
  };

  it("as it is: every figure, count and root agrees", async () => {
    const again = withCriteria(await recount("same"));
    expect(compareStatements(base, again, { recount: true, criteria })).toEqual([]);
  });

  it("with --errors zero: OPTIONS_MISMATCH, and the figures it changes", async () => {
    const f = compareStatements(base, withCriteria(await recount("zero", ["--errors", "zero"])), { recount: true });
    expect(f[0]).toMatchObject({ code: "OPTIONS_MISMATCH", where: "options.errors" });
    expect(f.map((x) => x.code)).toContain("FIGURE_MISMATCH");
  });

  it("with a reward file edited: DIGEST_MISMATCH at the archive's and the job's roots, and the figure", async () => {
    const reward = join(corpus, "jobs", HARBOR, "task-0__2b4f676e", "verifier", "reward.txt");
    const was = readFileSync(reward);
    writeFileSync(reward, "0");
    try {
      const f = compareStatements(base, withCriteria(await recount("edited")), { recount: true });
      const where = codes(f);
      expect(where).toContainEqual(["DIGEST_MISMATCH", "subject.assayEvidenceMerkle1"]);
      expect(where).toContainEqual(["DIGEST_MISMATCH", "evidence.merkleRoot"]);
      expect(where).toContainEqual(["DIGEST_MISMATCH", `experiments["${HARBOR}"].evidence.merkleRoot`]);
      expect(where).toContainEqual(["FIGURE_MISMATCH", `experiments["${HARBOR}"].metrics["rewards/reward"].value`]);
      // Only the job's experiment changed.
      expect(f.every((x) => !x.where.startsWith("experiments[") || x.where.includes(HARBOR))).toBe(true);
    } finally {
      writeFileSync(reward, was);
    }
  });
});
