// An experiment's headline figures as page elements. Each number carries data-metric (its name)
// and data-value (the document's own number, unrounded) so a reader's tools and the tests can hold
// the page to the JSON document.

import type { Experiment, ResultsView } from "../../core/results.js";
import { coverageCount } from "../../core/results.js";
import { esc } from "./escape.js";
import { Methods, type WithInterval } from "../intervals.js";
import { wordsOf } from "../vocabulary.js";
import { claimedOr } from "../claimed.js";
import { perSuccessText, totalText } from "../usage.js";

/** The run's --invalid: invalid trials count (as failures, 0) or are left out of the figures. */
type Invalid = ResultsView["run"]["options"]["invalid"];

const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);
const f3 = (x: number | string | null) => (x === null ? "n/a" : typeof x === "string" ? x : x.toFixed(3));
const ratio = (a: number, b: number) => (b === 0 ? null : a / b);
/** A metric's interval after its detail (" · 95% [lo, hi] over …", with the design effect where tasks repeat, or the reason), noted in the section's legend. Not yet escaped. */
const interval = (methods: Methods, m: WithInterval, show: (x: number) => string) => {
  const t = methods.text(m, show);
  const d = m.interval?.design_effect ?? null;
  return t === "" ? "" : ` · ${t}${d === null ? "" : ` (design effect ${d.toFixed(2)})`}`;
};

/** One headline number: its figure, its name, and what it is over (`detail` is already escaped). */
export const metric = (name: string, value: number | null, figure: string, label: string, detail: string): string =>
  `<div class="metric" data-metric="${esc(name)}" data-value="${value === null ? "" : String(value)}"><b>${esc(figure)}</b><span>${esc(label)}</span><small>${detail}</small></div>`;

/** pass^k tiles: `name` prefixes each data-metric, `label` each label. */
const passHatK = (m: Record<string, number> | null, over: string, name = "", label = ""): string[] =>
  Object.entries(m ?? {}).map(([k, v]) => metric(`${name}pass_hat_k:${k}`, v, f3(v), `${label}pass^${k}`, over));

function native(e: Experiment, invalid: Invalid, methods: Methods): string[] {
  const a = e.accuracy!;
  const c = e.completion!;
  return [
    metric(
      "accuracy",
      a.value,
      pct(a.value),
      "accuracy",
      esc(
        `${a.victories}/${a.scored} victories / scored trials; invalid trials ${invalid === "count" ? "count as non-victories" : "left out (--invalid exclude)"}${interval(methods, a, pct)}`,
      ),
    ),
    metric(
      "completion",
      c.value,
      pct(c.value),
      "completion",
      esc(
        `${c.completed}/${c.scheduled} reached a native ending (says nothing about winning)${interval(methods, c, pct)}`,
      ),
    ),
    metric(
      "raw_record",
      e.raw_record!.mean,
      f3(e.raw_record!.mean),
      "raw record mean",
      "missing, invalid, excluded count 0",
    ),
    ...passHatK(e.pass_hat_k, "over trials sharing meta.task"),
  ];
}

function world(e: Experiment, invalid: Invalid, methods: Methods): string[] {
  const p = e.pass!;
  const v = ratio(p.passed, p.total);
  return [
    metric(
      "pass",
      v,
      pct(v),
      "pass",
      esc(
        `${p.passed}/${p.total}: every hard dimension and task_completion; invalid trials ${invalid === "count" ? "fail" : "left out (--invalid exclude)"}${interval(methods, p, pct)}`,
      ),
    ),
    ...passHatK(e.pass_hat_k, "over trials sharing meta.task"),
  ];
}

function harbor(e: Experiment, invalid: Invalid, methods: Methods): string[] {
  return Object.entries(e.rewards ?? {}).flatMap(([key, r]) => [
    metric(
      `reward:${key}:mean`,
      r.mean,
      f3(r.mean),
      `${key}: mean`,
      esc(`over the covered trials${interval(methods, r, f3)}`),
    ),
    metric(
      `reward:${key}:coverage`,
      r.coverage,
      pct(r.coverage),
      `${key}: coverage`,
      esc(
        `${coverageCount(r)} trials scored (invalid ${invalid === "count" ? "as 0" : "left out: --invalid exclude"})${r.coverage_reason === undefined ? "" : `; ${r.coverage_reason}`}`,
      ),
    ),
    metric(`reward:${key}:pass_rate`, r.pass_rate, pct(r.pass_rate), `${key}: pass rate`, "reward == 1"),
    ...Object.entries(r.pass_at_k ?? {}).map(([k, v]) =>
      metric(`reward:${key}:pass_at_k:${k}`, v, f3(v), `${key}: pass@${k}`, "unbiased, per task"),
    ),
    ...passHatK(r.pass_hat_k, "every one of k trials of a task passes (reward ≥ 1)", `reward:${key}:`, `${key}: `),
  ]);
}

function inspect(e: Experiment, methods: Methods): string[] {
  return Object.entries(e.inspect ?? {}).flatMap(([key, m]) => {
    const cov = ratio(m.coverage.scored, m.coverage.planned);
    return [
      metric(
        `inspect:${key}:value`,
        m.value,
        f3(m.value),
        key,
        esc(`assay's value${interval(methods, m, f3)}; Inspect claimed ${f3(m.claimed)} (${m.check})`),
      ),
      metric(
        `inspect:${key}:coverage`,
        cov,
        pct(cov),
        `${key}: coverage`,
        `${m.coverage.scored}/${m.coverage.planned} planned records (sample × epoch) scored`,
      ),
      ...Object.entries(m.pass_at_k ?? {}).map(([k, v]) =>
        metric(`inspect:${key}:pass_at_k:${k}`, v, f3(v), `${key}: pass@${k}`, "unbiased, per sample over its epochs"),
      ),
      ...passHatK(m.pass_hat_k, "every one of k epochs of a sample scores 1", `inspect:${key}:`, `${key}: `),
    ];
  });
}

/**
 * §13.5: what the run cost, as recorded (spent over every entry, counted over the counted units,
 * per success), in US dollars to 3 decimals as every figure here; n/a where not recorded, never 0.
 */
function usage(e: Experiment): string[] {
  const u = e.usage;
  if (u === null) return [];
  return [
    metric(
      "usage:spent:cost_usd",
      u.spent.cost_usd,
      f3(u.spent.cost_usd),
      "cost spent, USD",
      esc(`every entry, retried and superseded ones included: ${totalText(e, u.spent)}`),
    ),
    metric(
      "usage:counted:cost_usd",
      u.counted.cost_usd,
      f3(u.counted.cost_usd),
      "cost counted, USD",
      esc(`the counted units: ${totalText(e, u.counted)}`),
    ),
    metric(
      "usage:cost_per_success",
      u.cost_per_success,
      f3(u.cost_per_success),
      "cost per success, USD",
      esc(`${perSuccessText(u)}; spent / successes, as recorded (never priced by assay)`),
    ),
  ];
}

/**
 * The headline figures of an experiment, by its profile (the experiment is already shown: shown.ts),
 * under the run's --invalid; then the one line naming the methods of the intervals they show.
 */
export function figures(e: Experiment, invalid: Invalid): string {
  const w = wordsOf(e.profile);
  const methods = new Methods(w.units);
  const parts = [
    ...(e.accuracy !== null ? native(e, invalid, methods) : []),
    ...(e.pass !== null ? world(e, invalid, methods) : []),
    ...(w.sections === "rewards" ? harbor(e, invalid, methods) : []),
    ...(w.sections === "samples" ? inspect(e, methods) : []),
    ...usage(e),
  ];
  if (parts.length === 0) return `<p class="muted">no headline figure: nothing here was scored</p>`;
  const legend = methods.legend();
  return `<div class="metrics">${parts.join("")}</div>${legend === null ? "" : `<p class="muted legend">${esc(legend)}</p>`}`;
}

/** What a Harbor job or an Inspect log claims, beside assay's own figure, as a table. */
export function claims(e: Experiment): string {
  const rows: string[] = [];
  if (e.claimed !== null)
    for (const x of e.claimed.compared)
      rows.push(
        `<tr><td>${esc(x.metric)}</td><td data-claimed="${esc(x.metric)}">${claimedOr(x.metric, x.claimed, "n/a")}</td><td>${claimedOr(x.metric, x.assay, "n/a")}</td><td>${x.reason === null ? "agrees" : esc(x.reason)}</td></tr>`,
      );
  for (const [key, m] of Object.entries(e.inspect ?? {}))
    rows.push(
      `<tr><td>${esc(key)}</td><td data-claimed="${esc(key)}">${f3(m.claimed)}</td><td>${f3(m.value)}</td><td>${esc(m.check)}${m.note === null ? "" : `: ${esc(m.note)}`}</td></tr>`,
    );
  if (rows.length === 0) return "";
  const w = wordsOf(e.profile);
  const who = `${esc(w.claims ?? "the harness says")}${e.claimed === null ? "" : ` (${esc(e.claimed.source)})`}`;
  return `<table class="claims"><caption>What the run claims, beside assay's figure from the evidence</caption><thead><tr><th>metric</th><th>${who}</th><th>assay</th><th>check</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}
