// §14's rules that were tested on one side only, now on both: through `assay score` in-process
// over copies of the fixtures (the run's working directory, or a model folder of chosen instance
// folders), and repoOf for the parser mappings no fixture exercised.
//
// Workers run compiled code (dist/): `npm run build` first.
import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BundleEntry, Experiment, Results } from "../src/core/results.js";
import { repoOf } from "../src/kinds/swe-bench/repo.js";
import { run, spawnCli } from "./helpers/cli.js";
import { scratch, SCRATCH } from "./helpers/shared.js";

const FIXTURES = new URL("./fixtures/swe-bench/", import.meta.url).pathname;
const WORK = join(FIXTURES, "run/work");
const RUN = "logs/run_evaluation/demo-run";
const MODEL = `${RUN}/org__model-7b`;
const REPORT = "org__model-7b.demo-run.json";
const NAME = "demo-run/org__model-7b";
const INSTANCES = join(FIXTURES, "instances", MODEL);
const MiB64 = 64 * 1024 * 1024;

const { at, dir: SCRATCH_DIR } = scratch("assay-swe-sides-", SCRATCH);
let serial = 0;

/** A fresh copy of the run's working directory, edited by `edit` (given its path). */
function work(edit: (w: string) => void = () => {}): string {
  const w = at(`w${++serial}/work`);
  cpSync(WORK, w, { recursive: true });
  edit(w);
  return w;
}

/** A model folder of copies of the instances fixture's folders `ids`, edited by `edit` (given the model folder). */
function instances(ids: string[], edit: (m: string) => void = () => {}): string {
  const m = at(`i${++serial}/${MODEL}`);
  for (const id of ids) cpSync(join(INSTANCES, id), join(m, id), { recursive: true });
  edit(m);
  return m;
}

/** `file` made exactly `bytes` long by trailing spaces (JSON's whitespace: the document is unchanged). */
function padTo(file: string, bytes: number): void {
  const text = readFileSync(file);
  writeFileSync(file, Buffer.concat([text, Buffer.alloc(bytes - text.length, 0x20)]));
}

const reportOf = (folder: string, id: string, change: (r: Record<string, unknown>) => void) => {
  const file = join(folder, "report.json");
  const doc = JSON.parse(readFileSync(file, "utf8"));
  change(doc[id]);
  writeFileSync(file, JSON.stringify(doc, null, 4));
};

async function score(roots: string[], ...flags: string[]): Promise<Results> {
  const out = at(`out-${++serial}.json`);
  const r = await run(["score", ...roots, "--format", "json", "--quiet", "--out", out, ...flags]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, "utf8")) as Results;
}
const exp = (d: Results): Experiment => d.experiments.find((e) => e.experiment === NAME)!;
const entry = (d: Results, id: string): BundleEntry => d.bundles.find((b) => b.trial === id)!;
const errorsOf = (b: BundleEntry) => b.errors.map((f) => `${f.code} ${f.file}`);
const flagsOf = (b: BundleEntry) => b.flags.map((f) => f.code);

const [A, B, F] = ["pallets__flask-4045", "pallets__flask-4992", "psf__requests-863"];
const [ASTROPY, DJANGO, SYMPY, XARRAY, GIN] = [
  "astropy__astropy-12907",
  "django__django-11099",
  "sympy__sympy-20590",
  "pydata__xarray-4094",
  "gin-gonic__gin-1805",
];

describe("recognition", () => {
  it("nothing below logs/build_images/ is a run; the same run below another folder of logs/ is", async () => {
    const moved = (under: string) =>
      work((x) => {
        mkdirSync(join(x, "logs", under, "x"), { recursive: true });
        renameSync(join(x, RUN), join(x, "logs", under, "x", "demo-run"));
      });
    const r = await run(["score", moved("build_images"), "-f", "json", "-q", "-o", at(`out-${++serial}.json`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing under .* is .*SWE-bench run's model folder/);
    expect((await score([moved("elsewhere")])).bundles.map((b) => b.trial)).toEqual([A, B, "psf__requests-2317", F]);
  });
});

describe("report.json, the final report and run.json are refused over 64 MiB, read at it", () => {
  const sized = (bytes: number) =>
    work((w) => {
      padTo(join(w, MODEL, A, "report.json"), bytes);
      padTo(join(w, REPORT), bytes);
      padTo(join(w, RUN, "run.json"), bytes);
    });
  it("64 MiB + 1: report.json FILE_TOO_LARGE (invalid), RUN_REPORT_UNREADABLE (no claims), run.json's dataset unknown", async () => {
    const d = await score([sized(MiB64 + 1)]);
    const a = entry(d, A);
    expect([a.validity, errorsOf(a)]).toEqual(["invalid", ["FILE_TOO_LARGE report.json"]]);
    const e = exp(d);
    expect(e.warnings.map((w) => [w.code, w.message])).toEqual([
      ["RUN_REPORT_UNREADABLE", expect.stringContaining(`${MiB64 + 1} bytes, more than assay reads`)],
    ]);
    expect([e.claimed, e.swe_bench!.dataset]).toEqual([null, null]);
  }, 60_000);
  it("64 MiB exactly: each is read", async () => {
    const d = await score([sized(MiB64)]);
    expect([entry(d, A).validity, entry(d, A).state]).toEqual(["valid", "resolved"]);
    const e = exp(d);
    expect([e.warnings, e.claimed?.source, e.swe_bench!.dataset]).toEqual([[], REPORT, "dataset.jsonl"]);
  }, 60_000);
});

describe("repoOf: the mappings no fixture instance exercises (MAP_REPO_TO_PARSER_PY at 7a21e05)", () => {
  it.each([
    ["marshmallow-code__marshmallow-1359", "marshmallow-code/marshmallow", "pytest"],
    ["pylint-dev__astroid-1196", "pylint-dev/astroid", "pytest"],
    ["pyvista__pyvista-4315", "pyvista/pyvista", "pytest"],
    ["sqlfluff__sqlfluff-1625", "sqlfluff/sqlfluff", "pytest"],
    ["pylint-dev__pylint-7080", "pylint-dev/pylint", "pytest_options"],
    ["pydicom__pydicom-1694", "pydicom/pydicom", "pytest_options"],
    ["sphinx-doc__sphinx-8721", "sphinx-doc/sphinx", "pytest_v2"],
  ])("%s → %s, %s", (id, repo, parser) => {
    expect(repoOf(id)).toEqual({ repo, parser });
  });
  it("a near name is unsupported", () => {
    expect(repoOf("pylint-dev__pylint-extra-1")).toEqual({ repo: "pylint-dev/pylint-extra", parser: null });
    expect(repoOf("sphinx__sphinx-1")).toEqual({ repo: "sphinx/sphinx", parser: null });
  });
});

describe("an unsupported repo's report is checked against itself", () => {
  it("resolved with a FAIL_TO_PASS failure: unverified, REPORT_INCONSISTENT (invalid); as written: unverified, valid", async () => {
    const m = instances([GIN], (x) =>
      reportOf(join(x, GIN), GIN, (r) => {
        (r["tests_status"] as any).FAIL_TO_PASS.failure = ["TestRouterGroup"];
      }),
    );
    const bad = entry(await score([m]), GIN);
    expect([bad.state, bad.validity, errorsOf(bad)]).toEqual([
      "unverified",
      "invalid",
      ["REPORT_INCONSISTENT report.json"],
    ]);
    const good = entry(await score([instances([GIN])]), GIN);
    expect([good.state, good.validity, good.errors]).toEqual(["unverified", "valid", []]);
  });
});

describe("states from an instance's files", () => {
  it("report.json and a test output holding >>>>> Tests Errored: tests-not-run, not_run names the marker", async () => {
    const m = instances([ASTROPY], (x) => appendFileSync(join(x, ASTROPY, "test_output.txt"), ">>>>> Tests Errored\n"));
    const b = entry(await score([m]), ASTROPY);
    expect([b.state, b.swe_bench!.not_run, b.swe_bench!.found]).toEqual([
      "tests-not-run",
      "marker:>>>>> Tests Errored",
      false,
    ]);
    const as = entry(await score([instances([ASTROPY])]), ASTROPY);
    expect([as.state, as.swe_bench!.not_run]).toEqual(["resolved", null]);
  });

  it("a readable report.json beside a Traceback in run_instance.log: the re-derived state, no exception; without it: error", async () => {
    const traceback = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: boom\n';
    const m = instances([ASTROPY], (x) => appendFileSync(join(x, ASTROPY, "run_instance.log"), traceback));
    const b = entry(await score([m]), ASTROPY);
    expect([b.state, b.exception, b.validity]).toEqual(["resolved", null, "valid"]);
    rmSync(join(m, ASTROPY, "report.json"));
    const e = entry(await score([m]), ASTROPY);
    expect([e.state, e.exception]).toEqual(["error", { type: "ValueError", message: "ValueError: boom", step: null }]);
  });

  it("--rewrite_reports: a timeout log beside a report saying applied and resolved is REPORT_MISMATCH; one saying neither is none", async () => {
    const withReport = (applied: boolean) =>
      instances([SYMPY], (x) =>
        writeFileSync(
          join(x, SYMPY, "report.json"),
          JSON.stringify({
            [SYMPY]: {
              patch_is_None: false,
              patch_exists: true,
              patch_successfully_applied: applied,
              resolved: applied,
              ...(applied
                ? {
                    tests_status: {
                      FAIL_TO_PASS: { success: ["test_structure"], failure: [] },
                      PASS_TO_PASS: { success: [], failure: [] },
                    },
                  }
                : {}),
            },
          }),
        ),
      );
    const bad = entry(await score([withReport(true)]), SYMPY);
    expect([bad.state, bad.validity, [...new Set(errorsOf(bad))]]).toEqual([
      "tests-timeout",
      "invalid",
      ["REPORT_MISMATCH report.json"],
    ]);
    const good = entry(await score([withReport(false)]), SYMPY);
    expect([good.state, good.validity, good.errors, good.exception?.type]).toEqual([
      "tests-timeout",
      "valid",
      [],
      "TestsTimeout",
    ]);
  });
});

describe("report.json read as §2 says", () => {
  const edited = (change: (text: string) => string) =>
    instances([ASTROPY], (x) => {
      const f = join(x, ASTROPY, "report.json");
      writeFileSync(f, change(readFileSync(f, "utf8")));
    });
  it("a duplicate resolved key: JSON_DUPLICATE_KEY; a BOM: ENCODING; each invalid; as written: valid", async () => {
    const dup = entry(
      await score([edited((t) => t.replace('"resolved": true,', '"resolved": false, "resolved": true,'))]),
      ASTROPY,
    );
    expect([dup.validity, errorsOf(dup)]).toEqual(["invalid", ["JSON_DUPLICATE_KEY report.json"]]);
    const bom = entry(await score([edited((t) => `\ufeff${t}`)]), ASTROPY);
    expect([bom.validity, errorsOf(bom)]).toEqual(["invalid", ["ENCODING report.json"]]);
    expect(entry(await score([edited((t) => t)]), ASTROPY).validity).toBe("valid");
  });
});

describe("INFRA_SIGNATURE: raised for unresolved, tests-not-run (and timeout, error); never for the other states", () => {
  const oom = { reason: "out_of_memory", tier: "environment" };
  it("tests-not-run (collected 0 items) and unresolved with a Killed line are flagged; unresolved without one is not", async () => {
    const d = await score([work((w) => appendFileSync(join(w, MODEL, B, "test_output.txt"), "Killed\n"))]);
    expect([entry(d, F).state, flagsOf(entry(d, F)), entry(d, F).swe_bench!.infra]).toEqual([
      "tests-not-run",
      ["INFRA_SIGNATURE"],
      { reason: "no_tests_collected", tier: "ambiguous" },
    ]);
    expect([entry(d, B).state, flagsOf(entry(d, B)), entry(d, B).swe_bench!.infra]).toEqual([
      "unresolved",
      ["INFRA_SIGNATURE"],
      oom,
    ]);
    const plain = entry(await score([work()]), B);
    expect([plain.state, flagsOf(plain), plain.swe_bench!.infra]).toEqual(["unresolved", [], null]);
  });
  it("resolved, incomplete, patch-apply-failed and unverified folders whose logs match: swe_bench.infra set, no flag", async () => {
    const m = instances([ASTROPY, XARRAY, DJANGO, GIN], (x) => {
      for (const id of [ASTROPY, XARRAY, DJANGO])
        appendFileSync(join(x, id, "run_instance.log"), "Cannot allocate memory\n");
      appendFileSync(join(x, GIN, "test_output.txt"), "Cannot allocate memory\n");
    });
    const d = await score([m]);
    expect(
      [ASTROPY, XARRAY, DJANGO, GIN].map((id) => [
        entry(d, id).state,
        flagsOf(entry(d, id)),
        entry(d, id).swe_bench!.infra,
      ]),
    ).toEqual([
      ["resolved", [], oom],
      ["incomplete", [], oom],
      ["patch-apply-failed", [], oom],
      ["unverified", [], oom],
    ]);
  });
});

describe("the experiment", () => {
  it("a tool error is unscored: not missing, not in states; scored, the same instance is in states", () => {
    const w = work((x) => chmodSync(join(x, MODEL, B, "test_output.txt"), 0o000));
    // Root reads every file: the run is made as nobody, who must reach the copy.
    execFileSync("chmod", ["a+rx", SCRATCH_DIR, join(w, "..")]);
    const r = spawnCli(["score", "-q", "--format", "json", w], { unprivileged: true });
    expect(r.code, r.stderr).toBe(3);
    const d = JSON.parse(r.stdout) as Results;
    expect([entry(d, B).validity, entry(d, B).errors.map((f) => f.code)]).toEqual(["error", ["IO_ERROR"]]);
    const e = exp(d);
    expect(e.unscored).toEqual([B]);
    expect(e.missing).toEqual([{ count: 1, reason: "in the dataset, not submitted (incomplete_ids)" }]);
    expect(e.flags.map((f) => f.code)).not.toContain("INSTANCE_MISSING");
    expect([e.states!["unresolved"], e.states!["missing"], Object.values(e.states!).reduce((a, b) => a + b)]).toEqual([
      0, 0, 5,
    ]);
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 3, trials: 5 });
  });

  it("an id in submitted_ids alone, without a folder: INSTANCE_MISSING, state missing, out of the mean; the recount stays over D", async () => {
    const X = "pallets__flask-9999";
    const d = await score([
      work((w) => {
        const file = join(w, REPORT);
        const r = JSON.parse(readFileSync(file, "utf8"));
        r.submitted_ids.push(X);
        r.submitted_instances = 6;
        writeFileSync(file, JSON.stringify(r, null, 4));
      }),
    ]);
    const e = exp(d);
    expect(e.flags.filter((f) => f.code !== "INFRA_SIGNATURE").map((f) => `${f.code} ${f.trial}`)).toEqual([
      `INSTANCE_MISSING ${X}`,
    ]);
    expect([e.states!["missing"], e.missing[0]]).toEqual([1, X]);
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 4, trials: 7 });
    expect(e.claimed!.compared.filter((c) => c.reason !== null).map((c) => [c.metric, c.claimed, c.assay])).toEqual([
      ["submitted_instances", 6, 5],
    ]);
  });

  it("wilson95 of the fixture run: 1 of 4 covered, and 1 of 5 under --errors zero", async () => {
    const [lo, hi] = exp(await score([work()])).rewards!["resolved"]!.wilson95!;
    expect([lo, hi].map((x) => x.toFixed(4))).toEqual(["0.0456", "0.6994"]);
    const [zlo, zhi] = exp(await score([work()], "--errors", "zero")).rewards!["resolved"]!.wilson95!;
    expect([zlo, zhi].map((x) => x.toFixed(4))).toEqual(["0.0362", "0.6245"]);
  });

  it("no final report and no predictions: report, total and submitted null; no run.json: dataset null", async () => {
    const e = exp(
      await score([
        work((w) => {
          rmSync(join(w, REPORT));
          rmSync(join(w, "preds.jsonl"));
          rmSync(join(w, RUN, "run.json"));
        }),
      ]),
    );
    expect(e.swe_bench).toMatchObject({ report: null, predictions: null, dataset: null, total: null, submitted: null });
    expect(exp(await score([work()])).swe_bench).toMatchObject({ dataset: "dataset.jsonl", total: 6, submitted: 5 });
  });

  it("a predictions file the harness could not load: PREDICTIONS_UNREADABLE among the experiment's warnings; a file of other records is no predictions", async () => {
    const first = JSON.stringify({ instance_id: A, model_name_or_path: "org/model-7b", model_patch: "" });
    const e = exp(await score([work((w) => writeFileSync(join(w, "a-preds.jsonl"), `${first}\n{"instance_id": \n`))]));
    expect(e.warnings.map((w) => [w.code, w.file?.endsWith("a-preds.jsonl")])).toEqual([
      ["PREDICTIONS_UNREADABLE", true],
    ]);
    expect(e.swe_bench!.predictions!.endsWith("preds.jsonl")).toBe(true);
    const other = exp(await score([work((w) => writeFileSync(join(w, "a-notes.json"), '{"x": 1}\n'))]));
    expect(other.warnings).toEqual([]);
  });
});

describe("the entry", () => {
  it("its digest covers image_assets/: a file added there changes it; scored again unchanged, it is the same", async () => {
    const m = instances([ASTROPY]);
    const before = entry(await score([m]), ASTROPY).digest;
    expect(entry(await score([m]), ASTROPY).digest).toBe(before);
    mkdirSync(join(m, ASTROPY, "image_assets"));
    writeFileSync(join(m, ASTROPY, "image_assets", "a.png"), "\x89PNG\r\n\x1a\n");
    expect(entry(await score([m]), ASTROPY).digest).not.toBe(before);
  });

  it("swe_bench.not_run no-markers and no-results, infra set; found null unsupported or without report.json, false when not run, true when run", async () => {
    const d = await score([
      work((w) =>
        writeFileSync(join(w, MODEL, A, "test_output.txt"), "+ pytest -rA tests/test_basic.py\nPASSED tests/x.py::t\n"),
      ),
    ]);
    expect(entry(d, A).swe_bench).toMatchObject({ not_run: "no-markers", found: false });
    expect(entry(d, F).swe_bench).toMatchObject({
      not_run: "no-results",
      found: false,
      infra: { reason: "no_tests_collected", tier: "ambiguous" },
    });
    expect(entry(d, B).swe_bench).toMatchObject({ not_run: null, found: true, infra: null });
    const i = await score([instances([GIN, XARRAY])]);
    expect([entry(i, GIN).swe_bench!.found, entry(i, XARRAY).swe_bench!.found]).toEqual([null, null]);
  });
});
