// Charts as static SVG, drawn at report time by Vega-Lite (compiled to Vega, rendered headless
// in Node: no canvas, no browser, no network). The page inlines the SVG, so it needs no script to
// show a chart and prints as drawn. Colours: the Okabe-Ito palette (safe for the common forms of
// colour blindness); text and axes in currentColor, so the page's light or dark scheme applies.

import { stateColour } from "./state-colours.js";
import type { TopLevelSpec } from "vega-lite";
import type { Experiment } from "../../core/results.js";
import { Methods, type WithInterval } from "../intervals.js";
import { wordsOf } from "../vocabulary.js";

/** Okabe & Ito (2008), "Color Universal Design": distinguishable with protan, deutan or tritan vision (grey for their black, seen on dark pages too). */
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#999999"];
const INK = "currentColor";
const CONFIG = {
  background: "transparent",
  font: "system-ui, sans-serif",
  range: { category: PALETTE },
  axis: { labelColor: INK, titleColor: INK, domainColor: INK, tickColor: INK, gridOpacity: 0.25, labelLimit: 260 },
  legend: { labelColor: INK, titleColor: INK, orient: "bottom", labelLimit: 400, columns: 3 },
  title: { color: INK, subtitleColor: INK, anchor: "start", fontSize: 13 },
  view: { stroke: null },
};

/** Vega and Vega-Lite, loaded when the first chart is drawn: the other formats never pay for them. */
let libs: Promise<[typeof import("vega"), typeof import("vega-lite")]> | undefined;

/**
 * A Vega-Lite spec rendered to an SVG string. `prefix` makes the SVG's ids (gradients, clips)
 * unique in the page, where many charts are inlined side by side.
 */
export async function svg(spec: Record<string, unknown>, prefix: string): Promise<string> {
  const [vega, vl] = await (libs ??= Promise.all([import("vega"), import("vega-lite")]));
  const full = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    width: 380,
    config: CONFIG,
    ...spec,
  } as TopLevelSpec;
  // Vega's warnings stay out of assay's standard error (a chart's spec is assay's, not the user's).
  const quiet = vega.logger(vega.None);
  const view = new vega.View(vega.parse(vl.compile(full, { logger: quiet }).spec), {
    renderer: "none",
    logLevel: vega.None,
  });
  try {
    return (await view.toSVG())
      .replace(/\bid="/g, `id="${prefix}-`)
      .replace(/url\(#/g, `url(#${prefix}-`)
      .replace(/href="#/g, `href="#${prefix}-`);
  } finally {
    view.finalize();
  }
}

/** A chart's title, with a line under it for each interval method its whiskers or labels use. */
const titled = (text: string, methods: string[]) => ({ text, ...(methods.length === 0 ? {} : { subtitle: methods }) });

/** Characters of a label's line: a longer name (an Inspect `scorer/reducer/metric`) wraps rather than being cut. */
const LINE = 36;

/** A name broken into lines of at most LINE characters, after a `/`, `_`, `:`, `-` or space where it can, joined by "\n" (the axis splits them). */
export function wrap(name: string): string {
  const lines: string[] = [];
  let rest = name;
  while (rest.length > LINE) {
    const head = rest.slice(0, LINE);
    const at = Math.max(...["/", "_", ":", "-", " "].map((c) => head.lastIndexOf(c)));
    const cut = at > LINE / 3 ? at + 1 : LINE;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return [...lines, rest].join("\n");
}

/** A nominal axis of wrapped names (wrap): one label line per "\n", each row tall enough for its lines. */
function names(field: string, values: readonly Record<string, unknown>[], sort: unknown, step: number) {
  const lines = Math.max(1, ...values.map((v) => String(v[field]).split("\n").length));
  return {
    y: { field, type: "nominal", sort, title: null, axis: { labelExpr: "split(datum.label, '\\n')", labelLimit: 0 } },
    height: { step: Math.max(step, 12 * lines + 6) },
  };
}

/** A quantitative scale that starts at 0 and, where every value is 0, still runs to 1 (a degenerate [0, 0] draws no axis). */
const fromZero = (values: readonly number[]) => (values.every((v) => v === 0) ? { domain: [0, 1] } : { zero: true });

interface Bar {
  figure: string;
  value: number;
  lo?: number;
  hi?: number;
}

/**
 * Proportions as bars on [0, 1], with their 95% interval (§13.2: Wilson, t or cluster-robust t,
 * as the document's `interval` says) as whiskers where it has one; the title names the methods.
 */
export function headline(e: Experiment): Record<string, unknown> | null {
  const rows: Bar[] = [];
  const methods = new Methods(wordsOf(e.profile).units);
  const add = (figure: string, value: number | null, m: WithInterval = {}) => {
    if (value === null || value < 0 || value > 1) return;
    const i = m.interval ?? null;
    if (i !== null) methods.see(m);
    // The axis is [0, 1]: a whisker of a mean whose units lie outside it is drawn to the edge.
    rows.push({ figure: wrap(figure), value, ...(i === null ? {} : { lo: Math.max(0, i.lo), hi: Math.min(1, i.hi) }) });
  };
  if (e.accuracy !== null) add("accuracy", e.accuracy.value, e.accuracy);
  if (e.completion !== null) add("completion", e.completion.value, e.completion);
  if (e.pass !== null && e.pass.total > 0) add("pass", e.pass.passed / e.pass.total, e.pass);
  for (const [k, v] of Object.entries(e.pass_hat_k ?? {})) add(`pass^${k}`, v);
  for (const [key, r] of Object.entries(e.rewards ?? {})) {
    add(`${key}: mean`, r.mean, r);
    add(`${key}: coverage`, r.coverage);
    add(`${key}: pass rate`, r.pass_rate);
    for (const [k, v] of Object.entries(r.pass_at_k ?? {})) add(`${key}: pass@${k}`, v);
    for (const [k, v] of Object.entries(r.pass_hat_k ?? {})) add(`${key}: pass^${k}`, v);
  }
  for (const [key, m] of Object.entries(e.inspect ?? {})) {
    // A mean or accuracy metric (by its key, `scorer/reducer/metric`): stderr, std and var are no proportion.
    if (!/\/(accuracy|mean)$/.test(key)) continue;
    add(key, m.value, m);
    if (m.coverage.planned > 0) add(`${key}: coverage`, m.coverage.scored / m.coverage.planned);
  }
  if (rows.length === 0) return null;
  const { y, height } = names("figure", rows as unknown as Record<string, unknown>[], null, 22);
  const used = methods.used();
  return {
    title: titled(
      `Headline (bars: value; whiskers: ${used.length === 0 ? "none, no figure here has an interval" : "95% interval"})`,
      used,
    ),
    data: { values: rows },
    height,
    layer: [
      // The value beside its bar, so a 0 (no bar at all) still reads as a figure.
      {
        mark: { type: "text", color: INK, align: "left", dx: 4, fontSize: 10 },
        encoding: {
          y,
          x: { field: "value", type: "quantitative" },
          text: { field: "value", type: "quantitative", format: ".1%" },
        },
      },
      {
        mark: { type: "bar", color: PALETTE[0], height: { band: 0.6 } },
        encoding: {
          y,
          x: { field: "value", type: "quantitative", scale: { domain: [0, 1] }, title: null, axis: { format: ".0%" } },
        },
      },
      {
        mark: { type: "rule", color: INK, strokeWidth: 1.5 },
        transform: [{ filter: "isValid(datum.lo)" }],
        encoding: { y, x: { field: "lo", type: "quantitative" }, x2: { field: "hi" } },
      },
      {
        mark: { type: "tick", color: INK, thickness: 1.5, size: 10 },
        transform: [{ filter: "isValid(datum.lo)" }],
        encoding: { y, x: { field: "lo", type: "quantitative" } },
      },
      {
        mark: { type: "tick", color: INK, thickness: 1.5, size: 10 },
        transform: [{ filter: "isValid(datum.hi)" }],
        encoding: { y, x: { field: "hi", type: "quantitative" } },
      },
    ],
  };
}

/** A chart of nothing: its title and one line saying so ("no Harbor trials in this run"). */
function nothingIn(title: string, what: string): Record<string, unknown> {
  return {
    title,
    data: { values: [{ text: `no ${what} in this run` }] },
    height: 28,
    mark: { type: "text", align: "left", x: 0, color: INK },
    encoding: { text: { field: "text" } },
  };
}

/** Each trial's state (Harbor, Inspect) or what it came to (native, world), as one stacked bar. */
export function states(e: Experiment): Record<string, unknown> | null {
  let counts: [string, number][];
  if (e.states !== null) counts = Object.entries(e.states);
  else if (e.accuracy !== null) {
    const a = e.accuracy;
    counts = [
      ["victory", a.victories],
      ["no victory", a.scored - a.victories],
      ["not scored", e.scheduled - a.scored],
    ];
  } else if (e.pass !== null)
    counts = [
      ["pass", e.pass.passed],
      ["fail", e.pass.total - e.pass.passed],
      ["not scored", e.scheduled - e.pass.total],
    ];
  else return null;
  const values = counts.filter(([, n]) => n > 0).map(([state, n], i) => ({ state, n, i }));
  // Nothing in any state: said, never an empty frame (issue 40).
  if (values.length === 0) return nothingIn(e.states !== null ? "States" : "Trials", wordsOf(e.profile).evidencePlural);
  return {
    title: e.states !== null ? "States" : "Trials",
    data: { values },
    height: 28,
    mark: { type: "bar" },
    encoding: {
      x: { field: "n", type: "quantitative", stack: "zero", title: null, axis: { tickMinStep: 1 } },
      color: {
        field: "state",
        type: "nominal",
        sort: null,
        title: null,
        // By meaning, never by order (state-colours.ts).
        scale: { domain: values.map((v) => v.state), range: values.map((v) => stateColour(v.state)) },
      },
      order: { field: "i" },
      tooltip: [{ field: "state" }, { field: "n" }],
    },
  };
}

/** World dimensions as a grid of pass counts, each with its 95% interval where it has one; the hard ones (a failure fails the run) marked. */
export function dimensions(e: Experiment, hard: ReadonlySet<string>): Record<string, unknown> | null {
  if (e.dimensions === null) return null;
  const methods = new Methods(wordsOf(e.profile).units);
  const pct = (x: number) => `${Math.round(100 * x)}%`;
  const values = Object.entries(e.dimensions).map(([name, d]) => {
    methods.see(d);
    return {
      dimension: wrap(hard.has(name) ? `${name} (hard)` : name),
      kind: hard.has(name) ? "hard" : "soft",
      share: d.total === 0 ? 0 : d.passed / d.total,
      label: `${d.passed}/${d.total}${d.interval ? ` [${pct(d.interval.lo)}, ${pct(d.interval.hi)}]` : ""}`,
    };
  });
  const { y, height } = names("dimension", values, null, 24);
  const used = methods.used();
  return {
    title: titled(
      `World dimensions: trials passing each (no blended score)${used.length === 0 ? "" : "; [95% interval]"}`,
      used,
    ),
    data: { values },
    height,
    width: 200,
    layer: [
      {
        mark: { type: "rect", stroke: INK, strokeOpacity: 0.3 },
        encoding: {
          y,
          color: {
            field: "share",
            type: "quantitative",
            scale: { domain: [0, 1], range: ["#D55E00", "#F0E442", "#009E73"] },
            title: "passing",
            legend: { format: ".0%" },
          },
          strokeWidth: { condition: { test: "datum.kind === 'hard'", value: 3 }, value: 0.5 },
        },
      },
      { mark: { type: "text", color: "#000000", fontWeight: "bold" }, encoding: { y, text: { field: "label" } } },
    ],
  };
}

/** What the run claims beside assay's figure, per metric (numbers only: NaN and infinities stay in the table). */
export function claimed(e: Experiment): Record<string, unknown> | null {
  const values: { metric: string; who: string; value: number }[] = [];
  const pair = (metric: string, claim: number | string | null, assay: number | null) => {
    if (typeof claim !== "number" || assay === null) return;
    values.push(
      { metric: wrap(metric), who: "claimed", value: claim },
      { metric: wrap(metric), who: "assay", value: assay },
    );
  };
  for (const x of e.claimed?.compared ?? []) pair(x.metric, x.claimed, x.assay);
  for (const [key, m] of Object.entries(e.inspect ?? {})) pair(key, m.claimed, m.value);
  if (values.length === 0) return null;
  // Two bars a row: a row's step holds both, and a wrapped name's lines.
  const axis = names("metric", values, null, 28);
  return {
    title: `${wordsOf(e.profile).label} claims, beside assay's value from the evidence`,
    data: { values },
    mark: { type: "bar" },
    height: axis.height,
    encoding: {
      y: axis.y,
      yOffset: { field: "who", sort: ["claimed", "assay"] },
      x: { field: "value", type: "quantitative", title: null, scale: fromZero(values.map((v) => v.value)) },
      color: {
        field: "who",
        type: "nominal",
        sort: ["claimed", "assay"],
        title: null,
        scale: { range: [PALETTE[1], PALETTE[0]] },
      },
    },
  };
}

/** Findings (errors, warnings and flags) counted by code. */
export function findings(
  counts: ReadonlyMap<string, number>,
  title = "Findings by code",
): Record<string, unknown> | null {
  if (counts.size === 0) return null;
  const values = [...counts].map(([code, n]) => ({ code: wrap(code), n }));
  const { y, height } = names("code", values, "-x", 18);
  return {
    title,
    data: { values },
    height,
    mark: { type: "bar", color: PALETTE[3] },
    encoding: {
      y,
      x: {
        field: "n",
        type: "quantitative",
        title: "count",
        axis: { tickMinStep: 1 },
        scale: fromZero(values.map((v) => v.n)),
      },
    },
  };
}
