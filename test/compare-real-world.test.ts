// `assay compare` on real Harbor archives (../shared/real-world/harbor-jobs): the MatrAIx owner
// copied each `persona-<x>` job to `appSim-example-<x>` (the same trials under another job name;
// the survey job's trial is another one). Scored into two documents and compared with --pair, the
// copies pair by task with a paired difference of exactly 0; the survey job pairs nothing and
// says why.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { comparisonSchema, type Comparison } from "../src/core/compare/schema.js";
import { run, spawnCli } from "./helpers/cli.js";
import { expectShared, runsWithShared, SCRATCH, scratch, SHARED_DIR } from "./helpers/shared.js";

const JOBS = join(SHARED_DIR, "real-world/harbor-jobs/MatrAIx-ai--MatrAIx/jobs");
const HAVE = existsSync(JOBS);

describe.runIf(runsWithShared(JOBS))("persona-* jobs against their appSim-example-* copies", () => {
  const { dir } = scratch("assay-compare-real-", SCRATCH);
  const persona = HAVE
    ? readdirSync(JOBS).filter(
        (d) => d.startsWith("persona-") && existsSync(join(JOBS, `appSim-example-${d.slice("persona-".length)}`)),
      )
    : [];
  const copyOf = (p: string) => `appSim-example-${p.slice("persona-".length)}`;
  let doc: Comparison;

  beforeAll(async () => {
    expectShared(JOBS);
    for (const [out, jobs] of [
      ["persona.json", persona],
      ["appsim.json", persona.map(copyOf)],
    ] as const) {
      const r = spawnCli([
        "score",
        ...jobs.map((j) => join(JOBS, j)),
        "--quiet",
        "--format",
        "json",
        "--out",
        join(dir, out),
      ]);
      expect(r.code, r.stderr).toBeLessThanOrEqual(1);
    }
    const r = await run([
      "compare",
      join(dir, "persona.json"),
      join(dir, "appsim.json"),
      ...persona.flatMap((p) => ["--pair", `${p}=${copyOf(p)}`]),
      "--format",
      "json",
    ]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    doc = comparisonSchema.parse(JSON.parse(r.stdout));
  }, 120_000);

  it("every copied job pairs by task, every counted task on both sides, with a paired difference of exactly 0", () => {
    expect(persona.length).toBeGreaterThanOrEqual(8);
    expect([doc.only_base, doc.only_head, doc.regressions]).toEqual([[], [], []]);
    let paired = 0;
    for (const e of doc.experiments) {
      expect(e.head).toBe(copyOf(e.base));
      const same =
        readdirSync(join(JOBS, e.base))
          .filter((d) => d.includes("__"))
          .sort()
          .join() ===
        readdirSync(join(JOBS, e.head))
          .filter((d) => d.includes("__"))
          .sort()
          .join();
      for (const m of e.metrics.filter((x) => /^reward\/.*\/mean$/.test(x.metric))) {
        const p = m.paired!;
        expect(p.unit).toBe("task");
        if (!same) {
          // The survey job's copy holds another trial of another task: nothing pairs, and it says so.
          expect([p.pairs, p.mean_diff, p.unpaired]).toEqual([
            0,
            null,
            ["only in BASE: 1 task", "only in HEAD: 1 task"],
          ]);
          continue;
        }
        expect([p.only_base, p.only_head, p.unpaired]).toEqual([0, 0, []]);
        if (m.base.value === null) continue; // no trial counted (an infrastructure error): no unit on either side
        expect(p.pairs).toBeGreaterThanOrEqual(1);
        expect(p.mean_diff).toBe(0);
        // Every task agrees exactly: no spread for the t, so no zero-width interval, and the reason says so.
        if (p.pairs >= 2)
          expect([p.interval, p.mde80, p.reason]).toEqual([
            null,
            null,
            `all ${p.pairs} tasks agree exactly (every difference 0): no spread, so no interval`,
          ]);
        // §13.7: no information is p = 1, never a regression; tasks whose means are all 0/1 are McNemar's (b = c = 0).
        expect([p.p, m.regression]).toEqual([1, false]);
        expect(p.test).toBe(p.mcnemar === null ? "none" : "mcnemar");
        expect(p.mcnemar === null || (p.mcnemar.pass_to_fail === 0 && p.mcnemar.fail_to_pass === 0)).toBe(true);
        paired++;
      }
    }
    expect(paired).toBeGreaterThanOrEqual(6);
  });
});
