// An experiment's headline figures as page elements. Each number carries data-metric (its name)
// and data-value (the document's own number, unrounded) so a reader's tools and the tests can hold
// the page to the JSON document.

import type { Experiment, ResultsView } from "../../core/results.js";
import { esc } from "./escape.js";

/** The run's --invalid: invalid trials count (as failures, 0) or are left out of the figures. */
type Invalid = ResultsView["run"]["options"]["invalid"];

const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);
const f3 = (x: number | string | null) => (x === null ? "n/a" : typeof x === "string" ? x : x.toFixed(3));
const ratio = (a: number, b: number) => (b === 0 ? null : a / b);
const interval = (w: [number, number] | null, show: (x: number) => string) => (w === null ? "" : ` · Wilson 95% [${show(w[0])}, ${show(w[1])}]`);

/** One headline number: its figure, its name, and what it is over (`detail` is already escaped). */
export const metric = (name: string, value: number | null, figure: string, label: string, detail: string): string =>
  `<div class="metric" data-metric="${esc(name)}" data-value="${value === null ? "" : String(value)}"><b>${esc(figure)}</b><span>${esc(label)}</span><small>${detail}</small></div>`;

const passHatK = (m: Record<string, number> | null): string[] =>
  Object.entries(m ?? {}).map(([k, v]) => metric(`pass_hat_k:${k}`, v, f3(v), `pass^${k}`, "over trials sharing meta.task"));

function native(e: Experiment, invalid: Invalid): string[] {
  const a = e.accuracy!;
  const c = e.completion!;
  return [
    metric("accuracy", a.value, pct(a.value), "accuracy", `${a.victories}/${a.scored} victories / scored trials; invalid trials ${invalid === "count" ? "count as non-victories" : "left out (--invalid exclude)"}${interval(a.wilson95, pct)}`),
    metric("completion", c.value, pct(c.value), "completion", `${c.completed}/${c.scheduled} reached a native ending (says nothing about winning)`),
    metric("raw_record", e.raw_record!.mean, f3(e.raw_record!.mean), "raw record mean", "missing, invalid, excluded count 0"),
    ...passHatK(e.pass_hat_k),
  ];
}

function world(e: Experiment, invalid: Invalid): string[] {
  const p = e.pass!;
  const v = ratio(p.passed, p.total);
  return [
    metric("pass", v, pct(v), "pass", `${p.passed}/${p.total}: every hard dimension and task_completion; invalid trials ${invalid === "count" ? "fail" : "left out (--invalid exclude)"}`),
    ...passHatK(e.pass_hat_k),
  ];
}

function harbor(e: Experiment, invalid: Invalid): string[] {
  return Object.entries(e.rewards ?? {}).flatMap(([key, r]) => [
    metric(`reward:${key}:mean`, r.mean, f3(r.mean), `${key}: mean`, esc(`over the covered trials${interval(r.wilson95, f3)}`)),
    metric(`reward:${key}:coverage`, r.coverage, pct(r.coverage), `${key}: coverage`, esc(`${r.covered}/${r.trials} trials scored (invalid ${invalid === "count" ? "as 0" : "left out: --invalid exclude"})`)),
    metric(`reward:${key}:pass_rate`, r.pass_rate, pct(r.pass_rate), `${key}: pass rate`, "reward == 1"),
    ...Object.entries(r.pass_at_k ?? {}).map(([k, v]) => metric(`reward:${key}:pass_at_k:${k}`, v, f3(v), `${key}: pass@${k}`, "unbiased, per task")),
  ]);
}

function inspect(e: Experiment): string[] {
  return Object.entries(e.inspect ?? {}).flatMap(([key, m]) => {
    const cov = ratio(m.coverage.scored, m.coverage.planned);
    return [
      metric(`inspect:${key}:value`, m.value, f3(m.value), key, esc(`assay's value${interval(m.wilson95, f3)}; Inspect claimed ${f3(m.claimed)} (${m.check})`)),
      metric(`inspect:${key}:coverage`, cov, pct(cov), `${key}: coverage`, `${m.coverage.scored}/${m.coverage.planned} planned records scored`),
    ];
  });
}

/** The headline figures of an experiment, by its profile (the experiment is already shown: shown.ts), under the run's --invalid. */
export function figures(e: Experiment, invalid: Invalid): string {
  const parts = [...(e.accuracy !== null ? native(e, invalid) : []), ...(e.pass !== null ? world(e, invalid) : []), ...(e.profile === "harbor" ? harbor(e, invalid) : []), ...(e.profile === "inspect" ? inspect(e) : [])];
  return parts.length === 0 ? `<p class="muted">no headline figure: nothing here was scored</p>` : `<div class="metrics">${parts.join("")}</div>`;
}

/** What a Harbor job or an Inspect log claims, beside assay's own figure, as a table. */
export function claims(e: Experiment): string {
  const rows: string[] = [];
  if (e.claimed !== null)
    for (const x of e.claimed.compared)
      rows.push(`<tr><td>${esc(x.metric)}</td><td data-claimed="${esc(x.metric)}">${f3(x.claimed)}</td><td>${f3(x.assay)}</td><td>${x.reason === null ? "agrees" : esc(x.reason)}</td></tr>`);
  for (const [key, m] of Object.entries(e.inspect ?? {}))
    rows.push(`<tr><td>${esc(key)}</td><td data-claimed="${esc(key)}">${f3(m.claimed)}</td><td>${f3(m.value)}</td><td>${esc(m.check)}${m.note === null ? "" : `: ${esc(m.note)}`}</td></tr>`);
  if (rows.length === 0) return "";
  const who = e.profile === "harbor" ? `Harbor says (${esc(e.claimed?.source ?? "")})` : "Inspect says";
  return `<table class="claims"><caption>What the run claims, beside assay's figure from the evidence</caption><thead><tr><th>metric</th><th>${who}</th><th>assay</th><th>check</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}
