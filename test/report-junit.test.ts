// `--format junit` (issue 15): one <testsuite> per experiment, one <testcase> per bundle entry
// (and per missing trial): invalid evidence a <failure>, a tool error an <error>, what enters no
// figure <skipped> with the reason. Valid against the junit-10.xsd Jenkins reads (kept in
// test/fixtures, checked with xmllint), whatever the folder names hold; streamed, a testcase at a time.
import { spawnSync } from "node:child_process";
import { cpSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "xmlbuilder2";
import { beforeAll, describe, expect, it, type TestContext } from "vitest";
import {
  blankEntry,
  viewOf,
  type BundleEntry,
  type Experiment,
  type Results,
  type ResultsView,
} from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { renderText } from "../src/report/index.js";
import { render } from "../src/report/junit.js";
import { bundle, game, live, writeFiles, type GameOpts } from "./helpers/bundle.js";
import { run } from "./helpers/cli.js";
import { writeEveryKind } from "./helpers/corpus.js";
import { scratch } from "./helpers/shared.js";

const XSD = new URL("./fixtures/junit-10.xsd", import.meta.url).pathname;
const XMLLINT = spawnSync("xmllint", ["--version"]).status === 0;
const { dir: tmp } = scratch("assay-junit-");
let corpus: string;

beforeAll(async () => {
  corpus = join(tmp, "corpus");
  await writeEveryKind(corpus, "junit");
});

/** Validate against the XSD with xmllint; without xmllint the test is skipped, visibly (CI installs it). */
function expectValid(xml: string, ctx: TestContext): void {
  if (!XMLLINT) {
    if (process.env["CI"]) throw new Error("xmllint is required under CI (apt-get install libxml2-utils)");
    return ctx.skip("xmllint is not installed: the XSD check is skipped");
  }
  const file = join(tmp, `check-${Math.random().toString(36).slice(2)}.xml`);
  writeFileSync(file, xml);
  const r = spawnSync("xmllint", ["--noout", "--schema", XSD, file], { encoding: "utf8" });
  expect(r.stderr).toContain("validates");
  expect(r.status).toBe(0);
}

/** The DOM xmlbuilder2 parses into, as far as these tests read it. */
interface El {
  nodeName: string;
  nodeType: number;
  childNodes: Iterable<El>;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): { length: number };
}
const kids = (e: El, name: string): El[] =>
  [...e.childNodes].filter((n): n is El => n.nodeType === 1 && n.nodeName === name);
const parse = (xml: string): El => create(xml).root().node as unknown as El;

interface Case {
  suite: string;
  name: string;
  kind: "passed" | "failure" | "error" | "skipped";
  message: string | null;
  body: string;
  out: string;
}

/** Every testcase, and each suite's counts checked against its children (and the root's against the suites'). */
function cases(xml: string): { suites: El[]; cases: Case[] } {
  const root = parse(xml);
  expect(root.nodeName).toBe("testsuites");
  const suites = kids(root, "testsuite");
  const all: Case[] = [];
  const total = { tests: 0, failures: 0, errors: 0 };
  for (const s of suites) {
    const mine: Case[] = kids(s, "testcase").map((t) => {
      const v = (["failure", "error", "skipped"] as const).find((k) => kids(t, k).length > 0);
      const el = v === undefined ? null : kids(t, v)[0]!;
      expect(t.getAttribute("classname")).toBe(s.getAttribute("name"));
      return {
        suite: s.getAttribute("name")!,
        name: t.getAttribute("name")!,
        kind: v ?? "passed",
        message: el?.getAttribute("message") ?? null,
        body: el?.textContent ?? "",
        out: kids(t, "system-out")[0]?.textContent ?? "",
      };
    });
    const n = (k: Case["kind"]) => String(mine.filter((c) => c.kind === k).length);
    expect(
      [s.getAttribute("tests"), s.getAttribute("failures"), s.getAttribute("errors"), s.getAttribute("skipped")],
      s.getAttribute("name")!,
    ).toEqual([String(mine.length), n("failure"), n("error"), n("skipped")]);
    total.tests += mine.length;
    total.failures += mine.filter((c) => c.kind === "failure").length;
    total.errors += mine.filter((c) => c.kind === "error").length;
    all.push(...mine);
  }
  expect([root.getAttribute("tests"), root.getAttribute("failures"), root.getAttribute("errors")]).toEqual(
    [total.tests, total.failures, total.errors].map(String),
  );
  return { suites, cases: all };
}

const kindOf = (x: Pick<Experiment, "profile">) =>
  x.profile === "harbor" || x.profile === "inspect" ? x.profile : "assay";
const bundleKind = (b: BundleEntry) => (b.profile === "harbor" || b.profile === "inspect" ? b.profile : "assay");

describe("--format junit on the demo corpus", () => {
  it("is valid against junit-10.xsd; a suite per experiment whose counts agree with its testcases and with the JSON document", async (ctx) => {
    const doc = JSON.parse((await run(["score", corpus, "--format", "json", "--quiet"])).stdout) as Results;
    const r = await run(["score", corpus, "--format", "junit", "--quiet"]);
    expect(r.code).toBe(0);
    const { suites, cases: all } = cases(r.stdout);
    expect(suites.map((s) => s.getAttribute("name")).sort()).toEqual(doc.experiments.map((e) => e.experiment).sort());
    expect(all.length).toBe(doc.bundles.length); // nothing missing in this corpus: a testcase per bundle
    for (const e of doc.experiments) {
      const mine = doc.bundles.filter((b) => b.experiment === e.experiment && bundleKind(b) === kindOf(e));
      const trialOf = (b: BundleEntry) => (b.profile === "inspect" ? b.path : b.trial);
      const invalid = new Set(e.invalid.map((i) => i.trial));
      const failing = mine.filter((b) => b.validity === "invalid" || invalid.has(trialOf(b)!)).length;
      const got = all.filter((c) => c.suite === e.experiment);
      expect(got.length, e.experiment!).toBe(mine.length);
      expect(got.filter((c) => c.kind === "failure").length, e.experiment!).toBe(failing);
      expect(got.filter((c) => c.kind === "skipped").length, e.experiment!).toBe(
        e.excluded.length +
          e.flags.filter((f) => ["SUPERSEDED", "RETRY_AFTER_OUTCOME", "DUPLICATE_LOG"].includes(f.code)).length,
      );
      // The experiment's figures, at full precision, as the suite's properties.
      const suite = suites.find((s) => s.getAttribute("name") === e.experiment)!;
      const props = new Map(
        kids(kids(suite, "properties")[0]!, "property").map((p) => [p.getAttribute("name"), p.getAttribute("value")]),
      );
      expect(props.get("profile")).toBe(e.profile);
      if (e.accuracy !== null) expect(props.get("accuracy")).toBe(String(e.accuracy.value));
      if (e.pass !== null) expect(props.get("pass.passed")).toBe(String(e.pass.passed));
      for (const [k, rw] of Object.entries(e.rewards ?? {}))
        expect(props.get(`reward.${k}.mean`)).toBe(String(rw.mean));
      for (const c of e.claimed?.compared ?? []) expect(props.get(`harbor.${c.metric}`)).toBe(String(c.claimed));
      for (const [k, m] of Object.entries(e.inspect ?? {})) expect(props.get(`metric.${k}`)).toBe(String(m.value));
    }
    // Names are paths below the root; an invalid bundle's failure names its codes and quotes its findings.
    const chain = all.find((c) => c.name === "game/synth-native/fault-bad-chain/a1")!;
    expect(chain).toMatchObject({ kind: "failure", message: "JOURNAL_CHAIN" });
    expect(chain.body).toMatch(/^JOURNAL_CHAIN journal\.jsonl:\d+ /);
    expect(all.find((c) => c.kind === "skipped" && c.suite.startsWith("synth-harbor"))!.message).toMatch(
      /^excluded: (incomplete|infrastructure-error)/,
    );
    const won = all.find((c) => c.kind === "passed" && c.out.includes("victory yes"));
    expect(won?.suite).toBe("synth-native"); // outcomes ride along in <system-out>
    expectValid(r.stdout, ctx);
  });
});

describe("what a testcase says", () => {
  it("trial findings fail every bundle of the trial; a superseded attempt, an excluded trial, a missing one and a folder not recognised are skipped; a bundle of no trial has its own suite", async (ctx) => {
    const root = join(tmp, "batch");
    const seed = "aa".repeat(16);
    writeFiles(join(root, "t1/a1"), bundle(game({ experiment: "b", trial: "t1", seed })));
    writeFiles(join(root, "t2/a1"), bundle(game({ experiment: "b", trial: "t2", seed }))); // SEED_COLLISION, with t1
    // Abnormal before any ending or final score: no outcome, superseded by the attempt after it.
    const noOutcome: GameOpts = { states: [live()], score: "none", end: "abnormal" };
    writeFiles(
      join(root, "t3/a1"),
      bundle(game({ experiment: "b", trial: "t3", seed: "bb".repeat(16), ...noOutcome })),
    );
    writeFiles(join(root, "t3/a2"), bundle(game({ experiment: "b", trial: "t3", attempt: 2, seed: "bb".repeat(16) })));
    writeFiles(
      join(root, "t5/a1"),
      bundle(game({ experiment: "b", trial: "t5", seed: "cc".repeat(16), ...noOutcome })),
    );
    writeFiles(join(root, "stray"), { "journal.jsonl": "not json\n" });
    writeFiles(join(root, "orphan"), { "result.json": '{"a": 1}' }); // looks like a Harbor trial, is none
    const schedule = join(tmp, "batch-schedule.json");
    const trials = [
      ["t1", "aa"],
      ["t2", "aa"],
      ["t3", "bb"],
      ["t4", "dd"],
      ["t5", "cc"],
    ].map(([trial, s]) => ({ trial, seed: s!.repeat(16) }));
    writeFileSync(schedule, JSON.stringify({ format: "assay.schedule/1", experiment: "b", trials }));
    const r = await run(["score", root, "--schedule", schedule, "--format", "junit", "--quiet"]);
    const { cases: all } = cases(r.stdout);
    const by = new Map(all.map((c) => [c.name, c]));
    for (const t of ["t1/a1", "t2/a1"]) {
      expect(by.get(t)).toMatchObject({ suite: "b", kind: "failure", message: "SEED_COLLISION" });
      expect(by.get(t)!.body).toContain(`trial ${t.slice(0, 2)} is invalid: SEED_COLLISION`);
    }
    expect(by.get("t3/a1")).toMatchObject({
      kind: "skipped",
      message: "superseded: a later attempt of its trial is the one scored",
    });
    expect(by.get("t3/a2")).toMatchObject({ kind: "passed" });
    expect(by.get("t5/a1")!.kind).toBe("skipped");
    expect(by.get("t5/a1")!.message).toMatch(/^excluded: no adjudicated attempt/);
    expect(by.get("t4")).toMatchObject({ suite: "b", kind: "skipped", message: "missing: scheduled, with no bundle" });
    expect(by.get("stray")).toMatchObject({ suite: "(unattributed)", kind: "failure" });
    expect(by.get("orphan")).toMatchObject({ suite: "(not recognised)", kind: "skipped" });
    expect(parse(r.stdout).getAttribute("name")).toBe("assay");
    expectValid(r.stdout, ctx);
  });

  it("a tool error is an <error>; the trial's other attempts are skipped as unscored, outside every figure; a stopped run says so", (ctx) => {
    const entry = (trial: string, attempt: number, validity: BundleEntry["validity"]): BundleEntry => ({
      path: `r/${trial}/a${attempt}`,
      ...blankEntry({
        validity,
        errors: validity === "error" ? [{ code: "TIMEOUT", file: null, line: null, message: "ran past 60 s" }] : [],
        profile: "native-game",
        experiment: "x",
        trial,
        attempt,
      }),
    });
    const doc = viewOf({
      format: "assay.results/1",
      run: {
        tool_version: "t",
        scoring_version: 1,
        started_at: "2026-01-01T00:00:00.000Z",
        complete: false,
        shard: null,
        roots: ["r"],
        options: {
          invalid: "count",
          resource_bound: "default",
          errors: "exclude",
          schedules: [],
          hmac_key: null,
          filters: null,
        },
        jobs: [],
        unrecognised: { count: 0, paths: [] },
      },
      bundles: [entry("t1", 1, "valid"), entry("t1", 2, "error"), entry("t2", 1, "valid")],
      experiments: [{ ...blank("x"), unscored: ["t1"] }],
    });
    const xml = renderText("junit", doc);
    const by = new Map(cases(xml).cases.map((c) => [c.name, c]));
    expect(by.get("t1/a2")).toMatchObject({ kind: "error", message: "TIMEOUT" });
    expect(by.get("t1/a2")!.body).toContain("TIMEOUT  ran past 60 s");
    expect(by.get("t1/a1")!.kind).toBe("skipped");
    expect(by.get("t1/a1")!.message).toMatch(/^unscored: another attempt of trial t1 is a tool error/);
    expect(by.get("t2/a1")!.kind).toBe("passed");
    expect(parse(xml).getAttribute("name")).toBe(
      "assay (incomplete: the run was stopped before all its evidence was scored)",
    );
    expectValid(xml, ctx);
  });
});

/** An experiment with nothing counted. */
function blank(id: string): Experiment {
  return {
    experiment: id,
    profile: "native-game",
    scheduled: 2,
    invalid: [],
    missing: [],
    excluded: [],
    unscored: [],
    flags: [],
    accuracy: { value: 1, victories: 1, scored: 1, wilson95: null, interval: null, interval_reason: null },
    raw_record: null,
    completion: null,
    retry: [],
    dimensions: null,
    pass: null,
    pass_hat_k: null,
    rewards: null,
    states: null,
    claimed: null,
    job: null,
    job_id: null,
    exceptions: null,
    warnings: [],
    log: null,
    inspect: null,
    usage: null,
    identity: null,
  };
}

describe("a byte-identical copy of a Harbor trial", () => {
  it("is skipped as the copy it is; its original, first in path order, counts", async (ctx) => {
    const root = join(tmp, "copies");
    writeCorpus(root, { n: 6, seed: "junit-copies", faults: false, profile: "harbor" });
    const doc = JSON.parse((await run(["score", root, "--format", "json", "--quiet"])).stdout) as Results;
    const e = doc.experiments[0]!;
    const listed = new Set([
      ...e.invalid.map((i) => i.trial),
      ...e.excluded.map((x) => x.trial),
      ...e.flags.map((f) => f.trial),
    ]);
    const original = doc.bundles.find((b) => b.validity === "valid" && b.state === "scored" && !listed.has(b.trial!))!;
    cpSync(original.path, `${original.path}~copy`, { recursive: true });
    const r = await run(["score", root, "--format", "junit", "--quiet"]);
    const by = new Map(cases(r.stdout).cases.map((c) => [c.name, c]));
    const name = original.path.slice(root.length + 1);
    expect(by.get(name)!.kind).toBe("passed");
    expect(by.get(`${name}~copy`)).toMatchObject({
      kind: "skipped",
      message: `excluded: a byte-identical copy of ${original.path} (counted once, there)`,
    });
    expectValid(r.stdout, ctx);
  });
});

describe("streaming", () => {
  /** A view of `n` entries in `k` experiments (`interleaved`: experiments alternate in path order), counting how often its entries are read. */
  function big(n: number, k: number, interleaved: boolean): { view: ResultsView; reads: () => number } {
    let reads = 0;
    const at = (i: number) => (interleaved ? i % k : Math.floor((i * k) / n));
    const bundles = {
      *[Symbol.iterator]() {
        reads++;
        for (let i = 0; i < n; i++) {
          const e = `e${at(i)}`;
          yield {
            path: `r/${String(i).padStart(7, "0")}`,
            ...blankEntry({
              validity: "valid",
              errors: [],
              profile: "native-game",
              experiment: e,
              trial: `t${i}`,
              attempt: 1,
              status: "completed",
            }),
          };
        }
      },
    };
    const tally = { bundles: n, valid: n, invalid: 0, error: 0, byProfile: {} };
    const run = viewOf({
      format: "assay.results/1",
      run: {
        tool_version: "t",
        scoring_version: 1,
        started_at: "",
        complete: true,
        shard: null,
        roots: ["r"],
        options: {
          invalid: "count",
          resource_bound: "default",
          errors: "exclude",
          schedules: [],
          hmac_key: null,
          filters: null,
        },
        jobs: [],
        unrecognised: { count: 0, paths: [] },
      },
      bundles: [],
      experiments: Array.from({ length: k }, (_, i) => blank(`e${i}`)),
    }).run;
    return {
      view: {
        format: "assay.results/1",
        run,
        bundles,
        experiments: Array.from({ length: k }, (_, i) => blank(`e${i}`)),
        tally,
      },
      reads: () => reads,
    };
  }

  it("a testcase at a time, never one string: experiments lying together take one pass after the count", () => {
    const { view, reads } = big(20_000, 4, false);
    let pieces = 0;
    let longest = 0;
    let testcases = 0;
    for (const p of render(view)) {
      pieces++;
      longest = Math.max(longest, p.length);
      testcases += p.split("<testcase ").length - 1;
    }
    expect(testcases).toBe(20_000);
    expect(pieces).toBeGreaterThan(20_000);
    expect(longest).toBeLessThan(2_000);
    expect(reads()).toBe(2);
  });

  it("experiments interleaved in path order: each suite written once and whole, a pass for each level of interleaving", (ctx) => {
    const { view, reads } = big(300, 3, true);
    const xml = renderText("junit", view);
    const { suites, cases: all } = cases(xml);
    expect(suites.map((s) => s.getAttribute("name"))).toEqual(["e0", "e1", "e2"]);
    expect(all.length).toBe(300);
    expect(new Set(all.map((c) => c.name)).size).toBe(300);
    for (const s of suites)
      expect(
        kids(s, "testcase").every(
          (t) => Number(t.getAttribute("name")!.slice(2)) % 3 === Number(s.getAttribute("name")!.slice(1)),
        ),
      ).toBe(true);
    expect(reads()).toBe(1 + 3);
    expectValid(xml, ctx);
  });
});

describe("hostile names and texts", () => {
  it("control characters, markup and entity-like names give a valid document that says them as text", async (ctx) => {
    const root = join(tmp, "hostile");
    writeCorpus(root, { n: 3, seed: "junit-hostile", faults: false, profile: "harbor" });
    const job = 'job \u0001\u001b[31m <script>alert(1)<b>x &lt;b&gt; ]]> "q"';
    renameSync(join(root, "synth-harbor-job"), join(root, job));
    const first = (await run(["score", root, "--format", "json", "--quiet"])).stdout;
    const trialPath = (JSON.parse(first) as Results).bundles[0]!.path;
    const trialDir = trialPath.slice(trialPath.lastIndexOf("/") + 1);
    renameSync(join(root, job, trialDir), join(root, job, `${trialDir}\u0007\u000b\ttab`));
    const r = await run(["score", root, "--format", "junit", "--quiet"]);
    expect(r.code).toBe(0);
    const { suites, cases: all } = cases(r.stdout);
    // Quoted, its controls, backslashes and quotes escaped, as a terminal and the HTML page show it (shown.ts).
    const spelled = 'job \\u0001\\u001b[31m <script>alert(1)<b>x &lt;b&gt; ]]> \\"q\\"';
    expect(suites.map((s) => s.getAttribute("name"))).toEqual([`"${spelled}"`]);
    expect(all.map((c) => c.name)).toContain(`"${spelled}/${trialDir}\\u0007\\u000b\\u0009tab"`);
    for (const tag of ["script", "b"]) expect(parse(r.stdout).getElementsByTagName(tag).length).toBe(0);
    expectValid(r.stdout, ctx);
  });

  it("bidi overrides, isolates and line separators in names and texts are spelled as the other formats spell them; a plain name is left as it is", (ctx) => {
    const hidden = "\u202e\u2066\u2028";
    const doc = viewOf({
      format: "assay.results/1",
      run: {
        tool_version: "t",
        scoring_version: 1,
        started_at: "",
        complete: true,
        shard: null,
        roots: ["r"],
        options: {
          invalid: "count",
          resource_bound: "default",
          errors: "exclude",
          schedules: [],
          hmac_key: null,
          filters: null,
        },
        jobs: [],
        unrecognised: { count: 0, paths: [] },
      },
      bundles: [
        {
          path: `r/x${hidden}/t`,
          ...blankEntry({
            validity: "invalid",
            errors: [{ code: "SCHEMA", file: `f${hidden}.json`, line: 1, message: `bad ${hidden} end` }],
            profile: "native-game",
            experiment: `x${hidden}`,
            trial: "t",
            attempt: 1,
          }),
        },
        {
          path: `r/x${hidden}/u`,
          ...blankEntry({
            validity: "valid",
            errors: [],
            profile: "native-game",
            experiment: `x${hidden}`,
            trial: "u",
            attempt: 1,
          }),
        },
        {
          path: "r/plain/p",
          ...blankEntry({
            validity: "valid",
            errors: [],
            profile: "native-game",
            experiment: "plain",
            trial: "p",
            attempt: 1,
          }),
        },
      ],
      experiments: [
        {
          ...blank(`x${hidden}`),
          invalid: [{ trial: "t", codes: ["SCHEMA"] }],
          excluded: [{ trial: "u", reason: `why ${hidden}` }],
          missing: [`m${hidden}`],
          dimensions: { [`d${hidden}`]: { passed: 0, total: 1, interval: null, interval_reason: null } },
        },
        blank("plain"),
      ],
    });
    const xml = renderText("junit", doc);
    expect(xml).not.toMatch(/[\u202e\u2066\u2028]/);
    const { suites, cases: all } = cases(xml);
    const spelled = "\\u202e\\u2066\\u2028";
    expect(suites.map((s) => s.getAttribute("name"))).toEqual([`"x${spelled}"`, "plain"]);
    expect(all.map((c) => [c.name, c.kind, c.message])).toEqual([
      [`"x${spelled}/t"`, "failure", "SCHEMA"],
      [`"x${spelled}/u"`, "skipped", `excluded: why ${spelled}`],
      [`"m${spelled}"`, "skipped", "missing: scheduled, with no bundle"],
      ["plain/p", "passed", null],
    ]);
    expect(all[0]!.body).toBe(`SCHEMA f${spelled}.json:1 bad ${spelled} end`);
    expect(xml).toContain(`<property name="&quot;dimension.d${spelled}&quot;" value="0/1"/>`);
    expectValid(xml, ctx);
  });

  it("a finding whose message holds characters XML forbids (NUL, a lone surrogate, U+FFFF) is spelled out, and the document stays valid", (ctx) => {
    const doc = viewOf({
      format: "assay.results/1",
      run: {
        tool_version: "t",
        scoring_version: 1,
        started_at: "",
        complete: true,
        shard: null,
        roots: ["r"],
        options: {
          invalid: "count",
          resource_bound: "default",
          errors: "exclude",
          schedules: [],
          hmac_key: null,
          filters: null,
        },
        jobs: [],
        unrecognised: { count: 0, paths: [] },
      },
      bundles: [
        {
          path: "r/b",
          ...blankEntry({
            validity: "invalid",
            errors: [{ code: "SCHEMA", file: "x\u0000.json", line: 1, message: "bad \u0000 \ud800 \uffff \u0008 end" }],
            profile: "native-game",
            experiment: "x",
            trial: "t",
            attempt: 1,
          }),
        },
      ],
      experiments: [{ ...blank("x"), invalid: [{ trial: "t", codes: ["SCHEMA"] }] }],
    });
    const xml = renderText("junit", doc);
    const c = cases(xml).cases[0]!;
    expect(c.kind).toBe("failure");
    expect(c.body).toBe("SCHEMA x\\u0000.json:1 bad \\u0000 \\ud800 \\uffff \\u0008 end");
    expectValid(xml, ctx);
  });
});
