// The real Inspect logs of ../shared/real-world/inspect (Inspect AI's own test data), scored as a
// user would: the folder as a root, and the logs Inspect would not list (not named by a
// timestamp) given as roots. Each gets the verdict inspect-notes.md §3.8 lists. Skips without
// ../shared; fails without it when CI=true.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { BundleEntry, Results } from "../src/core/results.js";
import { run } from "./helpers/cli.js";
import { runsWithShared, SHARED_DIR } from "./helpers/shared.js";

const ROOT = join(SHARED_DIR, "real-world/inspect");
const UNLISTED = ["log_formats.json", "log_tool_call_error.json", "log_with_nan.txt", "log_version_3.txt"];

let doc: Results;
let table: string;
const entry = (name: string): BundleEntry => {
  const e = doc.bundles.find((b) => b.path.endsWith(`/${name}`));
  expect(e, name).toBeDefined();
  return e!;
};
const metrics = (name: string) => entry(name).inspect!.metrics;
/** What the log itself claims, read with JSON.parse here (apart from src/). */
const claimed = (name: string, metric: string): number => {
  const text = readFileSync(join(ROOT, name), "utf8");
  return (JSON.parse(text) as { results: { scores: { metrics: Record<string, { value: number }> }[] } }).results
    .scores[0]!.metrics[metric]!.value;
};

describe.runIf(runsWithShared(join(ROOT, "README.md")))("real Inspect logs (inspect-notes §3.8)", () => {
  beforeAll(async () => {
    const roots = [ROOT, ...UNLISTED.map((n) => join(ROOT, n))];
    const r = await run(["score", ...roots, "--format", "json", "--quiet"]);
    expect(r.code, r.stderr).toBe(3); // log_version_3.txt is a tool error
    doc = JSON.parse(r.stdout) as Results;
    table = (await run(["score", ...roots, "--quiet", "--details"])).stdout;
  });

  it("every log is found once: the folder's four, and the four given as roots", () => {
    expect(doc.bundles.map((b) => b.path.split("/").pop()).sort()).toEqual([
      "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval",
      "2025-05-12T20-28-13-04-00_no-samples.json",
      "2025-05-12T20-28-13-04-00_popularity.json",
      "log_formats.eval",
      "log_formats.json",
      "log_message_deduplication.eval",
      "log_read_sample.eval",
      "log_streaming.eval",
      "log_tool_call_error.json",
      "log_version_3.txt",
      "log_with_nan.txt",
    ]);
  });
  it("the --no-score popularity run: every sample unscored, the declared metrics unverified with nothing claimed", () => {
    const e = entry("2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval");
    expect([e.validity, e.status, e.samples?.["unscored"]]).toEqual(["valid", "success", 10]);
    expect(e.inspect!.metrics["match/-/accuracy"]).toMatchObject({
      claimed: null,
      check: "unverified",
      coverage: { scored: 0, planned: 10 },
    });
  });
  it("no-samples.json: metrics with no sample behind them (NO_SAMPLE_EVIDENCE), three planned samples missing", () => {
    const e = entry("2025-05-12T20-28-13-04-00_no-samples.json");
    expect([e.validity, e.status, e.flags.map((f) => f.code), e.samples?.["missing"]]).toEqual([
      "valid",
      "cancelled",
      ["NO_SAMPLE_EVIDENCE"],
      3,
    ]);
    expect(metrics("2025-05-12T20-28-13-04-00_no-samples.json")["match/-/accuracy"]).toMatchObject({
      check: "unverified",
      claimed: claimed("2025-05-12T20-28-13-04-00_no-samples.json", "accuracy"),
    });
  });
  it("the cancelled popularity.json: its claims agree over its three scored samples; the table says it is no clean run", () => {
    const m = metrics("2025-05-12T20-28-13-04-00_popularity.json");
    expect(m["match/-/accuracy"]).toMatchObject({
      check: "agrees",
      claimed: claimed("2025-05-12T20-28-13-04-00_popularity.json", "accuracy"),
      exclude: { value: 2 / 3, n: 3 },
    });
    expect(m["match/-/stderr"]).toMatchObject({
      check: "agrees",
      claimed: claimed("2025-05-12T20-28-13-04-00_popularity.json", "stderr"),
    });
    expect(table).toMatch(/2025-05-12T20-28-13-04-00_popularity\.json   status cancelled, complete   NOT a clean run/);
  });
  it("log_streaming.eval: accuracy 0.75 and stderr 0.25 over the two reduced samples, not the four records", () => {
    const m = metrics("log_streaming.eval");
    expect(m["match/-/accuracy"]).toMatchObject({
      check: "agrees",
      claimed: 0.75,
      exclude: { value: 0.75, n: 2, pass_at_k: { "1": 0.75, "2": 1 } },
    });
    expect(m["match/-/stderr"]).toMatchObject({ check: "agrees", claimed: 0.25, exclude: { value: 0.25, n: 2 } });
  });
  it("the other small logs agree (log_formats in both formats, log_read_sample, the version-3 log_message_deduplication)", () => {
    for (const n of [
      "log_formats.eval",
      "log_formats.json",
      "log_read_sample.eval",
      "log_message_deduplication.eval",
    ]) {
      expect(entry(n).validity, n).toBe("valid");
      for (const [k, m] of Object.entries(metrics(n))) expect(m.check, `${n} ${k}`).toBe("agrees");
    }
    expect(entry("log_message_deduplication.eval").inspect!.log_version).toBe(3);
  });
  it("log_formats.eval and .json are one run written twice: the earlier (by path) is DUPLICATE_LOG", () => {
    const e = doc.experiments.find((x) => x.experiment === "popularity (ollama/llama3.1)")!;
    expect(e.flags).toEqual([
      {
        code: "DUPLICATE_LOG",
        trial: join(ROOT, "log_formats.eval"),
        attempt: null,
        evidence: expect.stringMatching(/log_formats\.json, which is kept/),
      },
    ]);
  });
  it("log_tool_call_error.json: its claims cover 4 completed samples and it holds 1 record (issue 35: unverified, as a log with none)", () => {
    const e = entry("log_tool_call_error.json");
    expect(e.validity).toBe("valid");
    expect(e.errors).toEqual([]);
    expect(Object.values(e.inspect!.metrics).map((m) => m.check)).toEqual(["unverified", "unverified"]);
    expect(e.warnings.map((f) => f.code)).toEqual(["PLAN_MISMATCH"]);
    expect(e.flags.map((f) => f.code)).toEqual(["NO_SAMPLE_EVIDENCE", "SAMPLE_UNPLANNED"]);
    expect(e.samples).toMatchObject({ missing: 1, unscored: 1 });
  });
  it('log_with_nan.txt: a version-1 log whose accuracy is a bare NaN, read and shown as "NaN"', () => {
    const e = entry("log_with_nan.txt");
    expect([e.validity, e.flags.map((f) => f.code)]).toEqual(["valid", ["NO_SAMPLE_EVIDENCE"]]);
    expect(metrics("log_with_nan.txt")["model_graded_fact/-/accuracy"]).toMatchObject({
      claimed: "NaN",
      check: "unverified",
    });
    expect(metrics("log_with_nan.txt")["model_graded_fact/-/bootstrap_std"]).toMatchObject({
      claimed: 0,
      check: "unverified",
    });
  });
  it("log_version_3.txt claims version 4: a tool error (LOG_VERSION), as Inspect refuses it", () => {
    expect(entry("log_version_3.txt")).toMatchObject({ validity: "error", errors: [{ code: "LOG_VERSION" }] });
  });
});
