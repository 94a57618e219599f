// SIGKILL at any moment (issue 3 item 3): a real `assay score --store S --out OUT` is killed once the
// store holds N rows — polled through a read-only SQLite connection, never slept for a fixed time —
// and the test proves that no finished result is lost, the store is not corrupt (integrity check,
// every row intact, no stamp without its result), no half-written output exists (OUT absent, or a
// previous OUT byte-identical to before; no temp file left), and that the rerun continues where it
// stopped (the store-taken count is at least the rows present at the kill) and ends with the
// document a fresh run without a store gives, byte for byte apart from `run`.
//
// Spawns the compiled CLI: build first (`npx tsc -p .`). If a run finishes before it can be killed,
// the corpus is made larger (never a sleep).
import Database from "better-sqlite3";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, spawnCli, startCli } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";
import { bundleEntrySchema } from "../src/core/results.js";
import { storeKey } from "../src/store/store.js";
import { SCORING_VERSION } from "../src/version.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Rows the store must hold before the kill. */
const MIN_ROWS = 200;
/** Corpora tried in turn: a larger one only when a run finished before it could be killed. */
const SIZES = [
  { n: 3000, events: 64 },
  { n: 8000, events: 64 },
];
const STORED = bundleEntrySchema.omit({ path: true }).strict();

const { dir: tmp } = scratch("assay-kill-", SCRATCH);
let corpusDir: string;
let freshDoc: string;
let bundles = 0;
let digests = 0;

const node = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnCli(args, { env, maxBuffer: 64 * 1024 * 1024 });

/** The JSON document's text with its `run` member cut out; everything else compared byte for byte. */
function withoutRun(text: string): string {
  const cut = text.replace(/\n  "run": \{\n[\s\S]*?\n  \},\n/, "\n");
  expect(cut).not.toBe(text);
  expect(cut).not.toMatch(/\n {4}"started_at"/); // the run's (entries' identity has its own, deeper)
  return cut;
}

/** Rows in the store through a read-only connection; null while the file or its table is not there yet. */
function rowsNow(store: string): number | null {
  let db: Database.Database | undefined;
  try {
    db = new Database(store, { readonly: true, fileMustExist: true });
    return (db.prepare("SELECT count(*) AS n FROM results").get() as { n: number }).n;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

interface Killed {
  /** Rows seen by the poll just before the kill. */
  polled: number;
  stderr: string;
}

/**
 * Spawn a scoring run and SIGKILL it once the store holds MIN_ROWS rows; null when the run ended
 * by itself first (the caller then needs a larger corpus).
 */
async function scoreAndKill(corpus: string, store: string, out: string): Promise<Killed | null> {
  const { child, stderr, exited } = startCli([
    "score",
    corpus,
    "--store",
    store,
    "--format",
    "json",
    "--out",
    out,
    "--jobs",
    "2",
    "--quiet",
  ]);
  let ended = false;
  void exited.then(() => (ended = true));
  const giveUp = Date.now() + 45_000;
  let polled = -1;
  while (!ended && Date.now() < giveUp) {
    const n = rowsNow(store);
    if (n !== null && n >= MIN_ROWS && child.exitCode === null) {
      polled = n;
      child.kill("SIGKILL");
      break;
    }
    await new Promise((r) => setTimeout(r, 5)); // a poll interval, not a wait for the run
  }
  if (polled < 0 && !ended) child.kill("SIGKILL");
  const how = await exited;
  if (polled < 0 || how.signal !== "SIGKILL") return null; // finished (or was finishing) before the kill
  return { polled, stderr: stderr() };
}

interface StoreState {
  rows: number;
}

/** Everything a killed run leaves in the store must be sound. */
function checkStore(store: string, polled: number): StoreState {
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const rows = db.prepare("SELECT key, digest, entry FROM results").all() as {
      key: string;
      digest: string;
      entry: string;
    }[];
    // No finished result was lost: at least what the poll saw committed is there.
    expect(rows.length).toBeGreaterThanOrEqual(polled);
    for (const r of rows) {
      const entry = JSON.parse(r.entry) as Record<string, unknown>;
      const parsed = STORED.safeParse(entry);
      expect(parsed.success, r.entry.slice(0, 200)).toBe(true);
      expect(entry["digest"]).toBe(r.digest);
      expect(r.key).toBe(storeKey(r.digest, null, SCORING_VERSION, {}));
    }
    // Results and stamps were written in one transaction: no stamp points at a missing result.
    const dangling = db
      .prepare("SELECT count(*) AS n FROM stamps s LEFT JOIN results r ON r.digest = s.digest WHERE r.key IS NULL")
      .get() as { n: number };
    expect(dangling.n).toBe(0);
    const stamps = (db.prepare("SELECT count(*) AS n FROM stamps").get() as { n: number }).n;
    expect(stamps).toBeGreaterThanOrEqual(rows.length);
    return { rows: rows.length };
  } finally {
    db.close();
  }
}

/** The output folder holds exactly `expected` and no temp file of the atomic writer. */
function checkOutputFolder(out: string, expected: string[]): void {
  const names = readdirSync(dirname(out)).sort();
  const temps = names.filter((n) => n.endsWith(".tmp"));
  for (const t of temps) expect(t).not.toBe(basename(out));
  // The kill came while bundles were still being scored (rows < distinct digests), long before
  // the document is written: no temp file at all.
  expect(temps).toEqual([]);
  expect(names).toEqual(expected);
}

/** Rerun to completion with the store; returns how many bundles came from the store. */
function rerun(store: string, out: string): number {
  const r = node(["score", corpusDir, "--store", store, "--format", "json", "--out", out, "--jobs", "2"], {
    ASSAY_STATUS_SECONDS: "3600",
  });
  expect(r.code, r.stderr).toBe(0);
  const m = /(\d+)\/(\d+) bundles \((\d+) from store\)/.exec(r.stderr);
  expect(m, r.stderr).not.toBeNull();
  expect(Number(m![1])).toBe(bundles);
  expect(Number(m![2])).toBe(bundles);
  return Number(m![3]);
}

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(join(ROOT, "dist/pool/worker.js")))
    throw new Error("the kill test spawns dist/cli.js: build first (npx tsc -p .)");
});

/** Synthesise a corpus and score it afresh without a store (the reference document). */
function prepare(size: { n: number; events: number }): void {
  corpusDir = join(tmp, `corpus-${size.n}x${size.events}`);
  const s = node(["synth", "--out", corpusDir, "--n", String(size.n), "--events", String(size.events)]);
  expect(s.code, s.stderr).toBe(0);
  const freshOut = join(tmp, `fresh-${size.n}.json`);
  const f = node(["score", corpusDir, "--format", "json", "--out", freshOut, "--jobs", "2", "--quiet"]);
  expect(f.code, f.stderr).toBe(0);
  freshDoc = readFileSync(freshOut, "utf8");
  const doc = JSON.parse(freshDoc) as { bundles: { digest: string; validity: string }[] };
  bundles = doc.bundles.length;
  digests = new Set(doc.bundles.map((b) => b.digest)).size;
  expect(doc.bundles.every((b) => b.validity !== "error")).toBe(true);
  expect(digests).toBeGreaterThan(MIN_ROWS * 2);
}

/** Kill a run over the corpus (growing it if a run outpaces the poll); returns what was seen. */
async function killedRun(store: string, out: string, before?: Buffer): Promise<{ killed: Killed; state: StoreState }> {
  for (let attempt = 0; ; attempt++) {
    if (corpusDir === undefined) prepare(SIZES[0]!);
    if (before !== undefined) writeFileSync(out, before);
    const killed = await scoreAndKill(corpusDir, store, out);
    if (killed !== null) {
      const state = checkStore(store, killed.polled);
      // The kill came mid-run: fewer rows than the corpus has distinct bundles.
      if (state.rows < digests) return { killed, state };
    }
    // The run got to its end first: a larger corpus, a fresh store, no prior output.
    expect(attempt + 1, "every corpus size finished before it could be killed").toBeLessThan(SIZES.length);
    for (const f of [store, `${store}-wal`, `${store}-shm`, out]) rmSync(f, { force: true });
    rmSync(corpusDir, { recursive: true, force: true });
    prepare(SIZES[attempt + 1]!);
  }
}

describe.sequential(
  "SIGKILL during `assay score --store` loses nothing, corrupts nothing, and the rerun resumes",
  () => {
    it("killed with no previous output: the store is sound, no OUT exists, the rerun finishes the same document", async () => {
      const outDir = join(tmp, "out-1");
      mkdirSync(outDir);
      const store = join(tmp, "kill-1.sqlite");
      const out = join(outDir, "results.json");

      const { state } = await killedRun(store, out);
      expect(existsSync(out)).toBe(false);
      checkOutputFolder(out, []);

      const fromStore = rerun(store, out);
      expect(fromStore).toBeGreaterThanOrEqual(state.rows);
      expect(fromStore).toBeLessThan(bundles); // the rest was scored now
      checkOutputFolder(out, ["results.json"]);
      const doc = readFileSync(out, "utf8");
      expect(withoutRun(doc)).toBe(withoutRun(freshDoc));
      expect(JSON.parse(doc).run.complete).toBe(true);

      // And the store is now complete: another rerun takes every bundle from it.
      expect(checkStore(store, state.rows).rows).toBe(digests);
      expect(rerun(store, out)).toBe(bundles);
      expect(withoutRun(readFileSync(out, "utf8"))).toBe(withoutRun(freshDoc));
    });

    it("killed with a previous OUT present: OUT is byte-identical to before, then replaced by the rerun", async () => {
      const outDir = join(tmp, "out-2");
      mkdirSync(outDir);
      const store = join(tmp, "kill-2.sqlite");
      const out = join(outDir, "results.json");
      const previous = Buffer.from(`{"previous": "results document", "keep": "me byte for byte"}\n`);

      const { state } = await killedRun(store, out, previous);
      expect(readFileSync(out).equals(previous)).toBe(true);
      checkOutputFolder(out, ["results.json"]);

      const fromStore = rerun(store, out);
      expect(fromStore).toBeGreaterThanOrEqual(state.rows);
      expect(fromStore).toBeLessThan(bundles);
      checkOutputFolder(out, ["results.json"]);
      expect(withoutRun(readFileSync(out, "utf8"))).toBe(withoutRun(freshDoc));
    });
  },
);
