// assay export in bounded memory (issue 40 §2): a document of many units, exported in a child
// process, whose rows are never held in JavaScript (it runs under a heap far smaller than they
// are) and whose database keeps row groups of 16,384 rows, the size that kept peak RSS flat as
// units grow (docs/development.md: DuckDB's default, 122,880, grew it at every checkpoint).
// Peak RSS itself is measured by `npm run bench -- --export`, not asserted here.

import { closeSync, openSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { emptyTally, type BundleEntry } from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { assembleView, scoreRoots } from "../src/pipeline/score.js";
import { render } from "../src/report/json.js";
import { spawnMeasured } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const { dir } = scratch("assay-export-memory-");
const UNITS = 40_000;
const OPTIONS = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude" } as const;
const doc = join(dir, "results.json");

/** A results document of n native entries (each its own unit): 200 scored trials copied under new folders, written by assay's JSON writer. */
async function writeDocument(n: number): Promise<void> {
  const corpus = join(dir, "corpus");
  writeCorpus(corpus, { n: 200, seed: "export-memory", faults: true });
  const t = (await scoreRoots([corpus], OPTIONS)).bundles.map((e) => ({ ...e, path: e.path.slice(corpus.length + 1) }));
  const source = {
    records: [],
    tally: emptyTally(),
    *[Symbol.iterator](): Generator<BundleEntry> {
      for (let k = 0; k < n; k++) {
        const e = t[k % t.length]!;
        yield { ...e, path: `archive/c${Math.floor(k / t.length)}/${e.path}` };
      }
    },
  };
  const fd = openSync(doc, "w");
  const view = assembleView(source, OPTIONS, new Date().toISOString(), { complete: true, roots: ["archive"] });
  for (const piece of render(view)) writeSync(fd, piece);
  closeSync(fd);
}

/** The rows of each row group of a table (its first column's segments). */
async function rowGroups(file: string, table: string): Promise<number[]> {
  const db = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" });
  const c = await db.connect();
  try {
    const r = await c.runAndReadAll(
      `SELECT row_group_id, sum(count)::INTEGER AS n FROM pragma_storage_info('${table}')
       WHERE column_id = 0 AND column_path = '[0]' GROUP BY row_group_id ORDER BY row_group_id`,
    );
    return r.getRowObjectsJson().map((row) => Number(row["n"]));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

let run: ReturnType<typeof spawnMeasured>;
const out = join(dir, "out");
beforeAll(async () => {
  await writeDocument(UNITS);
  // 40,000 entries are ~50 MB of JSON, as objects several times that: a 48 MB heap holds none of them for long.
  run = spawnMeasured(["export", doc, "--out", out, "--memory-limit", "64MB"], ["--max-old-space-size=48"]);
  console.log(
    `export of ${UNITS} units (${(statSync(doc).size / 2 ** 20).toFixed(0)} MB document): peak RSS ${(run.maxRssKb / 1024).toFixed(0)} MB`,
  );
}, 300_000);

describe("assay export in bounded memory", () => {
  it("exports 40,000 units under a 48 MB heap: no unit's row or entry is kept in JavaScript", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^assay export: ${UNITS} units, ${UNITS} entries`));
  });

  it("writes the database in row groups of at most 16,384 rows (DuckDB's default is 122,880)", async () => {
    const file = join(out, "assay.duckdb");
    for (const table of ["units", "entries"]) {
      const groups = await rowGroups(file, table);
      expect(groups.reduce((s, n) => s + n, 0)).toBe(UNITS);
      expect(Math.max(...groups)).toBeLessThanOrEqual(16_384);
      expect(groups.length).toBeGreaterThanOrEqual(Math.ceil(UNITS / 16_384));
    }
  });

  it("a table DuckDB writes at its default keeps one row group for the same rows (the query tells them apart)", async () => {
    const file = join(dir, "default.duckdb");
    const db = await DuckDBInstance.create(file);
    const c = await db.connect();
    await c.run(`CREATE TABLE units AS SELECT range AS unit_id FROM range(${UNITS})`);
    await c.run("CHECKPOINT");
    c.closeSync();
    db.closeSync();
    expect(await rowGroups(file, "units")).toEqual([UNITS]);
  });
});
