// --jobs against a hostile or unlucky user (issue 11 item 4): a count past what the machine can
// use is capped at 4 workers per available CPU, with one line saying so, and never aborts V8; and
// workers start as work arrives, so a small run starts only the workers it uses. A pool destroyed
// while its workers are still starting must not take the process down (src/pool/entry.cts).
//
// Workers run compiled code: build first (`npm run build`).
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Piscina } from "piscina";
import { beforeAll, describe, expect, it } from "vitest";
import { BundlePool, maxJobs } from "../src/pool/pool.js";
import { bundle, escaped, game, live, writeFiles } from "./helpers/bundle.js";
import { run, spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-jobs-");
let root: string;
const CAP = 4 * availableParallelism();
const note = (asked: string) =>
  `assay: --jobs ${asked} is more than this machine can use: using ${CAP} (4 × ${availableParallelism()} available CPUs)\n`;

beforeAll(() => {
  root = join(tmp, "runs");
  for (let i = 1; i <= 10; i++)
    writeFiles(
      join(root, "exp", `t${i}`, "a1"),
      bundle(game({ trial: `t${i}`, seed: i.toString(16).padStart(32, "0"), states: [live(), escaped()] })),
    );
});

/** Worker threads the pool has started (piscina's own list). */
const threads = (pool: BundlePool) => (pool as unknown as { pool?: Piscina }).pool?.threads.length ?? 0;

describe.sequential("--jobs is capped at 4 per available CPU", () => {
  it("the cap is 4 × os.availableParallelism()", () => expect(maxJobs()).toBe(CAP));

  it("one past the cap: scored with the cap, one line on stderr says so (in-process)", async () => {
    const r = await run(["score", root, "--jobs", String(CAP + 1), "--format", "json", "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(note(String(CAP + 1)));
    expect(JSON.parse(r.stdout).bundles).toHaveLength(10);
  });

  it("at the cap: no note", async () => {
    const r = await run(["score", root, "--jobs", String(CAP), "--format", "json", "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
  });

  it("--jobs 1000000000, spawned: exit 0 with the note and nothing else on stderr (no V8 crash dump)", () => {
    const r = spawnCli(["score", root, "--jobs", "1000000000", "--quiet"]);
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe(note("1000000000"));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^assay: 10 bundles: 10 valid/);
  });

  it("a pool asked for more than the cap holds at most the cap (the library path too)", async () => {
    const pool = new BundlePool({ jobs: 1_000_000_000 });
    try {
      expect(pool.jobs).toBe(CAP);
    } finally {
      await pool.destroy();
    }
  });
});

describe.sequential("workers start as work arrives", () => {
  it("a pool with jobs 8 starts none before its first task, then one (the replacement for a terminated worker needs it), and no more for one small task", async () => {
    const pool = new BundlePool({ jobs: 8 });
    try {
      expect(threads(pool)).toBe(0);
      const [entry] = await pool.score([{ dir: join(root, "exp", "t1", "a1"), path: "exp/t1/a1" }]);
      expect(entry).toMatchObject({ validity: "valid", trial: "t1" });
      expect(threads(pool)).toBe(1);
    } finally {
      await pool.destroy();
    }
  });

  it("a destroyed pool runs nothing more, whether or not it had started a worker: start() refuses, a task is a tool error", async () => {
    const bundle = { dir: join(root, "exp", "t1", "a1"), path: "exp/t1/a1" };
    const never = new BundlePool({ jobs: 2 });
    await never.destroy();
    expect(() => never.start()).toThrow("the bundle pool was used after destroy()");
    expect(await never.score([bundle])).toMatchObject([{ validity: "error", errors: [{ code: "WORKER_FAILED" }] }]);
    expect(threads(never)).toBe(0);
    const used = new BundlePool({ jobs: 2 });
    expect(await used.score([bundle])).toMatchObject([{ validity: "valid" }]);
    await used.destroy();
    expect(() => used.start()).toThrow("the bundle pool was used after destroy()");
    expect(await used.score([bundle])).toMatchObject([{ validity: "error", errors: [{ code: "WORKER_FAILED" }] }]);
  });

  it("tasks in flight together start a worker each, up to jobs", async () => {
    const pool = new BundlePool({ jobs: 2 });
    try {
      const ref = (i: number) => [{ dir: join(root, "exp", `t${i}`, "a1"), path: `exp/t${i}/a1` }];
      const done = await Promise.all([1, 2, 3, 4].map((i) => pool.score(ref(i))));
      expect(done.flat()).toMatchObject([
        { validity: "valid" },
        { validity: "valid" },
        { validity: "valid" },
        { validity: "valid" },
      ]);
      expect(threads(pool)).toBe(2);
    } finally {
      await pool.destroy();
    }
  });

  it("a pool destroyed while its workers are still starting does not crash the process", () => {
    // In a child process: a V8 abort there is an exit code here, not a dead test runner.
    const script = `
      import { BundlePool } from ${JSON.stringify(new URL("../dist/pool/pool.js", import.meta.url).href)};
      const ref = [{ dir: ${JSON.stringify(join(root, "exp", "t1", "a1"))}, path: "exp/t1/a1" }];
      for (let i = 0; i < 12; i++) {
        const pool = new BundlePool({ jobs: 4 });
        const scoring = Promise.all([1, 2, 3, 4].map(() => pool.score(ref)));
        await new Promise((r) => setTimeout(r, i % 4));
        await pool.destroy();
        await scoring;
      }
      console.log("ok");
    `;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("ok\n");
  });
});
