// Issue 37: run identity in the reports. The overview gains who ran it (agent / model) and when it
// started, each column only where a row records one; --details, Markdown and HTML sections show the
// whole identity, and say what is not recorded; no two rows' names are cut to the same text (real
// Inspect names carry the model and were cut at 48 characters, so two runs read alike).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../src/core/identity.js";
import { blankExperiment, viewOf, type Experiment, type Results } from "../src/core/results.js";
import { FORMATS, renderText } from "../src/report/index.js";
import { cutMiddle, identityFacts, overview, rowLabels } from "../src/report/overview.js";
import { run } from "./helpers/cli.js";
import { withoutIdentity } from "./helpers/harbor.js";
import { freshFolders } from "./helpers/shared.js";

const RUN: Results["run"] = {
  tool_version: "t",
  scoring_version: 1,
  started_at: "",
  complete: true,
  shard: null,
  roots: ["r"],
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
const NO_ID: Identity = {
  agent: null,
  model: null,
  benchmark: null,
  tasks: null,
  harness: null,
  started_at: null,
  finished_at: null,
  clock: null,
};
const inspectRun = (task: string, model: string, id: Partial<Identity> = {}): Experiment => ({
  ...blankExperiment(`${task} (${model})`, "inspect", 8),
  identity: { ...NO_ID, model, started_at: "2025-06-01T10:00:00.000Z", clock: "utc", ...id },
});
const doc = (experiments: Experiment[], filters: Results["run"]["options"]["filters"] = null) =>
  viewOf({
    format: "assay.results/1",
    run: { ...RUN, options: { ...RUN.options, filters } },
    bundles: [],
    experiments,
  });
const LONG_TASK = "subversion_strategy_eval/task_reasoning_experiment_small";

describe("the overview's identity cells (overview.ts)", () => {
  it("who: agent / model, either alone, a list as its first and how many more; started: the date, a local one marked *", () => {
    const rows = overview(
      [
        {
          ...blankExperiment("job", "harbor", 2),
          identity: {
            ...NO_ID,
            agent: ["claude-code", "terminus-2"],
            model: "anthropic/claude-opus-4",
            started_at: "2025-06-01T10:00:00",
            clock: "local",
          },
        },
        inspectRun("popularity", "openai/gpt-4o-mini"),
        blankExperiment("bare", "native-game", 1),
      ],
      { errors: "exclude" },
    ).rows;
    const by = new Map(rows.map((r) => [r.experiment, r]));
    expect(by.get("job")).toMatchObject({
      who: "claude-code +1 / anthropic/claude-opus-4",
      started: "2025-06-01*",
      shortName: null,
    });
    expect(by.get("popularity (openai/gpt-4o-mini)")).toMatchObject({
      who: "openai/gpt-4o-mini",
      started: "2025-06-01",
      shortName: "popularity",
    });
    expect(by.get("bare")).toMatchObject({ who: "", started: "", shortName: null });
  });
  it("the name keeps its model tail where the identity records another model, or several", () => {
    const [other] = overview([inspectRun("t", "openai/gpt-4o", { model: "openai/gpt-4o-2024-08-06" })], {
      errors: "exclude",
    }).rows;
    expect(other!.shortName).toBeNull();
    const [several] = overview([inspectRun("t", "a", { model: ["a", "b"] })], { errors: "exclude" }).rows;
    expect(several!.shortName).toBeNull();
  });
  it("cutMiddle keeps both ends: names of one family differ at their ends", () => {
    expect(cutMiddle("openrouter/deepseek/deepseek-r1-distill-qwen-14b", 32)).toBe("openrouter/deep…distill-qwen-14b");
    expect(cutMiddle("short", 32)).toBe("short");
  });
});

describe("no two rows cut to the same text (rowLabels)", () => {
  const cut = (t: string, max: number) => cutMiddle(t, max);
  it("two runs of one long task on two models: told apart by the model column", () => {
    const rows = overview(
      [inspectRun(LONG_TASK, "openai/o1-mini"), inspectRun(LONG_TASK, "openai/o3-mini-2025-01-31")],
      { errors: "exclude" },
    ).rows;
    const labels = rowLabels(rows, cut, { name: 40, who: 32 });
    expect(new Set(labels.map((l) => `${l.name}|${l.who}`)).size).toBe(2);
    expect(labels.every((l) => l.name!.length <= 40)).toBe(true);
  });
  it("names alike at both ends once cut are shown whole, on one side of the line and not the other", () => {
    const a = "alpha-" + "x".repeat(40) + "-A-" + "y".repeat(40) + "-omega";
    const b = "alpha-" + "x".repeat(40) + "-B-" + "y".repeat(40) + "-omega";
    const c = "gamma-" + "x".repeat(90);
    const rows = overview(
      [blankExperiment(a, "harbor", 1), blankExperiment(b, "harbor", 1), blankExperiment(c, "harbor", 1)],
      { errors: "exclude" },
    ).rows;
    const labels = new Map(rowLabels(rows, cut, { name: 40, who: 32 }).map((l, i) => [rows[i]!.experiment, l.name]));
    expect(labels.get(a)).toBe(a);
    expect(labels.get(b)).toBe(b);
    expect(labels.get(c)).toHaveLength(40);
  });
  it("the same name under two kinds is no collision: the kind column tells them apart", () => {
    const name = "n".repeat(60);
    const rows = overview([blankExperiment(name, "harbor", 1), blankExperiment(name, "native-game", 1)], {
      errors: "exclude",
    }).rows;
    expect(rowLabels(rows, cut, { name: 40, who: 32 }).map((l) => l.name!.length)).toEqual([40, 40]);
  });
});

describe("identity in each format", () => {
  it("table: agent / model and started columns where a row records them, the long Inspect names apart", () => {
    const t = renderText(
      "table",
      doc([inspectRun(LONG_TASK, "openai/o1-mini"), inspectRun(LONG_TASK, "openai/o3-mini-2025-01-31")]),
    );
    const header = t.split("\n").find((l) => l.startsWith("experiment"))!;
    expect(header).toMatch(/^experiment +agent \/ model +kind +started +records/);
    const rows = t.split("\n").filter((l) => l.startsWith("subversion"));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/openai\/o1-mini .*2025-06-01/);
    expect(rows[1]).toMatch(/openai\/o3-mini-2025-01-31/);
    // UTC dates need no legend line; a local date's mark is explained.
    expect(t).not.toMatch(/started: the earliest start/);
    const local = renderText(
      "table",
      doc([inspectRun("pop", "openai/gpt-4o-mini", { started_at: "2025-06-01T10:00:00.000", clock: "local" })]),
    );
    expect(local).toMatch(/ 2025-06-01\* /);
    expect(local).toMatch(/started: the earliest start, a UTC date; \* a local date \(the harness recorded no zone\)/);
  });
  it("table: no column for what no row records (a screen stays narrow)", () => {
    const t = renderText("table", doc([blankExperiment("bare", "native-game", 1)]));
    expect(t).not.toMatch(/agent \/ model|started/);
  });
  it("--details: the whole identity, what is not recorded said so", () => {
    const t = [
      ...FORMATS.table.render(
        doc([
          inspectRun("pop", "openai/gpt-4o-mini", {
            benchmark: { name: "popularity", version: "1", dataset: null },
            tasks: { count: 100, digest: `sha256:${"ab".repeat(32)}`, unit: "sample" },
            harness: { name: "inspect", version: "0.3.90" },
          }),
        ]),
        { details: true },
      ),
    ].join("");
    expect(t).toContain("  run          agent not recorded · model openai/gpt-4o-mini · harness inspect 0.3.90");
    expect(t).toContain("  benchmark    popularity 1 · 100 samples sha256:abababababab…");
    expect(t).toContain("  time         started 2025-06-01T10:00:00.000Z · finished not recorded (UTC)");
    expect(identityFacts(null)).toEqual([["identity", "none recorded in the evidence"]]);
  });
  it("Markdown: the columns, each section's identity, and a filtered document says so", () => {
    const md = renderText(
      "md",
      doc([inspectRun("pop", "openai/gpt-4o-mini")], {
        experiment: ["pop*"],
        agent: [],
        model: [],
        kind: [],
        since: null,
      }),
      { details: true },
    );
    expect(md).toContain("| experiment | agent / model | kind | started | records |");
    expect(md).toContain("| `pop` | `openai/gpt-4o-mini` | inspect | 2025-06-01 |");
    expect(md).toMatch(/\*\*run\*\* agent not recorded · model openai\\\/gpt\\-4o\\-mini/);
    expect(md).toContain("**Filtered**: `--experiment 'pop*'`");
  });
  it("HTML: the experiments table's columns and each section's identity", async () => {
    const html = [
      ...(await FORMATS.html.render(
        doc([inspectRun("pop", "openai/gpt-4o-mini", { started_at: "2025-06-01T10:00:00", clock: "local" })]),
      )),
    ].join("");
    expect(html).toMatch(
      /<th scope="col" tabindex="0">agent \/ model<\/th><th scope="col" tabindex="0">kind<\/th><th scope="col" tabindex="0">started<\/th>/,
    );
    expect(html).toContain('title="a local date: the harness recorded no zone">2025-06-01*</span>');
    expect(html).toContain("(local time: no zone recorded)");
    expect(html).not.toContain('id="filtered"');
    const filtered = [
      ...(await FORMATS.html.render(
        doc([inspectRun("pop", "m")], { experiment: [], agent: [], model: [], kind: ["inspect"], since: null }),
      )),
    ].join("");
    expect(filtered).toContain('<p class="warn" id="filtered">Filtered: <code>--kind inspect</code>.');
  });
});

describe("assay score (in-process main)", () => {
  const folder = freshFolders("assay-report-identity-");
  it("evidence that records no agent, model or start: the overview is as narrow as before", async () => {
    // A native bundle's header always records its start (and the synth's, its model): a Harbor job
    // whose trials' result.json lack agent_info and times records neither, only its harness.
    const root = folder("corpus");
    expect((await run(["synth", "--out", join(root, "h"), "--n", "3", "--profile", "harbor"])).code).toBe(0);
    withoutIdentity(join(root, "h", "synth-harbor-job"));
    const r = await run(["score", root, "-q", "--width", "250"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^experiment +kind +trials/m);
    expect(r.stdout).not.toMatch(/agent \/ model|started/);
    const d = await run(["score", root, "-q", "--details"]);
    expect(d.stdout).toMatch(/^ {2}run {10}agent not recorded · model not recorded · harness harbor \S+$/m);
    expect(d.stdout).toMatch(/^ {2}time {9}started not recorded · finished not recorded$/m);
  });
});
