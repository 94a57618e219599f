import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

// The longest files, longest first (seconds each in CI on 2 cores, 2026-12-02). Without this a fresh
// clone has no timings cached and runs the largest files first: the short scale test came last and
// ran alone for its last 100 s while the other worker sat idle.
const LONGEST = [
  "scale", // 207
  "newcomer-walk", // 102
  "docs", // 102
  "seal", // 61
  "hostile-values", // 51
  "report-review", // 42
  "inspect-bombs", // 40
].map((name) => `/test/${name}.test.ts`);

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((tail) => f.moduleId.endsWith(tail));
      return i < 0 ? LONGEST.length : i;
    };
    // Array.prototype.sort is stable: the others keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// Two cores: forks, few workers. Pool-like and kill tests set fileParallelism off in their files' describe blocks.
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    sequence: { sequencer: LongestFirst },
    reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
    // A table's width (issue 40): the tests read what the reports say, at a width nothing wraps;
    // test/fit.test.ts sets its own widths (and none: 80) to test the fitting itself.
    env: { COLUMNS: "1000" },
  },
});
