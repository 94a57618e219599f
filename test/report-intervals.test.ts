// Every report shows §13.2's `interval` (not `wilson95`, which treats each unit as independent):
// its bounds, what it is over ("11 trials in 3 tasks" where tasks repeat), the methods named once
// per section, a null interval's reason; pass^k for Harbor reward keys and Inspect metrics; and an
// Inspect metric over epochs counts the reduced samples its interval is over, records apart.
// The documents are built by hand: the reports print what the document says, nothing more.
import { describe, expect, it } from "vitest";
import { blankExperiment, viewOf, type Experiment, type IntervalField, type Results } from "../src/core/results.js";
import { headline } from "../src/report/html/charts.js";
import { render as html } from "../src/report/html/index.js";
import { FORMATS, renderText } from "../src/report/index.js";

const RUN: Results["run"] = {
  tool_version: "t",
  scoring_version: 7,
  started_at: "",
  complete: true,
  shard: null,
  roots: ["/r"],
  options: {
    invalid: "count",
    resource_bound: "default",
    errors: "exclude",
    schedules: [],
    hmac_key: null,
    filters: null,
  },
  jobs: [],
  unrecognised: { count: 0, paths: [] },
};

// docs/metrics.md's worked example (test/golden.test.ts derives it from the trials): 2 wins in 11
// trials, task A 5 trials 2 wins, task B 5 trials 0 wins, one taskless trial (its own cluster).
// x̄ = 2/11; deviation sums 2 − 5·2/11 = 12/11, −10/11, −2/11; Σ² = 248/121;
// SE = √(3/2 · 248/121)/11 = √372/121; t(0.975, 2) = 4.303 (any t table); x̄ − 4.303·SE < 0, so lo = 0;
// hi = 2/11 + 4.303·√372/121 ≈ 0.868. s² = (2·(9/11)² + 9·(2/11)²)/10 = (198/121)/10, so the
// naive SE² is s²/11 = 198/13310 and design_effect = (372/14641)/(198/13310) ≈ 1.708.
const SE = Math.sqrt(372) / 121;
const GOLD: IntervalField = {
  method: "cluster-t",
  lo: 0,
  hi: 2 / 11 + 4.303 * SE,
  units: 11,
  clusters: 3,
  se: SE,
  design_effect: 372 / 14641 / (198 / 13310),
};
const wilson = (lo: number, hi: number, n: number): IntervalField => ({
  method: "wilson",
  lo,
  hi,
  units: n,
  clusters: n,
  se: null,
  design_effect: null,
});

const native: Experiment = {
  ...blankExperiment("gold", "native-game", 11),
  accuracy: {
    value: 2 / 11,
    victories: 2,
    scored: 11,
    wilson95: [0.0514, 0.477],
    interval: GOLD,
    interval_reason: null,
  },
  completion: {
    value: 1,
    completed: 11,
    scheduled: 11,
    interval: null,
    interval_reason: "every unit is 1 in one task: no interval from a single task",
  },
  raw_record: { values: [], mean: 2 / 11 },
  retry: [],
};
const solo: Experiment = {
  ...blankExperiment("solo", "native-game", 6),
  accuracy: {
    value: 0.5,
    victories: 3,
    scored: 6,
    wilson95: [0.188, 0.812],
    interval: null,
    interval_reason: "all 6 trials are in one task: no interval from a single task",
  },
  completion: {
    value: 1,
    completed: 6,
    scheduled: 6,
    interval: null,
    interval_reason: "all 6 trials are in one task: no interval from a single task",
  },
  raw_record: { values: [], mean: 0.5 },
  retry: [],
};
const world: Experiment = {
  ...blankExperiment("w", "world", 4),
  pass: { passed: 3, total: 4, interval: wilson(0.3006, 0.9544, 4), interval_reason: null },
  dimensions: { preservation: { passed: 4, total: 4, interval: wilson(0.5101, 1, 4), interval_reason: null } },
  retry: [],
};
const HARBOR_IV: IntervalField = {
  method: "cluster-t",
  lo: 0.21,
  hi: 0.61,
  units: 41,
  clusters: 12,
  se: 0.09,
  design_effect: 1.4,
};
const harbor: Experiment = {
  ...blankExperiment("job", "harbor", 41),
  states: { scored: 41 },
  rewards: {
    reward: {
      mean: 0.41,
      wilson95: [0.27, 0.56],
      coverage: 1,
      covered: 41,
      trials: 41,
      pass_rate: 0.41,
      pass_at_k: { "1": 0.41, "2": 0.55 },
      pass_at_k_reason: null,
      pass_hat_k: { "1": 0.41, "2": 0.25 },
      interval: HARBOR_IV,
      interval_reason: null,
    },
  },
};
/** An Inspect metric entry of an experiment, the rest of its fields given. */
const metric = (
  f: Partial<NonNullable<Experiment["inspect"]>[string]>,
): NonNullable<Experiment["inspect"]>[string] => ({
  claimed: 1,
  value: 1,
  coverage: { scored: 6, planned: 6 },
  wilson95: null,
  pass_at_k: null,
  check: "agrees",
  note: null,
  errors_zero: 1,
  interval: null,
  interval_reason: null,
  pass_hat_k: null,
  ...f,
});
// One sample over 6 epochs: one reduced value, so no interval (n = 1), though 6 records were scored.
// The old table printed "1.000 over 6 scored records, Wilson [0.207, 1.000]": Wilson(1 of 1) beside a record count.
const epochs: Experiment = {
  ...blankExperiment("one-sample", "inspect", 6),
  log: { path: "/r/logs/a.eval", status: "success", state: "complete" },
  states: { scored: 6 },
  inspect: {
    "match/mean/accuracy": metric({
      wilson95: [0.2065, 1],
      pass_hat_k: { "1": 1, "6": 1 },
      interval_reason: "one sample: no interval from a single value",
    }),
  },
};
// Three samples over 2 epochs (6 records): the mean of binary epochs is not binary, so t over 3 samples;
// and a metric clustered by a metadata key: 8 samples in 3 groups.
const inspectRun: Experiment = {
  ...blankExperiment("three-samples", "inspect", 6),
  log: { path: "/r/logs/b.eval", status: "success", state: "complete" },
  states: { scored: 6 },
  inspect: {
    "match/mean/accuracy": metric({
      value: 2 / 3,
      claimed: 2 / 3,
      errors_zero: 2 / 3,
      wilson95: [0.3, 0.9],
      pass_at_k: { "1": 0.667, "2": 0.833 },
      pass_hat_k: { "1": 0.667, "2": 0.5 },
      interval: { method: "t", lo: 0.1, hi: 1, units: 3, clusters: 3, se: 0.19, design_effect: null },
    }),
    "grouped/mean/mean": metric({
      value: 0.5,
      claimed: 0.5,
      errors_zero: 0.5,
      coverage: { scored: 8, planned: 8 },
      interval: { method: "cluster-t", lo: 0.05, hi: 0.95, units: 8, clusters: 3, se: 0.1, design_effect: 2.2 },
    }),
  },
};
const doc: Results = {
  format: "assay.results/1",
  run: RUN,
  bundles: [],
  experiments: [native, solo, world, harbor, epochs, inspectRun],
};
const view = () => viewOf(doc);

/** The part of a text from `start` up to the next occurrence of `next` after it (or the end). */
const section = (text: string, start: string, next: string) => {
  const at = text.indexOf(start);
  expect(at, start).toBeGreaterThanOrEqual(0);
  const end = text.indexOf(next, at + start.length);
  return text.slice(at, end < 0 ? undefined : end);
};
const count = (text: string, s: string) => text.split(s).length - 1;
const LEGEND = "95% intervals:";
const TASKS_QUESTION = "each for the mean over the population of tasks these were drawn from";

/** The table with --details: the overview, its legend (each interval method named once), then the sections. */
const detailed = (v: Parameters<typeof FORMATS.table.render>[0]) =>
  [...FORMATS.table.render(v, { details: true })].join("");

describe("the table", () => {
  const t = detailed(view());
  const sect = (name: string) => section(t, name, "\n\n");

  it("shows the interval with what it is over, and names its method once, in the overview's legend", () => {
    const g = sect("experiment gold");
    expect(g).toContain("accuracy     2/11 = 18.2%   95% [0.0%, 86.8%] over 11 trials in 3 tasks");
    expect(g).not.toContain("Wilson 95%");
    expect(g).not.toContain("47.7%"); // wilson95 stays in the JSON document only
    expect(count(g, LEGEND)).toBe(0);
    expect(t).toContain("cluster-robust t over tasks where tasks repeat (Inspect's clustered stderr)");
    expect(g).not.toContain("Wilson where");
    const w = sect("experiment w");
    expect(w).toContain("pass         3/4 = 75.0%   95% [30.1%, 95.4%] over 4 trials");
    expect(w).toMatch(/preservation\s+4\/4   95% \[51\.0%, 100\.0%\] over 4 trials/);
    expect(count(w, LEGEND)).toBe(0);
    expect(t).toContain(`${LEGEND} Wilson where each task ran once`);
    // Once for the trials' methods, once for the samples': never per experiment.
    expect(count(t, LEGEND)).toBe(2);
  });

  it("says why there is no interval, where the interval would be, and gives no legend for none", () => {
    const s = sect("experiment solo");
    expect(s).toContain("accuracy     3/6 = 50.0%   all 6 trials are in one task: no interval from a single task");
    expect(s).not.toContain(LEGEND);
    expect(sect("experiment gold")).toContain(
      "completion   11/11 = 100.0%   every unit is 1 in one task: no interval from a single task",
    );
  });

  it("a Harbor reward: trials in tasks, and pass^k beside pass@k", () => {
    const h = sect("job job");
    expect(h).toContain("mean       0.410   95% [0.210, 0.610] over 41 trials in 12 tasks");
    expect(h).toContain("pass@k     k=1 0.410  k=2 0.550");
    expect(h).toContain("pass^k     k=1 0.410  k=2 0.250");
    expect(count(h, LEGEND)).toBe(0);
  });

  it("an Inspect metric over epochs: the reduced samples the interval is over, the records as coverage", () => {
    const one = sect("task run one-sample");
    expect(one).toContain(
      "assay      1.000   one sample: no interval from a single value   coverage 6/6 planned records scored",
    );
    expect(one).not.toMatch(/over 6|0\.207|Wilson/);
    expect(one).toContain("pass^k     k=1 1.000  k=6 1.000");
    const three = sect("task run three-samples");
    expect(three).toContain(
      "assay      0.667   95% [0.100, 1.000] over 3 samples   coverage 6/6 planned records scored",
    );
    expect(three).toContain("assay      0.500   95% [0.050, 0.950] over 8 samples in 3 groups");
    expect(three).toContain("pass^k     k=1 0.667  k=2 0.500");
    expect(count(three, LEGEND)).toBe(0);
    expect(t).toContain(
      "cluster-robust t over groups where a clustered stderr groups samples, or unreduced epochs repeat one (Inspect's clustered stderr); t for non-binary means (a mean over epochs is one)",
    );
  });
});

describe("Markdown", () => {
  const md = renderText("md", view(), { details: true });
  const sect = (name: string) => section(md, `### \`${name}\``, "\n### ");

  it("shows each interval (brackets escaped), the units in tasks, and the legend once under each table", () => {
    const g = sect("gold");
    expect(g).toContain("| accuracy | **18.2%** (2/11) · 95% \\[0.0%, 86.8%\\] over 11 trials in 3 tasks |");
    expect(g).not.toContain("Wilson 95%");
    expect(count(g, LEGEND)).toBe(1);
    const h = sect("job");
    expect(h).toContain("| reward `reward` | **0.410** · 95% \\[0.210, 0.610\\] over 41 trials in 12 tasks |");
    expect(h).toContain("| pass^k | k=1 0.410 · k=2 0.250 |");
    expect(count(h, LEGEND)).toBe(1);
    expect(sect("w")).toContain("| `preservation` (hard) | 4/4 · 95% \\[51.0%, 100.0%\\] over 4 trials |");
  });

  it("a null interval's reason is text (escaped), and Inspect's pass^k and reduced samples are shown", () => {
    expect(sect("solo")).toContain(
      "| accuracy | **50.0%** (3/6) · all 6 trials are in one task\\: no interval from a single task |",
    );
    expect(sect("solo")).not.toContain(LEGEND);
    const one = sect("one-sample");
    expect(one).toContain("**1.000** · one sample\\: no interval from a single value · pass^k k=1 1.000 · k=6 1.000");
    expect(one).not.toContain("0.207");
    const three = sect("three-samples");
    expect(three).toContain(
      "**0.667** · 95% \\[0.100, 1.000\\] over 3 samples · pass@k k=1 0.667 · k=2 0.833 · pass^k k=1 0.667 · k=2 0.500",
    );
    expect(three).toContain("over 8 samples in 3 groups");
    expect(count(three, LEGEND)).toBe(1);
  });
});

describe("HTML", () => {
  it("each figure's detail has its interval (and design effect), each section one legend, the chart title names the whiskers", async () => {
    const page = [...(await html(view()))].join("");
    const sect = (i: number) => section(page, `id="exp-${i}"`, "</section>");
    const g = sect(0);
    expect(g).toContain("95% [0.0%, 86.8%] over 11 trials in 3 tasks (design effect 1.71)");
    expect(g).not.toContain("Wilson 95%");
    expect(count(g, LEGEND)).toBe(1);
    expect(g).toContain(
      `<p class="muted legend">${LEGEND} cluster-robust t over tasks where tasks repeat (Inspect&#39;s clustered stderr); ${TASKS_QUESTION}</p>`,
    );
    // The headline chart: its title says what the whiskers are, its subtitle which method.
    const chart = section(g, `<figure class="chart">`, "</figure>");
    expect(chart).toContain("Headline (bars: value; whiskers: 95% interval)");
    expect(chart).toContain("cluster-robust t over tasks where tasks repeat");
    expect(chart).not.toContain("Wilson");
    const s = sect(1);
    expect(s).toContain("all 6 trials are in one task: no interval from a single task");
    expect(s).not.toContain(LEGEND);
    const h = sect(3);
    expect(h).toContain("over 41 trials in 12 tasks");
    expect(h).toMatch(/data-metric="reward:reward:pass_hat_k:2" data-value="0.25"/);
    const one = sect(4);
    expect(one).toContain("one sample: no interval from a single value");
    expect(one).toMatch(/data-metric="inspect:match\/mean\/accuracy:pass_hat_k:6" data-value="1"/);
    expect(sect(5)).toMatch(/data-metric="inspect:match\/mean\/accuracy:pass_at_k:2" data-value="0.833"/);
    const three = sect(5);
    expect(three).toContain("over 3 samples;");
    expect(three).toContain("over 8 samples in 3 groups (design effect 2.20)");
    expect(count(three, LEGEND)).toBe(1);
  });
});

describe("the headline chart's whiskers", () => {
  it("are the document's interval, not wilson95; a figure without one has none", () => {
    const rows = (headline(native)!["data"] as { values: { figure: string; lo?: number; hi?: number }[] }).values;
    expect(rows.find((r) => r.figure === "accuracy")).toMatchObject({ lo: 0, hi: GOLD.hi });
    expect(rows.find((r) => r.figure === "completion")).not.toHaveProperty("lo");
    const h = (headline(harbor)!["data"] as { values: { figure: string; lo?: number; hi?: number }[] }).values;
    expect(h.find((r) => r.figure === "reward: mean")).toMatchObject({ lo: 0.21, hi: 0.61 });
    expect(h.find((r) => r.figure === "reward: pass^2")).toMatchObject({ value: 0.25 });
  });
  it("an Inspect mean without an interval is still a bar (chosen by its key), its stderr never; a whisker past [0, 1] stops at the edge", () => {
    const x = { ...blankExperiment("t (m)", "inspect", 3) };
    const metric = (value: number, interval: IntervalField | null) => ({
      claimed: value,
      value,
      coverage: { scored: 3, planned: 3 },
      wilson95: null,
      pass_at_k: null,
      check: "agrees" as const,
      note: null,
      errors_zero: value,
      interval,
      interval_reason: interval === null ? "one sample: no interval from a single value" : null,
      pass_hat_k: null,
    });
    x.inspect = {
      "s/-/mean": metric(0.4, null),
      "s/-/stderr": metric(0.1, null),
      "r/-/mean": metric(0.9, { method: "t", lo: 0.5, hi: 1.3, units: 3, clusters: 3, se: 0.1, design_effect: null }),
    };
    const rows = (headline(x)!["data"] as { values: { figure: string; value: number; lo?: number; hi?: number }[] })
      .values;
    expect(rows.map((r) => r.figure)).toEqual(["s/-/mean", "s/-/mean: coverage", "r/-/mean", "r/-/mean: coverage"]);
    expect(rows.find((r) => r.figure === "r/-/mean")).toMatchObject({ lo: 0.5, hi: 1 });
  });
});

describe("JUnit", () => {
  const xml = renderText("junit", view());
  const props = (suite: string) => {
    const s = section(xml, `<testsuite name="${suite}"`, "</testsuite>");
    return Object.fromEntries(
      [...s.matchAll(/<property name="([^"]*)" value="([^"]*)"\/>/g)].map(([, k, v]) => [k!, v!]),
    );
  };

  it("gives each metric's interval, method, units and clusters beside wilson95, or the reason", () => {
    const g = props("gold");
    expect(g["accuracy.interval"]).toBe(`0,${GOLD.hi}`);
    expect(g["accuracy.interval_method"]).toBe("cluster-t");
    expect(g["accuracy.units"]).toBe("11");
    expect(g["accuracy.clusters"]).toBe("3");
    expect(g["accuracy.wilson95"]).toBe("0.0514,0.477");
    expect(g["completion.interval_reason"]).toBe("every unit is 1 in one task: no interval from a single task");
    expect(props("solo")["accuracy.interval_reason"]).toBe(
      "all 6 trials are in one task: no interval from a single task",
    );
    const w = props("w");
    expect(w["pass.interval_method"]).toBe("wilson");
    expect(w["dimension.preservation.interval"]).toBe("0.5101,1");
    const h = props("job");
    expect(h["reward.reward.interval"]).toBe("0.21,0.61");
    expect(h["reward.reward.units"]).toBe("41");
    expect(h["reward.reward.clusters"]).toBe("12");
    expect(h["reward.reward.pass_hat_k.2"]).toBe("0.25");
    const i = props("three-samples");
    expect(i["metric.match/mean/accuracy.interval_method"]).toBe("t");
    expect(i["metric.match/mean/accuracy.units"]).toBe("3");
    expect(i["metric.match/mean/accuracy.pass_hat_k.2"]).toBe("0.5");
    expect(i["metric.grouped/mean/mean.clusters"]).toBe("3");
    expect(props("one-sample")["metric.match/mean/accuracy.interval_reason"]).toBe(
      "one sample: no interval from a single value",
    );
  });
});

describe("a reason naming a metadata key from the evidence", () => {
  // Inspect's reasons name the cluster key a log declares: its text reaches no format raw.
  const key = "grp\u001b[2J<img src=x>|`";
  const hostile: Experiment = {
    ...epochs,
    experiment: "hostile",
    inspect: { "m/mean/mean": metric({ interval_reason: `all 4 samples are in one ${key}` }) },
  };
  const d = viewOf({ ...doc, experiments: [hostile] });

  it("is spelled out in the table, text in Markdown, escaped in HTML", async () => {
    const t = detailed(d);
    expect(t).toContain("no interval: all 4 samples are in one grp\\u001b[2J<img src=x>|`");
    expect(t).not.toContain("\u001b");
    const md = renderText("md", d, { details: true });
    expect(md).toContain("no interval\\: all 4 samples are in one grp\\\\u001b\\[2J\\<img src\\=x\\>\\|\\`");
    const page = [...(await html(d))].join("");
    expect(page).toContain("all 4 samples are in one grp\\u001b[2J&lt;img src=x&gt;|`");
    expect(page).not.toContain("<img src=x>");
  });
});
