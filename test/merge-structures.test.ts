// What merge keeps per entry (issue 26): the set of bundles seen (32 bits of each path's SHA-256 in
// a table, the paths themselves in a temporary file), which tells two paths apart only by the paths
// themselves, however their hashes collide; and the spill's sorted runs, which give the entries back
// in byte order of their paths however they came, through as many merge passes as it takes, and
// leave no file behind.
import { hash } from "node:crypto";
import { mkdtempSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { blankEntry, type BundleEntry } from "../src/core/results.js";
import { byteCompare } from "../src/core/text.js";
import { PathLog } from "../src/io/path-log.js";
import { BundleSet, pathProblem } from "../src/io/shard-reader.js";
import { FAN_IN } from "../src/pipeline/runs.js";
import { EntrySpill } from "../src/pipeline/spill.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-merge-structures-");
const folder = (name: string) => mkdtempSync(join(tmp, `${name}-`));

/** The 32 bits of a path's SHA-256 the set's table keeps (bytes 4 to 7). */
const bits = (path: string) => hash("sha256", path, "buffer").readUInt32BE(4);

describe("the set of bundles seen, when hashes collide", () => {
  it("two paths whose kept 32 bits are the same are two bundles; each is found again under its own path only", () => {
    // A real collision: paths searched until two share the 32 bits (about 80,000 on average).
    const first = new Map<number, string>();
    let pair: [string, string] | null = null;
    for (let i = 0; pair === null; i++) {
      const p = `runs/t${i}/a1`;
      const had = first.get(bits(p));
      if (had !== undefined) pair = [had, p];
      else first.set(bits(p), p);
    }
    const [a, b] = pair;
    expect(a).not.toBe(b);
    expect(bits(a)).toBe(bits(b));
    const set = new BundleSet(folder("collision"));
    const [one, two] = [set.document("one.json"), set.document("two.json")];
    expect(set.add(a, one)).toBeNull();
    expect(set.add(b, two)).toBeNull(); // not a duplicate: the paths differ
    expect(set.add(b, one)).toEqual({ doc: two, file: "two.json" });
    expect(set.add(`./${a}/`, two)).toEqual({ doc: one, file: "one.json" });
    set.close();
  });

  it("many paths given one digest: none taken for another, every one found again, past the paths' first megabyte and across growth", () => {
    const dir = folder("crafted");
    const set = new BundleSet(dir);
    const doc = set.document("d.json");
    const same = hash("sha256", "one digest for all", "buffer");
    const path = (i: number) => `runs/${"x".repeat(6000)}/t${i}`;
    for (let i = 0; i < 200; i++) expect(set.addHashed(path(i), same, doc)).toBeNull();
    // The paths (1.2 MB) went to a file, whose name is gone already; then the table grows past its first 4,096 slots.
    expect(readdirSync(dir)).toEqual([]);
    for (let i = 0; i < 5000; i++) expect(set.add(`runs/t${i}`, doc)).toBeNull();
    for (const i of [0, 1, 99, 199]) expect(set.addHashed(path(i), same, doc)).toEqual({ doc, file: "d.json" });
    expect(set.addHashed(path(200), same, doc)).toBeNull();
    expect(set.add("runs/t4999", doc)).toEqual({ doc, file: "d.json" });
    set.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a set added to after close() says so (its table is gone: probing it would never end)", () => {
    const set = new BundleSet(folder("closed"));
    const doc = set.document("d.json");
    expect(set.add("runs/t1", doc)).toBeNull();
    set.close();
    expect(() => set.add("runs/t2", doc)).toThrow("a BundleSet was added to after close()");
  });
});

const entry = (path: string): BundleEntry => ({
  path,
  ...blankEntry({ validity: "valid", errors: [], profile: "native-game", experiment: "e", trial: path, attempt: 1 }),
});
const paths = (spill: EntrySpill) => [...spill].map((e) => e.path);
/** A deterministic shuffle. */
function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  let s = 42;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe("the paths' file", () => {
  it("a folder that cannot hold it is an OUTPUT error naming the folder, once the paths pass their first megabyte (compare and narrate keep theirs there too)", () => {
    const log = new PathLog(join(tmp, "no-such-folder"));
    const path = `r/${"p".repeat(1000)}`;
    expect(() => {
      for (let i = 0; i < 2000; i++) log.append(path, i);
    }).toThrow(
      expect.objectContaining({
        code: "OUTPUT",
        message: expect.stringMatching(
          /cannot keep the bundles' paths in a temporary file in .*no-such-folder: ENOENT/,
        ),
      }),
    );
    log.close();
  });
});

describe("a path no file name gives", () => {
  it("a lone surrogate is refused where a path is checked (kept as UTF-8, it would not be itself: one bundle listed twice passed)", () => {
    expect(pathProblem("r/z\ud800", ["r"])).toMatch(/lone surrogate/);
    expect(pathProblem("r/z\ud83d\ude00", ["r"])).toBeNull();
  });
});

describe("the spill's sorted runs", () => {
  // Astral characters (UTF-16 surrogates) sort after every other character in UTF-8 byte order, not in UTF-16's.
  const names = Array.from(
    { length: 3000 },
    (_, i) => `root/${["a", "é", "\u{1F600}", "\uFFFD", "b"][i % 5]}${String(i).padStart(5, "0")}`,
  );
  const sorted = [...names].sort(byteCompare);

  it("entries in order, in shards each in order, or in no order at all, come back in byte order, the same as SQLite gives them", () => {
    const shards = [0, 1, 2, 3].map((k) => sorted.filter((_, i) => i % 4 === k));
    for (const given of [sorted, shards.flat(), shuffled(sorted)]) {
      const dir = folder("runs");
      // 0 bytes in memory: every entry goes to the file, a batch of one at a time.
      const runs = new EntrySpill(dir, 0, { sorted: true });
      const sqlite = new EntrySpill(dir, 0);
      for (const p of given) {
        runs.add(entry(p));
        sqlite.add(entry(p));
      }
      expect(paths(runs)).toEqual(sorted);
      expect(paths(runs)).toEqual(paths(sqlite)); // read back twice: the same
      expect(runs.records.map((r) => r.path)).toEqual(given);
      runs.close();
      sqlite.close();
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it("more runs than are read at once are merged in passes; a small spill stays in memory", () => {
    const dir = folder("passes");
    // Descending: every batch of one is a run of its own, FAN_IN² and more runs, so two passes first.
    const many = [...Array(FAN_IN * FAN_IN + 7).keys()].map((i) => `r/${String(1e6 - i)}`);
    const spill = new EntrySpill(dir, 0, { sorted: true });
    for (const p of many) spill.add(entry(p));
    // Its runs live on in open files whose names are gone: a killed merge leaves no entries behind.
    expect(readdirSync(dir)).toEqual([]);
    expect(paths(spill)).toEqual([...many].sort(byteCompare));
    spill.close();
    expect(readdirSync(dir)).toEqual([]);
    const small = new EntrySpill(dir, 4 * 1024 * 1024, { sorted: true });
    for (const p of shuffled(sorted)) small.add(entry(p));
    expect(paths(small)).toEqual(sorted);
    expect(readdirSync(dir)).toEqual([]);
    small.close();
  });

  it("a batch with a few entries out of order keeps its long stretches as runs and sorts the rest", () => {
    const dir = folder("stretches");
    const spill = new EntrySpill(dir, 64 * 1024, { sorted: true });
    // Every 500th entry follows two out of order: "~b", then "~a" alone, a stretch too short to be a run.
    const given = sorted.flatMap((p, i) => (i % 500 === 0 ? [`root/~b${i}`, `root/~a${i}`, p] : [p]));
    for (const p of given) spill.add(entry(p));
    expect(paths(spill)).toEqual([...given].sort(byteCompare));
    spill.close();
  });
});
