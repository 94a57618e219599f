// Which folders of a SWE-bench run are its instances, and what a root inside a model folder is
// (contract §14 "Recognition"), through the CLI: the model folder's subfolders named like an
// instance id are its instances; others (notes/, .cache/) are none — passed over, or said
// unrecognised when they hold a file the harness writes into an instance folder — never a tool
// error. An instance folder given as a root is scored as one instance of its model folder's
// experiment, whose run files are then not read: RUN_FILES_UNREAD says so.
//
// Workers run compiled code (dist/): `npm run build` first.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Results } from "../src/core/results.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const WORK = new URL("./fixtures/swe-bench/run/work", import.meta.url).pathname;
const MODEL = "logs/run_evaluation/demo-run/org__model-7b";
const INSTANCES = ["pallets__flask-4045", "pallets__flask-4992", "psf__requests-2317", "psf__requests-863"];

const { at } = scratch("assay-swe-roots-");
let serial = 0;
/** A fresh copy of the run's working directory, edited by `edit` (given its model folder). */
function work(edit: (model: string) => void = () => {}): string {
  const w = at(`w${++serial}/work`);
  cpSync(WORK, w, { recursive: true });
  edit(join(w, MODEL));
  return w;
}
async function score(roots: string[]): Promise<Results & { stdout: string; stderr: string }> {
  const out = at(`out-${++serial}.json`);
  const r = await run(["score", ...roots, "--format", "json", "--quiet", "--out", out]);
  expect(r.code, r.stderr).toBe(0);
  return { ...(JSON.parse(readFileSync(out, "utf8")) as Results), stdout: r.stdout, stderr: r.stderr };
}
const put = (file: string, text: string) => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
};
const trials = (d: Results) => d.bundles.map((b) => b.trial).sort();

describe("a model folder's subfolders", () => {
  it("one not named like an instance id that holds nothing the harness writes is passed over: no entry, no tool error", async () => {
    const d = await score([
      work((m) => {
        put(join(m, "notes", "readme.txt"), "who ran this\n");
        put(join(m, ".cache", "pip", "x.whl"), "");
      }),
    ]);
    expect(trials(d)).toEqual(INSTANCES);
    expect(d.bundles.every((b) => b.validity !== "error")).toBe(true);
    expect(d.experiments[0]!.unscored).toEqual([]);
    expect(d.run.unrecognised).toEqual({ count: 0, paths: [] });
  });

  it("one holding a file of an instance folder but not named like an id (a renamed copy) is said unrecognised, not scored", async () => {
    const w = work((m) =>
      cpSync(join(m, "pallets__flask-4045"), join(m, "pallets__flask-4045.bak"), { recursive: true }),
    );
    const d = await score([w]);
    expect(trials(d)).toEqual(INSTANCES);
    expect(d.run.unrecognised).toEqual({ count: 1, paths: [join(w, MODEL, "pallets__flask-4045.bak")] });
  });

  it("one named like an id is an instance whatever it holds (empty: incomplete)", async () => {
    const d = await score([work((m) => mkdirSync(join(m, "pallets__flask-5014")))]);
    expect(trials(d)).toEqual([...INSTANCES, "pallets__flask-5014"].sort());
    expect(d.bundles.find((b) => b.trial === "pallets__flask-5014")!.state).toBe("incomplete");
  });

  it("given as a root, one not named like an id is walked as any folder: nothing found is said (exit 2), no tool error", async () => {
    const w = work((m) => put(join(m, "notes", "readme.txt"), "who ran this\n"));
    const r = await run(["score", join(w, MODEL, "notes"), "--quiet", "--out", at(`out-${++serial}.json`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing under .*\/notes is /);
    const renamed = work((m) => cpSync(join(m, "pallets__flask-4045"), join(m, "copy"), { recursive: true }));
    const r2 = await run(["score", join(renamed, MODEL, "copy"), "--quiet", "--out", at(`out-${++serial}.json`)]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("1 folder looks like evidence but is not");
  });
});

describe("an instance folder given as a root", () => {
  it("is one instance of its model folder's experiment; the run's files are not read, and RUN_FILES_UNREAD says so", async () => {
    const w = work();
    const d = await score([join(w, MODEL, "pallets__flask-4045")]);
    expect(trials(d)).toEqual(["pallets__flask-4045"]);
    expect(d.bundles[0]).toMatchObject({
      experiment: "demo-run/org__model-7b",
      state: "resolved",
      claimed: { rewards: { resolved: 1 }, exception: null },
    });
    const e = d.experiments[0]!;
    expect([e.experiment, e.claimed, e.flags.map((f) => f.code)]).toEqual(["demo-run/org__model-7b", null, []]);
    expect(e.warnings.map((f) => f.code)).toEqual(["RUN_FILES_UNREAD"]);
    expect(e.warnings[0]!.message).toContain(`give ${join(w, MODEL)} to check them`);
    expect(e.swe_bench).toMatchObject({ report: null, predictions: null, total: null });
    // The text report says it too.
    const r = await run(["score", join(w, MODEL, "pallets__flask-4045")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("RUN_FILES_UNREAD");
  });

  it("beside its model folder (either order), or the model folder alone: the run's files are read, nothing unread is said", async () => {
    const w = work();
    for (const roots of [[join(w, MODEL)], [join(w, MODEL, "pallets__flask-4045"), join(w, MODEL)]]) {
      const d = await score(roots);
      expect(trials(d)).toEqual(INSTANCES);
      const e = d.experiments[0]!;
      expect(e.warnings.map((f) => f.code)).toEqual([]);
      expect(e.claimed!.source).toBe("org__model-7b.demo-run.json");
    }
  });
});
