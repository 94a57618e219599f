// A score that fails leaves nothing in ASSAY_TMPDIR (issue 35 §5): the spill's name goes as soon as
// it is open, so neither an error nor a kill -9 leaves a `.assay-spill.*.tmp`; and closing a spill
// while its document is half read (a write that failed mid-way) lets the file go instead of
// throwing "busy".

import { readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeCorpus } from "../src/io/corpus.js";
import { scoreRun } from "../src/pipeline/score.js";
import { spawnCli, startCli } from "./helpers/cli.js";
import { freshFolders } from "./helpers/shared.js";
import { openSpills } from "./helpers/spills.js";

const RUN = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude", jobs: 2 } as const;
const folder = freshFolders("assay-spill-cleanup-");
let small: string;
beforeAll(() => {
  small = folder("small");
  writeCorpus(small, { n: 12, seed: "spill-cleanup", faults: true });
});

describe("the spill file", () => {
  it("has no name while it is open; closed half read, it goes without an error", async () => {
    const dir = folder("half-read");
    const run = await scoreRun([small], { ...RUN, spillDir: dir, spillAfterBytes: 0 });
    expect(readdirSync(dir)).toEqual([]);
    expect(openSpills(dir)).toHaveLength(1);
    const entries = run.bundles[Symbol.iterator]();
    expect(entries.next().done).toBe(false); // a document's writer stopped here (its disk filled)
    expect(() => run.close()).not.toThrow(); // was: "This database connection is busy executing a query", the file left
    expect(openSpills(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a spill a killed run left (killed between SQLite's open and the unlink) goes with the next run's spill, an hour on; a young one stays", async () => {
    const dir = folder("stale");
    const dead = join(dir, ".assay-spill.999999999.abc.tmp"); // no such process
    const young = join(dir, ".assay-spill.999999998.def.tmp");
    for (const f of [dead, young]) writeFileSync(f, "partial");
    const hourAgo = (Date.now() - 61 * 60 * 1000) / 1000;
    utimesSync(dead, hourAgo, hourAgo);
    const run = await scoreRun([small], { ...RUN, spillDir: dir, spillAfterBytes: 0 });
    run.close();
    expect(readdirSync(dir)).toEqual([".assay-spill.999999998.def.tmp"]);
  });

  it("read to its end and closed, the same (the honest neighbour)", async () => {
    const dir = folder("read-whole");
    const run = await scoreRun([small], { ...RUN, spillDir: dir, spillAfterBytes: 0 });
    expect([...run.bundles].length).toBeGreaterThan(12);
    run.close();
    expect(openSpills(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe.sequential("a failed `assay score` leaves nothing in ASSAY_TMPDIR", () => {
  let big: string;
  beforeAll(() => {
    // More than the 4 MB of entries a run holds in memory: the CLI spills.
    big = folder("big");
    const r = spawnCli(["synth", "--out", big, "--n", "6000", "--seed", "spill-big", "--faults"]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  it("killed (-9) while its spill is open: the folder is empty", async () => {
    const dir = folder("killed");
    const { child, exited } = startCli(
      ["score", big, "--format", "json", "--out", join(folder("out"), "killed.json"), "--jobs", "2", "--quiet"],
      { env: { ASSAY_TMPDIR: dir } },
    );
    const until = Date.now() + 90_000;
    // Open and its name gone: the spill as it is for the rest of the run. (Between SQLite's open and
    // the unlink, a few statements, a kill leaves the file: the next run clears it, tested above.)
    const spilled = () => openSpills(dir, child.pid!).filter((p) => p.endsWith(" (deleted)"));
    while (spilled().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(spilled()).toHaveLength(1); // it spilled (was: a named .assay-spill.*.tmp, left behind by the kill)
    child.kill("SIGKILL");
    await exited;
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);

  it("its document cannot be written (a full disk, after scoring): exit 2, the folder is empty", () => {
    const dir = folder("full");
    const r = spawnCli(["score", big, "--format", "json", "--out", "/dev/full", "--jobs", "2", "--quiet"], {
      env: { ASSAY_TMPDIR: dir },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write \/dev\/full: no space left on the device/);
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);
});
