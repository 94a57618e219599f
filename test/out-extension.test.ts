// `--out FILE` picks the format by its extension when --format is not given (issue 15): .json,
// .jsonl, .html, .xml (JUnit), .md; any other name gets the
// command's default, and an explicit --format wins. On score, analyze and merge alike.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCorpus } from "../src/io/corpus.js";
import { formatForFile } from "../src/report/index.js";
import { run, spawnCli } from "./helpers/cli.js";

let tmp: string;
let corpus: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "assay-out-ext-"));
  corpus = join(tmp, "corpus");
  writeCorpus(join(corpus, "game"), { n: 6, seed: "out-ext", faults: false });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Which format a written file is in, by its first bytes. */
function formatOf(file: string): string {
  const text = readFileSync(file, "utf8");
  if (text.startsWith("<?xml")) return "junit";
  if (text.startsWith("## assay results")) return "md";
  if (text.startsWith('{"type":"run"')) return "jsonl";
  if (text.startsWith('{\n  "format"')) return "json";
  if (text.startsWith("assay: ")) return "table";
  if (text.startsWith("<!doctype html>")) return "html";
  return "unknown";
}

describe("--out FILE picks the format by its extension", () => {
  it("maps each extension to its format, in any case, and only to a format that is registered", () => {
    expect(["r.json", "r.jsonl", "r.xml", "r.md", "R.XML", "dir.v2/r.Md"].map(formatForFile)).toEqual(["json", "jsonl", "junit", "md", "junit", "md"]);
    for (const f of ["r.txt", "r", "dir.json/r", ".json", "r.json.gz", "/dev/stdout", undefined]) expect(formatForFile(f), String(f)).toBeUndefined();
    expect(formatForFile("report.html")).toBe("html");
    expect(formatForFile("r.constructor")).toBeUndefined();
  });

  it("on score: each extension, the default for any other name, and --format wins over the extension", async () => {
    for (const [name, want] of [["r.json", "json"], ["r.jsonl", "jsonl"], ["r.xml", "junit"], ["r.md", "md"], ["r.html", "html"], ["R.XML", "junit"], ["r.txt", "table"], ["r", "table"]] as const) {
      const out = join(tmp, `score-${name}`);
      const r = await run(["score", corpus, "--out", out, "--quiet"]);
      expect(r.code, name).toBe(0);
      expect(formatOf(out), name).toBe(want);
    }
    const out = join(tmp, "explicit.md");
    expect((await run(["score", corpus, "--out", out, "--format", "json", "--quiet"])).code).toBe(0);
    expect(formatOf(out)).toBe("json");
  });

  it("on analyze (offline, from an empty cache)", async () => {
    const out = join(tmp, "analyze.xml");
    const r = await run(["analyze", corpus, "--offline", "--cache", join(tmp, "cache.sqlite"), "--out", out, "--quiet"], {});
    expect(r.code).toBe(0);
    expect(formatOf(out)).toBe("junit");
  });

  it("on merge", async () => {
    const shards = [0, 1].map((i) => join(tmp, `shard-${i}.jsonl`));
    for (const [i, s] of shards.entries()) expect((await run(["score", corpus, "--shard", `${i}/2`, "--out", s, "--quiet"])).code).toBe(0);
    expect(shards.map(formatOf)).toEqual(["jsonl", "jsonl"]);
    const out = join(tmp, "merged.md");
    expect((await run(["merge", ...shards, "--out", out])).code).toBe(0);
    expect(formatOf(out)).toBe("md");
    const table = join(tmp, "merged.out");
    expect((await run(["merge", ...shards, "--out", table])).code).toBe(0);
    expect(formatOf(table)).toBe("table");
  });

  it("a shard is JSON or JSON Lines for merge: --out shard.md is refused in one line, exit 2, before any scoring", () => {
    const out = join(tmp, "shard.md");
    const r = spawnCli(["score", corpus, "--shard", "0/2", "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("assay score: --shard writes bundle entries for assay merge: use --format json or jsonl\n");
    expect(() => readFileSync(out)).toThrow();
    const junit = spawnCli(["score", corpus, "--shard", "0/2", "--format", "junit"]);
    expect(junit.code).toBe(2);
    // A name without a format's extension keeps the shard's default, JSON.
    const plain = join(tmp, "shard-0.out");
    expect(spawnCli(["score", corpus, "--shard", "0/2", "--out", plain, "--quiet"]).code).toBe(0);
    expect(formatOf(plain)).toBe("json");
  });
});
