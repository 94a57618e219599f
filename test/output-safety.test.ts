// Nothing lost (issue 11, items 1–3, 5, 10): every file assay writes goes through src/io/output.ts.
// A full disk or a file size limit is an error that leaves the previous file whole; an output path
// never lands on evidence, the store, the cache or an input; FIFOs, devices and /dev/stdout are
// written into, never replaced; links are never replaced. Each case failed before the module.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkOutput, OutputError, writeOutput, writeTree } from "../src/io/output.js";
import { bundle, escaped, game, killed, live, writeFiles } from "./helpers/bundle.js";
import { CLI, run, spawnCli } from "./helpers/cli.js";
import { writeJob } from "./helpers/harbor.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-output-");
let root: string;
let job: string;

beforeAll(() => {
  root = join(tmp, "runs");
  // Enough bundles that the JSON document is larger than the 20 KiB file-size limit used below.
  for (let i = 0; i < 60; i++) {
    const seed = i.toString(16).padStart(2, "0").repeat(8);
    writeFiles(
      join(root, `exp/t${i}/a1`),
      bundle(game({ trial: `t${i}`, seed, states: [live(), i % 3 === 0 ? escaped() : killed()] })),
    );
  }
  job = writeJob(join(tmp, "jobs"), "job-a", [{ name: "hello__abc" }]);
});

const temps = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".tmp"));
/** Run the built CLI under bash with a file-size limit of `kib` KiB (SIGXFSZ is ignored by node: writes fail with EFBIG). */
const limited = (kib: number, args: string[], cwd = tmp) =>
  spawnSync("bash", ["-c", `ulimit -f ${kib}; exec "${process.execPath}" "${CLI}" "$@"`, "assay", ...args], {
    encoding: "utf8",
    cwd,
  });

describe("a full disk or a file size limit never replaces a whole document with part of one (item 1)", () => {
  it("score --out under ulimit -f: exit 2, one line, the previous document untouched, no temp file left", () => {
    const out = join(tmp, "results.json");
    expect(spawnCli(["score", root, "--format", "json", "--out", out, "--quiet"]).code).toBe(0);
    const before = readFileSync(out);
    expect(before.length).toBeGreaterThan(30 * 1024);
    const r = limited(20, ["score", root, "--format", "json", "--out", out, "--quiet"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^assay score: cannot write .*results\.json: the file size limit was reached \(ulimit -f\) \(EFBIG\) after 20480 bytes; .*results\.json is unchanged\n$/,
    );
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(temps(tmp)).toEqual([]);
  });

  it("standard output redirected to a file under the limit: exit 2 and a message (it was exit 0 with a cut document)", () => {
    const r = spawnSync(
      "bash",
      ["-c", `ulimit -f 20; "${process.execPath}" "${CLI}" score "${root}" --format json --quiet > stdout.json`],
      { encoding: "utf8", cwd: tmp },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot write standard output: the file size limit was reached/);
  });

  it("a device that is full (/dev/full) is an error, exit 2", () => {
    const r = spawnCli(["score", root, "--format", "json", "--out", "/dev/full", "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write \/dev\/full: no space left on the device \(ENOSPC\)/);
  });

  it("merge, cache export, narrate and schema share the checked writer", () => {
    const shard = (i: number) => join(tmp, `shard-${i}.json`);
    for (const i of [0, 1])
      expect(spawnCli(["score", root, "--shard", `${i}/2`, "--out", shard(i), "--quiet"]).code).toBe(0);
    const merged = join(tmp, "merged.json");
    writeFileSync(merged, "previous\n");
    const m = limited(10, ["merge", shard(0), shard(1), "--format", "json", "--out", merged]);
    expect(m.status).toBe(2);
    expect(m.stderr).toMatch(/cannot write .*merged\.json: the file size limit was reached/);
    expect(readFileSync(merged, "utf8")).toBe("previous\n");

    const schema = join(tmp, "schema.json");
    writeFileSync(schema, "previous\n");
    const s = limited(4, ["schema", "--out", schema]);
    expect(s.status).toBe(2);
    expect(readFileSync(schema, "utf8")).toBe("previous\n");
    expect(temps(tmp)).toEqual([]);
  });
});

describe("--out never lands on evidence, the store, the cache or an input (item 2)", () => {
  it("a bundle's journal.jsonl under the scored root: refused before scoring, the journal untouched", async () => {
    const journal = join(root, "exp/t1/a1/journal.jsonl");
    const before = readFileSync(journal);
    const r = await run(["score", root, "--out", journal]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^assay score: will not write .*journal\.jsonl: it lies inside .*runs, which is being read \(assay never writes into evidence\)\n$/,
    );
    expect(r.stdout).toBe("");
    expect(readFileSync(journal).equals(before)).toBe(true);
  });

  it("a Harbor trial's result.json (read in place, never modified), and a new file anywhere under a root", async () => {
    const result = join(job, "hello__abc", "result.json");
    const before = readFileSync(result);
    for (const out of [result, join(job, "results.json"), join(job, "hello__abc", "new.json")]) {
      const r = await run(["score", join(tmp, "jobs"), "--out", out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr, out).toMatch(/will not write .*: it lies inside .*jobs, which is being read/);
    }
    expect(readFileSync(result).equals(before)).toBe(true);
    expect(existsSync(join(job, "results.json"))).toBe(false);
  });

  it("a root given through a symbolic link is protected by where it really is", async () => {
    const link = join(tmp, "runs-link");
    symlinkSync(root, link);
    const r = await run(["score", link, "--out", join(root, "exp", "out.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/lies inside .*runs-link/);
    rmSync(link);
  });

  it("the --store file and its SQLite side files: refused, and the store still opens afterwards", async () => {
    const store = join(tmp, "store.sqlite");
    expect((await run(["score", root, "--store", store, "--quiet"])).code).toBe(0);
    for (const out of [store, `${store}-wal`, `${store}-shm`]) {
      // --format: without it the name's extension, naming no format, is refused first (issue 23)
      const r = await run(["score", root, "--store", store, "--out", out, "--format", "json", "--quiet"]);
      expect(r.code, out).toBe(2);
      expect(r.stderr, out).toMatch(/will not write .*: it is .*, which this command reads or keeps/);
    }
    const again = await run(["score", root, "--store", store, "--format", "json", "--quiet"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).bundles).toHaveLength(60);
  });

  it("a hard link to the store under another name is the store", async () => {
    const store = join(tmp, "store-hl.sqlite");
    expect((await run(["score", root, "--store", store, "--quiet"])).code).toBe(0);
    const other = join(tmp, "looks-harmless.json");
    spawnSync("ln", [store, other]);
    const r = await run(["score", root, "--store", store, "--out", other, "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/which this command reads or keeps/);
  });

  it("a schedule, a shard being merged, and the document narrate reads are inputs", async () => {
    const schedule = join(tmp, "schedule.json");
    writeFileSync(
      schedule,
      JSON.stringify({
        format: "assay.schedule/1",
        experiment: "exp",
        trials: [{ trial: "t0", seed: "00".repeat(8) }],
      }),
    );
    const s = await run(["score", root, "--schedule", schedule, "--out", schedule]);
    expect(s.code).toBe(2);
    const shard = join(tmp, "in-shard.json");
    expect((await run(["score", root, "--shard", "0/1", "--out", shard, "--quiet"])).code).toBe(0);
    const before = readFileSync(shard);
    const m = await run(["merge", shard, "--out", shard]);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(
      /will not write .*in-shard\.json: it is .*in-shard\.json, which this command reads or keeps/,
    );
    expect(readFileSync(shard).equals(before)).toBe(true);
    const doc = join(tmp, "doc.json");
    expect((await run(["score", root, "--format", "json", "--out", doc, "--quiet"])).code).toBe(0);
    const n = await run(["narrate", doc, "--out", doc, "--offline", "--cache", join(tmp, "narrate-cache.sqlite")]);
    expect(n.code).toBe(2);
    expect(n.stderr).toMatch(/will not write .*doc\.json/);
  });

  it("a results store or an analysis cache inside a root being read is refused before it is created", async () => {
    const inside = join(root, "exp", "store.sqlite");
    const r = await run(["score", root, "--store", inside]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /will not keep the results store at .*store\.sqlite: it lies inside .*runs, which is being read/,
    );
    expect(existsSync(inside)).toBe(false);
    const cache = join(root, "cache.sqlite");
    const a = await run(["analyze", root, "--cache", cache], {
      ANTHROPIC_API_KEY: "sk-ant-test-not-used-0000",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    });
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/will not keep the analysis cache at .*cache\.sqlite: it lies inside/);
    expect(existsSync(cache)).toBe(false);
  });

  it("cache export onto the cache itself: refused, the paid answers kept (item 5)", async () => {
    const cache = join(tmp, "answers.sqlite");
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(cache);
    db.exec(
      "CREATE TABLE answers (key TEXT PRIMARY KEY, analysis TEXT NOT NULL, model TEXT NOT NULL, answer TEXT NOT NULL, provenance TEXT NOT NULL, created_at TEXT NOT NULL)",
    );
    db.prepare("INSERT INTO answers VALUES ('k', 'trial-legitimacy', 'm', '{}', '{}', '2026-01-01T00:00:00Z')").run();
    db.close();
    for (const out of [cache, `${cache}-wal`]) {
      const r = await run(["cache", "export", out, "--cache", cache]);
      expect(r.code, out).toBe(2);
      expect(r.stderr).toMatch(/will not write .*: it is .*, which this command reads or keeps/);
    }
    const stats = await run(["cache", "stats", "--json", "--cache", cache]);
    expect(JSON.parse(stats.stdout).rows).toBe(1);
  });
});

describe("special files are written into, never replaced; links never replaced (item 3)", () => {
  it("a FIFO receives the document and stays a FIFO", () => {
    const fifo = join(tmp, "pipe");
    spawnSync("mkfifo", [fifo]);
    const r = spawnSync(
      "bash",
      [
        "-c",
        `cat "${fifo}" > got.json & "${process.execPath}" "${CLI}" score "${root}" --format json --out "${fifo}" --quiet; s=$?; wait; exit $s`,
      ],
      { encoding: "utf8", cwd: tmp },
    );
    expect(r.status).toBe(0);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(JSON.parse(readFileSync(join(tmp, "got.json"), "utf8")).bundles).toHaveLength(60);
  });

  it("a character device (a copy of /dev/null) stays a device", () => {
    const dev = join(tmp, "mynull");
    const made = spawnSync("mknod", [dev, "c", "1", "3"]);
    if (made.status !== 0) return; // not root: nothing to test
    const r = spawnCli(["score", root, "--format", "json", "--out", dev, "--quiet"]);
    expect(r.code).toBe(0);
    expect(statSync(dev).isCharacterDevice()).toBe(true);
  });

  it("/dev/stdout, directly or through a link, is standard output and the link stays a link", () => {
    const link = join(tmp, "to-stdout");
    symlinkSync("/dev/stdout", link);
    for (const out of ["/dev/stdout", link]) {
      const r = spawnCli(["score", root, "--format", "json", "--out", out, "--quiet"]);
      expect(r.code, out).toBe(0);
      expect(JSON.parse(r.stdout).bundles, out).toHaveLength(60);
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe("/dev/stdout");
  });

  it("a symbolic link to a file: refused; neither the link nor its target changes", async () => {
    const target = join(tmp, "target.json");
    writeFileSync(target, "mine\n");
    const link = join(tmp, "link.json");
    symlinkSync(target, link);
    const r = await run(["score", root, "--out", link]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /will not write .*link\.json: it is a symbolic link, and assay never replaces a link or the file it points to/,
    );
    expect(readFileSync(target, "utf8")).toBe("mine\n");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it("a dangling link, a socket-like special file, a folder: refused with what it is", () => {
    const dangling = join(tmp, "dangling.json");
    symlinkSync(join(tmp, "nowhere"), dangling);
    expect(() => checkOutput(dangling)).toThrow(/symbolic link/);
    expect(() => checkOutput(tmp)).toThrow(/it is a folder/);
    expect(() => checkOutput(join(tmp, "no-such-folder", "x.json"))).toThrow(/folder .* does not exist/);
  });
});

describe("the writer itself", () => {
  it("writes pieces in turn (never one string), keeps the replaced file's permissions (not a setuid bit) and owner, and returns the bytes written", () => {
    const g = join(tmp, "setuid.txt");
    writeFileSync(g, "old");
    chmodSync(g, 0o4755);
    if (process.getuid?.() === 0) chownSync(g, 4242, 4343);
    writeOutput(g, "new");
    expect(statSync(g).mode & 0o7777).toBe(0o755);
    if (process.getuid?.() === 0) expect([statSync(g).uid, statSync(g).gid]).toEqual([4242, 4343]);
    const f = join(tmp, "pieces.txt");
    writeFileSync(f, "old", { mode: 0o600 });
    const n = writeOutput(
      f,
      (function* () {
        for (let i = 0; i < 1000; i++) yield `line ${i}\n`;
      })(),
    );
    expect(n).toBe(readFileSync(f).length);
    expect(readFileSync(f, "utf8").split("\n")).toHaveLength(1001);
    expect(statSync(f).mode & 0o777).toBe(0o600);
  });

  it("an error part-way through the pieces removes the temp file and leaves the old file", () => {
    const f = join(tmp, "half.txt");
    writeFileSync(f, "whole\n");
    expect(() =>
      writeOutput(
        f,
        (function* () {
          yield "part";
          throw new Error("the producer failed");
        })(),
      ),
    ).toThrow(/the producer failed/);
    expect(readFileSync(f, "utf8")).toBe("whole\n");
    expect(temps(tmp)).toEqual([]);
  });

  it("regularOnly (a seal inside a bundle): a FIFO or device at the path is refused, not written into", () => {
    const fifo = join(tmp, "seal-fifo");
    spawnSync("mkfifo", [fifo]);
    expect(() => writeOutput(fifo, "x", { regularOnly: true })).toThrow(OutputError);
    expect(() => writeOutput("/dev/stdout", "x", { regularOnly: true })).toThrow(/symbolic link/);
  });

  it("create: never replaces a file, even one that appears after the check (link, not rename)", () => {
    const f = join(tmp, "created.json");
    expect(writeOutput(f, "first\n", { create: true })).toBe(6);
    expect(() => writeOutput(f, "second\n", { create: true })).toThrow(/it exists, and this write only creates/);
    expect(readFileSync(f, "utf8")).toBe("first\n");
    // One that appears while the temp file is written: the producer makes it mid-write.
    const g = join(tmp, "appears.json");
    expect(() =>
      writeOutput(
        g,
        (function* () {
          yield "mine";
          writeFileSync(g, "theirs\n");
        })(),
        { create: true },
      ),
    ).toThrow(/EEXIST|exists/);
    expect(readFileSync(g, "utf8")).toBe("theirs\n");
    expect(temps(tmp)).toEqual([]);
  });

  it("writeTree writes new files only, and never follows a link planted at a file's name", () => {
    const dir = join(tmp, "tree");
    mkdirSync(dir);
    symlinkSync(join(tmp, "victim.txt"), join(dir, "a.txt"));
    expect(() => writeTree(dir, [["a.txt", "x"]])).toThrow(/cannot write .*a\.txt: .*EEXIST|file already exists/);
    expect(existsSync(join(tmp, "victim.txt"))).toBe(false);
  });
});

describe("smaller (item 10)", () => {
  it("--store that is not a database is a one-line user error, and the file is untouched", async () => {
    const f = join(tmp, "notadb");
    writeFileSync(f, "this is not a database\n");
    const r = spawnCli(["score", root, "--store", f, "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`assay score: ${f} cannot be used as the results store: file is not a database\n`);
    expect(readFileSync(f, "utf8")).toBe("this is not a database\n");
  });

  it("merge of a file that is not JSON: one line naming the file and the byte, no quotation of its text", () => {
    const f = join(tmp, "junk.json");
    writeFileSync(f, "junk\nmore junk\n");
    const r = spawnCli(["merge", f]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")).toEqual([
      `assay merge: ${f} is not an assay results document: expected a JSON object ('{') at byte 0`,
      "",
    ]);
  });
});
