// What a container's member says of itself (its entry's `claimed`) against what its container's
// summary says of it (src/pipeline/placed.ts): a Harbor job's result.json names its trials' rewards,
// so there the summary decides (and names nothing: null); a Terminal-Bench trial's results.json and
// a SWE-bench instance's report.json are the member's own claim, which no container summary
// replaces. The rule itself on each side, then Terminal-Bench end to end (fresh and from the store).
//
// Workers run compiled code (dist/): `npm run build` first.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BundleEntry, Results } from "../src/core/results.js";
import type { Found } from "../src/io/discover.js";
import { placed } from "../src/pipeline/placed.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";
import { trialName, writeRun } from "./helpers/terminal-bench.js";

type Claim = NonNullable<BundleEntry["claimed"]>;
const OWN: Claim = { rewards: { resolved: 1 }, exception: null };
const SUMMARY: Claim = { rewards: { reward: 0 }, exception: "AgentTimeoutError" };

/** An entry as a worker scored it, claiming `claimed` of itself. */
const scored = (claimed: Claim | null) =>
  ({ trial: "t1", experiment: null, job: null, claimed }) as unknown as Omit<BundleEntry, "path">;
const member = (claims?: ReadonlyMap<string, Claim>): Found => ({
  dir: "/x/job/t1",
  path: "job/t1",
  kind: "harbor",
  member: { container: "job", folder: "t1", containerPath: "job", ...(claims === undefined ? {} : { claims }) },
});

describe("placed: a member's claim", () => {
  it("a container whose summary names its members' claims: the summary's, by trial name", () => {
    expect(placed(member(new Map([["t1", SUMMARY]])), scored(null)).claimed).toEqual(SUMMARY);
    // The summary decides even over a claim the member made of itself.
    expect(placed(member(new Map([["t1", SUMMARY]])), scored(OWN)).claimed).toEqual(SUMMARY);
  });

  it("a summary that names the member nowhere: null (the job claims nothing of it)", () => {
    expect(placed(member(new Map([["other", SUMMARY]])), scored(null)).claimed).toBeNull();
    expect(placed(member(new Map()), scored(OWN)).claimed).toBeNull();
  });

  it("a container with no summary of its members' claims: the member's own claim stands", () => {
    expect(placed(member(), scored(OWN)).claimed).toEqual(OWN);
    expect(placed(member(), scored(null)).claimed).toBeNull();
  });

  it("a thing no container holds keeps its entry as scored", () => {
    const { member: _, ...alone } = member();
    expect(placed(alone, scored(OWN)).claimed).toEqual(OWN);
  });
});

describe("a Terminal-Bench trial's own is_resolved is its claim (docs/terminal-bench.md)", () => {
  const { at } = scratch("assay-member-claims-");
  let serial = 0;
  async function score(root: string, ...flags: string[]): Promise<Results> {
    const out = at(`out-${++serial}.json`);
    const r = await run(["score", root, "--format", "json", "--quiet", "--out", out, ...flags]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(readFileSync(out, "utf8")) as Results;
  }
  const claims = (d: Results) => Object.fromEntries(d.bundles.map((b) => [b.trial, b.claimed]));

  it("kept on each trial, resolved or not, fresh and from the store; a harness exception claims no reward", async () => {
    const dir = writeRun(join(at("run"), "myrun"), {
      trials: [
        { task: "hello" },
        { task: "bye", parserResults: { test_a: "passed", test_b: "failed" } },
        { task: "oops", harness: true },
      ],
    });
    const want = {
      [trialName({ task: "hello" })]: { rewards: { resolved: 1 }, exception: null },
      [trialName({ task: "bye" })]: { rewards: { resolved: 0 }, exception: null },
      [trialName({ task: "oops" })]: { rewards: null, exception: "unknown_agent_error" },
    };
    expect(claims(await score(dir))).toEqual(want);
    const db = at("store.sqlite");
    expect(claims(await score(dir, "--store", db))).toEqual(want);
    expect(claims(await score(dir, "--store", db))).toEqual(want);
  });

  it("assay verify on a trial says its claim as the trial's own (a Harbor trial's is its job's); its run, with nothing to add, adds no line", async () => {
    const dir = writeRun(join(at("verify"), "myrun"), {
      trials: [{ task: "hello" }, { task: "bye", parserResults: { test_a: "passed", test_b: "failed" } }],
    });
    const trial = join(dir, "bye", trialName({ task: "bye" }));
    const r = await run(["verify", trial]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      `${trial}: valid (terminal-bench, experiment myrun, trial ${trialName({ task: "bye" })}, attempt 1)`,
    );
    expect(r.stdout).toContain("  trial says resolved=0   (its results.json's is_resolved and failure_mode;");
    expect(r.stdout).not.toContain("job says");
  });
});
