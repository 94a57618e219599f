// Inspect as it is written now (issue 25, item 3): a scorer's metrics list mixing plain metrics
// with `{key: [metrics]}` entries; grader failures (`Score.reason`, and the metadata older logs
// carry) as instrument errors, outside assay's figures; and the chunked sample layout, read.
// Each rule with a case on each side of its line, on real logs edited or generated here.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { globMatcher } from "../src/kinds/inspect/specs.js";
import { partsOf, readSamples, scoreInspectLog } from "../src/kinds/inspect/read.js";
import { readDirectory } from "../src/kinds/inspect/zip.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { inspectLogBytes } from "../src/synth/inspect.js";
import { zipBytes } from "../src/synth/zip.js";
import { run } from "./helpers/cli.js";
import { fixture, json, members, place, scratch, type Member } from "./helpers/inspect.js";
import { runsWithShared, SHARED_DIR } from "./helpers/shared.js";

const POP = "2025-05-12T20-28-13-04-00_popularity.json";
/** JSON with NaN written as Inspect writes it (a bare token). */
const withNaN = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === "number" && Number.isNaN(x) ? "\u0000NaN" : x), 2).replace(
    /"\\u0000NaN"/g,
    "NaN",
  );
/** The real popularity log (3 samples, C C I, cancelled), its events and reductions dropped so each case below edits only scores and claims. */
function popularity(): any {
  const log = JSON.parse(readFileSync(fixture(POP), "utf8"));
  delete log.reductions;
  for (const s of log.samples) s.events = [];
  log.status = "success";
  return log;
}
const scoreLog = (log: unknown) =>
  scoreInspectLog(place(`${Math.random().toString(36).slice(2)}.json`, withNaN(log)), "json");
const metric = (e: ReturnType<typeof scoreLog>, key: string) => {
  const m = e.inspect?.metrics[key];
  expect(m, `no ${key} among ${Object.keys(e.inspect?.metrics ?? {}).join(", ")}`).toBeDefined();
  return m!;
};
const codes = (e: ReturnType<typeof scoreLog>) => [...new Set(e.errors.map((f) => f.code))].sort();
const builtIn = (name: string) => ({ name: `inspect_ai/${name}`, options: {} });

describe("a metrics list mixing plain metrics with {key: [metrics]} entries", () => {
  /**
   * A dict-valued scorer `counts` ({a_count, e_count} per sample) declared as Inspect's docs show
   * (multiple-scorers.qmd): `[{"a_count": [mean(), stderr()]}, total_count(), {"e_*": [mean()]}]`,
   * with the results entries Inspect writes for it (one for the plain metrics, one per key).
   */
  function mixed(
    claims: { a?: number; e?: number } = {},
    metrics: unknown[] = [
      { a_count: [builtIn("mean"), builtIn("stderr")] },
      { name: "pkg/total_count", options: {} },
      { "e_*": [builtIn("mean")] },
    ],
  ) {
    const log = popularity();
    const values = [
      { a_count: 3, e_count: 1 },
      { a_count: 1, e_count: 2 },
      { a_count: 2, e_count: 0 },
    ];
    log.samples.forEach((s: any, i: number) => (s.scores = { counts: { value: values[i] } }));
    log.eval.scorers = [{ name: "counts", options: {}, metrics, metadata: {} }];
    const entry = (name: string, ms: Record<string, number>) => ({
      name,
      scorer: "counts",
      params: {},
      metrics: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, { name: k, value: v, params: {} }])),
    });
    log.results.scores = [
      { ...entry("counts", {}), metrics: { total_count: { name: "pkg/total_count", value: 9, params: {} } } },
      entry("a_count", { mean: claims.a ?? 2, stderr: Math.sqrt(1 / 3) }),
      entry("e_count", { mean: claims.e ?? 1 }),
    ];
    return scoreLog(log);
  }

  it("the built-in metrics on each key are checked: mean and stderr of a_count, mean of e_count through its glob", () => {
    const e = mixed();
    expect(e.validity).toBe("valid");
    expect(metric(e, "counts.a_count/-/mean")).toMatchObject({ check: "agrees", exclude: { value: 2 } });
    expect(metric(e, "counts.a_count/-/stderr")).toMatchObject({ check: "agrees" });
    expect(metric(e, "counts.e_count/-/mean")).toMatchObject({ check: "agrees", exclude: { value: 1 } });
  });
  it("the plain part's custom metric stays unverified, never agreeing", () => {
    expect(metric(mixed(), "counts/-/total_count")).toMatchObject({
      check: "unverified",
      note: "not a built-in metric with default options",
    });
  });
  it("a wrong claim on a key is a METRIC_MISMATCH (checked, so no longer passed over)", () => {
    const e = mixed({ a: 2.5, e: 1 });
    expect(codes(e)).toEqual(["METRIC_MISMATCH"]);
    expect(metric(e, "counts.a_count/-/mean")).toMatchObject({ check: "mismatch" });
    expect(metric(mixed({ e: 0.5 }), "counts.e_count/-/mean").check).toBe("mismatch");
  });
  it("a key's metric is built-in only as that key declares it: mean with options, or declared under another key only, is unverified", () => {
    const withOptions = mixed({}, [
      { a_count: [{ name: "inspect_ai/mean", options: { skipna: true } }, builtIn("stderr")] },
      { e_count: [builtIn("mean")] },
    ]);
    expect(metric(withOptions, "counts.a_count/-/mean").check).toBe("unverified");
    expect(metric(withOptions, "counts.e_count/-/mean").check).toBe("agrees");
    const elsewhere = mixed({}, [{ a_count: [builtIn("stderr")] }, { e_count: [builtIn("mean")] }]);
    expect(metric(elsewhere, "counts.a_count/-/mean").check).toBe("unverified");
    expect(metric(elsewhere, "counts.a_count/-/stderr").check).toBe("agrees");
  });
  it("a bare dict declaration reads as before", () => {
    const e = mixed({}, {
      a_count: [builtIn("mean"), builtIn("stderr")],
      "*": [builtIn("mean")],
    } as unknown as unknown[]);
    expect([metric(e, "counts.a_count/-/mean").check, metric(e, "counts.e_count/-/mean").check]).toEqual([
      "agrees",
      "agrees",
    ]);
  });
  it("keys match as Python's fnmatch does: *, ?, [seq], [!seq], case-sensitive, whole key; a class Python refuses matches only itself", () => {
    const m = (glob: string, key: string) => globMatcher(glob)(key);
    expect([
      m("*", "anything"),
      m("e_*", "e_count"),
      m("e_*", "a_count"),
      m("?_count", "a_count"),
      m("?_count", "ab_count"),
    ]).toEqual([true, true, false, true, false]);
    expect([
      m("[ae]_count", "e_count"),
      m("[!a]_count", "a_count"),
      m("[!a]_count", "e_count"),
      m("E_*", "e_count"),
      m("a.count", "a_count"),
    ]).toEqual([true, false, true, false, false]);
    expect([m("[z-a]", "[z-a]"), m("[z-a]", "b"), m("a[", "a["), m("(x)|y", "y")]).toEqual([true, false, true, false]);
  });
  const realDir = join(SHARED_DIR, "real-world/inspect-more/AlexTMallen--sus-www/logs");
  it.runIf(runsWithShared(realDir))(
    "the real dict-valued logs (no eval.scorers, results named by key) keep their agreement",
    () => {
      const dir = realDir;
      for (const name of [
        "2025-01-29T10-10-16-08-00_task-reasoning-experiment-small_67MeViPNVTfDqXYbMX5W58.eval",
        "2025-02-02T13-40-30-08-00_task-reasoning-experiment-small_MM5NbaPrjoPHGVWKeaWg5x.eval",
      ]) {
        const e = scoreInspectLog(join(dir, name), "eval");
        expect(Object.fromEntries(Object.entries(e.inspect!.metrics).map(([k, m]) => [k, m.check]))).toEqual({
          "get_scorer.winrate/-/mean": "agrees",
          "get_scorer.winrate_divided_by_optimal/-/mean": "agrees",
        });
      }
    },
  );
});

describe("grader failures: Score.reason grader_failed / scoring_failed, and older logs' metadata", () => {
  /** popularity (C, C, I) with sample 2's score replaced, and the claims Inspect writes over the non-NaN values. */
  function graded(score: Record<string, unknown>, claims = { accuracy: 0.5, stderr: 0.5, scored: 2, unscored: 1 }) {
    const log = popularity();
    log.samples[1].scores.match = { answer: "No", explanation: "judge said GRID: C", ...score };
    log.results.scores[0] = {
      ...log.results.scores[0],
      scored_samples: claims.scored,
      unscored_samples: claims.unscored,
    };
    log.results.scores[0].metrics.accuracy.value = claims.accuracy;
    log.results.scores[0].metrics.stderr.value = claims.stderr;
    return scoreLog(log);
  }
  const flag = (e: ReturnType<typeof scoreLog>) => e.flags.find((f) => f.code === "GRADER_FAILED");

  it("grader_failed (NaN): its own state, listed and counted, in neither figure — not as 0 under --errors zero", () => {
    const e = graded({ value: NaN, reason: "grader_failed" });
    expect(e.validity).toBe("valid");
    expect(e.samples).toMatchObject({ scored: 2, unscored: 0, "grader-failed": 1, missing: 0 });
    const m = metric(e, "match/-/accuracy");
    expect(m).toMatchObject({
      check: "agrees",
      coverage: { scored: 2, planned: 3 },
      grader_failed: 1,
      exclude: { value: 0.5, n: 2 },
      zero: { value: 0.5, n: 2 },
    });
    expect(m.values).toEqual({ exclude: [1, null, 0], zero: [1, null, 0] });
    expect(flag(e)?.evidence).toBe(
      "1 scores the grader could not give (instrument errors: outside assay's figures, not the model's): samples[1] (match: grader_failed)",
    );
  });
  it("scoring_failed is the instrument's too; a model's reason (refusal) is the model's: a 0 in both figures (issue 35), no flag", () => {
    expect(graded({ value: NaN, reason: "scoring_failed" }).samples).toMatchObject({ "grader-failed": 1 });
    const e = graded({ value: NaN, reason: "refusal" });
    expect(e.samples).toMatchObject({ refusal: 1 });
    expect(e.samples).not.toHaveProperty("grader-failed");
    expect(flag(e)).toBeUndefined();
    const m = metric(e, "match/-/accuracy");
    expect(m.grader_failed).toBeUndefined();
    expect(m).toMatchObject({ refusals: 1, exclude: { value: 1 / 3, n: 3 }, zero: { value: 1 / 3, n: 3 } });
  });
  it("older logs: metadata.unscored_reason grade_parse_failure (PR #4048) and math()'s target_timeout / target_parse_error; another status is not", () => {
    expect(graded({ value: NaN, metadata: { unscored_reason: "grade_parse_failure" } }).samples).toMatchObject({
      "grader-failed": 1,
    });
    expect(graded({ value: NaN, metadata: { math_scorer_status: "target_timeout" } }).samples).toMatchObject({
      "grader-failed": 1,
    });
    expect(graded({ value: NaN, metadata: { math_scorer_status: "target_parse_error" } }).samples).toMatchObject({
      "grader-failed": 1,
    });
    expect(graded({ value: NaN, metadata: { unscored_reason: "other" } }).samples).toMatchObject({ unscored: 1 });
  });
  it("a written reason decides over the metadata (Inspect's shim maps the metadata only when reason is absent)", () => {
    expect(
      graded({ value: NaN, reason: "no_response", metadata: { unscored_reason: "grade_parse_failure" } }).samples,
    ).toMatchObject({ refusal: 1 });
    expect(
      graded({ value: NaN, reason: null, metadata: { unscored_reason: "grade_parse_failure" } }).samples,
    ).toMatchObject({ "grader-failed": 1 });
  });
  it("grader_failed with a value: a verdict, counted by Inspect and by assay alike (issue 35: a reason never removes one), flagged apart", () => {
    // Values 1, 0 ("I", reason grader_failed), 0: Inspect's accuracy 1/3, and assay's.
    const e = graded(
      { value: "I", reason: "grader_failed" },
      { accuracy: 1 / 3, stderr: 1 / 3, scored: 3, unscored: 0 },
    );
    expect(codes(e)).toEqual([]);
    expect(metric(e, "match/-/accuracy")).toMatchObject({
      check: "agrees",
      exclude: { value: 1 / 3 },
      zero: { value: 1 / 3 },
    });
    expect(flag(e)).toBeUndefined();
    expect(e.flags.find((f) => f.code === "GRADER_REASON_WITH_VALUE")?.evidence).toContain(
      `samples[1] (match: grader_failed, value "I")`,
    );
  });
  it("a dict-valued scorer's grader failure leaves every key's figures", () => {
    const log = popularity();
    log.samples.forEach(
      (s: any, i: number) =>
        (s.scores = { counts: i === 1 ? { value: NaN, reason: "grader_failed" } : { value: { a: i, b: 1 } } }),
    );
    log.eval.scorers = [{ name: "counts", options: {}, metrics: [{ "*": [builtIn("mean")] }], metadata: {} }];
    log.results.scores = ["a", "b"].map((k) => ({
      name: k,
      scorer: "counts",
      params: {},
      metrics: { mean: { name: "mean", value: k === "a" ? 1 : 1, params: {} } },
      scored_samples: 2,
      unscored_samples: 1,
    }));
    const e = scoreLog(log);
    expect(codes(e)).toEqual([]);
    expect(metric(e, "counts.a/-/mean")).toMatchObject({ check: "agrees", grader_failed: 1, zero: { value: 1, n: 2 } });
    expect(metric(e, "counts.b/-/mean")).toMatchObject({ grader_failed: 1, zero: { value: 1, n: 2 } });
  });
  it("the report says how many: the samples line, the metric's grader line, and the experiment's JSON (spawned CLI)", async () => {
    const log = popularity();
    log.samples[1].scores.match = { value: NaN, reason: "grader_failed" };
    Object.assign(log.results.scores[0].metrics.accuracy, { value: 0.5 });
    Object.assign(log.results.scores[0].metrics.stderr, { value: 0.5 });
    const file = place("2025-05-12T20-28-13-04-00_graded.json", withNaN(log));
    const table = await run(["score", "--details", file]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(
      "samples      scored 2 · grader-failed 1   (of 3 planned records: sample_ids × epochs)",
    );
    expect(table.stdout).toContain(
      "    grader     1 record where the grader failed: an instrument error, left out of both figures (GRADER_FAILED)",
    );
    const verify = await run(["verify", file]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain(
      "match/-/accuracy: claimed 0.5 (agrees); assay 0.5 over 2 scored records; 0.5 over the 3 planned with --errors zero but 1 the grader failed on",
    );
    expect(verify.stdout).toContain("GRADER_FAILED       1 scores the grader could not give");
    const doc = JSON.parse((await run(["score", file, "--format", "json", "--errors", "zero"])).stdout);
    expect(doc.experiments[0].inspect["match/-/accuracy"]).toMatchObject({
      value: 0.5,
      grader_failed: 1,
      coverage: { scored: 2, planned: 3 },
    });
    expect(doc.experiments[0].states).toMatchObject({ "grader-failed": 1 });
  });
});

describe("the chunked sample layout (inspect log convert-chunked), read as Inspect classifies it", () => {
  const BASE = {
    task: "chunky",
    model: "m/x",
    samples: 6,
    epochs: 2,
    format: "eval" as const,
    method: 8 as const,
    seed: "chunk",
    offset: 0,
  };
  /** A generated log's members: `limits-and-edits` has a limit, a score edit and score events. */
  const monolith = () =>
    members(
      place(`mono-${Math.random().toString(36).slice(2)}.eval`, inspectLogBytes({ ...BASE, case: "limits-and-edits" })),
    );
  const isMonolith = (m: Member) => /^samples\/.+_epoch_\d+\.json$/.test(m.name);

  /** One sample as convert.py writes it: the shell, metadata.json when non-empty, and the sequences chunked (events 2 a chunk). */
  function chunk(m: Member, metadata: Record<string, unknown> = {}): Member[] {
    const s = json(m);
    const prefix = m.name.slice(0, -".json".length);
    const { messages, events, attachments: _a, events_data: _d, metadata: _m, ...shell } = s;
    const part = (name: string, v: unknown): Member => ({
      name: `${prefix}/${name}`,
      data: Buffer.from(JSON.stringify(v)),
      method: 8,
    });
    const out = [part("sample.json", { ...shell, message_refs: [[0, messages.length]] })];
    if (Object.keys(metadata).length > 0) out.push(part("metadata.json", metadata));
    out.push(part("skeleton.json", { spans: [] }));
    out.push(part("messages/0.json", messages));
    for (let i = 0; i < events.length; i += 2) out.push(part(`events/${i}.json`, events.slice(i, i + 2)));
    out.push(part("events/stats.json", { chunks: [] }), part("events/uuids.json", []));
    return out;
  }
  /** The log with the samples `which` picks chunked (the others left whole), member order as given. */
  const convert = (
    ms: Member[],
    which: (m: Member) => boolean = () => true,
    meta?: (m: Member) => Record<string, unknown>,
  ) => ms.flatMap((m) => (isMonolith(m) && which(m) ? chunk(m, meta?.(m)) : [m]));
  const scoreEval = (ms: Member[]) =>
    scoreInspectLog(place(`c-${Math.random().toString(36).slice(2)}.eval`, zipBytes(ms)), "eval");
  /** An entry without what names its members (a record's name is its shell's). */
  const comparable = (e: ReturnType<typeof scoreEval>) =>
    JSON.parse(
      JSON.stringify({ ...e, digest: null }).replace(
        /samples\/(\d+)_epoch_(\d+)(\/sample)?\.json/g,
        "samples/$1_epoch_$2",
      ),
    );

  it("every sample chunked: the entry one gets from the monolith, never missing samples", () => {
    const ms = monolith();
    const mono = scoreEval(ms);
    const chunked = scoreEval(convert(ms));
    expect(mono.samples).toMatchObject({ scored: 12, missing: 0 });
    expect(mono.flags.map((f) => f.code).sort()).toEqual(["SAMPLE_LIMIT", "SCORE_EDITED"]);
    expect(comparable(chunked)).toEqual(comparable(mono));
    expect(chunked.flags.find((f) => f.code === "SCORE_EDITED")?.evidence).toContain(
      "samples/2_epoch_1/sample.json (match: author reviewer",
    );
  });
  it("one log mixing the shapes, and a chunked log stamped version 3 (PR #4691): read alike", () => {
    const ms = monolith();
    const mono = comparable(scoreEval(ms));
    expect(comparable(scoreEval(convert(ms, (m) => /samples\/[135]_/.test(m.name))))).toEqual(mono);
    const v3 = convert(ms).map((m) =>
      m.name === "header.json" || m.name === "_journal/start.json"
        ? { ...m, data: Buffer.from(JSON.stringify({ ...json(m), version: 3 })) }
        : m,
    );
    const e = scoreEval(v3);
    expect([e.validity, e.inspect?.log_version, e.samples?.["scored"]]).toEqual(["valid", 3, 12]);
  });
  it("score events are read across event chunks: a shell score no final event gives is SCORE_EVENT_MISMATCH on its shell", () => {
    const ms = convert(monolith()).map((m) => {
      if (m.name !== "samples/3_epoch_1/sample.json") return m;
      const s = json(m);
      s.scores.match.value = s.scores.match.value === "C" ? "I" : "C";
      return { ...m, data: Buffer.from(JSON.stringify(s)) };
    });
    const e = scoreEval(ms);
    expect(e.errors.filter((f) => f.code === "SCORE_EVENT_MISMATCH").map((f) => f.file)).toEqual([
      "samples/3_epoch_1/sample.json",
    ]);
  });
  it("metadata.json is the sample's metadata (what clustered stderr groups by); a sample without it has none", () => {
    const file = place(
      "meta.eval",
      zipBytes(
        convert(
          monolith(),
          () => true,
          (m) => (/samples\/[12]_/.test(m.name) ? { topic: "t1" } : {}),
        ),
      ),
    );
    const records = readSamples(file, partsOf(readDirectory(file).members).samples).samples!;
    const topics = new Map(records.map((r) => [`${r.id}/${r.epoch}`, r.metadata]));
    expect(topics.get("1/1")).toEqual(["topic", "t1"]);
    expect(topics.get("3/1")).toEqual([]);
  });
  it("a sample whose shell is gone is missing, as Inspect finds it; its other chunks are no sample", () => {
    const e = scoreEval(convert(monolith()).filter((m) => m.name !== "samples/4_epoch_2/sample.json"));
    expect(e.samples).toMatchObject({ scored: 11, missing: 1 });
    // As when a monolith member is gone: the summaries and completed_samples name a sample with no record.
    expect(e.errors.map((f) => f.code)).toEqual(["SUMMARY_MISMATCH", "COUNT_MISMATCH"]);
  });
  it("a part of a later layout under a shell is not read; the same name with no shell is a sample member, as Inspect reads every samples/*.json", () => {
    const ms = convert(monolith());
    const extra = (name: string): Member => ({ name, data: Buffer.from(JSON.stringify({ spans: [1, 2] })), method: 8 });
    const under = scoreEval([...ms, extra("samples/1_epoch_1/newpart.json")]);
    expect([under.validity, under.errors]).toEqual(["valid", []]);
    const loose = scoreEval([...ms, extra("samples/99_epoch_1/newpart.json")]);
    expect(loose.errors.map((f) => [f.code, f.file])).toEqual([["SCHEMA", "samples/99_epoch_1/newpart.json"]]);
  });
  it("a monolith member whose id holds `_epoch_<n>/` is a sample (the layout is told by the shell's name, not by a slash)", () => {
    const ms = monolith();
    const renamed = ms.map((m) =>
      m.name === "samples/1_epoch_1.json" ? { ...m, name: "samples/x_epoch_1/1_epoch_1.json" } : m,
    );
    expect(scoreEval(renamed).samples).toMatchObject({ scored: 12, missing: 0 });
  });
  it("split over two workers in parts of a few KB, a chunked sample's parts stay together: the entry one worker gives", async () => {
    const dir = join(scratch(), "chunked-split");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "2025-11-03T10-00-00+00-00_chunky.eval"),
      zipBytes(
        convert(
          members(
            place("big-mono.eval", inspectLogBytes({ ...BASE, case: "limits-and-edits", samples: 40, padding: 3000 })),
          ),
        ),
      ),
    );
    const opts: ScoreRunOptions = { schedules: [], ...DEFAULT_BATCH, jobs: 2 };
    const whole = await scoreRoots([dir], opts);
    const split = await scoreRoots([dir], { ...opts, inspectSplit: { logBytes: 1, partBytes: 4_000 } });
    expect(split).toEqual({ ...whole, run: { ...whole.run, started_at: split.run.started_at } });
    expect(whole.bundles[0]!.samples).toMatchObject({ scored: 80, missing: 0 });
  });
});
