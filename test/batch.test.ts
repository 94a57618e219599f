// Batch rules of contract §6 (native-game): attribution, schedules, trial findings, tool errors,
// adjudication, native metrics and repeats. Entries come from helper-built bundles scored one by
// one; computeExperiments is then run over them exactly as a merge of shards would.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BatchOptions } from "../src/core/batch/experiments.js";
import { computeExperiments } from "../src/kinds/batch.js";
import { parseSchedule, ScheduleError, type Schedule } from "../src/core/batch/schedule.js";
import type { BundleEntry, Experiment } from "../src/core/results.js";
import { toolError } from "../src/io/tool-error.js";
import { attributeBundle } from "../src/kinds/bundle/attribution.js";
import { bundle, escaped, game, killed, live, score, sha, T0, type GameOpts, type Rec } from "./helpers/bundle.js";
import { freshFolders } from "./helpers/shared.js";

const COUNT: BatchOptions = { invalid: "count", resourceBound: "exclude", errors: "exclude" };
const EXCLUDE_INVALID: BatchOptions = { invalid: "exclude", resourceBound: "exclude", errors: "exclude" };
const RB_LOSS: BatchOptions = { invalid: "count", resourceBound: "loss", errors: "exclude" };
const Z = 1.959963984540054;

// ---------------------------------------------------------------------------------------------
// Builders. Every trial gets its own seed (derived from experiment and trial) unless a test says
// otherwise, so SEED_COLLISION never fires by accident.

type Who = { experiment?: string; trial?: string; attempt?: number; seed?: string; task?: string };
const seedOf = (experiment: string, trial: string) => sha(`${experiment}/${trial}`).slice(0, 32);
const opts = (w: Who): GameOpts => {
  const experiment = w.experiment ?? "exp";
  const trial = w.trial ?? "t1";
  return {
    experiment,
    trial,
    attempt: w.attempt ?? 1,
    seed: w.seed ?? seedOf(experiment, trial),
    session: `s-${experiment}-${trial}-${w.attempt ?? 1}`,
    meta: w.task === undefined ? { model: "m-1" } : { model: "m-1", task: w.task },
  };
};

type Files = Record<string, string | Buffer>;
/** Escape with a Silmaril, on time, end completed. */
const victory = (w: Who = {}): Files => bundle(game({ ...opts(w), states: [live(), escaped()] }));
/** Killed by a monster, end completed. */
const death = (w: Who = {}): Files => bundle(game({ ...opts(w), states: [live(), killed()] }));
/** The supervisor failed mid-game: no ending, no score, end abnormal. */
const abnormal = (w: Who = {}): Files => bundle(game({ ...opts(w), states: [live()], score: "none", end: "abnormal" }));
/** Save-and-quit (playing cleared without is_dead) is a suspension, then abnormal. */
const saveQuit = (w: Who = {}): Files =>
  bundle(
    game({
      ...opts(w),
      states: [live(), live({ playing: false, turn: 20, playerturn: 10 })],
      score: "none",
      end: "abnormal",
    }),
  );
/** Final scoring stopped a live game. */
const interrupted = (w: Who = {}): Files =>
  bundle(game({ ...opts(w), states: [live()], score: "final", end: "interrupted" }));
/** A step limit stopped the run without an ending. */
const resourceBound = (w: Who = {}): Files =>
  bundle(game({ ...opts(w), states: [live()], score: "intermediate", end: "resource-bound" }));
/** No end record, no ending, no final score (killed supervisor). */
const bareUnterminated = (w: Who = {}): Files =>
  bundle(game({ ...opts(w), states: [live()], score: "none", end: null }));
/** No end record, but a final score: adjudicated as interrupted. */
const unterminatedFinal = (w: Who = {}): Files =>
  bundle(game({ ...opts(w), states: [live()], score: "final", end: null }));
/** No end record, but a native ending (a win or a death). */
const unterminatedEnding = (w: Who = {}, win = false): Files =>
  bundle(game({ ...opts(w), states: [live(), win ? escaped() : killed()], score: "none", end: null }));
/** An ending followed by a status other than completed. */
const endingWithStatus = (status: "abnormal" | "interrupted" | "resource-bound", win: boolean, w: Who = {}): Files =>
  bundle(game({ ...opts(w), states: [live(), win ? escaped() : killed()], score: "final", end: status }));
/** Invalid evidence: the summary claims a victory the journal does not earn. */
const invalidClaim = (files: Files): Files => {
  const s = JSON.parse(String(files["summary.json"]));
  return { ...files, "summary.json": JSON.stringify({ ...s, victory: !s.victory }) };
};

let counter = 0;
/** A bundle entry at a fresh path (paths only order attempts that share a number). */
const entry = (files: Files, path = `root/b${String(counter++).padStart(5, "0")}`): BundleEntry => ({
  path,
  ...score(files),
});
const entries = (...files: Files[]): BundleEntry[] => files.map((f) => entry(f));

const scheduleOf = (experiment: string, trials: { trial: string; seed?: string }[]): Schedule =>
  parseSchedule(
    Buffer.from(
      JSON.stringify({
        format: "assay.schedule/1",
        experiment,
        trials: trials.map((t) => ({ trial: t.trial, seed: t.seed ?? seedOf(experiment, t.trial) })),
      }),
    ),
    `${experiment}.schedule.json`,
  );

const one = (es: BundleEntry[], options: BatchOptions = COUNT, schedules: Schedule[] = []): Experiment => {
  const xs = computeExperiments(es, schedules, options);
  expect(xs).toHaveLength(1);
  return xs[0]!;
};
const invalidTrials = (x: Experiment) => x.invalid.map((i) => i.trial);
const codesOf = (x: Experiment, trial: string) => x.invalid.find((i) => i.trial === trial)?.codes;
const excludedTrials = (x: Experiment) => x.excluded.map((i) => i.trial);
const flagsOf = (x: Experiment) => [...x.flags].map((f) => `${f.code} ${f.trial} a${f.attempt}`).sort();

/** Wilson score interval written in counts: (k + z²/2 ± z·sqrt(k(n−k)/n + z²/4)) / (n + z²). */
function wilsonByHand(k: number, n: number): [number, number] {
  const z2 = Z * Z;
  const centre = k + z2 / 2;
  const half = Z * Math.sqrt((k * (n - k)) / n + z2 / 4);
  return [Math.max(0, (centre - half) / (n + z2)), Math.min(1, (centre + half) / (n + z2))];
}
const C = (n: number, k: number): number => {
  if (k > n) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return r;
};

const freshFolder = freshFolders("assay-batch-");

/** A tool-error entry (validity "error") for a bundle on disk, attributed from its line 1. */
function toolErrorEntry(files: Files, code: "TIMEOUT" | "WORKER_FAILED" = "TIMEOUT"): BundleEntry {
  const dir = freshFolder("err");
  for (const [p, b] of Object.entries(files)) writeFileSync(join(dir, p), b);
  return toolError(
    dir,
    `root/err${String(counter++).padStart(5, "0")}`,
    code,
    "the tool could not finish",
    "bundle",
    attributeBundle,
  );
}

// ---------------------------------------------------------------------------------------------

describe("builders (preconditions for everything below)", () => {
  it("each builder yields the kind of bundle its name says", () => {
    const kinds: [string, Files, Partial<BundleEntry>][] = [
      ["victory", victory(), { validity: "valid", status: "completed", ending: true, victory: true }],
      ["death", death(), { validity: "valid", status: "completed", ending: true, victory: false }],
      ["abnormal", abnormal(), { validity: "valid", status: "abnormal", ending: false }],
      ["save-quit", saveQuit(), { validity: "valid", status: "abnormal", ending: false }],
      ["interrupted", interrupted(), { validity: "valid", status: "interrupted", ending: false }],
      ["resource-bound", resourceBound(), { validity: "valid", status: "resource-bound", ending: false }],
      ["bare unterminated", bareUnterminated(), { validity: "valid", status: "unterminated", ending: false }],
      ["unterminated + final score", unterminatedFinal(), { validity: "valid", status: "unterminated", ending: false }],
      [
        "unterminated + death",
        unterminatedEnding(),
        { validity: "valid", status: "unterminated", ending: true, victory: false },
      ],
      [
        "unterminated + escape",
        unterminatedEnding({}, true),
        { validity: "valid", status: "unterminated", ending: true, victory: true },
      ],
      [
        "abnormal + escape",
        endingWithStatus("abnormal", true),
        { validity: "valid", status: "abnormal", ending: true, victory: true },
      ],
      [
        "interrupted + death",
        endingWithStatus("interrupted", false),
        { validity: "valid", status: "interrupted", ending: true, victory: false },
      ],
      [
        "resource-bound + escape",
        endingWithStatus("resource-bound", true),
        { validity: "valid", status: "resource-bound", ending: true, victory: true },
      ],
      ["invalid claim", invalidClaim(death()), { validity: "invalid" }],
    ];
    for (const [name, files, want] of kinds) expect(score(files), name).toMatchObject(want);
  });
});

describe("attribution", () => {
  it("an invalid bundle whose line 1 names experiment, trial and attempt is attributed (its trial invalid)", () => {
    const bad = invalidClaim(victory({ trial: "t1" }));
    const x = one(entries(bad, death({ trial: "t2" })));
    expect(x.experiment).toBe("exp");
    expect(invalidTrials(x)).toEqual(["t1"]);
    expect(codesOf(x, "t1")!.length).toBeGreaterThan(0);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 2 });
    expect(x.raw_record!.values).toEqual([0, 0]);
  });

  it("attribution holds whatever else is wrong with line 1 (an unsupported format, a non-canonical seed)", () => {
    const recs = game({ ...opts({ trial: "t1" }) });
    (recs[0] as Rec)["format"] = "assay.bundle/2";
    const upper = game({ ...opts({ trial: "t2", seed: "AABBCCDDEEFF00112233445566778899" }) });
    const es = entries(bundle(recs), bundle(upper));
    expect(es.map((e) => e.validity)).toEqual(["invalid", "invalid"]);
    const x = one(es);
    expect(invalidTrials(x).sort()).toEqual(["t1", "t2"]);
    expect(x.scheduled).toBe(2);
  });

  it.each([
    ["its `at` is a string", (h: Rec) => void (h["at"] = "soon")],
    ["its `prev` is not a digest", (h: Rec) => void (h["prev"] = "not-a-digest")],
    ["its `type` is not session", (h: Rec) => void (h["type"] = "hello")],
  ])("line 1 is still attributed when %s (its trial is invalid, not missing)", (_name, spoil) => {
    // Line 1 stays a JSON object naming experiment, trial and attempt; only its envelope is wrong.
    const recs: (Rec | { raw: string })[] = game({ ...opts({ trial: "t1" }) });
    const h = { seq: 0, prev: "0".repeat(64), ...(recs[0] as Rec) };
    spoil(h);
    recs[0] = { raw: JSON.stringify(h) };
    const e = entry(bundle(recs, { summary: null, snapshot: null }));
    expect(e.validity).toBe("invalid");
    expect(e).toMatchObject({ experiment: "exp", trial: "t1", attempt: 1 });
    const s = scheduleOf("exp", [{ trial: "t1" }, { trial: "t2" }]);
    const x = one([e, entry(victory({ trial: "t2" }))], COUNT, [s]);
    expect(invalidTrials(x)).toEqual(["t1"]);
    expect(x.missing).toEqual([]);
    expect(x.retry).toEqual([]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 2 });
  });

  it("a line 1 that does not parse is attributed to nothing and enters no experiment", () => {
    const recs: (Rec | { raw: string })[] = game({ ...opts({ experiment: "ghost", trial: "t1" }) });
    recs[0] = { raw: `{"type":"session","experiment":"ghost","trial":"t1","attempt":1,` };
    const garbled = entry(bundle(recs, { summary: null }));
    expect(garbled).toMatchObject({ experiment: null, trial: null, attempt: null });
    expect(computeExperiments([garbled], [], COUNT)).toEqual([]);
    // Beside a real experiment it adds no trial there either.
    const x = one([garbled, entry(death({ experiment: "ghost", trial: "t2" }))]);
    expect(x.scheduled).toBe(1);
    expect(x.raw_record!.values).toEqual([0]);
    expect(x.invalid).toEqual([]);
  });

  it("line 1 with attempt 0 (or a trial that is not an id) is not attributed", () => {
    const zero = game({ ...opts({ experiment: "lonely", trial: "t1" }) });
    (zero[0] as Rec)["attempt"] = 0;
    const badTrial = game({ ...opts({ experiment: "lonely", trial: "t2" }) });
    (badTrial[0] as Rec)["trial"] = "-not-an-id";
    const es = entries(bundle(zero), bundle(badTrial));
    expect(es.map((e) => e.validity)).toEqual(["invalid", "invalid"]);
    expect(computeExperiments(es, [], COUNT)).toEqual([]);
  });
});

describe("schedules and trial order", () => {
  it("raw_record follows the schedule's order", () => {
    const s = scheduleOf("exp", [{ trial: "t3" }, { trial: "t1" }, { trial: "t2" }]);
    const x = one(entries(victory({ trial: "t1" }), death({ trial: "t2" }), death({ trial: "t3" })), COUNT, [s]);
    expect(x.scheduled).toBe(3);
    expect(x.raw_record!.values).toEqual([0, 1, 0]);
  });

  it("without a schedule, trials are those seen, in byte order of their ids", () => {
    // Byte order: "B" < "Z" < "a" < "t10" < "t9" (not locale order, not numeric order).
    const es = entries(
      victory({ trial: "a" }),
      death({ trial: "t9" }),
      victory({ trial: "t10" }),
      death({ trial: "Z" }),
      victory({ trial: "B" }),
    );
    const x = one(es.reverse());
    expect(x.scheduled).toBe(5);
    expect(x.raw_record!.values).toEqual([1, 0, 1, 1, 0]);
  });

  it("a scheduled trial with no bundle is missing: 0 in raw_record, retried, in completion's denominator, not scored", () => {
    const s = scheduleOf("exp", [{ trial: "t1" }, { trial: "t2" }]);
    const x = one(entries(victory({ trial: "t1" })), COUNT, [s]);
    expect(x.missing).toEqual(["t2"]);
    expect(x.retry).toEqual(["t2"]);
    expect(x.raw_record).toEqual({ values: [1, 0], mean: 0.5 });
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 1, value: 1 });
    expect(x.completion).toMatchObject({ value: 0.5, completed: 1, scheduled: 2 });
    // Every scheduled trial present: nothing missing.
    const full = one(entries(victory({ trial: "t1" }), death({ trial: "t2" })), COUNT, [s]);
    expect(full.missing).toEqual([]);
    expect(full.retry).toEqual([]);
  });

  it("a scheduled trial is missing when its only bundle is unattributable, not when its bundle is merely invalid", () => {
    const s = scheduleOf("exp", [{ trial: "t1" }, { trial: "t2" }]);
    const garbledRecs: (Rec | { raw: string })[] = game({ ...opts({ trial: "t1" }) });
    garbledRecs[0] = { raw: "not json at all" };
    const x = one(entries(bundle(garbledRecs, { summary: null }), invalidClaim(death({ trial: "t2" }))), COUNT, [s]);
    expect(x.missing).toEqual(["t1"]);
    expect(invalidTrials(x)).toEqual(["t2"]);
    expect(x.retry).toEqual(["t1"]);
  });

  it("a schedule alone gives an experiment whose trials are all missing", () => {
    const s = scheduleOf("planned", [{ trial: "t1" }, { trial: "t2" }]);
    const xs = computeExperiments([], [s], COUNT);
    expect(xs).toHaveLength(1);
    expect(xs[0]).toMatchObject({ experiment: "planned", scheduled: 2, missing: ["t1", "t2"], retry: ["t1", "t2"] });
    expect(xs[0]!.raw_record!.values).toEqual([0, 0]);
    expect(xs[0]!.accuracy).toMatchObject({ victories: 0, scored: 0, value: null, wilson95: null });
  });

  it("a bundle for a trial the schedule lacks is UNSCHEDULED under invalid but in no metric", () => {
    const s = scheduleOf("exp", [{ trial: "t1" }, { trial: "t2" }]);
    const x = one(entries(death({ trial: "t1" }), death({ trial: "t2" }), victory({ trial: "t9" })), COUNT, [s]);
    expect(x.invalid).toEqual([{ trial: "t9", codes: ["UNSCHEDULED"] }]);
    expect(x.scheduled).toBe(2);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 2 });
    expect(x.raw_record).toEqual({ values: [0, 0], mean: 0 });
    expect(x.completion).toMatchObject({ value: 1, completed: 2, scheduled: 2 });
    expect(x.retry).toEqual([]);
    expect(x.missing).toEqual([]);
    expect(x.excluded).toEqual([]);
    expect(x.flags).toEqual([]);
    // An unscheduled abnormal run is not retried either, and a scheduled one is not UNSCHEDULED.
    const y = one(entries(death({ trial: "t1" }), death({ trial: "t2" }), abnormal({ trial: "t9" })), COUNT, [s]);
    expect(y.retry).toEqual([]);
    expect(y.excluded).toEqual([]);
    expect(one(entries(death({ trial: "t1" }), death({ trial: "t2" })), COUNT, [s]).invalid).toEqual([]);
  });
});

describe("trial findings", () => {
  it("ATTEMPT_SEQUENCE: attempts 1 and 3", () => {
    const x = one(entries(abnormal({ attempt: 1 }), death({ attempt: 3 })));
    expect(x.invalid).toEqual([{ trial: "t1", codes: ["ATTEMPT_SEQUENCE"] }]);
    // Not adjudicated: no SUPERSEDED flag, not completed, not retried.
    expect(x.flags).toEqual([]);
    expect(x.completion).toMatchObject({ completed: 0, scheduled: 1 });
    expect(x.retry).toEqual([]);
  });

  it("ATTEMPT_SEQUENCE: only attempt 2 (deleting attempt 1 never lets attempt 2 count)", () => {
    const x = one(entries(victory({ attempt: 2 })));
    expect(x.invalid).toEqual([{ trial: "t1", codes: ["ATTEMPT_SEQUENCE"] }]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1, value: 0 });
    expect(x.raw_record!.values).toEqual([0]);
  });

  it("ATTEMPT_SEQUENCE: attempt 1 twice", () => {
    const x = one([entry(death({ attempt: 1 }), "root/x/a"), entry(victory({ attempt: 1 }), "root/x/b")]);
    expect(x.invalid).toEqual([{ trial: "t1", codes: ["ATTEMPT_SEQUENCE"] }]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1 });
  });

  it("attempts 1..n, each once, are in sequence", () => {
    const x = one(entries(abnormal({ attempt: 1 }), bareUnterminated({ attempt: 2 }), victory({ attempt: 3 })));
    expect(x.invalid).toEqual([]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 1 });
  });

  it("SEED_MISMATCH: attempts of one trial with different seeds", () => {
    const x = one(
      entries(abnormal({ attempt: 1, seed: "aa".repeat(16) }), victory({ attempt: 2, seed: "bb".repeat(16) })),
    );
    expect(x.invalid).toEqual([{ trial: "t1", codes: ["SEED_MISMATCH"] }]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1 });
    expect(x.flags).toEqual([]);
  });

  it("SEED_MISMATCH: a seed other than the schedule's", () => {
    const s = scheduleOf("exp", [{ trial: "t1", seed: "cc".repeat(16) }, { trial: "t2" }]);
    const x = one(entries(victory({ trial: "t1", seed: "aa".repeat(16) }), victory({ trial: "t2" })), COUNT, [s]);
    expect(x.invalid).toEqual([{ trial: "t1", codes: ["SEED_MISMATCH"] }]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 2 });
  });

  it("seeds that agree across attempts and with the schedule are fine", () => {
    const s = scheduleOf("exp", [{ trial: "t1", seed: "aa".repeat(16) }]);
    const x = one(
      entries(abnormal({ attempt: 1, seed: "aa".repeat(16) }), victory({ attempt: 2, seed: "aa".repeat(16) })),
      COUNT,
      [s],
    );
    expect(x.invalid).toEqual([]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 1 });
    expect(flagsOf(x)).toEqual(["SUPERSEDED t1 a1"]);
  });

  it("SEED_COLLISION: two trials with one seed are both invalid", () => {
    const seed = "dd".repeat(16);
    const x = one(entries(victory({ trial: "t1", seed }), victory({ trial: "t2", seed }), victory({ trial: "t3" })));
    expect(x.invalid).toEqual([
      { trial: "t1", codes: ["SEED_COLLISION"] },
      { trial: "t2", codes: ["SEED_COLLISION"] },
    ]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 3 });
    expect(x.raw_record!.values).toEqual([0, 0, 1]);
  });

  it("distinct seeds do not collide (seeds of other experiments do not count)", () => {
    const seed = "dd".repeat(16);
    const xs = computeExperiments(
      entries(
        victory({ experiment: "e1", trial: "t1", seed }),
        victory({ experiment: "e2", trial: "t1", seed }),
        victory({ experiment: "e1", trial: "t2" }),
      ),
      [],
      COUNT,
    );
    expect(xs.map((x) => [x.experiment, x.invalid])).toEqual([
      ["e1", []],
      ["e2", []],
    ]);
  });

  it("an invalid superseded attempt makes the trial invalid (and it earns nothing)", () => {
    const x = one(entries(invalidClaim(abnormal({ attempt: 1 })), victory({ attempt: 2 })));
    expect(invalidTrials(x)).toEqual(["t1"]);
    expect(codesOf(x, "t1")).toContain("SUMMARY_MISMATCH");
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1 });
    expect(x.flags).toEqual([]);
    expect(x.completion).toMatchObject({ completed: 0 });
  });

  it("an invalid retry makes the trial invalid too", () => {
    const x = one(entries(victory({ attempt: 1 }), invalidClaim(death({ attempt: 2 }))));
    expect(invalidTrials(x)).toEqual(["t1"]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1 });
    expect(x.flags).toEqual([]);
  });

  it("an invalid trial is listed but not adjudicated: not completed, not retried, not excluded", () => {
    const x = one(entries(invalidClaim(abnormal({ trial: "t1" })), death({ trial: "t2" })));
    expect(invalidTrials(x)).toEqual(["t1"]);
    expect(x.retry).toEqual([]);
    expect(x.excluded).toEqual([]);
    expect(x.completion).toMatchObject({ value: 0.5, completed: 1, scheduled: 2 });
  });

  it("invalid trials are non-victories by default; --invalid exclude leaves them out; listed either way", () => {
    const es = entries(victory({ trial: "t1" }), invalidClaim(victory({ trial: "t2" })), death({ trial: "t3" }));
    const counted = one(es, COUNT);
    expect(counted.accuracy).toMatchObject({ victories: 1, scored: 3, value: 1 / 3 });
    expect(invalidTrials(counted)).toEqual(["t2"]);
    const left = one(es, EXCLUDE_INVALID);
    expect(left.accuracy).toMatchObject({ victories: 1, scored: 2, value: 1 / 2 });
    expect(invalidTrials(left)).toEqual(["t2"]);
    // raw_record is over scheduled trials in both modes: the invalid one is a 0.
    expect(counted.raw_record!.values).toEqual([1, 0, 0]);
    expect(left.raw_record!.values).toEqual([1, 0, 0]);
  });
});

describe("tool errors", () => {
  it("a tool-error entry carries the attribution of its journal's line 1", () => {
    const e = toolErrorEntry(victory({ trial: "t7", attempt: 2, task: "A" }));
    expect(e).toMatchObject({ validity: "error", experiment: "exp", trial: "t7", attempt: 2, task: "A" });
  });

  it("its trial is unscored: out of accuracy, raw_record, completion, retry and pass_hat_k", () => {
    const base = [victory({ trial: "t1", task: "A" }), death({ trial: "t2", task: "A" })];
    const err = toolErrorEntry(victory({ trial: "t3", task: "B" }));
    const x = one([...entries(...base), err]);
    expect(x.unscored).toEqual(["t3"]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 2 });
    expect(x.raw_record).toEqual({ values: [1, 0], mean: 0.5 });
    expect(x.completion).toMatchObject({ value: 1, completed: 2, scheduled: 2 });
    expect(x.retry).toEqual([]);
    expect(x.pass_hat_k).toEqual({ "1": 0.5, "2": 0 });
    expect(x.missing).toEqual([]);
  });

  it("an abnormal tool-error trial is not retried and not excluded; a scheduled one is not missing", () => {
    const s = scheduleOf("exp", [{ trial: "t1" }, { trial: "t2" }]);
    const x = one(
      [...entries(death({ trial: "t1" })), toolErrorEntry(abnormal({ trial: "t2" }), "WORKER_FAILED")],
      COUNT,
      [s],
    );
    expect(x.unscored).toEqual(["t2"]);
    expect(x.missing).toEqual([]);
    expect(x.retry).toEqual([]);
    expect(x.excluded).toEqual([]);
    expect(x.raw_record!.values).toEqual([0]);
    expect(x.completion).toMatchObject({ value: 1, completed: 1, scheduled: 1 });
  });

  it("even when another attempt of the trial is invalid, the trial is unscored, not a counted non-victory", () => {
    const x = one([
      ...entries(invalidClaim(abnormal({ trial: "t1", attempt: 1, task: "A" })), victory({ trial: "t2", task: "A" })),
      toolErrorEntry(death({ trial: "t1", attempt: 2, task: "A" })),
    ]);
    expect(x.unscored).toEqual(["t1"]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 1, value: 1 });
    expect(x.raw_record).toEqual({ values: [1], mean: 1 });
    expect(x.completion).toMatchObject({ value: 1, completed: 1, scheduled: 1 });
    expect(x.pass_hat_k).toEqual({ "1": 1 });
  });
});

describe("adjudication", () => {
  it("lower abnormal attempts are SUPERSEDED; the first with a native ending is scored", () => {
    const x = one(
      entries(
        abnormal({ attempt: 1 }),
        saveQuit({ attempt: 2 }),
        bareUnterminated({ attempt: 3 }),
        victory({ attempt: 4 }),
      ),
    );
    expect(flagsOf(x)).toEqual(["SUPERSEDED t1 a1", "SUPERSEDED t1 a2", "SUPERSEDED t1 a3"]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 1 });
    expect(x.completion).toMatchObject({ completed: 1 });
    expect(x.excluded).toEqual([]);
    expect(x.retry).toEqual([]);
  });

  it("best-of-n never leaks: a death then a victory is no victory (RETRY_AFTER_OUTCOME)", () => {
    const x = one(entries(death({ attempt: 1 }), victory({ attempt: 2 })));
    expect(flagsOf(x)).toEqual(["RETRY_AFTER_OUTCOME t1 a2"]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1, value: 0 });
    expect(x.raw_record!.values).toEqual([0]);
  });

  it("a victory then a death stays a victory", () => {
    const x = one(entries(victory({ attempt: 1 }), death({ attempt: 2 })));
    expect(flagsOf(x)).toEqual(["RETRY_AFTER_OUTCOME t1 a2"]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 1 });
  });

  it.each([
    ["interrupted", interrupted],
    ["resource-bound", resourceBound],
    ["unterminated with a final score", unterminatedFinal],
  ])("status %s is an outcome: a later victory is a retry after it", (_name, first) => {
    const x = one(entries(first({ attempt: 1 }), victory({ attempt: 2 })), RB_LOSS);
    expect(flagsOf(x)).toEqual(["RETRY_AFTER_OUTCOME t1 a2"]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1 });
    expect(x.retry).toEqual([]);
    expect(x.completion).toMatchObject({ completed: 0 });
  });

  it("resource-bound adjudicated first is excluded by default even when a retry wins", () => {
    const x = one(entries(resourceBound({ attempt: 1 }), victory({ attempt: 2 })));
    expect(flagsOf(x)).toEqual(["RETRY_AFTER_OUTCOME t1 a2"]);
    expect(excludedTrials(x)).toEqual(["t1"]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 0 });
    expect(x.retry).toEqual([]);
  });

  it("unterminated with an ending: the ending decides (UNTERMINATED_WITH_ENDING), a win included", () => {
    const x = one(entries(unterminatedEnding({ trial: "t1" }, true), unterminatedEnding({ trial: "t2" }, false)));
    expect(flagsOf(x)).toEqual(["UNTERMINATED_WITH_ENDING t1 a1", "UNTERMINATED_WITH_ENDING t2 a1"]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 2 });
    expect(x.raw_record!.values).toEqual([1, 0]);
    expect(x.completion).toMatchObject({ completed: 2, scheduled: 2 });
    expect(x.excluded).toEqual([]);
  });

  it("unterminated with an ending supersedes nothing after it: a later attempt is a retry", () => {
    const x = one(entries(unterminatedEnding({ attempt: 1 }), victory({ attempt: 2 })));
    expect(flagsOf(x)).toEqual(["RETRY_AFTER_OUTCOME t1 a2", "UNTERMINATED_WITH_ENDING t1 a1"]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1 });
  });

  it("a completed attempt carries no status flag", () => {
    const x = one(entries(victory({ trial: "t1" }), death({ trial: "t2" })));
    expect(x.flags).toEqual([]);
  });

  it.each([
    ["abnormal", true],
    ["abnormal", false],
    ["interrupted", true],
    ["interrupted", false],
    ["resource-bound", true],
    ["resource-bound", false],
  ] as const)(
    "ENDING_OVERRIDES_STATUS: status %s with an ending (win %s) is scored as the ending says",
    (status, win) => {
      for (const options of [COUNT, RB_LOSS]) {
        const x = one(entries(endingWithStatus(status, win)), options);
        expect(flagsOf(x)).toEqual(["ENDING_OVERRIDES_STATUS t1 a1"]);
        expect(x.accuracy).toMatchObject({ victories: win ? 1 : 0, scored: 1 });
        expect(x.excluded).toEqual([]);
        expect(x.retry).toEqual([]);
        expect(x.completion).toMatchObject({ completed: 1, scheduled: 1 });
      }
    },
  );

  it("an abnormal attempt with an ending is the adjudicated one: a later win does not replace a death", () => {
    const x = one(entries(endingWithStatus("abnormal", false, { attempt: 1 }), victory({ attempt: 2 })));
    expect(flagsOf(x)).toEqual(["ENDING_OVERRIDES_STATUS t1 a1", "RETRY_AFTER_OUTCOME t1 a2"]);
    expect(x.accuracy).toMatchObject({ victories: 0, scored: 1 });
  });

  it("no adjudicated attempt (all abnormal or bare unterminated): excluded with a reason and retried", () => {
    const x = one(
      entries(
        abnormal({ trial: "t1", attempt: 1 }),
        bareUnterminated({ trial: "t1", attempt: 2 }),
        saveQuit({ trial: "t2" }),
        victory({ trial: "t3" }),
      ),
    );
    expect(excludedTrials(x)).toEqual(["t1", "t2"]);
    for (const e of x.excluded) expect(e.reason.length).toBeGreaterThan(0);
    expect(x.retry).toEqual(["t1", "t2"]);
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 1, value: 1 });
    expect(x.raw_record).toEqual({ values: [0, 0, 1], mean: 1 / 3 });
    expect(x.completion).toMatchObject({ value: 1 / 3, completed: 1, scheduled: 3 });
    expect(x.invalid).toEqual([]);
    expect(x.flags.filter((f) => f.code !== "SUPERSEDED")).toEqual([]);
  });

  it("resource-bound without an ending: excluded by default, a loss under --resource-bound loss; never retried", () => {
    const es = entries(resourceBound({ trial: "t1" }), victory({ trial: "t2" }));
    const dflt = one(es, COUNT);
    expect(excludedTrials(dflt)).toEqual(["t1"]);
    expect(dflt.excluded[0]!.reason).toMatch(/resource/i);
    expect(dflt.accuracy).toMatchObject({ victories: 1, scored: 1, value: 1 });
    expect(dflt.retry).toEqual([]);
    expect(dflt.raw_record!.values).toEqual([0, 1]);
    expect(dflt.completion).toMatchObject({ value: 0.5, completed: 1, scheduled: 2 });
    const loss = one(es, RB_LOSS);
    expect(loss.excluded).toEqual([]);
    expect(loss.accuracy).toMatchObject({ victories: 1, scored: 2, value: 0.5 });
    expect(loss.retry).toEqual([]);
    expect(loss.completion).toMatchObject({ value: 0.5, completed: 1, scheduled: 2 });
  });

  it("interrupted: scored for accuracy, incomplete for completion, not retried, not excluded", () => {
    const x = one(entries(interrupted({ trial: "t1" }), unterminatedFinal({ trial: "t2" }), victory({ trial: "t3" })));
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 3 });
    expect(x.completion).toMatchObject({ value: 1 / 3, completed: 1, scheduled: 3 });
    expect(x.retry).toEqual([]);
    expect(x.excluded).toEqual([]);
    expect(x.flags).toEqual([]);
  });
});

describe("native metrics", () => {
  it("completion counts native endings over scheduled trials (missing, invalid and excluded included below)", () => {
    const s = scheduleOf(
      "exp",
      ["t1", "t2", "t3", "t4", "t5", "t6"].map((trial) => ({ trial })),
    );
    // t1 death (ending), t2 escape (ending), t3 interrupted (none), t4 invalid death, t5 abnormal, t6 missing.
    const x = one(
      entries(
        death({ trial: "t1" }),
        victory({ trial: "t2" }),
        interrupted({ trial: "t3" }),
        invalidClaim(death({ trial: "t4" })),
        abnormal({ trial: "t5" }),
      ),
      COUNT,
      [s],
    );
    expect(x.completion).toMatchObject({ value: 2 / 6, completed: 2, scheduled: 6 });
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 4 });
    expect(x.retry).toEqual(["t5", "t6"]);
    expect(x.raw_record).toEqual({ values: [0, 1, 0, 0, 0, 0], mean: 1 / 6 });
  });

  it("Wilson 95% interval for 1 of 4, checked against the closed form", () => {
    const x = one(
      entries(victory({ trial: "t1" }), death({ trial: "t2" }), death({ trial: "t3" }), death({ trial: "t4" })),
    );
    expect(x.accuracy!.value).toBe(0.25);
    const [lo, hi] = wilsonByHand(1, 4);
    // Sanity of the hand formula itself: the textbook values for 1/4 are about 0.0456 and 0.6994.
    expect(lo).toBeCloseTo(0.0456, 4);
    expect(hi).toBeCloseTo(0.6994, 4);
    expect(x.accuracy!.wilson95![0]).toBeCloseTo(lo, 12);
    expect(x.accuracy!.wilson95![1]).toBeCloseTo(hi, 12);
  });

  it("Wilson interval at the edges: 0 of 3 and 2 of 2", () => {
    const none = one(entries(death({ trial: "t1" }), death({ trial: "t2" }), death({ trial: "t3" })));
    expect(none.accuracy).toMatchObject({ value: 0, victories: 0, scored: 3 });
    expect(none.accuracy!.wilson95![0]).toBeCloseTo(0, 12);
    expect(none.accuracy!.wilson95![1]).toBeCloseTo((Z * Z) / (3 + Z * Z), 12);
    const all = one(entries(victory({ trial: "t1" }), victory({ trial: "t2" })));
    expect(all.accuracy).toMatchObject({ value: 1, victories: 2, scored: 2 });
    expect(all.accuracy!.wilson95![0]).toBeCloseTo(2 / (2 + Z * Z), 12);
    expect(all.accuracy!.wilson95![1]).toBeCloseTo(1, 12);
  });

  it("the interval never leaves [0, 1] (0 of 21 and 16 of 16, where rounding could push it out)", () => {
    const zero = one(entries(...Array.from({ length: 21 }, (_, i) => death({ trial: `t${i}` }))));
    expect(zero.accuracy).toMatchObject({ victories: 0, scored: 21 });
    expect(zero.accuracy!.wilson95![0]).toBeGreaterThanOrEqual(0);
    expect(zero.accuracy!.wilson95![1]).toBeCloseTo(wilsonByHand(0, 21)[1], 12);
    const all = one(entries(...Array.from({ length: 16 }, (_, i) => victory({ trial: `t${i}` }))));
    expect(all.accuracy).toMatchObject({ victories: 16, scored: 16 });
    expect(all.accuracy!.wilson95![1]).toBeLessThanOrEqual(1);
    expect(all.accuracy!.wilson95![0]).toBeCloseTo(wilsonByHand(16, 16)[0], 12);
  });

  it("accuracy value and interval are null when nothing is scored (0/0)", () => {
    const x = one(entries(abnormal({ trial: "t1" }), resourceBound({ trial: "t2" })));
    expect(x.accuracy).toMatchObject({ value: null, victories: 0, scored: 0, wilson95: null });
    expect(x.raw_record).toEqual({ values: [0, 0], mean: 0 });
  });

  it("raw_record: 1 for each victory in trial order, mean labelled over all scheduled trials", () => {
    const x = one(
      entries(
        victory({ trial: "t1" }),
        death({ trial: "t2" }),
        victory({ trial: "t3" }),
        resourceBound({ trial: "t4" }),
      ),
    );
    expect(x.raw_record).toEqual({ values: [1, 0, 1, 0], mean: 0.5 });
    // accuracy is not the raw mean: the excluded trial is out of it.
    expect(x.accuracy).toMatchObject({ victories: 2, scored: 3, value: 2 / 3 });
  });

  it("accuracy is never computed from completion: a late escape completes but does not win", () => {
    const late = bundle(game({ ...opts({ trial: "t1" }), states: [live(), escaped()], deadline: T0 + 2500 }));
    const e = entry(late);
    expect(e).toMatchObject({ validity: "valid", ending: true, victory: false, late: true });
    const x = one([e, entry(victory({ trial: "t2" }))]);
    expect(x.completion).toMatchObject({ completed: 2, scheduled: 2 });
    expect(x.accuracy).toMatchObject({ victories: 1, scored: 2 });
  });
});

describe("repeats: pass_hat_k", () => {
  it("task A 2 of 3, task B 1 of 2: k=1 (2/3+1/2)/2, k=2 (1/3+0)/2; trials without a task left out", () => {
    const x = one(
      entries(
        victory({ trial: "a1", task: "A" }),
        victory({ trial: "a2", task: "A" }),
        death({ trial: "a3", task: "A" }),
        victory({ trial: "b1", task: "B" }),
        death({ trial: "b2", task: "B" }),
        victory({ trial: "n1" }), // no task: left out (would otherwise make groups or change counts)
      ),
    );
    const k1 = (C(2, 1) / C(3, 1) + C(1, 1) / C(2, 1)) / 2;
    const k2 = (C(2, 2) / C(3, 2) + C(1, 2) / C(2, 2)) / 2;
    expect(k1).toBeCloseTo(7 / 12, 15);
    expect(k2).toBeCloseTo(1 / 6, 15);
    expect(Object.keys(x.pass_hat_k!).sort()).toEqual(["1", "2"]);
    expect(x.pass_hat_k!["1"]).toBeCloseTo(k1, 12);
    expect(x.pass_hat_k!["2"]).toBeCloseTo(k2, 12);
  });

  it("null when no trial has a task", () => {
    const x = one(entries(victory({ trial: "t1" }), death({ trial: "t2" })));
    expect(x.pass_hat_k).toBeNull();
  });

  it("groups by the adjudicated attempt's task; retries never leak a pass", () => {
    // t1: abnormal under task Z, then a victory under task A → counted under A (a pass).
    // t2: death under A, then a victory under A (ignored) → a failure.
    const x = one(
      entries(
        abnormal({ trial: "t1", attempt: 1, task: "Z" }),
        victory({ trial: "t1", attempt: 2, task: "A" }),
        death({ trial: "t2", attempt: 1, task: "A" }),
        victory({ trial: "t2", attempt: 2, task: "A" }),
      ),
    );
    expect(x.pass_hat_k).toEqual({ "1": 0.5, "2": 0 });
  });

  it("only trials entering accuracy count: excluded trials make no group", () => {
    const es = entries(
      victory({ trial: "t1", task: "A" }),
      death({ trial: "t2", task: "A" }),
      resourceBound({ trial: "t3", task: "B" }),
      abnormal({ trial: "t4", task: "B" }),
    );
    // Excluded t3/t4 would form a group B of size ≤ 2 and pull the mean down.
    expect(one(es, COUNT).pass_hat_k).toEqual({ "1": 0.5, "2": 0 });
    // Under --resource-bound loss t3 is a scored failure under B: k=1 (1/2 + 0)/2, kmax = 1.
    expect(one(es, RB_LOSS).pass_hat_k).toEqual({ "1": 0.25 });
  });

  it("an invalid trial counts as failing under its lowest attempt's task; --invalid exclude leaves it out", () => {
    // t3: attempt 1 under B (a death), attempt 2 under A (an invalid victory claim) → failing under B.
    const es = entries(
      victory({ trial: "t1", task: "A" }),
      victory({ trial: "t2", task: "B" }),
      death({ trial: "t3", attempt: 1, task: "B" }),
      invalidClaim(victory({ trial: "t3", attempt: 2, task: "A" })),
    );
    const counted = one(es, COUNT);
    expect(invalidTrials(counted)).toEqual(["t3"]);
    // A: 1 of 1; B: 1 of 2 → kmax 1: (1 + 1/2)/2.
    expect(counted.pass_hat_k).toEqual({ "1": 0.75 });
    // Left out: A 1 of 1, B 1 of 1.
    expect(one(es, EXCLUDE_INVALID).pass_hat_k).toEqual({ "1": 1 });
  });

  it("a missing trial is in no group", () => {
    const s = scheduleOf("exp", [{ trial: "t1" }, { trial: "t2" }, { trial: "t3" }]);
    const x = one(entries(victory({ trial: "t1", task: "A" }), death({ trial: "t2", task: "A" })), COUNT, [s]);
    expect(x.pass_hat_k).toEqual({ "1": 0.5, "2": 0 });
  });
});

describe("schedule files", () => {
  const doc = (o: unknown) => Buffer.from(JSON.stringify(o));
  const good = {
    format: "assay.schedule/1",
    experiment: "exp",
    trials: [
      { trial: "t1", seed: "aa".repeat(8) },
      { trial: "t2", seed: "0123456789abcdef0123" },
    ],
  };

  it("a well-formed schedule parses", () => {
    const s = parseSchedule(doc(good), "s.json");
    expect(s.experiment).toBe("exp");
    expect(s.trials.map((t) => t.trial)).toEqual(["t1", "t2"]);
    expect(parseSchedule(doc({ ...good, trials: [] }), "s.json").trials).toEqual([]);
    const withScenario = { ...good, trials: [{ trial: "t1", seed: "aa".repeat(8), scenario: "ab".repeat(32) }] };
    expect(parseSchedule(doc(withScenario), "s.json").trials[0]!.scenario).toBe("ab".repeat(32));
  });

  it.each([
    ["not JSON", Buffer.from(`{"format":"assay.schedule/1",`)],
    [
      "a duplicate key",
      Buffer.from(`{"format":"assay.schedule/1","experiment":"exp","experiment":"exp2","trials":[]}`),
    ],
    ["another format", doc({ ...good, format: "assay.schedule/2" })],
    ["an experiment that is not an id", doc({ ...good, experiment: "-x" })],
    ["trials not an array", doc({ ...good, trials: {} })],
    ["an undefined key", doc({ ...good, extra: 1 })],
    ["a trial without a seed", doc({ ...good, trials: [{ trial: "t1" }] })],
    [
      "a trial listed twice",
      doc({
        ...good,
        trials: [
          { trial: "t1", seed: "aa".repeat(8) },
          { trial: "t1", seed: "bb".repeat(8) },
        ],
      }),
    ],
    ["an upper-case seed", doc({ ...good, trials: [{ trial: "t1", seed: "AA".repeat(8) }] })],
    ["an odd-length seed", doc({ ...good, trials: [{ trial: "t1", seed: "a".repeat(17) }] })],
    ["a seed too short", doc({ ...good, trials: [{ trial: "t1", seed: "aa".repeat(7) }] })],
    ["a seed too long", doc({ ...good, trials: [{ trial: "t1", seed: "aa".repeat(65) }] })],
    [
      "a bad scenario digest",
      doc({ ...good, trials: [{ trial: "t1", seed: "aa".repeat(8), scenario: "AB".repeat(32) }] }),
    ],
  ])("%s is a ScheduleError", (_name, bytes) => {
    expect(() => parseSchedule(bytes, "s.json")).toThrow(ScheduleError);
  });

  it("two schedules for one experiment are a ScheduleError; for two experiments they are fine", () => {
    const a = parseSchedule(doc(good), "a.json");
    const b = parseSchedule(doc({ ...good, trials: [{ trial: "t9", seed: "cc".repeat(8) }] }), "b.json");
    expect(() => computeExperiments([], [a, b], COUNT)).toThrow(ScheduleError);
    const c = parseSchedule(doc({ ...good, experiment: "other" }), "c.json");
    expect(computeExperiments([], [a, c], COUNT).map((x) => x.experiment)).toEqual(["exp", "other"]);
  });
});

describe("experiments", () => {
  it("are sorted by id in byte order", () => {
    const ids = ["b", "a", "Z", "B", "a.1", "a-1", "10", "9"];
    const es = entries(...ids.map((experiment) => death({ experiment })));
    const got = computeExperiments(es, [], COUNT).map((x) => x.experiment);
    expect(got).toEqual(["10", "9", "B", "Z", "a", "a-1", "a.1", "b"]);
    expect(got).toEqual([...ids].sort((p, q) => Buffer.compare(Buffer.from(p), Buffer.from(q))));
  });

  it("do not depend on the order entries arrive in", () => {
    const es = entries(
      abnormal({ trial: "t1", attempt: 1, task: "A" }),
      victory({ trial: "t1", attempt: 2, task: "A" }),
      death({ trial: "t2", task: "A" }),
      resourceBound({ trial: "t3" }),
      invalidClaim(death({ trial: "t4" })),
    );
    const forward = computeExperiments(es, [], COUNT);
    const backward = computeExperiments([...es].reverse(), [], COUNT);
    expect(backward).toEqual(forward);
    expect(forward[0]).toMatchObject({
      scheduled: 4,
      accuracy: { victories: 1, scored: 3 },
      raw_record: { values: [1, 0, 0, 0], mean: 0.25 },
    });
  });

  it("each experiment is judged on its own trials", () => {
    const xs = computeExperiments(
      entries(
        victory({ experiment: "e1", trial: "t1" }),
        death({ experiment: "e2", trial: "t1" }),
        abnormal({ experiment: "e2", trial: "t2" }),
      ),
      [],
      COUNT,
    );
    expect(xs.map((x) => [x.experiment, x.scheduled, x.accuracy!.victories, x.accuracy!.scored, x.retry])).toEqual([
      ["e1", 1, 1, 1, []],
      ["e2", 2, 0, 1, ["t2"]],
    ]);
    expect(xs.every((x) => x.profile === "native-game")).toBe(true);
  });
});
