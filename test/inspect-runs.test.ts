// Inspect logs through the whole pipeline (contract §12): discovery (files, a log given as a root,
// what is not a log), task runs and retry chains, the run's options, the table and verify, exit
// codes, shards merged, and a large .eval split over the workers giving what one worker gives.

import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import type { Results } from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { inShard } from "../src/pipeline/shard.js";
import { inspectLogBytes, type InspectSpec } from "../src/synth/inspect.js";
import { readyZstd } from "../src/synth/zip.js";
import { run, spawnCli } from "./helpers/cli.js";
import { editJson, fixture, members, scratch } from "./helpers/inspect.js";
import { zipBytes } from "../src/synth/zip.js";

const BASE: ScoreRunOptions = { schedules: [], ...DEFAULT_BATCH, jobs: 2 };
const score = (roots: string[], over: Partial<ScoreRunOptions> = {}) => scoreRoots(roots, { ...BASE, ...over });
let serial = 0;
const fresh = (name: string) => {
  const dir = join(scratch(), `${name}-${++serial}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};
const exp = (doc: Results, name: string) => {
  const e = doc.experiments.find((x) => x.experiment === name);
  expect(e, `no ${name} among ${doc.experiments.map((x) => x.experiment).join(", ")}`).toBeDefined();
  return e!;
};
const spec = (over: Partial<InspectSpec>): InspectSpec => ({
  task: "arith",
  model: "m/x",
  case: "clean",
  samples: 10,
  epochs: 1,
  format: "eval",
  method: 8,
  seed: "t",
  offset: 0,
  ...over,
});
const POP = "2025-05-12T20-28-13-04-00_popularity.json";

beforeAll(() => readyZstd());

describe("discovery", () => {
  it("finds .eval files and timestamp-named .json logs; a .json log named otherwise is said, never read; manifests, .buffer and temporaries are not logs", async () => {
    const root = fresh("found");
    copyFileSync(fixture("log_streaming.eval"), join(root, "log_streaming.eval"));
    copyFileSync(fixture(POP), join(root, POP));
    copyFileSync(fixture("log_tool_call_error.json"), join(root, "log_tool_call_error.json"));
    writeFileSync(join(root, "logs.json"), JSON.stringify({ "x.eval": { eval: {}, status: "success" } }));
    writeFileSync(join(root, ".inspect_tmp_abc.eval"), "partial");
    mkdirSync(join(root, ".buffer"));
    copyFileSync(fixture("log_streaming.eval"), join(root, ".buffer", "segment.eval"));
    const doc = await score([root]);
    expect(doc.bundles.map((b) => b.path.slice(root.length + 1))).toEqual([POP, "log_streaming.eval"]);
    expect(doc.run.unrecognised).toEqual({ count: 1, paths: [`${root}/log_tool_call_error.json`] });
    const table = await run(["score", root, "--quiet"]);
    expect(table.stdout).toMatch(
      /\n1 \.json file shaped as an Inspect log but not named by its timestamp \(Inspect would not list it either\): give it as a root to score it\n {2}.*log_tool_call_error\.json\n/,
    );
    expect(table.stdout).not.toMatch(/folders? looks? like evidence/);
  });
  it("a log given as a root is read, whatever its name; given beside its folder it is read once", async () => {
    const root = fresh("as-root");
    copyFileSync(fixture("log_streaming.eval"), join(root, "log_streaming.eval"));
    const doc = await score([fixture("log_with_nan.txt"), root, join(root, "log_streaming.eval")]);
    // Bundles come in path order, and the two roots sit in different folders: compare as a set.
    const seen = doc.bundles
      .map((b) => [b.path.split("/").pop(), b.validity])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(seen).toEqual([
      ["log_streaming.eval", "valid"],
      ["log_with_nan.txt", "valid"],
    ]);
  });
  it(`the table's first line counts one log as one Inspect log (never "1 bundles")`, async () => {
    const log = await run(["score", fixture("log_with_nan.txt"), "--quiet"]);
    expect(log.stdout).toMatch(/^assay: 1 Inspect log: 1 valid, 0 invalid, 0 tool errors\n/);
  });
  it("a file root that is no Inspect log, and a root with nothing recognised, are one-line usage errors (exit 2)", () => {
    const root = fresh("nothing");
    writeFileSync(join(root, "notes.txt"), "hello\n");
    const file = spawnCli(["score", join(root, "notes.txt")]);
    expect([file.code, file.stderr.trim().split("\n").length]).toEqual([2, 1]);
    expect(file.stderr).toMatch(/is a file but not an Inspect log/);
    const dir = spawnCli(["score", root]);
    expect([dir.code, dir.stderr]).toEqual([
      2,
      expect.stringMatching(/or an Inspect log \(a \.eval, or a \.json named by its timestamp\)/),
    ]);
  });
});

describe("task runs: the claim beside assay's figures, and the denominator", () => {
  let root: string;
  let errorsHidden: string;
  beforeAll(() => {
    root = fresh("runs");
    errorsHidden = join(root, "2025-11-03T10-00-00+00-00_arith_hidden.eval");
    writeFileSync(errorsHidden, inspectLogBytes(spec({ case: "errors-hidden" })));
  });
  it("errors left out of Inspect's denominator: the claim agrees, coverage says 8/10, --errors zero gives the planned figure", async () => {
    const doc = await score([root]);
    const m = exp(doc, "arith (m/x)").inspect!["match/mean/accuracy"]!;
    expect(m.check).toBe("agrees");
    expect(m.coverage).toEqual({ scored: 8, planned: 10 });
    const hits = Math.round(m.value! * 8);
    expect(m.value).toBeCloseTo(hits / 8, 12);
    expect(m.errors_zero).toBeCloseTo(hits / 10, 12);
    expect(exp(doc, "arith (m/x)").states).toMatchObject({ scored: 8, error: 2 });
    const zero = await score([root], { errors: "zero" });
    expect(exp(zero, "arith (m/x)").inspect!["match/mean/accuracy"]!.value).toBeCloseTo(hits / 10, 12);
    const t = await run(["score", root, "--quiet", "--details"]);
    expect(t.stdout).toMatch(
      new RegExp(
        `claimed    ${(hits / 8).toFixed(3)}   agrees[\\s\\S]*assay      ${(hits / 8).toFixed(3)}[^\\n]*coverage 8/10 planned records scored[\\s\\S]*${(hits / 10).toFixed(3)} over the 10 planned records with --errors zero`,
      ),
    );
  });
  it("an invalid log counts 0 for every planned sample; --invalid exclude leaves it out and lists it", async () => {
    const dir = fresh("invalid");
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_arith_bad.eval"),
      inspectLogBytes(spec({ case: "metric-inflated" })),
    );
    const count = exp(await score([dir]), "arith (m/x)");
    expect(count.invalid).toEqual([{ trial: expect.stringMatching(/_bad\.eval$/), codes: ["METRIC_MISMATCH"] }]);
    expect(count.inspect!["match/mean/accuracy"]).toMatchObject({
      value: 0,
      coverage: { scored: 10, planned: 10 },
      check: "mismatch",
    });
    const excluded = exp(await score([dir], { invalid: "exclude" }), "arith (m/x)");
    expect([excluded.invalid.length, excluded.inspect]).toEqual([1, null]);
  });
  it("two task runs of one task and model are named by task_id; one run written twice is DUPLICATE_LOG", async () => {
    const dir = fresh("names");
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_arith_a.eval"),
      inspectLogBytes(spec({ taskId: "AAAAAAAAAone" })),
    );
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_arith_b.eval"),
      inspectLogBytes(spec({ taskId: "BBBBBBBBBtwo", offset: 1 })),
    );
    copyFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_arith_b.eval"),
      join(dir, "2025-11-03T10-00-00+00-00_arith_c.eval"),
    );
    const doc = await score([dir]);
    expect(doc.experiments.map((e) => e.experiment)).toEqual(["arith (m/x)@AAAAAAAA", "arith (m/x)@BBBBBBBB"]);
    expect(doc.bundles.map((b) => b.experiment)).toEqual([
      "arith (m/x)@AAAAAAAA",
      "arith (m/x)@BBBBBBBB",
      "arith (m/x)@BBBBBBBB",
    ]);
    expect(exp(doc, "arith (m/x)@BBBBBBBB").flags).toEqual([
      {
        code: "DUPLICATE_LOG",
        trial: expect.stringMatching(/_b\.eval$/),
        attempt: null,
        evidence: expect.stringMatching(/_c\.eval, which is kept/),
      },
    ]);
  });
  it("an eval-retry chain: the newest success decides, an earlier error is SUPERSEDED, a second success RETRY_AFTER_OUTCOME", async () => {
    const dir = fresh("chain");
    const taskId = "CHAINchainCHAINchain22";
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_arith_1.eval"),
      inspectLogBytes(spec({ case: "retried-error", taskId })),
    );
    writeFileSync(
      join(dir, "2025-11-03T11-00-00+00-00_arith_2.eval"),
      inspectLogBytes(spec({ case: "retried-success", taskId, offset: 60 })),
    );
    writeFileSync(
      join(dir, "2025-11-03T12-00-00+00-00_arith_3.eval"),
      inspectLogBytes(spec({ case: "clean", taskId, offset: 120 })),
    );
    const e = exp(await score([dir]), "arith (m/x)");
    expect(e.log).toEqual({ path: expect.stringMatching(/_3\.eval$/), status: "success", state: "complete" });
    expect(e.flags.map((f) => [f.code, f.trial.slice(-7)])).toEqual([
      ["SUPERSEDED", "_1.eval"],
      ["RETRY_AFTER_OUTCOME", "_2.eval"],
    ]);
  });
  it("a log the tool cannot read is unscored and withholds its task run's value (exit 3)", async () => {
    const dir = fresh("tool-error");
    copyFileSync(fixture("log_version_3.txt"), join(dir, "2024-05-05T07-59-35_wikipedia.json"));
    const r = await run(["score", dir, "--format", "json", "--quiet"]);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as Results;
    expect(doc.bundles[0]).toMatchObject({ profile: "inspect", validity: "error", errors: [{ code: "LOG_VERSION" }] });
    expect(doc.experiments[0]).toMatchObject({
      experiment: "wikipedia (openai/gpt-4)",
      unscored: [expect.stringMatching(/wikipedia\.json$/)],
    });
  });
});

describe("the CLI", () => {
  it("verify LOG names each finding's member; exit 1 for an invalid log, 0 for a valid one", () => {
    const ms = editJson(
      members(fixture("log_streaming.eval")),
      "summaries.json",
      (s) => void (s[0].scores.match.value = "I"),
    );
    const file = join(fresh("verify"), "edited.eval");
    writeFileSync(file, zipBytes(ms));
    const bad = spawnCli(["verify", file]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/error    SUMMARY_MISMATCH\s+summaries\.json  sample \("2", epoch 2\)/);
    expect(bad.stdout).toMatch(/plan     4 records: 2 sample ids × 2 epochs/);
    const good = spawnCli(["verify", fixture("log_streaming.eval"), "--json"]);
    expect([good.code, JSON.parse(good.stdout).validity]).toEqual([0, "valid"]);
  });
  it("--fail-on invalid exits 1 on an invalid log; the synthesised corpus gives every labelled verdict", async () => {
    const dir = fresh("synth");
    writeCorpus(dir, { n: 11, seed: "runs", faults: false, profile: "inspect" });
    const manifest = JSON.parse(readFileSync(join(dir, "synth-manifest.json"), "utf8")) as {
      bundles: { dir: string; outcome: string; expect: { validity: string; code: string | null } }[];
    };
    const doc = await score([dir]);
    for (const b of manifest.bundles) {
      const entry = doc.bundles.find((e) => e.path === `${dir}/${b.dir}`)!;
      expect(entry.validity, b.outcome).toBe(b.expect.validity);
      const seen = [...entry.errors, ...entry.warnings, ...entry.flags].map((f) => f.code) as string[];
      const chain = doc.experiments.flatMap((e) =>
        e.flags.filter((f) => f.trial === entry.path).map((f) => f.code),
      ) as string[];
      if (b.expect.code !== null) expect([...seen, ...chain], b.outcome).toContain(b.expect.code);
    }
    expect((await run(["score", dir, "--fail-on", "invalid", "--quiet"])).code).toBe(1);
  });
});

describe("shards and parts", () => {
  it("--shard 0/2 and 1/2 merge into the single run's document", async () => {
    let root: string;
    do root = fresh("shards");
    while (
      new Set(
        ["a", "b", "c", "d"].map((n) => inShard(`${root}/2025-11-03T10-00-00+00-00_${n}.eval`, { index: 0, count: 2 })),
      ).size < 2
    );
    const taskId = "SHARDshardSHARDshard22";
    for (const [i, n] of ["a", "b", "c", "d"].entries())
      writeFileSync(
        join(root, `2025-11-03T10-00-00+00-00_${n}.eval`),
        inspectLogBytes(
          spec({
            case: i === 0 ? "retried-error" : i === 3 ? "metric-inflated" : "clean",
            taskId: i < 2 ? taskId : undefined,
            task: i === 2 ? "other" : "arith",
            offset: i * 10,
          }),
        ),
      );
    const single = await run(["score", root, "--format", "json", "--quiet"]);
    const files = [];
    for (const i of [0, 1]) {
      const s = await run(["score", root, "--shard", `${i}/2`, "--format", i === 0 ? "json" : "jsonl", "--quiet"]);
      const f = join(root, `..`, `shard-${serial}-${i}`);
      writeFileSync(f, s.stdout);
      files.push(f);
    }
    const merged = await run(["merge", ...files, "--format", "json"]);
    expect(merged.code, merged.stderr).toBe(single.code);
    const withoutRun = (t: string) => JSON.stringify({ ...JSON.parse(t), run: null });
    expect(withoutRun(merged.stdout)).toBe(withoutRun(single.stdout));
  });
  it("a .eval split into parts over the workers gives the entry one worker gives", async () => {
    const dir = fresh("split");
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_big.eval"),
      inspectLogBytes(
        spec({ case: "limits-and-edits", format: "eval", method: 93, samples: 300, epochs: 2, padding: 4000 }),
      ),
    );
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_bad.eval"),
      inspectLogBytes(spec({ case: "summary-edited", samples: 50, task: "b" })),
    );
    const whole = await score([dir]);
    // Parts of about 20 KB: dozens of sample parts, spread over two workers.
    const split = await score([dir], { inspectSplit: { logBytes: 1, partBytes: 20_000 } });
    expect(split).toEqual({ ...whole, run: { ...whole.run, started_at: split.run.started_at } });
    expect(whole.bundles.find((b) => b.path.endsWith("big.eval"))!.samples).toMatchObject({ scored: 600 });
    expect(whole.bundles.find((b) => b.path.endsWith("bad.eval"))!.errors.map((f) => f.code)).toEqual([
      "SUMMARY_MISMATCH",
    ]);
  });
  it("a log shaped as Inspect writes it (condensed transcripts, ANSI escapes and quoted JSON in tool output, journal summaries ten samples at a time) is judged as the padded one, whole or split", async () => {
    const dir = fresh("realistic");
    const realistic = spec({ case: "errors-hidden", samples: 95, epochs: 2, shape: "realistic" });
    const bytes = inspectLogBytes(realistic);
    writeFileSync(join(dir, "2025-11-03T10-00-00+00-00_real.eval"), bytes);
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_edited.eval"),
      inspectLogBytes({ ...realistic, case: "summary-edited", task: "e" }),
    );
    const names = members(join(dir, "2025-11-03T10-00-00+00-00_real.eval")).map((m) => m.name);
    // 190 records: 19 journal files of ten, each after its samples.
    expect(names.filter((n) => n.startsWith("_journal/summaries/"))).toHaveLength(19);
    expect(names.indexOf("_journal/summaries/1.json")).toBe(names.indexOf("samples/10_epoch_1.json") + 1);
    expect(
      members(join(dir, "2025-11-03T10-00-00+00-00_real.eval")).some(
        (m) => m.data.includes("\\u001b[") && m.data.includes('\\"status\\":'),
      ),
    ).toBe(true);
    const whole = await score([dir]);
    const split = await score([dir], { inspectSplit: { logBytes: 1, partBytes: 20_000 } });
    expect(split).toEqual({ ...whole, run: { ...whole.run, started_at: split.run.started_at } });
    const real = whole.bundles.find((b) => b.path.endsWith("real.eval"))!;
    expect(real).toMatchObject({ validity: "valid", errors: [], samples: { scored: 152, error: 38 } });
    expect(Object.values(real.inspect!.metrics).map((m) => m.check)).toEqual(["agrees", "agrees"]);
    expect(whole.bundles.find((b) => b.path.endsWith("edited.eval"))!.errors.map((f) => f.code)).toEqual([
      "SUMMARY_MISMATCH",
    ]);
  });
});

it("the real log fixtures: each verdict of inspect-notes §3.8 (the ../shared copies are checked in inspect-real-world)", async () => {
  const doc = await score([
    fixture("log_tool_call_error.json"),
    fixture("2025-05-12T20-28-13-04-00_no-samples.json"),
    fixture(POP),
  ]);
  const by = (name: string) => doc.bundles.find((b) => b.path.endsWith(name))!;
  // Issue 35: claims over 4 completed samples, 1 record held: unverified, as §12 lists a log with none.
  expect(by("log_tool_call_error.json")).toMatchObject({ validity: "valid", samples: { unscored: 1, missing: 1 } });
  expect(by("no-samples.json").flags.map((f) => f.code)).toEqual(["NO_SAMPLE_EVIDENCE"]);
  expect(by("popularity.json")).toMatchObject({ validity: "valid", status: "cancelled" });
});
