// The compact batch record (core/batch/record.ts): it keeps a bundle's text in less memory (a path
// cut where its folder is shared, a trial named by where it lies in the path, a hex seed as bytes,
// times as 64-bit floats), and gives every field back as the entry had it, whatever the entry's shape.

import { describe, expect, it } from "vitest";
import type { BatchRecord } from "../src/core/batch/record.js";
import { Columns } from "../src/core/batch/record-columns.js";
import { cutPath, own, segment, TextArena, trialAt } from "../src/core/batch/record-text.js";
import { blankEntry, type BundleEntry } from "../src/core/results.js";
import type { EntryIdentity } from "../src/core/identity.js";
import { recordMaker } from "../src/kinds/batch.js";

const who = (started: string | null, finished: string | null, clock: "utc" | "local" | null): EntryIdentity => ({
  agent: null,
  model: "m-1",
  benchmark: null,
  harness: { name: "h", version: "1" },
  tasks: null,
  started_at: started,
  finished_at: finished,
  clock,
});

const entry = (path: string, o: Partial<BundleEntry>): BundleEntry => ({
  path,
  ...blankEntry({ validity: "valid", errors: [], profile: "native-game", experiment: "exp", attempt: 1, ...o }),
});

const FIELDS = [
  "path",
  "profile",
  "experiment",
  "trial",
  "attempt",
  "seed",
  "validity",
  "status",
  "task",
  "ending",
  "final_score",
  "scenario",
  "victory",
  "pass",
  "state",
  "identity",
] as const;
const read = (r: BatchRecord | BundleEntry) => ({
  ...Object.fromEntries(FIELDS.map((k) => [k, r[k]])),
  errors: [...new Set(r.errors.map((f) => f.code))],
  dimensions: r.dimensions && Object.fromEntries(Object.entries(r.dimensions).map(([k, v]) => [k, v.pass])),
});

// Each shape on both sides of each way of keeping it.
const ENTRIES: BundleEntry[] = [
  // trial named by its folder (exp/trial/attempt); lowercase hex seed; times seconds apart
  entry("/runs/exp/t0001/a1", {
    trial: "t0001",
    seed: "3984ef98481a2edaacabf00055434d66",
    task: "task-1",
    status: "completed",
    ending: true,
    final_score: true,
    victory: false,
    identity: who("2026-08-29T10:40:00.000Z", "2026-08-29T10:40:20.000Z", "utc"),
  }),
  // the trial is the path's last name (a Harbor trial folder); times six years apart (beyond a small integer)
  entry("/jobs/job-1/hello-world__AbCdEfG", {
    profile: "harbor",
    experiment: null,
    attempt: null,
    trial: "hello-world__AbCdEfG",
    identity: who("2020-01-01T00:00:00.000Z", "2026-12-31T23:59:59.999Z", "utc"),
  }),
  // a trial the path does not name; seeds that are not lowercase hex of an even length
  entry("/runs/exp/t0002/a1", { trial: "other", seed: "ABCDEF0123456789" }),
  entry("/runs/exp/t0003/a1", { trial: "t0003", seed: "abc" }),
  entry("/runs/exp/t0004/a1", { trial: "t0004", seed: "not a seed" }),
  entry("/runs/exp/t0005/a1", { trial: "t0005", seed: "ab".repeat(256) }), // longer than a length byte says
  entry("/runs/exp/t0006/a1", { trial: "t0006", seed: "ab".repeat(255), attempt: 2 }),
  entry("/runs/exp/t0007/a1", { trial: null, seed: "", attempt: null }),
  entry("/runs/exp/t0008/a1", { trial: "", seed: null }),
  // attempts no 32-bit integer holds, and one that is
  entry("/runs/exp/t0012/a1", { trial: "t0012", attempt: 2 ** 40 }),
  entry("/runs/exp/t0013/a1", { trial: "t0013", attempt: -(2 ** 31) }),
  entry("/runs/exp/t0014/a1", { trial: "t0014", attempt: 2 ** 31 - 1 }),
  // a path's rest longer than its arena keeps (kept as a string of its own)
  entry(`/runs/exp/${"t".repeat(3000)}/${"a".repeat(3000)}`, { trial: "t".repeat(3000) }),
  // paths with fewer folders, a long rest, names beyond ASCII (a lone surrogate, as a merged document may hold)
  entry("bundle", { trial: "bundle" }),
  entry("/bundle", { trial: "bundle" }),
  entry("a/b", { trial: "a" }),
  entry("/runs/exp/a-trial-named-at-length/attempt-0001", { trial: "a-trial-named-at-length" }),
  entry("/runs/ex\u00e9/tr\u{1f600}ial-\ud800-long-enough/a1", { trial: "tr\u{1f600}ial-\ud800-long-enough" }),
  // local times, a start without a finish, a clock without times, no identity
  entry("/runs/exp/t0009/a1", {
    trial: "t0009",
    identity: who("2026-08-29T10:40:00.250", null, "local"),
  }),
  entry("/runs/exp/t0010/a1", { trial: "t0010", identity: who(null, null, "utc") }),
  entry("/runs/exp/t0011/a1", { trial: "t0011", identity: who(null, null, null) }),
  // errors (a code twice is once), dimensions, a world scenario
  entry("/runs/w/t1/a1", {
    profile: "world",
    experiment: "w",
    trial: "t1",
    validity: "invalid",
    errors: [
      { code: "SEED_MISMATCH", file: null, line: null, message: "a" },
      { code: "PROFILE_MIXED", file: null, line: null, message: "b" },
      { code: "SEED_MISMATCH", file: null, line: null, message: "c" },
    ],
    scenario: "s-1",
    pass: true,
    state: null,
    dimensions: {
      world_integrity: { pass: true, hard: true, detail: "" },
      preservation: { pass: false, hard: false, detail: "" },
    },
  }),
];

describe("a compact record gives back what its entry says", () => {
  it("every field the batch rules read, for entries of every shape", () => {
    const maker = recordMaker();
    const records = ENTRIES.map((e) => maker.record(e));
    expect(records.map(read)).toEqual(ENTRIES.map(read));
  });

  it("a record's times are the entry's, exactly, from a Date's least to its greatest and any distance apart", () => {
    // 32-bit ms offsets from a run's first time reach only ±24.8 days: a corpus of months went to a side table (a review).
    const times: [string, string][] = [
      ["-271821-04-20T00:00:00.001Z", "+275760-09-13T00:00:00.000Z"], // a Date's bounds, 2^54 ms apart
      ["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.001Z"],
      ["2026-03-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"], // days and a year from the first
      ["1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00.000Z"],
    ];
    const maker = recordMaker();
    const entries = times.map(([a, b], k) => entry(`/r/exp/t${k}/a1`, { identity: who(a, b, "utc") }));
    const records = entries.map((e) => maker.record(e));
    expect(records.map((r) => r.identity)).toEqual(entries.map((e) => e.identity));
    const local = entry("/r/exp/l/a1", { identity: who("2026-08-29T10:40:00.250", null, "local") });
    expect(maker.record(local).identity).toEqual(local.identity);
  });

  it("records of one maker share what repeats: the path's folder, the experiment, the error codes", () => {
    const maker = recordMaker();
    const [a, b] = [ENTRIES[0]!, { ...ENTRIES[0]!, path: "/runs/exp/t0002/a1", trial: "t0002" }].map((e) =>
      maker.record(e),
    );
    expect([a!.path, b!.path]).toEqual(["/runs/exp/t0001/a1", "/runs/exp/t0002/a1"]);
    expect([b!.trial, b!.identity]).toEqual(["t0002", ENTRIES[0]!.identity]);
    const [x, y] = [ENTRIES.at(-1)!, ENTRIES.at(-1)!].map((e) => maker.record(e));
    expect(x!.errors).toBe(y!.errors);
    expect(x!.dimensions).toBe(y!.dimensions);
  });
});

describe("how a record keeps its text", () => {
  it("a path is its folder two levels up and the rest; no folder when it has fewer", () => {
    expect(cutPath("/runs/exp/t1/a1")).toEqual(["/runs/exp/", "t1/a1"]);
    expect(cutPath("/t1/a1")).toEqual(["/", "t1/a1"]);
    expect(cutPath("t1/a1")).toEqual(["", "t1/a1"]);
    expect(cutPath("/a1")).toEqual(["", "/a1"]);
    expect(cutPath("a1")).toEqual(["", "a1"]);
  });

  it("a trial is named by the path's segment it equals (the folder before the last first), else kept", () => {
    expect(trialAt("t1", "/runs/t1/a1")).toBe(2);
    expect(trialAt("a1", "/runs/t1/a1")).toBe(1);
    expect(trialAt("t2", "/runs/t1/a1")).toBe("t2");
    expect(trialAt("", "/runs//a1")).toBe("");
    expect(trialAt(null, "/runs/t1/a1")).toBe(null);
    expect([segment("/runs/t1/a1", 2), segment("/runs/t1/a1", 1), segment("a1", 2), segment("a1", 1)]).toEqual([
      "t1",
      "a1",
      "",
      "a1",
    ]);
  });

  it("a copy of a string is the same text, a lone surrogate too", () => {
    for (const s of ["short", "long enough to be a slice", "x\ud800y-and-long-enough", "\u{1f600}".repeat(9)])
      expect(own(s)).toBe(s);
  });
});

describe("a record's columns and arena", () => {
  it("a number in its field when a 32-bit integer holds it, else aside; null; rows across chunks", () => {
    const c = new Columns(2);
    const values = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31) + 2, -(2 ** 31), -(2 ** 31) + 1, 2 ** 31, 2 ** 40, -0, 0.5, null];
    const rows = Array.from({ length: 20000 }, (_, i) => {
      const row = c.add();
      c.setNumber(row, 1, values[i % values.length]!);
      c.set(row, 0, i);
      return row;
    });
    expect(rows.map((r) => c.getNumber(r, 1))).toEqual(rows.map((_, i) => values[i % values.length]));
    expect(Object.is(c.getNumber(9, 1), -0)).toBe(true);
    expect(rows.every((r, i) => c.get(r, 0) === i)).toBe(true);
  });

  it("text as UTF-8 bytes, the same text back; none that is too long or that UTF-8 cannot carry", () => {
    const a = new TextArena();
    const texts = [
      "",
      "t1/a1",
      "ex\u00e9/tr\u{1f600}ial",
      "x".repeat(4096),
      ...Array.from({ length: 5000 }, (_, i) => `t${i}/a1`),
    ];
    const at = texts.map((t) => a.put(t));
    expect(at.every((x) => x >= 0)).toBe(true);
    expect(at.map((x) => a.get(x))).toEqual(texts);
    expect([a.put("x".repeat(4097)), a.put("lone \ud800 surrogate"), a.put("\udc00")]).toEqual([-1, -1, -1]);
  });
});
