// What reading one Inspect log may cost, whatever the log declares (issue 35 §4), and a .eval that
// is a ZIP of other files (§5). Real files written to a scratch folder (the large ones streamed to
// disk, never whole in memory), read by the built CLI in child processes under a heap cap: `verify`
// in process, `score` through real workers.

import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_RECORD_BYTES, recordBytes, scoreInspectLog } from "../src/kinds/inspect/read.js";
import { sampleRecord } from "../src/kinds/inspect/sample.js";
import { ZipWriter, zipBytes } from "../src/synth/zip.js";
import { VERIFY_TIMEOUT_S } from "../src/cli/commands/verify.js";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { DEFAULT_BUNDLE_TIMEOUT_MS } from "../src/pool/pool.js";
import { run, spawnMeasured } from "./helpers/cli.js";
import { fixture, members, scratch } from "./helpers/inspect.js";

/** Writes strings to a file a MiB at a time. */
function streamTo(file: string): { put(s: string | Uint8Array): void; close(): void } {
  const fd = openSync(file, "w");
  let parts: (string | Uint8Array)[] = [];
  let size = 0;
  const flush = () => {
    for (const p of parts) writeSync(fd, typeof p === "string" ? Buffer.from(p) : p);
    parts = [];
    size = 0;
  };
  return {
    put(s) {
      parts.push(s);
      size += s.length;
      if (size > 1 << 20) flush();
    },
    close() {
      flush();
      closeSync(fd);
    },
  };
}

const HEADER = (n: number) =>
  `"version":2,"status":"success","eval":{"eval_id":"e","run_id":"r","task_id":"t","task":"many","model":"openai/gpt-4o-mini","created":"2025-11-03T10:00:00+00:00","packages":{"inspect_ai":"0.3.255"},"config":{"epochs":1,"epochs_reducer":["mean"]},"scorers":[{"name":"match","options":{},"metrics":[{"name":"inspect_ai/accuracy","options":{}}],"metadata":{}}],"dataset":{"name":"many","samples":${n}}},"results":{"total_samples":${n},"completed_samples":${n},"scores":[{"name":"match","scorer":"match","reducer":"mean","scored_samples":${n},"unscored_samples":0,"params":{},"metrics":{"accuracy":{"name":"accuracy","value":0.5,"params":{}}}}]},"stats":{}`;
/** The smallest sample Inspect could write: an id, an epoch and one score (C and I in turn: accuracy 0.5). */
const tinySample = (i: number) => `{"id":${i},"epoch":1,"scores":{"match":{"value":"${i % 2 ? "C" : "I"}"}}}`;

/** A .json log of `n` tiny samples, streamed to disk. */
function manySamplesJson(name: string, n: number): string {
  const file = join(scratch(), name);
  const out = streamTo(file);
  out.put(`{${HEADER(n)},"samples":[`);
  for (let i = 1; i <= n; i++) out.put(i === 1 ? tinySample(i) : `,${tinySample(i)}`);
  out.put("]}");
  out.close();
  return file;
}

/** A .eval of `n` stored sample members, each scored a list of `values` zeros, and its header, streamed to disk. */
function manySamplesEval(name: string, n: number, values: number): string {
  const file = join(scratch(), name);
  const out = streamTo(file);
  const w = new ZipWriter((b) => out.put(b));
  const list = `[${new Array<number>(values).fill(0).join(",")}]`;
  for (let i = 1; i <= n; i++)
    w.add(`samples/${i}_epoch_1.json`, Buffer.from(`{"id":${i},"epoch":1,"scores":{"match":{"value":${list}}}}`), 0);
  w.add("header.json", Buffer.from(`{${HEADER(n)}}`), 0);
  w.end();
  out.close();
  return file;
}

const HEAP = ["--max-old-space-size=256"];
const entryOf = (stdout: string, score: boolean) => (score ? JSON.parse(stdout).bundles[0] : JSON.parse(stdout));
function verify(file: string, extra: string[] = []) {
  const r = spawnMeasured(["verify", file, "--json", ...extra], HEAP);
  return { ...r, rssMB: r.maxRssKb / 1024, entry: entryOf(r.stdout, false) };
}
function score(file: string) {
  const r = spawnMeasured(["score", file, "--jobs", "2", "--format", "json", "--quiet"], HEAP);
  return { ...r, rssMB: r.maxRssKb / 1024, entry: entryOf(r.stdout, true) };
}
/** A log whose records pass the ceiling, read no further, is invalid (verify exits 1, score 0): never a worker's death. */
function expectRecordsRefused(r: ReturnType<typeof verify>, exit: number): void {
  expect(r.stderr).not.toMatch(/WORKER_FAILED|heap out of memory/i);
  expect(r.code, r.stderr).toBe(exit);
  expect(r.entry.validity).toBe("invalid");
  expect(r.entry.errors.map((f: { code: string }) => f.code)).toEqual(["FILE_TOO_LARGE"]);
  expect(r.entry.errors[0].message).toMatch(
    /its sample records need more than assay holds for one log \(268435456 bytes/,
  );
  expect(r.entry.experiment).toBe("many (openai/gpt-4o-mini)");
}

describe("a log's sample records are bounded (MAX_RECORD_BYTES)", () => {
  it("a tiny record counts about 1.4 KB: the ceiling holds about 196,000 of them (1,366 bytes, 196,512 when written)", () => {
    const r = sampleRecord(JSON.parse(tinySample(123456)), "samples[123455]", []);
    expect(recordBytes(r!)).toBeGreaterThan(1_300);
    expect(recordBytes(r!)).toBeLessThan(1_450);
    expect(Math.floor(MAX_RECORD_BYTES / recordBytes(r!))).toBeGreaterThan(185_000);
    // a record holding more counts more: a list score of 1,000 values, about 32 KB
    const big = sampleRecord(
      { id: 1, epoch: 1, scores: { match: { value: new Array(1_000).fill(0) } } },
      "samples/1_epoch_1.json",
      [],
    );
    expect(recordBytes(big!) - recordBytes(r!)).toBeGreaterThan(31_000);
  });

  describe("a .json log of a million tiny samples (64 MB): verify needed 1.15 GB, score's worker died", () => {
    let file: string;
    beforeAll(() => {
      file = manySamplesJson("2025-11-03T10-00-00_many.json", 1_000_000);
    });
    it("verify under a 256 MB heap: FILE_TOO_LARGE, read no further", () => {
      const r = verify(file);
      console.log(`10^6 samples, verify: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectRecordsRefused(r, 1);
      expect(r.rssMB).toBeLessThan(320);
    }, 60_000);
    it("score through a worker: the same entry, no WORKER_FAILED", () => {
      const r = score(file);
      console.log(`10^6 samples, score: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectRecordsRefused(r, 0);
      expect(r.rssMB).toBeLessThan(400);
    }, 60_000);
  });

  it("a split .eval whose records pass the ceiling: score's parts and verify's whole read give one verdict", () => {
    // 10,000 samples whose score is a list of 1,000 values (~32 KB a record held): past it at ~8,200
    const file = manySamplesEval("many.eval", 10_000, 1_000);
    for (const [r, exit] of [
      [score(file), 0],
      [verify(file), 1],
    ] as const) {
      console.log(`.eval of 10,000 samples with list scores: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectRecordsRefused(r, exit);
      expect(r.entry.errors[0].file).toBe("header.json");
    }
  }, 60_000);

  it("in process, parts of the split drop what they hold once past it, and give the entry the whole read gives", async () => {
    const file = manySamplesEval("split.eval", 10_000, 1_000);
    const options: ScoreRunOptions = { schedules: [], ...DEFAULT_BATCH, jobs: 2 };
    const whole = await scoreRoots([file], { ...options, inspectSplit: { logBytes: Infinity, partBytes: 1 } });
    const split = await scoreRoots([file], { ...options, inspectSplit: { logBytes: 1, partBytes: 100_000 } });
    expect(split.bundles).toEqual(whole.bundles);
    expect(whole.bundles[0]!.errors.map((f) => f.code)).toEqual(["FILE_TOO_LARGE"]);
    // the honest neighbour: 8,000 such samples are under it, whole and split alike
    const fewer = manySamplesEval("fewer.eval", 8_000, 1_000);
    const splitFewer = await scoreRoots([fewer], { ...options, inspectSplit: { logBytes: 1, partBytes: 100_000 } });
    // (its list scores are no accuracy's values: the claim's check finds that, as it should)
    expect(splitFewer.bundles[0]!.validity).not.toBe("error");
    expect(splitFewer.bundles[0]!.samples).toMatchObject({ scored: 8_000 });
  }, 60_000);

  it("the honest neighbour: 150,000 tiny samples (under the ceiling) are read whole, under the same heap", () => {
    const file = manySamplesJson("2025-11-03T10-00-00_fewer.json", 150_000);
    // the text view: --json's entry carries 150,000 ids and values, past spawnSync's output buffer
    const r = spawnMeasured(["verify", file], HEAP);
    console.log(`150,000 samples, verify: exit ${r.code}, peak RSS ${(r.maxRssKb / 1024).toFixed(0)} MB`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(": valid (inspect, experiment many (openai/gpt-4o-mini))");
    expect(r.stdout).toMatch(/^ {2}samples {2}scored 150000$/m);
    expect(r.stdout).toContain("match/mean/accuracy: claimed 0.5 (agrees); assay 0.5 over 150000 scored records");
    // verify's time bound: the same log given a second is a TIMEOUT, as score's pool makes it
    const slow = verify(file, ["--bundle-timeout", "0.05"]);
    expect(slow.code).toBe(3);
    expect(slow.entry.errors.map((f: { code: string; message: string }) => [f.code, f.message])).toEqual([
      ["TIMEOUT", "ran past the 50 ms limit for one log"],
    ]);
  }, 60_000);
});

describe("a log past a limit earns nothing: invalid, never set aside as the tool's error", () => {
  /** A task run of two logs: `a` (10 samples, all correct, claims 1.0), then `b` (n samples, half correct, claims 0.9: a mismatch). */
  function chain(name: string, n: number): string {
    const dir = join(scratch(), name);
    mkdirSync(dir);
    const a = manySamplesJson(`${name}/2025-11-03T10-00-00_a.json`, 10);
    writeFileSync(
      a,
      readFileSync(a, "utf8").replaceAll('"value":"I"', '"value":"C"').replace('"value":0.5,', '"value":1,'),
    );
    const b = manySamplesJson(`${name}/2025-11-03T11-00-00_b.json`, n);
    const text = readFileSync(b, "utf8");
    writeFileSync(b, text.replace('"value":0.5,', '"value":0.9,').replace('"run_id":"r"', '"run_id":"r2"'));
    return dir;
  }
  const figure = async (dir: string) => {
    const doc = JSON.parse((await run(["score", dir, "--format", "json", "--quiet"])).stdout);
    const e = doc.experiments[0];
    return {
      value: e.inspect["match/mean/accuracy"].value,
      invalid: e.invalid.map((i: { codes: string[] }) => i.codes),
    };
  };
  it("a retry chain whose later log is too large to read is zeroed as if read (0.000), where as the tool's error it was left out (no figure, beside a claim of 1.000 that agrees)", async () => {
    expect(await figure(chain("chain-large", 200_000))).toEqual({ value: 0, invalid: [["FILE_TOO_LARGE"]] });
    // the honest neighbour: the same log small enough to read is invalid for its claim, and zeroes the run alike
    expect(await figure(chain("chain-small", 20))).toEqual({ value: 0, invalid: [["METRIC_MISMATCH"]] });
  }, 60_000);
});

describe("one value of a .json log is held no larger than a .eval member (256 MiB)", () => {
  /** A .json log of two samples, the first padded with `pad` bytes of text (streamed to disk). */
  function paddedJson(name: string, pad: number): string {
    const file = join(scratch(), name);
    const out = streamTo(file);
    out.put(`{${HEADER(2)},"samples":[{"id":1,"epoch":1,"scores":{"match":{"value":"C"}},"store":{"pad":"`);
    const mib = "a".repeat(2 ** 20);
    for (let left = pad; left > 0; left -= mib.length) out.put(left >= mib.length ? mib : mib.slice(0, left));
    out.put(`"}},${tinySample(2)}]}`);
    out.close();
    return file;
  }
  it("a sample of 257 MiB is FILE_TOO_LARGE, read no further; one of 32 MiB is read", () => {
    const big = scoreInspectLog(paddedJson("2025-11-03T10-00-00_big-sample.json", 257 * 2 ** 20), "json");
    expect(big.validity).toBe("invalid");
    expect(big.errors.map((f) => [f.code, f.message])).toEqual([
      [
        "FILE_TOO_LARGE",
        expect.stringMatching(
          /^the value after byte \d+ runs past 268435456 bytes, more than assay reads in one member or sample/,
        ),
      ],
    ]);
    expect(big.experiment).toBe("many (openai/gpt-4o-mini)");
    const fine = scoreInspectLog(paddedJson("2025-11-03T10-00-00_fine-sample.json", 32 * 2 ** 20), "json");
    expect(fine.validity).toBe("valid");
    expect(fine.samples).toMatchObject({ scored: 2 });
  }, 60_000);
});

describe("verify's time bound", () => {
  it("is score's default, and --bundle-timeout is checked as score checks it", async () => {
    expect(VERIFY_TIMEOUT_S * 1000).toBe(DEFAULT_BUNDLE_TIMEOUT_MS);
    const r = await run(["verify", fixture("log_streaming.eval"), "--bundle-timeout", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--bundle-timeout takes a number of seconds above 0");
    expect((await run(["verify", fixture("log_streaming.eval"), "--bundle-timeout", "5"])).code).toBe(0);
  });
});

describe("a .eval that is a ZIP of other files is not an Inspect log (it was scored as a log started, incomplete)", () => {
  let dir: string;
  beforeAll(() => {
    dir = join(scratch(), "zips");
    const z = (name: string, ms: { name: string; data: string }[]) =>
      writeFileSync(
        join(dir, name),
        zipBytes(ms.map((m) => ({ name: m.name, data: Buffer.from(m.data), method: 8 as const }))),
      );
    mkdirSync(dir);
    z("2025-11-03T10-00-00_other.eval", [
      { name: "notes.txt", data: "hello" },
      { name: "data/b.json", data: '{"x":1}' },
    ]);
    // the honest neighbour: a log Inspect has just begun, its start record alone
    z("2025-11-03T11-00-00_begun.eval", [
      {
        name: "_journal/start.json",
        data: JSON.stringify({
          version: 2,
          eval: {
            task: "t",
            model: "m",
            task_id: "x",
            eval_id: "e",
            run_id: "r",
            created: "2025-11-03T11:00:00+00:00",
            dataset: {},
            config: {},
          },
        }),
      },
    ]);
    // an edited log whose first member is not Inspect's: its directory decides, and it is a log
    const real = members(fixture("log_streaming.eval"));
    writeFileSync(
      join(dir, "2025-11-03T12-00-00_edited.eval"),
      zipBytes([{ name: "README.txt", data: Buffer.from("x"), method: 8 }, ...real]),
    );
  });

  it("score: counted and listed as not a log, never a task run; the begun log stays incomplete", async () => {
    const r = await run(["score", dir, "--format", "json", "--quiet"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.run.unrecognised).toEqual({ count: 1, paths: [`${dir}/2025-11-03T10-00-00_other.eval`] });
    const byPath = Object.fromEntries(doc.bundles.map((b: { path: string }) => [b.path.slice(dir.length + 1), b]));
    expect(Object.keys(byPath).sort()).toEqual(["2025-11-03T11-00-00_begun.eval", "2025-11-03T12-00-00_edited.eval"]);
    expect(byPath["2025-11-03T11-00-00_begun.eval"]).toMatchObject({
      validity: "valid",
      status: "started",
      state: "incomplete",
    });
    expect(byPath["2025-11-03T12-00-00_edited.eval"].validity).toBe("valid");
    const table = await run(["score", dir]);
    expect(table.stdout).toContain(
      "1 .eval file is a ZIP archive holding none of an Inspect log's members: not an Inspect log, not scored",
    );
    expect(table.stdout).toContain(`  ${dir}/2025-11-03T10-00-00_other.eval`);
  });

  it("verify: refused as no Inspect log, naming it", async () => {
    const r = await run(["verify", join(dir, "2025-11-03T10-00-00_other.eval")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "2025-11-03T10-00-00_other.eval is a file but not an Inspect log (a .eval ZIP archive of Inspect's members",
    );
    const begun = await run(["verify", join(dir, "2025-11-03T11-00-00_begun.eval")]);
    expect(begun.code).toBe(0);
    expect(begun.stdout).toContain("status   started, incomplete");
  });
});
