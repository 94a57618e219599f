// Issue 37's run identity core: times kept as recorded (an instant in UTC, or a local time never
// shifted by a guessed zone), a task set as an order-free digest, and an experiment's identity as
// the union of its entries' (a list where they differ, null where none records anything).

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  IdentityBuilder,
  NO_ENTRY_IDENTITY,
  normaliseTime,
  tasksDigest,
  timesOf,
  type EntryIdentity,
} from "../src/core/identity.js";

const entry = (f: Partial<EntryIdentity>): EntryIdentity => ({ ...NO_ENTRY_IDENTITY, ...f });

describe("normaliseTime", () => {
  it("an offset or Z: the instant in UTC; no zone: the text, local; anything else: null", () => {
    expect(normaliseTime("2025-05-12T20:28:13-04:00")).toEqual({ at: "2025-05-13T00:28:13.000Z", clock: "utc" });
    expect(normaliseTime("2026-08-15T07:00:57.965484Z")).toEqual({ at: "2026-08-15T07:00:57.965Z", clock: "utc" });
    // A local time is kept in one spelling, to the millisecond, never shifted: "T" or a space, seconds or not.
    expect(normaliseTime("2026-08-15T02:57:22.988252")).toEqual({ at: "2026-08-15T02:57:22.988", clock: "local" });
    expect(normaliseTime("2026-08-15 02:57")).toEqual({ at: "2026-08-15T02:57:00.000", clock: "local" });
    for (const bad of ["yesterday", "2026-13-45T00:00:00Z", "", 42, null, "2026-08-15"])
      expect(normaliseTime(bad)).toBeNull();
  });

  it("a start and finish on two clocks keep only the instant (they cannot be ordered together)", () => {
    expect(timesOf("2026-01-01T00:00:00Z", "2026-01-01T01:00:00")).toEqual({
      started_at: "2026-01-01T00:00:00.000Z",
      finished_at: null,
      clock: "utc",
    });
    expect(timesOf("2026-01-01T00:00:00", "2026-01-01 01:00")).toEqual({
      started_at: "2026-01-01T00:00:00.000",
      finished_at: "2026-01-01T01:00:00.000",
      clock: "local",
    });
    expect(timesOf(null, undefined)).toEqual({ started_at: null, finished_at: null, clock: null });
  });
});

describe("tasksDigest", () => {
  it("the distinct ids in byte order, one per line: order and repeats do not change it", () => {
    const expected = `sha256:${createHash("sha256").update("a\nb\n").digest("hex")}`;
    expect(tasksDigest(["b", "a", "b"])).toEqual({ count: 2, digest: expected });
    expect(tasksDigest(["a", "b", "c"]).digest).not.toBe(expected);
  });
});

describe("IdentityBuilder: an experiment's identity from its entries'", () => {
  it("one value where all agree, a sorted list where they differ; earliest start, latest finish", () => {
    const b = new IdentityBuilder();
    b.add(
      entry({
        agent: "codex",
        model: "gpt",
        started_at: "2026-01-01T00:00:02.000Z",
        finished_at: "2026-01-01T00:01:00.000Z",
        clock: "utc",
      }),
      "t1",
      "task",
    );
    b.add(
      entry({
        agent: "codex",
        model: "claude",
        started_at: "2026-01-01T00:00:01.000Z",
        finished_at: "2026-01-01T00:00:30.000Z",
        clock: "utc",
      }),
      "t2",
      "task",
    );
    const id = b.identity()!;
    expect([id.agent, id.model, id.started_at, id.finished_at, id.clock]).toEqual([
      "codex",
      ["claude", "gpt"],
      "2026-01-01T00:00:01.000Z",
      "2026-01-01T00:01:00.000Z",
      "utc",
    ]);
    expect(id.tasks).toEqual({ ...tasksDigest(["t1", "t2"]), unit: "task" });
  });

  it("entries on two clocks: no time rather than a wrong order", () => {
    const b = new IdentityBuilder();
    b.add(entry({ started_at: "2026-01-01T00:00:00.000Z", clock: "utc" }), null, null);
    b.add(entry({ started_at: "2026-01-01T00:00:00.000", clock: "local" }), null, null);
    expect([b.identity()!.started_at, b.identity()!.clock]).toEqual([null, null]);
  });

  it("a log's own task set is kept; two different logs' sets are not one set; nothing recorded: null", () => {
    const set = { ...tasksDigest(["s1", "s2"]), unit: "sample" as const };
    const one = new IdentityBuilder();
    one.add(entry({ tasks: set }), "popularity", "task");
    one.add(entry({ tasks: set }), "popularity", "task");
    expect(one.identity()!.tasks).toEqual(set);
    const two = new IdentityBuilder();
    two.add(entry({ tasks: set }), null, null);
    two.add(entry({ tasks: { ...tasksDigest(["s3"]), unit: "sample" } }), null, null);
    expect(two.identity()!.tasks).toBeNull();
    expect(new IdentityBuilder().identity()).toBeNull();
  });
});
