// The overview every human format shows first (issue 23): one row per experiment — its kind, how
// many trials, the headline figure with its 95% interval, coverage, the harness's own claim and
// whether assay agrees, invalid, flags, cost — computed once from the canonical document, so the
// table, Markdown and HTML say the same. Plain values here; each format escapes and lays them out.
//
// Order: problems first (a claim assay disputes, invalid trials, an Inspect log that is not a clean
// run), then by kind, then by name — what needs a look on a Monday morning is at the top, and the
// rest is in a stable order. Capped: at 10,000 experiments the overview stays MAX_ROWS rows and
// says how many it left out.

import type { Experiment, IntervalField } from "../core/results.js";
import { byteCompare } from "../core/text.js";
import { Methods, SAMPLES, TRIALS } from "./intervals.js";
import { dollars, tokens } from "./usage.js";

/** Rows an overview shows at most. */
export const MAX_ROWS = 50;

/** Whether assay agrees with the harness's own figure: "none" where the harness claims nothing assay compares. */
export type Agreement = "agrees" | "differs" | "unverified" | "none";

export interface OverviewRow {
  /** The experiment's name (raw: each format escapes it); null for lone trials or unreadable logs. */
  experiment: string | null;
  /** The profile: harbor, inspect, native-game, world (or "unknown"). */
  kind: string;
  /** Trials scheduled (Inspect: planned records, sample × epoch). */
  trials: number;
  /** "in 12 tasks" where the headline interval clusters its units, else "". */
  clusters: string;
  /** The headline metric's name (a Harbor reward key, an Inspect metric, accuracy, pass); null when none. */
  metric: string | null;
  /** The headline figure as text ("0.750", "62.5%", "n/a"). */
  figure: string;
  /** Its 95% interval as text ("[0.342, 1.000]"), or why there is none; "" when the document records neither. */
  interval: string;
  /** Units counted / units there are, as text ("2/2"); "" when the kind has no such count. */
  coverage: string;
  /** The harness's own figure beside assay's ("0.500"), "" when it claims none. */
  claim: string;
  agreement: Agreement;
  invalid: number;
  flags: number;
  /** Cost as recorded ("$0.23"), else tokens ("455.1k tok"), else "". Never priced by assay. */
  cost: string;
  /** Something to look at first: a disputed claim, invalid trials, an Inspect log that is not a clean run. */
  problem: boolean;
}

export interface Overview {
  /** The rows shown, at most MAX_ROWS, problems first. */
  rows: OverviewRow[];
  /** Experiments left out by the cap. */
  omitted: number;
  /** The legend: each explanation once, for the kinds and interval methods the document holds. */
  legend: string[];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number | string | null) => (x === null ? "n/a" : typeof x === "string" ? x : x.toFixed(3));

interface Headline {
  metric: string | null;
  value: number | string | null;
  show: (x: number) => string;
  m: { interval?: IntervalField | null; interval_reason?: string | null } | null;
  coverage: string;
}

function headline(e: Experiment): Headline {
  if (e.accuracy !== null) return { metric: "accuracy", value: e.accuracy.value, show: pct, m: e.accuracy, coverage: `${e.accuracy.scored}/${e.scheduled}` };
  if (e.pass !== null) return { metric: "pass", value: e.pass.total === 0 ? null : e.pass.passed / e.pass.total, show: pct, m: e.pass, coverage: `${e.pass.total}/${e.scheduled}` };
  if (e.rewards !== null) {
    // "reward" is Harbor's usual key; a job with other keys leads with its first.
    const keys = Object.keys(e.rewards);
    const key = keys.includes("reward") ? "reward" : keys[0];
    if (key !== undefined) {
      const r = e.rewards[key]!;
      return { metric: key, value: r.mean, show: f3, m: r, coverage: `${r.covered}/${r.trials}` };
    }
  }
  const first = Object.entries(e.inspect ?? {})[0];
  if (first !== undefined) {
    const [key, m] = first;
    return { metric: key, value: m.value, show: f3, m, coverage: `${m.coverage.scored}/${m.coverage.planned}` };
  }
  return { metric: null, value: null, show: f3, m: null, coverage: "" };
}

/** The harness's claim beside assay's: Harbor's job figures (claimed.compared), Inspect's metrics (check). */
function claimOf(e: Experiment, metric: string | null): { claim: string; agreement: Agreement } {
  if (e.claimed !== null && e.claimed.compared.length > 0) {
    const c = e.claimed.compared;
    const differs = c.filter((x) => x.reason !== null).length;
    const claim = c.length === 1 ? f3(c[0]!.claimed) : `${c.length} figures`;
    return { claim, agreement: differs === 0 ? "agrees" : "differs" };
  }
  const metrics = Object.values(e.inspect ?? {});
  if (metrics.length > 0) {
    const shown = metric === null ? undefined : e.inspect![metric];
    const claim = shown === undefined || shown.claimed === null ? "" : f3(shown.claimed);
    const agreement = metrics.some((m) => m.check === "mismatch") ? "differs" : metrics.every((m) => m.check === "agrees") ? "agrees" : "unverified";
    return { claim, agreement };
  }
  return { claim: "", agreement: "none" };
}

function costOf(e: Experiment): string {
  const s = e.usage?.spent;
  if (s === undefined) return "";
  if (s.cost_usd !== null) return dollars(s.cost_usd);
  const t = (s.input_tokens ?? 0) + (s.output_tokens ?? 0);
  return s.input_tokens === null && s.output_tokens === null ? "" : `${tokens(t)} tok`;
}

/** Every interval the experiment's details show, noted for the legend (the details name no method of their own). */
function seeEvery(e: Experiment, methods: Methods): void {
  for (const m of [e.accuracy, e.completion, e.pass, ...Object.values(e.dimensions ?? {}), ...Object.values(e.rewards ?? {}), ...Object.values(e.inspect ?? {})]) if (m !== null) methods.see(m);
}

/** One experiment's row; `methods` notes its intervals' methods for the legend. */
function rowOf(e: Experiment, methods: Methods): OverviewRow {
  const h = headline(e);
  const i = h.m?.interval ?? null;
  seeEvery(e, methods);
  const interval = h.m === null ? "" : i !== null ? `[${h.show(i.lo)}, ${h.show(i.hi)}]` : (h.m.interval_reason ?? "");
  const noun = e.profile === "inspect" ? SAMPLES.cluster : TRIALS.cluster;
  const { claim, agreement } = claimOf(e, h.metric);
  const unclean = e.profile === "inspect" && (e.log === null || e.log.status !== "success" || e.log.state !== "complete");
  return {
    experiment: e.experiment,
    kind: e.profile ?? "unknown",
    trials: e.scheduled,
    clusters: i !== null && i.clusters < i.units ? `in ${i.clusters} ${noun}${i.clusters === 1 ? "" : "s"}` : "",
    metric: h.metric,
    figure: h.value === null ? "n/a" : typeof h.value === "string" ? h.value : h.show(h.value),
    interval,
    coverage: h.coverage,
    claim,
    agreement,
    invalid: e.invalid.length,
    flags: e.flags.length,
    cost: costOf(e),
    problem: agreement === "differs" || e.invalid.length > 0 || unclean,
  };
}

const byProblemKindName = (a: OverviewRow, b: OverviewRow) =>
  Number(b.problem) - Number(a.problem) || byteCompare(a.kind, b.kind) || byteCompare(a.experiment ?? "", b.experiment ?? "");

/** What each kind's headline figure is, said once in the legend. */
const HEADLINE: Record<string, string> = {
  harbor: "Harbor: the mean of the reward key (\"reward\", else the first; every key in the details) over trials with a reward; coverage = trials scored / every trial but tool errors",
  inspect: "Inspect: the log's first metric as assay recomputes it over the samples present; coverage = scored / planned records (sample × epoch)",
  "native-game": "native-game: accuracy = victories / scored trials (--invalid says how invalid ones count)",
  world: "world: pass = every hard dimension and task_completion passed; its dimensions are reported apart in the details: no blended score",
};

/**
 * The overview of a document's experiments: the first MAX_ROWS rows in order (problems, kind,
 * name), how many were left out, and the legend that explains the rows once.
 */
export function overview(experiments: readonly Experiment[], o: { errors: "exclude" | "zero"; max?: number }): Overview {
  const max = o.max ?? MAX_ROWS;
  const trials = new Methods(TRIALS);
  const samples = new Methods(SAMPLES);
  const all = experiments.map((e) => rowOf(e, e.profile === "inspect" ? samples : trials)).sort(byProblemKindName);
  const rows = all.slice(0, max);
  // The legend explains every experiment of the document, those past the cap too (--details shows them).
  const kinds = new Set(all.map((r) => r.kind));
  const legend = [...kinds].filter((k) => HEADLINE[k] !== undefined).sort().map((k) => HEADLINE[k]!);
  if (kinds.has("harbor"))
    legend.push(o.errors === "zero" ? "Harbor trials without a reward (errors, cancelled, incomplete, unverified) count as reward 0 (--errors zero)" : "Harbor trials without a reward (errors, cancelled, incomplete, unverified) are left out of every mean (--errors zero counts them as 0)");
  if (kinds.has("inspect"))
    legend.push(
      o.errors === "zero"
        ? "Inspect samples without a score (error, cancelled, missing, unscored, invalidated) count 0 (--errors zero); early-stopped ones are left out"
        : "Inspect samples without a score (error, cancelled, missing, unscored, invalidated) are left out of every value (--errors zero counts them as 0)",
    );
  for (const m of [trials, samples]) {
    const l = m.legend();
    if (l !== null) legend.push(l);
  }
  if (all.some((r) => r.interval !== "" && !r.interval.startsWith("["))) legend.push("no interval: a single trial or sample, all of them in one task or group, or none counted (the details say which)");
  legend.push("claim: the harness's own figure (Harbor's result.json, Inspect's log); agrees, differs (the details say why) or unverified");
  legend.push("flags: for review, they change no state and no figure; cost: as recorded (tokens where no cost is), never priced by assay");
  return { rows, omitted: all.length - rows.length, legend };
}
