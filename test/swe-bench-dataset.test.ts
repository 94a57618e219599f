// `--dataset FILE` end to end (issue 38, beyond §14's version 1): the instances' FAIL_TO_PASS and
// PASS_TO_PASS come from SWE-bench's dataset, so a report.json that drops a test the dataset lists is
// DATASET_MISMATCH; a file that is no dataset is refused before the run (file, line, code); a dataset
// no instance was checked against fails the run; the store keys on it; verify, merge and
// slurm-script carry it. Workers run compiled code (dist/): `npm run build` first.
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BundleEntry, Results } from "../src/core/results.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const FIXTURE = new URL("./fixtures/swe-bench/run/", import.meta.url).pathname;
const WORK = join(FIXTURE, "work");
const MODEL = "logs/run_evaluation/demo-run/org__model-7b";
const A = "pallets__flask-4045";
const DROPPED = "tests/test_blueprints.py::test_dotted_name_also_checked";

const { at } = scratch("assay-swe-dataset-cli-");
let serial = 0;
const work = (): string => {
  const w = at(`w${++serial}/work`);
  cpSync(WORK, w, { recursive: true });
  return w;
};
/** The fixture's dataset, each record changed by `edit` (a record it returns null for is left out). */
function dataset(edit: (r: Record<string, unknown>) => Record<string, unknown> | null = (r) => r): string {
  const file = at(`dataset-${++serial}.jsonl`);
  const lines = readFileSync(join(FIXTURE, "dataset.jsonl"), "utf8").trim().split("\n");
  const kept = lines.map((l) => edit(JSON.parse(l) as Record<string, unknown>)).filter((r) => r !== null);
  writeFileSync(file, kept.map((r) => JSON.stringify(r) + "\n").join(""));
  return file;
}
/** A's FAIL_TO_PASS gains a test its report.json (and test_output.txt) never name. */
const withDropped = () =>
  dataset((r) =>
    r["instance_id"] === A
      ? { ...r, FAIL_TO_PASS: JSON.stringify([...JSON.parse(r["FAIL_TO_PASS"] as string), DROPPED]) }
      : r,
  );

async function score(argv: string[], exit = 0): Promise<{ doc: Results; stderr: string }> {
  const out = at(`out-${++serial}.json`);
  const r = await run(["score", ...argv, "-f", "json", "-q", "-o", out]);
  expect(r.code, r.stderr).toBe(exit);
  return { doc: JSON.parse(readFileSync(out, "utf8")) as Results, stderr: r.stderr };
}
const entry = (d: Results, id: string): BundleEntry => d.bundles.find((b) => b.trial === id)!;
const codesOf = (e: BundleEntry) => e.errors.map((f) => `${f.code} ${f.file}`);

describe("--dataset", () => {
  it("the fixture's own dataset: every instance as without it, and the run records the file and its digest", async () => {
    const w = work();
    const file = join(FIXTURE, "dataset.jsonl");
    const [plain, checked] = [(await score([w])).doc, (await score([w, "--dataset", file])).doc];
    const view = (d: Results) => d.bundles.map((b) => [b.trial, b.state, b.validity, codesOf(b)]);
    expect(view(checked)).toEqual(view(plain));
    expect(checked.run.options.dataset).toEqual({
      file,
      sha256: "0ac7eca0dfd9b25350ee794e52887ba6a4af6e22b6d557ca80d241b2665de90d",
    });
    expect(plain.run.options).not.toHaveProperty("dataset");
  });

  it("a report.json that leaves out a test the dataset lists: DATASET_MISMATCH naming it, and the verdict re-derived over the dataset's tests", async () => {
    const w = work();
    const { doc } = await score([w, "--dataset", withDropped()]);
    const a = entry(doc, A);
    expect(a.validity).toBe("invalid");
    expect(codesOf(a)).toEqual(["REPORT_MISMATCH report.json", "DATASET_MISMATCH report.json"]);
    expect(a.errors[1]!.message).toBe(`report.json's tests_status drops 1 (${DROPPED}) of the dataset's tests`);
    // Without the dataset the same folder is clean: its report agrees with its own lists.
    expect(codesOf(entry((await score([w])).doc, A))).toEqual([]);
  });

  it("an instance the dataset lacks: DATASET_MISMATCH, its tests cannot be checked", async () => {
    const { doc } = await score([work(), "--dataset", dataset((r) => (r["instance_id"] === A ? null : r))]);
    expect(entry(doc, A).errors.map((f) => [f.code, f.message])).toEqual([
      ["DATASET_MISMATCH", `${A} is not in the dataset: its deciding tests cannot be checked`],
    ]);
  });

  it("a file that is no dataset is refused before the run: the file, the line and the code; nothing written", async () => {
    const bad = at("bad.jsonl");
    writeFileSync(bad, '{"instance_id":"a__b-1","FAIL_TO_PASS":"[]","PASS_TO_PASS":"[]"}\n{"FAIL_TO_PASS":"[]"}\n');
    const out = at("never.json");
    const r = await run(["score", work(), "--dataset", bad, "-q", "-o", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--dataset ${bad} is not SWE-bench's instances`);
    expect(r.stderr).toContain(`${bad}: SCHEMA: line 2: no instance_id`);
    expect(existsSync(out)).toBe(false);
    const syntax = at("syntax.jsonl");
    writeFileSync(syntax, "{\n");
    expect((await run(["score", work(), "--dataset", syntax, "-q"])).stderr).toMatch(
      /line 1: .*JSON_SYNTAX|JSON_SYNTAX: line 1/,
    );
  });

  it("a dataset no instance was checked against fails the run (exit 1) and says so; with one checked it passes", async () => {
    const empty = at(`empty-${++serial}`);
    cpSync(join(WORK, MODEL, A), join(empty, "not-a-run"), { recursive: true }); // no SWE-bench run found here
    const r = await run(["score", empty, "--allow-empty", "--dataset", join(FIXTURE, "dataset.jsonl"), "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("checked nothing: no swe-bench evidence was scored");
    expect((await run(["score", work(), "--dataset", join(FIXTURE, "dataset.jsonl"), "-q"])).code).toBe(0);
  });

  it("the store keys on the dataset: a rerun with another dataset scores again, one with the same takes the store's", async () => {
    const w = work();
    const store = at(`store-${++serial}.sqlite`);
    const first = (await score([w, "--store", store, "--dataset", join(FIXTURE, "dataset.jsonl")])).doc;
    expect(codesOf(entry(first, A))).toEqual([]);
    const other = (await score([w, "--store", store, "--dataset", withDropped()])).doc;
    expect(codesOf(entry(other, A))).toContain("DATASET_MISMATCH report.json");
    const again = (await score([w, "--store", store, "--dataset", join(FIXTURE, "dataset.jsonl")])).doc;
    expect(codesOf(entry(again, A))).toEqual([]);
  });

  it("the dataset's file is never written over by --out", async () => {
    const file = withDropped();
    const before = readFileSync(file);
    const r = await run(["score", work(), "--dataset", file, "-q", "-o", file, "-f", "json"]);
    expect(r.code).toBe(2);
    expect(readFileSync(file)).toEqual(before);
  });

  it("a worker that finds other bytes than the run began with fails the instance as a tool error, never scores it against them", () => {
    const file = withDropped();
    const e = scoreDirectory(join(WORK, MODEL, A), A, undefined, "swe-bench", {
      dataset: { file, sha256: "0".repeat(64) },
    });
    expect(e.validity).toBe("error");
    expect(e.errors[0]!.message).toContain(`the dataset ${file} changed since the run began`);
  });

  it("verify checks an instance against it; slurm-script passes it to every shard; shards merge with it", async () => {
    const w = work();
    const file = withDropped();
    const v = await run(["verify", join(w, MODEL), "--dataset", file]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain("DATASET_MISMATCH");
    expect((await run(["verify", join(w, MODEL)])).stdout).not.toContain("DATASET_MISMATCH");
    const script = await run(["slurm-script", w, "--shards", "2", "--dir", at(`slurm-${++serial}`), "--dataset", file]);
    expect(script.code, script.stderr).toBe(0);
    expect(script.stdout).toContain(`--dataset=${file}`);
    const shards = [0, 1].map((i) => at(`shard-${serial}-${i}.json`));
    for (const [i, out] of shards.entries())
      expect((await run(["score", w, "--shard", `${i}/2`, "--dataset", file, "-q", "-o", out])).code).toBe(0);
    const merged = at(`merged-${serial}.json`);
    const m = await run(["merge", ...shards, "-f", "json", "-o", merged]);
    expect(m.code, m.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(merged, "utf8")) as Results;
    expect(doc.run.options.dataset?.file).toBe(file);
    expect(codesOf(entry(doc, A))).toContain("DATASET_MISMATCH report.json");
  });
});
