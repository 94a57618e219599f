// Inspect logs and the --store (issue 40 §4): a log is stamped as a bundle folder is (path, kind,
// size, mtime_ns, inode), so a rerun takes an unchanged log from the store without reading it; a
// log whose stamps changed is hashed (read whole) and taken from the store when only its stamps
// changed; any changed byte is scored again. Logs read whole and logs split into parts alike.
//
// Real logs (test/fixtures/inspect) copied into temp folders; workers run compiled code.
import Database from "better-sqlite3";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import type { BundleEntry, Results } from "../src/core/results.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { ResultStore } from "../src/store/store.js";
import { zipBytes } from "../src/synth/zip.js";
import { editJson, fixture, members } from "./helpers/inspect.js";
import { scratch } from "./helpers/shared.js";

const BASE = { schedules: [], ...DEFAULT_BATCH } satisfies ScoreRunOptions;
const LOGS = ["log_read_sample.eval", "log_streaming.eval", "2025-05-12T20-28-13-04-00_popularity.json"];
/** Small enough that the .eval fixtures are split into parts (the real default is 4 MiB). */
const SPLIT = { logBytes: 1, partBytes: 1 };

const tmp = realpathSync(scratch("assay-inspect-store-").dir);
let serial = 0;

/** The fixtures copied into a fresh folder, dated an hour ago as an archive is (not "racy"). */
function prepared(): string {
  const dir = join(tmp, `logs-${++serial}`);
  mkdirSync(dir, { recursive: true });
  const old = Date.now() / 1000 - 3600;
  for (const name of LOGS) {
    copyFileSync(fixture(name), join(dir, name));
    utimesSync(join(dir, name), old, old);
  }
  return dir;
}

beforeAll(() => {
  if (!existsSync(new URL("../dist/pool/worker.js", import.meta.url)))
    throw new Error("store tests run compiled workers: build first (npx tsc -p .)");
});

interface Scored {
  results: Results;
  cached: string[];
  scored: string[];
}

async function scoreWith(root: string, store: ResultStore, extra: Partial<ScoreRunOptions> = {}): Promise<Scored> {
  const cached: string[] = [];
  const scored: string[] = [];
  const progress = { done: (e: BundleEntry, _b: number, c: boolean) => void (c ? cached : scored).push(e.path) };
  const results = await scoreRoots([root], { ...BASE, jobs: 1, store, progress, ...extra });
  return { results, cached: cached.sort(), scored: scored.sort() };
}

/** Entries as compared across runs: everything but what the run itself stamps. */
const entries = (r: Results) => JSON.stringify(r.bundles);
const names = (root: string, ...files: string[]) => files.map((f) => `${root}/${f}`).sort();

describe.each([
  ["read whole", {}],
  ["split into parts", { inspectSplit: SPLIT }],
] as const)("Inspect logs from --store, %s", (how, extra) => {
  const split = how === "split into parts";
  const withStore = async (f: (root: string, store: ResultStore) => Promise<void>) => {
    const root = prepared();
    const store = new ResultStore(join(tmp, `store-${serial}.sqlite`));
    try {
      await f(root, store);
    } finally {
      store.close();
    }
  };
  const digestOf = (r: Results, name: string) => r.bundles.find((b) => b.path.endsWith(`/${name}`))!.digest;

  it("a rerun takes every unchanged log from the store, with the same entries", () =>
    withStore(async (root, store) => {
      const first = await scoreWith(root, store, extra);
      expect(first.cached).toEqual([]);
      expect(first.scored).toEqual(names(root, ...LOGS));
      const again = await scoreWith(root, store, extra);
      expect(again.scored).toEqual([]);
      expect(again.cached).toEqual(names(root, ...LOGS));
      expect(entries(again.results)).toBe(entries(first.results));
    }));

  it("a .json log with one byte changed (same size) is scored again; the others still come from the store", () =>
    withStore(async (root, store) => {
      const first = await scoreWith(root, store, extra);
      const changed = join(root, LOGS[2]!);
      const text = readFileSync(changed, "utf8");
      writeFileSync(changed, text.replace('"status": "cancelled"', '"status": "Cancelled"'));
      expect(readFileSync(changed).length).toBe(Buffer.byteLength(text));
      const again = await scoreWith(root, store, extra);
      expect(again.scored).toEqual(names(root, LOGS[2]!));
      expect(again.cached).toEqual(names(root, LOGS[0]!, LOGS[1]!));
      expect(digestOf(again.results, LOGS[2]!)).not.toBe(digestOf(first.results, LOGS[2]!));
    }));

  it("an .eval rewritten with another header.json is scored again", () =>
    withStore(async (root, store) => {
      const first = await scoreWith(root, store, extra);
      const changed = join(root, LOGS[0]!);
      const edited = editJson(
        members(changed),
        "header.json",
        (h) => void (h.eval.created = "2020-01-01T00:00:00+00:00"),
      );
      writeFileSync(changed, zipBytes(edited));
      const again = await scoreWith(root, store, extra);
      expect(again.scored).toEqual(names(root, LOGS[0]!));
      expect(again.cached).toEqual(names(root, LOGS[1]!, LOGS[2]!));
      expect(digestOf(again.results, LOGS[0]!)).not.toBe(digestOf(first.results, LOGS[0]!));
    }));

  it(
    split
      ? "a touched log (mtime only) large enough to split is hashed by the main thread and taken from the store, and restamped"
      : "a touched log (mtime only) is hashed by its worker and taken from the store, and restamped",
    () =>
      withStore(async (root, store) => {
        await scoreWith(root, store, extra);
        const touched = join(root, LOGS[1]!);
        utimesSync(touched, Date.now() / 1000 - 60, Date.now() / 1000 - 60);
        const again = await scoreWith(root, store, extra);
        expect(again.cached).toEqual(names(root, ...LOGS));
        expect(again.scored).toEqual([]);
        const third = await scoreWith(root, store, extra);
        expect(third.scored).toEqual([]);
      }),
  );

  it("--verify-digests hashes every log: an edit that kept size and mtime is caught", () =>
    withStore(async (root, store) => {
      const first = await scoreWith(root, store, extra);
      const changed = join(root, LOGS[2]!);
      const { mtime } = statSync(changed);
      const text = readFileSync(changed, "utf8");
      writeFileSync(changed, text.replace('"status": "cancelled"', '"status": "Cancelled"'));
      utimesSync(changed, mtime, mtime);
      // Stamps alone cannot see it (inode, size and mtime kept), as with a bundle folder
      expect((await scoreWith(root, store, extra)).scored).toEqual([]);
      const verified = await scoreWith(root, store, { ...extra, verifyDigests: true });
      expect(verified.scored).toEqual(names(root, LOGS[2]!));
      expect(digestOf(verified.results, LOGS[2]!)).not.toBe(digestOf(first.results, LOGS[2]!));
    }));
});

it("a log written in the last two seconds is stamped racy: the rerun hashes it rather than trusting its stamps", async () => {
  const root = prepared();
  const fresh = join(root, LOGS[2]!);
  writeFileSync(fresh, readFileSync(fresh));
  const store = new ResultStore(join(tmp, `store-${serial}.sqlite`));
  try {
    await scoreWith(root, store);
    const db = new Database(join(tmp, `store-${serial}.sqlite`), { readonly: true });
    const stamps = (db.prepare("SELECT folder, stamps FROM stamps").all() as { folder: string; stamps: string }[])
      .map((r) => [r.folder.slice(root.length + 1), r.stamps.endsWith("#racy")])
      .sort();
    db.close();
    expect(stamps).toEqual(
      [
        [LOGS[2], true],
        [LOGS[0], false],
        [LOGS[1], false],
      ].sort(),
    );
    const again = await scoreWith(root, store);
    expect(again.cached).toEqual(names(root, ...LOGS)); // the racy one by its digest
  } finally {
    store.close();
  }
});
