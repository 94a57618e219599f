// The byte-level fuzzer's findings, each pinned by a regression test on a real folder.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { synthHarborTrial } from "../src/synth/harbor.js";
import { SCRATCH } from "./helpers/shared.js";

const ROOT = mkdtempSync(join(SCRATCH, "assay-fuzz-test-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

describe("defects the fuzzer found", () => {
  it("a reward.json key named __proto__ is compared like any other, never dropped unseen", () => {
    const trial = (reward: string) => {
      const dir = join(ROOT, `t${reward.length}`);
      for (const [p, b] of synthHarborTrial({ job: "j", trial: "t__1", task: "t", case: "pass", offset: 0 })) {
        if (p === "verifier/reward.txt") continue;
        mkdirSync(join(dir, p, ".."), { recursive: true });
        writeFileSync(join(dir, p), b);
      }
      writeFileSync(join(dir, "verifier/reward.json"), reward);
      return scoreDirectory(dir, dir, undefined, "harbor");
    };
    const e = trial('{"__proto__": 1, "reward": 1.0}');
    expect(e.validity).toBe("invalid");
    expect(e.errors.find((f) => f.code === "REWARD_MISMATCH")?.message).toMatch(/rewards\.__proto__ is absent but verifier\/reward.json holds 1/);
    expect(trial('{"reward": 1.0}')).toMatchObject({ validity: "valid", state: "scored", rewards: { reward: 1 } });
  });
});
