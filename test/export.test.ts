// assay export (issue 40 §2): the demo's Harbor job and Inspect logs scored twice (the second time
// with one trial's reward and one sample's scores changed), both documents exported into one
// database, and the questions people ask of such a database answered in SQL and checked against
// the JSON documents: the per-task pass rate of two runs, the samples that flipped, every unit of
// every entry there once. The Parquet files are read back by DuckDB and hold the same rows.

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blankEntry, type BundleEntry, type Profile, type Results } from "../src/core/results.js";
import { entryUnit } from "../src/export/rows.js";
import { kindOfEntry } from "../src/kinds/registry.js";
import { TABLES, UNITS } from "../src/export/tables.js";
import { fileDigest } from "../src/io/bundle-source.js";
import { scoreInspectLog } from "../src/kinds/inspect/read.js";
import { inspectUnits } from "../src/kinds/inspect/units.js";
import { EvidenceChanged } from "../src/kinds/kind.js";
import { inspectLogBytes } from "../src/synth/inspect.js";
import { zipBytes } from "../src/synth/zip.js";
import { spawnCli } from "./helpers/cli.js";
import { members, place, type Member } from "./helpers/inspect.js";
import { scratch } from "./helpers/shared.js";

const { dir } = scratch("assay-export-");
const demo = join(dir, "demo");
const out = join(dir, "out");
const JOB = "jobs/2025-11-03__10-00-00";
const EPOCHS_LOG = "2025-11-03T11-00-00+00-00_epochs-0_hBeni218f1ClDlNIdUGQ9B.json";
let db: DuckDBInstance;
let c: DuckDBConnection;
const docs: Record<"a" | "b", Results> = {} as never;

const ok = (argv: string[]) => {
  const r = spawnCli(argv, { cwd: demo, timeout: 120_000 });
  expect(r.code, r.stderr).toBe(0);
  return r;
};
const sql = async (q: string) => (await c.runAndReadAll(q)).getRowObjectsJson() as Record<string, unknown>[];

beforeAll(async () => {
  expect(spawnCli(["demo", "--out", demo]).code).toBe(0);
  // Run B: one Harbor trial's reward 0 → 1 (its reward file and result.json agree); of the epochs log, every epoch of sample 5 marked correct, of sample 2 incorrect.
  cpSync(join(demo, "jobs"), join(demo, "jobs-b"), { recursive: true });
  const trial = join(demo, "jobs-b", "2025-11-03__10-00-00", "task-1__d54ddf1c");
  writeFileSync(join(trial, "verifier", "reward.txt"), "1");
  const result = join(trial, "result.json");
  writeFileSync(result, readFileSync(result, "utf8").replace(/"reward": 0\b/, '"reward": 1'));
  cpSync(join(demo, "logs"), join(demo, "logs-b"), { recursive: true });
  const log = JSON.parse(readFileSync(join(demo, "logs", EPOCHS_LOG), "utf8")) as {
    samples: { id: unknown; scores: { match: { value: unknown } } }[];
  };
  for (const s of log.samples) if (s.id === 5 || s.id === 2) s.scores.match.value = s.id === 5 ? "C" : "I";
  writeFileSync(join(demo, "logs-b", EPOCHS_LOG), JSON.stringify(log));
  ok(["score", "jobs", "logs", "--format", "json", "--out", "a.json", "-q"]);
  ok(["score", "jobs-b", "logs-b", "--format", "json", "--out", "b.json", "-q"]);
  docs.a = JSON.parse(readFileSync(join(demo, "a.json"), "utf8")) as Results;
  docs.b = JSON.parse(readFileSync(join(demo, "b.json"), "utf8")) as Results;
  const r = ok(["export", "a.json", "b.json", "--out", out]);
  expect(r.stderr).toMatch(/^assay export: \d+ units, \d+ entries, \d+ experiments into /);
  db = await DuckDBInstance.create(join(out, "assay.duckdb"), { access_mode: "READ_ONLY" });
  c = await db.connect();
}, 240_000);
afterAll(() => {
  c?.closeSync();
  db?.closeSync();
});

const doc = (name: "a" | "b") => docs[name];
const inspectEntries = (d: Results) => d.bundles.filter((e) => e.profile === "inspect");

describe("assay export", () => {
  it("writes a DuckDB database and a Parquet file per table, the Parquet holding the database's rows", async () => {
    for (const f of ["assay.duckdb", "units.parquet", "entries.parquet", "experiments.parquet"])
      expect(existsSync(join(out, f)), f).toBe(true);
    for (const t of ["units", "entries", "experiments"]) {
      const [inDb] = await sql(`SELECT count(*)::INTEGER AS n FROM ${t}`);
      const [inFile] = await sql(`SELECT count(*)::INTEGER AS n FROM '${join(out, `${t}.parquet`)}'`);
      expect(inFile!["n"], t).toBe(inDb!["n"]);
      expect(inDb!["n"] as number).toBeGreaterThan(0);
    }
    const cols = await sql("SELECT column_name FROM (DESCRIBE units)");
    expect(cols.map((r) => r["column_name"])).toEqual(UNITS.map((c) => c.name));
  });

  it("has every entry and experiment of both documents once, their JSON as the document has it", async () => {
    for (const name of ["a", "b"] as const) {
      const rows = await sql(`SELECT path, json FROM entries WHERE document = '${name}.json' ORDER BY path`);
      const want = [...doc(name).bundles].sort((x, y) => (x.path < y.path ? -1 : 1));
      expect(rows.map((r) => r["path"])).toEqual(want.map((e) => e.path));
      rows.forEach((r, i) => expect(JSON.parse(r["json"] as string)).toEqual(want[i]));
      const xs = await sql(`SELECT experiment FROM experiments WHERE document = '${name}.json' ORDER BY experiment`);
      expect(xs.map((r) => r["experiment"])).toEqual(
        doc(name)
          .experiments.map((x) => x.experiment)
          .sort(),
      );
    }
  });

  it("one unit per trial; an Inspect log's units are its sample records, their states counted as the entry counts them", async () => {
    const counts = await sql(
      "SELECT document, entry, kind, state, count(*)::INTEGER AS n FROM units GROUP BY ALL ORDER BY ALL",
    );
    for (const name of ["a", "b"] as const)
      for (const e of doc(name).bundles) {
        const mine = counts.filter((r) => r["document"] === `${name}.json` && r["entry"] === e.path);
        if (e.profile !== "inspect" || e.validity === "error") {
          expect(
            mine.map((r) => r["n"]),
            e.path,
          ).toEqual([1]);
          continue;
        }
        // Every state the entry counts over its records (a planned sample without a record is "missing": no row).
        const want = Object.entries(e.samples ?? {}).filter(([s, n]) => n > 0 && s !== "missing");
        expect(Object.fromEntries(mine.map((r) => [r["state"], r["n"]])), e.path).toEqual(Object.fromEntries(want));
      }
  });

  it("answers the per-task pass rate of two runs as the JSON's entries give it, and each run's mean as its experiment", async () => {
    const rows = await sql(`
      SELECT document, task, avg(scores['reward']) AS rate, count(*)::INTEGER AS trials
      FROM units WHERE kind = 'harbor' AND state IN ('scored', 'scored-with-exception')
      GROUP BY document, task ORDER BY document, task`);
    const fromJson = (["a", "b"] as const).flatMap((name) => {
      const by = new Map<string, number[]>();
      for (const e of doc(name).bundles)
        if (e.profile === "harbor" && (e.state === "scored" || e.state === "scored-with-exception"))
          by.set(e.task!, [...(by.get(e.task!) ?? []), e.rewards!["reward"]!]);
      return [...by]
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([task, rs]) => ({
          document: `${name}.json`,
          task,
          rate: rs.reduce((s, r) => s + r, 0) / rs.length,
          trials: rs.length,
        }));
    });
    expect(rows).toEqual(fromJson);
    // The change is where it was made: task-1 0 → 1.
    expect(rows.filter((r) => r["task"] === "task-1").map((r) => r["rate"])).toEqual([0, 1]);
    const means = await sql(`
      SELECT document, avg(scores['reward']) AS mean FROM units
      WHERE kind = 'harbor' AND state IN ('scored', 'scored-with-exception') GROUP BY document ORDER BY document`);
    for (const m of means) {
      const x = doc((m["document"] as string)[0] as "a" | "b").experiments.find((x) => x.profile === "harbor")!;
      expect(m["mean"]).toBeCloseTo(x.rewards!["reward"]!.mean!, 12);
    }
  });

  it("answers which samples flipped between the two runs as the JSON's per-sample values give it", async () => {
    const rows = await sql(`
      WITH reduced AS (
        SELECT document, task, unit, avg(scores['match']) AS v FROM units
        WHERE kind = 'inspect' AND state = 'scored' GROUP BY ALL)
      SELECT a.task, a.unit, a.v AS before, b.v AS after
      FROM reduced a JOIN reduced b USING (task, unit)
      WHERE a.document = 'a.json' AND b.document = 'b.json' AND a.v IS DISTINCT FROM b.v ORDER BY ALL`);
    // From the JSON: each log's per-sample reduced values (§13.4), run A against run B, by task and sample id.
    const values = (d: Results) => {
      const m = new Map<string, number | null>();
      for (const e of inspectEntries(d)) {
        const metric = Object.entries(e.inspect!.metrics).find(([k, x]) => k.startsWith("match/") && x.values)?.[1];
        e.inspect!.sample_ids?.forEach((id, i) => m.set(`${e.task}\t${id}`, metric?.values?.exclude[i] ?? null));
      }
      return m;
    };
    const [va, vb] = [values(doc("a")), values(doc("b"))];
    const flipped = [...va]
      .filter(([k, v]) => vb.has(k) && vb.get(k) !== v)
      .map(([k, v]) => {
        const [task, unit] = k.split("\t");
        return { task, unit, before: v, after: vb.get(k) };
      })
      .sort((x, y) => (`${x.task}\t${x.unit}` < `${y.task}\t${y.unit}` ? -1 : 1));
    expect(flipped.length).toBeGreaterThan(0);
    expect(rows).toEqual(flipped);
    expect(rows.map((r) => [r["unit"], r["after"]])).toEqual([
      ["2", 0],
      ["5", 1],
    ]);
  });

  it("says where each unit's evidence is: a trial's folder and trajectory, a log with its sample's member and the inspect view command", async () => {
    const [trial] = await sql(
      `SELECT evidence, evidence_file, open_command FROM units WHERE kind = 'harbor' AND document = 'a.json' AND unit = 'task-0__2b4f676e'`,
    );
    expect(trial).toEqual({
      evidence: `${JOB}/task-0__2b4f676e`,
      evidence_file: "agent/trajectory.json",
      open_command: null,
    });
    const samples = await sql(
      `SELECT unit_id, evidence, evidence_file, open_command, open_url, epoch FROM units WHERE kind = 'inspect' AND document = 'a.json' AND evidence LIKE '%.eval' AND unit = '2' ORDER BY evidence LIMIT 1`,
    );
    expect(samples[0]!["evidence_file"]).toBe("samples/2_epoch_1.json");
    expect(samples[0]!["open_command"]).toBe("inspect view --log-dir logs");
    // inspect view's route to the sample and epoch (the HTML report's sample rows give the same)
    expect(samples[0]!["open_url"]).toBe(
      `http://127.0.0.1:7575/#/logs/${encodeURIComponent(String(samples[0]!["evidence"]).split("/").pop()!)}/samples/sample/2/${samples[0]!["epoch"]}`,
    );
    const [none] = await sql(`SELECT count(*) AS n FROM units WHERE kind <> 'inspect' AND open_url IS NOT NULL`);
    expect(Number(none!["n"])).toBe(0);
    expect(samples[0]!["unit_id"]).toBe(`${samples[0]!["evidence"]}#2@1`);
    const unique = await sql("SELECT count(*) = count(DISTINCT (document, unit_id)) AS ok FROM units");
    expect(unique[0]!["ok"]).toBe(true);
  });
});

describe("a unit row", () => {
  const unit = (profile: Profile, fields: Partial<BundleEntry> = {}) => {
    const e = { path: "runs/x/t1", ...blankEntry({ validity: "valid", errors: [], profile, ...fields }) };
    const row = entryUnit("r.json", e, kindOfEntry(profile));
    return Object.fromEntries(UNITS.map((c, i) => [c.name, row[i]]));
  };
  it("names the file each kind's evidence is read from first, and only Inspect's viewer command", () => {
    const files = Object.fromEntries(
      (["harbor", "terminal-bench", "swe-bench", "native-game", "world", "inspect"] as const).map((p) => [
        p,
        [unit(p)["evidence_file"], unit(p)["open_command"]],
      ]),
    );
    expect(files).toEqual({
      harbor: ["agent/trajectory.json", null],
      "terminal-bench": ["panes/post-test.txt", null],
      "swe-bench": ["test_output.txt", null],
      "native-game": ["journal.jsonl", null],
      world: ["journal.jsonl", null],
      inspect: [null, "inspect view --log-dir runs/x"],
    });
  });
  it("scores what the entry scores: rewards by key, a victory or pass as 1 or 0, each dimension; nothing for an unscored one", () => {
    expect(unit("harbor", { rewards: { reward: 0.5, style: 1 } })["scores"]).toEqual({ reward: 0.5, style: 1 });
    expect(unit("native-game", { victory: false })["scores"]).toEqual({ victory: 0 });
    expect(
      unit("world", { pass: true, dimensions: { budget: { pass: false, hard: false, detail: "" } } })["scores"],
    ).toEqual({ pass: 1, "dimensions.budget": 0 });
    expect(unit("harbor")["scores"]).toEqual({});
    expect(unit("harbor", { validity: "error" })["state"]).toBe("tool error");
  });
});

describe("docs/export.md", () => {
  const page = readFileSync(new URL("../docs/export.md", import.meta.url), "utf8");
  it("lists every column of each table, in order, with its type", () => {
    for (const [name, cols] of Object.entries(TABLES)) {
      const section = page.split(`### \`${name}\``)[1]!.split("\n\n")[1]!;
      const rows = [...section.matchAll(/^\| `([a-z_]+)` \| ([A-Z(), ]+) \|/gm)].map((m) => [m[1], m[2]]);
      expect(rows, name).toEqual(cols.map((c) => [c.name, c.type]));
    }
  });
  it("its every SQL example runs on the export and answers something", async () => {
    const queries = [...page.matchAll(/^```sql\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(queries.length).toBeGreaterThanOrEqual(4);
    for (const q of queries) expect((await sql(q)).length, q).toBeGreaterThan(0);
  });
});

describe("assay export refuses, or keeps going", () => {
  it("a log it cannot read keeps its entry's one row and says why; without RESULTS or --out it is a usage error", async () => {
    const moved = join(dir, "elsewhere");
    const r = spawnCli(["export", join(demo, "a.json"), "--out", moved, "--from", dir], { timeout: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/its samples could not be read \(no file at /);
    const other = await DuckDBInstance.create(join(moved, "assay.duckdb"), { access_mode: "READ_ONLY" });
    const oc = await other.connect();
    const rows = (
      await oc.runAndReadAll(
        "SELECT count(*)::INTEGER AS n, count(detail)::INTEGER AS d FROM units WHERE kind = 'inspect'",
      )
    ).getRowObjectsJson();
    oc.closeSync();
    other.closeSync();
    const logs = inspectEntries(doc("a")).filter((e: BundleEntry) => e.validity !== "error").length;
    expect(rows[0]).toEqual({ n: logs, d: logs });
    expect(spawnCli(["export", "--out", moved]).code).toBe(2);
    expect(spawnCli(["export", join(demo, "a.json")]).code).toBe(2);
  });
});

// Review 40, findings 3–5: an export reads only the log its entry was scored from, within score's
// limits, and a failed export leaves the folder as it was.
describe("assay export reads only what score read, and fails whole", () => {
  const base = () => inspectLogBytes(baseSpec());
  /** A folder holding `log.eval` (its bytes), scored into `doc.json` there. */
  const scored = (name: string, bytes: Uint8Array) => {
    const at = join(dir, name);
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, "log.eval"), bytes);
    expect(spawnCli(["score", "log.eval", "--format", "json", "--out", "doc.json", "-q"], { cwd: at }).code).toBe(0);
    return at;
  };
  const exported = (at: string, args: string[] = []) =>
    spawnCli(["export", "doc.json", "--out", "out", ...args], { cwd: at, timeout: 120_000 });
  const unitRows = (at: string) => sql(`SELECT unit, detail FROM '${join(at, "out", "units.parquet")}' ORDER BY unit`);
  /** The base log with its k-th sample member replaced (as in inspect-bombs.test.ts). */
  const withSample = (k: number, f: (m: Member) => Member & { body?: Buffer; usize?: number }) => {
    const ms = members(place(`base-${Math.random().toString(36).slice(2)}.eval`, base()));
    const at = ms.findIndex((m) => m.name.startsWith("samples/")) + k;
    return zipBytes(ms.map((m, i) => (i === at ? f(m) : m)));
  };

  it("the log scored is read; another log copied over it is not: its entry's row says why", async () => {
    const at = scored("swap", base());
    const r = exported(at);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/could not be read/);
    expect((await unitRows(at)).map((u) => u["detail"])).toEqual([null, null, null]);
    // Another log, of 4 samples, where the scored one was.
    writeFileSync(join(at, "log.eval"), inspectLogBytes({ ...baseSpec(), samples: 4, seed: "other" }));
    const swapped = exported(at);
    expect(swapped.code, swapped.stderr).toBe(0);
    expect(swapped.stderr).toMatch(
      /log\.eval: its samples could not be read \(the file is not the log this entry was scored from \(its SHA-256 [0-9a-f]{64}, the entry's [0-9a-f]{64}\)\)/,
    );
    const rows = await unitRows(at);
    expect(rows).toHaveLength(1);
    expect(rows[0]!["detail"]).toMatch(
      /^its samples could not be read \(the file is not the log this entry was scored from/,
    );
  }, 120_000);

  it("a log that changes while its samples are read: the reader throws EvidenceChanged at its end, so its units are dropped", async () => {
    const file = place("changing.eval", base());
    const entry = { path: "changing.eval", ...scoreInspectLog(file, "eval") };
    expect([...inspectUnits(entry, file)]).toHaveLength(3);
    const units = inspectUnits(entry, file);
    expect(units.next().done).toBe(false);
    writeFileSync(file, inspectLogBytes({ ...baseSpec(), seed: "changed" }));
    expect(() => [...units]).toThrow(EvidenceChanged);
  });

  it("a log score found FILE_TOO_LARGE is not decoded: its entry's one row says why (it took 1.6 GB and ran on)", async () => {
    // 64 MiB of spaces in a ~70 KB log: past the decode budget (64 times its size and 16 MiB).
    const at = scored(
      "too-large",
      withSample(0, (m) => ({ ...m, data: Buffer.alloc(64 * 2 ** 20, 0x20), method: 8 })),
    );
    const doc = JSON.parse(readFileSync(join(at, "doc.json"), "utf8")) as Results;
    expect(doc.bundles[0]!.errors.map((f) => f.code)).toEqual(["FILE_TOO_LARGE"]);
    const t = performance.now();
    const r = exported(at);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/its samples could not be read \(FILE_TOO_LARGE: score found it past what assay reads\)/);
    expect(await unitRows(at)).toEqual([{ unit: "swap", detail: expect.stringMatching(/FILE_TOO_LARGE/) }]);
    console.log(`export of a FILE_TOO_LARGE log: ${(performance.now() - t).toFixed(0)} ms`);
    // The reader refuses it too, whatever the entry says, before decoding; the base log is read whole.
    const blank = { path: "x.eval", ...blankEntry({ validity: "valid", errors: [], profile: "inspect" }) };
    const file = join(at, "log.eval");
    expect(() => [...inspectUnits({ ...blank, digest: fileDigest(file) }, file)]).toThrow(
      /^FILE_TOO_LARGE: its members declare/,
    );
    const ok = place("ok.eval", base());
    expect([...inspectUnits({ ...blank, digest: fileDigest(ok) }, ok)]).toHaveLength(3);
  }, 120_000);

  it("a batch cut short by a member past assay's limits gives the units before it, then says why (its units were dropped silently)", () => {
    // A zstd member declaring 300 MiB, as its 2,400 RLE blocks can hold: FILE_TOO_LARGE before decoding.
    const rle = Buffer.alloc(4 * 2_400);
    for (let i = 0; i < 2_400; i++)
      rle.writeUInt32LE(((128 * 1024) << 3) | 2 | (i === 2_399 ? 1 : 0) | (0x20 << 24), 4 * i);
    const body = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]), rle]);
    const bytes = withSample(1, (m) => ({ ...m, method: 93, body, usize: 300 * 2 ** 20 }));
    const file = place("member-too-large.eval", bytes);
    const entry = { path: "member-too-large.eval", ...scoreInspectLog(file, "eval") };
    expect(entry.errors.map((f) => f.code)).toEqual(["FILE_TOO_LARGE"]);
    const got: string[] = [];
    expect(() => {
      for (const u of inspectUnits(entry, file)) got.push(u.unit);
    }).toThrow(/^FILE_TOO_LARGE: samples\/\S+: 314572800 bytes uncompressed/);
    expect(got).toHaveLength(1); // the sample before the refused one
  });

  it("a failed export leaves the folder's old files as they were and no temporary file; a good one replaces them all", async () => {
    const at = scored("fails", base());
    const out = join(at, "out");
    mkdirSync(join(out, "entries.parquet"), { recursive: true }); // the new entries.parquet cannot go there
    writeFileSync(join(out, "assay.duckdb"), "old database");
    writeFileSync(join(out, "units.parquet"), "old units");
    const r = exported(at);
    expect(r.code, r.stderr).toBe(2);
    expect(readFileSync(join(out, "assay.duckdb"), "utf8")).toBe("old database");
    expect(readFileSync(join(out, "units.parquet"), "utf8")).toBe("old units");
    expect(readdirSync(out).sort()).toEqual(["assay.duckdb", "entries.parquet", "units.parquet"]);
    rmSync(join(out, "entries.parquet"), { recursive: true });
    const good = exported(at);
    expect(good.code, good.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      "assay.duckdb",
      "entries.parquet",
      "experiments.parquet",
      "units.parquet",
    ]);
    expect(await unitRows(at)).toHaveLength(3);
    expect(readFileSync(join(out, "assay.duckdb")).subarray(0, 12).toString("latin1")).not.toBe("old database");
  }, 120_000);
});

const baseSpec = () => ({
  task: "swap",
  model: "openai/gpt-4o-mini",
  case: "clean" as const,
  samples: 3,
  epochs: 1,
  format: "eval" as const,
  method: 8 as const,
  seed: "swap",
  offset: 0,
});
