// Native ending and victory (contract §4.3), each rule on both sides of its line, checked against
// the scorer's `ending`/`victory`/`late` and the independent oracle in the test helpers.

import { describe, expect, it } from "vitest";
import {
  bundle,
  codes,
  CROWN,
  DEADLINE,
  escaped,
  game,
  header,
  killed,
  live,
  oracleVictory,
  score,
  SILMARIL,
  T0,
  type Rec,
  type State,
} from "./helpers/bundle.js";

type Entry = ReturnType<typeof score>;
const plain = live().inventory[0]!;

/**
 * Play live() then `ending` (observations at T0+1000 and T0+3000, keys between), a final score and
 * the default end status. Returns the scorer's entry and the oracle's verdict on the same state.
 */
function play(ending: State, deadline = DEADLINE) {
  const recs = game({ states: [live(), ending], deadline });
  const e = score(bundle(recs));
  const endObs = recs.find((r) => r["type"] === "observation" && (r["state"] as State).is_dead);
  const oracle = endObs !== undefined && oracleVictory(ending, endObs["at"] as number, deadline);
  return { e, oracle };
}

function expectValid(e: Entry) {
  expect(e.errors).toEqual([]);
  expect(e.validity).toBe("valid");
}

/** The ending is recorded and decides; `win` says whether it is a victory. */
function expectEnding(ending: State, win: boolean) {
  const { e, oracle } = play(ending);
  expectValid(e);
  expect(oracle).toBe(win);
  expect(e).toMatchObject({ ending: true, victory: win, late: false });
}

describe("the winning state", () => {
  it("escaped() with a Silmaril on the surface, by the deadline, is a victory", () => {
    expectEnding(escaped(), true);
  });
});

describe("what counts as the native ending", () => {
  it("escape clears playing and sets is_dead and escaped: an ending and a win", () => {
    expectEnding(escaped({ playing: false, is_dead: true, escaped: true }), true);
  });

  it("escaped without is_dead is no ending at all, so no win", () => {
    const { e, oracle } = play(escaped({ is_dead: false }));
    expectValid(e);
    expect(oracle).toBe(false);
    expect(e).toMatchObject({ ending: false, victory: false, late: null, status: "interrupted" });
  });

  it("a monster kill (is_dead, playing still set) is the ending but not a win", () => {
    expectEnding(killed(), false);
  });

  it("escaped and is_dead but playing still set is the ending but not a win", () => {
    expectEnding(escaped({ playing: true }), false);
  });

  it("retirement (is_dead, !playing, !escaped) is the ending but not a win", () => {
    expectEnding(escaped({ escaped: false }), false);
  });

  it("save-and-quit (playing false, is_dead false) is a suspension, not an ending", () => {
    const { e, oracle } = play(live({ playing: false, turn: 20 }));
    expectValid(e);
    expect(oracle).toBe(false);
    expect(e).toMatchObject({ ending: false, victory: false, late: null });
  });

  it("save-and-quit with the winning inventory on the surface is still no ending", () => {
    const { e } = play(escaped({ is_dead: false, escaped: false }));
    expectValid(e);
    expect(e).toMatchObject({ ending: false, victory: false, late: null });
  });

  it("a game can resume after save-and-quit and then win", () => {
    const recs = game({ states: [live(), live({ playing: false, turn: 20 }), escaped()] });
    const e = score(bundle(recs));
    expectValid(e);
    expect(e).toMatchObject({ ending: true, victory: true });
  });

  it("completed without any ending is invalid (a suspension ends nothing)", () => {
    const recs = game({ states: [live(), live({ playing: false, turn: 20 })], end: "completed" });
    expect(score(bundle(recs)).errors.map((f) => f.code)).toContain("TRANSITION");
  });
});

describe("every victory condition, both sides", () => {
  it.each<[string, Partial<State>, boolean]>([
    ["depth 0", { depth: 0 }, true],
    ["depth 1", { depth: 1 }, false],
    ["depth 20 (Morgoth's throne)", { depth: 20, max_depth: 20 }, false],
    ["character_generated", { character_generated: true }, true],
    ["character not generated", { character_generated: false }, false],
    ["game_type 0 (normal)", { game_type: 0 }, true],
    ["game_type -1 (tutorial)", { game_type: -1 }, false],
    ["game_type 1 (puzzle)", { game_type: 1 }, false],
    ["noscore 0", { noscore: 0 }, true],
    ["noscore 0x1 (cheated death)", { noscore: 0x1 }, false],
    ["noscore 0x2 (wizard)", { noscore: 0x2 }, false],
    ["noscore 0x4 (reserved)", { noscore: 0x4 }, false],
    ["noscore 0x8 (debug)", { noscore: 0x8 }, false],
    ["noscore 0x10 (above the low nibble)", { noscore: 0x10 }, true],
    ["noscore 0xfff0", { noscore: 0xfff0 }, true],
    ["noscore 0x11", { noscore: 0x11 }, false],
    ["noscore 0xffff", { noscore: 0xffff }, false],
    ["wizard off", { wizard: false }, true],
    ["wizard on", { wizard: true }, false],
    ["score_options off", { score_options: false }, true],
    ["score_options on", { score_options: true }, false],
  ])("%s", (_name, change, win) => {
    expectEnding(escaped(change), win);
  });
});

describe("quest-item possession", () => {
  const withItems = (...items: State["inventory"]) => escaped({ inventory: [plain, ...items] });

  it.each<[string, State["inventory"], boolean]>([
    ["a Silmaril, number 1", [SILMARIL], true],
    ["a Silmaril, number 99", [{ ...SILMARIL, number: 99 }], true],
    ["a Silmaril, number 0 (consumed, awaiting a message)", [{ ...SILMARIL, number: 0 }], false],
    ["a Silmaril with k_idx 0", [{ ...SILMARIL, k_idx: 0 }], false],
    ["a Silmaril with k_idx 1", [{ ...SILMARIL, k_idx: 1 }], true],
    ["a Silmaril in the last slot", [{ ...SILMARIL, slot: 37 }], true],
    ["tval 39 but sval 8", [{ ...SILMARIL, sval: 8 }], false],
    ["sval 9 but tval 38", [{ ...SILMARIL, tval: 38 }], false],
    ["the crown with name1 176", [CROWN], true],
    ["the crown with name1 177", [{ ...CROWN, name1: 177 }], true],
    ["the crown with name1 178", [{ ...CROWN, name1: 178 }], true],
    ["the crown with name1 175", [{ ...CROWN, name1: 175 }], false],
    ["the crown with name1 179", [{ ...CROWN, name1: 179 }], false],
    ["the crown with name1 0", [{ ...CROWN, name1: 0 }], false],
    ["the crown, number 0", [{ ...CROWN, number: 0 }], false],
    ["tval 33 sval 49 with name1 176", [{ ...CROWN, sval: 49 }], false],
    ["tval 34 sval 50 with name1 176", [{ ...CROWN, tval: 34 }], false],
    ["a Silmaril of number 0 beside a held crown", [{ ...SILMARIL, number: 0 }, CROWN], true],
    [
      "an empty Silmaril slot and a crown without stones",
      [
        { ...SILMARIL, number: 0 },
        { ...CROWN, name1: 175 },
      ],
      false,
    ],
    ["nothing but an ordinary item", [], false],
  ])("%s", (_name, items, win) => {
    expectEnding(withItems(...items), win);
  });

  it("an empty inventory is no possession", () => {
    expectEnding(escaped({ inventory: [] }), false);
  });

  it("the silmarils counter alone never wins", () => {
    expectEnding(escaped({ silmarils: 3, inventory: [plain] }), false);
  });

  it("the silmarils counter at 0 does not stop a held Silmaril from winning", () => {
    expectEnding(escaped({ silmarils: 0 }), true);
  });
});

describe("what never awards a win", () => {
  it.each<[string, State]>([
    ["died_from naming a victory", escaped({ died_from: "Escaped with a Silmaril!", inventory: [plain] })],
    [
      "died_from of a winner without the item",
      escaped({ died_from: "ripe old age", silmarils: 1, inventory: [plain] }),
    ],
    [
      "reaching depth 20 with a Silmaril and dying",
      killed({ depth: 20, max_depth: 20, silmarils: 1, inventory: [plain, SILMARIL] }),
    ],
    ["escaped-shaped at depth 20", escaped({ depth: 20, max_depth: 20 })],
  ])("%s", (_name, state) => {
    expectEnding(state, false);
  });

  it("a summary saying victory does not make one", () => {
    const recs = game({ states: [live(), killed()] });
    const files = bundle(recs, { summary: { victory: true } });
    const e = score(files);
    expect(e.validity).toBe("invalid");
    expect(e.victory).toBeNull();
  });
});

describe("the deadline", () => {
  // play(): the ending observation is accepted at T0 + 3000.
  const endAt = T0 + 3000;

  it("an ending accepted exactly at the deadline wins (the final score and end after it do not matter)", () => {
    const { e, oracle } = play(escaped(), endAt);
    expectValid(e);
    expect(oracle).toBe(true);
    expect(e).toMatchObject({ ending: true, victory: true, late: false });
  });

  it("an ending one millisecond after the deadline is late, and no victory", () => {
    const { e, oracle } = play(escaped(), endAt - 1);
    expectValid(e);
    expect(oracle).toBe(false);
    expect(e).toMatchObject({ ending: true, victory: false, late: true });
  });

  it("a late loss is late too", () => {
    const { e } = play(killed(), endAt - 1);
    expectValid(e);
    expect(e).toMatchObject({ ending: true, victory: false, late: true });
  });

  it("late is null without an ending", () => {
    const { e } = play(live({ turn: 20 }), endAt - 1);
    expectValid(e);
    expect(e).toMatchObject({ ending: false, victory: false, late: null });
  });

  it("the summary's victory includes the deadline: a late win's summary says false", () => {
    const recs = game({ states: [live(), escaped()], deadline: endAt - 1 });
    expectValid(score(bundle(recs)));
    expect(score(bundle(recs, { summary: { victory: true } })).errors.map((f) => f.code)).toEqual(["SUMMARY_MISMATCH"]);
  });

  it("keys after the ending but before the deadline are allowed (post-game screens)", () => {
    const at = (s: number) => T0 + s * 1000;
    const recs: Rec[] = [
      header({ deadline: at(10) }),
      { type: "observation", at: at(1), frame: 0, state: live() },
      { type: "keys", at: at(2), frame: 0, keys: "l" },
      { type: "observation", at: at(3), frame: 1, state: escaped() },
      { type: "keys", at: at(4), frame: 1, keys: "y" },
      { type: "keys", at: at(10), frame: 1, keys: "n" },
      { type: "score", at: at(11), final: true, snapshot: "auto" },
      { type: "end", at: at(12), status: "completed", reason: "won" },
    ];
    const e = score(bundle(recs));
    expectValid(e);
    expect(e).toMatchObject({ ending: true, victory: true, late: false });
  });
});

describe("the first is_dead observation is the ending", () => {
  it("a later winning-shaped observation cannot turn a loss into a win", () => {
    // first is_dead observation: escaped but still playing (not a win); then playing clears
    const first = escaped({ playing: true });
    const later = escaped({ turn: 950 });
    const recs = game({ states: [live(), first, later] });
    const e = score(bundle(recs));
    expectValid(e);
    expect(oracleVictory(first, T0 + 3000, DEADLINE)).toBe(false);
    expect(e).toMatchObject({ ending: true, victory: false });
  });

  it("a winning ending stays a win when a later observation drops the Silmaril", () => {
    const recs = game({ states: [live(), escaped(), escaped({ turn: 950, inventory: [plain] })] });
    const e = score(bundle(recs));
    expectValid(e);
    expect(e).toMatchObject({ ending: true, victory: true, late: false });
  });

  it("a later observation after the deadline does not make an on-time ending late", () => {
    // ending at T0+3000; the next observation at T0+5000 lies after a T0+4000 deadline
    const recs = game({ states: [live(), escaped(), escaped({ turn: 950 })], deadline: T0 + 4000 });
    const e = score(bundle(recs));
    expectValid(e);
    expect(e).toMatchObject({ ending: true, victory: true, late: false });
  });

  it("the summary's native_ending names the first is_dead observation's frame", () => {
    const recs = game({ states: [live(), killed(), killed({ turn: 600, playing: false })] });
    const files = bundle(recs);
    expect(JSON.parse(String(files["summary.json"])).native_ending.frame).toBe(1);
    expectValid(score(files));
    const wrong = bundle(recs, {
      summary: { native_ending: { at: T0 + 5000, frame: 2, escaped: false, is_dead: true, depth: 7 } },
    });
    expect(codes(score(wrong))).toEqual(["SUMMARY_MISMATCH"]);
  });
});

describe("the ending decides whatever the end status says", () => {
  it.each(["interrupted", "abnormal", "resource-bound"])("a win followed by end %s is still a win", (status) => {
    const e = score(bundle(game({ states: [live(), escaped()], end: status })));
    expectValid(e);
    expect(e).toMatchObject({ status, ending: true, victory: true });
  });

  it.each(["abnormal", "resource-bound"])("a loss followed by end %s is still a recorded ending", (status) => {
    const e = score(bundle(game({ states: [live(), killed()], end: status })));
    expectValid(e);
    expect(e).toMatchObject({ status, ending: true, victory: false });
  });

  it("an unterminated journal with a winning ending is a win", () => {
    const e = score(bundle(game({ states: [live(), escaped()], end: null })));
    expectValid(e);
    expect(e).toMatchObject({ status: "unterminated", ending: true, victory: true });
  });
});
