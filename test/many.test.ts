// Shapes a million-bundle run has and small tests do not (issue 12): a million-bundle run died at
// its very end spreading 285,000 task groups into Math.min's arguments. The batch rules take any
// number of trials, tasks and flags; a hostile result.json's thousands of failing steps are not
// thousands of flags.
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { computeExperiments } from "../src/kinds/batch.js";
import { recordMaker } from "../src/kinds/batch.js";
import { scoreTrial } from "../src/kinds/harbor/trial.js";
import { blankEntry, type BundleEntry } from "../src/core/results.js";
import { memSource } from "./helpers/bundle.js";
import { trialFiles } from "./helpers/harbor.js";

describe("batch rules at a size small tests never reach", () => {
  it("300,000 native trials, each its own task: pass^k, seeds and the raw record computed, no stack overflow", () => {
    const maker = recordMaker();
    const n = 300_000;
    const records = Array.from({ length: n }, (_, i) => {
      const trial = `t${String(i).padStart(6, "0")}`;
      const e: BundleEntry = {
        path: `runs/${trial}/a1`,
        ...blankEntry({
          validity: "valid",
          errors: [],
          profile: "native-game",
          experiment: "big",
          trial,
          attempt: 1,
          seed: (i % 2 === 0 ? i : i - 1).toString(16).padStart(16, "0"), // pairs of trials share a seed
          status: "completed",
          ending: true,
          victory: i % 4 === 0,
          late: false,
          final_score: true,
          task: `task-${i}`,
        }),
      };
      return maker.record(e);
    });
    const [exp] = computeExperiments(records, [], DEFAULT_BATCH);
    expect(exp!.accuracy).toMatchObject({ victories: 0, scored: n }); // invalid trials count as non-victories
    // Every trial shares its seed with another: all invalid (SEED_COLLISION), found without a set per seed.
    expect(exp!.invalid).toHaveLength(n);
    expect(exp!.invalid[0]!.codes).toEqual(["SEED_COLLISION"]);
    expect(exp!.raw_record!.values).toHaveLength(n);
    expect(exp!.pass_hat_k).toEqual({ "1": 0 });
  });

  it("a Harbor trial whose result.json lists 5,000 failing steps gets a bounded set of flags, not a tool error", () => {
    const steps = Array.from({ length: 5_000 }, (_, i) => ({
      name: `s${i}`,
      exception: { type: "StepError", message: "boom" },
    }));
    const files = trialFiles({ name: "hostile__1", steps });
    const e = scoreTrial(memSource(files));
    expect(e.validity).not.toBe("error");
    const step = e.flags.filter((f) => f.code === "STEP_EXCEPTION");
    expect(step.length).toBeLessThanOrEqual(33);
    expect(step.at(-1)!.evidence).toMatch(/and 4968 more steps/);
  });
});
