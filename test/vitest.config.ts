import { defineConfig } from "vitest/config";

// Two cores: forks, few workers. Pool-like and kill tests set fileParallelism off in their files' describe blocks.
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
  },
});
