// `assay verify` on a SWE-bench instance folder and on a model folder (contract §14), through the
// CLI: an instance's claim is its own report.json's verdict, said as such beside the verdict assay
// re-derives (never "its job's result.json", which is Harbor's); the entries carry the experiment
// `score` names (`<run_id>/<model>`); a model folder shows its final report's figures against
// assay's recount, and an instance given alone says the run's files were not read.
//
// Workers run compiled code (dist/): `npm run build` first.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BundleEntry } from "../src/core/results.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const WORK = new URL("./fixtures/swe-bench/run/work", import.meta.url).pathname;
const MODEL = "logs/run_evaluation/demo-run/org__model-7b";
const REPORT = "org__model-7b.demo-run.json";

const { at } = scratch("assay-swe-verify-");
let serial = 0;
function work(edit: (w: string) => void = () => {}): string {
  const w = at(`w${++serial}/work`);
  cpSync(WORK, w, { recursive: true });
  edit(w);
  return w;
}
const editJson = (file: string, change: (doc: any) => void) => {
  const doc = JSON.parse(readFileSync(file, "utf8"));
  change(doc);
  writeFileSync(file, JSON.stringify(doc, null, 4));
};

describe("verify on an instance folder", () => {
  it("names report.json's verdict as the instance's own claim, under the experiment score names", async () => {
    const w = work();
    const r = await run(["verify", join(w, MODEL, "pallets__flask-4045")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("experiment demo-run/org__model-7b, trial pallets__flask-4045");
    expect(r.stdout).toContain("rewards  resolved=1   (from test_output.txt (pytest))");
    expect(r.stdout).toMatch(/report\.json says resolved=1 {3}\(the instance's own verdict; assay re-derives it/);
    expect(r.stdout).not.toContain("job says");
    expect(r.stdout).not.toContain("result.json");
    // Given alone, its model folder's run files are not read: said, naming the folder to give.
    expect(r.stdout).toContain("RUN_FILES_UNREAD");
    expect(r.stdout).toContain(`(give ${join(w, MODEL)} to check them)`);
    const j = await run(["verify", "--json", join(w, MODEL, "pallets__flask-4045")]);
    const e = JSON.parse(j.stdout) as BundleEntry;
    expect([e.experiment, e.claimed]).toEqual([
      "demo-run/org__model-7b",
      { rewards: { resolved: 1 }, exception: null },
    ]);
  });

  it("a report.json verdict the re-derivation contradicts: both said, REPORT_MISMATCH, exit 1", async () => {
    const w = work((x) =>
      editJson(join(x, MODEL, "pallets__flask-4992", "report.json"), (r) => (r["pallets__flask-4992"].resolved = true)),
    );
    const r = await run(["verify", join(w, MODEL, "pallets__flask-4992")]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toContain("rewards  none");
    expect(r.stdout).toContain("report.json says resolved=1");
    expect(r.stdout).toContain("REPORT_MISMATCH");
  });

  it("no report.json (a harness error): it claims nothing", async () => {
    const r = await run(["verify", join(work(), MODEL, "psf__requests-2317")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("report.json says nothing (no readable report.json)");
  });
});

describe("verify on a model folder", () => {
  it("the run's final report against assay's recount, every figure agreeing; nothing unread", async () => {
    const w = work();
    const r = await run(["verify", join(w, MODEL)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      `${join(w, "logs/run_evaluation/demo-run")}: SWE-bench run demo-run/org__model-7b, 6 instances`,
    );
    expect(r.stdout).toContain(`SWE-bench's final report says (${REPORT}): 9 of 9 figures as assay recounts them`);
    expect(r.stdout).not.toContain("RUN_FILES_UNREAD");
    expect(r.stdout).not.toMatch(/^ {2}claim /m);
    expect(r.stdout.match(/experiment demo-run\/org__model-7b,/g)).toHaveLength(4);
  });

  it("a final report figure the recount contradicts is named with assay's count and why", async () => {
    const w = work((x) => editJson(join(x, REPORT), (r) => (r["resolved_instances"] = 2)));
    const r = await run(["verify", join(w, MODEL)]);
    expect(r.stdout).toContain(`SWE-bench's final report says (${REPORT}): 8 of 9 figures as assay recounts them`);
    expect(r.stdout).toMatch(/^ {2}claim {4}resolved_instances 2, assay 1: \S/m);
  });
});
