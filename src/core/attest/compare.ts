// §15.6: a signed statement against one recomputed by the verifier (from the document given, or
// from a recount of the evidence). Every check runs, so an edit shows at each place it touches;
// values compare exactly as JSON values, but for interval bounds on recount (1e-12: they pass
// through Math.exp/log, which ECMAScript leaves implementation-approximated).

import type { AttestCode, AttestFailure } from "./codes.js";
import { claimMetric, evaluateCriteria, holds, type Criteria } from "./criteria.js";
import type { UnitsOf } from "./paired.js";
import {
  EVIDENCE_ALG,
  type ExperimentProjection,
  type MetricProjection,
  type Predicate,
  type Statement,
} from "./statement.js";

export interface CompareOptions {
  /** The recomputed statement comes from a recount (ROOT…), not from the attested document itself. */
  recount: boolean;
  /** The criteria file given to the verifier: its digest and rules must be the statement's. */
  criteria?: Criteria | null;
  /**
   * The SHA-256 of the document given (--results). Without it, subject 1 is compared with the
   * recomputed statement's unless on recount (a recount never reproduces the document's bytes).
   */
  documentSha256?: string | null;
  /** The recomputed side's units (the document's or the recount's entries): paired criteria are re-evaluated over them. */
  units?: UnitsOf;
}

/** §15.6's tolerance on recounted interval bounds. */
export const BOUND_TOLERANCE = 1e-12;

/** Deep equality of JSON values: same types, same members, numbers by value (1 ≠ true, null ≠ absent), within `tolerance` if given. */
export function jsonEqual(a: unknown, b: unknown, tolerance = 0): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b) <= tolerance;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    return a.length === y.length && a.every((v, i) => jsonEqual(v, y[i], tolerance));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return (
    keys.length === Object.keys(y).length &&
    keys.every((k) => Object.prototype.hasOwnProperty.call(y, k) && jsonEqual(x[k], y[k], tolerance))
  );
}

/** A member of a parsed object, never one it inherits ("constructor"). */
const own = (o: Record<string, unknown> | undefined, k: string): unknown =>
  o !== undefined && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
const show = (v: unknown): string => (v === undefined ? "absent" : JSON.stringify(v));
const at = (name: string | null): string => `[${JSON.stringify(name)}]`;

/** Compare a signed statement with the verifier's own: every failure, warnings (HARNESS_DIFFERS) among them. */
export function compareStatements(attested: Statement, recomputed: Statement, opts: CompareOptions): AttestFailure[] {
  const out: AttestFailure[] = [];
  const fail = (code: AttestCode, where: string, detail: string) => out.push({ code, where, detail });
  const differ = (code: AttestCode, where: string, a: unknown, b: unknown, tolerance = 0) => {
    if (!jsonEqual(a, b, tolerance)) fail(code, where, `attested ${show(a)}, recomputed ${show(b)}`);
  };
  const A = attested.predicate;
  const B = recomputed.predicate;

  subjects(attested, recomputed, opts, fail, differ);

  // Under other options the figures answer another question (refused before counting, on recount).
  for (const k of ["invalid", "resource_bound", "errors", "schedules", "hmac_key", "dataset"] as const)
    differ("OPTIONS_MISMATCH", `options.${k}`, A.options?.[k], B.options[k]);

  const sameScoring = A.harness?.scoringVersion === B.harness.scoringVersion;
  differ("SCORING_VERSION", "harness.scoringVersion", A.harness?.scoringVersion, B.harness.scoringVersion);
  if (opts.recount) {
    // Another build at the same scoring version counts the same: a warning only.
    if (sameScoring)
      for (const k of ["version", "runtime", "digest"] as const)
        differ("HARNESS_DIFFERS", `harness.${k}`, A.harness?.[k], B.harness[k]);
  } else differ("SCORING_VERSION", "harness.version", A.harness?.version, B.harness.version);

  differ("DIGEST_MISMATCH", "evidence.merkleRoot", A.evidence?.merkleRoot, B.evidence.merkleRoot);
  for (const k of ["entries", "containers"] as const)
    differ("COUNT_MISMATCH", `evidence.${k}`, A.evidence?.[k], B.evidence[k]);

  if (sameScoring) {
    // Another scoring version may count otherwise legitimately: no figure is compared.
    for (const k of ["format", "complete", "shard", "unrecognised"] as const)
      differ("COUNT_MISMATCH", `results.${k}`, A.results?.[k], B.results[k]);
    experiments(A.experiments ?? [], B.experiments, opts.recount, fail, differ);
  }
  criteria(A, B.experiments, sameScoring, opts, fail, differ);
  return out;
}

type Fail = (code: AttestCode, where: string, detail: string) => void;
type Differ = (code: AttestCode, where: string, a: unknown, b: unknown, tolerance?: number) => void;

function subjects(attested: Statement, recomputed: Statement, opts: CompareOptions, fail: Fail, differ: Differ): void {
  const list = Array.isArray(attested.subject) ? attested.subject : [];
  const doc = list.find((s) => typeof s?.digest?.["sha256"] === "string");
  const evidence = list.find((s) => typeof s?.digest?.[EVIDENCE_ALG] === "string");
  const [myDoc, myEvidence] = recomputed.subject as [Statement["subject"][number], Statement["subject"][number]];
  if (doc === undefined) fail("SUBJECT_MISSING", "subject", "no subject with a sha256 digest: the results document");
  else if (opts.documentSha256 != null)
    differ("DIGEST_MISMATCH", "subject.sha256", doc.digest["sha256"], opts.documentSha256);
  else if (!opts.recount) differ("DIGEST_MISMATCH", "subject.sha256", doc.digest["sha256"], myDoc.digest["sha256"]);
  if (evidence === undefined)
    fail("SUBJECT_MISSING", "subject", `no subject with an ${EVIDENCE_ALG} digest: the evidence`);
  else {
    differ(
      "DIGEST_MISMATCH",
      `subject.${EVIDENCE_ALG}`,
      evidence.digest[EVIDENCE_ALG],
      myEvidence.digest[EVIDENCE_ALG],
    );
    differ(
      "COUNT_MISMATCH",
      "subject.annotations.leaves",
      evidence.annotations?.["leaves"],
      myEvidence.annotations?.["leaves"],
    );
  }
}

/** Experiments paired by name (in order among equal names): one side only, or another profile, is EXPERIMENT_MISMATCH. */
function experiments(
  attested: readonly ExperimentProjection[],
  recomputed: readonly ExperimentProjection[],
  recount: boolean,
  fail: Fail,
  differ: Differ,
): void {
  const pending = new Map<string, ExperimentProjection[]>();
  for (const e of recomputed) {
    const k = JSON.stringify(e.experiment);
    (pending.get(k) ?? pending.set(k, []).get(k)!).push(e);
  }
  for (const a of attested) {
    const b = pending.get(JSON.stringify(a.experiment))?.shift();
    const where = `experiments${at(a.experiment)}`;
    if (b === undefined) fail("EXPERIMENT_MISMATCH", where, "attested, and not in the recomputed statement");
    else if (a.profile !== b.profile) differ("EXPERIMENT_MISMATCH", `${where}.profile`, a.profile, b.profile);
    else experiment(a, b, where, recount, fail, differ);
  }
  for (const rest of pending.values())
    for (const b of rest)
      fail("EXPERIMENT_MISMATCH", `experiments${at(b.experiment)}`, "recomputed, and not in the attested statement");
}

function experiment(
  a: ExperimentProjection,
  b: ExperimentProjection,
  where: string,
  recount: boolean,
  fail: Fail,
  differ: Differ,
): void {
  differ("DIGEST_MISMATCH", `${where}.evidence.merkleRoot`, a.evidence?.merkleRoot, b.evidence.merkleRoot);
  differ("COUNT_MISMATCH", `${where}.evidence.leaves`, a.evidence?.leaves, b.evidence.leaves);
  for (const k of Object.keys(b.counts) as (keyof typeof b.counts)[])
    differ("COUNT_MISMATCH", `${where}.counts.${k}`, a.counts?.[k], b.counts[k]);
  for (const field of ["invalidCodes", "flags"] as const)
    for (const k of new Set([...Object.keys(a[field] ?? {}), ...Object.keys(b[field])]))
      differ("COUNT_MISMATCH", `${where}.${field}${at(k)}`, own(a[field], k) ?? 0, own(b[field], k) ?? 0);
  pairs(
    a.metrics ?? [],
    b.metrics,
    (m) => JSON.stringify(m.name),
    `${where}.metrics`,
    "FIGURE_MISMATCH",
    fail,
    (x, y, w) => metric(x, y, w, recount, differ),
  );
  pairs(
    a.claims ?? [],
    b.claims,
    (c) => JSON.stringify([c.source, c.metric]),
    `${where}.claims`,
    "CLAIM_MISMATCH",
    fail,
    (x, y, w) => {
      for (const k of ["claimed", "recounted", "verdict"] as const) differ("CLAIM_MISMATCH", `${w}.${k}`, x[k], y[k]);
    },
  );
}

/** Items paired by key (in order among equal keys); one on one side only is `code`. */
function pairs<T>(
  attested: readonly T[],
  recomputed: readonly T[],
  key: (t: T) => string,
  where: string,
  code: AttestCode,
  fail: Fail,
  each: (a: T, b: T, where: string) => void,
): void {
  const pending = new Map<string, T[]>();
  for (const t of recomputed) (pending.get(key(t)) ?? pending.set(key(t), []).get(key(t))!).push(t);
  for (const a of attested) {
    const b = pending.get(key(a))?.shift();
    const w = `${where}[${key(a)}]`;
    if (b === undefined) fail(code, w, "attested, and not in the recomputed statement");
    else each(a, b, w);
  }
  for (const rest of pending.values())
    for (const b of rest) fail(code, `${where}[${key(b)}]`, "recomputed, and not in the attested statement");
}

function metric(a: MetricProjection, b: MetricProjection, where: string, recount: boolean, differ: Differ): void {
  for (const k of ["value", "successes", "units", "planned", "clusters", "intervalReason"] as const)
    differ("FIGURE_MISMATCH", `${where}.${k}`, a[k], b[k]);
  const x = a.interval;
  const y = b.interval;
  const near = (p: unknown, q: number) => typeof p === "number" && Math.abs(p - q) <= BOUND_TOLERANCE;
  if (recount && x !== null && y !== null && typeof x === "object") {
    differ("FIGURE_MISMATCH", `${where}.interval.method`, x.method, y.method);
    for (const k of ["lo", "hi"] as const)
      if (!near(x[k], y[k])) differ("FIGURE_MISMATCH", `${where}.interval.${k}`, x[k], y[k]);
    const extra = Object.keys(x).filter((k) => !["method", "lo", "hi"].includes(k));
    if (extra.length > 0) differ("FIGURE_MISMATCH", `${where}.interval`, x, y);
  } else differ("FIGURE_MISMATCH", `${where}.interval`, x, y);
}

/**
 * §15.5: every attested rule re-evaluated over the recomputed figures (never the signed ones), its
 * claims and preRegistration what the rules give; with the file given, its digest and rules too.
 * A paired rule's comparison is recomputed from the verifier's own units (on recount within §15.6's
 * tolerance: its bounds and p pass through the t quantile).
 */
function criteria(
  A: Predicate,
  figures: readonly ExperimentProjection[],
  sameScoring: boolean,
  opts: CompareOptions,
  fail: Fail,
  differ: Differ,
): void {
  const signed = A.criteria;
  const file = opts.criteria ?? null;
  if (signed === undefined) {
    if (file !== null) fail("CRITERIA_MISMATCH", "criteria", "a criteria file was given, but the statement has none");
    for (const k of ["preRegistration", "claims"] as const)
      if (A[k] !== undefined) fail("CRITERIA_MISMATCH", k, "present without criteria");
    return;
  }
  const rules = Array.isArray(signed.rules) ? signed.rules : [];
  const asCriteria: Criteria = {
    sha256: signed.digest?.sha256,
    rules: rules.map((r, i) => ({
      line: i + 1,
      experiment: r.experiment,
      ...(typeof r.baseline === "string" ? { baseline: r.baseline } : {}),
      metric: r.metric,
      comparator: r.comparator as Criteria["rules"][number]["comparator"],
      threshold: r.threshold,
    })),
  };
  if (file !== null) {
    differ("CRITERIA_MISMATCH", "criteria.digest.sha256", signed.digest?.sha256, file.sha256);
    const ruleOf = (r: Omit<Criteria["rules"][number], "line">) => [
      r.experiment,
      r.baseline ?? null,
      r.metric,
      r.comparator,
      r.threshold,
    ];
    differ("CRITERIA_MISMATCH", "criteria.rules", asCriteria.rules.map(ruleOf), file.rules.map(ruleOf));
  }
  const mine = evaluateCriteria(asCriteria, figures, opts.units);
  const tolerance = opts.recount ? BOUND_TOLERANCE : 0;
  // The rules' own fields are the file's (checked above when given); observed and passed are the figures'.
  rules.forEach((r, i) => {
    const m = mine.criteria.rules[i]!;
    if (sameScoring) {
      differ("CRITERIA_MISMATCH", `criteria.rules[${i}].observed`, r.observed, m.observed, tolerance);
      differ("CRITERIA_MISMATCH", `criteria.rules[${i}].passed`, r.passed, m.passed);
      differ("CRITERIA_MISMATCH", `criteria.rules[${i}].paired`, r.paired, m.paired, tolerance);
    } else {
      // Other figures may be legitimate: the signed verdict must still follow from the signed figure.
      const own = typeof r.observed === "number" ? r.observed : null;
      differ("CRITERIA_MISMATCH", `criteria.rules[${i}].passed`, r.passed, holds(own, r.comparator, r.threshold));
    }
  });
  // The #575 projection must say what the signed rules say.
  differ("CRITERIA_MISMATCH", "preRegistration", A.preRegistration, { alg: "sha256", value: signed.digest?.sha256 });
  differ(
    "CRITERIA_MISMATCH",
    "claims",
    A.claims,
    rules.map((r) => ({
      metric: claimMetric(r),
      comparator: r.comparator,
      threshold: r.threshold,
      passed: r.passed,
    })),
  );
}
