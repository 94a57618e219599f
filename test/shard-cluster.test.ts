// Shards that go wrong on a cluster (issue 24): a shard with a tool error (exit 3) still writes its
// document and the merge lists those trials as unscored; a shard absent at merge time is named;
// two runs writing one store are refused, while a store left by a killed run is taken over by the
// rerun, which resumes from it.

import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, statSync, ftruncateSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ResultStore, STALE_MS, StoreError, storedRows, whyStale, type Claim } from "../src/store/store.js";
import { spawnCli, startCli } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-shard-cluster-", SCRATCH);

const synth = (name: string, n: number) => {
  const r = spawnCli(["synth", "--out", join(tmp, name), "--n", String(n), "--seed", `cluster-${name}`]);
  expect(r.code, r.stderr).toBe(0);
  return join(tmp, name);
};
const doc = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("a shard with a tool error", () => {
  it("exits 3 having written its document; merge writes the whole and lists those trials as unscored (exit 3)", () => {
    const root = synth("faulty", 6);
    // A sparse 16 MB file in every bundle: hashing it outlasts a 1 ms limit, so every bundle of
    // the shard given that limit is a TIMEOUT (a tool error), and none of the other shard's is.
    const bundles = readdirSync(join(root, "synth-native")).flatMap((t) =>
      readdirSync(join(root, "synth-native", t)).map((a) => join(root, "synth-native", t, a)),
    );
    for (const b of bundles) {
      const fd = openSync(join(b, "padding.bin"), "w");
      ftruncateSync(fd, 16 * 1024 * 1024);
      closeSync(fd);
    }
    const s0 = join(tmp, "faulty-0.json");
    const s1 = join(tmp, "faulty-1.json");
    const bad = spawnCli(["score", root, "--shard", "0/2", "--bundle-timeout", "0.001", "--out", s0, "--quiet"]);
    expect(bad.code, bad.stderr).toBe(3);
    const good = spawnCli(["score", root, "--shard", "1/2", "--out", s1, "--quiet"]);
    expect(good.code, good.stderr).toBe(0);
    const errors = doc(s0).bundles.filter((b: any) => b.validity === "error");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((b: any) => b.errors[0].code === "TIMEOUT")).toBe(true);
    expect(doc(s1).bundles.some((b: any) => b.validity === "error")).toBe(false);

    const merged = join(tmp, "faulty-merged.json");
    const m = spawnCli(["merge", s0, s1, "--format", "json", "--out", merged]);
    expect(m.code, m.stderr).toBe(3);
    const unscored = doc(merged).experiments.flatMap((e: any) => e.unscored);
    expect(unscored.sort()).toEqual([...new Set(errors.map((b: any) => b.trial))].sort());
  }, 60_000);
});

describe("a shard absent at merge time", () => {
  let a: string;
  let b: string;
  beforeAll(() => {
    const root = synth("absent", 10);
    [a, b] = [0, 1].map((i) => {
      const f = join(tmp, `absent-${i}.json`);
      expect(spawnCli(["score", root, "--shard", `${i}/3`, "--out", f, "--quiet"]).code).toBe(0);
      return f;
    }) as [string, string];
  });
  it("a file named but not there: every absent one is named, in one line (exit 2)", () => {
    const r = spawnCli(["merge", a, b, join(tmp, "absent-2.json"), join(tmp, "absent-3.json"), "--format", "json"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `assay merge: no such shard document: ${join(tmp, "absent-2.json")}, ${join(tmp, "absent-3.json")} (its shard did not finish: score it again, then merge)\n`,
    );
  });
  it("a shard left out of the set: named as i/n, with what to do (exit 2)", () => {
    const r = spawnCli(["merge", a, b, "--format", "json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("assay merge: shards missing: 2/3 (score each with --shard i/3, then merge every shard)\n");
  });
  it("every shard there: merged (exit 0)", () => {
    const root = join(tmp, "absent");
    const c = join(tmp, "absent-2.json");
    expect(spawnCli(["score", root, "--shard", "2/3", "--out", c, "--quiet"]).code).toBe(0);
    expect(spawnCli(["merge", a, b, c, "--format", "json", "--out", join(tmp, "absent-merged.json")]).code).toBe(0);
  });
});

describe("one store, one writer", () => {
  const here = hostname();
  const alive = (pid: number) => pid === 1;
  const claim = (c: Partial<Claim>): Claim => ({ host: here, pid: 1, shard: "0/2", beat: 1_000_000, ...c });

  it("whyStale: a claim is another run's while it beats, unless its pid is gone on this host", () => {
    const now = 1_000_000;
    const isStale = (c: Claim, at: number) => whyStale(c, at, here, alive) !== null;
    expect(isStale(claim({}), now)).toBe(false); // this host, pid alive, beating
    expect(isStale(claim({ pid: 2 }), now)).toBe(true); // this host, pid gone
    expect(isStale(claim({ host: "node-7", pid: 2 }), now)).toBe(false); // another host: its pid says nothing here
    expect(isStale(claim({ host: "node-7" }), now + STALE_MS)).toBe(false); // silent for exactly STALE_MS
    expect(isStale(claim({ host: "node-7" }), now + STALE_MS + 1)).toBe(true); // silent for longer
    expect(isStale(claim({}), now + STALE_MS + 1)).toBe(false); // pid alive on this host: never taken over, whatever the clock says
  });

  const file = () => join(mkdtempSync(join(tmp, "store-")), "s.sqlite");
  const writeClaim = (f: string, c: Claim) => {
    const db = new Database(f);
    db.prepare(
      "INSERT OR REPLACE INTO writer (one, token, host, pid, shard, beat) VALUES (1, 'other', ?, ?, ?, ?)",
    ).run(c.host, c.pid, c.shard, c.beat);
    db.close();
  };
  const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

  it("a second writer is refused, naming the first; once the first closes, it may write", () => {
    const f = file();
    const a = new ResultStore(f);
    a.claim("0/2");
    const b = new ResultStore(f);
    expect(() => b.claim("1/2")).toThrow(StoreError);
    expect(() => b.claim("1/2")).toThrow(
      new RegExp(`is being written by another run \\(shard 0/2, pid ${process.pid} on ${here}, seen 0 s ago\\)`),
    );
    a.close();
    b.claim("1/2");
    b.close();
  });

  it("a claim left by a dead pid on this host is taken over; by a live one, refused", () => {
    const f = file();
    new ResultStore(f).close(); // the tables
    writeClaim(f, { host: here, pid: deadPid(), shard: "3/4", beat: Date.now() });
    const s = new ResultStore(f);
    s.claim("3/4");
    s.close();
    writeClaim(f, { host: here, pid: process.ppid, shard: "3/4", beat: Date.now() });
    expect(() => new ResultStore(f).claim("3/4")).toThrow(/shard 3\/4, pid \d+ on /);
  });

  it("another host's claim is refused while it beats, taken over after STALE_MS of silence", () => {
    const f = file();
    new ResultStore(f).close();
    writeClaim(f, { host: "node-7", pid: deadPid(), shard: null, beat: Date.now() - 5_000 });
    expect(() => new ResultStore(f).claim(null)).toThrow(/a run without --shard, pid \d+ on node-7, seen 5 s ago/);
    writeClaim(f, { host: "node-7", pid: deadPid(), shard: null, beat: Date.now() - STALE_MS - 1_000 });
    const s = new ResultStore(f);
    s.claim(null);
    s.close();
  });

  describe("the beat", () => {
    afterEach(() => void vi.useRealTimers());
    it("keeps the claim fresh; a writer whose claim was taken over stops at its next write", () => {
      vi.useFakeTimers({ now: 5_000_000, toFake: ["setInterval", "clearInterval", "Date"] });
      const f = file();
      const s = new ResultStore(f);
      s.claim("0/2");
      const beat = () =>
        (new Database(f, { readonly: true }).prepare("SELECT beat FROM writer").get() as { beat: number }).beat;
      expect(beat()).toBe(5_000_000);
      vi.advanceTimersByTime(10_000);
      expect(beat()).toBe(5_010_000);
      s.put([]); // still the writer
      writeClaim(f, { host: "node-7", pid: 9, shard: "1/2", beat: Date.now() }); // another run took it over
      vi.advanceTimersByTime(10_000);
      expect(() => s.put([])).toThrow(
        /was taken over by another run \(shard 1\/2, pid 9 on node-7\) while this one wrote it: stopping/,
      );
      s.close();
      const t = new ResultStore(f); // the other run's claim is fresh: refused
      expect(() => t.claim("0/2")).toThrow(/is being written by another run/);
      const release = () => {
        const db = new Database(f);
        db.prepare("DELETE FROM writer").run();
        db.close();
      };
      release(); // it finished
      t.claim("0/2");
      writeClaim(f, { host: "node-7", pid: 9, shard: "1/2", beat: Date.now() });
      release(); // took it over, and finished
      vi.advanceTimersByTime(10_000);
      expect(() => t.put([])).toThrow(/was taken over by another run, since finished while this one wrote it/);
      t.close();
    });
  });

  it("spawned: a second shard on a running shard's store exits 2; after a kill -9 the rerun takes it over and resumes from it", async () => {
    const root = synth("locked", 300);
    const store = join(tmp, "locked.sqlite");
    const { child: first, exited } = startCli([
      "score",
      root,
      "--shard",
      "0/2",
      "--store",
      store,
      "--jobs",
      "1",
      "--out",
      join(tmp, "locked-0.json"),
      "--quiet",
    ]);
    const rows = () => storedRows(store);
    const until = Date.now() + 30_000;
    while (rows() === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(rows()).toBeGreaterThan(0);
    first.kill("SIGSTOP"); // mid-run, holding the store, for as long as the test needs

    const second = spawnCli([
      "score",
      root,
      "--shard",
      "1/2",
      "--store",
      store,
      "--out",
      join(tmp, "locked-1.json"),
      "--quiet",
    ]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      new RegExp(
        `^assay score: ${store} is being written by another run \\(shard 0/2, pid ${first.pid} on ${hostname()}, seen \\d+ s ago\\): give each shard a store of its own .*\\n$`,
      ),
    );

    first.kill("SIGKILL");
    await exited;
    const left = new Database(store, { readonly: true }).prepare("SELECT pid FROM writer").get() as
      { pid: number } | undefined;
    expect(left?.pid).toBe(first.pid); // the killed run's claim is still there: the rerun must take it over
    expect(() => statSync(join(tmp, "locked-0.json"))).toThrow(); // killed before it finished

    const rerun = spawnCli(["score", root, "--shard", "0/2", "--store", store, "--out", join(tmp, "locked-0.json")], {
      env: { ASSAY_STATUS_SECONDS: "3600" },
    });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(Number(/\((\d+) from store\)/.exec(rerun.stderr)?.[1])).toBeGreaterThan(0);
    expect(new Database(store, { readonly: true }).prepare("SELECT count(*) AS n FROM writer").get()).toEqual({ n: 0 }); // released at the end
  }, 90_000);
});
