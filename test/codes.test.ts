// Every §9 code of the native-game profile, each from a minimal fixture, with its file and line;
// plus §1 UNSAFE_PATH on real files and the §7 bundle digest.

import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { scoreBundle } from "../src/kinds/bundle/score.js";
import { diskBundle } from "../src/io/bundle-source.js";
import {
  bundle,
  codes,
  DEADLINE,
  escaped,
  game,
  header,
  killed,
  live,
  score,
  sha,
  T0,
  warningCodes,
  type Rec,
  type State,
} from "./helpers/bundle.js";
import { scratch } from "./helpers/shared.js";

type Files = Record<string, string | Buffer>;
type Entry = ReturnType<typeof score>;
const J = "journal.jsonl";

/** [code, file, line] of every error, in report order. */
const found = (e: Entry) => e.errors.map((f) => [f.code, f.file, f.line]);
const valid = (e: Entry) => {
  expect(found(e)).toEqual([]);
  expect(e.validity).toBe("valid");
};

// Record builders; `s` is seconds after T0.
const at = (s: number) => T0 + s * 1000;
const obs = (frame: number, s: number, state: State = live()): Rec => ({
  type: "observation",
  at: at(s),
  frame,
  state,
});
const keys = (frame: number, s: number): Rec => ({ type: "keys", at: at(s), frame, keys: "l" });
const finalScore = (s: number): Rec => ({ type: "score", at: at(s), final: true, snapshot: "auto" });
const midScore = (s: number): Rec => ({ type: "score", at: at(s), final: false, snapshot: null });
const end = (s: number, status = "completed"): Rec => ({ type: "end", at: at(s), status, reason: "test" });
const withHeader = (over: Rec, recs: Rec[] = game()): Rec[] => [{ ...recs[0], ...over }, ...recs.slice(1)];
/** The journal lines of a bundle, without their \n. */
const journalLines = (files: Files) => String(files[J]).split("\n").slice(0, -1);
const run = (recs: (Rec | { raw: string })[], o: Parameters<typeof bundle>[1] = {}) => score(bundle(recs, o));

// game(): 1 header, 2 obs 0, 3 keys, 4 obs 1, 5 keys, 6 obs 2 (killed), 7 final score, 8 end.

describe("the fixtures", () => {
  it("a default game and the hand-built records are valid", () => {
    valid(run(game()));
    valid(run([header(), obs(0, 1), keys(0, 2), obs(1, 3, killed()), finalScore(4), end(5)]));
  });
});

describe("JOURNAL_CHAIN", () => {
  /** The distinct lines with a JOURNAL_CHAIN finding (a line may fail both seq and prev). */
  const chainLines = (e: Entry) => [...new Set(e.errors.filter((f) => f.code === "JOURNAL_CHAIN").map((f) => f.line))];

  it("a lost line: every later line's seq and the next prev fail", () => {
    const files = bundle(game());
    const lines = journalLines(files);
    lines.splice(2, 1); // drop the keys on line 3
    const e = score({ ...files, [J]: lines.map((l) => l + "\n").join("") });
    expect(codes(e)).toEqual(["JOURNAL_CHAIN"]);
    expect(chainLines(e)).toEqual([3, 4, 5, 6, 7]);
  });

  it("a seq that skips a number", () => {
    const recs = game();
    recs[3] = { ...recs[3], seq: 4 };
    expect(found(run(recs))).toEqual([["JOURNAL_CHAIN", J, 4]]);
  });

  it("two lines swapped", () => {
    const files = bundle(game());
    const lines = journalLines(files);
    [lines[2], lines[4]] = [lines[4]!, lines[2]!]; // the two keys lines
    const e = score({ ...files, [J]: lines.map((l) => l + "\n").join("") });
    expect(chainLines(e)).toEqual([3, 4, 5, 6]);
    expect(e.errors.every((f) => f.file === J)).toBe(true);
  });

  it("a wrong prev", () => {
    const recs = game();
    recs[4] = { ...recs[4], prev: "ab".repeat(32) };
    expect(found(run(recs))).toEqual([["JOURNAL_CHAIN", J, 5]]);
  });

  it("a wrong prev on line 1 (must be 64 zeros)", () => {
    const recs = game();
    recs[0] = { ...recs[0], prev: "1".repeat(64) };
    expect(found(run(recs))).toEqual([["JOURNAL_CHAIN", J, 1]]);
  });

  it("the line after an altered line", () => {
    const files = bundle(game());
    const lines = journalLines(files);
    lines[2] = lines[2]!.replace('"keys":"l"', '"keys":"m"'); // still well formed, but rewritten
    const e = score({ ...files, [J]: lines.map((l) => l + "\n").join("") });
    expect(found(e)).toEqual([["JOURNAL_CHAIN", J, 4]]);
  });
});

describe("HEADER_MISSING", () => {
  it("line 1 is another type", () => {
    expect(found(run(game().slice(1)))).toEqual([["HEADER_MISSING", J, 1]]);
  });

  it("an empty journal", () => {
    const e = score({ [J]: "" });
    expect(found(e)).toEqual([["HEADER_MISSING", J, null]]);
    expect(e.validity).toBe("invalid");
  });
});

describe("header rules", () => {
  it("FORMAT_UNSUPPORTED: assay.bundle/2", () => {
    expect(found(run(withHeader({ format: "assay.bundle/2" })))).toEqual([["FORMAT_UNSUPPORTED", J, 1]]);
  });

  it("a format that is no assay.bundle at all is invalid at line 1", () => {
    const e = run(withHeader({ format: "other/1" }));
    expect(e.validity).toBe("invalid");
    expect(e.errors.map((f) => [f.file, f.line])).toContainEqual([J, 1]);
  });

  it.each(["other", "World", "native"])("PROFILE_UNSUPPORTED: %s", (profile) => {
    const e = run(withHeader({ profile }));
    expect(found(e)).toContainEqual(["PROFILE_UNSUPPORTED", J, 1]);
    expect(e.validity).toBe("invalid");
  });

  it.each([
    ["upper case", "00112233445566778899AABBCCDDEEFF"],
    ["odd length", "00112233445566778"],
    ["14 digits", "00112233445566"],
    ["130 digits", "ab".repeat(65)],
    ["a 0x prefix", "0x00112233445566778899"],
    ["surrounding space", " 0011223344556677"],
  ])("SEED_NOT_CANONICAL: %s", (_name, seed) => {
    expect(found(run(game({ seed })))).toEqual([["SEED_NOT_CANONICAL", J, 1]]);
  });

  it.each([
    ["16 digits", "0123456789abcdef"],
    ["128 digits", "0f".repeat(64)],
  ])("a canonical seed of %s is valid", (_name, seed) => {
    const e = run(game({ seed }));
    valid(e);
    expect(e.seed).toBe(seed);
  });

  it("DEADLINE_INVALID: deadline equal to the header's at", () => {
    expect(found(run(game({ deadline: T0 })))).toContainEqual(["DEADLINE_INVALID", J, 1]);
  });

  it("DEADLINE_INVALID: deadline before the header's at", () => {
    expect(found(run(game({ deadline: T0 - 1 })))).toContainEqual(["DEADLINE_INVALID", J, 1]);
  });

  it("a deadline one millisecond after the header is valid", () => {
    const e = run(game({ deadline: T0 + 1, states: [killed()] }));
    valid(e);
    expect(e.late).toBe(true);
  });
});

describe("SCHEMA", () => {
  const headerKeys = [
    "at",
    "type",
    "format",
    "profile",
    "session",
    "experiment",
    "trial",
    "attempt",
    "seed",
    "harness",
    "deadline",
    "meta",
  ];
  it.each(headerKeys)("a header without %s", (key) => {
    const recs = game();
    const h = { ...recs[0] };
    delete h[key];
    const e = run([h, ...recs.slice(1)]);
    expect(found(e)).toEqual([["SCHEMA", J, 1]]);
  });

  const meta64 = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, i]));
  it.each<[string, Rec]>([
    ["an extra key", { note: "x" }],
    ["meta with 65 keys", { meta: { ...meta64, k64: 1 } }],
    ["meta.task a number", { meta: { task: 7 } }],
    ["meta.task a boolean", { meta: { task: true } }],
    ["a meta key with upper case", { meta: { Model: "m" } }],
    ["a meta key starting with a digit", { meta: { "1model": "m" } }],
    ["a meta key of 65 characters", { meta: { ["k" + "a".repeat(64)]: 1 } }],
    ["a meta string of 1025 code points", { meta: { note: "x".repeat(1025) } }],
    ["a null meta value", { meta: { note: null } }],
    ["an array meta value", { meta: { note: [1] } }],
    ["an object meta value", { meta: { note: {} } }],
    ["meta an array", { meta: [] }],
    ["attempt 0", { attempt: 0 }],
    ["attempt a string", { attempt: "1" }],
    ["a session that is not an id", { session: "-s1" }],
    ["an experiment with a space", { experiment: "my exp" }],
    ["a trial of 129 characters", { trial: "t".repeat(129) }],
    ["a harness revision of 65 code points", { harness: { name: "h", revision: "r".repeat(65) } }],
    ["a harness with an extra key", { harness: { name: "h", revision: "1", url: "x" } }],
    ["a harness name that is not an id", { harness: { name: "h h", revision: "1" } }],
    ["a deadline that is a string", { deadline: String(DEADLINE) }],
    ["a seed that is a number", { seed: 1234567890123456 }],
  ])("a header with %s", (_name, over) => {
    expect(found(run(withHeader(over)))).toEqual([["SCHEMA", J, 1]]);
  });

  it.each<[string, Rec]>([
    ["meta with 64 keys", { meta: meta64 }],
    ["meta.task a string", { meta: { task: "t-7" } }],
    ["empty meta", { meta: {} }],
    ["a meta key of 64 characters, dots and dashes", { meta: { ["k" + "a.-_".repeat(15) + "abc"]: false } }],
    ["a meta string of 1024 astral code points", { meta: { note: "😀".repeat(1024) } }],
    ["a harness revision of 64 code points", { harness: { name: "h", revision: "é".repeat(64) } }],
  ])("a header with %s is valid", (_name, over) => {
    valid(run(withHeader(over)));
  });

  it("meta.task is reported as the task", () => {
    expect(run(withHeader({ meta: { task: "t-7" } })).task).toBe("t-7");
  });

  // Observation 1 is line 4; a malformed one there disturbs no later rule.
  const badObs = (state: unknown) => game({ states: [live(), state as State, killed()] });
  const item = live().inventory[0]!;
  it.each<[string, unknown]>([
    ["died_from of 81 code points", live({ turn: 20, died_from: "x".repeat(81) })],
    ["died_from of 81 astral code points", live({ turn: 20, died_from: "😀".repeat(81) })],
    ["inventory with duplicate slots", live({ turn: 20, inventory: [item, { ...item, tval: 30 }] })],
    ["max_depth below depth", live({ turn: 20, depth: 5, max_depth: 4 })],
    ["depth 21", live({ turn: 20, depth: 21, max_depth: 21 })],
    ["a falsey 0 for a boolean", live({ turn: 20, playing: 0 as unknown as boolean })],
    ["null for a boolean", live({ turn: 20, wizard: null as unknown as boolean })],
    ["a missing field", (({ silmarils: _s, ...rest }) => rest)(live({ turn: 20 }))],
    ["an extra field", { ...live({ turn: 20 }), score: 10 }],
    ["an inventory item with an extra key", live({ turn: 20, inventory: [{ ...item, name2: 0 } as typeof item] })],
    ["slot 38", live({ turn: 20, inventory: [{ ...item, slot: 38 }] })],
    ["number 100", live({ turn: 20, inventory: [{ ...item, number: 100 }] })],
    ["tval 256", live({ turn: 20, inventory: [{ ...item, tval: 256 }] })],
    ["negative k_idx", live({ turn: 20, inventory: [{ ...item, k_idx: -1 }] })],
    [
      "39 inventory items",
      live({ turn: 20, inventory: Array.from({ length: 39 }, (_, i) => ({ ...item, slot: i % 38 })) }),
    ],
    ["noscore 65536", live({ turn: 20, noscore: 65536 })],
    ["a negative turn", live({ turn: -1 })],
  ])("an observation with %s", (_name, state) => {
    expect(found(run(badObs(state)))).toEqual([["SCHEMA", J, 4]]);
  });

  it.each<[string, State]>([
    ["died_from of 80 astral code points", killed({ died_from: "😀".repeat(80) })],
    [
      "38 inventory items in slots 0..37",
      killed({ inventory: Array.from({ length: 38 }, (_, i) => ({ ...item, slot: i })) }),
    ],
  ])("an ending with %s is valid", (_name, state) => {
    valid(run(game({ states: [live(), state] })));
  });

  it("an extra key in a record", () => {
    const recs = game();
    recs[2] = { ...recs[2], note: "x" };
    expect(found(run(recs))).toEqual([["SCHEMA", J, 3]]);
  });

  it.each<[string, Rec]>([
    ["final true with a null snapshot", { final: true, snapshot: null }],
    ["final false with a snapshot", { final: false, snapshot: "ab".repeat(32) }],
    ["a snapshot that is no digest", { final: true, snapshot: "AB".repeat(32) }],
    ["final as 1", { final: 1, snapshot: "ab".repeat(32) }],
  ])("a score with %s", (_name, over) => {
    const recs = game();
    recs[6] = { type: "score", at: recs[6]!["at"], ...over };
    expect(found(run(recs))).toEqual([["SCHEMA", J, 7]]);
  });

  it.each<[string, Rec]>([
    ["empty keys", { keys: "" }],
    ["257 keys", { keys: "k".repeat(257) }],
    ["keys as an array", { keys: ["l"] }],
  ])("a keys record with %s", (_name, over) => {
    const recs = game();
    recs[2] = { ...recs[2], ...over };
    expect(found(run(recs))).toEqual([["SCHEMA", J, 3]]);
  });

  it("a keys record of 256 astral code points is valid", () => {
    const recs = game();
    recs[2] = { ...recs[2], keys: "😀".repeat(256) };
    valid(run(recs));
  });

  it.each<[string, Rec]>([
    ["an unknown status", { status: "done" }],
    ["a reason of 513 code points", { reason: "r".repeat(513) }],
  ])("an end record with %s", (_name, over) => {
    const recs = game();
    recs[7] = { ...recs[7], ...over };
    expect(found(run(recs, { summary: null }))).toEqual([["SCHEMA", J, 8]]);
  });

  it("an unknown record type", () => {
    const recs = game();
    recs.splice(2, 0, { type: "note", at: recs[1]!["at"], text: "hello" });
    expect(found(run(recs))).toEqual([["SCHEMA", J, 3]]);
  });

  it.each<[string, Rec]>([
    ["seq a string", { seq: "2" }],
    ["at a string", { at: "1788000002000" }],
    ["type missing", { type: undefined }],
    ["prev upper case", { prev: "AB".repeat(32) }],
  ])("an envelope with %s", (_name, over) => {
    const recs = game();
    recs[2] = { ...recs[2], ...over };
    expect(found(run(recs))).toEqual([["SCHEMA", J, 3]]);
  });
});

describe("TRANSITION", () => {
  const H = () => header();

  it("a decreasing at", () => {
    const recs = game();
    recs[2] = { ...recs[2], at: T0 + 500 }; // before the observation on line 2
    expect(found(run(recs))).toEqual([["TRANSITION", J, 3]]);
  });

  it("an equal at is not decreasing", () => {
    const recs = game();
    recs[2] = { ...recs[2], at: recs[1]!["at"] };
    valid(run(recs));
  });

  it("a second session header", () => {
    const e = run([H(), obs(0, 1), { ...H(), at: at(2) }, obs(1, 3, killed()), finalScore(4), end(5)]);
    expect(found(e)).toContainEqual(["TRANSITION", J, 3]);
    expect(codes(e)).not.toContain("HEADER_MISSING");
  });

  it("a frame that skips", () => {
    expect(found(run([H(), obs(0, 1), keys(0, 2), obs(2, 3, killed()), finalScore(4), end(5)]))).toEqual([
      ["TRANSITION", J, 4],
    ]);
  });

  it("a frame that repeats", () => {
    expect(found(run([H(), obs(0, 1), obs(0, 2, killed()), finalScore(3), end(4)]))).toEqual([["TRANSITION", J, 3]]);
  });

  it("a first frame that is not 0", () => {
    expect(found(run([H(), obs(1, 1, killed()), finalScore(2), end(3)]))).toEqual([["TRANSITION", J, 2]]);
  });

  it("keys before the first observation", () => {
    expect(found(run([H(), keys(0, 1), obs(0, 2, killed()), finalScore(3), end(4)]))).toEqual([["TRANSITION", J, 2]]);
  });

  it("keys for a stale frame", () => {
    const recs = [H(), obs(0, 1), keys(0, 2), obs(1, 3), keys(0, 4), obs(2, 5, killed()), finalScore(6), end(7)];
    expect(found(run(recs))).toEqual([["TRANSITION", J, 5]]);
  });

  it("keys for a frame not yet observed", () => {
    expect(found(run([H(), obs(0, 1), keys(1, 2), obs(1, 3, killed()), finalScore(4), end(5)]))).toEqual([
      ["TRANSITION", J, 3],
    ]);
  });

  it("keys after the deadline", () => {
    const recs = [
      header({ deadline: at(2.5) }),
      obs(0, 1),
      keys(0, 2),
      keys(0, 3),
      obs(1, 4, killed()),
      finalScore(5),
      end(6),
    ];
    expect(found(run(recs))).toEqual([["TRANSITION", J, 4]]);
  });

  it("keys at the deadline are admitted", () => {
    valid(run([header({ deadline: at(2) }), obs(0, 1), keys(0, 2), obs(1, 3, killed()), finalScore(4), end(5)]));
  });

  it("keys after the deadline, after the ending", () => {
    const recs = [
      header({ deadline: at(4.5) }),
      obs(0, 1),
      keys(0, 2),
      obs(1, 3, killed()),
      keys(1, 4),
      keys(1, 5),
      finalScore(6),
      end(7),
    ];
    expect(found(run(recs))).toEqual([["TRANSITION", J, 6]]);
  });

  // Whatever else is wrong with the header, a sound deadline (an integer literal after its `at`)
  // still judges the keys: a bad seed must not hide keys the service admitted late.
  const late = (over: Rec) =>
    run([
      { ...header({ deadline: at(2.5) }), ...over },
      obs(0, 1),
      keys(0, 2),
      keys(0, 3),
      obs(1, 4, killed()),
      finalScore(5),
      end(6),
    ]);

  it.each<[string, Rec, string]>([
    ["a non-canonical seed", { seed: "00112233445566778899AABBCCDDEEFF" }, "SEED_NOT_CANONICAL"],
    ["a bad meta key", { meta: { Model: "m-1" } }, "SCHEMA"],
    ["a missing harness", { harness: undefined }, "SCHEMA"],
    ["a non-id experiment", { experiment: "no spaces" }, "SCHEMA"],
  ])("keys after the deadline are reported beside %s", (_name, over, code) => {
    expect(found(late(over))).toEqual([
      [code, J, 1],
      ["TRANSITION", J, 4],
    ]);
  });

  it.each<[string, Rec, string]>([
    ["DEADLINE_INVALID (deadline before the header's at)", { deadline: T0 - 1 }, "DEADLINE_INVALID"],
    ["DEADLINE_INVALID (deadline equal to the header's at)", { deadline: T0 }, "DEADLINE_INVALID"],
    ["a deadline that is no integer", { deadline: String(at(2.5)) }, "SCHEMA"],
  ])("no deadline rule without a sound deadline: %s", (_name, over, code) => {
    // Every key would be late against T0; none is reported, only the header's own finding.
    const e = late(over);
    expect(codes(e)).toEqual([code]);
    expect(e.errors.every((f) => f.line === 1)).toBe(true);
  });

  it("a score before the first observation", () => {
    expect(found(run([H(), midScore(1), obs(0, 2, killed()), finalScore(3), end(4)]))).toEqual([["TRANSITION", J, 2]]);
  });

  it.each<[string, Rec]>([
    ["keys", keys(0, 3)],
    ["an intermediate score", midScore(3)],
    ["a second final score", { type: "score", at: at(3), final: true, snapshot: "cd".repeat(32) }],
  ])("%s after the final score", (_name, rec) => {
    expect(found(run([H(), obs(0, 1), finalScore(2), rec, end(4, "interrupted")]))).toEqual([["TRANSITION", J, 4]]);
  });

  it("an observation after the final score", () => {
    const e = run([H(), obs(0, 1), finalScore(2), obs(1, 3), end(4, "interrupted")]);
    expect(found(e)).toContainEqual(["TRANSITION", J, 4]);
  });

  it("end right after the final score is fine", () => {
    valid(run([H(), obs(0, 1), finalScore(2), end(3, "interrupted")]));
  });

  it.each<[string, Rec]>([
    ["keys", keys(2, 8)],
    ["a second end", end(8, "abnormal")],
    ["an observation", obs(3, 8, killed({ turn: 600 }))],
  ])("%s after the end record", (_name, rec) => {
    const e = run([...game({ score: "none" }), rec]); // 1 header … 6 obs (killed), 7 end, 8 extra
    expect(found(e)).toEqual([["TRANSITION", J, 8]]);
  });

  it("completed without a native ending", () => {
    const recs = game({ states: [live(), live({ turn: 20 })], end: "completed" }); // 5 score, 6 end
    expect(found(run(recs))).toEqual([["TRANSITION", J, 6]]);
  });

  it("interrupted without a final score", () => {
    expect(found(run(game({ states: [live()], score: "none", end: "interrupted" })))).toEqual([["TRANSITION", J, 3]]);
  });

  it("interrupted with only an intermediate score", () => {
    expect(found(run(game({ states: [live()], score: "intermediate", end: "interrupted" })))).toEqual([
      ["TRANSITION", J, 4],
    ]);
  });

  it.each(["abnormal", "resource-bound"])("%s needs neither an ending nor a final score", (status) => {
    const e = run(game({ states: [live()], score: "none", end: status }));
    valid(e);
    expect(e.status).toBe(status);
  });

  it.each<[string, Partial<State>]>([
    ["is_dead", { is_dead: false }],
    ["escaped", { escaped: true }],
  ])("%s changed after the native ending", (_name, change) => {
    const e = run(game({ states: [live(), killed(), killed({ turn: 600, ...change })] }));
    expect(found(e)).toEqual([["TRANSITION", J, 6]]);
  });

  it("other fields may change after the ending (playing, depth, inventory)", () => {
    valid(run(game({ states: [live(), killed(), killed({ turn: 600, playing: false, depth: 0, inventory: [] })] })));
  });

  it.each<[string, State, State]>([
    ["turn", live({ turn: 20 }), live({ turn: 19, playerturn: 10 })],
    ["playerturn", live({ playerturn: 5 }), live({ turn: 20, playerturn: 4 })],
  ])("%s decreasing", (_name, first, second) => {
    expect(found(run(game({ states: [first, second, killed()] })))).toEqual([["TRANSITION", J, 4]]);
  });

  it("turn and playerturn may stay equal", () => {
    valid(run(game({ states: [live(), live(), killed({ turn: 10, playerturn: 5 })] })));
  });

  it("every failing line is reported", () => {
    const recs = [H(), keys(0, 1), obs(1, 2), keys(0, 3), obs(2, 4, killed()), finalScore(5), end(6)];
    expect(found(run(recs))).toEqual([
      ["TRANSITION", J, 2],
      ["TRANSITION", J, 3],
      ["TRANSITION", J, 4],
    ]);
  });
});

/** A bundle whose summary is rewritten by `change` from the correct one. */
function withSummary(recs: Rec[], change: (s: Rec) => void): Files {
  const files = bundle(recs);
  const s = JSON.parse(String(files["summary.json"]));
  change(s);
  return { ...files, "summary.json": JSON.stringify(s) };
}
const mismatched = (e: Entry) => e.errors.filter((f) => f.code === "SUMMARY_MISMATCH");

describe("summary.json", () => {
  it("SUMMARY_MISSING beside an end record", () => {
    expect(found(run(game(), { summary: null }))).toEqual([["SUMMARY_MISSING", "summary.json", null]]);
  });

  it.each<[string, (s: any) => void]>([
    ["journal.head", (s) => (s.journal.head = "ab".repeat(32))],
    ["journal.records", (s) => (s.journal.records += 1)],
    ["counts.keys", (s) => (s.counts.keys += 1)],
    ["counts.observations", (s) => (s.counts.observations -= 1)],
    ["counts.scores", (s) => (s.counts.scores = 0)],
    ["status", (s) => (s.status = "abnormal")],
    ["ended_at", (s) => (s.ended_at += 1)],
    ["native_ending", (s) => (s.native_ending = null)],
    ["native_ending.frame", (s) => (s.native_ending.frame = 1)],
    ["native_ending.escaped", (s) => (s.native_ending.escaped = true)],
    ["snapshot", (s) => (s.snapshot = "ab".repeat(32))],
    ["seed", (s) => (s.seed = "ff".repeat(16))],
    ["attempt", (s) => (s.attempt = 2)],
    ["session", (s) => (s.session = "other")],
    ["format", (s) => (s.format = "assay.summary/2")],
  ])("SUMMARY_MISMATCH names %s", (field, change) => {
    const e = score(withSummary(game(), change));
    expect(found(e)).toEqual([["SUMMARY_MISMATCH", "summary.json", null]]);
    expect(e.errors[0]!.message).toContain(field);
  });

  it("SUMMARY_MISMATCH: a summary claiming a victory the journal does not earn", () => {
    const e = score(withSummary(game(), (s) => (s["victory"] = true)));
    expect(found(e)).toEqual([["SUMMARY_MISMATCH", "summary.json", null]]);
    expect(mismatched(e)[0]!.message).toMatch(/\bvictory\b/);
    expect(e.victory).toBeNull();
  });

  it("SUMMARY_MISMATCH: a summary denying a victory the journal earns", () => {
    const recs = game({ states: [live(), escaped()] });
    expect(run(recs).victory).toBe(true);
    const e = score(withSummary(recs, (s) => (s["victory"] = false)));
    expect(found(e)).toEqual([["SUMMARY_MISMATCH", "summary.json", null]]);
    expect(mismatched(e)[0]!.message).toMatch(/\bvictory\b/);
    expect(e.validity).toBe("invalid");
  });

  it("a wrong counts.keys names that field only", () => {
    const e = score(withSummary(game(), (s) => ((s["counts"] as Rec)["keys"] = 99)));
    expect(mismatched(e)).toHaveLength(1);
    expect(mismatched(e)[0]!.message).toMatch(/counts\.keys/);
    expect(mismatched(e)[0]!.message).not.toMatch(/counts\.(observations|scores)/);
  });

  it("several wrong fields are each named", () => {
    const e = score(withSummary(game(), (s) => Object.assign(s, { status: "abnormal", victory: true })));
    const messages = mismatched(e)
      .map((f) => f.message)
      .join("\n");
    expect(messages).toMatch(/\bstatus\b/);
    expect(messages).toMatch(/\bvictory\b/);
  });

  it.each<[string, (s: any) => void]>([
    ["an extra key", (s) => (s.note = "x")],
    ["a missing key", (s) => delete s.counts],
    ["victory as 0", (s) => (s.victory = 0)],
    ["an extra key in counts", (s) => (s.counts.extra = 0)],
  ])("a summary with %s is SCHEMA", (_name, change) => {
    expect(found(score(withSummary(game(), change)))).toEqual([["SCHEMA", "summary.json", null]]);
  });

  it("SUMMARY_UNEXPECTED: a summary beside an unterminated journal is a warning, not checked", () => {
    const e = run(game({ end: null }), { extra: { "summary.json": '{"victory": true, "garbage": ' } });
    valid(e);
    expect(e.warnings.map((w) => [w.code, w.file])).toEqual([["SUMMARY_UNEXPECTED", "summary.json"]]);
    expect(e.status).toBe("unterminated");
  });

  it("no summary beside an unterminated journal is fine", () => {
    const e = run(game({ end: null }));
    valid(e);
    expect(warningCodes(e)).toEqual([]);
  });
});

describe("snapshot.json", () => {
  it("SNAPSHOT_MISSING beside a final score", () => {
    expect(found(run(game(), { snapshot: null }))).toEqual([["SNAPSHOT_MISSING", "snapshot.json", null]]);
  });

  it("SNAPSHOT_MISSING beside an unterminated journal holding a final score", () => {
    expect(found(run(game({ end: null }), { snapshot: null }))).toEqual([["SNAPSHOT_MISSING", "snapshot.json", null]]);
  });

  it("not read without a final score: any snapshot.json there is an opaque file", () => {
    valid(run(game({ score: "none" }), { extra: { "snapshot.json": "not json at all" } }));
    valid(run(game({ score: "intermediate" }), { extra: { "snapshot.json": "{" } }));
  });

  it("SNAPSHOT_MISMATCH: the file digest differs from the final score's", () => {
    const files = bundle(game());
    const e = score({ ...files, "snapshot.json": files["snapshot.json"] + " " }); // same value, other bytes
    expect(found(e)).toEqual([["SNAPSHOT_MISMATCH", "snapshot.json", null]]);
  });

  it.each<[string, Rec]>([
    ["the state differs", { state: killed({ turn: 501 }) }],
    ["the frame differs", { frame: 1 }],
    ["the session differs", { session: "other-session" }],
    ["the format differs", { format: "assay.snapshot/2" }],
    ["at is before the last observation", { at: T0 + 4_999 }],
  ])("SNAPSHOT_MISMATCH: %s", (_name, over) => {
    expect(found(run(game(), { snapshot: over }))).toEqual([["SNAPSHOT_MISMATCH", "snapshot.json", null]]);
  });

  it("a snapshot taken at the last observation's at is fine", () => {
    valid(run(game(), { snapshot: { at: T0 + 5_000 } }));
  });

  it("a snapshot with an extra key is SCHEMA", () => {
    expect(found(run(game(), { snapshot: { note: "x" } }))).toEqual([["SCHEMA", "snapshot.json", null]]);
  });
});

describe("a journal with a §2/§3 error is not compared with its summary or snapshot", () => {
  // A summary claiming a victory and a snapshot of the wrong frame: both would be mismatches.
  const lying = { summary: { victory: true }, snapshot: { frame: 0 } };
  const companions = ["SUMMARY_MISMATCH", "SNAPSHOT_MISMATCH", "SUMMARY_MISSING", "SNAPSHOT_MISSING"];

  it("control: with no journal error, both are compared", () => {
    expect(codes(run(game(), lying))).toEqual(["SNAPSHOT_MISMATCH", "SUMMARY_MISMATCH"]);
  });

  it("control: a §4 TRANSITION alone does not stop the comparison", () => {
    const recs = [header(), obs(0, 1), keys(0, 2), obs(1, 3), keys(0, 4), obs(2, 5, killed()), finalScore(6), end(7)];
    expect(codes(run(recs, lying))).toEqual(["SNAPSHOT_MISMATCH", "SUMMARY_MISMATCH", "TRANSITION"]);
  });

  const cases: [string, () => Files, string][] = [
    [
      "JOURNAL_CHAIN",
      () => {
        const r = game();
        r[2] = { ...r[2], prev: "ab".repeat(32) };
        return bundle(r, lying);
      },
      "JOURNAL_CHAIN",
    ],
    [
      "JSON_SYNTAX",
      () => {
        const r: (Rec | { raw: string })[] = game();
        r[2] = { raw: "{" };
        return bundle(r, lying);
      },
      "JSON_SYNTAX",
    ],
    [
      "SCHEMA in a record",
      () => {
        const r = game();
        r[2] = { ...r[2], note: 1 };
        return bundle(r, lying);
      },
      "SCHEMA",
    ],
    ["SCHEMA in the header", () => bundle(withHeader({ note: 1 }), lying), "SCHEMA"],
    ["SEED_NOT_CANONICAL", () => bundle(game({ seed: "AB".repeat(8) }), lying), "SEED_NOT_CANONICAL"],
    ["DEADLINE_INVALID", () => bundle(game({ deadline: T0 }), lying), "DEADLINE_INVALID"],
    [
      "a decreasing at (§3)",
      () => {
        const r = game();
        r[2] = { ...r[2], at: T0 + 1 };
        return bundle(r, lying);
      },
      "TRANSITION",
    ],
    [
      "a second session header (§3)",
      () =>
        bundle([header(), obs(0, 1), { ...header(), at: at(2) }, obs(1, 3, killed()), finalScore(4), end(5)], lying),
      "TRANSITION",
    ],
    ["a torn tail after end (§2)", () => bundle(game(), { ...lying, tail: "{" }), "TRANSITION"],
  ];
  it.each(cases)("%s", (_name, files, code) => {
    const e = score(files());
    expect(codes(e)).toContain(code);
    for (const c of companions) expect(codes(e)).not.toContain(c);
  });
});

describe("UNSAFE_PATH (files on disk)", () => {
  const { dir: root } = scratch("assay-codes-");
  let n = 0;

  /** Write a valid game's bundle to a fresh directory; returns its path. */
  const onDisk = (files: Files = bundle(game())): string => {
    const dir = join(root, `b${n++}`);
    for (const [p, b] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), b);
    }
    return dir;
  };
  const scoreDir = (dir: string) => scoreBundle(diskBundle(dir));
  const unsafe = (e: Entry) => e.errors.filter((f) => f.code === "UNSAFE_PATH").map((f) => [f.file, f.line]);

  it("a plain bundle on disk is valid, with the same digest as in memory", () => {
    const files = bundle(game(), { extra: { "logs/agent.txt": "hello", "logs/deep/x.bin": Buffer.from([0, 1, 2]) } });
    const e = scoreDir(onDisk(files));
    valid(e);
    expect(e.digest).toBe(score(files).digest);
  });

  it("a symlink to a file inside the bundle", () => {
    const dir = onDisk();
    symlinkSync("summary.json", join(dir, "alias.json"));
    const e = scoreDir(dir);
    expect(unsafe(e)).toEqual([["alias.json", null]]);
    expect(e.validity).toBe("invalid");
  });

  it("a symlink pointing outside the bundle, and a dangling one", () => {
    const outside = join(root, "outside.txt");
    writeFileSync(outside, "secret");
    const dir = onDisk();
    symlinkSync(outside, join(dir, "out.txt"));
    symlinkSync("missing-target", join(dir, "dangling"));
    expect(unsafe(scoreDir(dir)).sort()).toEqual([
      ["dangling", null],
      ["out.txt", null],
    ]);
  });

  it("a symlinked directory, without descending into it", () => {
    const target = join(root, "target-dir");
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "inner.txt"), "x");
    const dir = onDisk();
    symlinkSync(target, join(dir, "linked"));
    expect(unsafe(scoreDir(dir))).toEqual([["linked", null]]);
  });

  it("a journal that is itself a symlink", () => {
    const real = onDisk();
    const dir = onDisk({ "summary.json": bundle(game())["summary.json"]! });
    symlinkSync(join(real, J), join(dir, J));
    const e = scoreDir(dir);
    expect(unsafe(e)).toContainEqual([J, null]);
    expect(e.validity).toBe("invalid");
    expect(e.victory).toBeNull();
  });

  it("a FIFO, at the top and nested (never opened)", () => {
    const dir = onDisk(bundle(game(), { extra: { "sub/keep.txt": "x" } }));
    execFileSync("mkfifo", [join(dir, "pipe"), join(dir, "sub", "pipe2")]);
    expect(unsafe(scoreDir(dir)).sort()).toEqual([
      ["pipe", null],
      ["sub/pipe2", null],
    ]);
  });

  it.each([
    ["a tab", "notes\tfile.txt"],
    ["a newline", "notes\nfile.txt"],
    ["a carriage return", "notes\rfile.txt"],
    ["a tab, in a subdirectory", "logs/a\tb.txt"],
  ])("a file name holding %s", (_name, path) => {
    const e = scoreDir(onDisk(bundle(game(), { extra: { [path]: "x" } })));
    expect(unsafe(e)).toEqual([[path, null]]);
  });

  it("a directory name holding a tab", () => {
    const e = scoreDir(onDisk(bundle(game(), { extra: { "d\tx/file.txt": "x" } })));
    expect(unsafe(e)).toContainEqual(["d\tx", null]);
    expect(e.validity).toBe("invalid");
  });

  it("a file larger than 4 GiB (sparse, never read)", () => {
    const dir = onDisk();
    writeFileSync(join(dir, "huge.bin"), "");
    truncateSync(join(dir, "huge.bin"), 4 * 1024 ** 3 + 1);
    expect(unsafe(scoreDir(dir))).toEqual([["huge.bin", null]]);
  });

  it("a file of exactly 4 GiB is not unsafe by size", () => {
    const src = diskBundle(onDisk());
    const e = scoreBundle({
      entries: [...src.entries, { path: "big.bin", kind: "file", size: 4 * 1024 ** 3 }],
      read: (p) => (p === "big.bin" ? [Buffer.from("x")] : src.read(p)),
    });
    expect(unsafe(e)).toEqual([]);
  });
});

describe("bundle digest (§7)", () => {
  /** Independent §7 digest: sorted by UTF-8 byte order, seal.json excluded. */
  const digestOf = (files: Files) => {
    const rows = Object.entries(files)
      .filter(([p]) => p !== "seal.json")
      .map(([p, b]) => [p, sha(Buffer.isBuffer(b) ? b : Buffer.from(b))] as const)
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return sha(rows.map(([p, d]) => `${p}\t${d}\n`).join(""));
  };
  const files = () => bundle(game(), { extra: { "notes.txt": "n" } });

  it("is SHA-256 over sorted '<path>\\t<file digest>\\n' lines of every regular file", () => {
    const f = files();
    expect(score(f).digest).toBe(digestOf(f));
  });

  it("sorts paths by byte order, not UTF-16 order, and by '/'-separated paths", () => {
    const f = bundle(game(), {
      extra: { "\u{E000}.txt": "a", "\u{1F600}.txt": "b", "B.txt": "c", "a/b.txt": "d", "a.txt": "e", "a-b/c": "f" },
    });
    expect(score(f).digest).toBe(digestOf(f));
  });

  it.each(["journal.jsonl", "summary.json", "snapshot.json", "notes.txt"])("changes when %s changes", (path) => {
    const f = files();
    const changed = { ...f, [path]: Buffer.concat([Buffer.from(f[path]!), Buffer.from(" ")]) };
    expect(score(changed).digest).not.toBe(score(f).digest);
    expect(score(changed).digest).toBe(digestOf(changed));
  });

  it("an extra opaque file enters it", () => {
    const f = bundle(game());
    const more = { ...f, "extra/log.txt": "anything" };
    expect(score(more).digest).not.toBe(score(f).digest);
    expect(score(more).digest).toBe(digestOf(more));
    valid(score(more));
  });

  it("an empty extra file enters it too", () => {
    const f = bundle(game());
    expect(score({ ...f, empty: "" }).digest).not.toBe(score(f).digest);
  });

  it("excludes seal.json, whatever it holds", () => {
    const f = files();
    const d = score(f).digest;
    expect(score({ ...f, "seal.json": '{"format":"assay.seal/1","alg":"HMAC-SHA256","mac":"00"}' }).digest).toBe(d);
    expect(score({ ...f, "seal.json": "other bytes" }).digest).toBe(d);
  });

  it("excludes only the bundle's own seal.json, not one in a subdirectory", () => {
    const f = files();
    expect(score({ ...f, "sub/seal.json": "x" }).digest).not.toBe(score(f).digest);
  });

  it("covers companions that are not read: an unread snapshot, an unchecked summary, files behind a journal error", () => {
    const unread = bundle(game({ score: "none" }), { extra: { "snapshot.json": "opaque" } });
    expect(score(unread).digest).toBe(digestOf(unread));
    const unchecked = bundle(game({ end: null }), { extra: { "summary.json": "{}" } });
    expect(score(unchecked).digest).toBe(digestOf(unchecked));
    const recs = game();
    recs[2] = { ...recs[2], prev: "ab".repeat(32) };
    const broken = bundle(recs);
    expect(score(broken).digest).toBe(digestOf(broken));
  });
});
