// `assay synth --profile swe-bench` (kinds/swe-bench/synth.ts): the synthesised run scored by the
// real CLI gives every labelled case its state and codes, the same seed the same bytes, and the
// run's files are the harness's shapes, made as they are written. The dataset-dropped case is
// checked against --dataset's rule (dataset.ts) directly until the option is wired.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { datasetMismatch, decidingFromDataset, readDataset } from "../src/kinds/swe-bench/dataset.js";
import { finalReportOf } from "../src/kinds/swe-bench/final-report.js";
import { rederive, TestOutputScan } from "../src/kinds/swe-bench/grade.js";
import type { InstanceReport } from "../src/kinds/swe-bench/instance-report.js";
import { linesOf } from "../src/kinds/swe-bench/python-text.js";
import { repoOf } from "../src/kinds/swe-bench/repo.js";
import { SWE_CASES, type SweCase } from "../src/kinds/swe-bench/synth-cases.js";
import { sweBenchSynth } from "../src/kinds/swe-bench/synth.js";
import type { KindSynthUnit } from "../src/kinds/synth.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-swe-synth-");

/** Every code each case raises: on its entry (errors, warnings, flags), and as the experiment's flags naming it. */
const CODES: Record<SweCase, { entry: string[]; run: string[] }> = {
  resolved: { entry: [], run: [] },
  unresolved: { entry: [], run: [] },
  "patch-apply-failed": { entry: [], run: [] },
  "tests-timeout": { entry: ["INFRA_SIGNATURE"], run: ["INFRA_SIGNATURE"] },
  error: { entry: [], run: [] },
  // A harness before #620 graded it resolved, and the final report lists it so.
  "forged-pass": { entry: ["EXIT_CODE_CONTRADICTION", "REPORT_MISMATCH"], run: ["RUN_CLAIM_MISMATCH"] },
  "report-mismatch": { entry: ["REPORT_MISMATCH"], run: [] },
  "claim-mismatch": { entry: [], run: ["RUN_CLAIM_MISMATCH"] },
  "empty-patch": { entry: [], run: [] },
  missing: { entry: [], run: ["INSTANCE_MISSING"] },
  "dataset-dropped": { entry: [], run: [] },
};

interface Entry {
  trial: string;
  state: string;
  validity: string;
  errors: { code: string }[];
  warnings: { code: string }[];
  flags: { code: string }[];
}
interface Experiment {
  experiment: string;
  states: Record<string, number>;
  missing: (string | { count: number })[];
  flags: { code: string; trial: string }[];
  warnings: unknown[];
  claimed: { compared: { metric: string; reason: string | null }[] };
}

const N = 2 * SWE_CASES.length;
let dir: string;
let units: KindSynthUnit[];
let entries: Map<string, Entry>;
let experiment: Experiment;

async function synth(out: string, seed: string, n = N) {
  return run(["synth", "--profile", "swe-bench", "--n", String(n), "--seed", seed, "--out", out]);
}

beforeAll(async () => {
  dir = join(tmp, "run");
  const made = await synth(dir, "labels");
  expect(made.code, made.stderr).toBe(0);
  expect(made.stderr).toBe(`assay: wrote ${N} SWE-bench instances to ${dir}\n`);
  units = JSON.parse(readFileSync(join(dir, "synth-manifest.json"), "utf8")).bundles;
  const scored = await run(["score", dir, "-f", "json", "-o", "-", "-q"]);
  expect(scored.code, scored.stderr).toBe(0);
  const doc = JSON.parse(scored.stdout) as { bundles: Entry[]; experiments: Experiment[] };
  entries = new Map(doc.bundles.map((b) => [b.trial, b]));
  expect(doc.experiments).toHaveLength(1);
  experiment = doc.experiments[0]!;
});

describe("a synthesised SWE-bench run, scored", () => {
  it("plans every case, in turn, with a folder exactly where the harness writes one", () => {
    expect(units.map((u) => u.outcome)).toEqual([...SWE_CASES, ...SWE_CASES]);
    for (const u of units) {
      expect(u.experiment).toBe("synth-swe/org__model-7b");
      expect(u.dir === null, u.outcome).toBe(u.outcome === "empty-patch" || u.outcome === "missing");
    }
    expect(entries.size).toBe(units.filter((u) => u.dir !== null).length);
  });

  it("gives each instance with a folder its labelled state, validity and codes", () => {
    for (const u of units.filter((u) => u.dir !== null)) {
      const e = entries.get(u.trial)!;
      const codes = [...e.errors, ...e.warnings, ...e.flags].map((f) => f.code);
      const flagged = experiment.flags.filter((f) => f.trial === u.trial).map((f) => f.code);
      expect([e.state, e.validity], u.outcome).toEqual([u.expect.state, u.expect.validity]);
      if (u.expect.code) expect([...codes, ...flagged], u.outcome).toContain(u.expect.code);
      const want = CODES[u.outcome as SweCase];
      expect(new Set(codes), u.outcome).toEqual(new Set(want.entry));
      expect(flagged.sort(), u.outcome).toEqual([...want.run].sort());
    }
  });

  it("counts the instances without a folder in the run's states: empty-patch, and missing (INSTANCE_MISSING)", () => {
    const count = (c: SweCase) => units.filter((u) => u.outcome === c).length;
    for (const state of [
      "resolved",
      "unresolved",
      "patch-apply-failed",
      "tests-timeout",
      "error",
      "empty-patch",
      "missing",
    ])
      expect(experiment.states[state], state).toBe(units.filter((u) => u.expect.state === state).length);
    expect(experiment.states["empty-patch"]).toBe(count("empty-patch"));
    const missing = units.filter((u) => u.outcome === "missing").map((u) => u.trial);
    expect(experiment.missing).toEqual(missing);
    for (const id of missing)
      expect(experiment.flags.filter((f) => f.trial === id).map((f) => f.code)).toEqual(["INSTANCE_MISSING"]);
  });

  it("the final report is consistent with itself: no count or list finding, no warning; only resolved and unresolved differ on recount", () => {
    const codes = new Set(experiment.flags.map((f) => f.code));
    for (const c of ["RUN_COUNT_MISMATCH", "RUN_LIST_DUPLICATE", "INSTANCE_UNLISTED", "PATCH_MISMATCH"])
      expect(codes.has(c), c).toBe(false);
    expect(experiment.warnings).toEqual([]);
    expect(experiment.claimed.compared.filter((c) => c.reason !== null).map((c) => c.metric)).toEqual([
      "resolved_instances",
      "unresolved_instances",
    ]);
  });
});

describe("the dataset-dropped case against --dataset's rule", () => {
  it("its report.json drops a failing test the dataset lists: DATASET_MISMATCH and unresolved over the dataset; every other report agrees with the dataset", async () => {
    const read = await readDataset(join(dir, "dataset.jsonl"));
    if (read.read !== "ok") throw new Error(read.why);
    expect(read.instances.size).toBe(N);
    let checked = 0;
    for (const u of units.filter((u) => u.dir !== null)) {
      const files = readdirSync(join(dir, u.dir!));
      if (!files.includes("report.json")) continue;
      const report = (
        JSON.parse(readFileSync(join(dir, u.dir!, "report.json"), "utf8")) as Record<string, InstanceReport>
      )[u.trial]!;
      const scan = new TestOutputScan(repoOf(u.trial)!.parser!);
      for (const l of linesOf(readFileSync(join(dir, u.dir!, "test_output.txt"), "utf8"))) scan.line(l);
      const expected = read.instances.get(u.trial)!;
      const red = rederive(scan.finish(), decidingFromDataset(expected));
      const found = datasetMismatch(u.trial, report, expected, red);
      const withDataset = u.expect.with_dataset;
      if (u.outcome === "dataset-dropped") {
        expect(withDataset).toEqual({ validity: "invalid", code: "DATASET_MISMATCH", state: "unresolved" });
        expect(found?.code).toBe("DATASET_MISMATCH");
        expect(found?.message).toContain("drops 1 (tests/test_blueprints.py::test_empty_name_not_allowed)");
        expect(red.resolved).toBe(false);
      } else {
        expect(withDataset).toBeUndefined();
        expect(found, u.outcome).toBe(null);
      }
      checked++;
    }
    expect(checked).toBe(12);
  });
});

/** Every file under `root`: relative path → SHA-256. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of readdirSync(root, { recursive: true }).map(String).sort())
    if (statSync(join(root, rel)).isFile())
      out[rel] = createHash("sha256")
        .update(readFileSync(join(root, rel)))
        .digest("hex");
  return out;
}

describe("determinism and the files' shapes", () => {
  it("the same seed gives the same bytes; another seed other bytes in the same layout", async () => {
    const [a, b, c] = ["a", "b", "c"].map((n) => join(tmp, `seed-${n}`));
    await synth(a!, "x");
    await synth(b!, "x");
    await synth(c!, "y");
    expect(tree(b!)).toEqual(tree(a!));
    const [ta, tc] = [tree(a!), tree(c!)];
    expect(Object.keys(tc)).toEqual(Object.keys(ta));
    const differ = Object.keys(ta).filter((k) => ta[k] !== tc[k]);
    expect(differ).toContain("preds.jsonl");
    expect(differ.length).toBeGreaterThan(Object.keys(ta).length / 2);
  });

  it("never writes into a folder that holds anything", async () => {
    const full = join(tmp, "full");
    await synth(full, "x", 3);
    const before = tree(full);
    writeFileSync(join(full, "mine.txt"), "mine\n");
    const again = await synth(full, "y", 3);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is not empty: synth never writes over existing files/);
    expect(tree(full)).toEqual({ ...before, "mine.txt": tree(full)["mine.txt"] });
  });

  it("the final report and each report.json are json.dumps(indent=4) of what they hold; the predictions and dataset one record a line", () => {
    const text = readFileSync(join(dir, "org__model-7b.synth-swe.json"), "utf8");
    const report = JSON.parse(text);
    expect(text).toBe(`${JSON.stringify(report, null, 4)}\n`);
    expect(finalReportOf(report).ok).toBe(true);
    expect(Object.keys(report)).toEqual(
      Object.keys(JSON.parse(readFileSync("test/fixtures/swe-bench/run/work/org__model-7b.demo-run.json", "utf8"))),
    );
    for (const list of ["submitted_ids", "completed_ids", "error_ids", "resolved_ids"])
      expect(report[list], list).toEqual([...report[list]].sort());
    expect(report.total_instances).toBe(N);
    const u = units.find((u) => u.outcome === "resolved")!;
    const one = readFileSync(join(dir, u.dir!, "report.json"), "utf8");
    expect(one).toBe(JSON.stringify(JSON.parse(one), null, 4));
    const preds = readFileSync(join(dir, "preds.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(preds.map((p) => p.instance_id)).toEqual(units.map((u) => u.trial));
    expect(readFileSync(join(dir, u.dir!, "patch.diff"), "utf8")).toBe(
      preds.find((p) => p.instance_id === u.trial).model_patch,
    );
    expect(preds.filter((p) => p.model_patch === "").map((p) => p.instance_id)).toEqual(
      units.filter((u) => u.outcome === "empty-patch").map((u) => u.trial),
    );
  });

  it("a million instances are planned and written as they are read: the first file and unit come at once, the report in small pieces", () => {
    const o = { n: 1_000_000, seed: "big" };
    const started = Date.now();
    expect(sweBenchSynth.plan(o).next().value?.trial).toBe("pallets__flask-1000000");
    const [path] = sweBenchSynth.files(o).next().value!;
    expect(path).toBe("logs/run_evaluation/synth-swe/org__model-7b/pallets__flask-1000000/run_instance.log");
    expect(Date.now() - started).toBeLessThan(1000);
    const small = { n: 5_000, seed: "big" };
    const reportFile = [...sweBenchSynth.files(small)].find(([p]) => p === "org__model-7b.synth-swe.json")!;
    let longest = 0;
    for (const piece of reportFile[1]) longest = Math.max(longest, piece.length);
    expect(longest).toBeLessThan(200);
  });
});

describe("the CLI names it", () => {
  it("synth --help lists the profile and its cases; an unknown profile lists it among the allowed", async () => {
    const help = await run(["synth", "--help"]);
    expect(help.stdout).toContain("[--profile native-game|world|harbor|inspect|swe-bench]");
    expect(help.stdout).toContain(`  swe-bench: one SWE-bench run_evaluation run`);
    const bad = await run(["synth", "--profile", "swe", "--n", "1", "--out", join(tmp, "bad")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--profile must be one of native-game, world, harbor, inspect, swe-bench");
    const faults = await run(["synth", "--profile", "swe-bench", "--faults", "--n", "1", "--out", join(tmp, "bad")]);
    expect(faults.code).toBe(2);
    expect(faults.stderr).toContain("swe-bench corpora are made of labelled cases");
  });
});
