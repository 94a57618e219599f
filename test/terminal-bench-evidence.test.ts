// Issue 35 for Terminal-Bench runs: credit only where the evidence earns it. Each rule on both
// sides of its line, with real run folders written as `tb run` writes them and scored by the real
// CLI in-process (real workers): the attack's figure comes out as the honest one, and the honest
// neighbour is unchanged. Per-trial rules are also checked on the trial scorer itself.
//
// Workers run compiled code (dist/): `npm run build` first.
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_DOCUMENT_BYTES } from "../src/core/json/decode.js";
import type { Experiment, Results } from "../src/core/results.js";
import { MAX_LISTED_TRIALS } from "../src/kinds/terminal-bench/entry.js";
import { MAX_PANE_BYTES } from "../src/kinds/terminal-bench/panes.js";
import { recogniseRun } from "../src/kinds/terminal-bench/recognise.js";
import { diskBundle } from "../src/io/bundle-source.js";
import { scoreTerminalBenchTrial } from "../src/kinds/terminal-bench/trial.js";
import { run, spawnCli } from "./helpers/cli.js";
import { SCRATCH, scratch, SHARED_DIR } from "./helpers/shared.js";
import {
  json,
  pane,
  tbLock,
  tbTrial,
  trialName,
  writeRun,
  writeTbTrial,
  type TbTrialSpec,
} from "./helpers/terminal-bench.js";

/** The two real runs (../shared/real-world/terminal-bench), copied before any change. */
const REAL_RUNS = join(
  SHARED_DIR,
  "real-world",
  "terminal-bench",
  "David-kibobo--ai-challenges",
  "Tasks",
  "software-development",
  "051552bf_21cb_4d6e_985a_435764d87689_terminal_bench_fifo_medium",
  "model_run_logs",
);
const { dir: BASE } = scratch("assay-tb-evidence-", SCRATCH);
let serial = 0;
const fresh = (label: string) => join(BASE, `${label}-${++serial}`, "ev");

async function score(roots: string[], ...extra: string[]): Promise<Results & { stderr: string }> {
  const file = join(BASE, `out-${++serial}.json`);
  const r = await run(["score", ...roots, "--out", file, "--quiet", ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return { ...(JSON.parse(readFileSync(file, "utf8")) as Results), stderr: r.stderr };
}
const only = (doc: Results): Experiment => {
  expect(doc.experiments).toHaveLength(1);
  return doc.experiments[0]!;
};
const mean = (e: Experiment) => e.rewards?.["resolved"]?.mean ?? null;
const codes = (xs: readonly { code: string }[]) => xs.map((x) => x.code).sort();
const T = (task: string) => trialName({ task });

const FAILED: Partial<TbTrialSpec> = {
  parserResults: {
    test_fifo_exists: "failed",
    test_summary_json: "passed",
    "test_rotations - AssertionError: need ≥2 distinct users": "failed",
  },
};
/** Four trials, two resolved and two not (0.500); `d`'s folder is rewritten by each test. */
const FOUR: TbTrialSpec[] = [{ task: "a" }, { task: "b" }, { task: "c", ...FAILED }, { task: "d", ...FAILED }];
/** The run of FOUR with trial d as TB's harness exception in its list; `folder` writes d's folder (its results.json, its pane). */
function harnessRun(label: string, folder: (dir: string) => void): string {
  const trials = FOUR.map((t, i) => (i === 3 ? { task: "d", harness: true } : t));
  const dir = writeRun(join(fresh(label), "myrun"), { trials, absent: [3] });
  folder(dir);
  return dir;
}

// ---------------------------------------------------------------------------------------------

describe("rule 8a: a harness error the pane contradicts (HARNESS_ERROR_CONTRADICTED)", () => {
  it("no results.json (TB's harness exception) beside a pane with a FAILED summary: the pane decides, hard; the figure is 0.500, not 0.667", async () => {
    const dir = harnessRun("relabel", (d) =>
      writeTbTrial(d, { task: "d" }, { result: null, pane: pane("fail-wrapped.txt") }),
    );
    const e = only(await score([dir]));
    expect(e.invalid).toEqual([{ trial: T("d"), codes: ["HARNESS_ERROR_CONTRADICTED"] }]);
    expect(e.excluded).toEqual([]);
    expect(mean(e)).toBe(0.5);
    expect(e.rewards!["resolved"]).toMatchObject({ covered: 4, trials: 4 });
  });

  it("the same with the trial's results.json in TB's harness-exception shape", async () => {
    const dir = harnessRun("relabel-file", (d) =>
      writeTbTrial(d, { task: "d", harness: true }, { pane: pane("fail-wrapped.txt") }),
    );
    const e = only(await score([dir]));
    expect(e.invalid).toEqual([{ trial: T("d"), codes: ["HARNESS_ERROR_CONTRADICTED"] }]);
    expect(mean(e)).toBe(0.5);
  });

  it("the honest neighbour: a harness exception whose folder holds only commands.txt, or a pane with no test summary, is excluded as before (0.667)", async () => {
    for (const paneText of [undefined, pane("no-header.txt")]) {
      const dir = harnessRun("genuine", (d) =>
        writeTbTrial(d, { task: "d" }, { result: null, ...(paneText === undefined ? {} : { pane: paneText }) }),
      );
      const e = only(await score([dir]));
      expect([e.invalid, e.excluded.map((x) => x.trial)]).toEqual([[], [T("d")]]);
      expect(mean(e)).toBeCloseTo(2 / 3, 12);
    }
  });

  it("on the trial: the verdict, state and reward come from the pane; a harness entry with every test passed is still invalid (counted 0)", () => {
    const failing = writeTbTrial(
      join(fresh("unit"), "run"),
      { task: "d", harness: true },
      { pane: pane("fail-wrapped.txt") },
    );
    const f = scoreTerminalBenchTrial(diskBundle(failing));
    expect([f.validity, codes(f.errors), f.state, f.pass, f.rewards, f.reward_source, f.terminal_bench?.pane]).toEqual([
      "invalid",
      ["HARNESS_ERROR_CONTRADICTED"],
      "unresolved",
      null, // invalid evidence is credited with nothing; the verdict is its state and reward
      { resolved: 0 },
      "panes/post-test.txt (pytest)",
      "differs",
    ]);
    const passing = writeTbTrial(join(fresh("unit"), "run"), { task: "d" }, { result: null, pane: pane("pass.txt") });
    const p = scoreTerminalBenchTrial(diskBundle(passing));
    expect([p.validity, codes(p.errors), p.pass, p.state]).toEqual([
      "invalid",
      ["HARNESS_ERROR_CONTRADICTED"],
      null,
      "resolved",
    ]);
  });
});

describe("rule 8b: no verdict, yet pytest's complete summary shows a failure (PANE_FAILED_NO_VERDICT)", () => {
  /** FOUR with d's trial file and list entry under `mode`, no verdict, and `paneText` as its pane. */
  const noVerdictRun = (label: string, mode: string, paneText: string) => {
    const trials = FOUR.map((t, i) =>
      i === 3 ? { task: "d", failureMode: mode, parserResults: null, resolved: null } : t,
    );
    const dir = writeRun(join(fresh(label), "myrun"), { trials });
    writeFileSync(join(dir, "d", T("d"), "panes", "post-test.txt"), paneText);
    return dir;
  };

  for (const mode of ["test_timeout", "parse_error"]) {
    it(`${mode} beside a complete summary with a FAILED line counts unresolved: 0.500, not 0.667`, async () => {
      const e = only(await score([noVerdictRun(mode, mode, pane("fail-wrapped.txt"))]));
      expect(codes(e.warnings)).toEqual([]); // the trial's warning is its own (below)
      expect([e.invalid, e.excluded]).toEqual([[], []]);
      expect(e.states).toMatchObject({ unresolved: 2, "test-timeout": 0, "parse-error": 0 });
      expect(mean(e)).toBe(0.5);
    });
  }

  it("the honest neighbour: a test timeout's partial summary (no closing line) stays test-timeout and excluded (0.667)", async () => {
    const e = only(await score([noVerdictRun("partial", "test_timeout", pane("timeout-partial.txt"))]));
    expect(e.excluded).toEqual([{ trial: T("d"), reason: "test-timeout" }]);
    expect(mean(e)).toBeCloseTo(2 / 3, 12);
  });

  it("on the trial: unresolved with its failure mode kept; a complete summary with every test passed decides nothing", () => {
    const dir = writeTbTrial(
      join(fresh("unit"), "run"),
      { failureMode: "test_timeout", parserResults: null, resolved: null },
      { pane: pane("fail-wrapped.txt") },
    );
    const e = scoreTerminalBenchTrial(diskBundle(dir));
    expect([e.validity, codes(e.warnings), e.state, e.pass, e.exception?.type]).toEqual([
      "valid",
      ["PANE_FAILED_NO_VERDICT"],
      "unresolved",
      false,
      "test_timeout",
    ]);
    const passed = writeTbTrial(
      join(fresh("unit"), "run"),
      { failureMode: "parse_error", parserResults: null, resolved: null },
      { pane: pane("pass.txt") },
    );
    const p = scoreTerminalBenchTrial(diskBundle(passed));
    expect([p.state, p.pass, codes(p.warnings)]).toEqual(["parse-error", null, ["PANE_NOT_REDERIVED"]]);
  });

  it("a results.json a killed writer cut short beside a complete failing summary counts unresolved; beside a passing one it stays incomplete", () => {
    const cut = json(tbTrial({ task: "d" })).slice(0, 40);
    const failing = scoreTerminalBenchTrial(
      diskBundle(
        writeTbTrial(join(fresh("unit"), "run"), { task: "d" }, { result: cut, pane: pane("fail-wrapped.txt") }),
      ),
    );
    expect([failing.state, failing.pass, codes(failing.warnings)]).toEqual([
      "unresolved",
      false,
      ["PANE_FAILED_NO_VERDICT", "RESULT_TRUNCATED"],
    ]);
    const passing = scoreTerminalBenchTrial(
      diskBundle(writeTbTrial(join(fresh("unit"), "run"), { task: "d" }, { result: cut, pane: pane("pass.txt") })),
    );
    expect([passing.state, passing.pass]).toEqual(["incomplete", null]);
  });
});

// ---------------------------------------------------------------------------------------------

const PASS3: Record<string, "passed" | "failed"> = {
  test_fifo_exists: "passed",
  test_summary_json: "passed",
  test_rotations: "passed",
};
const RESOLVED: Partial<TbTrialSpec> = { parserResults: PASS3 };
/** Each trial's pane as TB captured it (pass.txt or fail-wrapped.txt by its claim), except those in `paneless`. */
function writePanes(dir: string, trials: TbTrialSpec[], paneless: string[] = []): void {
  for (const t of trials) {
    if (paneless.includes(t.task!)) continue;
    const passed = Object.values(t.parserResults ?? {}).every((s) => s === "passed");
    writeFileSync(
      join(dir, t.task!, trialName(t), "panes", "post-test.txt"),
      pane(passed ? "pass.txt" : "fail-wrapped.txt"),
    );
  }
}
/** The run's results.json made unreadable three ways: cut after its first entry, over 64 MiB, over 20,000 entries. */
const UNREADABLE: Record<string, (file: string) => void> = {
  "cut after one entry": (file) => {
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.slice(0, text.indexOf("\n        },\n") + "\n        }".length));
  },
  "over 64 MiB": (file) => truncateSync(file, MAX_DOCUMENT_BYTES + 1),
  [`over ${MAX_LISTED_TRIALS} entries`]: (file) => {
    const doc = JSON.parse(readFileSync(file, "utf8")) as { results: unknown[] };
    const first = doc.results[0];
    doc.results = [...doc.results, ...Array.from({ length: MAX_LISTED_TRIALS }, () => first)];
    writeFileSync(file, JSON.stringify(doc));
  },
};

describe("rule 15a: a run list that cannot be read switches off no credit check (TRIAL_UNCHECKED)", () => {
  const TRIALS: TbTrialSpec[] = [
    { task: "a", ...RESOLVED },
    { task: "b", ...RESOLVED },
    { task: "c", ...FAILED },
    { task: "d", ...FAILED },
  ];
  /** TRIALS, d's file edited to resolved with its pane removed (the list keeps its failure). */
  const edited = (label: string) => {
    const dir = writeRun(join(fresh(label), "myrun"), {
      trials: TRIALS,
      editTrial: { 3: (t) => Object.assign(t, { is_resolved: true, parser_results: PASS3 }) },
    });
    writePanes(dir, TRIALS, ["d"]);
    return dir;
  };

  it("with the list readable the edit is TRIAL_RUN_MISMATCH: 0.500", async () => {
    const e = only(await score([edited("readable")]));
    expect(e.invalid).toEqual([{ trial: T("d"), codes: ["TRIAL_RUN_MISMATCH"] }]);
    expect(mean(e)).toBe(0.5);
  });

  for (const [how, spoil] of Object.entries(UNREADABLE)) {
    it(`list ${how}: the edited trial, vouched for by its own file alone, earns nothing: 0.500, not 0.750`, async () => {
      const dir = edited(how.replace(/\W+/g, "-"));
      spoil(join(dir, "results.json"));
      const e = only(await score([dir]));
      expect(codes(e.warnings)).toContain("RUN_FILE_UNREADABLE");
      expect(e.invalid).toEqual([{ trial: T("d"), codes: ["TRIAL_UNCHECKED"] }]);
      expect(mean(e)).toBe(0.5);
    });
  }

  it("the honest neighbour: the unedited run with its list cut keeps 0.500, nothing invalid (every verdict re-derived from its pane)", async () => {
    const dir = writeRun(join(fresh("honest"), "myrun"), { trials: TRIALS });
    writePanes(dir, TRIALS);
    UNREADABLE["cut after one entry"]!(join(dir, "results.json"));
    const e = only(await score([dir]));
    expect([e.invalid, mean(e)]).toEqual([[], 0.5]);
  });

  it("a renamed copy with its pane keeps its original's id: TRIAL_DUPLICATE with no list to catch it (0.400, not 0.500 under --invalid exclude)", async () => {
    const five: TbTrialSpec[] = [
      { task: "a", ...RESOLVED },
      { task: "b", ...RESOLVED },
      { task: "c", ...FAILED },
      { task: "d", ...FAILED },
      { task: "e", ...FAILED },
    ];
    const dir = writeRun(join(fresh("copy-id"), "myrun"), { trials: five });
    writePanes(dir, five);
    const copy = join(dir, "a", trialName({ task: "a", attempt: 2, of: 2 }));
    cpSync(join(dir, "a", T("a")), copy, { recursive: true });
    const doc = JSON.parse(readFileSync(join(copy, "results.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(
      join(copy, "results.json"),
      json({ ...doc, trial_name: trialName({ task: "a", attempt: 2, of: 2 }) }),
    );
    UNREADABLE["cut after one entry"]!(join(dir, "results.json"));
    const e = only(await score([dir], "--invalid", "exclude"));
    expect([e.invalid, mean(e)]).toEqual([
      [{ trial: trialName({ task: "a", attempt: 2, of: 2 }), codes: ["TRIAL_DUPLICATE"] }],
      0.4,
    ]);
    // The honest neighbour: the same run without the copy has nothing invalid.
    rmSync(copy, { recursive: true });
    const clean = only(await score([dir], "--invalid", "exclude"));
    expect([clean.invalid, mean(clean)]).toEqual([[], 0.4]);
  });

  it("an unlisted copy without a pane counts 0 when the list cannot be read (0.400, not 0.500), as TRIAL_UNLISTED makes it with the list read", async () => {
    const five: TbTrialSpec[] = [
      { task: "a", ...RESOLVED },
      { task: "b", ...RESOLVED },
      { task: "c", ...FAILED },
      { task: "d", ...FAILED },
      { task: "e", ...FAILED },
    ];
    const copy = (label: string) => {
      const dir = writeRun(join(fresh(label), "myrun"), {
        trials: five,
        unlisted: [{ task: "f", ...RESOLVED }],
        metadata: { task_ids: ["a", "b", "c", "d", "e", "f"], dataset_size: 6 },
      });
      writePanes(dir, five);
      return dir;
    };
    const read = only(await score([copy("copy-read")], "--invalid", "exclude"));
    expect([read.invalid, mean(read)]).toEqual([[{ trial: T("f"), codes: ["TRIAL_UNLISTED"] }], 0.4]);
    const dir = copy("copy-cut");
    UNREADABLE["cut after one entry"]!(join(dir, "results.json"));
    const cut = only(await score([dir], "--invalid", "exclude"));
    expect([cut.invalid, mean(cut)]).toEqual([[{ trial: T("f"), codes: ["TRIAL_UNCHECKED"] }], 0.4]);
  });
});

// ---------------------------------------------------------------------------------------------

/** JSON with every object's keys sorted (what `json.dumps(sort_keys=True)` writes): `instruction` comes before `trial_name`. */
const sortedJson = (v: unknown): string =>
  JSON.stringify(
    v,
    (_k, x: unknown) =>
      x !== null && typeof x === "object" && !Array.isArray(x)
        ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
        : x,
    4,
  );

describe("rule 1: recognition reads as far as the answer needs, and says what it cannot decide", () => {
  const LONG = "Do this. ".repeat(10_000); // 90 KB of instruction, before trial_name when keys are sorted
  const sortedRun = (label: string, instruction: string) => {
    const dir = writeRun(join(fresh(label), "myrun"), {
      trials: [
        { task: "a", extra: { instruction } },
        { task: "b", ...FAILED, extra: { instruction } },
      ],
    });
    writeFileSync(join(dir, "results.json"), sortedJson(JSON.parse(readFileSync(join(dir, "results.json"), "utf8"))));
    return dir;
  };

  it("a run whose first entry holds more than 64 KiB before trial_name is a run: its trials are scored (they vanished before)", async () => {
    const doc = await score([sortedRun("long", LONG)]);
    const e = only(doc);
    expect(e.experiment).toBe("myrun");
    expect(doc.bundles.map((b) => b.trial).sort()).toEqual([T("a"), T("b")]);
    expect([e.invalid, e.warnings, mean(e)]).toEqual([[], [], 0.5]);
  });

  it("the honest neighbour: a short sorted run is a run as before; a results.json of other objects with a long first entry is not", async () => {
    expect(only(await score([sortedRun("short", "Say hello.")])).rewards!["resolved"]).toMatchObject({
      mean: 0.5,
      trials: 2,
    });
    const root = fresh("other");
    mkdirSync(join(root, "x"), { recursive: true });
    writeFileSync(
      join(root, "x", "results.json"),
      sortedJson({ results: [{ description: LONG, name: "x", score: 1 }] }),
    );
    writeRun(join(root, "good"), { trials: [{ task: "a" }] });
    const doc = await score([root]);
    expect(doc.experiments.map((x) => x.experiment)).toEqual(["good"]);
  });

  it("a results.json that ends inside its first trial entry is a run whose list cannot be read, said, never passed over", async () => {
    const dir = sortedRun("cut", LONG);
    const text = readFileSync(join(dir, "results.json"), "utf8");
    writeFileSync(join(dir, "results.json"), text.slice(0, text.indexOf(LONG) + 70_000));
    const e = only(await score([dir]));
    expect(codes(e.warnings)).toContain("RUN_FILE_UNREADABLE");
    // No pane re-derives the trials' verdicts, and no list checks them: neither earns credit (rule 15a).
    expect(e.invalid.map((x) => x.codes)).toEqual([["TRIAL_UNCHECKED"], ["TRIAL_UNCHECKED"]]);
    expect(mean(e)).toBe(0);
  });

  it("a results.json cut before its list, beside task folders, is a run whose list cannot be read; without task folders it is none", async () => {
    const dir = sortedRun("cutearly", "Say hello.");
    writeFileSync(join(dir, "results.json"), '{"id": "ca9c48cd", "resu');
    const e = only(await score([dir]));
    expect([e.experiment, codes(e.warnings).includes("RUN_FILE_UNREADABLE"), e.invalid.length]).toEqual([
      "myrun",
      true,
      2,
    ]);
    const root = fresh("cutearly-other");
    mkdirSync(join(root, "x", "notes"), { recursive: true });
    writeFileSync(join(root, "x", "results.json"), '{"id": "ca9c48cd", "resu');
    writeRun(join(root, "good"), { trials: [{ task: "a" }] });
    expect((await score([root])).experiments.map((x) => x.experiment)).toEqual(["good"]);
  });

  it("on the head: undecided asks for more, a final head inside the first entry is a run, one before it is not", () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    const none = { tbLock: false, runMetadata: false };
    const entry = `{"id": "x", "results": [{"instruction": "${"y".repeat(100)}`;
    expect(recogniseRun(bytes(entry), none)).toMatchObject({ run: false, more: true });
    expect(recogniseRun(bytes(entry), none, true)).toMatchObject({ run: true });
    expect(recogniseRun(bytes('{"id": "xx'), none)).toMatchObject({ run: false, more: true });
    expect(recogniseRun(bytes('{"id": "xx'), none, true)).toEqual({
      run: false,
      reason: expect.any(String),
      cut: true,
    });
    expect(recogniseRun(bytes(`${entry}", "name": "n"}]}`), none, true)).toEqual({
      run: false,
      reason: expect.any(String),
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("one verdict everywhere: a trial the run's rules make invalid is invalid in bundles[], the tally and the table", () => {
  it("TRIAL_RUN_MISMATCH and TRIAL_UNLISTED: the entry is invalid with the finding, the summary line counts it; the clean trials stay valid", async () => {
    const dir = writeRun(join(fresh("oneverdict"), "myrun"), {
      trials: [{ task: "a" }, { task: "b" }, { task: "c" }],
      unlisted: [{ task: "d" }],
      editTrial: { 1: (t) => void (t["instruction"] = "Say goodbye.") },
    });
    const file = join(BASE, `out-${++serial}.json`);
    const r = await run(["score", dir, "--out", file]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(file, "utf8")) as Results;
    const byTrial = Object.fromEntries(doc.bundles.map((b) => [b.trial, [b.validity, codes(b.errors)]]));
    expect(byTrial).toEqual({
      [T("a")]: ["valid", []],
      [T("b")]: ["invalid", ["TRIAL_RUN_MISMATCH"]],
      [T("c")]: ["valid", []],
      [T("d")]: ["invalid", ["TRIAL_UNLISTED"]],
    });
    expect(doc.bundles.find((b) => b.trial === T("b"))!.errors[0]).toMatchObject({
      file: "results.json",
      message: expect.stringContaining("instruction"),
    });
    expect(only(doc).invalid.map((x) => x.trial)).toEqual([T("b"), T("d")]);
    const table = await run(["score", dir, "--quiet"]);
    expect(table.stdout).toContain("4 Terminal-Bench trials: 2 valid, 2 invalid, 0 tool errors");
  });

  it("verify gives the same verdict: the run's invalid trial, its finding on the entry, exit 1", () => {
    const dir = writeRun(join(fresh("oneverdict-verify"), "myrun"), {
      trials: [{ task: "a" }, { task: "b" }],
      editTrial: { 1: (t) => void (t["instruction"] = "Say goodbye.") },
    });
    const v = spawnCli(["verify", dir]);
    expect(v.code, v.stderr).toBe(1);
    expect(v.stdout).toContain(`invalid  ${T("b")}  TRIAL_RUN_MISMATCH`);
    expect(v.stdout).toMatch(new RegExp(`${T("b").replace(/\./g, "\\.")}: invalid`));
  });

  it("the honest neighbour: a clean run's entries are all valid, as its summary says", async () => {
    const dir = writeRun(join(fresh("oneverdict-clean"), "myrun"), { trials: [{ task: "a" }, { task: "b" }] });
    const doc = await score([dir]);
    expect(doc.bundles.map((b) => b.validity)).toEqual(["valid", "valid"]);
    expect(doc.stderr).toBe("");
  });
});

// ---------------------------------------------------------------------------------------------

describe("renamed trial folders: unverified, not differs; verify reads the run; the folder is named (TRIAL_FOLDER_UNNAMED)", () => {
  /** A run of a and b whose b trial folder was renamed `renamed`. */
  const renamedRun = (label: string) => {
    const dir = writeRun(join(fresh(label), "myrun"), { trials: [{ task: "a" }, { task: "b", ...FAILED }] });
    renameSync(join(dir, "b", T("b")), join(dir, "b", "renamed"));
    return dir;
  };
  const row = (stdout: string) => stdout.split("\n").find((l) => l.startsWith("myrun"))!;

  it("score: the table says unverified where the evidence could not give TB's figures, and TRIAL_MISSING names the folder", async () => {
    const dir = renamedRun("renamed");
    const e = only(await score([dir]));
    expect(e.claimed!.compared.every((c) => c.assay === null)).toBe(true);
    expect(codes(e.warnings)).toEqual(["TRIAL_FOLDER_UNNAMED", "TRIAL_MISSING"]);
    expect(e.warnings.find((w) => w.code === "TRIAL_FOLDER_UNNAMED")!.file).toBe("b/renamed");
    expect(e.warnings.find((w) => w.code === "TRIAL_MISSING")!.message).toContain(
      "b/renamed, in its task folder, is not named as a trial",
    );
    const table = await run(["score", dir, "--quiet"]);
    expect(row(table.stdout)).toContain("3 figures unverified");
  });

  it("verify takes the run folder score reads, and names the folder holding the missing trial", () => {
    const r = spawnCli(["verify", renamedRun("verify")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("TRIAL_FOLDER_UNNAMED b/renamed");
    expect(r.stdout).toContain(`missing  ${T("b")}`);
    // --json: the run's trials as an array (its one found trial), as a Harbor job's are.
    const j = spawnCli(["verify", "--json", renamedRun("verify-json")]);
    expect([j.code, (JSON.parse(j.stdout) as { trial: string }[]).map((e) => e.trial)]).toEqual([0, [T("a")]]);
  });

  it("the honest neighbours: a run as TB wrote it agrees and says nothing; a claim its list does not give still differs", async () => {
    const clean = writeRun(join(fresh("named"), "myrun"), { trials: [{ task: "a" }, { task: "b", ...FAILED }] });
    const e = only(await score([clean]));
    expect(e.warnings).toEqual([]);
    expect(row((await run(["score", clean, "--quiet"])).stdout)).toContain("3 figures agrees");
    const edited = writeRun(join(fresh("claim"), "myrun"), {
      trials: [{ task: "a" }, { task: "b", ...FAILED }],
      results: (r) => void (r["accuracy"] = 1),
    });
    expect(row((await run(["score", edited, "--quiet"])).stdout)).toContain("3 figures differs");
    const v = spawnCli(["verify", clean]);
    expect([v.code, v.stdout.split("\n")[0]]).toEqual([0, `${clean}: Terminal-Bench run myrun, 2 trials`]);
  });

  it.runIf(existsSync(REAL_RUNS))(
    "the real runs with their trial folders renamed: unverified, verify reads each, the folder named",
    async () => {
      const root = fresh("real-renamed");
      cpSync(REAL_RUNS, root, { recursive: true });
      for (const r of readdirSync(root)) {
        const task = readdirSync(join(root, r)).find((f) => statSync(join(root, r, f)).isDirectory())!;
        renameSync(join(root, r, task, readdirSync(join(root, r, task))[0]!), join(root, r, task, "trial-renamed"));
        const v = spawnCli(["verify", join(root, r)]);
        expect(v.code, v.stderr).toBe(0);
        expect(v.stdout).toContain(`${task}/trial-renamed`);
      }
      const table = await run(["score", root, "--quiet"]);
      for (const r of readdirSync(root))
        expect(table.stdout.split("\n").find((l) => l.startsWith(r))).toContain("3 figures unverified");
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe("what an unreadable file may switch off (issue 35 §2, reviewed place by place)", () => {
  const cut = (file: string) => writeFileSync(file, readFileSync(file, "utf8").slice(0, 60));

  it("a listed trial's results.json cut short: TRIAL_UNCHECKED, counted 0 (0.500), not left out (it was 1.000)", async () => {
    const dir = writeRun(join(fresh("cutlisted"), "myrun"), { trials: [{ task: "a" }, { task: "b", ...FAILED }] });
    cut(join(dir, "b", T("b"), "results.json"));
    const e = only(await score([dir]));
    expect(e.invalid).toEqual([{ trial: T("b"), codes: ["TRIAL_UNCHECKED"] }]);
    expect([e.excluded, mean(e)]).toEqual([[], 0.5]);
  });

  it("a listed trial's results.json replaced by a link (never followed): TRIAL_UNCHECKED too (0.500, not 1.000)", async () => {
    const dir = writeRun(join(fresh("linklisted"), "myrun"), { trials: [{ task: "a" }, { task: "b", ...FAILED }] });
    const file = join(dir, "b", T("b"), "results.json");
    renameSync(file, join(dir, "elsewhere.json"));
    symlinkSync(join(dir, "elsewhere.json"), file);
    const e = only(await score([dir]));
    expect([e.invalid, mean(e)]).toEqual([[{ trial: T("b"), codes: ["TRIAL_UNCHECKED"] }], 0.5]);
  });

  it("an unlisted trial folder whose results.json is cut short is TRIAL_UNLISTED, as it would be whole (0.500, not 1.000)", async () => {
    const dir = writeRun(join(fresh("cutunlisted"), "myrun"), {
      trials: [{ task: "a" }],
      unlisted: [{ task: "b", ...FAILED }],
      metadata: { task_ids: ["a", "b"], dataset_size: 2 },
    });
    cut(join(dir, "b", T("b"), "results.json"));
    const e = only(await score([dir]));
    expect(e.invalid).toEqual([{ trial: T("b"), codes: ["TRIAL_UNLISTED"] }]);
    expect(mean(e)).toBe(0.5);
  });

  it("the honest neighbours: a listed harness exception's folder with only commands.txt stays excluded; a whole file is checked as before", async () => {
    const dir = writeRun(join(fresh("cuthonest"), "myrun"), {
      trials: [{ task: "a" }, { task: "b", harness: true }, { task: "c", ...FAILED }],
      absent: [1],
    });
    writeTbTrial(dir, { task: "b" }, { result: null });
    const e = only(await score([dir]));
    expect([e.invalid, e.excluded.map((x) => x.trial), mean(e)]).toEqual([[], [T("b")], 0.5]);
  });
});

describe("rule 7a: a pane TB could not have written checks nothing, so a resolved claim beside it earns nothing (PANE_UNREADABLE)", () => {
  /** a resolved; b's list entry and file both rewritten to resolved, beside its real (failing) pane, `spoil`ed or not. */
  const run2 = (label: string, spoil: (file: string) => void) => {
    const trials: TbTrialSpec[] = [
      { task: "a", ...RESOLVED },
      { task: "b", ...RESOLVED },
    ];
    const dir = writeRun(join(fresh(label), "myrun"), { trials });
    writePanes(dir, [trials[0]!]);
    const file = join(dir, "b", T("b"), "panes", "post-test.txt");
    writeFileSync(file, pane("fail-wrapped.txt"));
    spoil(file);
    return dir;
  };

  it("the failing pane padded past 16 MiB: 0.500, not 1.000 with a warning", async () => {
    const e = only(await score([run2("padded", (f) => truncateSync(f, MAX_PANE_BYTES + 1))]));
    expect([e.invalid, mean(e)]).toEqual([[{ trial: T("b"), codes: ["PANE_UNREADABLE"] }], 0.5]);
  });

  it("the honest neighbour: the same pane readable is PANE_MISMATCH (0.500); a readable pane that agrees stays valid", async () => {
    const e = only(await score([run2("readable", () => {})]));
    expect([e.invalid, mean(e)]).toEqual([[{ trial: T("b"), codes: ["PANE_MISMATCH"] }], 0.5]);
    const ok = only(await score([run2("agrees", (f) => writeFileSync(f, pane("pass.txt")))]));
    expect([ok.invalid, mean(ok)]).toEqual([[], 1]);
  });
});

describe("a run's results.json that cannot be opened (permissions) is a run whose list cannot be read, never dropped", () => {
  /** `assay score` as a user who cannot read what is chmod 000 (root reads everything). */
  const scoreAsOther = (dir: string) => {
    for (let p = dir; p.startsWith(BASE); p = join(p, "..")) chmodSync(p, 0o755);
    chmodSync(BASE, 0o755);
    const r = spawnCli(["score", "-q", "--format", "json", dir], { unprivileged: true });
    return { code: r.code, stderr: r.stderr, doc: r.code === 0 ? (JSON.parse(r.stdout) as Results) : null };
  };

  it("its trials are scored under rule 15a (pane-less: TRIAL_UNCHECKED), the run's warning says why", () => {
    const dir = writeRun(join(fresh("shutlist"), "myrun"), { trials: [{ task: "a" }, { task: "b", ...FAILED }] });
    chmodSync(join(dir, "results.json"), 0o000);
    const r = scoreAsOther(dir);
    chmodSync(join(dir, "results.json"), 0o644);
    expect(r.code, r.stderr).toBe(0);
    const e = only(r.doc!);
    expect(e.experiment).toBe("myrun");
    expect(codes(e.warnings)).toContain("RUN_FILE_UNREADABLE");
    expect(e.invalid.map((x) => x.codes)).toEqual([["TRIAL_UNCHECKED"], ["TRIAL_UNCHECKED"]]);
    expect(mean(e)).toBe(0);
  });

  it("the honest neighbour: an unreadable results.json in a folder with no task folder is no run (nothing scored, as before)", () => {
    const root = fresh("shutother");
    writeRun(join(root, "good"), { trials: [{ task: "a" }] });
    mkdirSync(join(root, "misc", "notes"), { recursive: true });
    writeFileSync(join(root, "misc", "results.json"), "{}");
    chmodSync(join(root, "misc", "results.json"), 0o000);
    const r = scoreAsOther(root);
    chmodSync(join(root, "misc", "results.json"), 0o644);
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc!.experiments.map((x) => x.experiment)).toEqual(["good"]);
  });
});

describe("run_metadata.json that cannot be read: the plan still counts against the run when tb.lock holds it", () => {
  const planned = (label: string, spoil: boolean) => {
    const dir = writeRun(join(fresh(label), "myrun"), {
      trials: [{ task: "a" }, { task: "b" }],
      metadata: { task_ids: ["a", "b", "c"], dataset_size: 3 },
      lock: tbLock({ task_ids: ["a", "b", "c"] }),
    });
    if (spoil) writeFileSync(join(dir, "run_metadata.json"), '{"run_id": ');
    return dir;
  };
  it("cut short: the planned-but-unlisted trial is still missing, coverage 2/3 as with the file read", async () => {
    for (const spoil of [false, true]) {
      const e = only(await score([planned(`plan-${spoil}`, spoil)]));
      expect(e.missing, String(spoil)).toEqual([{ count: 1, reason: expect.stringContaining("planned") }]);
      expect(e.rewards!["resolved"]).toMatchObject({ covered: 2, trials: 3 });
      expect(codes(e.warnings).includes("RUN_FILE_UNREADABLE")).toBe(spoil);
    }
  });
});

describe("run_metadata.json and tb.lock both unreadable: the plan is unknown, and so is coverage (issue 35)", () => {
  /** Two of three planned trials listed and on disk; `cut` spoils the files holding the plan. */
  const planned = (label: string, cut: readonly ("run_metadata.json" | "tb.lock")[]) => {
    const dir = writeRun(join(fresh(label), "myrun"), {
      trials: [{ task: "a" }, { task: "b" }],
      metadata: { task_ids: ["a", "b", "c"], dataset_size: 3 },
      lock: tbLock({ task_ids: ["a", "b", "c"] }),
    });
    for (const f of cut) writeFileSync(join(dir, f), '{"run_id": ');
    return dir;
  };
  it("both cut: coverage null with the reason, never the trials present over themselves (2/3 → 2/2 = 1.000 before)", async () => {
    const e = only(await score([planned("plan-lost", ["run_metadata.json", "tb.lock"])]));
    expect(e.rewards!["resolved"]).toMatchObject({
      mean: 1,
      covered: 2,
      trials: 2,
      coverage: null,
      coverage_reason: expect.stringMatching(/^plan unknown: run_metadata\.json and tb\.lock/),
    });
  });
  it("the other side: either file readable keeps the plan, coverage 2/3 and no reason", async () => {
    for (const cut of [[], ["run_metadata.json"], ["tb.lock"]] as const) {
      const r = only(await score([planned(`plan-kept-${cut.length}`, cut)])).rewards!["resolved"]!;
      expect([r.covered, r.trials, r.coverage, r.coverage_reason], cut.join()).toEqual([2, 3, 2 / 3, undefined]);
    }
  });
});
