// A split log's records wait on the main thread for the last part: their recurring short strings
// are kept once (shareStrings), through a table whose size the log cannot push past its bound.

import { describe, expect, it } from "vitest";
import { shareStrings, type SampleRecord } from "../src/kinds/inspect/sample.js";

const record = (i: number, metadata: (string | number | null)[], scores: Record<string, unknown>): SampleRecord => ({
  member: `samples/${i}_epoch_1.json`,
  id: String(i),
  epoch: 1,
  error: null,
  errorMessage: null,
  limit: null,
  retries: 0,
  scores,
  graderFailed: [],
  modelFailed: [],
  noChoices: true,
  sandbox: null,
  invalidated: false,
  edits: [],
  findings: [],
  flags: [],
  metadata,
  metadataCut: false,
  usage: null,
});

describe("shareStrings", () => {
  it("leaves every value as it was, numbers, nulls and nested scores included", () => {
    const table = new Map<string, string>();
    const r = record(1, ["difficulty", 2, "category", "build", "note", null], { match: "C", dict: { a: 1 }, n: 0.5 });
    shareStrings(r, table);
    expect(r.metadata).toEqual(["difficulty", 2, "category", "build", "note", null]);
    expect(r.scores).toEqual({ match: "C", dict: { a: 1 }, n: 0.5 });
    expect([...table.keys()].sort()).toEqual(["C", "build", "category", "difficulty", "note"]);
  });

  it("keeps at most 4,096 strings, none longer than 64 characters, however many distinct ones a log holds", () => {
    const table = new Map<string, string>();
    const long = "x".repeat(65);
    for (let i = 0; i < 10_000; i++) {
      const r = record(i, ["key", `value ${i}`, "long", long], { match: `answer ${i}` });
      shareStrings(r, table);
      expect(r.metadata[1]).toBe(`value ${i}`);
      expect(r.scores["match"]).toBe(`answer ${i}`);
    }
    expect(table.size).toBe(4096);
    expect(table.has(long)).toBe(false);
  });

  it("values unique to each sample fill at most half of it: keys seen later are still kept", () => {
    const table = new Map<string, string>();
    for (let i = 0; i < 10_000; i++) shareStrings(record(i, ["instance", `id-${i}`], {}), table);
    expect(table.size).toBe(2048);
    shareStrings(record(10_000, ["instance", "id-10000", "difficulty", "hard"], { match: "C" }), table);
    expect(table.has("difficulty")).toBe(true);
    expect(table.has("C")).toBe(true);
    expect(table.has("hard")).toBe(false);
  });
});
