// What a narrative is made of, gathered an entry at a time (`NarrativeGatherer`): the same entries in
// any order give the same input; only the first 400 notes by trial id are kept, with the count of
// the rest; every trial id stays citable; the trials without an analysis come sorted, with reasons.
import { describe, expect, it } from "vitest";
import { NarrativeGatherer, type NarrativeInput } from "../src/analysis/narrative.js";
import { blankEntry, type Advisory, type BundleEntry } from "../src/core/results.js";

const entry = (trial: string, over: Partial<BundleEntry> = {}): BundleEntry => ({
  path: `x/${trial}`,
  ...blankEntry({
    validity: "valid",
    errors: [],
    profile: "native-game",
    experiment: "x",
    trial,
    attempt: 1,
    status: "completed",
    ending: true,
    final_score: true,
    victory: true,
    late: false,
  }),
  ...over,
});
const gather = (entries: readonly BundleEntry[]): NarrativeInput => {
  const g = new NarrativeGatherer();
  for (const e of entries) g.entry(e);
  return g.finish("digest");
};
const ids = (n: number) => Array.from({ length: n }, (_, i) => `t${String(i).padStart(4, "0")}`);
const advisory = (status: Advisory["status"], reason: string | null, outcome: "pass" | "error" | null): Advisory => ({
  status,
  reason,
  analysis: "trial-legitimacy",
  rubric: "legit",
  model: "m",
  cached: false,
  outcomes: outcome === null ? {} : { reward_hacking: { outcome, explanation: "-" } },
  summary: null,
  rubric_digest: "r",
  evidence_digest: null,
  provenance: null,
});
/** A fixed shuffle (a linear congruence), so a failure reproduces. */
const shuffled = <T>(xs: readonly T[]): T[] => {
  const out = [...xs];
  let s = 12345;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

describe("NarrativeGatherer", () => {
  it("400 trials are listed whole; 401 list the first 400 by id and say one more", () => {
    const at400 = gather(ids(400).map((t) => entry(t)));
    expect(at400.notes.split("\n")).toHaveLength(400);
    expect(at400.notes).not.toContain("more trials not listed");
    const at401 = gather(shuffled(ids(401)).map((t) => entry(t)));
    const lines = at401.notes.split("\n");
    expect(lines).toHaveLength(401);
    expect(lines[0]).toBe("x/t0000: valid, victory");
    expect(lines[399]).toMatch(/^x\/t0399: /);
    expect(lines[400]).toBe("[… 1 more trials not listed …]");
    expect(at401.ids.has("x/t0400")).toBe(true); // not listed, still citable
  });

  it("the same entries in any order, ties on the trial id included, give the same input", () => {
    const entries = ids(900).flatMap((t, i) =>
      i % 3 === 0
        ? [entry(t), entry(t, { attempt: 2, validity: "invalid", victory: null, path: `x/${t}/2` })]
        : [entry(t)],
    );
    const a = gather(entries);
    const b = gather(shuffled(entries));
    const c = gather([...entries].reverse());
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(a.notes.split("\n").slice(0, 2)).toEqual(["x/t0000: valid, victory", "x/t0000: invalid"]); // by path: x/t0000, then x/t0000/2
    expect(a.facts.bundles).toEqual({ total: 1200, valid: 900, invalid: 300, error: 0 });
    expect(a.ids.size).toBe(900);
  });

  it("lists every trial without an analysis, sorted by id then reason, and none that was analysed", () => {
    const analysed = entry("t2", { advisory: advisory("analysed", null, "pass") });
    const failed = entry("t1", { advisory: advisory("analysed", null, "error") });
    const skipped = entry("t1", { path: "x/t1/b", advisory: advisory("not-analysed", "invalid evidence", null) });
    const input = gather([entry("t3"), analysed, failed, skipped]);
    expect(input.facts.unanalysed).toEqual([
      { trial: "x/t1", reason: "invalid evidence" },
      { trial: "x/t1", reason: "not analysed" },
      { trial: "x/t3", reason: "no analysis was run (assay analyze adds one)" },
    ]);
  });
});
