// Agreement with the contract writer's example bundles (../shared/examples): the conformance floor.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { computeExperiments } from "../src/kinds/batch.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { HAVE_SHARED, REQUIRE_SHARED, SHARED_DIR } from "./helpers/shared.js";

const examples = join(SHARED_DIR, "examples");

describe("shared examples", () => {
  it("are available (required under CI)", () => {
    if (REQUIRE_SHARED) expect(HAVE_SHARED, `set ASSAY_SHARED_DIR; looked in ${SHARED_DIR}`).toBe(true);
  });

  describe.skipIf(!HAVE_SHARED)("verdicts", () => {
    const expected = HAVE_SHARED
      ? (JSON.parse(readFileSync(join(examples, "expected.json"), "utf8")) as Record<string, Record<string, unknown>>)
      : {};
    const names = Object.keys(expected).filter((n) => expected[n]!["profile"] === "native-game");

    it("covers every native example folder", () => {
      const dirs = readdirSync(examples, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
      for (const n of names) expect(dirs).toContain(n);
      expect(names.length).toBeGreaterThanOrEqual(8);
    });

    it.each(names)("%s", (name) => {
      const want = expected[name]!;
      const got = scoreDirectory(join(examples, name), name);
      expect(got.validity).toBe(want["validity"]);
      expect(got.profile).toBe(want["profile"]);
      const codes = got.errors.map((f) => f.code);
      for (const c of want["codes"] as string[]) expect(codes).toContain(c);
      if (want["validity"] === "valid") expect(codes).toEqual([]);
      expect(got.warnings.map((f) => f.code).sort()).toEqual([...(want["warnings"] as string[])].sort());
      for (const field of ["status", "victory", "late"] as const)
        if (field in want) expect(got[field]).toBe(want[field]);
    });

    it("bad-chain reports lines 6 and 7", () => {
      const got = scoreDirectory(join(examples, "bad-chain"), "bad-chain");
      expect(got.errors.filter((f) => f.code === "JOURNAL_CHAIN").map((f) => [f.file, f.line])).toEqual([
        ["journal.jsonl", 6],
        ["journal.jsonl", 7],
      ]);
    });

    it("bad-duplicate-key reports line 3, bad-late-keys line 3, bad-summary names status", () => {
      const at = (n: string) => scoreDirectory(join(examples, n), n).errors;
      expect(at("bad-duplicate-key")).toContainEqual(
        expect.objectContaining({ code: "JSON_DUPLICATE_KEY", file: "journal.jsonl", line: 3 }),
      );
      expect(at("bad-late-keys")).toContainEqual(
        expect.objectContaining({ code: "TRANSITION", file: "journal.jsonl", line: 3 }),
      );
      const summary = at("bad-summary").filter((f) => f.code === "SUMMARY_MISMATCH");
      expect(summary).toHaveLength(1);
      expect(summary[0]!.message).toMatch(/field status\b/);
    });

    it("the torn tail raises UNTERMINATED_WITH_ENDING in its experiment", () => {
      const entry = scoreDirectory(join(examples, "native-torn-tail"), "native-torn-tail");
      const [exp] = computeExperiments([entry], [], DEFAULT_BATCH);
      expect(exp!.flags).toEqual([{ code: "UNTERMINATED_WITH_ENDING", trial: "torn", attempt: 1, evidence: null }]);
      expect(exp!.accuracy).toMatchObject({ victories: 0, scored: 1 });
    });

    it.each(["world-clean", "world-blind-retry"])("%s: every dimension and pass as expected", (name) => {
      const want = expected[name]!;
      const got = scoreDirectory(join(examples, name), name);
      expect(got.errors).toEqual([]);
      expect(got).toMatchObject({ validity: want["validity"], profile: "world", pass: want["pass"] });
      const dims = Object.fromEntries(Object.entries(got.dimensions!).map(([k, v]) => [k, v.pass]));
      expect(dims).toEqual(want["dimensions"]);
      for (const [k, v] of Object.entries(got.dimensions!)) expect(v.detail.length, k).toBeGreaterThan(0);
    });

    it("world-blind-retry's details name the records that decided them", () => {
      const d = scoreDirectory(join(examples, "world-blind-retry"), "w").dimensions!;
      expect(d["world_integrity"]!.detail).toMatch(/R-41 \(world\.jsonl:2\).*R-42 \(world\.jsonl:4\)/);
      expect(d["recovery"]!.detail).toMatch(/at-2 \(journal\.jsonl:9.*at-1 \(journal\.jsonl:6\)/);
      expect(d["world_integrity"]!.hard).toBe(true);
      expect(d["task_completion"]!.hard).toBe(false);
    });
  });
});
