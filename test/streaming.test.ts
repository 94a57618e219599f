// A million runs (issue 12): results never held whole. The document is written in pieces from a
// spill file, byte for byte what JSON.stringify gives; JSON Lines round-trips; a merge reads its
// shards as streams and equals one run; a shard that is not assay's own is a one-line error naming
// the byte; the table stays readable; --help and verify load no SDK, SQLite or pool.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { resultsSchema, viewOf, type Results } from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { scoreRoots, scoreRun } from "../src/pipeline/score.js";
import { renderText } from "../src/report/index.js";
import { nested, pieces } from "../src/report/json.js";
import { writeBigResults } from "./helpers/big-results.js";
import { bundle, game, killed, live, writeFiles } from "./helpers/bundle.js";
import { CLI, run, spawnCli } from "./helpers/cli.js";
import { HAVE_SHARED, REQUIRE_SHARED, scratch, SHARED_DIR } from "./helpers/shared.js";
import { openSpills } from "./helpers/spills.js";

const RUN = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude", jobs: 2 } as const;
const { dir: tmp } = scratch("assay-stream-");
let corpus: string;

beforeAll(() => {
  corpus = join(tmp, "corpus");
  writeCorpus(join(corpus, "game"), { n: 40, seed: "stream", faults: true });
  writeCorpus(join(corpus, "world"), { n: 11, seed: "stream", faults: false, profile: "world" });
  writeCorpus(join(corpus, "harbor"), { n: 12, seed: "stream", faults: false, profile: "harbor" });
});

const withoutRun = (text: string) => text.replace(/\n  "run": \{[\s\S]*?\n  \},\n/, "\n");

describe("the JSON document, written in pieces", () => {
  it("is byte for byte JSON.stringify(document, null, 2), on every shape of document", async () => {
    const doc = await scoreRoots([corpus], RUN);
    expect(doc.bundles.length).toBeGreaterThan(60);
    const shapes: Results[] = [
      doc,
      { ...doc, bundles: [] },
      { ...doc, experiments: [] },
      { ...doc, bundles: [], experiments: [] },
    ];
    for (const d of shapes) expect(renderText("json", d)).toBe(JSON.stringify(d, null, 2) + "\n");
  });

  it("a value written n levels down is JSON.stringify's text with every line after the first indented 2n spaces", () => {
    const values: unknown[] = [
      0,
      -1.5e300,
      'a\nb "q" \u2028',
      null,
      true,
      [],
      {},
      [[]],
      { a: {} },
      { a: [1, { b: "x\ny" }], c: null },
      [{ k: [[], {}] }, "", 7],
    ];
    for (const v of values)
      for (let depth = 0; depth <= 6; depth++)
        expect(nested(v, depth)).toBe(JSON.stringify(v, null, 2).replace(/\n/g, `\n${"  ".repeat(depth)}`));
    // What JSON.stringify would leave out is never written, as null or otherwise.
    for (const v of [undefined, () => 1, Symbol("s")]) expect(() => nested(v, 2)).toThrow(TypeError);
  });

  it("a short list whose items hold long lists is written item by item too, never as one string", () => {
    const value = { facts: { experiments: [{ name: "x", values: Array.from({ length: 10_000 }, (_, i) => i) }] } };
    const parts = [...pieces(value, 0)];
    expect(parts.join("")).toBe(JSON.stringify(value, null, 2));
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(100);
  });

  it("the same from a spill file as from memory, and the spill file is gone after", async () => {
    const spillDir = mkdtempSync(join(tmp, "spill-"));
    const inMemory = await scoreRun([corpus], { ...RUN, spillDir });
    expect(readdirSync(spillDir)).toEqual([]); // a small run never touches the disk
    const spilled = await scoreRun([corpus], { ...RUN, spillDir, spillAfterBytes: 0 });
    expect(readdirSync(spillDir)).toEqual([]); // the spill's name is gone as soon as it is open
    expect(openSpills(spillDir).length).toBeGreaterThan(0); // and the file is there until closed
    const a = renderText("json", { ...inMemory, run: spilled.run });
    const b = renderText("json", spilled);
    expect(b).toBe(a);
    expect(b).toBe(JSON.stringify(JSON.parse(b), null, 2) + "\n");
    inMemory.close();
    spilled.close();
    expect(readdirSync(spillDir)).toEqual([]);
    expect(openSpills(spillDir)).toEqual([]);
  });

  it("the contract's examples: the CLI's document is JSON.stringify of the same value", async (ctx) => {
    if (!HAVE_SHARED) {
      if (REQUIRE_SHARED) throw new Error(`../shared is required under CI (looked in ${SHARED_DIR})`);
      return ctx.skip();
    }
    const r = await run(["score", join(SHARED_DIR, "examples"), "--format", "json"]);
    expect(r.stdout).toBe(JSON.stringify(JSON.parse(r.stdout), null, 2) + "\n");
  });
});

describe("--format jsonl", () => {
  it("the run, then every bundle in path order, then every experiment, each line typed, the same values as the JSON document", async () => {
    const json = JSON.parse((await run(["score", corpus, "--format", "json"])).stdout) as Results;
    const lines = (await run(["score", corpus, "--format", "jsonl"])).stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: "run",
      format: "assay.results/1",
      lines: { bundles: json.bundles.length, experiments: json.experiments.length },
    });
    const bundles = lines.filter((l) => l.type === "bundle").map(({ type: _t, ...e }) => e);
    const experiments = lines.filter((l) => l.type === "experiment").map(({ type: _t, ...e }) => e);
    expect(lines.map((l) => l.type)).toEqual([
      "run",
      ...bundles.map(() => "bundle"),
      ...experiments.map(() => "experiment"),
    ]);
    expect(bundles).toEqual(json.bundles);
    expect(experiments).toEqual(json.experiments);
    const { started_at: _s, ...run1 } = lines[0].run;
    const { started_at: _t, ...run2 } = json.run;
    expect(run1).toEqual(run2);
  });
});

describe("merge reads shards as streams", () => {
  it("JSON and JSON Lines shards, mixed, merge to what one run gives", async () => {
    const one = await run(["score", corpus, "--format", "json"]);
    const shards = [0, 1, 2].map((i) => join(tmp, `shard-${i}.${i === 1 ? "jsonl" : "json"}`));
    for (const [i, f] of shards.entries())
      expect(
        (
          await run([
            "score",
            corpus,
            "--shard",
            `${i}/3`,
            "--format",
            i === 1 ? "jsonl" : "json",
            "--out",
            f,
            "--quiet",
          ])
        ).code,
      ).toBe(0);
    const merged = await run(["merge", ...shards, "--format", "json"]);
    expect(merged.code).toBe(0);
    expect(withoutRun(merged.stdout)).toBe(withoutRun(one.stdout));
    const mergedLines = await run(["merge", ...shards, "--format", "jsonl"]);
    expect(mergedLines.stdout.split("\n").filter((l) => l.startsWith('{"type":"bundle"'))).toHaveLength(
      JSON.parse(one.stdout).bundles.length,
    );
  });

  it("a shard that is not assay's own: one line naming the file and the byte, exit 2", async () => {
    const good = join(tmp, "good-shard.json");
    expect((await run(["score", corpus, "--shard", "0/1", "--out", good, "--quiet"])).code).toBe(0);
    const text = readFileSync(good, "utf8");
    const jsonl = (await run(["score", corpus, "--shard", "0/1", "--format", "jsonl", "--quiet"])).stdout.split(
      /(?<=\n)/,
    );
    // A whole run's document (a shard's lists no experiments): one experiment line short.
    const whole = (await run(["score", corpus, "--format", "jsonl", "--quiet"])).stdout
      .split(/(?<=\n)/)
      .filter((l) => l !== "");
    const experiments = whole.filter((l) => l.startsWith('{"type":"experiment"')).length;
    expect(experiments).toBeGreaterThan(1);
    const cases: [string, string, RegExp][] = [
      [
        "cut.json",
        text.slice(0, Math.floor(text.length / 2)),
        /cut\.json is not an assay results document: the document ends at byte \d+ before it is complete \(cut short\?\)$/,
      ],
      [
        "other.json",
        text.replace('"format": "assay.results/1"', '"format": "someone.else/2"'),
        /other\.json is not an assay results document: its format is "someone\.else\/2", not assay\.results\/1$/,
      ],
      [
        "array.json",
        "[1, 2, 3]\n",
        /array\.json is not an assay results document: expected a JSON object \('\{'\) at byte 0$/,
      ],
      [
        "bad-entry.json",
        text.replace('"validity": "valid"', '"validity": "fine"'),
        /bad-entry\.json is not an assay results document: the bundle entry at byte \d+: validity: /,
      ],
      ["empty.json", "", /empty\.json is not an assay results document: the file is empty$/],
      [
        "trailing.json",
        `${text}{}`,
        /trailing\.json is not an assay results document: unexpected data after the document at byte \d+$/,
      ],
      [
        "lines.jsonl",
        `${JSON.stringify({ type: "run", format: "assay.results/1", run: JSON.parse(text).run })}\nnot json\n`,
        /lines\.jsonl is not an assay results document: line 2 at byte \d+ is not JSON$/,
      ],
      [
        "torn.jsonl",
        `${JSON.stringify({ type: "run", format: "assay.results/1", run: JSON.parse(text).run })}\n{"type":"bundle"`,
        /torn\.jsonl is not an assay results document: its last line \(byte \d+\) has no line end: the document is cut short$/,
      ],
      [
        "no-experiments.json",
        JSON.stringify({ ...JSON.parse(text), experiments: undefined }, null, 2),
        /no-experiments\.json is not an assay results document: it has no "experiments" array$/,
      ],
      [
        "experiments-object.json",
        JSON.stringify({ ...JSON.parse(text), experiments: {} }, null, 2),
        /experiments-object\.json is not an assay results document: "experiments" at byte \d+ is not an array$/,
      ],
      // JSON Lines has no closing bracket: a cut at a line end is found by the counts its run line announces.
      [
        "cut-at-line.jsonl",
        jsonl.slice(0, 4).join(""),
        /cut-at-line\.jsonl is not an assay results document: its first line announces \d+ bundle and \d+ experiment lines, and 3 and 0 follow: the document is cut short or was edited$/,
      ],
      [
        "one-short.jsonl",
        whole.slice(0, -1).join(""),
        new RegExp(
          `one-short\\.jsonl is not an assay results document: its first line announces (\\d+) bundle and ${experiments} experiment lines, and \\1 and ${experiments - 1} follow`,
        ),
      ],
      [
        "second-run.jsonl",
        [jsonl[0]!, ...jsonl].join(""),
        /second-run\.jsonl is not an assay results document: line 2 \(byte \d+\) is a second run$/,
      ],
      [
        "odd-line.jsonl",
        [jsonl[0]!, '{"type":"other"}\n', ...jsonl.slice(1)].join(""),
        /odd-line\.jsonl is not an assay results document: line 2 \(byte \d+\) is neither a bundle nor an experiment$/,
      ],
      [
        "bad-lines.jsonl",
        [jsonl[0]!.replace('"lines":{"bundles":', '"lines":{"bundle":'), ...jsonl.slice(1)].join(""),
        /bad-lines\.jsonl is not an assay results document: the "lines" of its first line are not two counts$/,
      ],
    ];
    for (const [name, content, message] of cases) {
      const f = join(tmp, name);
      writeFileSync(f, content);
      const r = spawnCli(["merge", f]);
      expect(r.code, name).toBe(2);
      expect(r.stderr.split("\n"), name).toHaveLength(2);
      expect(r.stderr.trimEnd(), name).toMatch(message);
      expect(r.stdout, name).toBe("");
    }
  });

  it("a JSON Lines shard written before its run line counted the lines is read as before", async () => {
    const lines = (await run(["score", corpus, "--shard", "0/1", "--format", "jsonl", "--quiet"])).stdout.split(
      /(?<=\n)/,
    );
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first["lines"]).toBeDefined();
    delete first["lines"];
    const old = join(tmp, "old.jsonl");
    writeFileSync(old, [JSON.stringify(first) + "\n", ...lines.slice(1)].join(""));
    const r = await run(["merge", old, "--format", "json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Results).bundles).toHaveLength(
      lines.filter((l) => l.startsWith('{"type":"bundle"')).length,
    );
  });

  it("a document read from a pipe (which states no size) is read in whole chunks, not byte by byte", () => {
    const doc = join(tmp, "piped.json");
    writeBigResults(doc, 3000, () => false); // one line of ~1.8 MB
    const fifo = join(tmp, "piped.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // The shell becomes the CLI (exec), so the timeout stops the CLI itself; cat feeds the FIFO.
    // compare (a merge wants shards): the piped document against itself on disk.
    const script = 'cat "$0" > "$1" & exec "$2" "$3" compare "$1" "$0" --format json';
    const r = spawnSync("sh", ["-c", script, doc, fifo, process.execPath, CLI], { encoding: "utf8", timeout: 30_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(
      JSON.parse(r.stdout).experiments[0].metrics.find((m: { metric: string }) => m.metric === "accuracy").paired.pairs,
    ).toBe(3000);
  }, 40_000);

  it("a document that cannot be read (missing, a folder) is one line naming it, exit 2", () => {
    for (const [args, message] of [
      [["merge", tmp], /^assay merge: cannot read .*assay-stream-\w+: it is a folder\n$/],
      [
        ["compare", join(tmp, "absent.json"), join(tmp, "absent.json")],
        /^assay compare: cannot read .*absent\.json: no such file\n$/,
      ],
    ] as const) {
      const r = spawnCli([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it("a document refused part way leaves no file open", async () => {
    // Refused in its first chunk, with more of the file still to read.
    const bad = join(tmp, "bad-early.json");
    writeBigResults(bad, 3000, () => false);
    const text = readFileSync(bad, "utf8");
    writeFileSync(bad, text.replace('"validity":"valid"', '"validity":"fine"'));
    const { readShard } = await import("../src/io/shard-reader.js");
    const open = () => readdirSync("/proc/self/fd").length;
    const before = open();
    for (let i = 0; i < 20; i++)
      expect(() => readShard(bad, () => {})).toThrow(/the bundle entry at byte \d+: validity/);
    expect(open()).toBe(before);
  });

  it("the byte named is where the problem is", () => {
    const f = join(tmp, "where.json");
    const head = '{"format": "assay.results/1", "bundles": [';
    writeFileSync(f, `${head}x]}`);
    const r = spawnCli(["merge", f]);
    expect(r.stderr).toMatch(new RegExp(`a bundle entry at byte ${Buffer.byteLength(head)} is not JSON`));
  });
});

describe("the table at scale", () => {
  it("caps the bundles with findings at 50 and says how many more (--format json has them)", async () => {
    const root = join(tmp, "many-bad");
    for (let i = 0; i < 60; i++)
      writeFiles(
        join(root, `exp/t${String(i).padStart(2, "0")}/a1`),
        bundle(game({ trial: `t${i}`, seed: i.toString(16).padStart(2, "0").repeat(8), states: [live(), killed()] }), {
          summary: { victory: true },
        }),
      );
    const r = await run(["score", root, "--details"]);
    const listed = r.stdout.split("\n").filter((l) => /^  .*: invalid SUMMARY_MISMATCH/.test(l));
    expect(listed).toHaveLength(50);
    expect(r.stdout).toMatch(/\n  … 10 more \(--format json\)\n/);
    expect(r.stdout).toMatch(/^assay: 60 bundles: 0 valid, 60 invalid, 0 tool errors$/m);
  });
});

describe("startup (item 6)", () => {
  const traced = (args: string[]) => {
    const file = join(tmp, `loads-${Math.random().toString(36).slice(2)}.txt`);
    const hook = fileURLToPath(new URL("./fixtures/trace-loads.mjs", import.meta.url));
    const r = spawnCli(args, { node: ["--import", hook], env: { TRACE_FILE: file } });
    return { code: r.code, loaded: existsSync(file) ? readFileSync(file, "utf8").split("\n") : [] };
  };
  const HEAVY = /@anthropic-ai\/sdk|better-sqlite3|piscina|\/pool\/pool\.js|\/pipeline\/spill\.js/;

  it("--help, a command's --help and verify of one bundle load no model SDK, SQLite or worker pool", () => {
    const one = join(corpus, "game/synth-native/t0000/a1");
    for (const args of [["--help"], ["score", "--help"], ["analyze", "--help"], ["verify", one]]) {
      const r = traced(args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.loaded.length, args.join(" ")).toBeGreaterThan(3);
      expect(
        r.loaded.filter((u) => HEAVY.test(u)),
        args.join(" "),
      ).toEqual([]);
    }
    // A small run is scored in the main thread (pipeline/in-thread.ts): no pool is loaded; the trace
    // sees it when a command does need it (a deadline is only a worker's).
    expect(traced(["score", one, "--quiet"]).loaded.some((u) => /piscina/.test(u))).toBe(false);
    expect(traced(["score", one, "--quiet", "--bundle-timeout", "60"]).loaded.some((u) => /piscina/.test(u))).toBe(
      true,
    );
  });
});

describe("the view of a document", () => {
  it("counts bundles by validity and Harbor trials once, as the table and the exit code read them", async () => {
    const doc = await scoreRoots([corpus], RUN);
    const v = viewOf(doc);
    expect(v.tally.bundles).toBe(doc.bundles.length);
    expect(v.tally.valid + v.tally.invalid + v.tally.error).toBe(doc.bundles.length);
    expect(v.tally.byProfile["harbor"]).toBe(doc.bundles.filter((b) => b.profile === "harbor").length);
    expect(resultsSchema.safeParse(JSON.parse(renderText("json", v))).success).toBe(true);
  });
});
