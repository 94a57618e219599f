// Issue 35 §2 for Inspect logs: what a cut, deleted or unreadable member or file may switch off.
// Each rule on both sides of its line, from the real log_streaming.eval (2 ids × 2 epochs: 1 → I,
// C; 2 → C, C; accuracy 0.75) changed by minimal edits: the attack (a lie the file, present,
// catches) must come out no better than the honest log; the honest cut or partial log keeps its
// honest reading.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import type { Results } from "../src/core/results.js";
import { scoreInspectLog } from "../src/kinds/inspect/read.js";
import { scoreRoots } from "../src/pipeline/score.js";
import { inspectFileName, inspectLogBytes, type InspectSpec } from "../src/synth/inspect.js";
import {
  codes,
  editJson,
  fixture,
  members,
  place,
  scoreEval,
  scratch,
  warningCodes,
  type Member,
} from "./helpers/inspect.js";

const base = (): Member[] => members(fixture("log_streaming.eval"));
const FINAL = ["summaries.json", "reductions.json", "header.json"];
const accuracy = (e: ReturnType<typeof scoreInspectLog>) =>
  e.inspect!.metrics["match/-/accuracy"] ?? e.inspect!.metrics["match/mean/accuracy"]!;
/** What the run's default (--errors exclude) shows of a log: its value, coverage and check. */
const shown = (e: ReturnType<typeof scoreInspectLog>) => ({
  value: accuracy(e).exclude.value,
  scored: accuracy(e).coverage.scored,
  check: accuracy(e).check,
});

/** Sample 1 epoch 1 (I) turned C everywhere a sample's copy is (the record, its score event, both summaries): only the claims and reductions still say I. */
function flipped(ms: Member[]): Member[] {
  const toC = (list: any[]) => list.forEach((s) => s.id === 1 && s.epoch === 1 && (s.scores.match.value = "C"));
  let out = editJson(ms, "samples/1_epoch_1.json", (s) => {
    s.scores.match.value = "C";
    for (const e of s.events) if (e.event === "score") e.score.value = "C";
  });
  out = editJson(out, "summaries.json", toC);
  return editJson(out, "_journal/summaries/1.json", toC);
}

describe("#3: a .eval without its central directory is checked by the members read intact", () => {
  it("attack: a claim the samples contradict stays METRIC_MISMATCH when only the directory is cut", () => {
    const whole = scoreEval(flipped(base())).entry;
    expect([whole.validity, codes(whole)]).toEqual(["invalid", ["METRIC_MISMATCH", "REDUCTION_MISMATCH"]]);
    const cut = scoreEval(flipped(base()), { end: false }).entry;
    expect([cut.validity, codes(cut), warningCodes(cut)]).toEqual([
      "invalid",
      ["METRIC_MISMATCH", "REDUCTION_MISMATCH"],
      ["EVAL_TRUNCATED"],
    ]);
  });
  it("attack: reductions that contradict the samples stay REDUCTION_MISMATCH", () => {
    const ms = editJson(base(), "reductions.json", (r) => void (r[0].samples[0].value = 1));
    expect(codes(scoreEval(ms, { end: false }).entry)).toEqual(["REDUCTION_MISMATCH"]);
  });
  it("attack: completed_samples is still recounted", () => {
    const ms = editJson(base(), "header.json", (h) => {
      h.eval.packages.inspect_ai = "0.3.260";
      h.results.completed_samples = 3;
    });
    expect(codes(scoreEval(ms, { end: false }).entry)).toContain("COUNT_MISMATCH");
  });
  it("honest: the same log with only its directory cut keeps its reading, claims checked", () => {
    const e = scoreEval(base(), { end: false }).entry;
    expect([e.validity, e.status, e.state, codes(e), warningCodes(e)]).toEqual([
      "valid",
      "success",
      "incomplete",
      [],
      ["EVAL_TRUNCATED"],
    ]);
    expect(shown(e)).toEqual({ value: 0.75, scored: 4, check: "agrees" });
  });
  it("a sample placed after header.json and cut is named by summaries.json: no credit", () => {
    const ms = base();
    const moved = [
      ...ms.filter((m) => m.name !== "samples/1_epoch_1.json"),
      ms.find((m) => m.name === "samples/1_epoch_1.json")!,
    ];
    const bytes = scoreEval(moved, { end: false }).file;
    const cut = readFileSync(bytes).subarray(0, readFileSync(bytes).length - 200);
    const e = scoreInspectLog(place("moved-cut.eval", cut), "eval");
    expect(e.validity).toBe("invalid");
    expect(codes(e)).toContain("SUMMARY_MISMATCH");
  });
});

describe("#6: an unfinished log credits only the records a summary confirms, at its planned denominator", () => {
  // A killed writer's members; its start record declares the scorer (this 0.3.42 log's does not), so it has metrics.
  const SCORERS = [
    { name: "match", options: {}, metrics: [{ name: "inspect_ai/accuracy", options: {} }], metadata: {} },
  ];
  const killed = (ms: Member[]) =>
    editJson(
      ms.filter((m) => !FINAL.includes(m.name)),
      "_journal/start.json",
      (s) => void (s.eval.scorers = SCORERS),
    );
  it("attack: a record edited in a log cut before its journal summary earns nothing", () => {
    const whole = scoreEval(
      killed(
        flipped(base()).map((m) =>
          m.name === "_journal/summaries/1.json" ? base().find((b) => b.name === m.name)! : m,
        ),
      ),
    ).entry;
    expect(codes(whole)).toEqual(["SUMMARY_MISMATCH"]); // present, the journal catches it
    const cut = scoreEval(
      killed(flipped(base())).filter((m) => !m.name.startsWith("_journal/summaries/")),
      { end: false },
    ).entry;
    expect([cut.validity, cut.status, warningCodes(cut)]).toEqual(["valid", "started", ["EVAL_TRUNCATED"]]);
    expect(shown(cut)).toEqual({ value: 0, scored: 0, check: "unverified" }); // was 1.000
  });
  it("attack: a failing record dropped before the cut counts 0, as the honest log's zero figure", () => {
    const ms = killed(base()).filter((m) => m.name !== "samples/1_epoch_1.json");
    const e = scoreEval(
      editJson(ms, "_journal/summaries/1.json", (l) => l.filter((s: any) => !(s.id === 1 && s.epoch === 1))),
      { end: false },
    ).entry;
    expect(e.samples).toMatchObject({ scored: 3, missing: 1 });
    expect(shown(e)).toEqual({ value: 0.75, scored: 3, check: "unverified" }); // was 1.000 (sample 1: mean(0, C))
  });
  it("honest: a killed log whose journal names every record keeps its reading", () => {
    const e = scoreEval(killed(base()), { end: false }).entry;
    expect([e.validity, e.status, codes(e)]).toEqual(["valid", "started", []]);
    expect(shown(e)).toEqual({ value: 0.75, scored: 4, check: "unverified" });
    expect(accuracy(e).values).toEqual({ exclude: [0.5, 1], zero: [0.5, 1] });
  });
  it("honest: a record flushed after the last journal summary counts 0 (it cannot be told from one put there)", () => {
    const ms = editJson(killed(base()), "_journal/summaries/1.json", (l) =>
      l.filter((s: any) => !(s.id === 2 && s.epoch === 2)),
    );
    const e = scoreEval(ms).entry;
    expect(e.samples).toMatchObject({ scored: 4 });
    expect(shown(e)).toEqual({ value: 0.5, scored: 3, check: "unverified" }); // sample 2: mean(C, 0)
  });
  it("a torn .json log has no summary to confirm a record: it earns nothing", () => {
    const text = readFileSync(fixture("2025-05-12T20-28-13-04-00_popularity.json"), "utf8");
    const e = scoreInspectLog(
      place("2025-05-12T20-28-13-04-00_torn.json", text.slice(0, text.indexOf('"id": 3') + 5)),
      "json",
    );
    expect(e.samples).toMatchObject({ scored: 2, missing: 1 });
    expect(shown(e)).toMatchObject({ value: 0, scored: 0 }); // was 1.000 over the two read (whole: 0.667)
  });
  it("the other side: a finished log is read as before (errors left out of the default figure)", () => {
    const e = scoreInspectLog(fixture("2025-05-12T20-28-13-04-00_popularity.json"), "json");
    expect(accuracy(e).exclude.value).toBeCloseTo(2 / 3, 12);
  });
});

describe("#8: a .eval that reached its finish but holds no header.json", () => {
  const headerless = (ms: Member[]) => ms.filter((m) => m.name !== "header.json");
  it("attack: header.json removed (directory rebuilt) beside summaries.json and reductions.json is EVAL_CORRUPT", () => {
    const whole = scoreEval(flipped(base())).entry;
    expect(whole.validity).toBe("invalid"); // present, its claims catch the edit
    const e = scoreEval(headerless(flipped(base()))).entry;
    expect([e.validity, codes(e)]).toEqual(["invalid", ["EVAL_CORRUPT", "REDUCTION_MISMATCH"]]); // was valid, no finding, 1.000
    expect(e.errors.find((f) => f.code === "EVAL_CORRUPT")).toMatchObject({
      file: "header.json",
      message: expect.stringMatching(/the header was removed/),
    });
    expect(codes(scoreEval(headerless(base())).entry)).toEqual(["EVAL_CORRUPT"]); // unedited, the removal alone
  });
  it("attack: header.json removed and the directory cut: unfinished, and no record earns credit", () => {
    const ms = editJson(
      headerless(flipped(base())),
      "_journal/start.json",
      (s) =>
        void (s.eval.scorers = [
          { name: "match", options: {}, metrics: [{ name: "inspect_ai/accuracy", options: {} }], metadata: {} },
        ]),
    );
    const e = scoreEval(ms, { end: false }).entry;
    expect([e.validity, e.status, warningCodes(e)]).toEqual(["valid", "started", ["EVAL_TRUNCATED"]]);
    expect(shown(e)).toMatchObject({ value: 0, scored: 0 });
  });
  it("honest: a killed log (no summaries.json, reductions.json or header.json) is no finding", () => {
    const e = scoreEval(base().filter((m) => !FINAL.includes(m.name))).entry;
    expect([e.validity, e.status, codes(e)]).toEqual(["valid", "started", []]);
  });
});

describe("#7: a finished .eval with no summary of its samples at all", () => {
  it("attack: summaries.json and the journal summaries removed is SUMMARY_MISMATCH", () => {
    const whole = scoreEval(editJson(base(), "summaries.json", (l) => void (l[0].scores.match.value = "I"))).entry;
    expect(codes(whole)).toEqual(["SUMMARY_MISMATCH"]);
    const e = scoreEval(
      base().filter((m) => m.name !== "summaries.json" && !m.name.startsWith("_journal/summaries/")),
    ).entry;
    expect([e.validity, codes(e)]).toEqual(["invalid", ["SUMMARY_MISMATCH"]]); // was valid, no finding
    expect(e.errors[0]!.message).toMatch(/absent, and no journal summary either/);
  });
  it("honest: summaries.json alone, or the journal alone, is no finding", () => {
    expect(codes(scoreEval(base().filter((m) => !m.name.startsWith("_journal/summaries/"))).entry)).toEqual([]);
    expect(codes(scoreEval(base().filter((m) => m.name !== "summaries.json")).entry)).toEqual([]);
  });
});

describe("#9: a finished, scored log without reductions", () => {
  const withVersion = (ms: Member[], v: string) =>
    editJson(ms, "header.json", (h) => void (h.eval.packages.inspect_ai = v));
  it("attack: reductions.json removed is REDUCTION_MISMATCH", () => {
    const e = scoreEval(base().filter((m) => m.name !== "reductions.json")).entry;
    expect([e.validity, codes(e)]).toEqual(["invalid", ["REDUCTION_MISMATCH"]]); // was valid, no finding
    expect(e.errors[0]).toMatchObject({
      file: "reductions.json",
      message: expect.stringMatching(/absent, while results holds scores over 4 scored sample records/),
    });
  });
  it("a .json log is not held to it (not every real one is known to carry reductions)", () => {
    const log = JSON.parse(readFileSync(fixture("2025-05-12T20-28-13-04-00_popularity.json"), "utf8"));
    delete log.reductions;
    delete log.results.sample_reductions;
    expect(codes(scoreInspectLog(place("2025-05-12T20-28-13-04-00_nored.json", JSON.stringify(log)), "json"))).toEqual(
      [],
    );
  });
  it("honest: a log written before reductions existed (0.3.22), and a run with nothing scored (the real log_tool_call_error.json), are no finding", () => {
    expect(
      codes(
        scoreEval(
          withVersion(
            base().filter((m) => m.name !== "reductions.json"),
            "0.3.22",
          ),
        ).entry,
      ),
    ).toEqual([]);
    expect(codes(scoreInspectLog(fixture("log_tool_call_error.json"), "json"))).not.toContain("REDUCTION_MISMATCH");
  });
});

describe("#10: a .eval with header.json but no _journal/start.json", () => {
  it("attack: start.json removed is START_HEADER_MISMATCH", () => {
    const edited = editJson(base(), "header.json", (h) => void (h.eval.task_id = "movedMOVEDmovedMOVED22"));
    expect(codes(scoreEval(edited).entry)).toEqual(["START_HEADER_MISMATCH"]); // present, the start record catches it
    const e = scoreEval(edited.filter((m) => m.name !== "_journal/start.json")).entry;
    expect([e.validity, codes(e)]).toEqual(["invalid", ["START_HEADER_MISMATCH"]]); // was valid, in another chain
    expect(e.errors[0]).toMatchObject({ file: "_journal/start.json", message: expect.stringMatching(/^absent/) });
  });
  it("honest: a .json log has no start record, and is no finding", () => {
    expect(codes(scoreInspectLog(fixture("2025-05-12T20-28-13-04-00_popularity.json"), "json"))).toEqual([]);
  });
});

describe("#12: a scored sample whose transcript holds no final score event of its scorer", () => {
  const ONE = "samples/1_epoch_1.json";
  /** Sample 1 epoch 1 turned C in the record and both summaries, with its score event edited by `events`. */
  const edited = (events: (list: any[]) => any[]) => {
    const ms = flipped(base());
    return editJson(ms, ONE, (s) => void (s.events = events(s.events)));
  };
  it("attack: the score event removed is SCORE_EVENT_MISMATCH, as the event saying I is", () => {
    const kept = scoreEval(
      editJson(
        flipped(base()),
        ONE,
        (s) => void s.events.filter((e: any) => e.event === "score").forEach((e: any) => (e.score.value = "I")),
      ),
    ).entry;
    expect(codes(kept)).toContain("SCORE_EVENT_MISMATCH");
    const e = scoreEval(edited((l) => l.filter((x) => x.event !== "score"))).entry;
    expect(codes(e)).toContain("SCORE_EVENT_MISMATCH"); // was caught only by the claims (and not at all once they were edited too)
    expect(e.errors.find((f) => f.code === "SCORE_EVENT_MISMATCH")).toMatchObject({
      file: ONE,
      message: expect.stringMatching(/hold no final score event of it/),
    });
  });
  it("honest: a sample with no transcript at all, or an unscored (NaN) score, is not compared", () => {
    const noEvents = editJson(base(), ONE, (s) => void (s.events = []));
    expect(codes(scoreEval(noEvents).entry)).toEqual([]);
    const nan = editJson(base(), ONE, (s) => {
      s.scores.match.value = "NaN";
      s.events = s.events.filter((x: any) => x.event !== "score");
    });
    const bare = nan.map((m) =>
      m.name === ONE ? { ...m, data: Buffer.from(m.data.toString("utf8").replace('"value":"NaN"', '"value":NaN')) } : m,
    ); // Inspect's bare token
    expect(scoreEval(bare).entry.errors.filter((f) => f.code === "SCORE_EVENT_MISMATCH")).toEqual([]);
  });
  it("attack, in the chunked layout: the score event removed from the event chunks", () => {
    /** Sample 1 epoch 1 as convert-chunked writes it: its shell, then its events two a chunk. */
    const chunked = (ms: Member[]) =>
      ms.flatMap((m) => {
        if (m.name !== ONE) return [m];
        const { events, ...shell } = JSON.parse(m.data.toString("utf8"));
        const part = (name: string, v: unknown): Member => ({
          name: `samples/1_epoch_1/${name}`,
          data: Buffer.from(JSON.stringify(v)),
          method: 8,
        });
        return [
          part("sample.json", shell),
          ...Array.from({ length: Math.ceil(events.length / 2) }, (_, i) =>
            part(`events/${2 * i}.json`, events.slice(2 * i, 2 * i + 2)),
          ),
        ];
      });
    expect(codes(scoreEval(chunked(base())).entry)).toEqual([]); // honest, chunked
    expect(codes(scoreEval(chunked(edited((l) => l.filter((x) => x.event !== "score")))).entry)).toContain(
      "SCORE_EVENT_MISMATCH",
    );
  });
  it("honest: an edit explains a score with no event", () => {
    const ms = editJson(base(), ONE, (s) => {
      s.events = s.events.filter((x: any) => x.event !== "score");
      s.events.push({
        event: "score_edit",
        score_name: "match",
        edit: { value: "I", provenance: { author: "reviewer", reason: "re-graded" } },
      });
    });
    expect(scoreEval(ms).entry.errors.filter((f) => f.code === "SCORE_EVENT_MISMATCH")).toEqual([]);
  });
});

// Retry chains through the real pipeline (workers, experiments): two successes of one task run,
// A (older) and B (newer, which decides), each a synthesised log of ten samples.
const TASK_ID = "CHAINchainCHAINchain22";
const spec = (over: Partial<InspectSpec>): InspectSpec => ({
  task: "arith",
  model: "m/x",
  case: "clean",
  samples: 10,
  epochs: 1,
  format: "eval",
  method: 8,
  seed: "a",
  offset: 0,
  taskId: TASK_ID,
  ...over,
});
const A = spec({ seed: "a", offset: 0 });
const B = spec({ case: "retried-success", seed: "b", offset: 60 }); // another run_id: not one run written twice
let serial = 0;
/** A folder holding the given logs (by their spec's Inspect name, or a name and bytes). */
function folder(logs: (InspectSpec | [string, Uint8Array | string])[]): string {
  const dir = join(scratch(), `chain-${++serial}`);
  mkdirSync(dir, { recursive: true });
  for (const l of logs)
    Array.isArray(l)
      ? writeFileSync(join(dir, l[0]), l[1])
      : writeFileSync(join(dir, inspectFileName(l)), inspectLogBytes(l));
  return dir;
}
const run = async (dir: string) => (await scoreRoots([dir], { schedules: [], ...DEFAULT_BATCH, jobs: 1 })) as Results;
const arith = (doc: Results) => doc.experiments.find((e) => e.experiment === "arith (m/x)")!;
const value = (doc: Results) => arith(doc).inspect!["match/mean/accuracy"]!.value;
const flagsOf = (doc: Results) =>
  arith(doc).flags.map((f) => [
    f.code,
    f.trial.endsWith(inspectFileName(B)) ? "B" : f.trial.endsWith(inspectFileName(A)) ? "A" : f.trial.slice(-12),
  ]);
/** B's bytes cut inside its header.json (the last member Inspect writes). */
const cutInHeader = (s: InspectSpec) => {
  const b = inspectLogBytes(s);
  return b.subarray(0, b.indexOf(Buffer.from("header.json")) + 40); // its local entry (the directory names it again)
};

describe("#4: a log whose header is cut keeps its place in the retry chain", () => {
  it("honest: B decides, A is RETRY_AFTER_OUTCOME", async () => {
    const doc = await run(folder([A, B]));
    expect(flagsOf(doc)).toEqual([["RETRY_AFTER_OUTCOME", "A"]]);
    expect(value(doc)).toBe(
      scoreInspectLog(place(inspectFileName(B), inspectLogBytes(B)), "eval").inspect!.metrics["match/mean/accuracy"]!
        .exclude.value,
    );
  });
  it("attack: B cut inside header.json no longer hands the run to A: the run's value is withheld", async () => {
    const doc = await run(folder([A, [inspectFileName(B), cutInHeader(B)]]));
    expect(flagsOf(doc)).toEqual([["RETRY_AFTER_OUTCOME", "B"]]); // was SUPERSEDED on B, with A's value
    expect(arith(doc).flags[0]!.evidence).toMatch(/its own outcome unread \(status started\)/);
    expect(value(doc)).toBeNull();
    expect(arith(doc).inspect!["match/mean/accuracy"]!.interval_reason).toMatch(/begun after the deciding success/);
  });
  it("honest: a killed attempt before the success is SUPERSEDED and the success decides", async () => {
    const killed = spec({ case: "killed", seed: "k", offset: 0 }); // named as A would be
    const doc = await run(folder([killed, B]));
    expect(flagsOf(doc)).toEqual([["SUPERSEDED", "A"]]);
    expect(value(doc)).not.toBeNull();
  });
});

describe("#5: a log with no readable identity withholds the task runs it may belong to", () => {
  for (const [what, bytes] of [
    ["emptied", ""],
    ["cut to 60 bytes", inspectLogBytes(B).subarray(0, 60)],
    ["its ZIP magic zeroed", Buffer.concat([Buffer.alloc(4), inspectLogBytes(B).subarray(4)])],
  ] as const)
    it(`attack: B ${what}`, async () => {
      const doc = await run(folder([A, [inspectFileName(B), bytes]]));
      expect(flagsOf(doc)).toEqual([["LOG_UNIDENTIFIED", "B"]]);
      expect(value(doc)).toBeNull(); // was A's value
    });
  it("a name that gives no task (not Inspect's pattern) withholds every task run in its folder", async () => {
    const doc = await run(folder([A, ["renamed.eval", ""]]));
    expect(flagsOf(doc)).toEqual([["LOG_UNIDENTIFIED", "renamed.eval"]]);
    expect(value(doc)).toBeNull();
  });
  it("honest: an empty log named for another task, or in another folder, leaves this one alone", async () => {
    const other = spec({ task: "other", taskId: "OTHERotherOTHERother22" });
    const dir = folder([A, [inspectFileName(other), ""]]);
    mkdirSync(join(dir, "elsewhere"));
    writeFileSync(join(dir, "elsewhere", inspectFileName(B)), "");
    const doc = await run(dir);
    expect(flagsOf(doc)).toEqual([]);
    expect(value(doc)).not.toBeNull();
    expect(doc.experiments.filter((e) => e.experiment === null)).toHaveLength(1); // the empty logs stay listed
  });
});
