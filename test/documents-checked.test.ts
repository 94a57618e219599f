// Documents read without a key (issue 21, item 7; contract §8 "keyed documents"): trusted as
// given, but never beyond what assay could have written. merge, compare and narrate refuse, in one
// line naming the document and where (exit 2): an entry that credits invalid evidence, a count
// outside its bounds, a path that is not normalised or (merge) lies outside its shard's partition,
// and one bundle twice under any spelling. A line or value past the cap is refused in bounded
// memory, before it is held whole. Honest documents read as before.

import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BundleSet } from "../src/io/shard-reader.js";
import { inShard } from "../src/pipeline/shard.js";
import { spawnMeasured } from "./helpers/cli.js";
import { editor, ok, refused } from "./helpers/documents.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const { at } = scratch("assay-docs-checked-");
const root = at("runs");

let n = 0;
const edit = editor(at);
const editLines = (from: string, change: (line: any, i: number) => void): string => {
  const lines = readFileSync(from, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  lines.forEach(change);
  const to = at(`edited-${++n}.jsonl`);
  writeFileSync(to, lines.map((l) => JSON.stringify(l) + "\n").join(""));
  return to;
};
const narrate = (file: string) => ["narrate", file, "--format", "json", "--offline", "--cache", at("narrate.sqlite")];
const merge = (...files: string[]) => ["merge", ...files, "--format", "json"];
const accuracyOf = (stdout: string) =>
  JSON.parse(stdout).experiments.find((x: any) => x.experiment === "synth-native").accuracy;

beforeAll(async () => {
  await ok(["synth", "--out", root, "--n", "14", "--seed", "checked", "--faults"]);
  await ok(["score", root, "--format", "json", "--out", at("whole.json"), "--quiet"]);
  await ok(["score", root, "--format", "jsonl", "--out", at("whole.jsonl"), "--quiet"]);
  for (const i of [0, 1])
    await ok(["score", root, "--shard", `${i}/2`, "--format", "json", "--out", at(`s${i}.json`), "--quiet"]);
});

describe("honest documents read as before", () => {
  it("merge, compare and narrate accept what score wrote", async () => {
    const merged = await ok(merge(at("s0.json"), at("s1.json")));
    expect(accuracyOf(merged.stdout)).toEqual(
      JSON.parse(readFileSync(at("whole.json"), "utf8")).experiments.find((x: any) => x.experiment === "synth-native")
        .accuracy,
    );
    expect((await ok(["compare", at("whole.json"), at("whole.jsonl")])).code).toBe(0);
    expect((await ok(narrate(at("whole.jsonl")))).code).toBe(3); // offline: no prose, but read
  });
});

describe("an entry that credits invalid evidence", () => {
  it("an invalid entry with a victory, or naming no error (today counted as a victory by merge), a pass, or a tool error with rewards", async () => {
    const victim = (d: any) => d.bundles.find((e: any) => e.validity === "invalid" && e.profile === "native-game");
    const s = victim(JSON.parse(readFileSync(at("s0.json"), "utf8"))) === undefined ? 1 : 0;
    const shard = at(`s${s}.json`);
    const others = at(`s${1 - s}.json`);
    const credited = edit(shard, (d) => void (victim(d).victory = true));
    const line = await refused(merge(credited, others), credited, /invalid evidence credited with a victory/);
    expect(line).toContain(`(${victim(JSON.parse(readFileSync(shard, "utf8"))).path})`); // names the entry
    // With its errors gone too, the batch rules count the trial valid: a victory, today.
    const won = edit(shard, (d) =>
      Object.assign(victim(d), { victory: true, errors: [], status: "completed", ending: true, late: false }),
    );
    await refused(merge(won, others), won, /invalid evidence credited with a victory/);
    const silent = edit(shard, (d) => Object.assign(victim(d), { errors: [], status: "completed", ending: true }));
    await refused(merge(silent, others), silent, /names no error/);
    const passed = edit(shard, (d) => void (victim(d).pass = true));
    await refused(merge(passed, others), passed, /credited with a pass/);
    const rewarded = edit(shard, (d) => Object.assign(victim(d), { validity: "error", rewards: { reward: 1 } }));
    await refused(merge(rewarded, others), rewarded, /tool error credited with rewards/);
    // The same in a whole document, for compare and narrate, and in JSON Lines (the line named).
    const whole = edit(at("whole.json"), (d) => void (victim(d).victory = true));
    await refused(["compare", at("whole.json"), whole], whole, /credited with a victory/);
    await refused(narrate(whole), whole, /credited with a victory/);
    const lines = editLines(
      at("whole.jsonl"),
      (l) => void (l.type === "bundle" && l.validity === "invalid" && (l.victory = true)),
    );
    await refused(["compare", lines, at("whole.json")], lines, /at line \d+ \(byte \d+\)/, /credited with a victory/);
  });
});

describe("a count outside its bounds", () => {
  it("victories above scored (today 700.0% and [±NaN, ±NaN]), a negative count, a value that is not its k/n, a non-finite number", async () => {
    const native = (d: any) => d.experiments.find((x: any) => x.experiment === "synth-native");
    const above = edit(at("whole.json"), (d) =>
      Object.assign(native(d).accuracy, { victories: 7, scored: 1, value: 7 }),
    );
    await refused(["compare", at("whole.json"), above], above, /synth-native/, /accuracy counts 7 of 1/);
    await refused(narrate(above), above, /more than the whole/);
    const negative = edit(at("whole.json"), (d) => void (native(d).completion.completed = -1));
    await refused(["compare", negative, at("whole.json")], negative, /negative count/);
    const stated = edit(at("whole.json"), (d) => void (native(d).accuracy.value = 0.99));
    await refused(["compare", at("whole.json"), stated], stated, /value 0\.99 is not/);
    const lines = editLines(
      at("whole.jsonl"),
      (l) => void (l.type === "experiment" && l.experiment === "synth-native" && (l.scheduled = -3)),
    );
    await refused(["compare", at("whole.json"), lines], lines, /scheduled count is negative/);
    // JSON has no Infinity, but 1e999 reads as one (the schema refused it before this change too).
    const infinite = at("infinite.json");
    writeFileSync(infinite, readFileSync(at("whole.json"), "utf8").replace(/"victories": \d+/, '"victories": 1e999'));
    await refused(["compare", at("whole.json"), infinite], infinite);
  });

  it("an interval assay could not have written (§13.2): upside down, leaving out its value, one cluster, a method its clusters deny", async () => {
    const native = (d: any) => d.experiments.find((x: any) => x.experiment === "synth-native");
    const flipped = edit(at("whole.json"), (d) => Object.assign(native(d).accuracy.interval, { lo: 0.9, hi: 0.1 }));
    await refused(["compare", at("whole.json"), flipped], flipped, /accuracy interval has lo 0\.9 above hi 0\.1/);
    const away = edit(at("whole.json"), (d) => Object.assign(native(d).accuracy.interval, { lo: 0.5, hi: 0.9 }));
    await refused(["compare", away, at("whole.json")], away, /leaves out its value/);
    const one = edit(at("whole.json"), (d) => Object.assign(native(d).completion.interval, { clusters: 1 }));
    await refused(narrate(one), one, /completion interval has 1 clusters of/);
    const method = edit(at("whole.json"), (d) => Object.assign(native(d).accuracy.interval, { method: "wilson" }));
    await refused(["compare", method, at("whole.json")], method, /a wilson interval over \d+ units in \d+ clusters/);
    // Korn–Graubard (§13.7) only where a cluster holds more than one unit, and only over 0/1 units (a whole number of successes).
    expect(
      JSON.parse(readFileSync(at("whole.json"), "utf8")).experiments.find((x: any) => x.experiment === "synth-native")
        .accuracy.interval.method,
    ).toBe("korn-graubard");
    const lone = edit(at("whole.json"), (d) =>
      Object.assign(native(d).accuracy.interval, { clusters: native(d).accuracy.interval.units }),
    );
    await refused(
      ["compare", lone, at("whole.json")],
      lone,
      /a korn-graubard interval over (\d+) units in \1 clusters/,
    );
    const fractional = edit(at("whole.json"), (d) =>
      Object.assign(native(d).accuracy, {
        victories: 1,
        scored: 4,
        value: 0.25,
        interval: { ...native(d).accuracy.interval, lo: 0, hi: 1, units: 3, clusters: 2 },
      }),
    );
    await refused(
      ["compare", fractional, at("whole.json")],
      fractional,
      /korn-graubard interval over units that are not 0\/1 \(value 0\.25 of 3 units\)/,
    );
    // The other side: the document as written, its korn-graubard intervals over 23 and 24 trials in 6 tasks, reads.
    await ok(["compare", at("whole.json"), at("whole.json")]);
    const chance = edit(at("whole.json"), (d) => void (native(d).pass_hat_k = { "1": 1.5 }));
    await refused(["compare", chance, at("whole.json")], chance, /chance 1\.5/);
  });
});

describe("what a run cost (§13.5)", () => {
  const native = (d: any) => d.experiments.find((x: any) => x.experiment === "synth-native");
  const total = (entries: number, costed: number, input: number | null, cost: number | null) => ({
    entries,
    costed,
    input_tokens: input,
    output_tokens: null,
    cache_read_tokens: null,
    cost_usd: cost,
  });
  const honest = () => ({
    spent: total(3, 2, 900, 0.3),
    counted: total(2, 2, 600, 0.2),
    successes: 2,
    cost_per_success: 0.15,
  });
  const withUsage = (change: (u: any) => void) =>
    edit(at("whole.json"), (d) => {
      const u = honest();
      change(u);
      native(d).usage = u;
    });

  it("totals assay could have written are read as given (narrate; compare also checks them against the entries, issue 35)", async () => {
    const fine = withUsage(() => {});
    expect((await ok(narrate(fine))).code).toBe(3);
    // A counted total equal to the spent one is on the honest side of its line.
    await ok(narrate(withUsage((u) => Object.assign(u.counted, u.spent))));
    // compare: these native trials' entries record no usage, so a spend of 900 tokens over 3 entries is not theirs.
    await refused(
      ["compare", at("whole.json"), fine],
      fine,
      /synth-native/,
      /its usage spent \(3 entries, input_tokens 900\) is not what its entries spent/,
    );
  });

  it("counted above spent, costed above entries, a cost per success that is not spent / successes, negative successes: refused", async () => {
    const above = withUsage((u) => void (u.counted.input_tokens = 901));
    await refused(
      ["compare", at("whole.json"), above],
      above,
      /synth-native/,
      /usage counted input_tokens 901 is more than the 900 spent/,
    );
    const unrecorded = withUsage((u) => void (u.spent.cost_usd = null));
    await refused(narrate(unrecorded), unrecorded, /counted cost_usd 0\.2 is more than the none spent/);
    const costed = withUsage((u) => void (u.spent.costed = 4));
    await refused(["compare", costed, at("whole.json")], costed, /usage spent counts 4 costed of 3 entries/);
    const entries = withUsage((u) => void (u.counted.entries = 4));
    await refused(["compare", entries, at("whole.json")], entries, /4 entries counted of 3 spent/);
    const per = withUsage((u) => void (u.cost_per_success = 0.1));
    await refused(["compare", at("whole.json"), per], per, /cost per success 0\.1 is not 0\.3 \/ 2 successes/);
    const none = withUsage((u) => Object.assign(u, { successes: 0 }));
    await refused(["compare", at("whole.json"), none], none, /cost per success 0\.15 is not 0\.3 \/ 0 successes/);
    const negative = withUsage((u) => Object.assign(u, { successes: -2, cost_per_success: -0.15 }));
    await refused(["compare", at("whole.json"), negative], negative, /usage counts -2 successes/);
  });
});

describe("paths", () => {
  it("a path with a '.' or '..' name, '//', or a trailing '/', or under none of the roots, is refused (merge, compare, narrate)", async () => {
    const respell = (p: string, how: string) =>
      how === "./"
        ? p.replace(`${root}/`, `${root}/./`)
        : how === "//"
          ? p.replace(`${root}/`, `${root}//`)
          : how === "/"
            ? `${p}/`
            : how === ".."
              ? p.replace(`${root}/`, `${root}/x/../`)
              : p.replace(root, at("elsewhere"));
    for (const how of ["./", "//", "/", "..", "elsewhere"]) {
      const doc = edit(at("whole.json"), (d) => void (d.bundles[0].path = respell(d.bundles[0].path, how)));
      const why = how === "elsewhere" ? /under none of the run's roots/ : /not normalised/;
      await refused(["compare", doc, at("whole.json")], doc, why);
      await refused(narrate(doc), doc, why);
      const s0 = edit(at("s0.json"), (d) => void (d.bundles[0].path = respell(d.bundles[0].path, how)));
      await refused(merge(s0, at("s1.json")), s0, why);
    }
  });

  it("merge: an entry moved to the other shard's document (today merged as if nothing happened)", async () => {
    const s0 = JSON.parse(readFileSync(at("s0.json"), "utf8"));
    const moved = s0.bundles[0];
    const from = edit(at("s0.json"), (d) => void d.bundles.shift());
    const to = edit(at("s1.json"), (d) => void d.bundles.push(moved));
    expect(inShard(moved.path, { index: 1, count: 2 })).toBe(false);
    await refused(merge(from, to), to, /does not belong to shard 1\/2/);
  });

  it("one bundle twice under two spellings: merge (today merged twice), compare and narrate", async () => {
    // The roots given twice, the second spelled with a trailing '/.': the same folders, so the same
    // bundles. assay walks such a root once; an entry under each spelling is one bundle twice.
    const roots = [root, `${root}/.`];
    const s0 = JSON.parse(readFileSync(at("s0.json"), "utf8"));
    const twin = { ...s0.bundles[0], path: s0.bundles[0].path.replace(`${root}/`, `${root}/./`) };
    const a = edit(at("s0.json"), (d) => void (d.run.roots = roots));
    const b = edit(at("s1.json"), (d) => {
      d.run.roots = roots;
      d.bundles.push(twin);
    });
    const without = edit(at("s1.json"), (d) => void (d.run.roots = roots));
    expect((await ok(merge(a, without))).code).toBe(0); // the roots alone are honest
    await refused(merge(a, b), b, /appears in two shards/);
    const whole = edit(at("whole.json"), (d) => {
      d.run.roots = roots;
      d.bundles.push({ ...d.bundles[0], path: d.bundles[0].path.replace(`${root}/`, `${root}/./`) });
    });
    await refused(["compare", whole, at("whole.json")], whole, /names the same bundle/);
    await refused(narrate(whole), whole, /names the same bundle/);
    // Under one spelling, within one document.
    const again = edit(at("whole.json"), (d) => void d.bundles.push(d.bundles[0]));
    await refused(narrate(again), again, /names the same bundle/);
  });
});

describe("the set of bundles seen", () => {
  it("finds a bundle again under any spelling after it has grown, and tells which document held it; distinct paths never collide here", () => {
    const set = new BundleSet();
    const [a, b] = [set.document("a.json"), set.document("b.json")];
    for (let i = 0; i < 100_000; i++) expect(set.add(`runs/t${i}/a1`, i < 50_000 ? a : b)).toBeNull();
    expect(set.add("runs/t7/a1", b)).toEqual({ doc: a, file: "a.json" });
    expect(set.add("./runs//t7/./a1/", b)).toEqual({ doc: a, file: "a.json" });
    expect(set.add("runs/x/../t99999/a1", a)).toEqual({ doc: b, file: "b.json" });
    expect(set.add("runs/t7/a2", a)).toBeNull();
  });
});

describe("a line or a value past the cap is refused in bounded memory", () => {
  const GiB = 2 ** 30;
  const { dir: big } = scratch("assay-docs-huge-", SCRATCH);
  /** A sparse file: `head`, then zeros up to 1 GiB, then `tail` (no disk or memory spent on the zeros). */
  const sparse = (name: string, head: string, tail: string) => {
    const f = join(big, name);
    const fd = openSync(f, "w");
    writeSync(fd, head);
    writeSync(fd, tail, GiB - tail.length);
    closeSync(fd);
    return f;
  };

  it("a 1 GiB JSON Lines line (merge) and a 1 GiB JSON value (compare), under a 96 MiB heap, peak RSS far below the cap's double", () => {
    const runLine = readFileSync(at("whole.jsonl"), "utf8").split("\n")[0]!;
    const lines = sparse("huge.jsonl", `${runLine}\n{"type":"bundle","path":"`, '"}\n');
    const r = spawnMeasured(["merge", lines, "--format", "json"], ["--max-old-space-size=96"]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(lines);
    expect(r.stderr).toMatch(/line 2 \(byte \d+\) is longer than 268435456 bytes/);
    const whole = readFileSync(at("whole.json"), "utf8");
    const json = sparse("huge.json", whole.slice(0, whole.indexOf('"bundles": [') + 12) + '\n    {"path": "', '"}]}\n');
    const c = spawnMeasured(["compare", json, at("whole.json")], ["--max-old-space-size=96"]);
    expect([c.code, c.stdout]).toEqual([2, ""]);
    expect(c.stderr).toContain(json);
    expect(c.stderr).toMatch(/is longer than 268435456 bytes/);
    // The cap (256 MiB) is held at most, never the line (1 GiB, which took 2.2 GB before).
    console.log(
      `a 1 GiB line refused at ${(r.maxRssKb / 1024).toFixed(0)} MiB peak RSS, a 1 GiB JSON value at ${(c.maxRssKb / 1024).toFixed(0)} MiB`,
    );
    for (const x of [r, c]) expect(x.maxRssKb / 1024).toBeLessThan(600);
  }, 60_000);
});
