// Cache management (issue 7, item 4): stats (rows, size, the last run's hit rate and the cost its
// hits saved), prune by age and model, export as JSONL with provenance — on real SQLite files, with
// the real SDK against the fake Messages API filling them, and while another connection reads.

import Database from "better-sqlite3";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./helpers/cli.js";
import { errorReply, FakeMessagesApi, toolUseReply } from "./helpers/fake-anthropic.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const KEY = "sk-ant-cache-test-key-0123456789";
const CRITERIA = [
  "behaviour_specified",
  "behaviour_tested",
  "anti_cheating",
  "pinned_dependencies",
  "no_hardcoded_solution",
  "deterministic_tests",
];
const answer = {
  summary: "ok",
  criteria: Object.fromEntries(CRITERIA.map((c) => [c, { outcome: "pass", explanation: "checked" }])),
};

const fake = FakeMessagesApi.forTests();
const { dir: tmp } = scratch("assay-cache-", SCRATCH);
let cache: string;
let dirs: string[];
const env = () => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url, ASSAY_CACHE: cache });

beforeAll(async () => {
  fake.fallback = toolUseReply("record_assessment", answer, { usage: { input_tokens: 2000, output_tokens: 500 } });
  cache = join(tmp, "cache", "assay.sqlite");
  dirs = [0, 1, 2].map((i) => {
    const d = join(tmp, `task-${i}`);
    mkdirSync(d);
    writeFileSync(join(d, "instruction.md"), `Task ${i}.\n`);
    return d;
  });
  await run(["check-task", ...dirs, "--price", "claude-sonnet-5-5=3,15"], env());
});
afterAll(() => {
  fake.fallback = errorReply(500, "api_error", "no scripted reply");
});

describe("assay cache stats", () => {
  it("counts rows per analysis and model, and the last run's hit rate and the cost its hits saved", async () => {
    const first = JSON.parse((await run(["cache", "stats", "--json"], env())).stdout);
    expect(first).toMatchObject({
      rows: 3,
      byAnalysis: [{ analysis: "task-quality", model: "claude-sonnet-5-5", rows: 3 }],
    });
    expect(first.lastRun).toMatchObject({ command: "check-task", hits: 0, asked: 3, saved_usd: 0 });
    expect(first.lastRun.cost_usd).toBeCloseTo((3 * (2000 * 3 + 500 * 15)) / 1e6, 9);
    expect(first.bytes).toBeGreaterThan(0);
    await run(["check-task", ...dirs, "--price", "claude-sonnet-5-5=3,15"], env());
    const second = JSON.parse((await run(["cache", "stats", "--json"], env())).stdout);
    expect(second.lastRun).toMatchObject({ hits: 3, asked: 0, cost_usd: 0 });
    expect(second.lastRun.saved_usd).toBeCloseTo(first.lastRun.cost_usd, 9);
    expect((await run(["cache", "stats"], env())).stdout).toMatch(/hit rate 100\.0% \(3 from the cache, 0 asked/);
  });

  it("of a cache that does not exist, or of a file that is not one: a one-line error (exit 2), never '0 answers', and nothing is created", async () => {
    const none = join(tmp, "none", "x.sqlite");
    for (const sub of [
      ["stats", "--json"],
      ["stats"],
      ["prune", "--older-than", "1d"],
      ["export", join(tmp, "export-of-none.jsonl")],
    ]) {
      const r = await run(["cache", ...sub, "--cache", none]);
      expect(r.code, sub.join(" ")).toBe(2);
      expect(r.stderr).toMatch(
        /^assay cache: no analysis cache at .*none\/x\.sqlite \(--cache FILE or ASSAY_CACHE names it\)\n$/,
      );
      expect(r.stdout).toBe("");
    }
    expect(() => readFileSync(none)).toThrow();
    expect(() => readFileSync(join(tmp, "export-of-none.jsonl"))).toThrow();
    const notCache = join(tmp, "not-a-cache.sqlite");
    writeFileSync(notCache, "answers: none\n");
    for (const sub of [["stats"], ["prune", "--older-than", "1d"]]) {
      const r = await run(["cache", ...sub, "--cache", notCache]);
      expect(r.code, sub.join(" ")).toBe(2);
      expect(r.stderr).toMatch(
        /^assay cache: .*not-a-cache\.sqlite (is not an analysis cache|cannot be used as the analysis cache: file is not a database)\n$/,
      );
    }
    expect(readFileSync(notCache, "utf8")).toBe("answers: none\n");
  });
});

describe("assay cache export and prune", () => {
  it("export writes every answer as JSONL with its provenance, never the key, even while another connection writes", async () => {
    const holder = new Database(cache);
    holder.prepare("BEGIN IMMEDIATE").run(); // a writer holds the lock: readers go on (WAL)
    try {
      const out = join(tmp, "export.jsonl");
      expect((await run(["cache", "export", out], env())).code).toBe(0);
      const rows = readFileSync(out, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rows).toHaveLength(3);
      for (const r of rows)
        expect(r).toMatchObject({
          analysis: "task-quality",
          model: "claude-sonnet-5-5",
          answer: { summary: "ok" },
          provenance: { request_id: expect.any(String), input_tokens: 2000 },
        });
      expect(readFileSync(out, "utf8")).not.toContain(KEY);
    } finally {
      holder.prepare("ROLLBACK").run();
      holder.close();
    }
  });

  it("prune --older-than deletes only older answers (of one model with --model), while another connection reads", async () => {
    const db = new Database(cache);
    const keys = db.prepare("SELECT key FROM answers ORDER BY key").all() as { key: string }[];
    db.prepare("UPDATE answers SET created_at = ?, model = ? WHERE key = ?").run(
      "2020-01-01T00:00:00.000Z",
      "old-model",
      keys[0]!.key,
    );
    db.prepare("UPDATE answers SET created_at = ? WHERE key = ?").run("2020-01-01T00:00:00.000Z", keys[1]!.key);
    const reader = new Database(cache, { readonly: true });
    reader.prepare("BEGIN").run();
    expect((reader.prepare("SELECT count(*) AS n FROM answers").get() as { n: number }).n).toBe(3); // an open read
    try {
      expect((await run(["cache", "prune", "--older-than", "30d", "--model", "old-model"], env())).stdout).toMatch(
        /pruned 1 answers/,
      );
      expect((await run(["cache", "prune", "--older-than", "30d"], env())).stdout).toMatch(/pruned 1 answers/);
      expect((reader.prepare("SELECT count(*) AS n FROM answers").get() as { n: number }).n).toBe(3); // its snapshot stands
    } finally {
      reader.prepare("COMMIT").run();
      reader.close();
      db.close();
    }
    expect(JSON.parse((await run(["cache", "stats", "--json"], env())).stdout).rows).toBe(1);
  });

  it.each([[["prune"]], [["prune", "--older-than", "soon"]], [["export"]], [["frobnicate"]]])(
    "usage errors: %j",
    async (args) => {
      expect((await run(["cache", ...args], env())).code).toBe(2);
    },
  );
});

describe("caches from before, offline runs, and prune's bounds", () => {
  it("a cache whose answers table predates created_at is migrated, its rows kept", async () => {
    const old = join(tmp, "old", "assay.sqlite");
    mkdirSync(join(tmp, "old"));
    const db = new Database(old);
    db.exec(
      "CREATE TABLE answers (key TEXT PRIMARY KEY, analysis TEXT NOT NULL, model TEXT NOT NULL, answer TEXT NOT NULL, provenance TEXT NOT NULL)",
    );
    db.prepare("INSERT INTO answers VALUES (?, ?, ?, ?, ?)").run(
      "k".repeat(64),
      "task-quality",
      "m",
      "{}",
      JSON.stringify({ created_at: "2025-01-02T00:00:00.000Z" }),
    );
    db.close();
    const stats = JSON.parse((await run(["cache", "stats", "--json", "--cache", old])).stdout);
    expect(stats.rows).toBe(1); // read-only: nothing migrated yet, and nothing broken
    expect((await run(["cache", "prune", "--older-than", "1d", "--cache", old])).stdout).toMatch(/pruned 1 answers/); // migrated from provenance, then pruned
  });

  it("an offline run records nothing and says nothing about it", async () => {
    const before = JSON.parse((await run(["cache", "stats", "--json"], env())).stdout).lastRun;
    const r = await run(["check-task", ...dirs, "--offline"], env());
    expect(r.stderr).not.toMatch(/could not record/);
    expect(JSON.parse((await run(["cache", "stats", "--json"], env())).stdout).lastRun).toEqual(before);
  });

  it("prune refuses an age past a century (exit 2), rather than an internal error", async () => {
    expect((await run(["cache", "prune", "--older-than", "999999d"], env())).code).toBe(2);
  });
});
