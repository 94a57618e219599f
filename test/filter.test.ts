// Issue 37: the filters a folder of hundreds of runs needs: --experiment GLOB, --agent, --model,
// --kind, --since. Each on both sides of its line; an unknown start time never passes --since; a
// filter that keeps nothing is exit 2; a filtered document says so in run.options.filters.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filterSide, differingOptions, type Side } from "../src/core/compare/compare.js";
import {
  describeFilter,
  filterResults,
  globMatch,
  matches,
  parseFilter,
  parseSince,
  selectExperiments,
  sinceSide,
  type ExperimentFilter,
} from "../src/core/filter.js";
import type { Identity } from "../src/core/identity.js";
import {
  blankEntry,
  blankExperiment,
  count,
  emptyTally,
  resultsSchema,
  viewOf,
  type BundleEntry,
  type Experiment,
  type Results,
  type RunOptions,
} from "../src/core/results.js";
import { exitForFiltered } from "../src/cli/commands/score.js";
import { run } from "./helpers/cli.js";
import { withoutIdentity } from "./helpers/harbor.js";
import { freshFolders } from "./helpers/shared.js";

const NO_ID: Identity = {
  agent: null,
  model: null,
  benchmark: null,
  tasks: null,
  harness: null,
  started_at: null,
  finished_at: null,
  clock: null,
};
const exp = (name: string | null, profile: Experiment["profile"], id: Partial<Identity> | null = {}): Experiment => ({
  ...blankExperiment(name, profile, 1),
  identity: id === null ? null : { ...NO_ID, ...id },
});
const filter = (v: Parameters<typeof parseFilter>[0]): ExperimentFilter => parseFilter(v)!;

describe("globMatch: * ? [..], character for character, never a regular expression", () => {
  it.each([
    ["a*", "abc", true],
    ["a*", "bac", false],
    ["*/class_eval*", "inspect_evals/class_eval (openai/gpt-5-nano)", true],
    ["a?c", "abc", true],
    ["a?c", "ac", false],
    ["[ab]x", "bx", true],
    ["[ab]x", "cx", false],
    ["[a-c]1", "b1", true],
    ["[a-c]1", "d1", false],
    ["[!a]1", "b1", true],
    ["[!a]1", "a1", false],
    ["[a", "[a", true],
    ["[\uffe0-\u{1f9ff}]", "\u{1f600}", true],
    ["[\uffe0-\u{1f9ff}]", "\u{e000}", false],
    ["?", "\u{1f600}", true],
    ["gpt-4o", "gpt-4o", true],
    ["gpt-4o", "gpt-4o-mini", false],
    ["GPT-4o", "gpt-4o", false],
    [".*", "anything", false],
    [".*", ".x", true],
    ["(a|b)", "(a|b)", true],
    ["(a|b)", "a", false],
  ])("%s against %s: %s", (p, t, want) => expect(globMatch(p, t)).toBe(want));
  it("a long run of stars against a long name stays fast (no backtracking blow-up)", () => {
    const t0 = Date.now();
    expect(globMatch(`${"*a".repeat(30)}b`, "a".repeat(5000))).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe("parseFilter", () => {
  it("no option given: no filter", () => expect(parseFilter({})).toBeNull());
  it("an unknown kind is refused, naming the kinds", () => {
    expect(() => parseFilter({ kind: ["harbour"] })).toThrow(
      /--kind takes one of bundle, harbor, inspect, terminal-bench, swe-bench \(got "harbour"\)/,
    );
    expect(parseFilter({ kind: ["harbor"] })!.given.kind).toEqual(["harbor"]);
  });
  it("--since: a date (midnight UTC) or a date and time with its zone; anything else refused", () => {
    expect(parseSince("2025-06-01")).toBe(Date.UTC(2025, 5, 1));
    expect(parseSince("2025-06-01T09:30:00Z")).toBe(Date.UTC(2025, 5, 1, 9, 30));
    expect(parseSince("2025-06-01T09:30+02:00")).toBe(Date.UTC(2025, 5, 1, 7, 30));
    expect(() => parseSince("2025-06-01T09:30:00")).toThrow(/a time without a zone names no instant/);
    expect(() => parseSince("2025-02-30")).toThrow(/no such day/);
    expect(() => parseSince("yesterday")).toThrow(/not a date/);
    expect(() => parseSince("2025-06-01T25:00Z")).toThrow(/no such time/);
    expect(() => parseFilter({ since: ["2025-06-01", "2025-07-01"] })).toThrow(/--since is given once/);
  });
  it("an empty value is refused", () =>
    expect(() => parseFilter({ model: [""] })).toThrow(/--model takes a non-empty value/));
  it("describeFilter gives the options back, quoted where a shell needs it", () => {
    expect(describeFilter(filter({ experiment: ["a b*"], model: ["gpt-4o"], since: ["2025-06-01"] }).given)).toBe(
      "--experiment 'a b*' --model gpt-4o --since 2025-06-01",
    );
    expect(describeFilter(null)).toBe("");
  });
});

describe("matches: each option on both sides of its line", () => {
  it("--experiment: a glob over the id; an experiment without one matches none", () => {
    const f = filter({ experiment: ["job-*"] });
    expect(matches(exp("job-1", "harbor"), f)).toBe(true);
    expect(matches(exp("other", "harbor"), f)).toBe(false);
    expect(matches(exp(null, "harbor"), f)).toBe(false);
  });
  it("repeated: any value of one option; options together: all of them", () => {
    const f = filter({ experiment: ["a", "b"], kind: ["harbor"] });
    expect(matches(exp("b", "harbor"), f)).toBe(true);
    expect(matches(exp("b", "inspect"), f)).toBe(false);
    expect(matches(exp("c", "harbor"), f)).toBe(false);
  });
  it("--kind: the experiment's kind (native and world are assay bundles)", () => {
    expect(matches(exp("x", "native-game"), filter({ kind: ["bundle"] }))).toBe(true);
    expect(matches(exp("x", "world"), filter({ kind: ["harbor"] }))).toBe(false);
  });
  it("--agent and --model: any of the identity's values; one the evidence does not record matches nothing", () => {
    const many = exp("x", "harbor", { agent: ["claude-code", "terminus-2"], model: "anthropic/claude-opus-4" });
    expect(matches(many, filter({ agent: ["terminus-*"] }))).toBe(true);
    expect(matches(many, filter({ agent: ["codex"] }))).toBe(false);
    expect(matches(many, filter({ model: ["anthropic/claude-opus-4"] }))).toBe(true);
    expect(matches(many, filter({ model: ["claude-opus-4"] }))).toBe(false);
    expect(matches(exp("x", "inspect", { model: "openai/gpt-4o" }), filter({ agent: ["*"] }))).toBe(false);
    expect(matches(exp("x", "inspect", null), filter({ model: ["*"] }))).toBe(false);
  });
  it("--since: an instant at or after the line passes, before it does not", () => {
    const f = filter({ since: ["2025-06-01"] });
    expect(matches(exp("x", "inspect", { started_at: "2025-06-01T00:00:00.000Z", clock: "utc" }), f)).toBe(true);
    expect(matches(exp("x", "inspect", { started_at: "2025-05-31T23:59:59.999Z", clock: "utc" }), f)).toBe(false);
  });
  it("--since and a local time (no zone recorded): passes only when after the line in every zone; within 14 hours it is unknown", () => {
    const since = Date.UTC(2025, 5, 1);
    const local = (at: string) => exp("x", "harbor", { started_at: at, clock: "local" });
    expect(sinceSide(local("2025-06-01T14:00:00"), since)).toBe("after");
    expect(sinceSide(local("2025-06-01T13:59:59"), since)).toBe("unknown");
    expect(sinceSide(local("2025-05-31T12:00:00"), since)).toBe("unknown");
    expect(sinceSide(local("2025-05-31T11:59:59"), since)).toBe("before");
  });
  it("--since: no start recorded is unknown, left out and counted, never let through", () => {
    const xs = [
      exp("a", "harbor", { started_at: "2025-07-01T00:00:00.000Z", clock: "utc" }),
      exp("b", "harbor"),
      exp("c", "harbor", null),
      exp("d", "harbor", { started_at: "2025-01-01T00:00:00.000Z", clock: "utc" }),
    ];
    const { kept, unknownTime } = selectExperiments(xs, filter({ since: ["2025-06-01"] }));
    expect(kept.map((x) => x.experiment)).toEqual(["a"]);
    expect(unknownTime).toBe(2);
  });
});

describe("compare: filterSide and filters that differ", () => {
  const options: RunOptions = {
    invalid: "count",
    resource_bound: "default",
    errors: "exclude",
    schedules: [],
    hmac_key: null,
    filters: null,
  };
  it("filterSide keeps the matching experiments only", () => {
    const side: Side = {
      file: "a.json",
      run: {} as Side["run"],
      experiments: [exp("a", "harbor"), exp("b", "inspect")],
      units: new Map(),
    };
    const { side: out, unknownTime } = filterSide(side, filter({ kind: ["inspect"] }));
    expect(out.experiments.map((x) => x.experiment)).toEqual(["b"]);
    expect(unknownTime).toBe(0);
  });
  it("documents filtered otherwise are not refused (filters select, never change a figure)", () => {
    const f = filter({ model: ["gpt-4o"] }).given;
    expect(differingOptions(options, { ...options, filters: f })).toEqual([]);
    // The neighbour: an option that changes figures is still refused.
    expect(differingOptions(options, { ...options, errors: "zero", filters: f })).toEqual(["--errors exclude vs zero"]);
  });
});

describe("assay score with filters", () => {
  const folder = freshFolders("assay-filter-");
  const corpus = async () => {
    const root = folder("corpus");
    expect((await run(["synth", "--out", join(root, "h"), "--n", "3", "--profile", "harbor"])).code).toBe(0);
    expect((await run(["synth", "--out", join(root, "n"), "--n", "4"])).code).toBe(0);
    return root;
  };
  it("--kind keeps that kind's experiments and their bundles, and the document records the filter", async () => {
    const root = await corpus();
    const out = join(folder("out"), "r.json");
    const r = await run(["score", root, "--kind", "harbor", "-q", "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    const doc = resultsSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(doc.experiments.map((x) => x.profile)).toEqual(["harbor"]);
    expect(doc.bundles.map((b) => b.profile)).toEqual(["harbor", "harbor", "harbor"]);
    expect(doc.run.options.filters).toEqual({ experiment: [], agent: [], model: [], kind: ["harbor"], since: null });
  });
  it("without a filter every experiment is kept and run.options.filters is null", async () => {
    const root = await corpus();
    const r = await run(["score", root, "-q", "-f", "json"]);
    const doc = resultsSchema.parse(JSON.parse(r.stdout));
    expect(doc.experiments).toHaveLength(2);
    expect(doc.run.options.filters).toBeNull();
  });
  it("--experiment GLOB: the table shows the matching experiment only, and says it is filtered", async () => {
    const root = await corpus();
    const r = await run(["score", root, "--experiment", "synth-nat*", "-q"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/synth-native/);
    expect(r.stdout).not.toMatch(/synth-harbor-job/);
    expect(r.stdout).toMatch(/filtered: --experiment 'synth-nat\*'/);
  });
  it("a filter that keeps nothing is exit 2, naming the filter", async () => {
    const root = await corpus();
    const r = await run(["score", root, "--experiment", "nothing-*", "-q"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no experiment matches --experiment 'nothing-\*' \(of 2 scored\)/);
  });
  // The native bundles record their model (meta.model) and start (the header's at); the Harbor job,
  // its trials stripped of agent_info and times, records neither.
  const unrecorded = async () => {
    const root = await corpus();
    withoutIdentity(join(root, "h", "synth-harbor-job"));
    return root;
  };
  it("--model against evidence that records none keeps nothing: exit 2 (an unrecorded model matches no filter); where it is recorded, kept", async () => {
    const root = await unrecorded();
    const r = await run(["score", join(root, "h"), "--model", "*", "-q"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no experiment matches --model '\*' \(of 1 scored\)/);
    const kept = await run(["score", join(root, "n"), "--model", "*", "-q"]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(/^synth-native /m);
  });
  it("--since against runs with no start recorded: exit 2, saying how many were left out for it; a recorded start after it kept", async () => {
    const root = await unrecorded();
    const r = await run(["score", join(root, "h"), "--since", "2020-01-01", "-q"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/1 experiment left out by --since 2020-01-01: no start time recorded/);
    const kept = await run(["score", join(root, "n"), "--since", "2020-01-01", "-q"]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(/^synth-native /m);
  });
  it("a bad value is refused before scoring: an unknown kind, a --since with no zone, a filter with --shard", async () => {
    const root = await corpus();
    expect((await run(["score", root, "--kind", "nope"])).stderr).toMatch(/--kind takes one of/);
    expect((await run(["score", root, "--since", "2025-06-01T10:00"])).code).toBe(2);
    expect((await run(["score", root, "--kind", "harbor", "--shard", "0/2"])).stderr).toMatch(
      /a shard holds bundle entries only/,
    );
  });
});

describe("the exit code of a filtered run (exitForFiltered)", () => {
  const view = (validity: "valid" | "invalid" | "error") => {
    const tally = emptyTally();
    count(tally, { validity, profile: "harbor" });
    return { ...viewOf({ format: "assay.results/1", run: {} as Results["run"], bundles: [], experiments: [] }), tally };
  };
  it("a tool error outside the selection is exit 3 still", () =>
    expect(exitForFiltered(view("error"), view("valid"), false)).toBe(3));
  it("no tool error: the selection's exit (--fail-on invalid asks of it alone)", () => {
    expect(exitForFiltered(view("valid"), view("valid"), true)).toBe(0);
    expect(exitForFiltered(view("invalid"), view("valid"), true)).toBe(0);
    expect(exitForFiltered(view("invalid"), view("invalid"), true)).toBe(1);
  });
});

describe("filterResults: the document holds the kept experiments and their bundles", () => {
  const entry = (
    path: string,
    profile: BundleEntry["profile"],
    experiment: string | null,
    validity: BundleEntry["validity"] = "valid",
  ): BundleEntry => ({ path, ...blankEntry({ validity, errors: [], profile, experiment }) });
  const RUN = {
    options: {
      invalid: "count",
      resource_bound: "default",
      errors: "exclude",
      schedules: [],
      hmac_key: null,
      filters: null,
    },
  } as unknown as Results["run"];
  const doc = () =>
    viewOf({
      format: "assay.results/1",
      run: RUN,
      bundles: [
        entry("a/1", "harbor", "a"),
        entry("b/1", "inspect", "b", "invalid"),
        entry("lone", "inspect", null),
        entry("x", "native-game", "a"),
      ],
      experiments: [exp("a", "harbor"), exp("b", "inspect"), exp(null, "inspect"), exp("a", "native-game")],
    });
  it("an experiment's bundles go with it, matched by kind and id (a native experiment of the same name is another)", () => {
    const { doc: out } = filterResults(doc(), filter({ kind: ["harbor"] }));
    expect(out.experiments.map((x) => [x.profile, x.experiment])).toEqual([["harbor", "a"]]);
    expect([...out.bundles].map((b) => b.path)).toEqual(["a/1"]);
    expect(out.tally).toMatchObject({ bundles: 1, valid: 1, invalid: 0 });
    expect(out.run.options.filters).toMatchObject({ kind: ["harbor"] });
  });
  it("entries without an experiment go with their kind's experiment without an id, when it is kept", () => {
    const { doc: out } = filterResults(doc(), filter({ kind: ["inspect"] }));
    expect([...out.bundles].map((b) => b.path)).toEqual(["b/1", "lone"]);
    expect(out.tally).toMatchObject({ bundles: 2, valid: 1, invalid: 1 });
    const named = filterResults(doc(), filter({ experiment: ["b"] })).doc;
    expect([...named.bundles].map((b) => b.path)).toEqual(["b/1"]);
  });
});
