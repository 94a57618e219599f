// Progress and Ctrl-C (issue 3, item 4), through the built CLI (`node dist/cli.js`): status lines
// off a terminal, cli-progress bars on one (a real pty from tmux), nothing with --quiet; the first
// SIGINT stops handing out work and exits 130 keeping the store (and writes a document marked
// incomplete only with --out); the second exits at once; a rerun with the store completes.

import Database from "better-sqlite3";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultsSchema } from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { CLI, spawnCli, startCli } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

// Thousands of small files: on tmpfs when there is one, so a busy disk does not set the pace.
const { dir: tmp } = scratch("assay-progress-", SCRATCH);
/** ~1,400 bundles with labelled faults: a run of a second or two. */
let small: string;
let smallCount: number;
/** ~2,900 bundles × 64 events: long enough to be stopped part-way. */
let big: string;
let bigCount: number;

beforeAll(() => {
  small = join(tmp, "small");
  smallCount = writeCorpus(small, { n: 1200, seed: "progress-small", faults: true, events: 64 });
  big = join(tmp, "big");
  bigCount = writeCorpus(big, { n: 2500, seed: "progress-big", faults: false, events: 64 });
});

// "assay: D/F[+] bundles (C from store), X MB, I invalid, E tool errors, R bundles/s, ETA T"
const STATUS =
  /^assay: (\d+)\/(\d+)(\+?) bundles \((\d+) from store\), (\d+\.\d) MB, (\d+) invalid, (\d+) tool errors, (\d+) bundles\/s, ETA (…|\d+s)$/;
const statusLines = (stderr: string) =>
  stderr.split("\n").filter((l) => l.startsWith("assay: ") && / bundles /.test(l) && /ETA/.test(l));

describe("off a terminal (stderr piped)", () => {
  it("prints a status line every ASSAY_STATUS_SECONDS and a final one", () => {
    const t0 = Date.now();
    const out = join(tmp, "small.json");
    const r = spawnCli(["score", small, "--format", "json", "--out", out, "--jobs", "2"], {
      env: { ASSAY_STATUS_SECONDS: "0.2" },
    });
    const elapsed = Date.now() - t0;
    expect(r.code, r.stderr).toBe(0);
    const doc = resultsSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(doc.bundles).toHaveLength(smallCount);

    const lines = statusLines(r.stderr);
    // every line on stderr is a status line (no bar, no control characters), then the --out notice
    expect(r.stderr.trimEnd().split("\n")).toEqual([...lines, `assay: wrote ${out} (${smallCount} bundles)`]);
    expect(r.stderr).not.toMatch(/\x1b|\r/);
    for (const l of lines) expect(l).toMatch(STATUS);
    // one every 0.2 s over the run (the run takes well over a second), give or take start-up
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 2);

    const parsed = lines.map((l) => STATUS.exec(l)!);
    const done = parsed.map((m) => Number(m[1]));
    expect([...done].sort((a, b) => a - b)).toEqual(done); // never goes backwards
    const last = parsed[parsed.length - 1]!;
    expect(Number(last[1])).toBe(smallCount);
    expect(Number(last[2])).toBe(smallCount);
    expect(last[3]).toBe(""); // discovery finished: no "+"
    expect(Number(last[4])).toBe(0); // no store
    expect(Number(last[5])).toBeGreaterThan(0);
    expect(Number(last[6])).toBe(doc.bundles.filter((b) => b.validity === "invalid").length);
    expect(Number(last[6])).toBeGreaterThan(0);
    expect(Number(last[7])).toBe(0);
    expect(Number(last[8])).toBeGreaterThan(0);
    expect(last[9]).toBe("0s");
    // The look-ahead count gives the whole total, and so an ETA, long before the end.
    const early = parsed.filter((m) => Number(m[1]) > 0 && Number(m[1]) < smallCount / 2);
    expect(early.length, r.stderr).toBeGreaterThan(0);
    for (const m of early) {
      expect(Number(m[2])).toBe(smallCount);
      expect(m[3]).toBe("");
      expect(m[9]).toMatch(/^\d+s$/);
    }
  });

  it("--quiet: stderr is empty on success", () => {
    const r = spawnCli(["score", small, "--quiet", "--jobs", "2"], { env: { ASSAY_STATUS_SECONDS: "0.05" } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/accuracy/);
  });
});

const hasTmux = spawnSync("tmux", ["-V"], { encoding: "utf8" }).status === 0;

describe.skipIf(!hasTmux)("on a terminal (tmux)", () => {
  // A private server on a socket inside tmp: never the user's tmux, and nothing left behind.
  const session = `assay-progress-${process.pid}`;
  const tmux = (...args: string[]) =>
    spawnSync("tmux", ["-S", join(tmp, "tmux.sock"), ...args], {
      encoding: "utf8",
      env: { ...process.env, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
    });
  afterAll(() => {
    tmux("kill-session", "-t", session);
    tmux("kill-server");
  });

  it("shows the cli-progress bar: bar, bundles, MB, rate, ETA", async () => {
    try {
      const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
      const cmd = `${q(process.execPath)} ${q(CLI)} score ${q(small)} --jobs 2 > /dev/null; sleep 5`;
      const started = tmux("-u", "new-session", "-d", "-s", session, "-x", "200", "-y", "50", cmd);
      expect(started.status, started.stderr).toBe(0);
      let screen = "";
      const final = `${smallCount}/${smallCount} bundles |`;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        screen = tmux("capture-pane", "-p", "-t", session).stdout ?? "";
        if (screen.includes(final)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(screen).toContain(final);
      const bar = screen.split("\n").find((l) => l.includes(final))!;
      expect(bar).toMatch(/^[\u2588\u2591]{20,} /); // shades_classic: full blocks for done, light shade for the rest
      expect(bar).toMatch(/\u2588{40}/); // complete
      expect(bar).toContain("bundles |");
      expect(bar).toMatch(/\d+\.\d MB/);
      expect(bar).toMatch(/\d+ invalid/);
      expect(bar).toMatch(/\d+\/s/);
      expect(bar).toMatch(/ETA \S+/);
      // no plain status lines on a terminal
      expect(screen).not.toMatch(/^assay: \d+\/\d+/m);
    } finally {
      tmux("kill-session", "-t", session);
    }
  });

  it("at 0/0 (nothing found) the bar is empty, never full (issue 23)", async () => {
    try {
      const empty = join(tmp, "empty");
      mkdirSync(empty);
      const cmd = `${q(process.execPath)} ${q(CLI)} score ${q(empty)} --allow-empty > /dev/null; echo "rc=$?"; sleep 5`;
      const started = tmux("-u", "new-session", "-d", "-s", session, "-x", "200", "-y", "20", cmd);
      expect(started.status, started.stderr).toBe(0);
      const screen = await until((sc) => /rc=\d+/.test(sc), 30_000);
      expect(screen).toMatch(/rc=0/);
      const bar = screen.split("\n").find((l) => l.includes("0/0 bundles |"));
      expect(bar, screen).toBeDefined();
      expect(bar).toMatch(/^\u2591{40} 0\/0 bundles \|/); // light shade only: nothing done of nothing
      expect(bar).not.toContain("\u2588");
    } finally {
      tmux("kill-session", "-t", session);
    }
  });

  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const capture = () => tmux("capture-pane", "-p", "-t", session).stdout ?? "";
  async function until(test: (screen: string) => boolean, ms: number): Promise<string> {
    const deadline = Date.now() + ms;
    let screen = capture();
    while (!test(screen) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      screen = capture();
    }
    return screen;
  }
  // A bar part-way: "D/T bundles" with D < T, no "+" (the count has finished), and an ETA in seconds.
  const partWay = (screen: string) =>
    screen.split("\n").some((l) => {
      const m = /(\d+)\/(\d+) bundles \|.*ETA (\d+)s/.exec(l);
      return m !== null && Number(m[1]) > 0 && Number(m[1]) < Number(m[2]) && Number(m[2]) === bigCount;
    });

  it("knows the total and an ETA part-way; Ctrl-C ends the bar before its message, which stays whole", async () => {
    try {
      const store = join(tmp, "tmux-store.sqlite");
      const cmd = `${q(process.execPath)} ${q(CLI)} score ${q(big)} --jobs 1 --store ${q(store)} > /dev/null; echo "rc=$?"; sleep 30`;
      const started = tmux("-u", "new-session", "-d", "-s", session, "-x", "220", "-y", "50", cmd);
      expect(started.status, started.stderr).toBe(0);
      const running = await until(partWay, 30_000);
      expect(partWay(running), running).toBe(true);
      tmux("send-keys", "-t", session, "C-c");
      const screen = await until((sc) => /rc=\d+/.test(sc), 30_000);
      expect(screen).toMatch(/rc=130/);
      const lines = screen.split("\n").map((l) => l.trimEnd());
      const stopping = lines.findIndex((l) => l.includes("assay: stopping"));
      expect(stopping, screen).toBeGreaterThan(-1);
      // the message is whole, on its own line: the bar did not draw over it
      expect(lines[stopping]).toBe(
        "assay: stopping — finishing the work in flight; the store keeps what is done (Ctrl-C again to quit now)",
      );
      // after it: the closing line, then the shell's; no bar drawn again
      const after = lines.slice(stopping + 1).filter((l) => l !== "");
      expect(after[0]).toMatch(/^assay: stopped after \d+ bundles; .* keeps them for the rerun$/);
      expect(after[1]).toBe("rc=130");
      expect(after.some((l) => / bundles \|/.test(l))).toBe(false);
    } finally {
      tmux("kill-session", "-t", session);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Ctrl-C

interface Running {
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill: (s: NodeJS.Signals) => void;
}
const children = new Set<ReturnType<typeof spawn>>();
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

function start(argv: string[], env: Record<string, string> = {}): Running {
  const { child, stdout, stderr, exited } = startCli(argv, { env });
  children.add(child);
  void exited.then(() => children.delete(child));
  return { stdout, stderr, exited, kill: (s) => void child.kill(s) };
}

/** Poll stderr until a status line reports at least `min` bundles done. */
async function waitForDone(r: Running, min: number, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void r.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    const lines = statusLines(r.stderr());
    const done = lines.length === 0 ? 0 : Number(STATUS.exec(lines[lines.length - 1]!)?.[1] ?? 0);
    if (done >= min) return done;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`no progress to ${min} bundles (exited: ${exited}); stderr: ${r.stderr().slice(-500)}`);
}

function storeState(file: string): { integrity: string; rows: number; stamps: number } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = (db.pragma("integrity_check") as { integrity_check: string }[])[0]!.integrity_check;
    const rows = (db.prepare("SELECT count(*) AS n FROM results").get() as { n: number }).n;
    const stamps = (db.prepare("SELECT count(*) AS n FROM stamps").get() as { n: number }).n;
    return { integrity, rows, stamps };
  } finally {
    db.close();
  }
}

describe("Ctrl-C", () => {
  let store: string;
  let rowsAfterFirst = 0;
  beforeAll(() => {
    store = join(tmp, "store.sqlite");
  });

  it("first SIGINT: exit 130 soon, no results document on stdout, the store intact and non-empty", async () => {
    const r = start(["score", big, "--jobs", "2", "--store", store, "--format", "json"], {
      ASSAY_STATUS_SECONDS: "0.1",
    });
    await waitForDone(r, 64);
    const t0 = Date.now();
    r.kill("SIGINT");
    const { code, signal } = await r.exited;
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(signal).toBeNull();
    expect(code, r.stderr()).toBe(130);
    expect(r.stdout()).toBe("");
    expect(r.stderr()).toMatch(/stopping/);
    const s = storeState(store);
    expect(s.integrity).toBe("ok");
    expect(s.rows).toBeGreaterThan(0);
    expect(s.rows).toBeLessThan(bigCount); // it really stopped part-way
    expect(s.stamps).toBe(s.rows);
    rowsAfterFirst = s.rows;
  });

  it("with --out: FILE is written, parses, and says run.complete false", async () => {
    const out = join(tmp, "stopped.json");
    const r = start(["score", big, "--jobs", "2", "--store", store, "--format", "json", "--out", out], {
      ASSAY_STATUS_SECONDS: "0.1",
    });
    // past what the store already held, so this run scored something of its own
    await waitForDone(r, rowsAfterFirst + 64);
    r.kill("SIGINT");
    const { code } = await r.exited;
    expect(code, r.stderr()).toBe(130);
    expect(r.stdout()).toBe("");
    expect(existsSync(out)).toBe(true);
    const doc = resultsSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(doc.run.complete).toBe(false);
    expect(doc.run.shard).toBeNull();
    expect(doc.bundles.length).toBeGreaterThan(rowsAfterFirst);
    expect(doc.bundles.length).toBeLessThan(bigCount);
    expect(readdirSync(tmp).filter((f) => f.startsWith("stopped.json") && f !== "stopped.json")).toEqual([]); // no temp file left
    const s = storeState(store);
    expect(s.integrity).toBe("ok");
    expect(s.rows).toBeGreaterThanOrEqual(doc.bundles.length);
    rowsAfterFirst = s.rows;
  });

  it("a rerun with the same store completes (exit 0), taking what the store kept", async () => {
    const r = start(["score", big, "--jobs", "2", "--store", store, "--format", "json"], {
      ASSAY_STATUS_SECONDS: "600",
    });
    const { code } = await r.exited;
    expect(code, r.stderr()).toBe(0);
    const doc = resultsSchema.parse(JSON.parse(r.stdout()));
    expect(doc.run.complete).toBe(true);
    expect(doc.bundles).toHaveLength(bigCount);
    const last = statusLines(r.stderr()).pop()!;
    const m = STATUS.exec(last)!;
    expect(Number(m[1])).toBe(bigCount);
    expect(Number(m[4])).toBeGreaterThanOrEqual(rowsAfterFirst); // from store
    const s = storeState(store);
    expect(s.integrity).toBe("ok");
    expect(s.rows).toBe(bigCount);
  });

  it("a SIGINT after every bundle was handed out still means stopped: exit 130, no document on stdout", async () => {
    // Two bundles of ~60 MB: discovery (and the count) end at once, scoring takes a while.
    const dir = join(tmp, "two-large");
    writeCorpus(dir, { n: 2, seed: "two-large", faults: false, events: 150_000 });
    const r = start(["score", dir, "--jobs", "2", "--format", "json"], { ASSAY_STATUS_SECONDS: "0.05" });
    const deadline = Date.now() + 20_000;
    // every bundle counted ("0/N", no "+"), none done yet
    while (!statusLines(r.stderr()).some((l) => /^assay: 0\/\d+ bundles \(/.test(l)) && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 10));
    r.kill("SIGINT");
    const { code } = await r.exited;
    expect(code, r.stderr()).toBe(130);
    expect(r.stdout()).toBe("");
    expect(r.stderr()).toMatch(/stopping/);
  });

  it("a second SIGINT exits at once (130), leaving the store intact", async () => {
    const store2 = join(tmp, "store2.sqlite");
    const r = start(["score", big, "--jobs", "2", "--store", store2], { ASSAY_STATUS_SECONDS: "0.1" });
    await waitForDone(r, 32);
    const t0 = Date.now();
    r.kill("SIGINT");
    // the second once the first has been taken (two signals sent back to back may arrive as one)
    while (!/stopping/.test(r.stderr()) && Date.now() - t0 < 5_000) await new Promise((res) => setTimeout(res, 5));
    r.kill("SIGINT");
    const { code, signal } = await r.exited;
    expect(Date.now() - t0).toBeLessThan(5_000);
    // 130 from the handler; if the second signal lands after the run has already let go of its
    // handler (the work in flight is only milliseconds), SIGINT's default ends it: 130 to a shell too.
    expect(code === 130 || (code === null && signal === "SIGINT"), `code ${code} signal ${signal}: ${r.stderr()}`).toBe(
      true,
    );
    expect(r.stdout()).toBe("");
    expect(storeState(store2).integrity).toBe("ok");
  });
});
