import { describe, expect, it } from "vitest";
import { bundle, codes, game, score } from "./helpers/bundle.js";

describe("helpers", () => {
  it("a default game is a valid, scored death", () => {
    const e = score(bundle(game()));
    expect(codes(e)).toEqual([]);
    expect(e).toMatchObject({ validity: "valid", status: "completed", ending: true, victory: false, late: false });
  });
});
