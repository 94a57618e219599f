// The batch rules over compact records (core/batch/record.ts) give what they give over the entries
// themselves, whatever order the records come in: an experiment's identity folds a record's times
// as numbers (text once an experiment), and assay bundles' rules take records unsorted (each
// trial's attempts are sorted by attempt, then path).

import { describe, expect, it } from "vitest";
import type { EntryIdentity } from "../src/core/identity.js";
import { blankEntry, type BundleEntry } from "../src/core/results.js";
import { computeExperiments, recordMaker } from "../src/kinds/batch.js";

const OPTIONS = { invalid: "count", resourceBound: "default", errors: "exclude" } as const;

const who = (started: string | null, finished: string | null, clock: "utc" | "local" | null): EntryIdentity => ({
  agent: "agent-1",
  model: "m-1",
  benchmark: null,
  harness: { name: "h", version: "1" },
  tasks: null,
  started_at: started,
  finished_at: finished,
  clock,
});

let n = 0;
const entry = (experiment: string, trial: string, o: Partial<BundleEntry> = {}): BundleEntry => ({
  path: `/runs/${experiment}/${trial}/a${o.attempt ?? 1}-${n++}`,
  ...blankEntry({
    validity: "valid",
    errors: [],
    profile: "native-game",
    experiment,
    trial,
    attempt: 1,
    seed: `${trial.padEnd(8, "0").replace(/[^0-9a-f]/g, "a")}${"0".repeat(24)}`,
    task: `task-${trial.slice(-1)}`,
    status: "completed",
    ending: true,
    final_score: true,
    victory: trial.endsWith("1"),
    ...o,
  }),
});

const ENTRIES: BundleEntry[] = [
  // one clock: the earliest start and the latest finish, days and years apart, some times absent
  entry("utc", "t1", { identity: who("2026-08-29T10:40:00.000Z", "2026-08-29T10:41:00.000Z", "utc") }),
  entry("utc", "t2", { identity: who("2026-08-01T00:00:00.500Z", null, "utc") }),
  entry("utc", "t3", { identity: who(null, "2031-01-01T00:00:00.000Z", "utc") }),
  entry("utc", "t4", { identity: who(null, null, "utc") }),
  entry("utc", "t5", { identity: null }),
  // local times
  entry("local", "t1", { identity: who("2026-08-29T10:40:00.250", "2026-08-29T11:00:00.000", "local") }),
  entry("local", "t2", { identity: who("2026-08-29T09:00:00.000", "2026-08-29T10:00:00.000", "local") }),
  // two clocks in one experiment: no times
  entry("mixed", "t1", { identity: who("2026-08-29T10:40:00.000Z", "2026-08-29T10:41:00.000Z", "utc") }),
  entry("mixed", "t2", { identity: who("2026-08-29T09:00:00.000", "2026-08-29T10:00:00.000", "local") }),
  // no identity at all
  entry("none", "t1"),
  // attempts: a retry, a superseded one, two of one number (ordered by path), a seed two trials share
  entry("tries", "t1", { attempt: 2, victory: false }),
  entry("tries", "t1", { attempt: 1, ending: null, final_score: null, status: "abnormal" }),
  entry("tries", "t2", { attempt: 1, seed: "ab".repeat(16) }),
  entry("tries", "t2", { attempt: 1, seed: "ab".repeat(16), victory: false }),
  entry("tries", "t3", { seed: "ab".repeat(16) }),
];

/** A shuffle that is the same every run. */
function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  let s = 7;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe("the batch rules over compact records", () => {
  const expected = computeExperiments(ENTRIES, [], OPTIONS);

  it("give the entries' experiments, identities included (one clock: earliest start, latest finish; two: no times)", () => {
    const maker = recordMaker();
    expect(
      computeExperiments(
        ENTRIES.map((e) => maker.record(e)),
        [],
        OPTIONS,
      ),
    ).toEqual(expected);
    const identity = (name: string) => expected.find((x) => x.experiment === name)!.identity;
    expect([identity("utc")!.started_at, identity("utc")!.finished_at]).toEqual([
      "2026-08-01T00:00:00.500Z",
      "2031-01-01T00:00:00.000Z",
    ]);
    expect([identity("local")!.started_at, identity("local")!.finished_at, identity("local")!.clock]).toEqual([
      "2026-08-29T09:00:00.000",
      "2026-08-29T11:00:00.000",
      "local",
    ]);
    expect([identity("mixed")!.started_at, identity("mixed")!.finished_at, identity("mixed")!.clock]).toEqual([
      null,
      null,
      null,
    ]);
    expect(identity("none")!.started_at).toBe(null);
  });

  it("give the same experiments whatever order the records come in, the entries' too", () => {
    const tries = expected.find((x) => x.experiment === "tries")!;
    expect(tries.flags.map((f) => f.code)).toContain("SUPERSEDED");
    expect(tries.invalid.map((i) => i.trial)).toEqual(["t2", "t3"]);
    for (const order of [shuffled(ENTRIES), [...ENTRIES].reverse()]) {
      const maker = recordMaker();
      expect(
        computeExperiments(
          order.map((e) => maker.record(e)),
          [],
          OPTIONS,
        ),
      ).toEqual(expected);
      expect(computeExperiments(order, [], OPTIONS)).toEqual(expected);
    }
  });
});
