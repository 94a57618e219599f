// SWE-bench instances as entries (contract §14 "The entry"), through `assay score`: one folder of
// each state (the instance fixtures, copied and edited per test), what each entry says — its
// verdict only for the states in the mean, none on an invalid one, its hard checks as errors and
// the rest as warnings, each naming its file — and where the experiment puts each instance under
// --errors and --invalid.
//
// Workers run compiled code (dist/): `npm run build` first.
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BundleEntry, Experiment, Results } from "../src/core/results.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const INSTANCES = new URL("./fixtures/swe-bench/instances", import.meta.url).pathname;
const MODEL = "logs/run_evaluation/demo-run/org__model-7b";
const { at } = scratch("assay-swe-instances-");
let serial = 0;

function copy(edit: (model: string) => void = () => {}): string {
  const root = at(`i${++serial}`);
  cpSync(INSTANCES, root, { recursive: true });
  edit(join(root, MODEL));
  return root;
}
async function score(root: string, ...flags: string[]): Promise<Results> {
  const out = at(`out-${++serial}.json`);
  const r = await run(["score", root, "--format", "json", "--quiet", "--out", out, ...flags]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, "utf8")) as Results;
}
const entry = (d: Results, id: string): BundleEntry => d.bundles.find((b) => b.trial === id)!;
const exp = (d: Results): Experiment => d.experiments[0]!;
const found = (fs: readonly { code: string; file: string | null }[]) => fs.map((f) => `${f.code} ${f.file}`);

describe("one entry per state", () => {
  it("each folder's state, verdict and exception as §14's table says", async () => {
    const d = await score(copy());
    const rows = Object.fromEntries(
      d.bundles.map((b) => [
        b.trial,
        [b.state, b.validity, b.pass, b.rewards?.["resolved"] ?? null, b.reward_source, b.exception?.type ?? null],
      ]),
    );
    expect(rows).toEqual({
      "astropy__astropy-12907": ["resolved", "valid", true, 1, "test_output.txt (pytest_v2)", null],
      "django__django-11099": ["patch-apply-failed", "valid", false, 0, null, "PatchApplyFailed"],
      "gin-gonic__gin-1805": ["unverified", "valid", null, null, "report.json (unverified)", null],
      "psf__requests-2317": ["error", "valid", null, null, null, "APIError"],
      "pydata__xarray-4094": ["incomplete", "valid", null, null, null, null],
      // Step 5: results, none failed, a non-zero exit code: unresolved and invalid, so no verdict of its own.
      "pytest-dev__pytest-5103": ["unresolved", "invalid", null, null, "test_output.txt (pytest)", null],
      "sympy__sympy-20590": ["tests-timeout", "valid", null, null, null, "TestsTimeout"],
    });
    expect(found(entry(d, "pytest-dev__pytest-5103").errors)).toEqual([
      "REPORT_MISMATCH report.json",
      "REPORT_MISMATCH report.json",
      "EXIT_CODE_CONTRADICTION test_output.txt",
    ]);
    expect(entry(d, "gin-gonic__gin-1805").swe_bench).toMatchObject({
      repo: "gin-gonic/gin",
      parser: null,
      log: "unverified",
    });
    expect(entry(d, "gin-gonic__gin-1805").claimed).toEqual({
      rewards: { resolved: expect.any(Number) },
      exception: null,
    });
    expect(entry(d, "sympy__sympy-20590").flags.map((f) => f.code)).toEqual(["INFRA_SIGNATURE"]);
    expect(entry(d, "astropy__astropy-12907").flags).toEqual([]);
  });

  it("the experiment: states, what is excluded and why, what is invalid; RUN_REPORT_ABSENT without a final report", async () => {
    const e = exp(await score(copy()));
    expect(e.states).toMatchObject({
      resolved: 1,
      unresolved: 1,
      "patch-apply-failed": 1,
      "tests-timeout": 1,
      error: 1,
      incomplete: 1,
      unverified: 1,
    });
    expect(e.excluded.map((x) => x.reason).sort()).toEqual(["error", "incomplete", "tests-timeout", "unverified"]);
    expect(e.invalid).toEqual([
      { trial: "pytest-dev__pytest-5103", codes: ["EXIT_CODE_CONTRADICTION", "REPORT_MISMATCH"] },
    ]);
    // Resolved, patch-apply-failed (0) and the invalid one (0).
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 3, trials: 7 });
    expect(e.exceptions).toEqual({ PatchApplyFailed: 1, APIError: 1, TestsTimeout: 1 });
    expect(e.warnings.map((w) => w.code)).toEqual(["RUN_REPORT_ABSENT"]);
  });

  it("--errors zero counts the states without a verdict 0; --invalid exclude leaves the invalid one out", async () => {
    expect(exp(await score(copy(), "--errors", "zero")).rewards!["resolved"]).toMatchObject({ covered: 7, trials: 7 });
    expect(exp(await score(copy(), "--invalid", "exclude")).rewards!["resolved"]).toMatchObject({
      covered: 2,
      trials: 7,
      mean: 0.5,
    });
  });
});

describe("report.json and the logs, each side", () => {
  const ASTROPY = "astropy__astropy-12907";

  it("without test_output.txt: TEST_OUTPUT_MISSING, the report's own state, never credited", async () => {
    const d = await score(copy((m) => rmSync(join(m, ASTROPY, "test_output.txt"))));
    const b = entry(d, ASTROPY);
    expect([b.state, b.validity, b.rewards, b.reward_source, b.swe_bench!.log]).toEqual([
      "resolved",
      "invalid",
      null,
      "report.json (unverified)",
      "absent",
    ]);
    expect(found(b.errors)).toEqual(["TEST_OUTPUT_MISSING test_output.txt"]);
  });

  it("an empty report.json: REPORT_UNREADABLE, a warning; the state follows the other files", async () => {
    const d = await score(copy((m) => writeFileSync(join(m, ASTROPY, "report.json"), "")));
    const b = entry(d, ASTROPY);
    expect([b.state, b.validity, found(b.warnings), b.swe_bench!.report]).toEqual([
      "incomplete",
      "valid",
      ["REPORT_UNREADABLE report.json"],
      { readable: false, resolved: null },
    ]);
  });

  it("a report.json cut short is REPORT_UNREADABLE; one malformed before its end is JSON_SYNTAX, invalid", async () => {
    const text = readFileSync(join(INSTANCES, MODEL, ASTROPY, "report.json"), "utf8");
    const cut = entry(
      await score(copy((m) => writeFileSync(join(m, ASTROPY, "report.json"), text.slice(0, 40)))),
      ASTROPY,
    );
    expect([cut.validity, found(cut.warnings)]).toEqual(["valid", ["REPORT_UNREADABLE report.json"]]);
    const bad = entry(await score(copy((m) => writeFileSync(join(m, ASTROPY, "report.json"), `]${text}`))), ASTROPY);
    expect([bad.validity, found(bad.errors)]).toEqual(["invalid", ["JSON_SYNTAX report.json"]]);
  });

  it("report.json saying resolved where its own tests_status fails one: REPORT_INCONSISTENT", async () => {
    const file = (m: string) => join(m, "pytest-dev__pytest-5103", "report.json");
    const d = await score(
      copy((m) => {
        const doc = JSON.parse(readFileSync(file(m), "utf8"));
        const f2p = doc["pytest-dev__pytest-5103"].tests_status.FAIL_TO_PASS;
        f2p.failure.push(f2p.success.pop());
        writeFileSync(file(m), JSON.stringify(doc));
      }),
    );
    expect(found(entry(d, "pytest-dev__pytest-5103").errors)).toContain("REPORT_INCONSISTENT report.json");
    expect(found(entry(await score(copy()), "pytest-dev__pytest-5103").errors)).not.toContain(
      "REPORT_INCONSISTENT report.json",
    );
  });

  it("results without a recorded exit code: EXIT_CODE_UNRECORDED, a warning; with one, none", async () => {
    const out = (m: string) => join(m, ASTROPY, "test_output.txt");
    const d = await score(
      copy((m) => writeFileSync(out(m), readFileSync(out(m), "utf8").replace(/^.*>>>>> Test Exit Code.*$/gm, ""))),
    );
    const b = entry(d, ASTROPY);
    expect([b.validity, found(b.warnings), b.swe_bench!.exit_code]).toEqual([
      "valid",
      ["EXIT_CODE_UNRECORDED test_output.txt"],
      null,
    ]);
    expect(entry(await score(copy()), ASTROPY).warnings).toEqual([]);
  });

  it("the digest covers the folder's name: the same files under another id are another instance", async () => {
    const d = await score(
      copy((m) => cpSync(join(m, "pydata__xarray-4094"), join(m, "pydata__xarray-4095"), { recursive: true })),
    );
    expect(entry(d, "pydata__xarray-4094").digest).not.toBe(entry(d, "pydata__xarray-4095").digest);
  });
});
