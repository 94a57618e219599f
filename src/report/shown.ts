// What a terminal is shown of a results document. Every name from evidence or the file system
// (a path, an experiment, a trial, a task, a reward key, a finding's file) passes forTerminal, and
// every text that may quote evidence (a message, a reason, a detail, flag evidence, a model's
// words) passes terminalText — here, once per object, before a text renderer reads any of its
// fields, so no field reaches a terminal raw: no name clears the screen, retitles the terminal or
// forges an output line. (JSON output needs none of this: JSON escapes control characters.)

import type { Finding } from "../core/codes.js";
import type { Advisory, BundleEntry, Experiment } from "../core/results.js";
import { forTerminal as name, terminalText as text } from "../core/text.js";

const opt = <T>(v: T | null, f: (v: T) => T): T | null => (v === null ? null : f(v));
const names = (xs: readonly string[]) => xs.map(name);
/** A map keyed by names (reward keys, criteria), its values shown by `f`. */
const keyed = <V>(m: Record<string, V>, f: (v: V) => V = (v) => v): Record<string, V> =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [name(k), f(v)]));
/** A metric object's interval_reason may name a metadata key (Inspect's cluster key). */
const reasoned = <T extends { interval_reason: string | null }>(m: T): T => ({
  ...m,
  interval_reason: opt(m.interval_reason, text),
});
const finding = (f: Finding): Finding => ({ ...f, file: opt(f.file, name), message: text(f.message) });

export const shownAdvisory = (a: Advisory): Advisory => ({
  ...a,
  reason: opt(a.reason, text),
  rubric: name(a.rubric),
  model: opt(a.model, name),
  outcomes: keyed(a.outcomes, (o) => ({ ...o, explanation: text(o.explanation) })),
  summary: opt(a.summary, text),
});

export const shownEntry = (e: BundleEntry): BundleEntry => ({
  ...e,
  path: name(e.path),
  experiment: opt(e.experiment, name),
  trial: opt(e.trial, name),
  seed: opt(e.seed, name),
  errors: e.errors.map(finding),
  warnings: e.warnings.map(finding),
  task: opt(e.task, name),
  task_checksum: opt(e.task_checksum, name),
  scenario: opt(e.scenario, name),
  dimensions: opt(e.dimensions, (d) => keyed(d, (x) => ({ ...x, detail: text(x.detail) }))),
  rewards: opt(e.rewards, keyed),
  reward_source: opt(e.reward_source, text),
  flags: e.flags.map((f) => ({ ...f, evidence: text(f.evidence) })),
  exception: opt(e.exception, (x) => ({ type: name(x.type), message: text(x.message), step: opt(x.step, name) })),
  harbor_id: opt(e.harbor_id, name),
  job_id: opt(e.job_id, name),
  job: opt(e.job, name),
  claimed: opt(e.claimed, (c) => ({ rewards: opt(c.rewards, keyed), exception: opt(c.exception, name) })),
  inspect: opt(e.inspect, (x) => ({
    ...x,
    inspect_version: opt(x.inspect_version, name),
    eval_id: opt(x.eval_id, name),
    run_id: opt(x.run_id, name),
    task_id: opt(x.task_id, name),
    model: opt(x.model, name),
    created: opt(x.created, name),
    completed_at: opt(x.completed_at, name),
    metrics: keyed(x.metrics, (m) => ({ ...m, note: opt(m.note, text) })),
  })),
  advisory: opt(e.advisory, shownAdvisory),
  task_path: opt(e.task_path, name),
  reward_details: opt(e.reward_details, (d) => ({
    ...d,
    rewards: d.rewards.map((r) => ({ ...r, file: name(r.file), name: name(r.name), kind: opt(r.kind, name) })),
  })),
  harbor_analysis: opt(e.harbor_analysis, (a) => ({
    ...a,
    summary: opt(a.summary, text),
    unreadable: opt(a.unreadable, text),
    checks: a.checks.map((c) => ({ name: name(c.name), outcome: name(c.outcome), explanation: text(c.explanation) })),
  })),
});

export const shownExperiment = (e: Experiment): Experiment => ({
  ...e,
  experiment: opt(e.experiment, name),
  invalid: e.invalid.map((i) => ({ ...i, trial: name(i.trial) })),
  missing: e.missing.map((m) => (typeof m === "string" ? name(m) : { ...m, reason: text(m.reason) })),
  excluded: e.excluded.map((x) => ({ trial: name(x.trial), reason: text(x.reason) })),
  unscored: names(e.unscored),
  flags: e.flags.map((f) => ({ ...f, trial: name(f.trial), evidence: opt(f.evidence, text) })),
  accuracy: opt(e.accuracy, reasoned),
  completion: opt(e.completion, reasoned),
  retry: opt(e.retry, names),
  dimensions: opt(e.dimensions, (d) => keyed(d, reasoned)),
  pass: opt(e.pass, reasoned),
  rewards: opt(e.rewards, (r) =>
    keyed(r, (k) => ({ ...reasoned(k), pass_at_k_reason: opt(k.pass_at_k_reason, text) })),
  ),
  claimed: opt(e.claimed, (c) => ({
    source: text(c.source),
    metrics: keyed(c.metrics),
    compared: c.compared.map((x) => ({ ...x, metric: name(x.metric), reason: opt(x.reason, text) })),
  })),
  job: opt(e.job, name),
  job_id: opt(e.job_id, name),
  exceptions: opt(e.exceptions, keyed),
  warnings: e.warnings.map(finding),
  log: opt(e.log, (l) => ({ ...l, path: name(l.path) })),
  inspect: opt(e.inspect, (m) => keyed(m, (x) => ({ ...reasoned(x), note: opt(x.note, text) }))),
});
