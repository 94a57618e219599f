// Inspect experiments (contract §12): one per task run (`eval.task_id`, which survives
// eval-retry), named `<task> (<model>)`; its logs form a retry chain in which one decides the
// figures, and each metric is shown as claimed beside assay's own value and coverage under the
// run's options (each metric by core/inspect-metric.ts, the rule compare checks a document by).
// Pure: records in, experiments out (a merge recomputes exactly this).

import { basename, dirname } from "node:path";
import { instant } from "./sample.js";
import { blankExperiment, type Experiment } from "../../core/results.js";
import { byteCompare } from "../../core/text.js";
import { experimentUsage } from "../../core/usage.js";
import type { BatchRecord } from "../../core/batch/record.js";
import { chainMetric, type ChainReading } from "../../core/inspect-metric.js";

export interface InspectOptions {
  invalid: "count" | "exclude";
  errors: "exclude" | "zero";
}

type Flag = Experiment["flags"][number];

interface Chain {
  key: string;
  /** `<task> (<model>)`, or null when no log of it could be read. */
  base: string | null;
  taskId: string | null;
  records: BatchRecord[];
  /** Logs with no readable identity that may belong to this task run (issue 35). */
  unidentified: string[];
}

/**
 * The task part of Inspect's default log name, `<created>_<task>_<22-character id>`; null for
 * any other name. Only compared with the names of logs beside it, never parsed further.
 */
function namedTask(path: string): string | null {
  const m = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:[+-]\d\d-\d\d|Z)?_(.+)_[A-Za-z0-9]{22}\.(?:eval|json)$/.exec(
    basename(path),
  );
  return m === null ? null : m[1]!;
}

/**
 * Issue 35: the chains a log with no readable identity may belong to — those with a log of the
 * same named task in its folder, or, when its name gives no task, every chain with a log there.
 */
function candidates(path: string, chains: Iterable<Chain>): Chain[] {
  const dir = dirname(path);
  const task = namedTask(path);
  return [...chains].filter(
    (c) =>
      c.base !== null &&
      c.records.some((r) => dirname(r.path) === dir && (task === null || namedTask(r.path) === task)),
  );
}

/** A task_id as §12 shortens it in names: its first 8 characters. */
const id8 = (id: string | null) => (id === null ? "no-id" : id.slice(0, 8));

/** The run's Inspect chains and their names (two task runs of one task and model: `@<task_id8>`). */
export class InspectNaming {
  readonly chains: Chain[];
  private readonly names = new Map<string, string | null>();
  private readonly chainOf = new Map<string, string>();

  constructor(records: readonly BatchRecord[]) {
    const byKey = new Map<string, Chain>();
    const sorted = [...records].filter((r) => r.profile === "inspect").sort((a, b) => byteCompare(a.path, b.path));
    for (const r of sorted) {
      if (r.inspect === null) continue;
      const key = `task\u0000${r.inspect.task_id ?? `path\u0000${r.path}`}`;
      const c = byKey.get(key) ?? { key, base: r.experiment, taskId: r.inspect.task_id, records: [], unidentified: [] };
      byKey.set(key, c);
      c.records.push(r);
    }
    // A log the tool could not read joins the chain of its task and model when there is one (its task_id is in the part it could not read).
    for (const r of sorted) {
      if (r.inspect !== null) continue;
      const home = [...byKey.values()].find((c) => c.base !== null && c.base === r.experiment);
      const key = home?.key ?? `unread\u0000${r.experiment ?? ""}`;
      const c = byKey.get(key) ?? { key, base: r.experiment, taskId: null, records: [], unidentified: [] };
      byKey.set(key, c);
      c.records.push(r);
    }
    // An emptied, cut or corrupt log shows no task run: it withholds every one it may belong to.
    for (const r of sorted)
      if (r.inspect === null && r.experiment === null)
        for (const c of candidates(r.path, byKey.values())) c.unidentified.push(r.path);
    this.chains = [...byKey.values()];
    for (const c of this.chains) for (const r of c.records) this.chainOf.set(r.path, c.key);
    const count = new Map<string, number>();
    for (const c of this.chains) if (c.base !== null) count.set(c.base, (count.get(c.base) ?? 0) + 1);
    const taken = new Map<string, number>();
    for (const c of [...this.chains].sort((a, b) => byteCompare(a.records[0]!.path, b.records[0]!.path))) {
      if (c.base === null) {
        this.names.set(c.key, null);
        continue;
      }
      const b = count.get(c.base)! > 1 ? `${c.base}@${id8(c.taskId)}` : c.base;
      const n = (taken.get(b) ?? 0) + 1;
      taken.set(b, n);
      this.names.set(c.key, n === 1 ? b : `${b}#${n}`);
    }
  }

  /** The experiment of an Inspect entry or record (others keep theirs). */
  nameOf(e: Pick<BatchRecord, "profile" | "path" | "experiment">): string | null {
    if (e.profile !== "inspect") return e.experiment;
    const key = this.chainOf.get(e.path);
    return key === undefined ? e.experiment : (this.names.get(key) ?? null);
  }
}

const statusOf = (r: BatchRecord) =>
  r.status === "started" || r.status === "success" || r.status === "cancelled" || r.status === "error"
    ? r.status
    : null;

/**
 * §12 chain order: completed_at, then created, then path. Issue 35: a log with no completed_at (its
 * header unread, or never written) takes its place from created, not first: a retry begun after
 * a success stays after it whether or not its header could be read.
 */
function chainOrder(a: BatchRecord, b: BatchRecord): number {
  const t = (v: string | null | undefined) => instant(v) ?? -Infinity;
  const at = (r: BatchRecord) => t(r.inspect?.completed_at ?? r.inspect?.created);
  return at(a) - at(b) || t(a.inspect?.created) - t(b.inspect?.created) || byteCompare(a.path, b.path);
}

export function inspectExperiments(naming: InspectNaming, options: InspectOptions): Experiment[] {
  return naming.chains.map((c) =>
    chainExperiment(c, naming.nameOf({ profile: "inspect", path: c.records[0]!.path, experiment: c.base }), options),
  );
}

function chainExperiment(c: Chain, name: string | null, options: InspectOptions): Experiment {
  const flags: Flag[] = [];
  const unscored = c.records.filter((r) => r.validity === "error").map((r) => r.path);
  let logs = c.records.filter((r) => r.validity !== "error").sort(chainOrder);
  // One run written twice (inspect log convert, a copy): the later is kept.
  const byRun = new Map<string, BatchRecord>();
  for (const r of logs) if (r.inspect?.run_id) byRun.set(r.inspect.run_id, r);
  const kept = logs.filter((r) => !r.inspect?.run_id || byRun.get(r.inspect.run_id) === r);
  // §13.5: every log spent, the unreadable ones too, but a run written twice spent once.
  const spent = c.records.filter((r) => r.validity === "error" || kept.includes(r)).map((r) => r.usage);
  for (const r of logs)
    if (!kept.includes(r))
      flags.push({
        code: "DUPLICATE_LOG",
        trial: r.path,
        attempt: null,
        evidence: `the same run (run_id ${r.inspect!.run_id}) as ${byRun.get(r.inspect!.run_id!)!.path}, which is kept`,
      });
  logs = kept;
  const invalid = logs.filter((r) => r.validity === "invalid");
  if (options.invalid === "exclude") logs = logs.filter((r) => r.validity !== "invalid");
  // The greatest success decides; without one, the greatest log.
  const successes = logs.filter((r) => r.status === "success");
  const decides = successes[successes.length - 1] ?? logs[logs.length - 1] ?? null;
  // Issue 35: an unfinished log after the deciding success hides its outcome (its header cut,
  // removed or never written): it may be a later success, so the run's value is withheld.
  const after =
    decides?.status === "success"
      ? logs.slice(logs.indexOf(decides) + 1).filter((r) => r.status === "started" || r.status === null)
      : [];
  for (const r of logs)
    if (r !== decides)
      flags.push(
        after.includes(r)
          ? {
              code: "RETRY_AFTER_OUTCOME",
              trial: r.path,
              attempt: null,
              evidence: `begun after ${decides!.path} succeeded, its own outcome unread (status ${r.status ?? "unknown"}): the run's value is withheld`,
            }
          : {
              code: r.status === "success" ? "RETRY_AFTER_OUTCOME" : "SUPERSEDED",
              trial: r.path,
              attempt: null,
              evidence: decides === null ? null : `${decides.path} decides`,
            },
      );
  for (const p of c.unidentified)
    flags.push({
      code: "LOG_UNIDENTIFIED",
      trial: p,
      attempt: null,
      evidence:
        "no task run can be read from it, and its folder and name place it beside this one: the run's value is withheld",
    });
  // Each log's own review flags count as the experiment's (their evidence is in the log's entry).
  for (const r of logs)
    for (const f of r.flags) flags.push({ code: f.code, trial: r.path, attempt: null, evidence: null });

  const out = blankExperiment(name, "inspect", decides?.inspect?.plan.records ?? 0);
  out.invalid = invalid.map((r) => ({
    trial: r.path,
    codes: [...new Set(r.errors.map((e) => e.code))].sort(byteCompare),
  }));
  out.unscored = unscored;
  out.flags = flags.sort((a, b) => byteCompare(a.trial, b.trial) || byteCompare(a.code, b.code));
  out.log =
    decides === null
      ? null
      : {
          path: decides.path,
          status: statusOf(decides),
          state: decides.state === "complete" || decides.state === "incomplete" ? decides.state : null,
        };
  out.states = decides?.samples ?? null;
  const missing = decides?.samples?.["missing"] ?? 0;
  if (missing > 0) out.missing = [{ count: missing, reason: `planned, with no record in ${decides!.path}` }];
  const metrics = decides?.inspect?.metrics;
  if (metrics === undefined || decides === null) {
    out.usage = experimentUsage(spent, decides === null ? [] : [decides.usage], 0);
    return out;
  }
  // An invalid log anywhere in the chain (unless --invalid exclude left it out) earns nothing: every planned record counts 0.
  const zeroed = options.invalid === "count" && invalid.length > 0;
  const withheld =
    unscored.length > 0
      ? "a log of this task run could not be read"
      : c.unidentified.length > 0
        ? "a log that may belong to this task run shows no task run"
        : after.length > 0
          ? "a log begun after the deciding success has no outcome to read"
          : null;
  const reading: ChainReading = withheld !== null ? { withheld } : zeroed ? "zeroed" : "as-given";
  out.inspect = Object.fromEntries(
    Object.entries(metrics).map(([key, m]) => [
      key,
      chainMetric(key, m, decides.inspect!.plan, reading, options.errors),
    ]),
  );
  out.usage = experimentUsage(spent, [decides.usage], successesOf(out.inspect));
  return out;
}

/**
 * §13.5: an Inspect run's successes are the samples its first binary mean or accuracy metric (by
 * key) scores 1: the value times the units it is over (a Wilson interval marks it binary).
 */
function successesOf(metrics: NonNullable<Experiment["inspect"]>): number {
  const m = Object.entries(metrics)
    .sort((a, b) => byteCompare(a[0], b[0]))
    .find(([k, x]) => /\/(accuracy|mean)$/.test(k) && x.wilson95 !== null && x.value !== null);
  // Below 2 units there is no interval to say how many; the scored samples are those units.
  return m === undefined ? 0 : Math.round(m[1].value! * (m[1].interval?.units ?? m[1].coverage.scored));
}
