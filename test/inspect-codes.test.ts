// Contract §12's codes, each on both sides of its line, from real Inspect logs (test/fixtures/
// inspect) changed by one minimal edit: the container (EVAL_CORRUPT, EVAL_TRUNCATED,
// MEMBER_DUPLICATE, EVAL_METHOD), the log's self-consistency (the hard checks), warnings, flags,
// tool errors, sample states, and the rules that follow the writer's Inspect version.

import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { scoreInspectLog } from "../src/kinds/inspect/read.js";
import { readyZstd, zipBytes } from "../src/synth/zip.js";
import {
  codes,
  editJson,
  fixture,
  flagCodes,
  json,
  member,
  members,
  place,
  readFixture,
  scoreEval,
  scoreJson,
  warningCodes,
  type Member,
} from "./helpers/inspect.js";

const STREAMING = fixture("log_streaming.eval"); // 2 ids × 2 epochs: 1 → I, C; 2 → C, C; accuracy 0.75, stderr 0.25
const base = (): Member[] => members(STREAMING);
const POPULARITY = "2025-05-12T20-28-13-04-00_popularity.json"; // 3 samples C, C, I; cancelled; 0.3.95
const sampleOf = (ms: Member[], id: number, epoch: number) => `samples/${id}_epoch_${epoch}.json`;
const withVersion = (ms: Member[], v: string) =>
  editJson(ms, "header.json", (h) => void (h.eval.packages.inspect_ai = v));
const metric = (e: ReturnType<typeof scoreInspectLog>, key: string) => e.inspect!.metrics[key]!;

describe("the fixtures as they are", () => {
  it("log_streaming.eval rewritten member for member is valid, complete, its claims agreeing", () => {
    const { entry } = scoreEval(base());
    expect([entry.validity, entry.status, entry.state, codes(entry), warningCodes(entry)]).toEqual([
      "valid",
      "success",
      "complete",
      [],
      [],
    ]);
    expect(entry.samples).toMatchObject({ scored: 4, missing: 0 });
    expect(metric(entry, "match/-/accuracy")).toMatchObject({
      claimed: 0.75,
      check: "agrees",
      coverage: { scored: 4, planned: 4 },
    });
    expect(metric(entry, "match/-/stderr")).toMatchObject({ claimed: 0.25, check: "agrees" });
  });
  it("stored, zstd in one frame or several, and ZIP64 read the same", async () => {
    await readyZstd();
    const want = scoreEval(base()).entry;
    const strip = (e: typeof want) => ({ ...e, digest: "" });
    for (const [method, frames, zip64] of [
      [0, 1, false],
      [93, 1, false],
      [93, 3, false],
      [8, 1, true],
    ] as const) {
      const { entry } = scoreEval(
        base().map((m) => ({ ...m, method, frames })),
        { zip64 },
      );
      expect(strip(entry), `method ${method}, ${frames} frames, zip64 ${zip64}`).toEqual(strip(want));
    }
  });
});

describe("EVAL_CORRUPT", () => {
  it("a member whose CRC-32 is not its bytes' is invalid, named by its member", () => {
    const ms = base().map((m) => (m.name === sampleOf([], 1, 1) ? { ...m, crc: 0x12345678 } : m));
    const { entry } = scoreEval(ms);
    expect(entry.validity).toBe("invalid");
    expect(entry.errors.find((f) => f.code === "EVAL_CORRUPT")).toMatchObject({
      file: "samples/1_epoch_1.json",
      message: expect.stringMatching(/CRC-32/),
    });
  });
  it("a local header naming another member than the central directory", () => {
    const ms = base().map((m) => (m.name === "header.json" ? { ...m, localName: "headez.json" } : m));
    expect(codes(scoreEval(ms).entry)).toContain("EVAL_CORRUPT");
  });
  it("a member that does not inflate", () => {
    const file = place("garbled.eval", zipBytes(base()));
    const b = readFileSync(file);
    const at = b.indexOf(Buffer.from("samples/2_epoch_1.json")) + "samples/2_epoch_1.json".length;
    b.fill(0xff, at, at + 40); // the Deflate stream's first bytes
    writeFileSync(file, b);
    expect(scoreInspectLog(file, "eval").errors.find((f) => f.code === "EVAL_CORRUPT")?.message).toMatch(
      /does not inflate|CRC|inflates to/,
    );
  });
  it("a .eval that is no ZIP at all is listed, never skipped", () => {
    const e = scoreInspectLog(place("not-a-zip.eval", "this is not an archive\n"), "eval");
    expect([e.validity, codes(e)]).toEqual(["invalid", ["EVAL_CORRUPT"]]);
  });
});

describe("EVAL_TRUNCATED (a warning: the state is incomplete)", () => {
  it("no end of central directory: the intact members are read", () => {
    const { entry } = scoreEval(base(), { end: false });
    expect([entry.validity, entry.state, warningCodes(entry)]).toEqual(["valid", "incomplete", ["EVAL_TRUNCATED"]]);
    expect(entry.samples).toMatchObject({ scored: 4 });
  });
  it("a last member cut short is ignored; without header.json the log reads as started", () => {
    const ms = base().filter((m) => !["header.json", "summaries.json", "reductions.json"].includes(m.name));
    const whole = zipBytes(ms, { end: false });
    const e = scoreInspectLog(place("cut.eval", whole.subarray(0, whole.length - 20)), "eval");
    expect([e.validity, e.status, e.state, warningCodes(e)]).toEqual([
      "valid",
      "started",
      "incomplete",
      ["EVAL_TRUNCATED"],
    ]);
  });
  it("a torn .json log is truncated too, read as far as it goes", () => {
    const text = readFileSync(fixture(POPULARITY), "utf8");
    const e = scoreInspectLog(
      place("2025-05-12T20-28-13-04-00_torn.json", text.slice(0, text.indexOf('"id": 3') + 5)),
      "json",
    );
    expect([e.validity, e.state, warningCodes(e)]).toEqual(["valid", "incomplete", ["EVAL_TRUNCATED"]]);
    expect(e.samples).toMatchObject({ scored: 2, missing: 1 });
  });
  it("a writer killed before its first flush (an empty file) is cut short, not corrupt", () => {
    const e = scoreInspectLog(place("empty.eval", ""), "eval");
    expect([e.validity, e.status, e.state, codes(e), warningCodes(e)]).toEqual([
      "valid",
      "started",
      "incomplete",
      [],
      ["EVAL_TRUNCATED"],
    ]);
  });
  it("the other side: the same members with their directory are complete", () => {
    expect(scoreEval(base()).entry.state).toBe("complete");
  });
});

describe("MEMBER_DUPLICATE: the last entry of a name wins, as Inspect reads it", () => {
  it("a requeued sample's fresh record after the first", () => {
    const first = member(base(), "samples/1_epoch_1.json");
    const fresh = {
      ...first,
      data: Buffer.from(
        JSON.stringify({ ...json(first), scores: { match: { value: "C", answer: "Yes" } }, events: [] }),
      ),
    };
    const { entry } = scoreEval([...base(), fresh]);
    expect(warningCodes(entry)).toContain("MEMBER_DUPLICATE");
    // The last record (C) is read: the summaries (I) now disagree with it.
    expect(codes(entry)).toContain("SUMMARY_MISMATCH");
  });
  it("the other side: one entry per name", () => expect(warningCodes(scoreEval(base()).entry)).toEqual([]));
});

describe("EVAL_METHOD (a tool error)", () => {
  it("a member compressed with bzip2 (12) cannot be read by assay", () => {
    const file = place("bzip2.eval", zipBytes(base().map((m) => ({ ...m, method: 0 as const }))));
    const b = readFileSync(file);
    const name = Buffer.from("samples/2_epoch_2.json");
    for (let at = b.indexOf(name); at !== -1; at = b.indexOf(name, at + 1)) {
      if (b.readUInt32LE(at - 46) === 0x02014b50) b.writeUInt16LE(12, at - 46 + 10);
      if (b.readUInt32LE(at - 30) === 0x04034b50) b.writeUInt16LE(12, at - 30 + 8);
    }
    writeFileSync(file, b);
    const e = scoreInspectLog(file, "eval");
    expect([e.validity, codes(e)]).toEqual(["error", ["EVAL_METHOD"]]);
  });
});

describe("SAMPLE_DUPLICATE", () => {
  const pop = () => readFixture(POPULARITY);
  it("two records of one (id, epoch) in a .json log", () => {
    const log = pop();
    log.samples.push(log.samples[0]);
    expect(codes(scoreJson(log).entry)).toContain("SAMPLE_DUPLICATE");
  });
  it('ids compared as Inspect does: 1 and "1" are one', () => {
    const log = pop();
    log.samples.push({ ...log.samples[1], id: "1" });
    expect(codes(scoreJson(log).entry)).toContain("SAMPLE_DUPLICATE");
  });
  it("two differently named members of a .eval holding one (id, epoch)", () => {
    const copy = { ...member(base(), "samples/2_epoch_2.json"), name: "samples/2b_epoch_2.json" };
    expect(codes(scoreEval([...base(), copy]).entry)).toContain("SAMPLE_DUPLICATE");
  });
  it("the other side: distinct records", () => expect(codes(scoreJson(pop()).entry)).toEqual([]));
});

describe("START_HEADER_MISMATCH", () => {
  it("header.json names another model than _journal/start.json", () => {
    const { entry } = scoreEval(editJson(base(), "header.json", (h) => void (h.eval.model = "openai/gpt-4o")));
    expect(entry.errors.find((f) => f.code === "START_HEADER_MISMATCH")).toMatchObject({
      file: "header.json",
      message: expect.stringMatching(/eval\.model/),
    });
  });
  it("the other side: a header-only edit outside identity (tags) is no finding", () => {
    expect(codes(scoreEval(editJson(base(), "header.json", (h) => void (h.tags = ["reviewed"]))).entry)).toEqual([]);
  });
});

describe("SUMMARY_MISMATCH", () => {
  it("summaries.json says another score than the sample", () => {
    const ms = editJson(
      base(),
      "summaries.json",
      (s) => void (s.find((x: any) => x.id === 1 && x.epoch === 1).scores.match.value = "C"),
    );
    expect(scoreEval(ms).entry.errors.find((f) => f.code === "SUMMARY_MISMATCH")).toMatchObject({
      file: "summaries.json",
      message: expect.stringMatching(/score match/),
    });
  });
  it("summaries.json misses a sample, or names one without a record", () => {
    expect(codes(scoreEval(editJson(base(), "summaries.json", (s) => s.slice(1))).entry)).toContain("SUMMARY_MISMATCH");
    expect(codes(scoreEval(editJson(base(), "summaries.json", (s) => [...s, { ...s[0], id: 9 }])).entry)).toContain(
      "SUMMARY_MISMATCH",
    );
  });
  it("without summaries.json, journal summaries are compared for the samples they name only", () => {
    const noFinal = base().filter((m) => m.name !== "summaries.json");
    expect(codes(scoreEval(editJson(noFinal, "_journal/summaries/1.json", (s) => s.slice(0, 2))).entry)).toEqual([]);
    expect(
      codes(
        scoreEval(editJson(noFinal, "_journal/summaries/1.json", (s) => void (s[0].scores.match.value = "I"))).entry,
      ),
    ).toContain("SUMMARY_MISMATCH");
  });
  it("error presence, limit and retries are compared too", () => {
    const ms = editJson(base(), "summaries.json", (s) => {
      s[0].error = "RuntimeError('x')";
      s[1].limit = "token";
      s[2].retries = 2;
    });
    expect(
      scoreEval(ms)
        .entry.errors.filter((f) => f.code === "SUMMARY_MISMATCH")
        .map((f) => f.message)
        .join("\n"),
    ).toMatch(/error present[\s\S]*limit token[\s\S]*retries 2/);
  });
});

describe("REDUCTION_MISMATCH", () => {
  it("a reduced value that is not the mean of its sample's epochs", () => {
    const ms = editJson(base(), "reductions.json", (r) => void (r[0].samples[0].value = 0.25));
    expect(scoreEval(ms).entry.errors.find((f) => f.code === "REDUCTION_MISMATCH")).toMatchObject({
      file: "reductions.json",
      message: expect.stringMatching(/sample "1".*0\.25 reduced, 0\.5 from its 2 epoch scores/),
    });
  });
  it("a sample reduced without records, or records without a reduction", () => {
    expect(codes(scoreEval(editJson(base(), "reductions.json", (r) => void r[0].samples.pop())).entry)).toContain(
      "REDUCTION_MISMATCH",
    );
  });
  it("other reducers are recomputed too (max), and unknown ones are never a mismatch", () => {
    expect(codes(scoreEval(editJson(base(), "reductions.json", (r) => void (r[0].reducer = "max"))).entry)).toContain(
      "REDUCTION_MISMATCH",
    ); // max(I, C) = 1 ≠ 0.5
    expect(
      codes(
        scoreEval(
          editJson(base(), "reductions.json", (r) => {
            r[0].reducer = "max";
            r[0].samples[0].value = 1;
          }),
        ).entry,
      ),
    ).toEqual([]);
    expect(
      codes(
        scoreEval(
          editJson(base(), "reductions.json", (r) => {
            r[0].reducer = "my_reducer";
            r[0].samples[0].value = 7;
          }),
        ).entry,
      ),
    ).toEqual([]);
  });
});

describe("METRIC_MISMATCH (relative tolerance 1e-9)", () => {
  const claim = (v: number) =>
    scoreEval(editJson(base(), "header.json", (h) => void (h.results.scores[0].metrics.accuracy.value = v))).entry;
  it("a claimed accuracy Inspect's rules do not give", () => {
    const e = claim(0.8);
    expect(e.errors.find((f) => f.code === "METRIC_MISMATCH")).toMatchObject({
      file: "header.json",
      message: expect.stringMatching(/accuracy.*claimed 0\.8.*0\.75/),
    });
    expect(metric(e, "match/-/accuracy")).toMatchObject({ check: "mismatch", claimed: 0.8 });
  });
  it("the other side: within 1e-9 relative it agrees; a NaN claim agrees only with nothing scored", () => {
    expect(codes(claim(0.75 * (1 + 5e-10)))).toEqual([]);
    expect(codes(claim(0.75 * (1 + 5e-9)))).toEqual(["METRIC_MISMATCH"]);
    const nan = base().map((m) =>
      m.name === "header.json"
        ? { ...m, data: Buffer.from(m.data.toString().replace('"value": 0.75', '"value": NaN')) }
        : m,
    );
    expect(metric(scoreEval(nan).entry, "match/-/accuracy")).toMatchObject({ claimed: "NaN", check: "mismatch" });
  });
  it("a custom metric is listed unverified, never as agreeing", () => {
    const ms = editJson(
      base(),
      "header.json",
      (h) => void (h.results.scores[0].metrics.my_metric = { name: "my_metric", value: 0.3, params: {} }),
    );
    expect(metric(scoreEval(ms).entry, "match/-/my_metric")).toMatchObject({ check: "unverified", claimed: 0.3 });
  });
});

describe("COUNT_MISMATCH", () => {
  it("scored_samples that a recount of the reduced values does not give", () => {
    const ms = editJson(base(), "header.json", (h) => void (h.results.scores[0].scored_samples = 4));
    expect(scoreEval(ms).entry.errors.find((f) => f.code === "COUNT_MISMATCH")?.message).toMatch(
      /scored_samples: claimed 4, a recount gives 2/,
    );
    expect(
      codes(scoreEval(editJson(base(), "header.json", (h) => void (h.results.scores[0].scored_samples = 2))).entry),
    ).toEqual([]);
  });
  it("completed_samples is checked from 0.3.252 only (earlier it counted scores, #4602)", () => {
    const wrong = editJson(base(), "header.json", (h) => void (h.results.completed_samples = 3));
    expect(codes(scoreEval(withVersion(wrong, "0.3.252")).entry)).toEqual(["COUNT_MISMATCH"]);
    expect(codes(scoreEval(withVersion(wrong, "0.3.251")).entry)).toEqual([]);
    expect(codes(scoreEval(withVersion(base(), "0.3.252")).entry)).toEqual([]);
  });
});

describe("SCORE_EVENT_MISMATCH", () => {
  const flip = (ms: Member[], extra: (s: any) => void = () => {}) =>
    editJson(ms, "samples/1_epoch_1.json", (s) => {
      s.scores.match.value = "C";
      extra(s);
    });
  it("a score its last final score event does not give, with nothing to explain it", () => {
    const e = scoreEval(flip(base())).entry;
    expect(e.errors.find((f) => f.code === "SCORE_EVENT_MISMATCH")).toMatchObject({ file: "samples/1_epoch_1.json" });
  });
  it("the other side: an edit in the score's history explains it (flag SCORE_EDITED, with its provenance)", () => {
    const edited = flip(
      base(),
      (s) =>
        (s.scores.match.history = [
          { value: "I", provenance: { author: "ana", reason: "regraded", timestamp: "2025-01-01T00:00:00+00:00" } },
        ]),
    );
    const withSummary = editJson(
      editJson(
        edited,
        "summaries.json",
        (s) => void (s.find((x: any) => x.id === 1 && x.epoch === 1).scores.match.value = "C"),
      ),
      "_journal/summaries/1.json",
      (s) => void (s.find((x: any) => x.id === 1 && x.epoch === 1).scores.match.value = "C"),
    );
    const e = scoreEval(withSummary).entry;
    expect(codes(e)).not.toContain("SCORE_EVENT_MISMATCH");
    expect(e.flags.find((f) => f.code === "SCORE_EDITED")?.evidence).toMatch(/author ana.*reason regraded/);
  });
});

describe("TIMING, NOT_FINITE, SCHEMA, JSON rules on a record", () => {
  const edit = (f: (s: any) => void) => scoreEval(editJson(base(), "samples/2_epoch_1.json", f)).entry;
  it("started_at after completed_at is TIMING; in order it is none", () => {
    expect(
      codes(
        edit((s) =>
          Object.assign(s, { started_at: "2024-11-05T20:05:00+00:00", completed_at: "2024-11-05T20:04:00+00:00" }),
        ),
      ),
    ).toContain("TIMING");
    expect(
      codes(
        edit((s) =>
          Object.assign(s, { started_at: "2024-11-05T20:04:00+00:00", completed_at: "2024-11-05T20:05:00+00:00" }),
        ),
      ),
    ).toEqual([]);
  });
  it("±Infinity in a score is NOT_FINITE; NaN is Inspect's unscored sentinel", () => {
    const text = (v: string) => {
      const ms = base().map((m) =>
        m.name === "samples/2_epoch_1.json"
          ? { ...m, data: Buffer.from(m.data.toString().replace('"value": "C"', `"value": ${v}`)) }
          : m,
      );
      return scoreEval(ms).entry;
    };
    expect(codes(text("Infinity"))).toContain("NOT_FINITE");
    expect(codes(text("1e999"))).toContain("NOT_FINITE");
    const nan = text("NaN");
    expect(codes(nan)).not.toContain("NOT_FINITE");
    expect(nan.samples).toMatchObject({ scored: 3, unscored: 1 });
  });
  it("SCHEMA: an epoch below 1, an id that is neither integer nor string, a score value outside Value", () => {
    expect(codes(edit((s) => void (s.epoch = 0)))).toContain("SCHEMA");
    expect(codes(edit((s) => void (s.id = 1.5)))).toContain("SCHEMA");
    expect(codes(edit((s) => void (s.scores.match.value = [1, null])))).toContain("SCHEMA");
    expect(codes(edit((s) => void (s.scores.match.value = { a: 1, b: null })))).not.toContain("SCHEMA");
  });
  it("a repeated key, or a byte order mark, in a member", () => {
    const dup = base().map((m) =>
      m.name === "samples/2_epoch_1.json"
        ? { ...m, data: Buffer.from(m.data.toString().replace('"epoch": 1,', '"epoch": 1, "epoch": 1,')) }
        : m,
    );
    expect(codes(scoreEval(dup).entry)).toContain("JSON_DUPLICATE_KEY");
    const bom = base().map((m) =>
      m.name === "header.json" ? { ...m, data: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), m.data]) } : m,
    );
    expect(codes(scoreEval(bom).entry)).toContain("ENCODING");
  });
});

describe("warnings", () => {
  it("PLAN_MISMATCH: results.total_samples against sample_ids × epochs, both shown; the plan decides", () => {
    const e = scoreEval(editJson(base(), "header.json", (h) => void (h.results.total_samples = 3))).entry;
    expect([e.validity, warningCodes(e)]).toEqual(["valid", ["PLAN_MISMATCH"]]);
    expect(e.warnings[0]!.message).toMatch(/total_samples is 3.*2 × 2 = 4/);
    expect(warningCodes(scoreEval(base()).entry)).toEqual([]);
  });
  it('VALUE_UNCONVERTIBLE: "c" reaches value_to_float\'s fallback (0); "C" does not', () => {
    const lower = (v: string) =>
      base().map((m) =>
        m.name.startsWith("samples/") || m.name.includes("summaries")
          ? { ...m, data: Buffer.from(m.data.toString().replaceAll('"value": "I"', `"value": "${v}"`)) }
          : m,
      );
    const e = scoreEval(lower("c")).entry;
    expect(e.warnings.find((f) => f.code === "VALUE_UNCONVERTIBLE")).toMatchObject({ file: "samples/1_epoch_1.json" });
    expect(warningCodes(scoreEval(lower("I")).entry)).toEqual([]);
  });
});

describe("flags", () => {
  it("SAMPLE_LIMIT and RETRIED name their samples; they change no state", () => {
    const ms = editJson(base(), "samples/2_epoch_1.json", (s) =>
      Object.assign(s, { limit: { type: "token", limit: 100 }, error_retries: [{ message: "boom" }] }),
    );
    const limited = (s: any) => void (s.find((x: any) => x.id === 2 && x.epoch === 1).limit = "token");
    const fixed = editJson(editJson(ms, "summaries.json", limited), "_journal/summaries/1.json", limited);
    const e = scoreEval(fixed).entry;
    expect([e.validity, flagCodes(e)]).toEqual(["valid", ["RETRIED", "SAMPLE_LIMIT"]]);
    expect(e.flags.find((f) => f.code === "SAMPLE_LIMIT")!.evidence).toMatch(/samples\/2_epoch_1\.json \(token\)/);
    expect(e.samples).toMatchObject({ scored: 4 });
  });
  it("RESCORED: an appended scorer (name-1) beside the original", () => {
    const ms = editJson(
      base(),
      "header.json",
      (h) => void h.results.scores.push({ ...h.results.scores[0], name: "match-1", scorer: "match-1", metrics: {} }),
    );
    expect(flagCodes(scoreEval(ms).entry)).toEqual(["RESCORED"]);
    expect(flagCodes(scoreEval(base()).entry)).toEqual([]);
  });
  it("NO_SAMPLE_EVIDENCE: metrics with no sample behind them are unverified, their value null even under --errors zero", () => {
    const e = scoreInspectLog(fixture("2025-05-12T20-28-13-04-00_no-samples.json"), "json");
    expect([e.validity, flagCodes(e)]).toEqual(["valid", ["NO_SAMPLE_EVIDENCE"]]);
    expect(metric(e, "match/-/accuracy")).toMatchObject({
      check: "unverified",
      exclude: { value: null },
      zero: { value: null },
      coverage: { scored: 0, planned: 3 },
    });
    expect(e.samples).toMatchObject({ missing: 3 });
  });
  it("SAMPLE_UNPLANNED: a record outside sample_ids × epochs counts in the states and the claim, never in assay's value", () => {
    const extra = { ...member(base(), "samples/2_epoch_2.json"), name: "samples/2_epoch_3.json" };
    const ms = [
      ...editJson(base(), "samples/2_epoch_2.json", (s) => s),
      {
        ...extra,
        data: Buffer.from(JSON.stringify({ ...json(extra), epoch: 3, scores: { match: { value: "I" } }, events: [] })),
      },
    ];
    const e = scoreEval(ms).entry;
    expect(flagCodes(e)).toEqual(["SAMPLE_UNPLANNED"]);
    expect(e.samples).toMatchObject({ scored: 5 });
    expect(metric(e, "match/-/accuracy").exclude.value).toBe(0.75); // the planned records only
  });
});

describe("LOG_VERSION (a tool error)", () => {
  it("version 4 (log_version_3.txt claims 4) cannot be read; 3 can", () => {
    const e = scoreInspectLog(fixture("log_version_3.txt"), "json");
    expect([e.validity, codes(e)]).toEqual(["error", ["LOG_VERSION"]]);
    expect(
      scoreEval(
        editJson(
          editJson(base(), "header.json", (h) => void (h.version = 3)),
          "_journal/start.json",
          (s) => void (s.version = 3),
        ),
      ).entry.validity,
    ).toBe("valid");
  });
});

describe("sample states, never a silent 0", () => {
  const pop = () => readFixture(POPULARITY);
  it("error, cancelled, scored-with-error, unscored, invalidated, missing and early-stopped", () => {
    const log = pop();
    log.eval.dataset.sample_ids = [1, 2, 3, 4, 5, 6, 7];
    const [a, b, c] = log.samples;
    log.samples = [
      { ...a, error: { message: "RuntimeError('boom')" }, scores: {} },
      { ...b, error: { message: "CancelledError()" }, scores: {} },
      { ...c, error: { message: "RuntimeError('late')" } },
      { ...a, id: 4, scores: { match: { value: Number.NaN } } },
      { ...a, id: 5, invalidation: { author: "x", reason: "leak" } },
    ];
    log.results.early_stopping = { manager: "m", early_stops: [{ id: 7, epoch: 1, reason: "enough" }] };
    const text = JSON.stringify(log).replace('"value":null', '"value":NaN');
    const e = scoreJson(text).entry;
    expect(e.samples).toEqual({
      scored: 0,
      "scored-with-error": 1,
      error: 1,
      cancelled: 1,
      unscored: 1,
      invalidated: 1,
      missing: 1,
      "early-stopped": 1,
    });
    const m = metric(e, "match/-/accuracy");
    expect(m.coverage).toEqual({ scored: 1, planned: 7 });
    expect(m.exclude).toMatchObject({ value: 0, n: 1 }); // c is I
    expect(m.zero).toMatchObject({ value: 0, n: 6 }); // every planned record but the early-stopped one, as 0
  });
});

describe("the writer's version decides how the claim is re-derived", () => {
  it("an errored sample with a score counts in Inspect's metrics from 0.3.247 only", () => {
    const log = readFixture(POPULARITY);
    log.samples[2].error = { message: "RuntimeError('after scoring')" }; // I, scored, then an error
    log.results.scores[0].metrics.accuracy.value = 2 / 3; // C, C, I
    log.results.scores[0].metrics.stderr.value = 1 / 3;
    log.eval.packages.inspect_ai = "0.3.247";
    expect(codes(scoreJson(log).entry)).toEqual([]);
    log.eval.packages.inspect_ai = "0.3.246";
    // Inspect then left it out (2/2), and reduced it to nothing: the log's figures and reductions are not its writer's
    expect(codes(scoreJson(log).entry)).toEqual(["METRIC_MISMATCH", "REDUCTION_MISMATCH"]);
    // assay's own value counts it whatever the version
    expect(metric(scoreJson(log).entry, "match/-/accuracy").exclude.value).toBeCloseTo(2 / 3, 12);
  });
});
