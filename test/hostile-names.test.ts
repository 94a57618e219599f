// Names from evidence or the file system reach a terminal escaped (issue 11 items 8 and 10): a
// bundle folder named with ESC[2J, a newline followed by "all bundles valid", or a bidi override;
// Harbor job and trial folders, trial and task names, reward keys and step names the same — in
// score's table, verify, check-task and every stderr line naming a path. No raw control, bidi or
// separator character reaches stdout or stderr, and no name can forge an output line. And a
// symbolic link to a folder below a root is said on stderr ("skipped …"), never passed over in
// silence.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { NARRATIVE_FORMAT, narrativeMarkdown } from "../src/analysis/narrative.js";
import { blankExperiment } from "../src/core/results.js";
import { discover } from "../src/io/discover.js";
import { bundle, game, killed, live, writeFiles } from "./helpers/bundle.js";
import { run, spawnCli } from "./helpers/cli.js";
import { float, writeJob } from "./helpers/harbor.js";
import { scratch } from "./helpers/shared.js";

/** What must never reach a terminal raw: C0 controls but \n, DEL, C1, bidi marks and overrides, separators. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FORGED = "all bundles valid";
const CLEAR = "\u001b[2J";
const TITLE = "\u001b]0;pwned\u0007";
const BIDI = "\u202e";
const NAMES = { clear: `a${CLEAR}`, forged: `b\n${FORGED}`, bidi: `c${BIDI}txt.exe` };

/** Text that is safe for a terminal: no raw character of RAW, no line a name forged. */
function expectSafe(text: string): void {
  expect(text).not.toMatch(RAW);
  expect(text.split("\n")).not.toContain(FORGED);
}

const { dir: tmp } = scratch("assay-names-");
let native: string;
let harbor: string;
let job: string;

beforeAll(() => {
  native = join(tmp, "native");
  // Invalid (a summary that lies), so each is listed by path under "bundles with findings".
  Object.values(NAMES).forEach((name, i) => {
    const trial = `t${i}`;
    writeFiles(
      join(native, name),
      bundle(game({ trial, seed: `${i}`.padStart(32, "0"), states: [live(), killed()] }), {
        summary: { victory: true },
      }),
    );
  });
  harbor = join(tmp, "harbor");
  job = writeJob(harbor, `job${TITLE}`, [
    {
      name: "ok",
      trial_name: `t${BIDI}1`,
      task: `task\n${FORGED}`,
      rewards: { [`re${CLEAR}ward`]: float(1), reward: float(1) },
    },
    {
      name: `bad${CLEAR}`,
      rewards: { [`k${CLEAR}`]: float(1) },
      rewardFiles: { "reward.json": JSON.stringify({ [`k${CLEAR}`]: 0 }) },
    },
    {
      name: "err",
      trial_name: `e\n${FORGED}`,
      rewards: null,
      exception: { type: "RuntimeError", message: `boom${CLEAR}` },
    },
    { name: "steps", steps: [{ name: `s${CLEAR}`, rewards: { reward: float(1) }, rewardFiles: {} }] },
  ]);
});

describe("score's table", () => {
  it("native bundle folders named with ESC[2J, a forged line, a bidi override: listed, escaped", async () => {
    const r = await run(["score", native, "--details"]);
    expect(r.code).toBe(0);
    expectSafe(r.stdout);
    expectSafe(r.stderr);
    expect(r.stdout).toContain(`"${native}/a\\u001b[2J": invalid SUMMARY_MISMATCH`);
    expect(r.stdout).toContain(`"${native}/b\\u000a${FORGED}": invalid`);
    expect(r.stdout).toContain(`"${native}/c\\u202etxt.exe": invalid`);
  });

  it("a Harbor job, trial, task, reward key and step named so: escaped wherever the table names them", async () => {
    const r = await run(["score", harbor, "--details"]);
    expect(r.code).toBe(0);
    expectSafe(r.stdout);
    expectSafe(r.stderr);
    expect(r.stdout).toContain(`job "job\\u001b]0;pwned\\u0007"`);
    expect(r.stdout).toContain(`reward "re\\u001b[2Jward"`);
    expect(r.stdout).toMatch(/"e\\u000aall bundles valid": infrastructure-error/);
    expect(r.stdout).toMatch(/steps\/s\\u001b\[2J\/verifier/); // a finding's message quoting a step name
  });

  it("spawned: the same, on the real stdout", () => {
    const r = spawnCli(["score", native, harbor, "--quiet"]);
    expect(r.code).toBe(0);
    expectSafe(r.stdout);
    expectSafe(r.stderr);
  });

  it("a root named so that does not exist: one escaped line", async () => {
    const r = await run(["score", join(tmp, `no${CLEAR}\n${FORGED}`)]);
    expect(r.code).toBe(2);
    expectSafe(r.stderr);
    expect(r.stderr.split("\n")).toHaveLength(2); // one line and its end
  });
});

describe("verify", () => {
  it.each(Object.entries(NAMES))("a bundle folder named %s: its findings, escaped", async (_kind, name) => {
    const r = await run(["verify", join(native, name)]);
    expect(r.code).toBe(1);
    expectSafe(r.stdout);
    expectSafe(r.stderr);
    expect(r.stdout).toMatch(/^".*": invalid/);
  });

  it("a Harbor job: every trial's path, name, task, rewards, findings and flags, escaped", async () => {
    const r = await run(["verify", job]);
    expect(r.code).toBe(1);
    expectSafe(r.stdout);
    expectSafe(r.stderr);
    expect(r.stdout).toContain(`task "task\\u000a${FORGED}"`);
    expect(r.stdout).toContain(`"re\\u001b[2Jward"=1`);
  });

  it("a folder named so that is not a directory: one escaped line", async () => {
    const file = join(tmp, `f${CLEAR}`);
    writeFileSync(file, "");
    const r = await run(["verify", file]);
    expect(r.code).toBe(2);
    expectSafe(r.stderr);
  });
});

describe("check-task", () => {
  it("a task folder named so: its line is escaped", async () => {
    const task = join(tmp, `task${CLEAR}\n${FORGED}`);
    writeFiles(task, { "instruction.md": "Do it.\n" });
    const r = await run(["check-task", task, "--offline", "--cache", join(tmp, "cache.sqlite")]);
    expect(r.code).toBe(3);
    expectSafe(r.stdout);
    expectSafe(r.stderr);
    expect(r.stdout).toContain(`"${tmp}/task\\u001b[2J\\u000a${FORGED}": not analysed`);
  });
});

describe("narrate's Markdown", () => {
  it("job names, reward keys, cited and unanalysed trials, and reasons: escaped", () => {
    const job = `job${TITLE}`;
    const trial = `${job}/t${CLEAR}\n${FORGED}`;
    const md = narrativeMarkdown({
      format: NARRATIVE_FORMAT,
      source: "0".repeat(64),
      status: "written",
      reason: null,
      model: "m",
      cached: false,
      facts: {
        bundles: { total: 1, valid: 1, invalid: 0, error: 0 },
        experiments: [
          {
            ...blankExperiment(job, "harbor", 1),
            rewards: {
              [`k${BIDI}`]: {
                mean: 1,
                wilson95: null,
                coverage: 1,
                covered: 1,
                trials: 1,
                pass_rate: 1,
                pass_at_k: null,
                pass_at_k_reason: null,
                pass_hat_k: null,
                interval: null,
                interval_reason: null,
              },
            },
          },
        ],
        unanalysed: [{ trial, reason: `evidence could not be read: ${CLEAR}` }],
      },
      prose: { overview: "fine", themes: [{ title: "t", text: "x", trials: [trial] }] },
      provenance: null,
    });
    expectSafe(md);
    expect(md).toContain(`Trials: "job\\u001b]0;pwned\\u0007/t\\u001b[2J\\u000a${FORGED}"`);
  });
});

describe("a symbolic link to a folder below a root is said, never passed over in silence", () => {
  let root: string;
  beforeAll(() => {
    root = join(tmp, "links");
    const real = join(tmp, "elsewhere");
    writeFiles(
      join(real, "b1"),
      bundle(game({ trial: "t9", seed: "9".padStart(32, "0"), states: [live(), killed()] })),
    );
    mkdirSync(root);
    symlinkSync(join(real, "b1"), join(root, "linked"));
    symlinkSync(join(real, "b1"), join(root, `linked${CLEAR}`));
    // The other side of the line: links that are not to a folder are not discovery's to report.
    symlinkSync(join(real, "b1", "journal.jsonl"), join(root, "to-a-file"));
    symlinkSync(join(tmp, "nowhere"), join(root, "dangling"));
  });

  it("discovery reports each link to a folder through onSkip, and nothing else", () => {
    const skipped: string[] = [];
    expect([...discover([root], (p, why) => skipped.push(`${p}: ${why}`))]).toEqual([]);
    const why = "a symbolic link: links below a root are never followed";
    expect(skipped).toEqual([`${root}/linked: ${why}`, `${root}/linked${CLEAR}: ${why}`]);
  });

  it("score says so on stderr, the path escaped", async () => {
    const r = await run(["score", root, "--quiet"]);
    expectSafe(r.stderr);
    const lines = r.stderr.split("\n");
    expect(lines).toContain(`assay: skipped ${root}/linked: a symbolic link: links below a root are never followed`);
    expect(lines).toContain(
      `assay: skipped "${root}/linked\\u001b[2J": a symbolic link: links below a root are never followed`,
    );
  });

  it("a trial folder of a Harbor job that is a link: said too, by score and by verify", async () => {
    const linkedJob = writeJob(join(tmp, "linked-jobs"), "job", [{ name: "real" }]);
    symlinkSync(join(linkedJob, "real"), join(linkedJob, "alias"));
    const why = `assay: skipped ${linkedJob}/alias: a symbolic link: links below a root are never followed`;
    const s = await run(["score", linkedJob, "--quiet"]);
    expect(s.code).toBe(0);
    expect(s.stderr.split("\n")).toContain(why);
    const v = await run(["verify", linkedJob]);
    expect(v.code).toBe(0);
    expect(v.stderr).toBe(`${why}\n`);
  });
});
