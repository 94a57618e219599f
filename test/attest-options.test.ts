// The options a statement signs beyond §15.4's five: --dataset (it changes SWE-bench entries) is
// signed when given, and a recount must be given the same file (OPTIONS_MISMATCH otherwise, before
// counting); a document a filter cut is refused (a recount of the roots could never reproduce it).
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Statement } from "../src/core/attest/statement.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const FIXTURE = new URL("./fixtures/swe-bench/run/", import.meta.url).pathname;
const { at } = scratch("assay-attest-options-");

async function ok(argv: string[]): Promise<string> {
  const r = await run(argv);
  expect(r.code, `${argv.join(" ")}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

describe("--dataset in a statement", () => {
  it("is signed when the document was scored with it; a recount needs the same file, and without it is refused before counting", async () => {
    const work = at("work");
    cpSync(join(FIXTURE, "work"), work, { recursive: true });
    const dataset = join(FIXTURE, "dataset.jsonl");
    const results = at("results.json");
    await ok(["score", work, "--dataset", dataset, "-f", "json", "-o", results, "-q"]);
    await ok(["attest", "keygen", "--out", at("k")]);
    await ok(["attest", results, "--key", at("k.key")]);
    await ok(["attest", results, "--unsigned", "--out", at("statement.json")]);
    const statement = JSON.parse(readFileSync(at("statement.json"), "utf8")) as Statement;
    const doc = JSON.parse(readFileSync(results, "utf8")) as { run: { options: { dataset: { sha256: string } } } };
    expect(statement.predicate.options.dataset).toBe(doc.run.options.dataset.sha256);

    const bundle = `${results}.intoto.jsonl`;
    const verify = (...more: string[]) =>
      run(["attest", "verify", bundle, "--key", at("k.pub"), "--results", results, work, ...more]);
    expect((await verify("--dataset", dataset)).stdout).toContain("verified");
    const without = await verify();
    expect(without.code).toBe(1);
    expect(without.stdout).toMatch(
      /^OPTIONS_MISMATCH options\.dataset: the statement was made with the dataset of SHA-256 [0-9a-f]{64}; the recount has none/m,
    );
    expect(without.stdout).not.toContain("FIGURE_MISMATCH"); // refused before counting
  });

  it("a document scored without one signs none, and a recount given one is refused", async () => {
    const work = at("work2");
    cpSync(join(FIXTURE, "work"), work, { recursive: true });
    const results = at("plain.json");
    await ok(["score", work, "-f", "json", "-o", results, "-q"]);
    await ok(["attest", "keygen", "--out", at("k2")]);
    await ok(["attest", results, "--unsigned", "--out", at("plain-statement.json")]);
    const statement = JSON.parse(readFileSync(at("plain-statement.json"), "utf8")) as Statement;
    expect(statement.predicate.options).not.toHaveProperty("dataset");
    await ok(["attest", results, "--key", at("k2.key")]);
    const r = await run([
      "attest",
      "verify",
      `${results}.intoto.jsonl`,
      "--key",
      at("k2.pub"),
      work,
      "--dataset",
      join(FIXTURE, "dataset.jsonl"),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^OPTIONS_MISMATCH options\.dataset: the statement was made without --dataset/m);
  });
});

describe("a filtered document", () => {
  it("is refused: attest the whole run's document", async () => {
    const work = at("work3");
    cpSync(join(FIXTURE, "work"), work, { recursive: true });
    const results = at("filtered.json");
    await ok(["score", work, "--kind", "swe-bench", "-f", "json", "-o", results, "-q"]);
    const r = await run(["attest", results, "--unsigned", "--out", at("never.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("holds the experiments a filter selected");
  });
});
