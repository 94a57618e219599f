// §15.5 pre-registered criteria (`assay.criteria/1`): parsed from the file's bytes, and evaluated
// over a projection's figures (§15.4), never over figures a statement signed.

import { createHash } from "node:crypto";
import { forTerminal } from "../text.js";
import { observePaired, type UnitsOf } from "./paired.js";
import type { CriteriaRecord, CriterionClaim, ExperimentProjection } from "./statement.js";

export const COMPARATORS = [">=", ">", "<=", "<"] as const;
export type Comparator = (typeof COMPARATORS)[number];

export interface CriteriaRule {
  /** 1-based line of the file. */
  line: number;
  /** A single rule's experiment; a paired rule's HEAD. */
  experiment: string;
  /** A paired rule's BASE (`HEAD - BASE METRIC …`: the figure is HEAD − BASE over their paired units); absent in a single rule. */
  baseline?: string;
  metric: string;
  comparator: Comparator;
  /** The decimal literal as written (#575: a decimal string, never a float). */
  threshold: string;
}
export interface Criteria {
  sha256: string;
  rules: CriteriaRule[];
}

/** Why a criteria file cannot be used: ENCODING (not UTF-8, a BOM), or a line that is not a rule. */
export type CriteriaErrorCode = "ENCODING" | "CRITERIA_FIELDS" | "CRITERIA_COMPARATOR" | "CRITERIA_THRESHOLD";

/** A criteria file the user gave that cannot be used: a usage error (exit 2), naming file and line. */
export class CriteriaError extends Error {
  readonly code = "CRITERIA";
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly reason: CriteriaErrorCode,
    detail: string,
  ) {
    super(`criteria ${forTerminal(file)}${line === null ? "" : ` line ${line}`}: ${reason}: ${detail}`);
  }
}

const BLANK = /[ \t]/;
/** JSON's number grammar: what JSON.parse and Python's float both read, to the nearest binary64. */
export const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
/** A JSON string literal at the start of the text (escapes included). */
const JSON_STRING = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/;

/** A line's blank-separated fields; one starting with `"` is a JSON string and may hold blanks. */
function fields(text: string, fail: (reason: CriteriaErrorCode, detail: string) => never): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (BLANK.test(text[i]!)) {
      i++;
      continue;
    }
    const rest = text.slice(i);
    if (rest.startsWith('"')) {
      const m = JSON_STRING.exec(rest);
      if (m === null) fail("CRITERIA_FIELDS", `field ${out.length + 1} opens a JSON string that does not close`);
      const after = rest[m[0].length];
      if (after !== undefined && !BLANK.test(after))
        fail("CRITERIA_FIELDS", `field ${out.length + 1}: no blank after its JSON string`);
      out.push(JSON.parse(m[0]) as string);
      i += m[0].length;
    } else {
      const end = rest.search(BLANK);
      out.push(end < 0 ? rest : rest.slice(0, end));
      i += end < 0 ? rest.length : end;
    }
  }
  return out;
}

/** Parse a criteria file's bytes. Blank lines and lines starting with `#` are skipped; every other line is one rule. */
export function parseCriteria(bytes: Uint8Array, file: string): Criteria {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CriteriaError(file, null, "ENCODING", "not UTF-8");
  }
  if (text.startsWith("\uFEFF")) throw new CriteriaError(file, 1, "ENCODING", "a byte order mark");
  const rules: CriteriaRule[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    const t = raw.endsWith("\r") ? raw.slice(0, -1) : raw; // a CRLF file: the digest still covers its bytes
    if (t.startsWith("#") || /^[ \t]*$/.test(t)) return;
    const fail = (reason: CriteriaErrorCode, detail: string): never => {
      throw new CriteriaError(file, line, reason, detail);
    };
    const f = fields(t, fail);
    if (f.length !== 4 && f.length !== 6)
      fail(
        "CRITERIA_FIELDS",
        `${f.length} fields, not EXPERIMENT METRIC COMPARATOR THRESHOLD nor HEAD - BASE METRIC COMPARATOR THRESHOLD`,
      );
    const paired = f.length === 6 ? f.splice(0, 3) : null;
    if (paired !== null && paired[1] !== "-")
      fail(
        "CRITERIA_FIELDS",
        `six fields are a paired rule, HEAD - BASE METRIC COMPARATOR THRESHOLD: field 2 is not -`,
      );
    if (paired !== null && paired[0] === paired[2])
      fail("CRITERIA_FIELDS", `HEAD and BASE are one experiment (${JSON.stringify(paired[0])}): nothing to pair`);
    const [experiment, metric, comparator, threshold] = (paired === null ? f : [paired[0], ...f]) as [
      string,
      string,
      string,
      string,
    ];
    if (metric === "") fail("CRITERIA_FIELDS", "an empty METRIC");
    if (!(COMPARATORS as readonly string[]).includes(comparator))
      fail("CRITERIA_COMPARATOR", `${JSON.stringify(comparator)} is not one of ${COMPARATORS.join(" ")}`);
    if (!DECIMAL.test(threshold) || !Number.isFinite(Number(threshold)))
      fail("CRITERIA_THRESHOLD", `${JSON.stringify(threshold)} is not a finite decimal literal`);
    const [c, baseline] = [comparator as Comparator, paired?.[2]];
    rules.push(
      baseline === undefined
        ? { line, experiment, metric, comparator: c, threshold }
        : { line, experiment, baseline, metric, comparator: c, threshold },
    );
  });
  return { sha256: createHash("sha256").update(bytes).digest("hex"), rules };
}

/**
 * A rule's figure in the projection: METRIC's value, or with `.lo` / `.hi` its interval's bound. A
 * metric named as written wins over a bound (a name ending in `.lo` is possible). Absent: null.
 */
export function observe(experiments: readonly ExperimentProjection[], experiment: string, name: string): number | null {
  const e = experiments.find((x) => x.experiment === experiment);
  if (e === undefined) return null;
  const exact = e.metrics.find((m) => m.name === name);
  if (exact !== undefined) return exact.value;
  const bound = /\.(lo|hi)$/.exec(name);
  if (bound === null) return null;
  const base = e.metrics.find((m) => m.name === name.slice(0, -3));
  return base?.interval?.[bound[1] as "lo" | "hi"] ?? null;
}

/** Whether `observed` passes: an absent or null figure fails; the threshold is read to the nearest binary64. */
export function holds(observed: number | null, comparator: string, threshold: string): boolean {
  if (observed === null) return false;
  const t = Number(threshold);
  switch (comparator) {
    case ">=":
      return observed >= t;
    case ">":
      return observed > t;
    case "<=":
      return observed <= t;
    case "<":
      return observed < t;
    default:
      return false;
  }
}

/** What a statement records of the criteria (§15.5), in the predicate's order: criteria, preRegistration, claims. */
export interface CriteriaFields {
  criteria: CriteriaRecord;
  preRegistration: { alg: "sha256"; value: string };
  claims: CriterionClaim[];
}

/** A rule's name in #575's claims: `EXPERIMENT:METRIC`, a paired rule's `HEAD - BASE:METRIC`. */
export const claimMetric = (r: { experiment: string; baseline?: string; metric: string }): string =>
  `${r.baseline === undefined ? r.experiment : `${r.experiment} - ${r.baseline}`}:${r.metric}`;

/** Every rule evaluated over the projection's figures; paired rules over `units` (the same document's or recount's). */
export function evaluateCriteria(
  c: Criteria,
  experiments: readonly ExperimentProjection[],
  units?: UnitsOf,
): CriteriaFields {
  const rules = c.rules.map((r) => {
    const { experiment, baseline, metric, comparator, threshold } = r;
    if (baseline === undefined) {
      const observed = observe(experiments, experiment, metric);
      return { experiment, metric, comparator, threshold, observed, passed: holds(observed, comparator, threshold) };
    }
    const { observed, paired } = observePaired(experiments, experiment, baseline, metric, units);
    const passed = holds(observed, comparator, threshold);
    return { experiment, baseline, metric, comparator, threshold, observed, passed, paired };
  });
  return {
    criteria: { digest: { sha256: c.sha256 }, rules },
    preRegistration: { alg: "sha256", value: c.sha256 },
    claims: rules.map((r) => ({
      metric: claimMetric(r),
      comparator: r.comparator,
      threshold: r.threshold,
      passed: r.passed,
    })),
  };
}
