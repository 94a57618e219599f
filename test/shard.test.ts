// Shards and merge (issue 3, item 5): `--shard i/n` partitions bundles by a hash of their results
// path; `assay merge` of every shard gives the document a single run gives, byte for byte apart
// from `run`, including trials whose attempts were scored in different shards; and merge refuses
// whatever would make it differ.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resultsSchema, type Results } from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { inShard, parseShard } from "../src/pipeline/shard.js";
import { planCorpus } from "../src/synth/corpus.js";
import { bundle, escaped, game, killed, live, sha, type GameOpts } from "./helpers/bundle.js";
import { run, spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

// ---------------------------------------------------------------------------------------------
// Corpus: a synthesised part (retries, superseded attempts, labelled faults, repeats by task,
// resource-bound runs) and a hand-built part whose trial names are chosen so that each trial's
// attempts land in at least two different shards for every n used below.

const NS = [2, 3, 5] as const;
const SYNTH = { n: 40, seed: "shard-test", faults: true, events: 4 };

type Files = Record<string, string | Buffer>;
type Who = { trial: string; attempt: number; seed?: string; task?: string };
const seedOf = (trial: string) => sha(`exp/${trial}`).slice(0, 32);
const opts = (w: Who): GameOpts => ({
  experiment: "exp",
  trial: w.trial,
  attempt: w.attempt,
  seed: w.seed ?? seedOf(w.trial),
  session: `s-${w.trial}-${w.attempt}`,
  meta: w.task === undefined ? { model: "m-1" } : { model: "m-1", task: w.task },
});
const victory = (w: Who): Files => bundle(game({ ...opts(w), states: [live(), escaped()] }));
const death = (w: Who): Files => bundle(game({ ...opts(w), states: [live(), killed()] }));
const abnormal = (w: Who): Files => bundle(game({ ...opts(w), states: [live()], score: "none", end: "abnormal" }));
const bareUnterminated = (w: Who): Files => bundle(game({ ...opts(w), states: [live()], score: "none", end: null }));
const resourceBound = (w: Who): Files =>
  bundle(game({ ...opts(w), states: [live()], score: "intermediate", end: "resource-bound" }));
const liar = (w: Who): Files =>
  bundle(game({ ...opts(w), states: [live(), killed()] }), { summary: { victory: true } });

/** A hand-built case: its bundles as [trial folder, attempt folder, files], given the chosen names. */
interface Case {
  base: string;
  /** How many distinct trial names the case needs (e.g. two for a seed collision). */
  names: number;
  build(names: string[]): [string, number, Files][];
}
const CASES: Case[] = [
  // a1 has no outcome: superseded by a2 (a victory)
  {
    base: "sup",
    names: 1,
    build: ([t]) => [
      [t!, 1, abnormal({ trial: t!, attempt: 1 })],
      [t!, 2, victory({ trial: t!, attempt: 2 })],
    ],
  },
  // a1 decided the trial (a loss); a2's victory is a retry after an outcome and must not count
  {
    base: "retry",
    names: 1,
    build: ([t]) => [
      [t!, 1, death({ trial: t!, attempt: 1 })],
      [t!, 2, victory({ trial: t!, attempt: 2 })],
    ],
  },
  // an invalid attempt (the summary lies) makes the whole trial invalid
  {
    base: "badsum",
    names: 1,
    build: ([t]) => [
      [t!, 1, abnormal({ trial: t!, attempt: 1 })],
      [t!, 2, liar({ trial: t!, attempt: 2 })],
    ],
  },
  // the attempts disagree on the seed
  {
    base: "seedmix",
    names: 1,
    build: ([t]) => [
      [t!, 1, abnormal({ trial: t!, attempt: 1 })],
      [t!, 2, victory({ trial: t!, attempt: 2, seed: "ab".repeat(16) })],
    ],
  },
  // attempts 1 and 3 without 2
  {
    base: "gap",
    names: 1,
    build: ([t]) => [
      [t!, 1, abnormal({ trial: t!, attempt: 1 })],
      [t!, 3, victory({ trial: t!, attempt: 3 })],
    ],
  },
  // two superseded attempts, then a death
  {
    base: "triple",
    names: 1,
    build: ([t]) => [
      [t!, 1, abnormal({ trial: t!, attempt: 1 })],
      [t!, 2, bareUnterminated({ trial: t!, attempt: 2 })],
      [t!, 3, death({ trial: t!, attempt: 3 })],
    ],
  },
  // every attempt abnormal: excluded, and on the retry list
  {
    base: "allbad",
    names: 1,
    build: ([t]) => [
      [t!, 1, abnormal({ trial: t!, attempt: 1 })],
      [t!, 2, abnormal({ trial: t!, attempt: 2 })],
    ],
  },
  // resource-bound first, then a retry: --resource-bound decides
  {
    base: "rb",
    names: 1,
    build: ([t]) => [
      [t!, 1, resourceBound({ trial: t!, attempt: 1 })],
      [t!, 2, victory({ trial: t!, attempt: 2 })],
    ],
  },
  // two trials with one seed, in different shards: SEED_COLLISION for both
  {
    base: "coll",
    names: 2,
    build: ([a, b]) => [
      [a!, 1, death({ trial: a!, attempt: 1, seed: "cd".repeat(16) })],
      [b!, 1, victory({ trial: b!, attempt: 1, seed: "cd".repeat(16) })],
    ],
  },
  // repeats of one task across shards (pass^k)
  {
    base: "rep",
    names: 3,
    build: (ts) =>
      ts.map((t, i): [string, number, Files] => [
        t,
        1,
        (i === 0 ? victory : death)({ trial: t, attempt: 1, task: "task-rep" }),
      ]),
  },
];

const { dir: tmp } = scratch("assay-shard-");
let root: string;
let scheduleExp: string;
let scheduleSynth: string;
/** Every bundle path of the corpus (from a single run). */
let allPaths: string[];
/** The hand-built trials whose bundles span shards, by case base. */
const chosen = new Map<string, { names: string[]; paths: string[] }>();

const shardOf = (path: string, n: number): number => {
  const hits = [...Array(n).keys()].filter((i) => inShard(path, { index: i, count: n }));
  expect(hits).toHaveLength(1);
  return hits[0]!;
};
const write = (dir: string, files: Files) => {
  mkdirSync(dir, { recursive: true });
  for (const [p, b] of Object.entries(files)) writeFileSync(join(dir, p), b);
};

/** The document with its `run` member cut out as text (JSON output is 2-space indented). */
const RUN_BLOCK = /^ {2}"run": \{\n[\s\S]*?\n {2}\},\n/m;
const withoutRun = (text: string): string => {
  expect(text).toMatch(RUN_BLOCK);
  const cut = text.replace(RUN_BLOCK, "");
  expect(cut).not.toContain('"run"');
  return cut;
};

const parse = (text: string): Results => resultsSchema.parse(JSON.parse(text));

async function ok(argv: string[]): Promise<string> {
  const r = await run(argv);
  expect(r.code, `${argv.join(" ")}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** Score every shard of n into files; returns the files by index. */
const shardFiles = new Map<string, string[]>();
async function shards(n: number, extra: string[] = [], tag = ""): Promise<string[]> {
  const key = `${n}:${extra.join(" ")}:${tag}`;
  const have = shardFiles.get(key);
  if (have) return have;
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const out = await ok(["score", root, "--shard", `${i}/${n}`, ...extra]);
    const file = join(tmp, `shard-${n}-${i}${extra.join("").replace(/[^a-z]/g, "")}${tag}.json`);
    writeFileSync(file, out);
    files.push(file);
  }
  shardFiles.set(key, files);
  return files;
}

beforeAll(async () => {
  root = join(tmp, "corpus");
  writeCorpus(join(root, "synth"), SYNTH);

  // Choose names: for each case, the first suffix for which its bundles span >= 2 shards for every n.
  for (const c of CASES) {
    for (let k = 0; ; k++) {
      const names = [...Array(c.names).keys()].map((j) => `${c.base}${j}-${k}`);
      const built = c.build(names);
      const paths = built.map(([t, a]) => `${root}/hand/exp/${t}/a${a}`);
      if (NS.every((n) => new Set(paths.map((p) => shardOf(p, n))).size >= 2)) {
        for (const [t, a, files] of built) write(join(root, "hand/exp", t, `a${a}`), files);
        chosen.set(c.base, { names, paths });
        break;
      }
      if (k > 500) throw new Error(`no names split case ${c.base}`);
    }
  }

  // Schedules: one for the hand-built experiment (with a missing trial and an unscheduled one) and
  // one for the synthesised experiment (its first trials, plus one that never ran).
  const n = (base: string) => chosen.get(base)!.names;
  scheduleExp = join(tmp, "schedule-exp.json");
  writeFileSync(
    scheduleExp,
    JSON.stringify({
      format: "assay.schedule/1",
      experiment: "exp",
      trials: [
        ...["sup", "retry", "badsum", "triple", "allbad", "rb"].map((b) => ({
          trial: n(b)[0]!,
          seed: seedOf(n(b)[0]!),
        })),
        { trial: n("seedmix")[0]!, seed: seedOf(n("seedmix")[0]!) },
        ...n("coll").map((t) => ({ trial: t, seed: "cd".repeat(16) })),
        ...n("rep").map((t) => ({ trial: t, seed: seedOf(t) })),
        { trial: "never-ran", seed: "ef".repeat(16) },
        // "gap" is left out: UNSCHEDULED
      ],
    }),
  );
  const plan = planCorpus(SYNTH).filter((b) => b.attempt === 1 && !(b.profile === "native-game" && b.fault));
  scheduleSynth = join(tmp, "schedule-synth.json");
  writeFileSync(
    scheduleSynth,
    JSON.stringify({
      format: "assay.schedule/1",
      experiment: "synth-native",
      trials: [
        ...plan.slice(0, 30).map((b) => ({ trial: b.trial, seed: b.seed })),
        { trial: "t9999", seed: "01".repeat(16) },
      ],
    }),
  );

  allPaths = parse(await ok(["score", root, "--format", "json"])).bundles.map((b) => b.path);
});

describe("the corpus (preconditions)", () => {
  it("has trials whose attempts fall in different shards for every n, and the batch rules that make that matter", async () => {
    const doc = parse(await ok(["score", root, "--format", "json"]));
    for (const n of NS) {
      const split = new Set<string>();
      for (const b of doc.bundles) {
        if (b.trial === null) continue;
        const others = doc.bundles.filter((o) => o.experiment === b.experiment && o.trial === b.trial);
        if (new Set(others.map((o) => shardOf(o.path, n))).size >= 2) split.add(`${b.experiment}/${b.trial}`);
      }
      for (const base of ["sup", "retry", "badsum", "seedmix", "gap", "triple", "allbad", "rb"])
        expect(split).toContain(`exp/${chosen.get(base)!.names[0]}`);
    }
    const exp = doc.experiments.find((e) => e.experiment === "exp")!;
    const name = (b: string, i = 0) => chosen.get(b)!.names[i]!;
    const flagged = (code: string) => exp.flags.filter((f) => f.code === code).map((f) => `${f.trial}#${f.attempt}`);
    expect(flagged("SUPERSEDED")).toEqual(
      expect.arrayContaining([`${name("sup")}#1`, `${name("triple")}#1`, `${name("triple")}#2`]),
    );
    expect(flagged("RETRY_AFTER_OUTCOME")).toEqual(expect.arrayContaining([`${name("retry")}#2`, `${name("rb")}#2`]));
    const invalid = new Map(exp.invalid.map((i) => [i.trial, i.codes]));
    expect(invalid.get(name("badsum"))).toContain("SUMMARY_MISMATCH");
    expect(invalid.get(name("seedmix"))).toContain("SEED_MISMATCH");
    expect(invalid.get(name("gap"))).toContain("ATTEMPT_SEQUENCE");
    expect(invalid.get(name("coll", 0))).toContain("SEED_COLLISION");
    expect(invalid.get(name("coll", 1))).toContain("SEED_COLLISION");
    expect(exp.excluded.map((e) => e.trial)).toEqual(expect.arrayContaining([name("allbad"), name("rb")]));
    expect(exp.pass_hat_k).not.toBeNull();
    const synth = doc.experiments.find((e) => e.experiment === "synth-native")!;
    expect(synth.flags.some((f) => f.code === "SUPERSEDED")).toBe(true);
    expect(synth.invalid.length).toBeGreaterThan(0);
    expect(doc.bundles.some((b) => b.validity === "invalid")).toBe(true);
  });
});

describe("--shard i/n partitions the bundles", () => {
  for (const n of [1, ...NS]) {
    it(`n = ${n}: every bundle in exactly one shard, the one inShard names`, async () => {
      const files = await shards(n);
      const seen = new Map<string, number>();
      files.forEach((file, i) => {
        const doc = parse(readFileSync(file, "utf8"));
        expect(doc.run.shard).toBe(`${i}/${n}`);
        expect(doc.run.complete).toBe(true);
        expect(doc.experiments).toEqual([]);
        for (const b of doc.bundles) {
          expect(seen.has(b.path), `${b.path} in two shards`).toBe(false);
          seen.set(b.path, i);
          expect(inShard(b.path, { index: i, count: n })).toBe(true);
          expect(shardOf(b.path, n)).toBe(i);
        }
      });
      expect([...seen.keys()].sort()).toEqual([...allPaths].sort());
      for (const p of allPaths) expect(seen.get(p)).toBe(shardOf(p, n));
      if (n > 1) for (let i = 0; i < n; i++) expect([...seen.values()]).toContain(i); // no shard is empty on this corpus
    });
  }

  it("parseShard reads i/n, 0-based", () => {
    expect(parseShard("0/1")).toEqual({ index: 0, count: 1 });
    expect(parseShard("4/5")).toEqual({ index: 4, count: 5 });
    for (const bad of ["3/3", "x", "1", "0/0", "-1/2", "01/2", "1/02", " 0/2", "0/2 ", "1.0/2"])
      expect(() => parseShard(bad), bad).toThrow();
  });
});

describe("assay merge of every shard equals a single run (apart from run)", () => {
  const orders = (n: number): number[][] => {
    const fwd = [...Array(n).keys()];
    const rev = [...fwd].reverse();
    const rot = fwd.map((i) => (i + 1) % n);
    return [fwd, rev, rot];
  };
  const variants: [string, string[]][] = [
    ["no schedule", []],
    ["with --schedule", ["--schedule", "SCHED_EXP", "--schedule", "SCHED_SYNTH"]],
  ];
  for (const [label, schedArgs] of variants) {
    it(`${label}: n = 1, 2, 3, 5, in any order`, async () => {
      const sched = schedArgs.map((a) => (a === "SCHED_EXP" ? scheduleExp : a === "SCHED_SYNTH" ? scheduleSynth : a));
      const single = await ok(["score", root, "--format", "json", ...sched]);
      const singleDoc = parse(single);
      if (sched.length > 0) {
        const exp = singleDoc.experiments.find((e) => e.experiment === "exp")!;
        expect(exp.missing).toEqual(["never-ran"]);
        expect(exp.invalid).toContainEqual({ trial: chosen.get("gap")!.names[0], codes: ["UNSCHEDULED"] });
        expect(singleDoc.experiments.find((e) => e.experiment === "synth-native")!.missing).toEqual(["t9999"]);
      }
      for (const n of [1, ...NS]) {
        const files = await shards(n);
        for (const order of orders(n)) {
          const merged = await ok(["merge", ...order.map((i) => files[i]!), "--format", "json", ...sched]);
          expect(withoutRun(merged), `n=${n} order=${order}`).toBe(withoutRun(single));
          const m = parse(merged);
          expect(m.run.shard).toBeNull();
          expect(m.run.complete).toBe(true);
          expect(m.run.options).toEqual(singleDoc.run.options);
        }
      }
    });
  }

  it("with --invalid exclude and --resource-bound loss on every shard, merge follows them", async () => {
    const o = ["--invalid", "exclude", "--resource-bound", "loss"];
    const single = await ok(["score", root, "--format", "json", ...o]);
    const files = await shards(3, o);
    const merged = await ok(["merge", files[2]!, files[0]!, files[1]!, "--format", "json"]);
    expect(withoutRun(merged)).toBe(withoutRun(single));
    expect(parse(merged).run.options).toMatchObject({ invalid: "exclude", resource_bound: "loss" });
    // and the options did change something, so the equality is not vacuous
    const plain = await ok(["score", root, "--format", "json"]);
    expect(withoutRun(plain)).not.toBe(withoutRun(single));
  });

  it("merge writes --out atomically and the table format works on merged shards", async () => {
    const files = await shards(2);
    const out = join(tmp, "merged.json");
    const r = await run(["merge", ...files, "--format", "json", "--out", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(withoutRun(readFileSync(out, "utf8"))).toBe(withoutRun(await ok(["score", root, "--format", "json"])));
    const table = await run(["merge", ...files]);
    expect(table.code).toBe(0);
    expect(table.stdout).toBe((await run(["score", root])).stdout);
  });
});

describe("merge refuses, exit 2 with one clear line", () => {
  async function refused(argv: string[], pattern: RegExp) {
    const r = await run(["merge", ...argv, "--format", "json"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^assay merge: /);
    expect(lines[0]).toMatch(pattern);
    return lines[0]!;
  }
  const copy = (file: string, name: string, edit: (doc: Record<string, any>) => void): string => {
    const doc = JSON.parse(readFileSync(file, "utf8"));
    edit(doc);
    const to = join(tmp, name);
    writeFileSync(to, JSON.stringify(doc, null, 2) + "\n");
    return to;
  };

  it("a document that is not a shard (run.shard null)", async () => {
    const [a, b] = await shards(2);
    const plain = copy(b!, "not-a-shard.json", (d) => void (d["run"].shard = null));
    expect(await refused([a!, plain], /not a shard/)).toContain(plain);
  });

  it("a whole single-run document (with its experiments) is refused as not a shard", async () => {
    const full = join(tmp, "full.json");
    writeFileSync(full, await ok(["score", root, "--format", "json"]));
    expect(parse(readFileSync(full, "utf8")).run.shard).toBeNull(); // it is a valid results document
    const [a, b] = await shards(2);
    expect(await refused([a!, b!, full], /not a shard/)).toContain(full);
    await refused([full], /not a shard/);
  });

  it("a missing shard", async () => {
    const f = await shards(3);
    expect(await refused([f[0]!, f[2]!], /missing/)).toContain("1/3");
    const g = await shards(5);
    const line = await refused([g[4]!, g[1]!], /missing/);
    for (const s of ["0/5", "2/5", "3/5"]) expect(line).toContain(s);
  });

  it("a shard given twice (the same file, or the same index)", async () => {
    const [a, b] = await shards(2);
    await refused([a!, b!, a!], /twice/);
    const again = copy(a!, "shard-2-0-copy.json", () => {});
    await refused([again, a!, b!], /twice/);
  });

  it("shards of different n", async () => {
    const [a, b] = await shards(2);
    const t = await shards(3);
    await refused([a!, b!, t[0]!], /0\/3|of 2|of 3/);
    await refused([...t, a!, b!], /of 3|of 2/);
  });

  it("shards scored with different --invalid or --resource-bound", async () => {
    const [a, b] = await shards(2);
    const [ax, bx] = await shards(2, ["--invalid", "exclude"]);
    const [al, bl] = await shards(2, ["--resource-bound", "loss"]);
    await refused([a!, bx!], /options/);
    await refused([ax!, b!], /options/);
    await refused([al!, b!], /options/);
    await refused([a!, bl!], /options/);
    await refused([ax!, bl!], /options/);
    expect((await run(["merge", ax!, bx!, "--format", "json"])).code).toBe(0);
  });

  it("an incomplete shard (run.complete false)", async () => {
    const [a, b] = await shards(2);
    const stopped = copy(b!, "shard-2-1-stopped.json", (d) => void (d["run"].complete = false));
    expect(await refused([a!, stopped], /incomplete/)).toContain(stopped);
  });

  it("a different scoring version, or one bundle in two shards", async () => {
    const [a, b] = await shards(2);
    const old = copy(b!, "shard-2-1-old.json", (d) => void (d["run"].scoring_version = d["run"].scoring_version + 1));
    await refused([a!, old], /scoring version/);
    const dup = copy(b!, "shard-2-1-dup.json", (d) => {
      d["bundles"].push(JSON.parse(readFileSync(a!, "utf8")).bundles[0]);
    });
    await refused([a!, dup], /appears in two shards/);
  });

  it("a document that is not valid results JSON", async () => {
    const [a, b] = await shards(2);
    const broken = join(tmp, "broken.json");
    writeFileSync(broken, '{"format": "assay.results/1", "run": ');
    expect(await refused([a!, broken], /.+/)).toContain(broken);
    const other = join(tmp, "other.json");
    writeFileSync(other, JSON.stringify({ format: "assay.schedule/1", experiment: "exp", trials: [] }));
    expect(await refused([other, a!, b!], /not an assay results document/)).toContain(other);
    const truncated = copy(a!, "shard-no-bundles.json", (d) => void delete d["bundles"]);
    await refused([truncated, b!], /not an assay results document/);
    const empty = join(tmp, "empty.json");
    writeFileSync(empty, "");
    await refused([empty, b!], /empty\.json/);
    await refused([join(tmp, "absent.json"), b!], /absent\.json/);
  });

  it("no files at all", async () => {
    await refused([], /RESULTS/);
  });

  it("the spawned CLI exits 2 with the same one line", async () => {
    const [a] = await shards(2);
    const r = spawnCli(["merge", a!, "--format", "json"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^assay merge: shards missing: 1\/2 \(score each with --shard i\/2, then merge every shard\)\n$/,
    );
  });
});

describe("--shard usage errors", () => {
  async function usageError(argv: string[], pattern: RegExp) {
    const r = await run(["score", root, ...argv]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
  }
  it("--shard with --format table", async () => {
    await usageError(["--shard", "0/2", "--format", "table"], /--shard.*--format json|format json/);
  });
  it("--shard 3/3, --shard x and other malformed specs", async () => {
    await usageError(["--shard", "3/3"], /--shard 3\/3/);
    await usageError(["--shard", "x"], /--shard takes i\/n/);
    for (const bad of ["0/0", "-1/2", "1", "a/b", "1/2/3"]) await usageError(["--shard", bad], /--shard/);
  });
  it("spawned: --shard 3/3 exits 2", () => {
    const r = spawnCli(["score", root, "--shard", "3/3"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^assay score: --shard 3\/3/);
  });
});
