// The CLI: logic in-process through main(argv, io); exit codes and stderr through a spawned dist/cli.js.
import { readFileSync, writeFileSync, existsSync, readdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { exitForResults } from "../src/cli/exit.js";
import { resultsSchema, type Results } from "../src/core/results.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { bundle, game, killed, escaped, live, writeFiles } from "./helpers/bundle.js";
import { run, spawnCli } from "./helpers/cli.js";
import { scratch, scratchInTest } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-cli-");
const write = writeFiles;

beforeAll(() => {
  write(
    join(tmp, "good/exp/win/a1"),
    bundle(game({ trial: "win", seed: "aa".repeat(8), states: [live(), escaped()] })),
  );
  write(
    join(tmp, "good/exp/loss/a1"),
    bundle(game({ trial: "loss", seed: "bb".repeat(8), states: [live(), killed()] })),
  );
  write(
    join(tmp, "mixed/exp/win/a1"),
    bundle(game({ trial: "win", seed: "aa".repeat(8), states: [live(), escaped()] })),
  );
  write(
    join(tmp, "mixed/exp/liar/a1"),
    bundle(game({ trial: "liar", seed: "cc".repeat(8), states: [live(), killed()] }), { summary: { victory: true } }),
  );
  writeFileSync(
    join(tmp, "schedule.json"),
    JSON.stringify({
      format: "assay.schedule/1",
      experiment: "exp",
      trials: [
        { trial: "win", seed: "aa".repeat(8) },
        { trial: "loss", seed: "bb".repeat(8) },
        { trial: "later", seed: "dd".repeat(8) },
      ],
    }),
  );
  writeFileSync(
    join(tmp, "bad-schedule.json"),
    JSON.stringify({
      format: "assay.schedule/1",
      experiment: "exp",
      trials: [{ trial: "x", seed: "ABCDEF0123456789" }],
    }),
  );
});

describe("assay score (in-process)", () => {
  it("prints a table with each metric and its denominator", async () => {
    const r = await run(["score", join(tmp, "good"), "--details"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/accuracy\s+1\/2 = 50\.0%/);
    expect(r.stdout).toMatch(/completion\s+2\/2 = 100\.0%/);
    expect(r.stdout).toMatch(/raw record\s+01\b/); // byte order: loss, win
  });

  it("emits the §10 document as JSON, valid against the zod schema, paths joined to the root as given", async () => {
    const root = join(tmp, "good") + "/";
    const r = await run(["score", root, "--format", "json"]);
    const doc = resultsSchema.parse(JSON.parse(r.stdout));
    expect(doc.bundles.map((b) => b.path)).toEqual([
      `${join(tmp, "good")}/exp/loss/a1`,
      `${join(tmp, "good")}/exp/win/a1`,
    ]);
    expect(doc.experiments[0]!.accuracy).toMatchObject({ victories: 1, scored: 2, value: 0.5 });
  });

  it("is byte-identical across runs apart from run", async () => {
    const a = JSON.parse((await run(["score", join(tmp, "mixed"), "--format", "json"])).stdout);
    const b = JSON.parse((await run(["score", join(tmp, "mixed"), "--format", "json"])).stdout);
    delete a.run;
    delete b.run;
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it("applies schedules: missing trials, order, and a bad schedule is a usage error", async () => {
    const r = await run(["score", join(tmp, "good"), "--schedule", join(tmp, "schedule.json"), "--format", "json"]);
    const exp = JSON.parse(r.stdout).experiments[0];
    expect(exp.missing).toEqual(["later"]);
    expect(exp.raw_record.values).toEqual([1, 0, 0]);
    expect(exp.retry).toEqual(["later"]);
    const bad = await run(["score", join(tmp, "good"), "--schedule", join(tmp, "bad-schedule.json")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/schedule .*seed/);
  });

  it("--fail-on invalid exits 1 only when something is invalid", async () => {
    expect((await run(["score", join(tmp, "mixed")])).code).toBe(0);
    expect((await run(["score", join(tmp, "mixed"), "--fail-on", "invalid"])).code).toBe(1);
    expect((await run(["score", join(tmp, "good"), "--fail-on", "invalid"])).code).toBe(0);
  });

  it("--invalid exclude leaves invalid trials out of accuracy but still lists them", async () => {
    const counted = JSON.parse((await run(["score", join(tmp, "mixed"), "--format", "json"])).stdout).experiments[0];
    const excluded = JSON.parse(
      (await run(["score", join(tmp, "mixed"), "--format", "json", "--invalid", "exclude"])).stdout,
    ).experiments[0];
    expect(counted.accuracy).toMatchObject({ victories: 1, scored: 2 });
    expect(excluded.accuracy).toMatchObject({ victories: 1, scored: 1 });
    expect(excluded.invalid).toEqual([{ trial: "liar", codes: ["SUMMARY_MISMATCH"] }]);
  });

  it("--out writes the document atomically and leaves no temp file", async () => {
    const out = join(tmp, "out.json");
    const r = await run(["score", join(tmp, "good"), "--format", "json", "--out", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    resultsSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(readdirSync(tmp).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(r.stderr).toMatch(/wrote .*out\.json \(2 bundles\)/);
    expect(r.stderr).not.toMatch(/not scored/);
    const quiet = await run(["score", join(tmp, "good"), "--format", "json", "--out", out, "--quiet"]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
  });

  it("a run written to --out with tool errors says their codes on stderr (why it exits 3), counted as it is written; --quiet says nothing", async () => {
    for (const format of ["json", "table"]) {
      const out = join(tmp, `timed-out.${format}`);
      // A millisecond is less than any worker takes to start: both bundles run out of time.
      const r = await run(["score", join(tmp, "good"), "--bundle-timeout", "0.001", "--format", format, "--out", out]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("\nassay: 2 tool errors, not scored: TIMEOUT 2 (each entry's errors say why)\n");
    }
    const quiet = await run([
      "score",
      join(tmp, "good"),
      "--bundle-timeout",
      "0.001",
      "-q",
      "--out",
      join(tmp, "q.json"),
    ]);
    expect(quiet.code).toBe(3);
    expect(quiet.stderr).toBe("");
  });

  it("refuses an --out that is a folder, or below a file, before scoring, and a schedule that is a folder", async () => {
    const cases: [string[], RegExp][] = [
      [["--out", tmp], /cannot write .*: it is a folder/],
      [["--out", join(tmp, "schedule.json", "x.json")], /schedule\.json is not a folder/],
      [["--schedule", tmp], /cannot read schedule .*: it is a folder/],
      [["--schedule", join(tmp, "nope.json")], /cannot read schedule .*nope\.json: no such file/],
    ];
    for (const [extra, message] of cases) {
      const r = await run(["score", join(tmp, "good"), ...extra]);
      expect(r.code, extra.join(" ")).toBe(2);
      expect(r.stderr.trim().split("\n"), extra.join(" ")).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    }
    expect(readdirSync(tmp).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("--out removes temp files a killed writer left an hour ago, and keeps younger ones and live writers'", async () => {
    const { dir } = scratchInTest("assay-stale-");
    const out = join(dir, "results.json");
    const dead = join(dir, ".results.json.999999999.abc.tmp"); // no such process
    const young = join(dir, ".results.json.999999998.def.tmp");
    const live = join(dir, `.results.json.${process.pid}.ghi.tmp`);
    const other = join(dir, ".other.json.999999999.jkl.tmp");
    const longer = join(dir, `.results.json.5.${process.pid}.mno.tmp`); // a live writer of results.json.5
    for (const f of [dead, young, live, other, longer]) writeFileSync(f, "partial");
    const hourAgo = (Date.now() - 61 * 60 * 1000) / 1000;
    for (const f of [dead, live, other, longer]) utimesSync(f, hourAgo, hourAgo);
    expect((await run(["score", join(tmp, "good"), "--format", "json", "--out", out])).code).toBe(0);
    expect(existsSync(dead)).toBe(false);
    for (const f of [young, live, other, longer, out]) expect(existsSync(f), f).toBe(true);
  });

  it("usage errors are one line, exit 2", async () => {
    for (const argv of [
      ["score"],
      ["score", join(tmp, "nope")],
      ["score", tmp, "--format", "xml"],
      ["score", tmp, "--bogus"],
      ["frobnicate"],
      ["verify"],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr.trim().split("\n"), argv.join(" ")).toHaveLength(1);
    }
  });
});

describe("assay verify (in-process)", () => {
  it("prints every finding and exits 1 for invalid evidence", async () => {
    const r = await run(["verify", join(tmp, "mixed/exp/liar/a1")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/SUMMARY_MISMATCH\s+summary\.json\s+field victory/);
  });
  it("--json prints the bundle entry; a valid bundle exits 0", async () => {
    const r = await run(["verify", join(tmp, "good/exp/win/a1"), "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ validity: "valid", victory: true, late: false, status: "completed" });
  });
  it("a folder without journal.jsonl is a usage error", async () => {
    expect((await run(["verify", tmp])).code).toBe(2);
  });
});

describe("assay synth and demo (in-process)", () => {
  it("synth is deterministic for a seed and never writes into a non-empty folder", async () => {
    const a = join(tmp, "synth-a");
    const b = join(tmp, "synth-b");
    expect((await run(["synth", "--out", a, "--n", "6", "--seed", "x", "--faults"])).code).toBe(0);
    expect((await run(["synth", "--out", b, "--n", "6", "--seed", "x", "--faults"])).code).toBe(0);
    const list = (d: string) => readdirSync(d, { recursive: true }).map(String).sort();
    expect(list(a)).toEqual(list(b));
    for (const f of list(a).filter((f) => f.endsWith(".jsonl") || f.endsWith(".json")))
      expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), f).toBe(true);
    const again = await run(["synth", "--out", a, "--n", "6"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/not empty/);
  });

  it("synth labels agree with the verdicts", async () => {
    const dir = join(tmp, "synth-labels");
    await run(["synth", "--out", dir, "--n", "30", "--seed", "labels", "--faults"]);
    const manifest = JSON.parse(readFileSync(join(dir, "synth-manifest.json"), "utf8"));
    for (const b of manifest.bundles) {
      const e = scoreDirectory(join(dir, b.dir), b.dir);
      expect(e.validity, b.dir).toBe(b.expect.validity);
      if (b.expect.code)
        expect(
          e.errors.map((f) => f.code),
          b.dir,
        ).toContain(b.expect.code);
    }
  });

  it("demo scores a mixed corpus and cleans up", async () => {
    const r = await run(["demo"]);
    expect(r.code).toBe(0);
    // The overview: one line per experiment.
    expect(r.stdout).toMatch(/^synth-native\s+m-1\s+native-game /m);
    expect(r.stdout).toMatch(/^synth-world\s+m-2\s+world /m);
    // A listed kind's demo corpus (its synth part in kinds/list.ts), named in the closing message.
    expect(r.stdout).toMatch(/^synth-swe\/org__model-7b\s+swe-bench\s/m);
    expect(r.stderr).toMatch(
      / and a SWE-bench run \(logs\/run_evaluation\/…\) with its final report in a temporary folder\n/,
    );
    expect(r.stdout).toMatch(/no blended score/);
    // Every labelled broken bundle is found (the codes' list shows the commonest first: SWE-bench's push JOURNAL_CHAIN past it).
    expect(r.stdout).toMatch(/^findings +10 bundles, .* not valid: /m);
    // It names no folder it removes (test/newcomer.test.ts checks the removal).
    expect(r.stderr).toMatch(/in a temporary folder\n[^]*removed the temporary folder scored above/);
  });
});

describe("exit codes", () => {
  const doc = (validities: ("valid" | "invalid" | "error")[]): Results =>
    ({ bundles: validities.map((validity) => ({ validity })), experiments: [] }) as unknown as Results;
  it("3 wins over 1; 1 only with --fail-on invalid", () => {
    expect(exitForResults(doc(["valid"]), true)).toBe(0);
    expect(exitForResults(doc(["invalid"]), false)).toBe(0);
    expect(exitForResults(doc(["invalid"]), true)).toBe(1);
    expect(exitForResults(doc(["invalid", "error"]), true)).toBe(3);
    expect(exitForResults(doc(["error"]), false)).toBe(3);
  });
  it("a bundle that vanished before it was read is a tool error, not evidence", () => {
    const e = scoreDirectory(join(tmp, "vanished"), "vanished");
    expect(e.validity).toBe("error");
    expect(e.errors[0]!.code).toBe("IO_ERROR");
  });
});

describe("spawned dist/cli.js", () => {
  it("exit 0 and the table on stdout", () => {
    const r = spawnCli(["score", join(tmp, "good")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^exp\s+m-1\s+native-game /m);
  });
  it("exit 1 with --fail-on invalid", () => {
    expect(spawnCli(["score", join(tmp, "mixed"), "--fail-on", "invalid"]).code).toBe(1);
  });
  it("exit 2 with one clear line and no stack trace", () => {
    const r = spawnCli(["score", join(tmp, "does-not-exist")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`assay score: root ${join(tmp, "does-not-exist")} does not exist\n`);
    expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });
  it("--version and help", () => {
    expect(spawnCli(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(spawnCli(["--help"]).stdout).toMatch(/\n  score +score every bundle/);
    expect(spawnCli(["score", "--help"]).stdout).toMatch(/^assay score ROOT/);
    expect(spawnCli([]).code).toBe(2);
  });
});
