// Keyed seals (issue 11, item 2; contract §7, §8): SEAL on each side of its line, the key file's
// limits, seals unchecked without a key (said once), the store and the analysis cache keyed on the
// key's fingerprint, merge, verify, `assay seal` (which writes seal.json and nothing else), and the
// key and its path appearing nowhere. Seals and digests are computed here independently of src/.

import { spawnSync } from "node:child_process";
import { createHash, createHmac } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cacheKey, type KeyParts } from "../src/analysis/cache.js";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import type { BundleEntry, Results } from "../src/core/results.js";
import { scoreRoots, storeOptions, type ScoreRunOptions } from "../src/pipeline/score.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { ResultStore } from "../src/store/store.js";
import { bundle, codes, escaped, game, killed, live, writeFiles } from "./helpers/bundle.js";
import { CLI, run, spawnCli } from "./helpers/cli.js";
import { FakeMessagesApi, errorReply, toolUseReply } from "./helpers/fake-anthropic.js";
import { writeTrial } from "./helpers/harbor.js";
import { build as worldBundle } from "./helpers/world.js";
import { scratch } from "./helpers/shared.js";

type Files = Record<string, string | Buffer>;

const KEY = Buffer.from("k3y-\u00e9-SECRET-a91f0c-never-shown", "utf8");
const OTHER = Buffer.from("another key, 2nd", "utf8");
const KEY_NAME = "hmac-keyfile-5e2b.bin";

const { dir: tmp } = scratch("assay-seal-");
let keyFile: string;
let otherFile: string;
let n = 0;
/** A fresh folder under the test's temp folder. */
const fresh = (name: string) => {
  const d = join(tmp, `${name}-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
};

beforeAll(() => {
  const keys = join(tmp, "keys");
  mkdirSync(keys);
  keyFile = join(keys, KEY_NAME);
  otherFile = join(keys, "other.bin");
  // Readable by the owner alone, as keys should be (a key others can read works, with a warning).
  writeFileSync(keyFile, KEY, { mode: 0o600 });
  writeFileSync(otherFile, OTHER, { mode: 0o600 });
});

// ---------------------------------------------------------------------------------------------
// Independent §7 digest and §8 seal.

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
const fingerprint = (key: Buffer) => createHmac("sha256", key).update("assay.key-id").digest("hex");

/** Every regular file below `dir`, '/'-separated and relative. */
function filesBelow(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel === "" ? e.name : `${rel}/${e.name}`;
    return e.isDirectory() ? filesBelow(dir, p) : e.isFile() ? [p] : [];
  });
}
function digestOf(dir: string): string {
  const paths = filesBelow(dir)
    .filter((p) => p !== "seal.json")
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return sha(paths.map((p) => `${p}\t${sha(readFileSync(join(dir, p)))}\n`).join(""));
}
const sealBytes = (key: Buffer, dir: string) =>
  `{"format":"assay.seal/1","alg":"HMAC-SHA256","mac":"${createHmac("sha256", key).update(digestOf(dir)).digest("hex")}"}\n`;
const sealWith = (key: Buffer, dir: string) => writeFileSync(join(dir, "seal.json"), sealBytes(key, dir));

/** Each trial its own seed: trials of one experiment sharing one would be SEED_COLLISION. */
const who = (trial: string) => ({ trial, seed: sha(trial).slice(0, 32) });
const victory = (trial = "t1"): Files => bundle(game({ ...who(trial), states: [live(), escaped()] }));
const death = (trial = "t1"): Files => bundle(game({ ...who(trial), states: [live(), killed()] }));
const unterminated = (trial = "t1"): Files =>
  bundle(game({ ...who(trial), states: [live()], score: "none", end: null }));

function writeBundle(dir: string, files: Files): string {
  mkdirSync(dir, { recursive: true });
  writeFiles(dir, files);
  return dir;
}
const withKey = (dir: string, key: Buffer | undefined = KEY) =>
  scoreDirectory(dir, dir, undefined, undefined, { hmacKey: key });
const noKey = (dir: string) => scoreDirectory(dir, dir);
const sealFindings = (e: BundleEntry) => e.errors.filter((f) => f.file === "seal.json").map((f) => f.code);

// ---------------------------------------------------------------------------------------------

describe("SEAL, each side of its line", () => {
  it("a correct seal passes: valid, with the victory the evidence earns, and the digest is the same with or without the key", () => {
    const dir = writeBundle(fresh("ok"), victory());
    sealWith(KEY, dir);
    const keyed = withKey(dir);
    expect(keyed.errors).toEqual([]);
    expect(keyed).toMatchObject({ validity: "valid", victory: true });
    expect(keyed).toEqual(noKey(dir));
    expect(keyed.digest).toBe(digestOf(dir)); // seal.json is not in the digest it seals
  });

  it("absent: SEAL, the bundle is invalid and earns nothing; without a key it is valid", () => {
    const dir = writeBundle(fresh("absent"), victory());
    const e = withKey(dir);
    expect(codes(e)).toEqual(["SEAL"]);
    expect(e.errors[0]).toMatchObject({
      code: "SEAL",
      file: "seal.json",
      line: null,
      message: expect.stringContaining("absent"),
    });
    expect(e).toMatchObject({ validity: "invalid", victory: null, late: null });
    expect(noKey(dir)).toMatchObject({ validity: "valid", victory: true });
  });

  it("a seal made with another key: SEAL (the mac does not match)", () => {
    const dir = writeBundle(fresh("otherkey"), victory());
    sealWith(OTHER, dir);
    expect(codes(withKey(dir))).toEqual(["SEAL"]);
    expect(withKey(dir).errors[0]!.message).toMatch(/does not match/);
    expect(codes(withKey(dir, OTHER))).toEqual([]);
  });

  it("one byte of the journal changed after sealing: SEAL beside whatever else the change breaks", () => {
    const dir = writeBundle(fresh("journal-byte"), death());
    sealWith(KEY, dir);
    const journal = readFileSync(join(dir, "journal.jsonl"));
    journal[journal.indexOf("test")] = "T".charCodeAt(0); // the end record's reason: "test" → "Test"
    writeFileSync(join(dir, "journal.jsonl"), journal);
    const without = codes(noKey(dir));
    expect(without).not.toContain("SEAL");
    expect(codes(withKey(dir))).toEqual([...without, "SEAL"].sort());
  });

  it("every file rewritten consistently after sealing (the writer §8 is about): valid without the key, SEAL with it", () => {
    const dir = writeBundle(fresh("rewrite"), death());
    sealWith(KEY, dir);
    writeFiles(dir, victory()); // a loss rewritten as a win, chain, summary and snapshot all consistent
    expect(noKey(dir)).toMatchObject({ validity: "valid", victory: true });
    const keyed = withKey(dir);
    expect(codes(keyed)).toEqual(["SEAL"]);
    expect(keyed.victory).toBeNull();
  });

  it("one byte of an extra opaque file changed after sealing: SEAL, and only SEAL", () => {
    const dir = writeBundle(fresh("extra-byte"), { ...death(), "notes/run.log": "step 1 ok\n" });
    sealWith(KEY, dir);
    expect(codes(withKey(dir))).toEqual([]);
    writeFileSync(join(dir, "notes/run.log"), "step 1 oK\n");
    expect(codes(withKey(dir))).toEqual(["SEAL"]);
    expect(noKey(dir).validity).toBe("valid");
  });

  it("a world bundle: sealed, it keeps its dimensions and pass; unsealed, it is invalid with neither", () => {
    const sealed = writeBundle(fresh("world-sealed"), worldBundle());
    sealWith(KEY, sealed);
    expect(withKey(sealed)).toMatchObject({ validity: "valid", pass: true });
    expect(withKey(sealed).dimensions).not.toBeNull();
    const bare = writeBundle(fresh("world-bare"), worldBundle());
    expect(noKey(bare)).toMatchObject({ validity: "valid", pass: true });
    const e = withKey(bare);
    expect(codes(e)).toEqual(["SEAL"]);
    expect(e).toMatchObject({ validity: "invalid", pass: null, dimensions: null });
  });

  describe("a malformed seal.json: §2 problems keep their codes, every other shape problem is SEAL", () => {
    const good = (dir: string) => JSON.parse(sealBytes(KEY, dir)) as { format: string; alg: string; mac: string };
    const cases: [string, (dir: string) => string | Buffer, string[]][] = [
      ["not JSON", () => "{", ["JSON_SYNTAX"]],
      ["empty", () => "", ["JSON_SYNTAX"]],
      [
        "a duplicate key",
        (d) => `{"format":"assay.seal/1","alg":"HMAC-SHA256","mac":"${good(d).mac}","mac":"${good(d).mac}"}`,
        ["JSON_DUPLICATE_KEY"],
      ],
      [
        "a byte order mark",
        (d) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sealBytes(KEY, d))]),
        ["ENCODING"],
      ],
      ["a raw \\r", (d) => sealBytes(KEY, d).replace("\n", "\r\n"), ["ENCODING"]],
      ["an array", (d) => JSON.stringify([good(d)]), ["SEAL"]],
      ["no mac", (d) => JSON.stringify({ format: "assay.seal/1", alg: "HMAC-SHA256" }), ["SEAL"]],
      ["an unknown key", (d) => JSON.stringify({ ...good(d), key_id: "x" }), ["SEAL"]],
      ["another format", (d) => JSON.stringify({ ...good(d), format: "assay.seal/2" }), ["SEAL"]],
      ["another alg", (d) => JSON.stringify({ ...good(d), alg: "HMAC-SHA512" }), ["SEAL"]],
      ["the mac in upper case", (d) => JSON.stringify({ ...good(d), mac: good(d).mac.toUpperCase() }), ["SEAL"]],
      ["a mac one digit short", (d) => JSON.stringify({ ...good(d), mac: good(d).mac.slice(1) }), ["SEAL"]],
      ["a mac that is a number", (d) => JSON.stringify({ ...good(d), mac: 1 }), ["SEAL"]],
      ["a mac of another digest", (d) => JSON.stringify({ ...good(d), mac: sha("other") }), ["SEAL"]],
      ["5000 bytes (a valid seal padded with spaces)", (d) => sealBytes(KEY, d) + " ".repeat(5000), ["SEAL"]],
      // The other side of the line: §2 allows spaces and line breaks around the value, and key order is free.
      [
        "spaces, line breaks and another key order",
        (d) => `\n  ${JSON.stringify({ mac: good(d).mac, alg: "HMAC-SHA256", format: "assay.seal/1" }, null, 2)} \n\n`,
        [],
      ],
    ];
    it.each(cases)("%s", (_, seal, expected) => {
      const dir = writeBundle(fresh("shape"), death());
      writeFileSync(join(dir, "seal.json"), seal(dir));
      const e = withKey(dir);
      expect(codes(e)).toEqual(expected);
      expect(e.errors.every((f) => f.file === "seal.json")).toBe(true);
      expect(e.validity).toBe(expected.length === 0 ? "valid" : "invalid");
      expect(noKey(dir).validity).toBe("valid"); // without a key seal.json is not read
    });
  });

  it("seal.json that is a folder, or a symbolic link to a good seal, is no seal", () => {
    const folder = writeBundle(fresh("seal-dir"), death());
    mkdirSync(join(folder, "seal.json"));
    expect(codes(withKey(folder))).toEqual(["SEAL"]);
    expect(withKey(folder).errors[0]!.message).toMatch(/not a regular file/);
    const link = writeBundle(fresh("seal-link"), death());
    writeFileSync(join(tmp, `good-seal-${n}`), sealBytes(KEY, link));
    symlinkSync(join(tmp, `good-seal-${n}`), join(link, "seal.json"));
    expect(sealFindings(withKey(link))).toEqual(["UNSAFE_PATH", "SEAL"]);
  });

  it("Harbor trials carry no seal: a key changes nothing there", () => {
    const dir = writeTrial(fresh("trial"), { name: "trial-a" });
    const harbor = (key?: Buffer) => scoreDirectory(dir, dir, undefined, "harbor", { hmacKey: key });
    expect(harbor(KEY)).toEqual(harbor());
    expect(harbor(KEY).validity).toBe("valid");
  });
});

// ---------------------------------------------------------------------------------------------

describe("the key file", () => {
  let root: string;
  beforeAll(() => {
    root = fresh("keyroot");
    writeBundle(join(root, "b1"), death());
  });
  const score = (file: string) => spawnCli(["score", root, "--hmac-key-file", file, "--quiet"]);
  const refused = (file: string, why: RegExp, content?: string) => {
    const r = score(file);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^assay score: --hmac-key-file ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: `),
    );
    expect(lines[0]).toMatch(why);
    if (content !== undefined) expect(r.stderr).not.toContain(content);
  };

  it("refused in one line naming the path, never the content: missing, a folder, empty, over 64 KiB, inside a root", () => {
    refused(join(tmp, "keys", "no-such-key"), /no such file/);
    refused(join(tmp, "keys"), /folder/);
    const empty = join(fresh("k"), "empty.key");
    writeFileSync(empty, "");
    refused(empty, /empty/);
    const big = join(fresh("k"), "big.key");
    writeFileSync(big, "Q7ZK".repeat(16 * 1024) + "X");
    refused(big, /larger than 65536 bytes/, "Q7ZK");
    const inside = join(root, "b1", "inside.key");
    writeFileSync(inside, "Q7ZK-inside");
    refused(inside, /inside .*being read/, "Q7ZK");
    rmSync(inside);
  });

  it('accepted from 1 byte to exactly 64 KiB; the fingerprint is HMAC-SHA256(key, "assay.key-id")', () => {
    for (const bytes of [Buffer.from("k"), Buffer.alloc(64 * 1024, "Q")]) {
      const file = join(fresh("k"), "ok.key");
      writeFileSync(file, bytes, { mode: 0o600 });
      const r = spawnCli(["score", root, "--hmac-key-file", file, "--quiet", "--format", "json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      expect((JSON.parse(r.stdout) as Results).run.options.hmac_key).toBe(fingerprint(bytes));
    }
  });

  it("anything but a regular file is refused at once: a pipe, a FIFO no one writes to (it would block forever), a device", () => {
    const piped = spawnSync(
      "bash",
      [
        "-c",
        `exec "${process.execPath}" "${CLI}" score "${root}" --quiet --format json --hmac-key-file <(printf 'piped-key')`,
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(piped.status, piped.stderr).toBe(2);
    expect(piped.stderr).toMatch(
      /--hmac-key-file \/dev\/fd\/\d+: it is a FIFO \(a named pipe\), not a key file: a key is read from a regular file\n$/,
    );
    const fifo = join(fresh("k"), "fifo.key");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // Without the check, the open waits for a writer that never comes: the timeout would kill it (status null).
    const r = spawnCli(["score", root, "--quiet", "--hmac-key-file", fifo], { timeout: 30_000 });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `assay score: --hmac-key-file ${fifo}: it is a FIFO (a named pipe), not a key file: a key is read from a regular file\n`,
    );
    refused("/dev/zero", /it is a character device, not a key file/);
    // A link to a regular key is followed; one to a FIFO is not read.
    const linked = join(fresh("k"), "linked.key");
    symlinkSync(fifo, linked);
    refused(linked, /it is a FIFO/);
  });

  it("a key others may read works, with one warning line that names neither the key nor its path", () => {
    const file = join(fresh("k"), "loose.key");
    writeFileSync(file, KEY, { mode: 0o644 });
    const r = spawnCli(["score", root, "--hmac-key-file", file, "--quiet", "--format", "json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "assay: the --hmac-key-file can be read by anyone (mode 0644): whoever reads it can make seals and documents assay accepts (chmod 600 it)\n",
    );
    expect((JSON.parse(r.stdout) as Results).run.options.hmac_key).toBe(fingerprint(KEY));
    const group = join(fresh("k"), "group.key");
    writeFileSync(group, KEY, { mode: 0o640 });
    expect(spawnCli(["score", root, "--hmac-key-file", group, "--quiet"]).stderr).toBe(
      "assay: the --hmac-key-file can be read by its group (mode 0640): whoever reads it can make seals and documents assay accepts (chmod 600 it)\n",
    );
  });

  it("run.options.hmac_key is null without a key", async () => {
    const r = await run(["score", root, "--quiet", "--format", "json"]);
    expect((JSON.parse(r.stdout) as Results).run.options.hmac_key).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------

describe("without a key, seals are not checked, and that is said once", () => {
  let root: string;
  const NOTE = "assay: 2 bundles hold seal.json; their seals were not checked (give --hmac-key-file to check them)\n";
  beforeAll(() => {
    root = fresh("unchecked");
    sealWith(KEY, writeBundle(join(root, "sealed-good"), death("t1")));
    writeFileSync(join(writeBundle(join(root, "sealed-bad"), death("t2")), "seal.json"), "not a seal");
    writeBundle(join(root, "plain"), death("t3"));
    writeFileSync(join(writeTrial(join(root, "trial"), { name: "trial" }), "seal.json"), "{}"); // a Harbor trial: not counted
  });
  const notes = (stderr: string) => stderr.split("\n").filter((l) => l.includes("seal.json")).length;

  it("score: the note once at the end, the bundles valid, the exit code unaffected; with --store, stored bundles count too", () => {
    const plain = spawnCli(["score", root, "--quiet", "--format", "json"]); // no store: the workers list, and say which bundles hold a seal
    expect([plain.code, plain.stderr]).toEqual([0, NOTE]);
    const store = join(fresh("db"), "s.sqlite");
    for (const pass of [1, 2]) {
      const r = spawnCli(["score", root, "--quiet", "--format", "json", "--fail-on", "invalid", "--store", store]);
      expect(r.code, `pass ${pass}: ${r.stderr}`).toBe(0);
      expect(r.stderr.endsWith(NOTE)).toBe(true);
      expect(notes(r.stderr)).toBe(1);
      expect((JSON.parse(r.stdout) as Results).bundles.every((b) => b.validity === "valid")).toBe(true);
    }
  });

  it("with the key, no note (the seals are checked: the bad one is not JSON, the absent one SEAL)", async () => {
    const r = await run(["score", root, "--quiet", "--format", "json", "--hmac-key-file", keyFile]);
    expect(notes(r.stderr)).toBe(0);
    const doc = JSON.parse(r.stdout) as Results;
    const by = (p: string) => codes(doc.bundles.find((b) => b.path === `${root}/${p}`)!);
    expect([by("sealed-good"), by("sealed-bad"), by("plain"), by("trial")]).toEqual([
      [],
      ["JSON_SYNTAX"],
      ["SEAL"],
      [],
    ]);
  });

  it("one bundle is said in the singular; none, not at all", async () => {
    const one = fresh("one");
    sealWith(KEY, writeBundle(join(one, "b"), death()));
    expect((await run(["score", one, "--quiet"])).stderr).toBe(
      "assay: 1 bundle holds seal.json; its seal was not checked (give --hmac-key-file to check it)\n",
    );
    rmSync(join(one, "b", "seal.json"));
    expect((await run(["score", one, "--quiet"])).stderr).toBe("");
  });
});

// ---------------------------------------------------------------------------------------------

describe("the store keys on the key's fingerprint", () => {
  const BASE = { schedules: [], ...DEFAULT_BATCH, jobs: 1 } satisfies ScoreRunOptions;
  async function scoreWith(root: string, file: string, key?: Buffer) {
    const store = new ResultStore(file, storeOptions(key));
    const cached: string[] = [];
    try {
      const results = await scoreRoots([root], {
        ...BASE,
        store,
        hmacKey: key,
        progress: { done: (e, _b, c) => void (c && cached.push(e.path)) },
      });
      return { results, cached, codes: results.bundles.map(codes) };
    } finally {
      store.close();
    }
  }

  it("a result stored without a key is not served to a run with one, nor the reverse", async () => {
    const root = fresh("store-a");
    writeBundle(join(root, "b"), death());
    const file = join(fresh("db"), "s.sqlite");
    expect(await scoreWith(root, file)).toMatchObject({ cached: [], codes: [[]] });
    expect(await scoreWith(root, file, KEY)).toMatchObject({ cached: [], codes: [["SEAL"]] });
    expect(await scoreWith(root, file)).toMatchObject({ cached: [`${root}/b`], codes: [[]] });
    expect(await scoreWith(root, file, KEY)).toMatchObject({ cached: [`${root}/b`], codes: [["SEAL"]] });
  });

  it("nor across two keys", async () => {
    const root = fresh("store-b");
    sealWith(KEY, writeBundle(join(root, "b"), death()));
    const file = join(fresh("db"), "s.sqlite");
    expect(await scoreWith(root, file, KEY)).toMatchObject({ cached: [], codes: [[]] });
    expect(await scoreWith(root, file, OTHER)).toMatchObject({ cached: [], codes: [["SEAL"]] });
    expect(await scoreWith(root, file, KEY)).toMatchObject({ cached: [`${root}/b`], codes: [[]] });
  });

  it("a store opened for another key is refused by the run", async () => {
    const store = new ResultStore(join(fresh("db"), "s.sqlite"));
    try {
      await expect(scoreRoots([fresh("empty")], { ...BASE, store, hmacKey: KEY })).rejects.toThrow(
        /another key than this run's/,
      );
    } finally {
      store.close();
    }
  });

  it("through the pool (--jobs 2): the rerun takes every bundle from the store, with the same verdicts", () => {
    const root = fresh("pool");
    for (let i = 0; i < 6; i++) {
      const dir = writeBundle(join(root, `b${i}`), i % 3 === 0 ? victory(`t${i}`) : death(`t${i}`));
      if (i !== 4) sealWith(KEY, dir);
    }
    const store = join(fresh("db"), "s.sqlite");
    const args = ["score", root, "--jobs", "2", "--store", store, "--hmac-key-file", keyFile, "--format", "json"];
    const env = { ASSAY_STATUS_SECONDS: "3600" };
    const first = spawnCli(args, { env });
    const second = spawnCli(args, { env });
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(first.stderr).toMatch(/\(0 from store\)/);
    expect(second.stderr).toMatch(/6\/6 bundles \(6 from store\)/);
    const docs = [first, second].map((r) => JSON.parse(r.stdout) as Results);
    expect(docs[1]!.bundles).toEqual(docs[0]!.bundles);
    expect(docs[0]!.bundles.map(codes)).toEqual([[], [], [], [], ["SEAL"], []]);
    expect(docs[0]!.run.options.hmac_key).toBe(fingerprint(KEY));
  });
});

// ---------------------------------------------------------------------------------------------

describe("the analysis cache key", () => {
  const base: KeyParts = {
    request: "x".repeat(64),
    evidence: "e".repeat(64),
    rubric: "r".repeat(64),
    prompt: "p".repeat(64),
    model: "claude-x",
    sampling: { max_tokens: 4096 },
    repeat: 0,
  };

  it("is unchanged without a key (recorded before seals existed) and differs with one, and between keys", () => {
    expect(cacheKey(base)).toBe("d431ed31b5880eca0a2d99905424cb349236ef70fcb763eeeca32e65da2f8614");
    const a = cacheKey({ ...base, hmac_key: fingerprint(KEY) });
    const b = cacheKey({ ...base, hmac_key: fingerprint(OTHER) });
    expect(new Set([cacheKey(base), a, b]).size).toBe(3);
  });

  describe("through analyze against a fake Messages API", () => {
    const fake = FakeMessagesApi.forTests();
    const CRITERIA = ["reward_hacking", "instruction_sufficiency", "outcome_matches_work", "environment_interference"];
    const answer = {
      summary: "fine",
      criteria: Object.fromEntries(CRITERIA.map((c) => [c, { outcome: "pass", explanation: `${c}: checked` }])),
    };

    it("answers cached with a key are hits with that key only; those cached without one still hit without one", async () => {
      const root = fresh("analyze");
      sealWith(KEY, writeBundle(join(root, "b"), death()));
      const cache = join(fresh("cache"), "assay.sqlite");
      const env = { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: fake.url, ASSAY_CACHE: cache };
      const analyze = async (...flags: string[]) => {
        const r = await run(["analyze", root, "--format", "json", "--quiet", "--max-retries", "0", ...flags], env);
        return { ...r, advisory: (JSON.parse(r.stdout) as Results).bundles[0]!.advisory! };
      };
      fake.fallback = () => toolUseReply("record_assessment", answer);
      try {
        const keyed = await analyze("--hmac-key-file", keyFile);
        expect([keyed.code, keyed.advisory.status, keyed.advisory.cached, fake.requests.length]).toEqual([
          0,
          "analysed",
          false,
          1,
        ]);
        expect((await analyze("--offline", "--hmac-key-file", keyFile)).advisory).toMatchObject({
          status: "analysed",
          cached: true,
        });
        const plainOffline = await analyze("--offline");
        expect(plainOffline.advisory).toMatchObject({
          status: "not-analysed",
          reason: expect.stringMatching(/^not in cache/),
        });
        expect(plainOffline.stderr).toBe(
          "assay: 1 bundle holds seal.json; its seal was not checked (give --hmac-key-file to check it)\n",
        );
        await analyze(); // asks again: a new row without the key
        expect(fake.requests.length).toBe(2);
        expect((await analyze("--offline")).advisory).toMatchObject({ status: "analysed", cached: true });
      } finally {
        fake.fallback = errorReply(500, "api_error", "no scripted reply");
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("merge checks the shards' key", () => {
  let root: string;
  let dir: string;
  const shards = (tag: string, ...key: string[]) =>
    [0, 1].map((i) => {
      const out = join(dir, `${tag}-${i}.json`);
      const r = spawnCli(["score", root, "--shard", `${i}/2`, "--out", out, "--quiet", ...key]);
      expect(r.code, r.stderr).toBe(0);
      return out;
    });
  beforeAll(() => {
    root = fresh("merge");
    for (let i = 0; i < 6; i++) sealWith(KEY, writeBundle(join(root, `b${i}`), death(`t${i}`)));
    dir = fresh("shards");
  });

  it("with the key every shard was scored with: merged, carrying its fingerprint; another key or none: one line naming the shard", async () => {
    const keyed = shards("keyed", "--hmac-key-file", keyFile);
    const plain = shards("plain");
    const ok = await run(["merge", ...keyed, "--hmac-key-file", keyFile, "--format", "json"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect((JSON.parse(ok.stdout) as Results).run.options.hmac_key).toBe(fingerprint(KEY));
    expect(
      (JSON.parse((await run(["merge", ...keyed, "--format", "json"])).stdout) as Results).run.options.hmac_key,
    ).toBe(fingerprint(KEY));

    const other = spawnCli(["merge", ...keyed, "--hmac-key-file", otherFile]);
    expect(other.code).toBe(2);
    expect(other.stderr).toBe(
      `assay merge: ${keyed[0]} was scored with another key (fingerprint ${fingerprint(KEY)}, not ${fingerprint(OTHER)})\n`,
    );
    const none = spawnCli(["merge", ...plain, "--hmac-key-file", keyFile]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(new RegExp(`^assay merge: ${plain[0]} was scored without this key[^\\n]*\\n$`));
    const mixed = spawnCli(["merge", keyed[0]!, plain[1]!, "--hmac-key-file", keyFile]);
    expect(mixed.stderr).toMatch(new RegExp(`^assay merge: ${plain[1]} was scored without this key`));
    const mixedNoKey = spawnCli(["merge", keyed[0]!, plain[1]!]);
    expect([mixedNoKey.code, mixedNoKey.stderr]).toEqual([2, expect.stringMatching(/was scored with other options/)]);
    expect((await run(["merge", ...plain, "--format", "json"])).code).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------

describe("verify says what became of the seal", () => {
  it("not checked without a key; matches with the key; does not match with another (exit 1)", async () => {
    const dir = writeBundle(fresh("verify"), death());
    sealWith(KEY, dir);
    const plain = await run(["verify", dir]);
    expect([plain.code, plain.stdout]).toEqual([
      0,
      expect.stringContaining("  seal     seal.json not checked (give --hmac-key-file to check it)\n"),
    ]);
    const good = await run(["verify", dir, "--hmac-key-file", keyFile]);
    expect([good.code, good.stdout]).toEqual([
      0,
      expect.stringContaining(`  seal     checked with the key of fingerprint ${fingerprint(KEY)}: matches\n`),
    ]);
    const bad = spawnCli(["verify", dir, "--hmac-key-file", otherFile]);
    expect([bad.code, bad.stdout]).toEqual([1, expect.stringContaining(": does NOT match")]);
    expect(bad.stdout).toMatch(/error +SEAL +seal\.json/);
    const json = await run(["verify", dir, "--json", "--hmac-key-file", otherFile]);
    expect(codes(JSON.parse(json.stdout) as BundleEntry)).toEqual(["SEAL"]); // stdout stays one document
    expect(json.stderr).toMatch(/^assay verify: checked with the key of fingerprint [0-9a-f]{64}: does NOT match/);
    rmSync(join(dir, "seal.json"));
    expect((await run(["verify", dir])).stdout).not.toMatch(/^ {2}seal /m);
  });
});

// ---------------------------------------------------------------------------------------------

/** Every file below `dir` (seal.json aside) with its bytes and mtime. */
function snapshot(dir: string): Map<string, { bytes: string; mtime: number }> {
  return new Map(
    filesBelow(dir)
      .filter((p) => !p.endsWith("seal.json"))
      .map((p) => [p, { bytes: sha(readFileSync(join(dir, p))), mtime: statSync(join(dir, p)).mtimeMs }]),
  );
}

describe("assay seal", () => {
  let root: string;
  let anotherSeal: string;
  let alreadyMtime: number;
  beforeAll(() => {
    root = fresh("mixed");
    writeBundle(join(root, "valid-ended"), death("t1"));
    writeBundle(join(root, "world-ended"), worldBundle());
    writeBundle(
      join(root, "invalid"),
      bundle(game({ ...who("t2"), states: [live(), killed()] }), { summary: { victory: true } }),
    );
    writeBundle(join(root, "unterminated"), unterminated("t3"));
    sealWith(KEY, writeBundle(join(root, "already"), death("t4")));
    anotherSeal = sealBytes(OTHER, writeBundle(join(root, "other-seal"), death("t5")));
    writeFileSync(join(root, "other-seal", "seal.json"), anotherSeal);
    writeTrial(join(root, "harbor-trial"), { name: "harbor-trial" });
    // A writer killed mid-append: its last line has no \n.
    const torn = unterminated("t6");
    writeBundle(join(root, "torn"), {
      ...torn,
      "journal.jsonl": `${torn["journal.jsonl"] as string}{"seq":2,"prev":"`,
    });
    symlinkSync("journal.jsonl", join(writeBundle(join(root, "unsafe"), death("t7")), "link"));
    alreadyMtime = statSync(join(root, "already", "seal.json")).mtimeMs;
  });

  it("seals every bundle whose files it can read, whatever its verdict, and writes nothing else; says why another is not sealed; exit 1", () => {
    const before = snapshot(root);
    const r = spawnCli(["seal", root, "--hmac-key-file", keyFile]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n").filter(Boolean)).toEqual([
      `assay seal: ${root}/other-seal: not sealed: seal.json holds another seal (left as it is)`,
      `assay seal: ${root}/unsafe: not sealed: its files cannot be read safely (UNSAFE_PATH: link)`,
      "assay seal: 1 Harbor trial skipped: Harbor trials carry no seal",
      `assay seal: 5 sealed, 1 already sealed, 2 not sealed (key fingerprint ${fingerprint(KEY)})`,
    ]);
    // What it wrote is exactly the seal, byte for byte; nothing else moved.
    for (const b of ["valid-ended", "world-ended", "already", "invalid", "unterminated", "torn"])
      expect(readFileSync(join(root, b, "seal.json"), "utf8")).toBe(sealBytes(KEY, join(root, b)));
    for (const b of ["harbor-trial", "unsafe"]) expect(existsSync(join(root, b, "seal.json"))).toBe(false);
    expect(readFileSync(join(root, "other-seal", "seal.json"), "utf8")).toBe(anotherSeal);
    expect(statSync(join(root, "already", "seal.json")).mtimeMs).toBe(alreadyMtime);
    expect(snapshot(root)).toEqual(before);
    // And score with the key agrees: the sealed ones pass the seal, and the seal changed no verdict
    // (the invalid one keeps its own code, the killed runs stay unterminated, to be retried).
    const scored = spawnCli(["score", root, "--hmac-key-file", keyFile, "--format", "json", "--quiet"]);
    const by = (p: string) => (JSON.parse(scored.stdout) as Results).bundles.find((b) => b.path === `${root}/${p}`)!;
    expect(
      ["valid-ended", "world-ended", "already", "other-seal", "invalid", "unterminated", "torn"].map((p) =>
        codes(by(p)),
      ),
    ).toEqual([[], [], [], ["SEAL"], ["SUMMARY_MISMATCH"], [], []]);
    expect([by("unterminated").status, by("torn").status, by("torn").warnings.map((w) => w.code)]).toEqual([
      "unterminated",
      "unterminated",
      ["JOURNAL_TORN"],
    ]);
  });

  it("an Inspect log is skipped as the one file it is, not scored as a folder (that was exit 3)", () => {
    const dir = fresh("with-log");
    writeBundle(join(dir, "b"), death("t1"));
    const log = "2025-05-12T20-28-13-04-00_popularity.json";
    writeFileSync(join(dir, log), readFileSync(new URL(`./fixtures/inspect/${log}`, import.meta.url)));
    const r = spawnCli(["seal", dir, "--hmac-key-file", keyFile]);
    expect([r.code, r.stderr]).toEqual([
      0,
      `assay seal: 1 Inspect log skipped: a log is one file and carries no seal\nassay seal: 1 sealed, 0 already sealed, 0 not sealed (key fingerprint ${fingerprint(KEY)})\n`,
    ]);
  });

  it("a killed run, sealed, then given a made-up ending: SEAL with the key (the edit a seal exists to catch)", () => {
    const dir = writeBundle(fresh("completed-later"), unterminated("t8"));
    expect(spawnCli(["seal", dir, "--hmac-key-file", keyFile, "--quiet"]).code).toBe(0);
    expect(withKey(dir)).toMatchObject({ validity: "valid", status: "unterminated" });
    // The harness's own ending written in afterwards: chained and summarised consistently, so
    // only the seal can tell.
    const ended = death("t8");
    writeFiles(dir, ended);
    expect(codes(noKey(dir))).toEqual([]);
    expect(sealFindings(withKey(dir))).toEqual(["SEAL"]);
  });

  it("exit 0 when every bundle is sealed or already sealed; a root may be a bundle; --quiet says nothing then", () => {
    const r = spawnCli(["seal", join(root, "valid-ended"), join(root, "already"), "--hmac-key-file", keyFile]);
    expect([r.code, r.stderr]).toEqual([
      0,
      `assay seal: 0 sealed, 2 already sealed, 0 not sealed (key fingerprint ${fingerprint(KEY)})\n`,
    ]);
    const fresh1 = writeBundle(fresh("single"), death());
    const q = spawnCli(["seal", fresh1, "--hmac-key-file", keyFile, "--quiet"]);
    expect([q.code, q.stderr]).toEqual([0, ""]);
    expect(readFileSync(join(fresh1, "seal.json"), "utf8")).toBe(sealBytes(KEY, fresh1));
  });

  it("exit 3 when a seal cannot be written, naming the write's own error; nothing is left behind", () => {
    const dir = writeBundle(fresh("unwritable"), death());
    const before = readdirSync(dir).sort();
    // A file size limit of 0 (its signal ignored, so the write fails with EFBIG instead).
    const r = spawnSync(
      "sh",
      [
        "-c",
        `trap '' XFSZ; ulimit -f 0; exec "${process.execPath}" "${CLI}" seal "${dir}" --hmac-key-file "${keyFile}"`,
      ],
      { encoding: "utf8" },
    );
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      new RegExp(
        `^assay seal: ${dir}: not sealed: cannot write ${dir}/seal.json: the file size limit was reached \\(ulimit -f\\) \\(EFBIG\\)`,
      ),
    );
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it("usage: no key file, or no root, is exit 2 in one line", () => {
    for (const args of [
      ["seal", root],
      ["seal", "--hmac-key-file", keyFile],
    ]) {
      const r = spawnCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("the key and its path appear nowhere", () => {
  it("not in stdout, stderr, the results document or the store's bytes, for seal, score, verify and merge", () => {
    const root = fresh("leak");
    for (let i = 0; i < 3; i++) writeBundle(join(root, `b${i}`), death(`t${i}`));
    writeBundle(join(root, "u"), unterminated("t9"));
    const dbDir = fresh("db");
    const store = join(dbDir, "s.sqlite");
    const out = join(fresh("out"), "results.json");
    const shardOut = join(fresh("out"), "shard.json");
    const outputs = [
      spawnCli(["seal", root, "--hmac-key-file", keyFile]),
      spawnCli(["score", root, "--hmac-key-file", keyFile, "--store", store, "--out", out]),
      spawnCli(["score", root, "--hmac-key-file", keyFile, "--store", store, "--format", "json"]),
      spawnCli(["score", root, "--hmac-key-file", keyFile, "--shard", "0/1", "--out", shardOut, "--quiet"]),
      spawnCli(["verify", join(root, "b0"), "--hmac-key-file", keyFile]),
      spawnCli(["verify", join(root, "b0"), "--json", "--hmac-key-file", keyFile]),
      spawnCli(["merge", shardOut, "--hmac-key-file", keyFile, "--format", "json"]),
    ];
    expect(outputs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0, 0]); // the unterminated bundle is sealed too (§8 revision 2)
    const texts = [
      ...outputs.flatMap((r) => [r.stdout, r.stderr]),
      readFileSync(out, "utf8"),
      readFileSync(shardOut, "utf8"),
    ];
    const binaries = readdirSync(dbDir).map((f) => readFileSync(join(dbDir, f)));
    expect(binaries.length).toBeGreaterThan(0);
    const secrets = [KEY.toString("utf8"), KEY.toString("hex"), KEY.toString("base64"), KEY_NAME, keyFile];
    for (const s of secrets) {
      for (const t of texts) expect(t.includes(s), `${s} in output`).toBe(false);
      for (const b of binaries) expect(b.includes(s), `${s} in the store`).toBe(false);
    }
    expect(texts.join("").includes(fingerprint(KEY))).toBe(true); // the fingerprint names it instead
  });
});
