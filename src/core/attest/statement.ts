// §15.3–15.4: a results document projected to the in-toto Statement v1 that `assay attest` signs.
// Field names and their order are §15.9's example: the statement is written as built. One pass
// over the bundle entries (an iterable: a spilled document's are read back from disk), holding
// only their digests, which the Merkle roots need, and small per-experiment counts.

import { PROPORTION_METRIC } from "../inspect-metric.js";
import type { BundleEntry, Experiment, Results } from "../results.js";
import { byteCompare } from "../text.js";
import type { PairedRecord } from "./paired.js";

export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
export const PREDICATE_TYPE = "https://assay.invalid/attestation/eval-recount/v1";
export const VERIFIER_ID = "https://assay.invalid/attest";
/** §15.3's DigestSet algorithm for the evidence root (lowercase hex). */
export const EVIDENCE_ALG = "assayEvidenceMerkle1";

export interface Interval {
  method: string;
  lo: number;
  hi: number;
}
export interface MetricProjection {
  name: string;
  value: number | null;
  successes: number | null;
  units: number | null;
  planned: number | null;
  clusters: number | null;
  interval: Interval | null;
  intervalReason: string | null;
}
/** The archive's claim about itself beside assay's recount (`claimed` may be Inspect's "NaN" spelling). */
export interface ArchiveClaim {
  source: string;
  metric: string;
  claimed: number | string | null;
  recounted: number | null;
  verdict: string;
}
export interface Counts {
  entries: number;
  valid: number;
  invalid: number;
  toolErrors: number;
  scheduled: number;
  missing: number;
  excluded: number;
  unscored: number;
}
export interface ExperimentProjection {
  experiment: string | null;
  profile: string | null;
  evidence: { leaves: number; merkleRoot: string };
  counts: Counts;
  invalidCodes: Record<string, number>;
  flags: Record<string, number>;
  metrics: MetricProjection[];
  claims: ArchiveClaim[];
}
/** #575's claim shape: one criteria rule, `metric` = `EXPERIMENT:METRIC` (a paired rule's `HEAD - BASE:METRIC`). */
export interface CriterionClaim {
  metric: string;
  comparator: string;
  threshold: string;
  passed: boolean;
}
export interface CriteriaRecord {
  digest: { sha256: string };
  rules: {
    experiment: string;
    /** A paired rule's BASE (`experiment` is its HEAD). */
    baseline?: string;
    metric: string;
    comparator: string;
    threshold: string;
    observed: number | null;
    passed: boolean;
    /** A paired rule's comparison: the pairs, the difference and its interval, what it assumes. */
    paired?: PairedRecord;
  }[];
}
export interface HarnessRecord {
  name: string;
  version: string;
  scoringVersion: number;
  runtime: string;
  digest: { dirHash: string };
}
export interface RunOptionsRecord {
  invalid: string;
  resource_bound: string;
  errors: string;
  schedules: string[];
  hmac_key: string | null;
  /** --dataset (SWE-bench's instances): the SHA-256 of the file the instances were checked against; present only when one was. */
  dataset?: string;
}
export interface Predicate {
  verifier: { id: string };
  harness: HarnessRecord;
  assuranceLevel: string;
  scoredAt: string;
  attestedAt: string;
  options: RunOptionsRecord;
  results: { format: string; complete: boolean; shard: string | null; unrecognised: number };
  evidence: { entries: number; containers: number; merkleRoot: string };
  experiments: ExperimentProjection[];
  /** With --criteria only (§15.5). */
  criteria?: CriteriaRecord;
  preRegistration?: { alg: string; value: string };
  claims?: CriterionClaim[];
}
export interface Subject {
  name: string;
  digest: Record<string, string>;
  annotations?: Record<string, unknown>;
}
export interface Statement {
  _type: string;
  subject: Subject[];
  predicateType: string;
  predicate: Predicate;
}

/** What the projection reads of a document: a Results, or a ResultsView whose entries stream. */
export interface ProjectionSource {
  format: Results["format"];
  run: Results["run"];
  experiments: readonly Experiment[];
  bundles: Iterable<Pick<BundleEntry, "digest" | "experiment" | "profile" | "validity" | "errors">>;
}

export interface ProjectionOptions {
  /** The document's file name and the SHA-256 of its bytes: subject 1. */
  resultsName: string;
  resultsSha256: string;
  /** §15.3's root over §7 digests (lowercase hex); it sorts them (core/attest/merkle.ts evidenceRoot). */
  merkle: (digests: string[]) => string;
  /** The attesting (or recounting) assay: `node vX` and in-toto's dirHash over its package folder. */
  harness: { runtime: string; digest: { dirHash: string } };
  /** When signed (RFC 3339 UTC). */
  attestedAt: string;
}

const DIGEST = /^[0-9a-f]{64}$/;
/** A record's §7 digest where it has one: §15.3 adds `digest` to containers; a tool error's entry may have none. */
const digestOf = (x: unknown): string | null => {
  const d = (x as { digest?: unknown }).digest;
  return typeof d === "string" && DIGEST.test(d) ? d : null;
};

/** A container as the projection reads it: its folder, and for a SWE-bench model folder its run folder and model. */
interface Container {
  path: string;
  run: string | null;
  model: string | null;
  digest: string;
}
function containersOf(run: Results["run"]): Container[] {
  const records: unknown[] = [...run.jobs, ...Object.values(run.containers ?? {}).flat()];
  const out: Container[] = [];
  for (const r of records) {
    const digest = digestOf(r);
    if (digest === null) continue;
    const { path, run: folder, model } = r as { path: string; run?: unknown; model?: unknown };
    out.push({
      path,
      run: typeof folder === "string" ? folder : null,
      model: typeof model === "string" ? model : null,
      digest,
    });
  }
  return out;
}
/**
 * The containers an experiment names by `job` (§15.3): a Harbor job's or Terminal-Bench run's
 * folder, or a SWE-bench experiment's run folder with its model (its container is the model
 * folder). Indexed once: a large archive has thousands of jobs and as many experiments.
 */
function containerIndex(containers: readonly Container[]): (e: Experiment) => string[] {
  const index = new Map<string, string[]>();
  const put = (k: string, d: string) => (index.get(k) ?? index.set(k, []).get(k)!).push(d);
  for (const c of containers) {
    put(JSON.stringify([c.path]), c.digest);
    if (c.run !== null && c.model !== null && c.run !== c.path) put(JSON.stringify([c.run, c.model]), c.digest);
  }
  return (e) => {
    if (e.job === null) return [];
    const own = index.get(JSON.stringify([e.job])) ?? [];
    const model = e.swe_bench?.model;
    return model === undefined ? own : [...own, ...(index.get(JSON.stringify([e.job, model])) ?? [])];
  };
}

const keyOf = (experiment: string | null, profile: string | null): string => JSON.stringify([experiment, profile]);

interface Tallied {
  leaves: string[];
  counts: Pick<Counts, "entries" | "valid" | "invalid" | "toolErrors">;
  invalidCodes: Map<string, number>;
}
const tallied = (): Tallied => ({
  leaves: [],
  counts: { entries: 0, valid: 0, invalid: 0, toolErrors: 0 },
  invalidCodes: new Map(),
});

const add = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);
const byteOrdered = (m: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...m].sort(([a], [b]) => byteCompare(a, b)));

/** The document's Statement (no criteria: criteria.ts adds them). */
export function projectResults(doc: ProjectionSource, o: ProjectionOptions): Statement {
  const byKey = new Map<string, Tallied>(doc.experiments.map((e) => [keyOf(e.experiment, e.profile), tallied()]));
  const all: string[] = [];
  let entries = 0;
  for (const b of doc.bundles) {
    entries++;
    const d = digestOf(b);
    if (d !== null) all.push(d);
    const t = byKey.get(keyOf(b.experiment, b.profile));
    if (t === undefined) continue; // an entry of no experiment: in the archive's root only
    if (d !== null) t.leaves.push(d);
    t.counts.entries++;
    if (b.validity === "valid") t.counts.valid++;
    else {
      if (b.validity === "invalid") t.counts.invalid++;
      else t.counts.toolErrors++;
      for (const code of new Set(b.errors.map((f) => f.code))) add(t.invalidCodes, code);
    }
  }
  const containers = containersOf(doc.run);
  for (const c of containers) all.push(c.digest);
  const root = o.merkle(all);
  const containersOfExperiment = containerIndex(containers);

  const experiments = doc.experiments.map((e): ExperimentProjection => {
    const t = byKey.get(keyOf(e.experiment, e.profile))!;
    const leaves = [...t.leaves, ...containersOfExperiment(e)];
    const flags = new Map<string, number>();
    for (const f of e.flags) add(flags, f.code);
    return {
      experiment: e.experiment,
      profile: e.profile,
      evidence: { leaves: leaves.length, merkleRoot: o.merkle(leaves) },
      counts: {
        ...t.counts,
        scheduled: e.scheduled,
        missing: e.missing.reduce((n, m) => n + (typeof m === "string" ? 1 : m.count), 0),
        excluded: e.excluded.length,
        unscored: e.unscored.length,
      },
      invalidCodes: byteOrdered(t.invalidCodes),
      flags: byteOrdered(flags),
      metrics: metricsOf(e),
      claims: claimsOf(e),
    };
  });

  const { run } = doc;
  return {
    _type: STATEMENT_TYPE,
    subject: [
      { name: o.resultsName, digest: { sha256: o.resultsSha256 } },
      { name: "evidence", digest: { [EVIDENCE_ALG]: root }, annotations: { leaves: all.length } },
    ],
    predicateType: PREDICATE_TYPE,
    predicate: {
      verifier: { id: VERIFIER_ID },
      harness: {
        name: "assay",
        version: run.tool_version,
        scoringVersion: run.scoring_version,
        runtime: o.harness.runtime,
        digest: { dirHash: o.harness.digest.dirHash },
      },
      assuranceLevel: "reproduced",
      scoredAt: run.started_at,
      attestedAt: o.attestedAt,
      options: {
        invalid: run.options.invalid,
        resource_bound: run.options.resource_bound,
        errors: run.options.errors,
        schedules: [...run.options.schedules],
        hmac_key: run.options.hmac_key,
        // It changes entries (their deciding tests): signed when given, absent otherwise (§15.9's shape unchanged).
        ...(run.options.dataset ? { dataset: run.options.dataset.sha256 } : {}),
      },
      results: {
        format: doc.format,
        complete: run.complete,
        shard: run.shard,
        unrecognised: run.unrecognised?.count ?? 0,
      },
      evidence: { entries, containers: containers.length, merkleRoot: root },
      experiments,
    },
  };
}

interface WithInterval {
  interval: { method: string; lo: number; hi: number; clusters: number } | null;
  interval_reason: string | null;
}
const metric = (
  name: string,
  value: number | null,
  successes: number | null,
  units: number | null,
  planned: number | null,
  m: WithInterval,
): MetricProjection => ({
  name,
  value,
  successes,
  units,
  planned,
  clusters: m.interval?.clusters ?? null,
  interval: m.interval === null ? null : { method: m.interval.method, lo: m.interval.lo, hi: m.interval.hi },
  intervalReason: m.interval_reason,
});
/** world's one division (§15.4: every other figure is copied). */
const share = (passed: number, total: number): number | null => (total === 0 ? null : passed / total);

/** §15.4's table: one row per metric object with an interval member (§13.6). */
function metricsOf(e: Experiment): MetricProjection[] {
  const out: MetricProjection[] = [];
  const planned = e.scheduled;
  if (e.accuracy !== null)
    out.push(metric("accuracy", e.accuracy.value, e.accuracy.victories, e.accuracy.scored, planned, e.accuracy));
  if (e.completion !== null)
    out.push(
      metric("completion", e.completion.value, e.completion.completed, e.completion.scheduled, planned, e.completion),
    );
  if (e.pass !== null)
    out.push(metric("pass", share(e.pass.passed, e.pass.total), e.pass.passed, e.pass.total, planned, e.pass));
  for (const [d, v] of Object.entries(e.dimensions ?? {}))
    out.push(metric(`dimensions/${d}`, share(v.passed, v.total), v.passed, v.total, planned, v));
  // Harbor, Terminal-Bench and SWE-bench: a reward key over its covered trials, of the trials planned.
  for (const [k, r] of Object.entries(e.rewards ?? {}))
    out.push(metric(`rewards/${k}`, r.mean, null, r.covered, r.trials, r));
  for (const [k, m] of Object.entries(e.inspect ?? {}))
    if (PROPORTION_METRIC.test(k))
      out.push(metric(`inspect/${k}`, m.value, null, m.coverage.scored, m.coverage.planned, m));
  return out;
}

/**
 * The archive's claims about itself (§15.4): a harness's summary as `claimed.compared[]` (Harbor,
 * Terminal-Bench, SWE-bench), or an Inspect log's own metrics. Native and world summaries' claims
 * are SUMMARY_MISMATCH in invalidCodes, not here.
 */
function claimsOf(e: Experiment): ArchiveClaim[] {
  const out: ArchiveClaim[] = [];
  if (e.claimed !== null)
    for (const c of e.claimed.compared)
      out.push({
        source: e.claimed.source,
        metric: c.metric,
        claimed: c.claimed,
        recounted: c.assay,
        verdict: c.reason === null ? "agrees" : c.assay === null ? "unverified" : "differs",
      });
  for (const [k, m] of Object.entries(e.inspect ?? {}))
    if (m.claimed !== null || m.check !== "unverified")
      out.push({ source: "inspect log results", metric: k, claimed: m.claimed, recounted: m.value, verdict: m.check });
  return out;
}
