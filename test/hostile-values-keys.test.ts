// Prototype names as evidence keys (issue 21 item 6). An Inspect scorer named `__proto__` lost its
// scores (`scores["__proto__"] = "C"` sets nothing) and the log was marked invalid with misleading
// METRIC_MISMATCH and REDUCTION_MISMATCH findings; a dict key named `toString` that a record lacks
// was read as Object.prototype.toString. Every map keyed by a name from an Inspect log is now read
// by its own members, a `__proto__` member kept as an ordinary one, and the results document
// writes such a key as a normal member. A Harbor exception type named `__proto__` is counted.
// Workers run compiled code: build first (`npm run build`).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { zipBytes } from "../src/synth/zip.js";
import { spawnCli } from "./helpers/cli.js";
import { writeJob } from "./helpers/harbor.js";
import { fixture, members, place, readFixture } from "./helpers/inspect.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-keys-");

const NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"] as const;
/** Rename every `"match"` of a log's text (its scorer: samples, results, reductions) to `name`. */
const renamed = (text: string, name: string) => text.replaceAll('"match"', JSON.stringify(name));

function scoreJson(path: string) {
  const r = spawnCli(["score", path, "--format", "json", "--quiet"]);
  expect(r.stderr).not.toMatch(/internal error|WORKER_FAILED/);
  expect(r.code).toBe(0);
  return { doc: JSON.parse(r.stdout), text: r.stdout };
}

describe("an Inspect scorer named like what every object inherits", () => {
  it.each(NAMES)(".json log, scorer %s: read like any other (valid, the claim agrees, every record scored)", (name) => {
    const text = renamed(JSON.stringify(readFixture("2025-05-12T20-28-13-04-00_popularity.json")), name);
    const file = place(`2025-01-01T00-00-00_scorer-${name}.json`, text);
    const { doc, text: out } = scoreJson(file);
    const [e] = doc.bundles;
    expect(e.errors).toEqual([]);
    expect(e.validity).toBe("valid");
    expect(e.samples).toMatchObject({ scored: 3, unscored: 0 });
    const acc = doc.experiments[0].inspect[`${name}/-/accuracy`];
    expect(acc).toMatchObject({ check: "agrees", value: 2 / 3, coverage: { scored: 3, planned: 3 } });
    expect(out).toContain(`"${name}/-/accuracy"`);
    const v = spawnCli(["verify", file]);
    expect(v.code).toBe(0);
  });

  it(".eval log, scorer __proto__ in every member (samples, summaries, reductions, header): valid", () => {
    const ms = members(fixture("log_read_sample.eval")).map((m) => ({
      ...m,
      data: Buffer.from(renamed(m.data.toString("utf8"), "__proto__")),
    }));
    const file = place("2025-01-01T00-00-00_scorer-proto.eval", zipBytes(ms));
    const { doc } = scoreJson(file);
    const [e] = doc.bundles;
    expect(e.errors).toEqual([]);
    expect(e.samples.scored).toBe(1);
    expect(Object.keys(doc.experiments[0].inspect).every((k: string) => k.startsWith("__proto__/"))).toBe(true);
  });

  it("a dict-valued scorer's key named toString that no record holds: unscored under it (the claim, NaN, agrees), never Object.prototype.toString", () => {
    const v = readFixture("2025-05-12T20-28-13-04-00_popularity.json");
    for (const s of v.samples) {
      s.scores.match.value = { a: 1 };
      delete s.events; // their score events say "C"
    }
    v.results.scores = [
      {
        name: "toString",
        scorer: "match",
        params: {},
        metrics: { accuracy: { name: "accuracy", value: "@@NAN@@", params: {} } },
      },
    ];
    delete v.reductions;
    const file = place("2025-01-01T00-00-00_dict-toString.json", JSON.stringify(v).replace('"@@NAN@@"', "NaN"));
    const { doc } = scoreJson(file);
    const [e] = doc.bundles;
    expect(e.errors).toEqual([]);
    expect(e.warnings.map((w: { code: string }) => w.code)).not.toContain("VALUE_UNCONVERTIBLE");
    expect(doc.experiments[0].inspect["match.toString/-/accuracy"]).toMatchObject({
      claimed: "NaN",
      check: "agrees",
      value: null,
      coverage: { scored: 0, planned: 3 },
    });
  });
});

describe("a Harbor exception type named __proto__", () => {
  it("is counted in the job's exceptions and written as a normal member of the results document", () => {
    const root = join(tmp, "jobs");
    writeJob(root, "2025-11-03__10-00-00", [
      { name: "t-1", rewards: null, exception: { type: "__proto__", message: "odd" } },
      { name: "t-2", rewards: null, exception: { type: "__proto__", message: "odd" } },
      { name: "t-3", rewards: null, exception: { type: "toString", message: "odd" } },
    ]);
    const { doc, text } = scoreJson(root);
    const exceptions = doc.experiments[0].exceptions;
    expect(Object.keys(exceptions).sort()).toEqual(["__proto__", "toString"]);
    expect(Object.getOwnPropertyDescriptor(exceptions, "__proto__")?.value).toBe(2);
    expect(exceptions.toString).toBe(1);
    expect(text).toMatch(/"__proto__": 2/);
  });
});
