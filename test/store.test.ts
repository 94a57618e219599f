// The resumable store (issue 3 item 3; contract §7 and §1): results keyed on the bundle digest, the
// seal digest (or none), the scoring version and the options that change results; a stamp table
// (relative path, size, mtime_ns, inode per file, like git's index) lets a rerun skip finished
// bundles without reading them, and any difference recomputes the digest. The §1 entry checks run
// before any lookup (UNSAFE_PATH bundles are scored afresh and never stored); `path` is filled in
// after the lookup and never stored; a row today's schema rejects is a miss, never a result.
//
// Real SQLite files in temp dirs. Workers run compiled code: build first (`npx tsc -p .`).
import Database from "better-sqlite3";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { bundleEntrySchema, type BundleEntry, type Results } from "../src/core/results.js";
import { beyondDigest, listEntries, stampsOf } from "../src/io/bundle-source.js";
import { writeCorpus } from "../src/io/corpus.js";
import { discover } from "../src/io/discover.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { renderText } from "../src/report/index.js";
import { ResultStore, storeKey } from "../src/store/store.js";
import { SCORING_VERSION } from "../src/version.js";
import { bundle, escaped, game, killed, live } from "./helpers/bundle.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const BASE = { schedules: [], ...DEFAULT_BATCH } satisfies ScoreRunOptions;
const STORED = bundleEntrySchema.omit({ path: true }).strict();

const tmp = realpathSync(scratch("assay-store-").dir);
let serial = 0;
/** A fresh folder under the test's temp dir. */
const fresh = (name: string) => {
  const dir = join(tmp, `${name}-${++serial}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

const write = (dir: string, files: Record<string, string | Buffer>) => {
  for (const [p, b] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), b);
  }
};
const seedOf = (i: number) => (i + 1).toString(16).padStart(32, "0");
const trialOf = (i: number) => `t${String(i).padStart(2, "0")}`;
const bundleDir = (root: string, i: number) => join(root, "exp", trialOf(i), "a1");

/**
 * `n` valid bundles exp/tNN/a1 (wins and losses), each with an opaque extra file in a subfolder,
 * dated an hour ago like an archive (files younger than 2 s have "racy" stamps the store rechecks).
 */
function corpus(root: string, n = 5): void {
  const old = Date.now() / 1000 - 3600;
  for (let i = 0; i < n; i++) {
    const trial = trialOf(i);
    const states = i % 2 === 0 ? [live(), escaped()] : [live(), killed()];
    const files = { ...bundle(game({ trial, seed: seedOf(i), states })), "notes/run.txt": `note ${i}\n` };
    write(bundleDir(root, i), files);
    for (const p of Object.keys(files)) utimesSync(join(bundleDir(root, i), p), old, old);
  }
}

/** The stamps the store holds for a bundle folder. */
function storedStamps(file: string, dir: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT stamps FROM stamps WHERE folder = ?").get(realpathSync(dir)) as { stamps: string })
      .stamps;
  } finally {
    db.close();
  }
}

interface Scored {
  results: Results;
  text: string;
  cached: string[];
  scored: string[];
}

/** One scoring run; which bundles came from the store is told by progress.done's third argument. */
async function scoreWith(roots: string[], store?: ResultStore, extra: Partial<ScoreRunOptions> = {}): Promise<Scored> {
  const cached: string[] = [];
  const scored: string[] = [];
  const progress = { done: (e: BundleEntry, _bytes: number, c: boolean) => void (c ? cached : scored).push(e.path) };
  const results = await scoreRoots(roots, { ...BASE, jobs: 1, batchSize: 4, store, progress, ...extra });
  return { results, text: renderText("json", results), cached: cached.sort(), scored: scored.sort() };
}

/** The JSON document's text with its `run` member cut out; everything else compared byte for byte. */
function withoutRun(text: string): string {
  const cut = text.replace(/\n  "run": \{\n[\s\S]*?\n  \},\n/, "\n");
  expect(cut).not.toBe(text); // the run member was found
  expect(cut).not.toMatch(/\n {4}"started_at"/); // the run's (entries' identity has its own, deeper)
  return cut;
}

/** The first Harbor trial folder below `root`. */
const discoverTrial = (root: string) => [...discover([root])].find((f) => f.member)!.dir;
const pathsOf = (r: Results) => r.bundles.map((b) => b.path).sort();
const entryAt = (r: Results, path: string) => r.bundles.find((b) => b.path === path)!;

/** Read the SQLite file directly (a second connection; the store's writer may be closed or open). */
function rawRows(file: string): { key: string; digest: string; entry: string }[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT key, digest, entry FROM results").all() as {
      key: string;
      digest: string;
      entry: string;
    }[];
  } finally {
    db.close();
  }
}
function rawStamps(file: string): { folder: string; stamps: string; digest: string }[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT folder, stamps, digest FROM stamps").all() as {
      folder: string;
      stamps: string;
      digest: string;
    }[];
  } finally {
    db.close();
  }
}
function rawExec(file: string, sql: string): number {
  const db = new Database(file, { fileMustExist: true });
  try {
    return db.prepare(sql).run().changes;
  } finally {
    db.close();
  }
}

beforeAll(() => {
  if (!existsSync(new URL("../dist/pool/worker.js", import.meta.url)))
    throw new Error("store tests run compiled workers: build first (npx tsc -p .)");
});

describe("storeKey (§7: what a stored result is keyed on)", () => {
  const d1 = "a".repeat(64);
  const d2 = "b".repeat(64);
  const s1 = "c".repeat(64);
  const s2 = "d".repeat(64);
  const base = storeKey(d1, null, 1, {});

  it("is a SHA-256 hex digest and deterministic", () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(storeKey(d1, null, 1, {})).toBe(base);
  });

  it("changes with the bundle digest, the seal digest (or none), the scoring version and the options", () => {
    const keys = [
      base,
      storeKey(d2, null, 1, {}),
      storeKey(d1, s1, 1, {}),
      storeKey(d1, s2, 1, {}),
      storeKey(d1, null, 2, {}),
      storeKey(d1, null, 3, {}),
      storeKey(d1, null, 1, { key: "fp-1" }),
      storeKey(d1, null, 1, { key: "fp-2" }),
      storeKey(d1, null, 1, { other: "fp-1" }),
      storeKey(d1, s1, 2, { key: "fp-1" }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("does not depend on the order the options are given in", () => {
    expect(storeKey(d1, null, 1, { a: "1", b: "2" })).toBe(storeKey(d1, null, 1, { b: "2", a: "1" }));
  });
});

describe.sequential("the scoring version and the options are part of the key", () => {
  it("a store opened with another scoring version (or other options) misses rows written under the first", async () => {
    const root = fresh("version");
    corpus(root, 4);
    const file = join(fresh("db"), "results.sqlite");
    const found = [...discover([root])];
    const stampsAt = (dir: string) => stampsOf(listEntries(dir, true));
    // Each bundle holds a subfolder (notes/): part of the key beside the digest, the same for all.
    const beyond = beyondDigest(found[0]!.dir, listEntries(found[0]!.dir, true));
    expect(beyond).not.toBeNull();

    const v1 = new ResultStore(file, {}, 1);
    const first = await scoreWith([root], v1);
    expect(first.cached).toEqual([]);
    expect(v1.rows()).toBe(4);
    for (const f of found) expect(v1.lookup(f.dir, stampsAt(f.dir), beyond)).not.toBeNull();
    v1.close();

    // Every persisted key is storeKey(digest, beyond, 1, {}): the version is really in the key.
    const rows = rawRows(file);
    expect(rows.map((r) => r.key).sort()).toEqual(rows.map((r) => storeKey(r.digest, beyond, 1, {})).sort());

    const v2 = new ResultStore(file, {}, 2);
    try {
      // Same folders, same stamps (the stamp table is shared): still a miss under version 2.
      for (const f of found) expect(v2.lookup(f.dir, stampsAt(f.dir), beyond)).toBeNull();
      const second = await scoreWith([root], v2);
      expect(second.cached).toEqual([]);
      expect(second.scored).toEqual(pathsOf(first.results));
      expect(withoutRun(second.text)).toBe(withoutRun(first.text));
      expect(v2.rows()).toBe(8); // both versions' rows coexist
      const third = await scoreWith([root], v2);
      expect(third.cached).toEqual(pathsOf(first.results));
    } finally {
      v2.close();
    }
    const keys = new Set(rawRows(file).map((r) => r.key));
    for (const f of first.results.bundles) {
      expect(keys.has(storeKey(f.digest, beyond, 1, {}))).toBe(true);
      expect(keys.has(storeKey(f.digest, beyond, 2, {}))).toBe(true);
    }

    // Back to version 1: its rows are still there and are found.
    const again = new ResultStore(file, {}, 1);
    try {
      expect((await scoreWith([root], again)).cached).toEqual(pathsOf(first.results));
    } finally {
      again.close();
    }

    // Options that change results (e.g. a key file's fingerprint) miss too.
    const withKey = new ResultStore(file, { key: "fp-1" }, 1);
    try {
      for (const f of found) expect(withKey.lookup(f.dir, stampsAt(f.dir), beyond)).toBeNull();
      expect((await scoreWith([root], withKey)).cached).toEqual([]);
    } finally {
      withKey.close();
    }

    // The default scoring version is the tool's SCORING_VERSION.
    const dflt = new ResultStore(file);
    const explicit = new ResultStore(file, {}, SCORING_VERSION);
    try {
      for (const f of found)
        expect(dflt.lookup(f.dir, stampsAt(f.dir), beyond)).toEqual(explicit.lookup(f.dir, stampsAt(f.dir), beyond));
    } finally {
      dflt.close();
      explicit.close();
    }
  });
});

describe("each row records its scoring version", () => {
  it("a store written before rows did is opened as is: its rows count, none is of this version", () => {
    const file = join(fresh("old-schema"), "results.sqlite");
    const db = new Database(file);
    db.exec(`CREATE TABLE results (key TEXT PRIMARY KEY, digest TEXT NOT NULL, entry TEXT NOT NULL);
      CREATE TABLE stamps (folder TEXT PRIMARY KEY, stamps TEXT NOT NULL, digest TEXT NOT NULL);
      INSERT INTO results VALUES ('k', 'd', '{}');`);
    db.close();
    const store = new ResultStore(file);
    try {
      expect(store.rows()).toBe(1);
      expect(store.hasCurrent()).toBe(false);
    } finally {
      store.close();
    }
  });

  it("hasCurrent: only rows of the store's own scoring version", async () => {
    const root = fresh("versions");
    corpus(root, 2);
    const file = join(fresh("db"), "results.sqlite");
    const v1 = new ResultStore(file, {}, 1);
    try {
      expect(v1.hasCurrent()).toBe(false);
      await scoreWith([root], v1);
      expect(v1.hasCurrent()).toBe(true);
    } finally {
      v1.close();
    }
    const v2 = new ResultStore(file, {}, 2);
    try {
      expect(v2.rows()).toBe(2);
      expect(v2.hasCurrent()).toBe(false);
    } finally {
      v2.close();
    }
  });
});

describe.sequential("a rerun takes finished bundles from the store", () => {
  it("every bundle comes from the store and the document is byte-identical apart from run", async () => {
    const root = fresh("rerun");
    corpus(root, 6);
    const file = join(fresh("db"), "results.sqlite");
    const store = new ResultStore(file);
    try {
      const plain = await scoreWith([root]);
      const first = await scoreWith([root], store);
      expect(first.cached).toEqual([]);
      expect(first.scored).toEqual(pathsOf(plain.results));
      expect(store.rows()).toBe(6);
      const second = await scoreWith([root], store);
      expect(second.cached).toEqual(pathsOf(plain.results));
      expect(second.scored).toEqual([]);
      expect(withoutRun(second.text)).toBe(withoutRun(first.text));
      expect(withoutRun(second.text)).toBe(withoutRun(plain.text));
      expect(second.results.run.complete).toBe(true);
      expect(store.rows()).toBe(6);
    } finally {
      store.close();
    }
    // A new connection (a new process, in effect) finds them too.
    const reopened = new ResultStore(file);
    try {
      expect((await scoreWith([root], reopened)).cached).toHaveLength(6);
    } finally {
      reopened.close();
    }
  });
});

describe.sequential("the stamps: any difference recomputes the digest", () => {
  it("a content change (and new mtime) rescores that bundle alone; its digest changes", async () => {
    const root = fresh("content");
    corpus(root, 4);
    const store = new ResultStore(join(fresh("db"), "results.sqlite"));
    try {
      const first = await scoreWith([root], store);
      const target = bundleDir(root, 1);
      const path = `${root}/exp/${trialOf(1)}/a1`;
      const file = join(target, "notes/run.txt");
      const before = lstatSync(file, { bigint: true });
      writeFileSync(file, "NOTE 1\n"); // same size, other bytes
      const later = Number(before.mtimeMs) / 1000 + 10;
      utimesSync(file, later, later);
      expect(lstatSync(file).size).toBe(Number(before.size));

      const second = await scoreWith([root], store);
      expect(second.scored).toEqual([path]);
      expect(second.cached).toEqual(pathsOf(first.results).filter((p) => p !== path));
      expect(entryAt(second.results, path).digest).not.toBe(entryAt(first.results, path).digest);
      // Exactly what a run without any store gives.
      expect(withoutRun(second.text)).toBe(withoutRun((await scoreWith([root])).text));
      expect((await scoreWith([root], store)).cached).toEqual(pathsOf(first.results));
    } finally {
      store.close();
    }
  });

  it("touching only the mtime recomputes the digest (the stamps differ); unchanged, it needs no rescoring", async () => {
    const root = fresh("touch");
    corpus(root, 4);
    const dbFile = join(fresh("db"), "results.sqlite");
    const store = new ResultStore(dbFile);
    try {
      const first = await scoreWith([root], store);
      const path = `${root}/exp/${trialOf(2)}/a1`;
      const journal = join(bundleDir(root, 2), "journal.jsonl");
      const bytes = readFileSync(journal);
      const t = lstatSync(journal).mtimeMs / 1000 + 100;
      utimesSync(journal, t, t);
      expect(readFileSync(journal).equals(bytes)).toBe(true);

      const second = await scoreWith([root], store);
      expect(second.scored).toEqual([]);
      expect(second.cached).toHaveLength(4);
      expect(entryAt(second.results, path)).toEqual(entryAt(first.results, path));
      expect(withoutRun(second.text)).toBe(withoutRun(first.text));
      expect(store.rows()).toBe(4);
      // The digest was recomputed and the folder restamped with its new mtime.
      expect(storedStamps(dbFile, bundleDir(root, 2))).toBe(stampsOf(listEntries(bundleDir(root, 2), true)));
      // The new stamps were recorded: the next run takes everything from the store.
      expect((await scoreWith([root], store)).cached).toEqual(pathsOf(first.results));
    } finally {
      store.close();
    }
  });

  it("a file replaced through rename (same bytes, same size, mtime restored) is detected by its inode", async () => {
    const root = fresh("inode");
    corpus(root, 4);
    const dbFile = join(fresh("db"), "results.sqlite");
    const store = new ResultStore(dbFile);
    try {
      const path = `${root}/exp/${trialOf(3)}/a1`;
      const journal = join(bundleDir(root, 3), "journal.jsonl");
      // A whole-second mtime, so that utimes can restore it to the nanosecond.
      const SECS = 1_700_000_000;
      utimesSync(journal, SECS, SECS);
      const first = await scoreWith([root], store);
      expect(first.cached).toEqual([]);

      // Control: setting the very same mtime again changes no stamp, so everything is a hit.
      utimesSync(journal, SECS, SECS);
      expect((await scoreWith([root], store)).cached).toHaveLength(4);

      const before = lstatSync(journal, { bigint: true });
      const replacement = join(fresh("replacement"), "journal.jsonl"); // same file system, outside the bundle
      writeFileSync(replacement, readFileSync(journal));
      renameSync(replacement, journal);
      utimesSync(journal, SECS, SECS);
      const after = lstatSync(journal, { bigint: true });
      expect(after.size).toBe(before.size);
      expect(after.mtimeNs).toBe(before.mtimeNs);
      expect(after.ino).not.toBe(before.ino);

      const stampsBefore = storedStamps(dbFile, bundleDir(root, 3));
      const third = await scoreWith([root], store);
      // Detected: the digest was recomputed (same bytes, so the same entry) and the new inode recorded.
      expect(third.scored).toEqual([]);
      expect(third.cached).toHaveLength(4);
      expect(storedStamps(dbFile, bundleDir(root, 3))).not.toBe(stampsBefore);
      expect(storedStamps(dbFile, bundleDir(root, 3))).toBe(stampsOf(listEntries(bundleDir(root, 3), true)));
      void path;
      expect(entryAt(third.results, path)).toEqual(entryAt(first.results, path));
      expect(withoutRun(third.text)).toBe(withoutRun(first.text));
      expect((await scoreWith([root], store)).cached).toHaveLength(4);
    } finally {
      store.close();
    }
  });
});

describe.sequential("--verify-digests", () => {
  it("verifyDigests: true rehashes every bundle: an in-place edit the stamps cannot see is caught", async () => {
    const root = fresh("verify");
    corpus(root, 5);
    const store = new ResultStore(join(fresh("db"), "results.sqlite"));
    try {
      const first = await scoreWith([root], store);
      // Rehashing unchanged bundles finds their digests stored: nothing to rescore.
      const verified = await scoreWith([root], store, { verifyDigests: true });
      expect(verified.cached).toEqual(pathsOf(first.results));
      expect(withoutRun(verified.text)).toBe(withoutRun(first.text));
      // An edit in place with size, mtime and inode restored: identical stamps, different bytes.
      const note = join(bundleDir(root, 1), "notes/run.txt");
      const st = lstatSync(note);
      writeFileSync(note, "NOTE 1\n");
      utimesSync(note, st.atime, st.mtime);
      const edited = `${root}/exp/${trialOf(1)}/a1`;
      expect((await scoreWith([root], store)).cached).toContain(edited); // the stamps are trusted
      const again = await scoreWith([root], store, { verifyDigests: true });
      expect(again.scored).toEqual([edited]); // the rehash sees the new digest
      expect(entryAt(again.results, edited).digest).not.toBe(entryAt(first.results, edited).digest);
      expect(store.rows()).toBe(6);
    } finally {
      store.close();
    }
  });
});

describe.sequential("the path is never stored (§7: filled in after the lookup)", () => {
  it("stamps are per folder; rows carry no path; a cached entry takes the path of the root as given", async () => {
    const root = fresh("where-a");
    corpus(root, 4);
    const file = join(fresh("db"), "results.sqlite");
    const store = new ResultStore(file);
    const names = [basename(root)];
    try {
      const first = await scoreWith([root], store);
      expect(first.cached).toEqual([]);

      // The same folders through another spelling of the root (a symlink to it): every bundle is
      // found in the store, and every path is the new spelling, not the one it was stored under.
      const alias = join(fresh("alias-parent"), "alias-root");
      names.push(basename(alias));
      symlinkSync(root, alias);
      const viaAlias = await scoreWith([alias], store);
      expect(viaAlias.cached).toHaveLength(4);
      expect(viaAlias.results.bundles.every((b) => b.path.startsWith(`${alias}/`))).toBe(true);
      expect(withoutRun(viaAlias.text).split(alias).join(root)).toBe(withoutRun(first.text));

      // A copy under another root name: other folders, so no stamps match; a worker rehashes each
      // and finds its digest already scored, so none is rescored (and the copies get stamps).
      const copy = join(fresh("copy-parent"), "copied-root");
      names.push(basename(copy));
      cpSync(root, copy, { recursive: true, preserveTimestamps: true });
      const copied = await scoreWith([copy], store);
      expect(copied.cached).toHaveLength(4);
      expect(copied.results.bundles.every((b) => b.path.startsWith(`${copy}/`))).toBe(true);
      expect(withoutRun(copied.text).split(copy).join(root)).toBe(withoutRun(first.text));

      // A move (same inodes, same mtimes, other folder names): found by digest, then by stamps.
      const moved = join(fresh("move-parent"), "moved-root");
      names.push(basename(moved));
      renameSync(root, moved);
      const movedRun = await scoreWith([moved], store);
      expect(movedRun.cached).toHaveLength(4);
      expect(withoutRun(movedRun.text).split(moved).join(root)).toBe(withoutRun(first.text));
      const movedAgain = await scoreWith([moved], store);
      expect(movedAgain.cached).toHaveLength(4);
      expect(withoutRun(movedAgain.text)).toBe(withoutRun(movedRun.text));
    } finally {
      store.close();
    }

    // The results table, read directly: the same bundles under four roots share their rows, and
    // no row holds a path (nor any root's name anywhere in its entry).
    const rows = rawRows(file);
    expect(rows).toHaveLength(4);
    for (const r of rows) {
      const entry = JSON.parse(r.entry) as Record<string, unknown>;
      expect(Object.hasOwn(entry, "path")).toBe(false);
      expect(STORED.safeParse(entry).success).toBe(true);
      expect(entry["digest"]).toBe(r.digest);
      for (const n of names) expect(r.entry).not.toContain(n);
    }
  });

  it("a copied Harbor job is found by its trials' digests (seal.json is an ordinary file there), the new job name placed after", async () => {
    const parent = fresh("harbor-copy");
    const root = join(parent, "first");
    writeCorpus(root, { n: 6, seed: "store-harbor", faults: false, profile: "harbor" });
    writeFileSync(join(discoverTrial(root), "seal.json"), "{}"); // a file of the trial, not a seal
    const file = join(fresh("harbor-db"), "results.sqlite");
    const store = new ResultStore(file);
    try {
      const first = await scoreWith([root], store);
      const storable = first.results.bundles.filter((b) => b.validity !== "error").map((b) => b.path);
      expect(storable.length).toBeGreaterThan(3);
      const copy = join(parent, "second");
      cpSync(root, copy, { recursive: true });
      const again = await scoreWith([copy], store);
      expect(again.cached).toEqual(storable.map((p) => p.split(root).join(copy)).sort());
      expect(withoutRun(again.text).split(copy).join(root)).toBe(withoutRun(first.text));
    } finally {
      store.close();
    }
  });

  it("a folder where a file is expected is evidence too: added in place or in a copy, the trial is not taken from the store", async () => {
    const parent = fresh("harbor-shape");
    const root = join(parent, "first");
    writeCorpus(root, { n: 6, seed: "store-shape", faults: false, profile: "harbor" });
    const file = join(fresh("shape-db"), "results.sqlite");
    const store = new ResultStore(file);
    // An empty folder named verifier/reward.json beside reward.txt: no regular file changes, so
    // the §7 digest does not; the entry does (revision 2, §11: with both reward files present
    // either may agree, and reward_source says the rewards agree with reward.txt only).
    const addFolder = (r: string) => {
      const changed: string[] = [];
      for (const f of discover([r]))
        if (
          f.member &&
          existsSync(join(f.dir, "verifier", "reward.txt")) &&
          !existsSync(join(f.dir, "verifier", "reward.json"))
        ) {
          mkdirSync(join(f.dir, "verifier", "reward.json"));
          changed.push(f.path);
        }
      return changed.sort();
    };
    try {
      await scoreWith([root], store);
      const copy = join(parent, "second");
      cpSync(root, copy, { recursive: true });
      const inCopy = addFolder(copy);
      expect(inCopy.length).toBeGreaterThan(0);
      const fresh = await scoreWith([copy]);
      for (const p of inCopy)
        expect(entryAt(fresh.results, p).reward_source, p).toBe("verifier/reward.txt (not verifier/reward.json)");
      const viaStore = await scoreWith([copy], store);
      expect(viaStore.scored).toEqual(inCopy);
      expect(withoutRun(viaStore.text)).toBe(withoutRun(fresh.text));
    } finally {
      store.close();
    }
    // In place, on a store that holds only the folders as they were: their stamps change, and
    // their digests do not, yet they are rescored.
    const own = new ResultStore(join(fresh("shape-db-2"), "results.sqlite"));
    try {
      await scoreWith([root], own);
      const inPlace = addFolder(root);
      const again = await scoreWith([root], own);
      expect(again.scored).toEqual(inPlace);
      for (const p of inPlace)
        expect(entryAt(again.results, p).reward_source, p).toBe("verifier/reward.txt (not verifier/reward.json)");
    } finally {
      own.close();
    }
  });

  it("a path smuggled into a stored row is not used: the path comes from where the bundle lies", async () => {
    const root = fresh("smuggled");
    corpus(root, 3);
    const file = join(fresh("db"), "results.sqlite");
    let first: Scored;
    const store = new ResultStore(file);
    try {
      first = await scoreWith([root], store);
    } finally {
      store.close();
    }
    expect(rawExec(file, `UPDATE results SET entry = json_set(entry, '$.path', 'elsewhere/evil')`)).toBe(3);
    const again = new ResultStore(file);
    try {
      const second = await scoreWith([root], again);
      expect(second.text).not.toContain("elsewhere/evil");
      expect(pathsOf(second.results)).toEqual(pathsOf(first.results));
      expect(withoutRun(second.text)).toBe(withoutRun(first.text));
    } finally {
      again.close();
    }
  });
});

describe.sequential(
  "UNSAFE_PATH bundles are never stored and are rescored every run (§1 checks before any lookup)",
  () => {
    it("a bundle holding a symlink is scored afresh each run and has no stamps or row", async () => {
      const root = fresh("unsafe");
      corpus(root, 4);
      const badDir = bundleDir(root, 0);
      const badPath = `${root}/exp/${trialOf(0)}/a1`;
      symlinkSync("journal.jsonl", join(badDir, "link"));
      const file = join(fresh("db"), "results.sqlite");
      const store = new ResultStore(file);
      try {
        const first = await scoreWith([root], store);
        const bad = entryAt(first.results, badPath);
        expect(bad.errors.map((e) => e.code)).toContain("UNSAFE_PATH");
        expect(bad.validity).toBe("invalid");
        expect(store.rows()).toBe(3);
        const second = await scoreWith([root], store);
        expect(second.scored).toEqual([badPath]);
        expect(second.cached).toHaveLength(3);
        expect(entryAt(second.results, badPath)).toEqual(bad);
        expect(withoutRun(second.text)).toBe(withoutRun(first.text));
        expect(store.rows()).toBe(3);
        const third = await scoreWith([root], store);
        expect(third.scored).toEqual([badPath]);
      } finally {
        store.close();
      }
      expect(rawStamps(file).map((s) => s.folder)).not.toContain(badDir);
      expect(rawStamps(file)).toHaveLength(3);
    });

    it("a symlink added to a stored bundle (its file stamps unchanged) is caught before the lookup", async () => {
      const root = fresh("unsafe-later");
      corpus(root, 3);
      const dir = bundleDir(root, 1);
      const path = `${root}/exp/${trialOf(1)}/a1`;
      const file = join(fresh("db"), "results.sqlite");
      const store = new ResultStore(file);
      try {
        const first = await scoreWith([root], store);
        const good = entryAt(first.results, path);
        expect(good.errors).toEqual([]);
        const stampsBefore = rawStamps(file);

        // A symlink deep inside, pointing outside the bundle. Stamps cover regular files only, so a
        // lookup would hit: the §1 entry checks must come first.
        symlinkSync(join(tmp), join(dir, "notes", "escape"));
        for (let k = 0; k < 2; k++) {
          const r = await scoreWith([root], store);
          expect(r.scored).toEqual([path]);
          expect(r.cached).toHaveLength(2);
          const e = entryAt(r.results, path);
          expect(e.errors.map((f) => f.code)).toContain("UNSAFE_PATH");
          expect(e.validity).toBe("invalid");
        }
        // Nothing about the unsafe bundle was written.
        expect(rawStamps(file)).toEqual(stampsBefore);
        expect(store.rows()).toBe(3);

        // Once the link is gone the bundle is byte for byte what was stored: a hit again.
        rmSync(join(dir, "notes", "escape"));
        const back = await scoreWith([root], store);
        expect(back.cached).toHaveLength(3);
        expect(entryAt(back.results, path)).toEqual(good);
      } finally {
        store.close();
      }
    });
  },
);

describe.sequential("a row today's schema rejects is a miss, not a result", () => {
  const setup = async (name: string) => {
    const root = fresh(name);
    corpus(root, 4);
    const file = join(fresh("db"), "results.sqlite");
    const store = new ResultStore(file);
    try {
      return { root, file, first: await scoreWith([root], store) };
    } finally {
      store.close();
    }
  };
  const rescoredCorrectly = async (root: string, file: string, first: Scored, expectScored: string[]) => {
    const store = new ResultStore(file);
    try {
      const second = await scoreWith([root], store);
      expect(second.scored).toEqual(expectScored);
      expect(withoutRun(second.text)).toBe(withoutRun(first.text));
      // The rows were rewritten with valid entries: the next run takes everything from the store.
      for (const r of rawRows(file)) expect(STORED.safeParse(JSON.parse(r.entry)).success).toBe(true);
      expect((await scoreWith([root], store)).cached).toEqual(pathsOf(first.results));
    } finally {
      store.close();
    }
  };

  it(`UPDATE results SET entry = '{"bogus":1}': every bundle is rescored correctly`, async () => {
    const { root, file, first } = await setup("bogus");
    expect(rawExec(file, `UPDATE results SET entry = '{"bogus":1}'`)).toBe(4);
    await rescoredCorrectly(root, file, first, pathsOf(first.results));
  });

  it("an entry with a field of the wrong type (one row) is a miss for that bundle only", async () => {
    const { root, file, first } = await setup("wrong-type");
    const victim = first.results.bundles[2]!;
    expect(
      rawExec(
        file,
        `UPDATE results SET entry = json_set(entry, '$.validity', 'maybe') WHERE digest = '${victim.digest}'`,
      ),
    ).toBe(1);
    await rescoredCorrectly(root, file, first, [victim.path]);
  });

  it("an entry that is not JSON at all is a miss too (a corrupt row never ends the run)", async () => {
    const { root, file, first } = await setup("not-json");
    const victim = first.results.bundles[1]!;
    expect(rawExec(file, `UPDATE results SET entry = '{"digest": "' WHERE digest = '${victim.digest}'`)).toBe(1);
    await rescoredCorrectly(root, file, first, [victim.path]);
  });
});

describe.sequential("the CLI with --store (in-process)", () => {
  it("`assay score ROOT --store FILE --format json` twice: same output apart from run, the second from the store", async () => {
    const root = fresh("cli");
    corpus(root, 5);
    const file = join(fresh("db"), "results.sqlite");
    const plain = await run(["score", root, "--format", "json", "--jobs", "1", "--quiet"]);
    const first = await run(["score", root, "--store", file, "--format", "json", "--jobs", "1", "--quiet"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("");
    expect(existsSync(file)).toBe(true);
    expect(rawRows(file)).toHaveLength(5);
    const stampsAfterFirst = rawStamps(file);
    const second = await run(["score", root, "--store", file, "--format", "json", "--jobs", "1", "--quiet"]);
    expect(second.stderr).toBe("");
    expect(second.code).toBe(first.code);
    expect(withoutRun(second.stdout)).toBe(withoutRun(first.stdout));
    expect(withoutRun(second.stdout)).toBe(withoutRun(plain.stdout));
    expect(rawStamps(file)).toEqual(stampsAfterFirst);

    // Progress lines (off a TTY, not --quiet) say how many came from the store.
    const lines = await run(["score", root, "--store", file, "--format", "json", "--jobs", "1"], {
      ASSAY_STATUS_SECONDS: "3600",
    });
    expect(lines.stderr).toMatch(/\b5\/5 bundles \(5 from store\)/);
    const verified = await run(
      ["score", root, "--store", file, "--verify-digests", "--format", "json", "--jobs", "1"],
      { ASSAY_STATUS_SECONDS: "3600" },
    );
    expect(verified.code).toBe(0);
    expect(verified.stderr).toMatch(/\b5\/5 bundles \(5 from store\)/); // rehashed: every digest is stored
    expect(withoutRun(verified.stdout)).toBe(withoutRun(first.stdout));

    // --out with --store: the file holds what stdout held.
    const out = join(fresh("out"), "results.json");
    const toFile = await run([
      "score",
      root,
      "--store",
      file,
      "--format",
      "json",
      "--jobs",
      "1",
      "--out",
      out,
      "--quiet",
    ]);
    expect(toFile.code).toBe(0);
    expect(toFile.stdout).toBe("");
    expect(withoutRun(readFileSync(out, "utf8"))).toBe(withoutRun(first.stdout));
  });

  it("--verify-digests without --store is a usage error", async () => {
    const root = fresh("cli-usage");
    corpus(root, 1);
    const r = await run(["score", root, "--verify-digests", "--format", "json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--verify-digests goes with --store/);
  });
});
