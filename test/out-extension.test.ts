// `--out FILE` picks the format by its extension when --format is not given (issue 15): .json,
// .jsonl, .html/.htm, .xml (JUnit), .md/.markdown; .txt or no extension gets the command's default.
// A --format the extension contradicts, an extension naming a format the command does not write,
// or (issue 23) one naming no format without --format, is a usage error. On score, analyze, merge and compare alike (compare's own in compare.test.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeCorpus } from "../src/io/corpus.js";
import { FORMAT_NAMES, formatForFile } from "../src/report/index.js";
import { run, spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-out-ext-");
let corpus: string;

beforeAll(() => {
  corpus = join(tmp, "corpus");
  writeCorpus(join(corpus, "game"), { n: 6, seed: "out-ext", faults: false });
});

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
  const all = (out: string | undefined, format?: string) =>
    formatForFile(out, { format, formats: FORMAT_NAMES, fallback: "table" });
  const compareOnly = (out: string | undefined, format?: string) =>
    formatForFile(out, { format, formats: ["table", "json", "md", "html"], fallback: "table" });

  it("maps each extension to its format, in any case; .txt or no extension to the command's default", () => {
    const named = ["r.json", "r.jsonl", "r.xml", "r.md", "R.XML", "dir.v2/r.Md", "report.html", "r.HTM", "r.markdown"];
    expect(named.map((f) => all(f))).toEqual(["json", "jsonl", "junit", "md", "junit", "md", "html", "html", "md"]);
    for (const f of ["r.txt", "r", "dir.json/r", ".json", "/dev/stdout", undefined])
      expect(all(f), String(f)).toBe("table");
  });

  it("a --format the extension agrees with, or that meets an unknown extension, is the format", () => {
    expect(all("r.json", "json")).toBe("json");
    expect(all("results.txt", "json")).toBe("json");
    expect(all(undefined, "md")).toBe("md");
  });

  it("a --format the extension contradicts is refused, naming both; so is an unknown --format", () => {
    expect(() => all("r.html", "json")).toThrow(/^--format json, but --out r\.html names html$/);
    expect(() => all("r.json", "jsonl")).toThrow(/^--format jsonl, but --out r\.json names json$/);
    expect(() => all("r", "yaml")).toThrow(/^--format must be one of json, jsonl, table, html, junit, md$/);
  });

  it("an extension naming a format the command does not write is refused, with or without --format", () => {
    expect(compareOnly("c.md")).toBe("md");
    expect(() => compareOnly("c.xml")).toThrow(
      /^--out c\.xml names junit, not a format this command writes \(table, json, md, html\)/,
    );
    expect(() => compareOnly("c.jsonl")).toThrow(/names jsonl, not a format this command writes/);
    expect(() => compareOnly("c.xml", "md")).toThrow(/^--format md, but --out c\.xml names junit$/);
  });

  it("on score: each extension, the default for any other name, and --format where no extension says otherwise", async () => {
    for (const [name, want] of [
      ["r.json", "json"],
      ["r.jsonl", "jsonl"],
      ["r.xml", "junit"],
      ["r.md", "md"],
      ["r.html", "html"],
      ["R.XML", "junit"],
      ["r.txt", "table"],
      ["r", "table"],
    ] as const) {
      const out = join(tmp, `score-${name}`);
      const r = await run(["score", corpus, "--out", out, "--quiet"]);
      expect(r.code, name).toBe(0);
      expect(formatOf(out), name).toBe(want);
    }
    const out = join(tmp, "results.txt");
    expect((await run(["score", corpus, "--out", out, "--format", "json", "--quiet"])).code).toBe(0);
    expect(formatOf(out)).toBe("json");
  });

  it("a --format the extension of --out contradicts is one line, exit 2, nothing written: score, analyze, merge", () => {
    const inputs = {
      score: [corpus, "--quiet"],
      analyze: [corpus, "--offline", "--cache", join(tmp, "cache-refused.sqlite"), "--quiet"],
      merge: [join(tmp, "no-such-shard.json")],
    };
    for (const [command, more] of Object.entries(inputs)) {
      const out = join(tmp, `${command}-contradicted.html`);
      const r = spawnCli([command, ...more, "--format", "json", "--out", out]);
      expect(r.code, command).toBe(2);
      expect(r.stderr, command).toBe(`assay ${command}: --format json, but --out ${out} names html\n`);
      expect(() => readFileSync(out), command).toThrow();
    }
  });

  it("on analyze (offline, from an empty cache)", async () => {
    const out = join(tmp, "analyze.xml");
    const r = await run(
      ["analyze", corpus, "--offline", "--cache", join(tmp, "cache.sqlite"), "--out", out, "--quiet"],
      {},
    );
    expect(r.code).toBe(0);
    expect(formatOf(out)).toBe("junit");
  });

  it("on merge", async () => {
    const shards = [0, 1].map((i) => join(tmp, `shard-${i}.jsonl`));
    for (const [i, s] of shards.entries())
      expect((await run(["score", corpus, "--shard", `${i}/2`, "--out", s, "--quiet"])).code).toBe(0);
    expect(shards.map(formatOf)).toEqual(["jsonl", "jsonl"]);
    const out = join(tmp, "merged.md");
    expect((await run(["merge", ...shards, "--out", out])).code).toBe(0);
    expect(formatOf(out)).toBe("md");
    const table = join(tmp, "merged.txt");
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
    // .txt names no format: the shard's default, JSON.
    const plain = join(tmp, "shard-0.txt");
    expect(spawnCli(["score", corpus, "--shard", "0/2", "--out", plain, "--quiet"]).code).toBe(0);
    expect(formatOf(plain)).toBe("json");
  });
});
