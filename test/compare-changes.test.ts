// What changed, by unit (issue 37): per headline metric of two runs, the units that flipped or
// moved, with each side's value, what it is made of and where its evidence is, and the units one
// side alone counts; capped in the table, complete in the JSON; a unit × run matrix. The pure
// functions against hand-built units, then real folders (Harbor jobs, synthesised native and world
// runs, synthesised Inspect logs) scored and compared in-process, each path checked against the disk.

import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { unitChanges, unitMatrix } from "../src/core/compare/changes.js";
import { comparisonSchema, type Comparison, type UnitChange } from "../src/core/compare/schema.js";
import { MIXED_CHECKSUMS, type Units } from "../src/core/compare/trials.js";
import {
  changesHtml,
  changesMarkdown,
  changesTable,
  CHANGES_SHOWN,
  HTML_ROWS,
  MARKDOWN_ROWS,
  matrixHtml,
  matrixMarkdown,
} from "../src/report/compare/changes.js";
import { inspectFileName, inspectLogBytes, type InspectSpec } from "../src/synth/inspect.js";
import { readyZstd } from "../src/synth/zip.js";
import { ok } from "./helpers/documents.js";
import { float, writeJob, type TrialSpec } from "./helpers/harbor.js";
import { freshFolders } from "./helpers/shared.js";

const folder = freshFolders("assay-compare-changes-");

const units = (unit: Units["unit"], m: Record<string, number>, more: Partial<Units> = {}): Units => ({
  unit,
  ids: Object.keys(m),
  values: Float64Array.from(Object.values(m)),
  checksums: null,
  reason: null,
  ...more,
});
const kinds = (cs: UnitChange[] | null) => cs!.map((c) => [c.unit, c.change, c.delta]);

describe("unitChanges (pure)", () => {
  it("flips both ways first, then moved units by |delta| largest first, then checksum changes and each side's own; never an unchanged unit", () => {
    const base = units(
      "task",
      { same: 0.5, up: 0, down: 1, half: 0.5, far: 0.1, near: 0.9, k: 1, gone: 1 },
      { checksums: [null, null, null, null, null, null, "one", null] },
    );
    const head = units(
      "task",
      { new: 0, near: 1, far: 0.8, half: 0.75, down: 0, up: 1, same: 0.5, k: 1 },
      { checksums: [null, null, null, null, null, null, null, "two"] },
    );
    expect(kinds(unitChanges(base, head))).toEqual([
      ["down", "pass_to_fail", -1],
      ["up", "fail_to_pass", 1],
      ["far", "moved", 0.8 - 0.1],
      ["half", "moved", 0.25],
      ["near", "moved", 1 - 0.9],
      ["k", "checksum_changed", null],
      ["gone", "only_base", null],
      ["new", "only_head", null],
    ]);
  });
  it("a value between 0 and 1 on either side moves rather than flips; equal |delta| falls to byte order", () => {
    const cs = unitChanges(units("task", { b: 0.5, a: 1, B: 0 }), units("task", { a: 0.5, b: 1, B: 0.5 }));
    expect(kinds(cs)).toEqual([
      ["B", "moved", 0.5],
      ["a", "moved", -0.5],
      ["b", "moved", 0.5],
    ]);
  });
  it("a difference of floating-point noise is no change; one just above it is", () => {
    expect(unitChanges(units("task", { a: 0.1 + 0.2 }), units("task", { a: 0.3 }))).toEqual([]);
    expect(kinds(unitChanges(units("task", { a: 0.3 }), units("task", { a: 0.3 + 1e-9 })))).toEqual([
      ["a", "moved", expect.closeTo(1e-9, 15)],
    ]);
  });
  it("a task whose trials carry mixed checksums within a run is no unit on both sides, even against a side that records none", () => {
    const cs = unitChanges(
      units("task", { a: 1 }, { checksums: [MIXED_CHECKSUMS] }),
      units("task", { a: 1 }, { checksums: [null] }),
    );
    expect(kinds(cs)).toEqual([["a", "checksum_changed", null]]);
  });
  it("each side's value, trials, zeroed and evidence: a path where kept, `<log>#<id>` for a log's samples, null where not recorded", () => {
    const base = units(
      "task",
      { a: 0.5 },
      { trials: Float64Array.of(2), zeroed: Float64Array.of(1), paths: ["job/a__1"] },
    );
    const head = units("sample", { a: 1 }, { log: "logs/x.eval" });
    expect(unitChanges(base, head)).toEqual([
      {
        unit: "a",
        change: "moved",
        base: { value: 0.5, trials: 2, zeroed: 1, evidence: "job/a__1" },
        head: { value: 1, trials: 1, zeroed: 0, evidence: "logs/x.eval#a" },
        delta: 0.5,
      },
    ]);
    expect(unitChanges(units("trial", { t: 1 }), units("trial", {}))![0]!.base!.evidence).toBeNull();
  });
  it("null where a side's units are not known (an Inspect log without per-sample values): nothing could be told", () => {
    expect(
      unitChanges(units("sample", { a: 1 }), { ...units("sample", {}), reason: "no per-sample values" }),
    ).toBeNull();
  });
});

describe("unitMatrix (pure) and its renderings", () => {
  const columns = [
    { label: "R1", units: units("task", { a: 1, b: 0.5, c: 0, d: 1 }) },
    { label: "R2", units: units("task", { a: 1, b: 0.75, c: 1 }) },
    { label: "R3 <b>|", units: units("task", { a: 1, b: 0.5, c: 1, e: 0 }) },
  ];
  it("rows whose values spread most first, then those a run does not count, then byte order; null where a run does not count the unit", () => {
    const m = unitMatrix(columns);
    expect(m.labels).toEqual(["R1", "R2", "R3 <b>|"]);
    expect(m.rows.map(({ unit, values }) => ({ unit, values }))).toEqual([
      { unit: "c", values: [0, 1, 1] },
      { unit: "b", values: [0.5, 0.75, 0.5] },
      { unit: "d", values: [1, null, null] },
      { unit: "e", values: [null, null, 0] },
      { unit: "a", values: [1, 1, 1] },
    ]);
    expect(m.rows.every((r) => r.same_task)).toBe(true);
    expect(m.total).toBe(5);
  });
  it("a task whose task_checksum differs between runs (a side without one aside) or is mixed within one is marked: its values are of different tasks", () => {
    const task = (checksums: (string | null)[]) => units("task", { a: 1, b: 1, c: 1 }, { checksums });
    const m = unitMatrix([
      { label: "R1", units: task([null, "x", "x"]) },
      { label: "R2", units: task(["x", "x", MIXED_CHECKSUMS]) },
      { label: "R3", units: task(["x", "y", "x"]) },
    ]);
    expect(m.rows.map((r) => [r.unit, r.same_task])).toEqual([
      ["a", true],
      ["b", false],
      ["c", false],
    ]);
    expect([...matrixMarkdown(m, "task")].join("")).toContain(
      "| b (task\\_checksum differs between runs\\: not one task) | 1 | 1 | 1 |",
    );
  });
  it("the cap keeps the first rows and counts every unit; the renderings say how many are not shown", () => {
    const m = unitMatrix(columns, 2);
    expect([m.rows.map((r) => r.unit), m.total]).toEqual([["c", "b"], 5]);
    const md = [...matrixMarkdown(m, "task")].join("");
    expect(md).toContain(
      "| task | R1 | R2 | R3 &lt;b\\>\\| |\n|---|---:|---:|---:|\n| c | 0 | 1 | 1 |\n| b | 0.5 | 0.75 | 0.5 |\n",
    );
    expect(md).toContain("3 more tasks not shown");
    const html = [...matrixHtml(unitMatrix(columns), "task")].join("");
    expect(html).toContain("<th>R3 &lt;b&gt;|</th>");
    expect(html).toContain('<tr><td>d</td><td class="n">1</td><td class="n">—</td><td class="n">—</td></tr>');
    expect(html).not.toContain("not shown");
  });
});

/** A compare that must finish: exit 0, or 1 where it found a regression. */
const cli = (argv: string[]) => ok(argv, [1]);
async function compareJson(base: string, head: string): Promise<Comparison> {
  const r = await cli(["compare", base, head, "--format", "json"]);
  return comparisonSchema.parse(JSON.parse(r.stdout));
}
const changesOf = (doc: Comparison, metric: string) =>
  doc.experiments[0]!.metrics.find((m) => m.metric === metric)!.changes!;

/** Each trial its own Harbor id, per run (as two real jobs have). */
const ided = (run: string, specs: TrialSpec[]): TrialSpec[] =>
  specs.map((s) => ({ ...s, extra: { ...s.extra, id: `${run}/${s.name}` } }));
const reward = (task: string, name: string, v: number, over: Partial<TrialSpec> = {}): TrialSpec => ({
  name,
  task,
  rewards: { reward: float(v) },
  ...over,
});
const DOCKER = { type: "RuntimeError", message: "Docker compose command failed: network not found" };
const HOSTILE = "<b>x|y</b>";
/** Eight tasks that pass in BASE and fail in HEAD: with the others, more changes than the table shows. */
const MANY = Array.from({ length: 8 }, (_, i) => `z${i + 1}`);

describe("Harbor: two jobs of one benchmark, by task", () => {
  let doc: Comparison;
  let roots: { base: string; head: string };
  beforeAll(async () => {
    roots = { base: folder("harbor-base"), head: folder("harbor-head") };
    // BASE: a 1, 1 · b 1, 0 · c 1 · d 1 (BASE only) · g 0.25 · h 1 · k 1 (checksum one) · <b>x|y</b> 1 · z1..z8 1.
    writeJob(
      roots.base,
      "bench",
      ided("base", [
        reward("a", "a__1", 1),
        reward("a", "a__2", 1),
        reward("b", "b__1", 1),
        reward("b", "b__2", 0),
        reward("c", "c__1", 1),
        reward("d", "d__1", 1),
        reward("g", "g__1", 0.25),
        reward("h", "h__1", 1),
        reward("k", "k__1", 1, { checksum: "one" }),
        reward(HOSTILE, "x__1", 1),
        ...MANY.map((t) => reward(t, `${t}__1`, 1)),
      ]),
    );
    // HEAD: a 0, 0 · b 1, 1 · c 1 · e 1 (HEAD only) · g 1 · h an infrastructure error (0 under --errors zero) · k 1 (checksum two) · <b>x|y</b> 0 · z1..z8 0.
    writeJob(
      roots.head,
      "bench",
      ided("head", [
        reward("a", "a__7", 0),
        reward("a", "a__8", 0),
        reward("b", "b__7", 1),
        reward("b", "b__8", 1),
        reward("c", "c__7", 1),
        reward("e", "e__7", 1),
        reward("g", "g__7", 1),
        { name: "h__7", task: "h", rewards: null, exception: DOCKER },
        reward("k", "k__7", 1, { checksum: "two" }),
        reward(HOSTILE, "x__7", 0),
        ...MANY.map((t) => reward(t, `${t}__7`, 0)),
      ]),
    );
    for (const side of ["base", "head"] as const)
      await cli([
        "score",
        roots[side],
        "--quiet",
        "--errors",
        "zero",
        "--format",
        "json",
        "--out",
        `${roots[side]}.json`,
      ]);
    doc = await compareJson(`${roots.base}.json`, `${roots.head}.json`);
  });
  const change = (unit: string) => changesOf(doc, "reward/reward/mean").find((c) => c.unit === unit)!;

  it("flips (a task's every trial passed, then failed), moved task means, a changed checksum and each side's own, in order; an unchanged task is not listed", () => {
    // Flips by byte order ("<" before letters), then g (+0.75) and b (+0.5), then k, d, e.
    expect(kinds(changesOf(doc, "reward/reward/mean"))).toEqual([
      [HOSTILE, "pass_to_fail", -1],
      ["a", "pass_to_fail", -1],
      ["h", "pass_to_fail", -1],
      ...MANY.map((t) => [t, "pass_to_fail", -1]),
      ["g", "moved", 0.75],
      ["b", "moved", 0.5],
      ["k", "checksum_changed", null],
      ["d", "only_base", null],
      ["e", "only_head", null],
    ]);
  });
  it("a task's side is the mean of its trials, its evidence the first trial folder in byte order, which exists", () => {
    expect(change("a").base).toEqual({ value: 1, trials: 2, zeroed: 0, evidence: join(roots.base, "bench", "a__1") });
    expect(change("a").head).toEqual({ value: 0, trials: 2, zeroed: 0, evidence: join(roots.head, "bench", "a__7") });
    expect(change("b").base).toMatchObject({ value: 0.5, trials: 2 });
    for (const c of changesOf(doc, "reward/reward/mean"))
      for (const s of [c.base, c.head])
        if (s !== null)
          expect(statSync(s.evidence!).isDirectory() && existsSync(join(s.evidence!, "result.json")), s.evidence!).toBe(
            true,
          );
  });
  it("a 0 for want of a reward (--errors zero) is said as such; a 0 the verifier gave is not", () => {
    expect(change("h").head).toEqual({ value: 0, trials: 1, zeroed: 1, evidence: join(roots.head, "bench", "h__7") });
    expect(change(HOSTILE).head!.zeroed).toBe(0);
  });
  it("one side's own task has the other side null and no delta", () => {
    expect(change("d")).toMatchObject({
      head: null,
      delta: null,
      base: { value: 1, evidence: join(roots.base, "bench", "d__1") },
    });
    expect(change("e")).toMatchObject({ base: null, delta: null, head: { value: 1 } });
  });
  it("the table shows the first ten with values and evidence, and says how many more the JSON holds", async () => {
    const all = changesOf(doc, "reward/reward/mean");
    expect(all).toHaveLength(16);
    const table = (await cli(["compare", `${roots.base}.json`, `${roots.head}.json`])).stdout;
    expect(table).toContain(
      "  what changed, by task: reward/reward/mean: 11 pass→fail, 2 moved, 1 task_checksum changed, 1 only in BASE, 1 only in HEAD\n",
    );
    expect(table).toContain(
      `    a pass→fail: BASE 1 (mean of 2 trials) → HEAD 0 (mean of 2 trials)\n      BASE ${join(roots.base, "bench", "a__1")} (first of 2 trials) · HEAD ${join(roots.head, "bench", "a__7")} (first of 2 trials)\n`,
    );
    expect(table).toContain("    h pass→fail: BASE 1 → HEAD 0 (counted 0 without a valid score)\n");
    expect(table).toContain(`    and ${all.length - CHANGES_SHOWN} more changed tasks (complete in --format json)\n`);
    // The first ten only: z8 is the tenth flip, the moved tasks come after it.
    expect(table).toContain("    z7 pass→fail");
    expect(table).not.toContain("    z8 pass→fail");
    expect(table).not.toContain("g moved");
  });
  it("a run against itself: no change listed, and each format says so once", async () => {
    const self = await compareJson(`${roots.base}.json`, `${roots.base}.json`);
    expect(changesOf(self, "reward/reward/mean")).toEqual([]);
    const said =
      "nothing changed, by task, in reward/reward/mean: every task both runs count has the same value, and neither counts one the other does not";
    expect((await cli(["compare", `${roots.base}.json`, `${roots.base}.json`])).stdout).toContain(`\n  ${said}\n`);
    expect((await cli(["compare", `${roots.base}.json`, `${roots.base}.json`, "--format", "md"])).stdout).not.toContain(
      "What changed",
    );
    expect((await cli(["compare", `${roots.base}.json`, `${roots.base}.json`, "--format", "html"])).stdout).toContain(
      `<p>${said}.</p>`,
    );
  });
  it("Markdown and HTML: the changed tasks as a BASE/HEAD matrix with evidence, a hostile task name escaped", async () => {
    const [b, h] = [`${roots.base}.json`, `${roots.head}.json`];
    const md = (await cli(["compare", b, h, "--format", "md"])).stdout;
    expect(md).toContain(
      "#### What changed, by task: reward/reward/mean\n\n11 pass→fail, 2 moved, 1 task\\_checksum changed, 1 only in BASE, 1 only in HEAD.\n",
    );
    expect(md).toContain("| task | change | BASE | HEAD | evidence (BASE) | evidence (HEAD) |\n");
    expect(md).toContain("| &lt;b\\>x\\|y&lt;/b\\> | pass→fail | 1 | 0 |");
    expect(md).toContain("| g | moved +0.75 | 0.25 | 1 |");
    expect(md).not.toContain("more changed tasks"); // 16 rows: within the Markdown cap
    const html = (await cli(["compare", b, h, "--format", "html"])).stdout;
    expect(html).toContain("<h3>What changed, by task: reward/reward/mean</h3>");
    expect(html).toContain("<tr><td>&lt;b&gt;x|y&lt;/b&gt;</td><td>pass→fail</td>");
    expect(html).not.toContain("<b>x");
  });
});

describe("each format's cap, on either side of its line", () => {
  /** An experiment comparison whose accuracy lists `n` trials flipped pass→fail. */
  const flipped = (n: number): Comparison["experiments"][number] => {
    const ids = Array.from({ length: n }, (_, i) => `t${String(i).padStart(4, "0")}`);
    const changes = unitChanges(
      units("trial", Object.fromEntries(ids.map((id) => [id, 1]))),
      units("trial", Object.fromEntries(ids.map((id) => [id, 0]))),
    )!;
    const paired = { unit: "trial" } as NonNullable<Comparison["experiments"][number]["metrics"][number]["paired"]>;
    return { metrics: [{ metric: "accuracy", paired, changes }] } as unknown as Comparison["experiments"][number];
  };
  const text = (g: Iterable<string>) => [...g].join("");
  it(`the table: ${CHANGES_SHOWN} shown and none more; one past it, the rest counted`, () => {
    expect(text(changesTable(flipped(CHANGES_SHOWN))).match(/^ {4}t\d{4} pass→fail/gm)).toHaveLength(CHANGES_SHOWN);
    expect(text(changesTable(flipped(CHANGES_SHOWN)))).not.toContain("more changed");
    expect(text(changesTable(flipped(CHANGES_SHOWN + 1))).match(/^ {4}t\d{4} pass→fail/gm)).toHaveLength(CHANGES_SHOWN);
    expect(text(changesTable(flipped(CHANGES_SHOWN + 1)))).toContain(
      "    and 1 more changed trial (complete in --format json)\n",
    );
  });
  it(`Markdown: ${MARKDOWN_ROWS} rows and none more; past it, the first rows and how many more the JSON holds`, () => {
    expect(text(changesMarkdown(flipped(MARKDOWN_ROWS))).match(/^\| t\d{4} \| pass→fail/gm)).toHaveLength(
      MARKDOWN_ROWS,
    );
    expect(text(changesMarkdown(flipped(MARKDOWN_ROWS)))).not.toContain("more changed");
    const md = text(changesMarkdown(flipped(MARKDOWN_ROWS + 7)));
    expect(md.match(/^\| t\d{4} \| pass→fail/gm)).toHaveLength(MARKDOWN_ROWS);
    expect(md).toContain("and 7 more changed trials (complete in --format json).");
  });
  it(`HTML: ${HTML_ROWS} rows and none more; past it, the first rows and how many more`, () => {
    expect(text(changesHtml(flipped(HTML_ROWS))).match(/<tr><td>t\d{4}<\/td>/g)).toHaveLength(HTML_ROWS);
    expect(text(changesHtml(flipped(HTML_ROWS)))).not.toContain("more changed");
    const html = text(changesHtml(flipped(HTML_ROWS + 2)));
    expect(html.match(/<tr><td>t\d{4}<\/td>/g)).toHaveLength(HTML_ROWS);
    expect(html).toContain("<p>and 2 more changed trials (complete in --format json).</p>");
  });
});

describe("native trials: the deciding bundle, and an invalid trial counted 0", () => {
  let dir: string;
  let broken: { trial: string; dir: string };
  beforeAll(async () => {
    dir = folder("native");
    await cli(["synth", "--out", join(dir, "base"), "--n", "24", "--seed", "7"]);
    await cli(["synth", "--out", join(dir, "head"), "--n", "24", "--seed", "8"]);
    // A third run: BASE with one winning trial's only attempt broken (invalid evidence).
    cpSync(join(dir, "base"), join(dir, "broken"), { recursive: true });
    const bundles: { dir: string; trial: string; outcome: string }[] = JSON.parse(
      readFileSync(join(dir, "base", "synth-manifest.json"), "utf8"),
    ).bundles;
    const once = bundles.filter(
      (b) => bundles.filter((x) => x.trial === b.trial).length === 1 && b.outcome === "victory",
    );
    broken = once[0]!;
    appendFileSync(join(dir, "broken", broken.dir, "journal.jsonl"), "{not json\n");
    for (const r of ["base", "head", "broken"])
      await cli(["score", join(dir, r), "--quiet", "--format", "json", "--out", join(dir, `${r}.json`)]);
  });

  it("each trial's evidence is its deciding attempt's bundle: the entry there is that trial's, with an outcome", async () => {
    const doc = await compareJson(join(dir, "base.json"), join(dir, "head.json"));
    const changes = changesOf(doc, "accuracy");
    expect(changes.length).toBeGreaterThan(0);
    const entries = new Map<string, { trial: string; victory: boolean | null }>();
    for (const f of ["base.json", "head.json"])
      for (const e of JSON.parse(readFileSync(join(dir, f), "utf8")).bundles) entries.set(e.path, e);
    // The paired analysis's flipped trials are the changes' flips.
    const mcnemar = doc.experiments[0]!.metrics.find((m) => m.metric === "accuracy")!.paired!.mcnemar!;
    expect(changes.filter((c) => c.change === "pass_to_fail").map((c) => c.unit)).toEqual(mcnemar.flipped.pass_to_fail);
    expect(changes.filter((c) => c.change === "fail_to_pass").map((c) => c.unit)).toEqual(mcnemar.flipped.fail_to_pass);
    for (const c of changes)
      for (const s of [c.base, c.head]) {
        if (s === null) continue;
        const e = entries.get(s.evidence!)!;
        expect(e.trial, s.evidence!).toBe(c.unit);
        expect(e.victory === true ? 1 : 0).toBe(s.value);
        expect(existsSync(join(s.evidence!, "journal.jsonl"))).toBe(true);
      }
  });
  it("an invalid trial (--invalid count) is a fail counted 0 without a valid score, its evidence the broken bundle", async () => {
    const doc = await compareJson(join(dir, "base.json"), join(dir, "broken.json"));
    expect(changesOf(doc, "accuracy")).toEqual([
      {
        unit: broken.trial,
        change: "pass_to_fail",
        base: { value: 1, trials: 1, zeroed: 0, evidence: join(dir, "base", broken.dir) },
        head: { value: 0, trials: 1, zeroed: 1, evidence: join(dir, "broken", broken.dir) },
        delta: -1,
      },
    ]);
    expect(changesOf(doc, "accuracy")).toHaveLength(1); // nothing else changed: the unchanged trials are not listed
  });
});

describe("world trials: the bundle, and a broken one counted 0", () => {
  it("a passing scenario whose journal breaks is pass→fail, HEAD's 0 without a score, each side's evidence its bundle", async () => {
    const dir = folder("world");
    await cli(["synth", "--out", join(dir, "base"), "--n", "11", "--profile", "world"]);
    cpSync(join(dir, "base"), join(dir, "head"), { recursive: true });
    appendFileSync(join(dir, "head", "synth-world", "clean-000", "a1", "journal.jsonl"), "{not json\n");
    for (const r of ["base", "head"])
      await cli(["score", join(dir, r), "--quiet", "--format", "json", "--out", join(dir, `${r}.json`)]);
    const doc = await compareJson(join(dir, "base.json"), join(dir, "head.json"));
    expect(changesOf(doc, "pass")).toEqual([
      {
        unit: "clean-000",
        change: "pass_to_fail",
        delta: -1,
        base: { value: 1, trials: 1, zeroed: 0, evidence: join(dir, "base", "synth-world", "clean-000", "a1") },
        head: { value: 0, trials: 1, zeroed: 1, evidence: join(dir, "head", "synth-world", "clean-000", "a1") },
      },
    ]);
  });
});

describe("Inspect samples: `<log>#<sample id>`, and an errored sample counted 0", () => {
  let doc: Comparison;
  let logs: { base: string; head: string };
  beforeAll(async () => {
    await readyZstd();
    const dir = folder("inspect");
    const spec = (seed: string, c: InspectSpec["case"]): InspectSpec => ({
      task: "arith",
      model: "m/x",
      case: c,
      samples: 20,
      epochs: 1,
      format: "eval",
      method: 8,
      seed,
      offset: 0,
    });
    // BASE: errors-hidden (samples 5, 10, 15, 20 error without a score); HEAD: a clean run of another seed.
    logs = {
      base: join(dir, "base", inspectFileName(spec("a", "errors-hidden"))),
      head: join(dir, "head", inspectFileName(spec("b", "clean"))),
    };
    for (const [side, c, seed] of [
      ["base", "errors-hidden", "a"],
      ["head", "clean", "b"],
    ] as const) {
      mkdirSync(join(dir, side));
      writeFileSync(logs[side], inspectLogBytes(spec(seed, c)));
    }
    for (const side of ["base", "head"] as const)
      await cli([
        "score",
        join(dir, side),
        "--quiet",
        "--errors",
        "zero",
        "--format",
        "json",
        "--out",
        join(dir, `${side}.json`),
      ]);
    doc = await compareJson(join(dir, "base.json"), join(dir, "head.json"));
  });
  it("every changed sample's evidence is its log and sample id; a sample errored in BASE is counted 0 without a valid score", () => {
    const changes = changesOf(doc, "inspect/match/mean/accuracy/value");
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) {
      expect(c.base!.evidence).toBe(`${logs.base}#${c.unit}`);
      expect(c.head!.evidence).toBe(`${logs.head}#${c.unit}`);
      expect(basename(c.base!.evidence!)).toMatch(/\.eval#\d+$/);
      expect(c.base!.zeroed).toBe(Number(c.unit) % 5 === 0 ? 1 : 0);
    }
    // Errored samples that pass in HEAD are fail→pass flips with BASE's 0 said to be no score.
    const errored = changes.filter((c) => c.base!.zeroed === 1);
    expect(errored.length).toBeGreaterThan(0);
    expect(errored.every((c) => c.change === "fail_to_pass")).toBe(true);
  });
});
