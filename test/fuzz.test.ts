// The byte-level fuzzer (src/fuzz): a fixed-seed run of its generator and oracle, a few cases
// through the pipeline on disk, the oracle caught planting cheats (an oracle that cannot fail is a
// stub), and the defect it found, pinned by a regression test on a real folder.

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { sha256 } from "../src/core/folder.js";
import type { ScoredBundle } from "../src/core/results.js";
import { diskProblem } from "../src/fuzz/disk.js";
import { Generator, type Base, type FuzzCase } from "../src/fuzz/generate.js";
import { readJson, sameJson } from "../src/fuzz/json.js";
import { judge } from "../src/fuzz/oracle.js";
import { PROFILES, type FuzzProfile } from "../src/fuzz/profiles.js";
import { fuzz, type FuzzReport } from "../src/fuzz/run.js";
import { file, type Tree } from "../src/fuzz/tree.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { synthHarborTrial } from "../src/synth/harbor.js";
import { rechain } from "./helpers/bundle.js";
import { run } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const { dir: ROOT } = scratch("assay-fuzz-test-", SCRATCH);

const SEED = 20_251_201;
const gen = new Generator();
const base = (name: string): Base => gen.bases.find((b) => b.name === name)!;

/** A case by hand: `base` with `change` applied to a copy of its folder. */
function planted(name: string, change: (t: Tree) => void = () => {}): FuzzCase {
  const b = base(name);
  const tree: Tree = new Map(b.tree);
  change(tree);
  return {
    seed: 0,
    index: 0,
    base: b,
    tree,
    ops: ["planted"],
    rewritten: false,
    chunk: Infinity,
    batch: DEFAULT_BATCH,
    withBase: true,
  };
}
const edit = (path: string, f: (s: string) => string) => (t: Tree) => {
  const n = t.get(path)!;
  if (n.kind === "file") t.set(path, file(f(n.bytes.toString("latin1"))));
};
/** A scorer that answers `entry` whatever the folder holds. */
const always = (entry: ScoredBundle) => () => structuredClone(entry);
/** A folder as path, kind and content digest (a mutant may hold a megabyte line: no deep compare of bytes). */
const summary = (t: Tree) =>
  [...t].map(([p, n]) => [p, n.kind, n.kind === "file" ? sha256(n.bytes) : n.kind === "symlink" ? n.target : null]);
const explain = (r: FuzzReport) =>
  r.failure === null
    ? ""
    : `case ${r.failure.index} of seed ${r.failure.seed} (${r.failure.base}: ${r.failure.ops.join("; ")}) failed:\n${r.failure.message}\nits folder: ${r.failure.folder}`;

describe("the fuzzer's seeded run", () => {
  it("5,000 cases: every mutation of every base judged, none failing", async () => {
    const started = performance.now();
    const r = await fuzz({ seed: SEED, cases: 5000, diskEvery: 0 }, gen);
    const seconds = (performance.now() - started) / 1000;
    expect(r.failure, explain(r)).toBeNull();
    expect(r.cases).toBe(5000);
    // Not a degenerate generator: every kind of mutation drawn, most mutants invalid, some valid,
    // credit kept by some mutants of credited bases and lost by most.
    expect(Object.keys(r.ops).sort()).toEqual([
      "add",
      "add-folder",
      "bad-utf8",
      "blank-line",
      "bool",
      "crlf",
      "delete",
      "digit",
      "drop-line",
      "duplicate",
      "duplicate-key",
      "duplicate-line",
      "escape-key",
      "flip-bit",
      "insert",
      "link",
      "long-line",
      "move-line",
      "number",
      "proto-key",
      "rechain",
      "rehead",
      "rename",
      "replace",
      "set-byte",
      "special",
      "splice",
      "surrogate-escape",
      "swap-lines",
      "to-folder",
      "truncate",
      "whitespace",
    ]);
    expect(r.validity["invalid"]).toBeGreaterThan(r.cases / 2);
    expect(r.validity["valid"]).toBeGreaterThan(r.cases / 20);
    expect(r.validity["error"]).toBeUndefined();
    for (const p of ["native-game", "world"]) {
      expect(r.credit[p]!.held).toBeGreaterThan(0);
      expect(r.credit[p]!.held).toBeLessThan(r.credit[p]!.fromCredited / 4);
    }
    expect(Object.keys(r.firstCode).length).toBeGreaterThan(15);
    console.log(`fuzz: 5000 cases in ${seconds.toFixed(1)} s`);
  });

  it("a case is a pure function of its seed and index", () => {
    const again = new Generator();
    for (const i of [0, 1, 4999]) {
      const a = gen.caseAt(SEED, i);
      const b = again.caseAt(SEED, i);
      expect(b.ops).toEqual(a.ops);
      expect(summary(b.tree)).toEqual(summary(a.tree));
    }
    expect(gen.caseAt(SEED + 1, 0).ops).not.toEqual(gen.caseAt(SEED, 0).ops);
  });

  it("cases through the pipeline on disk (a pool of two workers) get their in-memory entries", async () => {
    const r = await fuzz({ seed: SEED, cases: 12, diskEvery: 1, diskBatch: 12 }, gen);
    expect(r.failure, explain(r)).toBeNull();
    expect(r.diskCases).toBe(12);
    // Every profile; folders discovery must not find (a deleted journal, a trial without config.json); links.
    const cases = Array.from({ length: 40 }, (_, i) => gen.caseAt(SEED + 1, i));
    expect(new Set(cases.map((c) => c.base.profile.name)).size).toBe(PROFILES.length);
    expect(
      cases.filter((c) => !c.tree.has(c.base.profile.layout === "bundle" ? "journal.jsonl" : "config.json")).length,
    ).toBeGreaterThan(1);
    expect(cases.some((c) => [...c.tree.values()].some((n) => n.kind === "symlink"))).toBe(true);
    const bad = await diskProblem(cases.map((c) => ({ c, entry: judge(c, gen.bases).entry! })));
    expect(bad).toBeNull();
  });
});

describe("the oracle catches a planted cheat", () => {
  it("a victory kept over a changed journal", () => {
    const c = planted(
      "native:victory",
      edit("journal.jsonl", (s) => s.replace('"keys":"h"', '"keys":"j"')),
    );
    expect(judge(c, gen.bases).failure).toBeNull(); // the real scorer: invalid, no credit
    expect(judge(c, gen.bases, always(c.base.entry)).failure).toMatch(
      /credited .*no credited base's, no killed writer's prefix/s,
    );
  });

  it("a victory for a death, and a pass for a failing world run", () => {
    const death = planted("native:death");
    expect(judge(death, gen.bases, always({ ...death.base.entry, victory: true })).failure).toMatch(/another verdict/);
    const w = planted(
      "world:prohibited",
      edit("world.jsonl", (s) => s.replace("network.egress", "network.egresz")),
    );
    expect(judge(w, gen.bases).failure).toBeNull();
    expect(judge(w, gen.bases, always({ ...w.base.entry, pass: true })).failure).toMatch(
      /a pass though the evidence is no credited base's/,
    );
  });

  it("a victory kept beside an unsafe entry, or with another summary", () => {
    const link = planted("native:victory", (t) => t.set("notes", { kind: "symlink", target: "/etc/hostname" }));
    expect(judge(link, gen.bases).failure).toBeNull();
    expect(judge(link, gen.bases, always(link.base.entry)).failure).toMatch(/credited/);
    const dup = planted(
      "native:victory",
      edit("summary.json", (s) => s.replace('"victory":true', '"victory":false,"victory":true')),
    );
    expect(judge(dup, gen.bases).failure).toBeNull();
    expect(judge(dup, gen.bases, always(dup.base.entry)).failure).toMatch(/credited/);
  });

  it("a killed writer's journal keeps a victory only when its ending is among its lines and wins", () => {
    const cut = (lines: number) =>
      planted(
        "native:victory",
        edit("journal.jsonl", (s) => s.split("\n").slice(0, lines).join("\n") + "\n"),
      );
    const afterEnding = judge(cut(12), gen.bases);
    expect(afterEnding).toMatchObject({
      failure: null,
      entry: { status: "unterminated", victory: true },
      kept: expect.stringMatching(/killed writer/),
    });
    const beforeEnding = cut(10);
    expect(judge(beforeEnding, gen.bases).entry?.victory).not.toBe(true);
    expect(judge(beforeEnding, gen.bases, always(afterEnding.entry!)).failure).toMatch(/no killed writer's prefix/);
  });

  it("another verdict for the same evidence", () => {
    const c = planted("native:victory", (t) => t.set("notes.txt", file("opaque")));
    expect(judge(c, gen.bases).kept).toBe("an opaque entry added"); // the real scorer: legitimately kept
    expect(judge(c, gen.bases, always({ ...c.base.entry, late: true })).failure).toMatch(
      /the base's evidence, but another verdict/,
    );
  });

  it("a crash, a tool error, a finding the document cannot hold", () => {
    const c = planted("world:clean");
    expect(
      judge(c, gen.bases, () => {
        throw new Error("boom");
      }).failure,
    ).toMatch(/scoring threw: Error: boom/);
    expect(judge(c, gen.bases, always({ ...c.base.entry, validity: "error" })).failure).toMatch(/a tool error/);
    const bogus = { ...c.base.entry, warnings: [{ code: "BOGUS" as "SCHEMA", file: null, line: 0, message: "" }] };
    expect(judge(c, gen.bases, always(bogus)).failure).toMatch(/does not validate: bundles\.\d\.warnings\.0/);
  });

  it("a valid entry for a journal that breaks §2", () => {
    const c = planted(
      "native:death",
      edit("journal.jsonl", (s) => s.replace('"keys":"h"', '"keys":"h","keys":"h"')),
    );
    expect(judge(c, gen.bases).failure).toBeNull();
    expect(judge(c, gen.bases, always(c.base.entry)).failure).toMatch(
      /valid, but journal.jsonl breaks §2: line 3: duplicate key "keys"/,
    );
  });

  it("Harbor rewards from anywhere but result.json and the reward file it names", () => {
    const fail = planted("harbor:fail");
    const rewards = (reward: number) => always({ ...fail.base.entry, rewards: { reward } });
    expect(judge(fail, gen.bases, rewards(1)).failure).toMatch(/the base's evidence, but another verdict/);
    // result.json changed alone: invalid, for the reward file says otherwise.
    const moved = planted(
      "harbor:fail",
      edit("result.json", (s) => s.replace('"reward": 0', '"reward": 1')),
    );
    expect(judge(moved, gen.bases).failure).toBeNull();
    expect(judge(moved, gen.bases, rewards(1)).failure).toMatch(/the reward file in verifier\/ says \{"reward":0\}/);
    expect(judge(moved, gen.bases, rewards(0.5)).failure).toMatch(
      /rewards \{"reward":0.5\}, but result.json says \{"reward":1\}/,
    );
    // Both changed together: legitimately credited (Harbor's evidence is not chained).
    const both = planted("harbor:fail", (t) => {
      edit("result.json", (s) => s.replace('"reward": 0', '"reward": 1'))(t);
      t.set("verifier/reward.txt", file("1\n"));
    });
    expect(judge(both, gen.bases)).toMatchObject({
      failure: null,
      entry: { validity: "valid", rewards: { reward: 1 } },
    });
    expect(
      judge(both, gen.bases, always({ ...fail.base.entry, rewards: { reward: 1 }, state: "scored-with-exception" }))
        .failure,
    ).toMatch(/holds no exception/);
  });

  it("reward.txt read as CPython's float() reads it, by assay and by the oracle (seed 1, case 704: a U+0085 after the reward)", () => {
    const both = (txt: string) =>
      planted("harbor:fail", (t) => {
        edit("result.json", (s) => s.replace('"reward": 0', '"reward": 1'))(t);
        t.set("verifier/reward.txt", file(Buffer.from(txt, "utf8")));
      });
    // Python reads these as 1.0: assay credits them, and the oracle agrees.
    for (const txt of ["1\u0085\n", "\u30001\u2029", "\u0661\n", "\uff11\n"])
      expect(judge(both(txt), gen.bases), JSON.stringify(txt)).toMatchObject({
        failure: null,
        entry: { validity: "valid", rewards: { reward: 1 } },
      });
    // Python's float() refuses these (U+001C-U+001F are str.isspace() but no space to float(); a BOM is neither):
    // assay gives no credit, and the oracle catches a scorer that would.
    for (const txt of ["\u001c1\n", "1\u001f", "\ufeff1\n", "1\ufeff"]) {
      const c = both(txt);
      expect(judge(c, gen.bases), JSON.stringify(txt)).toMatchObject({ failure: null, entry: { validity: "invalid" } });
      expect(
        judge(c, gen.bases, always({ ...c.base.entry, rewards: { reward: 1 } })).failure,
        JSON.stringify(txt),
      ).toMatch(/reward\.txt holds no finite number/);
    }
  });

  it("credit over a changed scenario only where a schedule refuses it", () => {
    const c = planted(
      "world:clean",
      edit("scenario.json", (s) => s.replace("n17q-review-request", "n17q-other")),
    );
    expect(judge(c, gen.bases).kept).toMatch(/scenario.json changed .* a schedule pinning the base's refuses it/);
    expect(judge(c, gen.bases, always(c.base.entry)).failure).toMatch(/the entry does not name its digest/); // the base's scenario digest
  });

  it("credit over a journal rewritten and re-chained (§3) only where its ending wins, or the world log still decides", () => {
    /** Edit journal line `n`, re-chain it and re-head the summary, as a writer able to rewrite both could. */
    const rewrite = (name: string, n: number, f: (line: string) => string) => {
      const c = planted(name, (t) => {
        const journal = t.get("journal.jsonl")! as { bytes: Buffer };
        const { bytes, head } = rechain(journal.bytes, { [n]: f });
        const summary = JSON.parse((t.get("summary.json") as { bytes: Buffer }).bytes.toString());
        t.set("journal.jsonl", file(bytes)).set(
          "summary.json",
          file(JSON.stringify({ ...summary, journal: { ...summary.journal, head } }) + "\n"),
        );
      });
      return { ...c, rewritten: true };
    };
    const keys = rewrite("native:victory", 3, (l) => l.replace('"keys":"h"', '"keys":"j"'));
    expect(judge(keys, gen.bases)).toMatchObject({
      failure: null,
      entry: { validity: "valid", victory: true },
      kept: expect.stringMatching(/rewritten .* whose ending wins/),
    });
    const surface = rewrite("native:victory", 11, (l) => l.replace('"depth":0', '"depth":1'));
    expect(judge(surface, gen.bases).entry?.victory).not.toBe(true);
    expect(judge(surface, gen.bases, always(surface.base.entry)).failure).toMatch(/nor a rewrite, whose ending wins/);
    const budget = (name: string) => rewrite(name, 2, (l) => l.replace('"tokens":2000', '"tokens":2001'));
    expect(judge(budget("world:clean"), gen.bases)).toMatchObject({
      failure: null,
      entry: { pass: true },
      kept: expect.stringMatching(/rewritten .* still decide/),
    });
    const prohibited = budget("world:prohibited");
    expect(judge(prohibited, gen.bases, always({ ...prohibited.base.entry, pass: true })).failure).toMatch(
      /a pass though/,
    );
  });

  it("a run that stops at the first failure, with the case written where assay verify reads it", async () => {
    const cheat: FuzzProfile = {
      ...PROFILES[0]!,
      score: (src) => ({ ...PROFILES[0]!.score(src), victory: true, validity: "valid", errors: [] }),
    };
    const cheating = new Generator([cheat]);
    const r = await fuzz({ seed: SEED, cases: 100, diskEvery: 0 }, cheating);
    const f = r.failure!;
    expect(f.message).toMatch(/credited/);
    expect(r.cases).toBe(f.index + 1);
    expect(cheating.caseAt(SEED, f.index).ops).toEqual(f.ops); // what --seed and --case reproduce
    const verified = await run(["verify", f.folder, "--json"]);
    expect(verified.code).toBe(1);
    expect(JSON.parse(verified.stdout)).toMatchObject({ path: f.folder, validity: "invalid" });
    rmSync(join(f.folder, ".."), { recursive: true, force: true });
  });
});

describe("the oracle's own §2 reader", () => {
  const read = (s: string | Buffer, outer: " " | " \n" = " \n") => readJson(Buffer.from(s), outer);
  it.each([
    ['{"a":1,"\\u0061":2}', /duplicate key "a"/],
    ['{"a":1}\r\n', /raw \\r/],
    ['\ufeff{"a":1}', /expected a value at 0/],
    ['\t{"a":1}', /expected a value at 0/],
    ['["\\ud800"]', /lone surrogate/],
    ["[1e999]", /not finite/],
    ["[NaN]", /expected a value/],
    [Buffer.from([0x5b, 0x22, 0xc0, 0x80, 0x22, 0x5d]), /invalid UTF-8/],
  ] as const)("rejects %s", (text, why) => expect(read(text)).toEqual({ problem: expect.stringMatching(why) }));

  it("reads the same value however it is spelled, but for number spelling", () => {
    expect(sameJson(Buffer.from('{ "b" : [1, "\\u0061"],\n "a": -0 }\n'), Buffer.from('{"a":0,"b":[1,"a"]}'))).toBe(
      true,
    );
    expect(sameJson(Buffer.from('{"a":1.0}'), Buffer.from('{"a":1}'))).toBe(false);
    const proto = read('{"__proto__":{"victory":true}}') as { value: object };
    expect(Object.keys(proto.value)).toEqual(["__proto__"]); // an own key, never the prototype
    expect(Object.getPrototypeOf(proto.value)).toBe(Object.prototype);
  });
});

describe("defects the fuzzer found", () => {
  it("a reward.json key named __proto__ is never dropped unseen: it is refused, naming the key (issue 11, item 7)", () => {
    const trial = (reward: string) => {
      const dir = join(ROOT, `t${reward.length}`);
      for (const [p, b] of synthHarborTrial({ job: "j", trial: "t__1", task: "t", case: "pass", offset: 0 })) {
        if (p === "verifier/reward.txt") continue;
        mkdirSync(join(dir, p, ".."), { recursive: true });
        writeFileSync(join(dir, p), b);
      }
      writeFileSync(join(dir, "verifier/reward.json"), reward);
      return scoreDirectory(dir, dir, undefined, "harbor");
    };
    const e = trial('{"__proto__": 1, "reward": 1.0}');
    expect(e.validity).toBe("invalid");
    expect(e.errors.find((f) => f.code === "SCHEMA")?.message).toMatch(/__proto__/);
    expect(trial('{"reward": 1.0}')).toMatchObject({ validity: "valid", state: "scored", rewards: { reward: 1 } });
  });
});
