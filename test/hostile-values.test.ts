// Deep values (issue 21 item 5). A score value nested 10^6 arrays deep was WORKER_FAILED: V8's
// JSON.parse builds it (iteratively), then a walk over it — JSON.stringify into a message, score
// comparisons, structured clone back to the main thread — overflows the stack. Now a JSON value
// nested deeper than MAX_JSON_DEPTH (512) is JSON_TOO_DEEP (§2) wherever assay reads JSON, found
// before JSON.parse builds it: the evidence is invalid, never a tool error and never exit 3.
// Each kind of evidence file that can carry an arbitrary value goes through a spawned CLI.
// Workers run compiled code: build first (`npm run build`).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CUT_DEEP, scrubDeep } from "../src/analysis/secrets.js";
import { MAX_JSON_DEPTH, parseLenientJson, parseStrictJson } from "../src/core/json/strict.js";
import { zipBytes } from "../src/synth/zip.js";
import { bundle, game, rechain, writeFiles } from "./helpers/bundle.js";
import { spawnMeasured } from "./helpers/cli.js";
import { float, pyJson, trialResult, writeTrial } from "./helpers/harbor.js";
import { fixture, members, place, readFixture } from "./helpers/inspect.js";
import { build, effect } from "./helpers/world.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-values-");

/** `[[[…1…]]]`, `depth` arrays deep. */
const deepArray = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;
/** `{"a":{"a":…1…}}`, `depth` objects deep. */
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const MARK = '"@@DEEP@@"';
/** A JSON document deep enough to overflow every recursive walk (2 MB; a JSONL line must stay under 1 MiB: 400,000). */
const DOC_DEEP = deepArray(1_000_000);
const LINE_DEEP = deepArray(400_000);

/** The CLI on one path, `score` as JSON and `verify`: neither a tool error nor exit 3; the entry's findings. */
function judged(path: string) {
  const score = spawnMeasured(["score", path, "--format", "json", "--quiet"], ["--max-old-space-size=128"]);
  expect(score.stderr).not.toMatch(/internal error|Maximum call stack|WORKER_FAILED/);
  expect(score.code).toBe(0);
  const doc = JSON.parse(score.stdout);
  const verify = spawnMeasured(["verify", path], ["--max-old-space-size=128"]);
  expect(verify.stdout).not.toMatch(/WORKER_FAILED|internal error/);
  expect(verify.code).not.toBe(3);
  expect(score.maxRssKb).toBeLessThan(400 * 1024);
  return {
    entries: doc.bundles as {
      validity: string;
      errors: { code: string; file: string | null; line: number | null; message: string }[];
      warnings: { code: string }[];
    }[],
    verify,
  };
}
const codesOf = (e: { errors: { code: string }[] }) => [...new Set(e.errors.map((f) => f.code))].sort();

describe("assay bundles", () => {
  it("journal.jsonl: a header meta value 400,000 arrays deep is JSON_TOO_DEEP on line 1", () => {
    const files = bundle(game({ meta: { model: "m-1", x: "@@DEEP@@" } }));
    files["journal.jsonl"] = rechain(files["journal.jsonl"]!, { 1: (l) => l.replace(MARK, LINE_DEEP) }).bytes;
    const dir = join(tmp, "native-journal", "exp", "t1", "a1");
    writeFiles(dir, files);
    const [e] = judged(dir).entries;
    expect(e!.validity).toBe("invalid");
    expect(e!.errors).toContainEqual(
      expect.objectContaining({ code: "JSON_TOO_DEEP", file: "journal.jsonl", line: 1 }),
    );
  });

  it("summary.json: a value 10^6 objects deep is JSON_TOO_DEEP on summary.json", () => {
    const files = bundle(game(), { summary: { extra: "@@DEEP@@" } });
    files["summary.json"] = String(files["summary.json"]).replace(MARK, deepObject(1_000_000));
    const dir = join(tmp, "native-summary", "exp", "t1", "a1");
    writeFiles(dir, files);
    const [e] = judged(dir).entries;
    expect(e!.validity).toBe("invalid");
    expect(e!.errors).toContainEqual(expect.objectContaining({ code: "JSON_TOO_DEEP", file: "summary.json" }));
  });

  it("world.jsonl: a record holding a value 400,000 arrays deep; scenario.json 10^6 deep", () => {
    const w = build({ world: [{ ...effect("R-41", "at-1"), note: "@@DEEP@@" }] });
    w["world.jsonl"] = rechain(w["world.jsonl"]!, { 2: (l) => l.replace(MARK, LINE_DEEP) }).bytes;
    const dir = join(tmp, "world", "wexp", "w1", "a1");
    writeFiles(dir, w);
    const [e] = judged(dir).entries;
    expect(e!.validity).toBe("invalid");
    expect(e!.errors).toContainEqual(expect.objectContaining({ code: "JSON_TOO_DEEP", file: "world.jsonl", line: 2 }));

    const s = build({ scenario: `{"format": ${DOC_DEEP}}` });
    const dir2 = join(tmp, "world-scenario", "wexp", "w1", "a1");
    writeFiles(dir2, s);
    const [e2] = judged(dir2).entries;
    expect(e2!.validity).toBe("invalid");
    expect(e2!.errors.find((f) => f.file === "scenario.json")?.message).toMatch(/nested deeper than 512/);
  });
});

describe("Harbor trials", () => {
  it("result.json: a value 10^6 deep beside the rewards is JSON_TOO_DEEP on result.json", () => {
    const spec = { name: "trial-deep", extra: { agent_info: "@@DEEP@@" } };
    const dir = writeTrial(join(tmp, "harbor", "trial-deep"), {
      ...spec,
      result: pyJson(trialResult(spec)).replace(MARK, DOC_DEEP),
    });
    const [e] = judged(dir).entries;
    expect(e!.validity).toBe("invalid");
    expect(e!.errors).toContainEqual(expect.objectContaining({ code: "JSON_TOO_DEEP", file: "result.json" }));
  });

  it("verifier/reward.json: a reward nested 10^6 deep is JSON_TOO_DEEP on the reward file", () => {
    const dir = writeTrial(join(tmp, "harbor-reward", "trial-1"), {
      name: "trial-1",
      rewards: { reward: float(1) },
      rewardFiles: { "reward.json": `{"reward": ${DOC_DEEP}}` },
    });
    const [e] = judged(dir).entries;
    expect(e!.validity).toBe("invalid");
    expect(e!.errors).toContainEqual(expect.objectContaining({ code: "JSON_TOO_DEEP", file: "verifier/reward.json" }));
  });
});

describe("a Harbor trajectory (scanned for review flags with JSON.parse, no finding rests on it)", () => {
  it("nested 10^7 deep (20 MB): read as text, its write to the reward path still flagged, within a bounded RSS", () => {
    const step = {
      step_id: 1,
      source: "agent",
      message: "done",
      tool_calls: [
        {
          tool_call_id: "c1",
          function_name: "bash_command",
          arguments: { keystrokes: "echo 1 > /logs/verifier/reward.txt\n" },
        },
      ],
    };
    const trajectory = `{"steps": [${JSON.stringify(step)}], "extra": ${deepArray(10_000_000)}}`;
    const dir = writeTrial(join(tmp, "harbor-trajectory", "trial-1"), { name: "trial-1", trajectory });
    const r = spawnMeasured(["score", dir, "--format", "json", "--quiet"], ["--max-old-space-size=128"]);
    expect(r.stderr).not.toMatch(/internal error|WORKER_FAILED/);
    expect(r.code).toBe(0);
    expect(r.maxRssKb).toBeLessThan(400 * 1024);
    const [e] = JSON.parse(r.stdout).bundles;
    expect(e.validity).toBe("valid");
    expect(e.flags).toContainEqual(
      expect.objectContaining({
        code: "WRITES_REWARD_PATH",
        evidence: expect.stringContaining("nested deeper than 512 levels: read as text"),
      }),
    );
  });
});

describe("Inspect logs", () => {
  const POPULARITY = "2025-05-12T20-28-13-04-00_popularity.json";
  const jsonLog = (name: string, edit: (v: any) => void, deep = DOC_DEEP) => {
    const v = readFixture(POPULARITY);
    edit(v);
    return place(`2025-01-01T00-00-00_${name}.json`, JSON.stringify(v).replace(MARK, deep));
  };
  const evalLog = (name: string, member: string, edit: (v: any) => void, deep = DOC_DEEP) => {
    const ms = members(fixture("log_read_sample.eval")).map((m) => {
      if (m.name !== member) return m;
      const v = JSON.parse(m.data.toString("utf8"));
      edit(v);
      return { ...m, data: Buffer.from(JSON.stringify(v).replace(MARK, deep)) };
    });
    return place(`2025-01-01T00-00-00_${name}.eval`, zipBytes(ms));
  };

  it(".json: a sample's score value 10^6 deep is JSON_TOO_DEEP on that sample", () => {
    const [e] = judged(jsonLog("score", (v) => (v.samples[0].scores.match.value = "@@DEEP@@"))).entries;
    expect(e!.validity).toBe("invalid");
    expect(e!.errors).toContainEqual(expect.objectContaining({ code: "JSON_TOO_DEEP", file: "samples[0]" }));
  });

  it(".json: a sample's metadata 10^6 objects deep, and the eval's", () => {
    const [e] = judged(
      jsonLog("metadata", (v) => (v.samples[1].metadata = { x: "@@DEEP@@" }), deepObject(1_000_000)),
    ).entries;
    expect(e!.errors).toContainEqual(expect.objectContaining({ code: "JSON_TOO_DEEP", file: "samples[1]" }));
    const [e2] = judged(jsonLog("eval-metadata", (v) => (v.eval.metadata = { x: "@@DEEP@@" }))).entries;
    expect(e2!.validity).toBe("invalid");
    expect(codesOf(e2!)).toContain("JSON_TOO_DEEP");
  });

  it(".eval: a sample member's score value and metadata 10^6 deep; header.json's results", () => {
    const [e] = judged(evalLog("score", "samples/1_epoch_1.json", (v) => (v.scores.match.value = "@@DEEP@@"))).entries;
    expect(e!.validity).toBe("invalid");
    expect(e!.errors).toContainEqual(
      expect.objectContaining({ code: "JSON_TOO_DEEP", file: "samples/1_epoch_1.json" }),
    );
    const [m] = judged(evalLog("metadata", "samples/1_epoch_1.json", (v) => (v.metadata = { x: "@@DEEP@@" }))).entries;
    expect(m!.errors).toContainEqual(
      expect.objectContaining({ code: "JSON_TOO_DEEP", file: "samples/1_epoch_1.json" }),
    );
    const [h] = judged(
      evalLog("header", "header.json", (v) => (v.results.scores[0].metrics.accuracy.value = "@@DEEP@@")),
    ).entries;
    expect(h!.errors).toContainEqual(expect.objectContaining({ code: "JSON_TOO_DEEP", file: "header.json" }));
  });

  it("a summary's score value 10^6 deep (summaries.json)", () => {
    const [e] = judged(evalLog("summary", "summaries.json", (v) => (v[0].scores.match.value = "@@DEEP@@"))).entries;
    expect(e!.validity).toBe("invalid");
    expect(codesOf(e!)).toContain("JSON_TOO_DEEP");
  });
});

describe("just inside the limit: read, and every walk over it holds", () => {
  const NEAR = deepArray(MAX_JSON_DEPTH - 6);
  it("an Inspect score value and summary, a Harbor result.json, a bundle summary: judged, never a tool error", () => {
    const v = readFixture("2025-05-12T20-28-13-04-00_popularity.json");
    v.samples[0].scores.match.value = "@@DEEP@@";
    const [i] = judged(place("2025-01-01T00-00-00_near.json", JSON.stringify(v).replace(MARK, NEAR))).entries;
    expect(i!.errors.find((f) => f.file === "samples[0]")?.code).toBe("SCHEMA"); // outside Inspect's Value, named
    const ms = members(fixture("log_read_sample.eval")).map((m) =>
      m.name === "summaries.json"
        ? { ...m, data: Buffer.from(m.data.toString("utf8").replace(/"value": "C"/, `"value": ${NEAR}`)) }
        : m,
    );
    const [s] = judged(place("2025-01-01T00-00-00_near.eval", zipBytes(ms))).entries;
    expect(codesOf(s!)).toEqual(["SUMMARY_MISMATCH"]);
    const spec = { name: "trial-near", extra: { x_custom: "@@DEEP@@" } };
    const [h] = judged(
      writeTrial(join(tmp, "harbor-near", "trial-near"), {
        ...spec,
        result: pyJson(trialResult(spec)).replace(MARK, NEAR),
      }),
    ).entries;
    expect(h!.errors).toEqual([]);
    const files = bundle(game(), { summary: { extra: "@@DEEP@@" } });
    files["summary.json"] = String(files["summary.json"]).replace(MARK, NEAR);
    const dir = join(tmp, "native-near", "exp", "t1", "a1");
    writeFiles(dir, files);
    const [n] = judged(dir).entries;
    expect(codesOf(n!)).toEqual(["SCHEMA"]);
  });
});

describe("the line (in process)", () => {
  it(`${MAX_JSON_DEPTH} levels are read; ${MAX_JSON_DEPTH + 1} are JSON_TOO_DEEP, by every parser and path`, () => {
    for (const wrap of [deepArray, deepObject]) {
      const ok = `{"v": ${wrap(MAX_JSON_DEPTH - 1)}}`;
      const over = `{"v": ${wrap(MAX_JSON_DEPTH)}}`;
      for (const text of [ok, ok.replace(/ /g, "")]) {
        expect(parseStrictJson(text, " \n").ok).toBe(true);
        expect(parseLenientJson(text).ok).toBe(true);
      }
      for (const text of [over, over.replace(/ /g, ""), over.replace("1", "1.5"), over.replace("1", "NaN")]) {
        const strict = parseStrictJson(text, " \n");
        if (!text.includes("NaN"))
          expect(strict).toEqual({ ok: false, issue: expect.objectContaining({ code: "JSON_TOO_DEEP" }) });
        expect(parseLenientJson(text)).toEqual({
          ok: false,
          issue: expect.objectContaining({ code: "JSON_TOO_DEEP" }),
        });
      }
    }
  });

  it("brackets inside strings are not nesting; a long text is judged before it is parsed", () => {
    const strings = `{"s": "${"[".repeat(2000)}", "t": "\\"${"{".repeat(2000)}"}`;
    expect(parseStrictJson(strings, " \n").ok).toBe(true);
    expect(parseLenientJson(strings).ok).toBe(true);
    const long = `{"pad": "${"x".repeat(1 << 20)}", "v": ${deepArray(600)}}`;
    expect(parseStrictJson(long, " \n")).toEqual({
      ok: false,
      issue: expect.objectContaining({ code: "JSON_TOO_DEEP" }),
    });
    expect(parseLenientJson(long)).toEqual({ ok: false, issue: expect.objectContaining({ code: "JSON_TOO_DEEP" }) });
  });
});

describe("a model endpoint's answer (not read through the strict parser)", () => {
  it("scrubDeep cuts a tool input 10^6 levels deep at the limit: scrubbed, serialisable, never a stack overflow", () => {
    const input = JSON.parse(deepObject(1_000_000)) as unknown;
    const out = scrubDeep({ secret: "sk-ant-0123456789abcdef", input }, (t) =>
      t.replace("sk-ant-0123456789abcdef", "[redacted]"),
    ) as Record<string, unknown>;
    expect(out["secret"]).toBe("[redacted]");
    const text = JSON.stringify(out);
    expect(text).toContain(JSON.stringify(CUT_DEEP));
    expect(text.length).toBeLessThan(10_000);
  });
});
