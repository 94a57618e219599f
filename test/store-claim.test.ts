// The store's writer claim as the clock and the row may lie (issue 35 §5): a beat from the future
// or one that is no time is another host's claim no longer, a live pid on this host always is;
// and --store naming another program's SQLite database is refused before a byte of it changes.

import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { writeCorpus } from "../src/io/corpus.js";
import { ResultStore, STALE_MS, StoreError, whyStale, type Claim } from "../src/store/store.js";
import { run } from "./helpers/cli.js";
import { freshFolders } from "./helpers/shared.js";

const folder = freshFolders("assay-store-claim-");
let root: string;
beforeAll(() => {
  root = folder("corpus");
  writeCorpus(root, { n: 3, seed: "store-claim", faults: false });
});

const here = hostname();
const file = () => join(folder("store"), "s.sqlite");
/** A claim row as another run (or an attacker, or a broken clock) left it; `beat` may be any SQLite value. */
const writeClaim = (f: string, c: { host: string; pid: number; beat: unknown }) => {
  new ResultStore(f).close(); // the tables
  const db = new Database(f);
  db.prepare(
    "INSERT OR REPLACE INTO writer (one, token, host, pid, shard, beat) VALUES (1, 'other', ?, ?, '1/2', ?)",
  ).run(c.host, c.pid, c.beat);
  db.close();
};
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;
/** Claim the store: what was taken over (the claim is then ours, and released), or the refusal's message. */
const claimed = (f: string): { taken: string | null } | { refused: string } => {
  const s = new ResultStore(f);
  try {
    return { taken: s.claim("0/2") };
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return { refused: (e as Error).message };
  } finally {
    s.close();
  }
};

describe("whyStale: the rule for taking a claim over", () => {
  const now = 1_000_000_000;
  const alive = (pid: number) => pid === 1;
  const claim = (c: Partial<Claim>): Claim => ({ host: "node-7", pid: 1, shard: null, beat: now, ...c });
  const why = (c: Partial<Claim>) => whyStale(claim(c), now, here, alive);

  it("another host: a beat within STALE_MS of this clock, either side, holds; further ahead it is suspect", () => {
    expect(why({ beat: now + STALE_MS })).toBeNull(); // a clock a minute ahead: still in step enough
    expect(why({ beat: now + STALE_MS + 1 })).toBe("its beat is dated 60 s ahead of this host's clock");
    expect(why({ beat: now + 86_400_000 })).toBe("its beat is dated 86400 s ahead of this host's clock");
    expect(why({ beat: now - STALE_MS - 5_000 })).toBe("silent for 65 s");
  });

  it("another host: a beat that is no time is taken over, named as it is (never NaN)", () => {
    expect(why({ beat: "abc" as unknown as number })).toBe('its beat "abc" is no time');
    expect(why({ beat: Number.NaN })).toBe('its beat "NaN" is no time');
  });

  it("this host: a live pid holds whatever its beat says (a clock step), a gone one or no pid at all does not", () => {
    for (const beat of [now - 10 * STALE_MS, now + 10 * STALE_MS, "abc" as unknown as number])
      expect(why({ host: here, beat })).toBeNull();
    expect(why({ host: here, pid: 2 })).toBe("its pid is gone on this host");
    // 0 and -1 would signal a process group, or every process: alive to kill(), but no writer.
    for (const pid of [0, -1, 2.5]) expect(why({ host: here, pid })).toBe(`its pid ${pid} is no process`);
  });
});

describe.sequential("the claim in a store", () => {
  it("a live writer's fresh beat is respected, and named as seen", () => {
    const f = file();
    writeClaim(f, { host: "node-7", pid: 9, beat: Date.now() - 2_000 });
    expect(claimed(f)).toEqual({
      refused: expect.stringMatching(/another run \(shard 1\/2, pid 9 on node-7, seen 2 s ago\)/),
    });
  });

  it("a beat a little ahead (clocks slightly apart) is respected, and said to be ahead, not 'seen 0 s ago'", () => {
    const f = file();
    writeClaim(f, { host: "node-7", pid: 9, beat: Date.now() + 30_000 });
    const r = claimed(f);
    expect(r).toEqual({
      refused: expect.stringMatching(/pid 9 on node-7, its beat dated (29|30) s ahead of this host's clock\)/),
    });
  });

  it("a beat from the future beyond STALE_MS is taken over at once, saying why", () => {
    const f = file();
    writeClaim(f, { host: "node-7", pid: 9, beat: Date.now() + 3_600_000 });
    expect(claimed(f)).toEqual({
      taken: expect.stringMatching(
        /^took over the claim of another run \(shard 1\/2, pid 9 on node-7\): its beat is dated (3599|3600) s ahead of this host's clock$/,
      ),
    });
  });

  it("a beat of 'abc' is taken over, saying so without NaN", () => {
    const f = file();
    writeClaim(f, { host: "node-7", pid: 9, beat: "abc" });
    const r = claimed(f);
    expect(r).toEqual({
      taken: 'took over the claim of another run (shard 1/2, pid 9 on node-7): its beat "abc" is no time',
    });
    expect(JSON.stringify(r)).not.toMatch(/NaN/);
  });

  it("a live pid on this host is never taken over, however old or odd its beat; a dead one is", () => {
    for (const beat of [Date.now() - 3_600_000, Date.now() + 3_600_000, "abc"]) {
      const f = file();
      writeClaim(f, { host: here, pid: process.ppid, beat });
      const r = claimed(f);
      expect(r).toEqual({
        refused: expect.stringMatching(
          new RegExp(`pid ${process.ppid} on ${here}, .*a live pid on this host never is\\)$`),
        ),
      });
      expect(JSON.stringify(r)).not.toMatch(/NaN/);
    }
    const f = file();
    writeClaim(f, { host: here, pid: deadPid(), beat: Date.now() });
    expect(claimed(f)).toEqual({ taken: expect.stringMatching(/: its pid is gone on this host$/) });
  });

  it("a writer holding the store's lock past SQLite's busy wait (a run stopped mid-transaction) is refused by name, even with a claim that would be taken over; no claim row: said to be locked", () => {
    // A beat an hour ahead would be taken over (above), but a lock held now is a live writer.
    // Before: SQLite's own "database is locked" escaped as an internal error.
    for (const row of [true, false]) {
      const f = file();
      if (row) writeClaim(f, { host: "node-7", pid: 9, beat: Date.now() + 3_600_000 });
      else new ResultStore(f).close();
      const holder = new Database(f);
      holder.exec("BEGIN IMMEDIATE");
      try {
        expect(claimed(f)).toEqual({
          refused: row
            ? expect.stringMatching(/is being written by another run \(shard 1\/2, pid 9 on node-7, its beat dated/)
            : `${f} is locked by another process writing it: give each shard a store of its own`,
        });
      } finally {
        holder.exec("ROLLBACK");
        holder.close();
      }
    }
  }, 30_000);

  it("the CLI says what it took over, scores, and holds the claim no longer when done", async () => {
    const f = file();
    writeClaim(f, { host: "node-7", pid: 9, beat: Date.now() + 3_600_000 });
    const r = await run(["score", root, "--store", f, "--format", "json", "--jobs", "1", "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^assay: \S+s\.sqlite: took over the claim of another run \(shard 1\/2, pid 9 on node-7\): its beat is dated (3599|3600) s ahead of this host's clock\n$/,
    );
    expect(new Database(f, { readonly: true }).prepare("SELECT count(*) AS n FROM writer").get()).toEqual({ n: 0 });
  });
});

describe.sequential("--store naming another program's SQLite database", () => {
  const sqlite = (f: string, sql: string) => {
    const db = new Database(f);
    db.exec(sql);
    db.close();
  };
  const refusedUntouched = async (f: string, why: RegExp) => {
    const before = readFileSync(f);
    const dir = readdirSync(join(f, ".."));
    const r = await run(["score", root, "--store", f, "--format", "json", "--jobs", "1", "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(why);
    expect(r.stderr).toMatch(
      /it is a SQLite database of another program \(.*\): nothing was written to it; name a new file\n$/,
    );
    expect(readFileSync(f).equals(before)).toBe(true); // byte for byte: no tables, no header change, no WAL mode
    expect(readdirSync(join(f, ".."))).toEqual(dir); // and nothing beside it
  };

  it("a database with tables of its own is refused before anything is written", async () => {
    const f = file();
    sqlite(f, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ada');");
    await refusedUntouched(f, /\(table "users", which no store holds\)/);
  });

  it("one whose `results` table is another shape, or which sets another application_id or a user_version, too", async () => {
    const shaped = file();
    sqlite(shaped, "CREATE TABLE results (id INTEGER, score REAL);");
    await refusedUntouched(shaped, /\(table results without key, digest, entry\)/);
    const id = file();
    sqlite(id, "PRAGMA application_id = 1234;");
    await refusedUntouched(id, /\(application_id 1234\)/);
    const version = file();
    sqlite(version, "PRAGMA user_version = 7;");
    await refusedUntouched(version, /\(user_version 7\)/);
  });

  it("a new path, an empty file, a database with no tables and a store made before application_id was set all become (or stay) a store", async () => {
    const fresh = file();
    const empty = file();
    writeFileSync(empty, "");
    const bare = file();
    sqlite(bare, "PRAGMA page_size = 4096; VACUUM;");
    const older = file();
    sqlite(
      older,
      "CREATE TABLE results (key TEXT PRIMARY KEY, digest TEXT NOT NULL, entry TEXT NOT NULL); CREATE TABLE stamps (folder TEXT PRIMARY KEY, stamps TEXT NOT NULL, digest TEXT NOT NULL);",
    );
    for (const f of [fresh, empty, bare, older]) {
      const r = await run(["score", root, "--store", f, "--format", "json", "--jobs", "1", "--quiet"]);
      expect(r.code, r.stderr).toBe(0);
      const db = new Database(f, { readonly: true });
      expect((db.prepare("SELECT count(*) AS n FROM results").get() as { n: number }).n).toBeGreaterThan(0);
      expect(db.pragma("application_id", { simple: true })).toBe(0x61736179); // told apart from here on
      db.close();
      const again = await run(["score", root, "--store", f, "--format", "json", "--jobs", "1", "--quiet"]);
      expect(again.code, again.stderr).toBe(0); // its own store is never refused
    }
  });
});
