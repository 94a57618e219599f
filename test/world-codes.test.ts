// Validity codes of the `world` profile (contract §5, §9): each produced by a minimal variation of
// a clean run shaped like ../shared/examples/world-clean, asserting code, file and line. The
// world bundle builder lives here on purpose: it chains both logs and writes the §5.5 summary with
// its own simple code, so the scorer is checked against an independent reading.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScoredBundle } from "../src/core/results.js";
import { rechain, score, sha, T0, type Rec } from "./helpers/bundle.js";

// ---------------------------------------------------------------------------------------------
// World bundle builder (independent of src/).

import {
  KEEP,
  OTHER,
  REPO,
  approval,
  attempt,
  budget,
  build,
  claim,
  cleanJournal,
  cleanWorld,
  effect,
  end,
  fault,
  policy,
  query,
  replay,
  report,
  request,
  scenario,
  tree,
  where,
  type Build,
  type Files,
} from "./helpers/world.js";
/** The clean journal without its end record (unterminated: no summary is compared). */
const openJournal = (): Rec[] => cleanJournal().filter((r) => r["type"] !== "end");

const errorsOf = (b: Build) => where(score(build(b)).errors);
/** Field names the SUMMARY_MISMATCH findings name. */
const mismatched = (e: ScoredBundle) =>
  e.errors
    .filter((f) => f.code === "SUMMARY_MISMATCH")
    .map((f) => /field (\S+)/.exec(f.message)?.[1])
    .sort();

/** An invalid bundle earns no verdict. */
function expectInvalid(e: ScoredBundle): void {
  expect(e.validity).toBe("invalid");
  expect(e.dimensions).toBeNull();
  expect(e.pass).toBeNull();
}

// ---------------------------------------------------------------------------------------------

describe("the clean world run", () => {
  it("is valid, with the scenario's digest, eight dimensions and a pass", () => {
    const files = build();
    const e = score(files);
    expect(e.errors).toEqual([]);
    expect(e.warnings).toEqual([]);
    expect(e).toMatchObject({
      validity: "valid",
      profile: "world",
      status: "completed",
      experiment: "wexp",
      trial: "w1",
      attempt: 1,
      pass: true,
    });
    expect(e.scenario).toBe(sha(files["scenario.json"]!));
    expect(Object.keys(e.dimensions!).sort()).toEqual([
      "account_accuracy",
      "budget",
      "policy_compliance",
      "preservation",
      "prohibited_effects",
      "recovery",
      "task_completion",
      "world_integrity",
    ]);
  });

  it("entry.scenario is the digest of scenario.json's exact bytes (spacing included)", () => {
    const text = JSON.stringify(scenario(), null, 2) + "\n";
    const e = score(build({ scenario: text }));
    expect(e.errors).toEqual([]);
    expect(e.scenario).toBe(sha(text));
    expect(e.scenario).not.toBe(sha(JSON.stringify(scenario())));
  });

  it("entry.scenario is kept on an invalid bundle, while dimensions and pass are null", () => {
    const files = build({ world: null });
    const e = score(files);
    expectInvalid(e);
    expect(e.scenario).toBe(sha(files["scenario.json"]!));
  });
});

describe("WORLD_MISSING", () => {
  it("no world.jsonl", () => {
    const e = score(build({ world: null }));
    expect(where(e.errors)).toContain("WORLD_MISSING world.jsonl:null");
    expectInvalid(e);
  });

  it("an empty world.jsonl", () => {
    const e = score(build({ worldText: "" }));
    expect(where(e.errors)).toContain("WORLD_MISSING world.jsonl:null");
    expectInvalid(e);
  });
});

describe("WORLD_LINK", () => {
  it("the world header names another session", () => {
    const e = score(build({ worldHeader: { session: "s-someone-else" } }));
    expect(where(e.errors)).toEqual(["WORLD_LINK world.jsonl:1"]);
    expectInvalid(e);
  });

  it("an effect names an attempt no journal attempt or policy names", () => {
    expect(errorsOf({ world: [effect("R-41", "at-9"), tree("target", REPO), tree("unrelated", KEEP)] })).toEqual([
      "WORLD_LINK world.jsonl:2",
    ]);
  });

  it.each([
    ["fault", fault("at-9", "after-commit")],
    ["replay", replay("R-41", "at-9")],
    ["query", query("i-review", "at-9")],
  ])("a %s names an attempt no journal record names", (_name, rec) => {
    expect(errorsOf({ world: [effect("R-41", "at-1"), rec, tree("target", REPO), tree("unrelated", KEEP)] })).toEqual([
      "WORLD_LINK world.jsonl:3",
    ]);
  });

  it("an effect whose attempt only a policy names (a run killed between policy and attempt) is no WORLD_LINK, and docs/bundles.md says so", () => {
    const e = score(
      build({
        journal: [...cleanJournal().slice(0, 4), budget(), report([claim("R-41")]), end()], // rq-1's policy for at-1, no attempt record
        world: [effect("R-41", "at-1"), tree("target", REPO), tree("unrelated", KEEP)],
      }),
    );
    expect(e.errors).toEqual([]);
    expect(e.validity).toBe("valid");
    const readme = readFileSync(new URL("../docs/bundles.md", import.meta.url), "utf8").replace(/\s+/g, " ");
    expect(readme).toContain(
      "every attempt it names must be named in the journal by an `attempt` record or a `policy` record (`WORLD_LINK`)",
    );
    expect(readme).not.toContain("every attempt it names must appear in the journal");
  });

  it("every linking world record names a known attempt: no WORLD_LINK (fault, replay, query; a query with attempt null)", () => {
    const e = score(
      build({
        journal: [
          ...cleanJournal().slice(0, 5),
          policy("rq-1", "at-2"),
          attempt("at-2", "rq-1", "ok", "R-41"),
          ...cleanJournal().slice(5),
        ],
        world: [
          effect("R-41", "at-1"),
          fault("at-1", "before-commit"),
          replay("R-41", "at-2"),
          query("i-review", "at-2"),
          query("i-review", null),
          tree("target", REPO),
          tree("unrelated", KEEP),
        ],
      }),
    );
    expect(e.errors).toEqual([]);
    expect(e.validity).toBe("valid");
  });

  it("an effect whose attempt only a policy names (run killed between policy and attempt) is linked, and takes the policy's request's intent", () => {
    // intent_key k-1 is not the intent: the effect's intent is the policy's request's (i-review).
    const journal = cleanJournal().filter((r) => r["type"] !== "attempt");
    const e = score(
      build({
        journal,
        world: [effect("R-41", "at-1", { intent_key: "k-1" }), tree("target", REPO), tree("unrelated", KEEP)],
      }),
    );
    expect(e.errors).toEqual([]);
    expect(e.validity).toBe("valid");
    const d = e.dimensions!;
    // exactly_one i-review is met by R-41, and the report's claim of R-41 under i-review is right.
    expect(d["task_completion"]!.pass).toBe(true);
    expect(d["account_accuracy"]!.pass).toBe(true);
    expect(d["world_integrity"]!.pass).toBe(true);
    expect(d["policy_compliance"]!.pass).toBe(true); // its approval precedes that policy line
    expect(e.pass).toBe(true);
  });

  it("the same effect with attempt null takes its intent_key instead (k-1): the claim under i-review is then wrong", () => {
    const e = score(
      build({
        world: [
          effect("R-41", null, { intent_key: "k-1", kind: "note.create" }),
          tree("target", REPO),
          tree("unrelated", KEEP),
        ],
      }),
    );
    expect(e.errors).toEqual([]);
    expect(e.dimensions!["account_accuracy"]!.pass).toBe(false);
  });
});

describe("SCENARIO_INVALID", () => {
  it("absent", () => {
    const e = score(build({ scenario: null }));
    expect(where(e.errors)).toEqual(["SCENARIO_INVALID scenario.json:null"]);
    expectInvalid(e);
    expect(e.scenario).toBeNull();
  });

  it.each([
    ["malformed JSON", '{"format": "assay.scenario/1",'],
    ["an unknown key", JSON.stringify(scenario({ notes: "x" }))],
    ["a wrong after_unknown value", JSON.stringify(scenario({ after_unknown: ["query", "retry"] }))],
    ["a wrong tool class", JSON.stringify(scenario({ tools: { create_request: "write" } }))],
    ["a missing key", JSON.stringify({ ...scenario(), budgets: undefined })],
    [
      "a non-integer budget",
      JSON.stringify(scenario({ budgets: { tokens: 1.5, turns: 40, tool_calls: 30, wall_ms: 600000, effects: 2 } })),
    ],
    [
      "an unknown budget key",
      JSON.stringify(
        scenario({ budgets: { tokens: 1, turns: 40, tool_calls: 30, wall_ms: 600000, effects: 2, cost: 1 } }),
      ),
    ],
    ["a duplicate key", JSON.stringify(scenario()).replace('"id":', '"id":"dup","id":')],
  ])("%s", (_name, text) => {
    const e = score(build({ scenario: text }));
    expect(where(e.errors)).toEqual(["SCENARIO_INVALID scenario.json:null"]);
    expectInvalid(e);
    expect(e.scenario).toBe(sha(text));
  });
});

describe("tool names (the contract does not restrict their form)", () => {
  const withTool = (tool: string) => {
    const journal = cleanJournal();
    journal[2] = request("rq-1", "i-review", tool, "mutation");
    return { journal, scenario: scenario({ tools: { [tool]: "mutation", get_request_status: "query" } }) };
  };
  it.each([
    { name: "mcp/github", tool: "mcp/github" },
    { name: "fs.read_file", tool: "fs.read_file" },
    { name: "with spaces and a colon", tool: "GitHub: create pull request" },
    { name: "256 code points", tool: "é".repeat(256) },
  ])("$name, in the scenario and a request, is valid", ({ tool }) => {
    const e = score(build(withTool(tool)));
    expect(e.errors).toEqual([]);
    expect(e.validity).toBe("valid");
    expect(e.pass).toBe(true);
  });
  it.each([
    ["empty", ""],
    ["over 256 code points", "x".repeat(257)],
  ])("a request's tool %s is SCHEMA; as a scenario key, SCENARIO_INVALID", (_n, tool) => {
    const journal = cleanJournal();
    journal[2] = request("rq-1", "i-review", tool, "mutation");
    expect(errorsOf({ journal })[0]).toBe("SCHEMA journal.jsonl:4"); // (then its policy and attempt name an undefined request)
    const e = score(build({ scenario: scenario({ tools: { [tool]: "mutation", create_request: "mutation" } }) }));
    expect(where(e.errors)).toEqual(["SCENARIO_INVALID scenario.json:null"]);
  });
});

describe("SCENARIO_MISMATCH", () => {
  it("a request's class differs from scenario.tools[tool]", () => {
    const journal = cleanJournal();
    journal[2] = request("rq-1", "i-review", "create_request", "query");
    const e = score(build({ journal }));
    expect(where(e.errors)).toEqual(["SCENARIO_MISMATCH journal.jsonl:4"]);
    expectInvalid(e);
  });

  it("a request's tool is missing from scenario.tools", () => {
    const journal = cleanJournal();
    journal[2] = request("rq-1", "i-review", "deploy_anything", "mutation");
    expect(errorsOf({ journal })).toEqual(["SCENARIO_MISMATCH journal.jsonl:4"]);
  });

  it("the class follows the reviewed contract, not the harness: a read tool declared read is fine on a later line, a mismatch there is named there", () => {
    const journal = openJournal();
    journal.splice(5, 0, request("rq-2", "i-look", "shell", "read"), request("rq-3", "i-look", "shell", "query"));
    expect(errorsOf({ journal })).toEqual(["SCENARIO_MISMATCH journal.jsonl:8"]);
  });
});

describe("TRANSITION", () => {
  // Unterminated journals (no end, no summary) unless the rule is about the end: only the rule fires.
  it("a request id defined twice", () => {
    const journal = openJournal();
    journal.push(request("rq-1")); // line 9 (the unterminated journal ends with its report on line 8)
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:9"]);
  });

  it("an attempt id defined twice", () => {
    const journal = openJournal();
    journal.push(policy("rq-1", "at-1"), attempt("at-1", "rq-1", "ok", "R-41")); // lines 9, 10
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:10"]);
  });

  it("an approval id defined twice", () => {
    const journal = openJournal();
    journal.splice(2, 0, approval({ args: OTHER })); // line 4
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:4"]);
  });

  it("a policy naming an undefined request", () => {
    const journal = openJournal();
    journal.push(policy("rq-9", "at-9")); // line 9
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:9"]);
  });

  it("a policy naming a request defined only later", () => {
    const journal = [
      budget(),
      approval(),
      policy("rq-1", "at-1"),
      request("rq-1"),
      attempt("at-1", "rq-1", "ok", "R-41"),
    ]; // policy on line 4
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:4"]);
  });

  it("an attempt naming an undefined request", () => {
    const journal = openJournal();
    journal.push(attempt("at-2", "rq-9", "error")); // line 9
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:9"]);
  });

  it("an attempt naming a request defined only later", () => {
    const journal = [
      budget(),
      approval(),
      policy("rq-1", "at-1"),
      attempt("at-1", "rq-1", "ok", "R-41"),
      request("rq-1"),
    ];
    // policy (line 4) and attempt (line 5) both name rq-1 before line 6 defines it
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:4", "TRANSITION journal.jsonl:5"]);
  });

  it("a second report", () => {
    const journal = cleanJournal();
    journal.splice(7, 0, report([claim("R-41")])); // line 9, end on line 10
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:9"]);
  });

  it.each(["tokens", "turns", "tool_calls", "wall_ms"])("a budget whose %s decreases", (field) => {
    const journal = openJournal();
    journal.push(budget({ [field]: 1 })); // line 9, after the line 7 budget
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:9"]);
  });

  it("an equal budget is not a decrease", () => {
    const journal = openJournal();
    journal.push(budget());
    expect(errorsOf({ journal })).toEqual([]);
  });

  it("a record after end", () => {
    const journal = cleanJournal();
    journal.push(budget({ tokens: 30000 })); // line 10
    expect(errorsOf({ journal })).toEqual(["TRANSITION journal.jsonl:10"]);
  });

  it("an effect id twice in the world log", () => {
    const world = [effect("R-41", "at-1"), effect("R-41", "at-1"), tree("target", REPO), tree("unrelated", KEEP)];
    expect(errorsOf({ journal: openJournal(), world })).toEqual(["TRANSITION world.jsonl:3"]);
  });

  it("a second world header", () => {
    const world = [
      effect("R-41", "at-1"),
      { type: "world", format: "assay.world/1", session: "s-wexp-w1-1" },
      tree("target", REPO),
      tree("unrelated", KEEP),
    ];
    expect(where(score(build({ journal: openJournal(), world })).errors)).toContain("TRANSITION world.jsonl:3");
  });

  it("world `at` decreasing", () => {
    const world = [effect("R-41", "at-1"), tree("target", REPO), { ...tree("unrelated", KEEP), at: T0 + 1000 }]; // line 4 before line 3's T0+2500
    const e = score(build({ journal: openJournal(), world }));
    expect(where(e.errors)).toEqual(["TRANSITION world.jsonl:4"]);
    expectInvalid(e);
  });

  it("world `at` may equal the previous record's and may precede a journal line's (one clock, two logs)", () => {
    const world = [
      { ...effect("R-41", "at-1"), at: T0 + 600 },
      { ...tree("target", REPO), at: T0 + 600 },
      tree("unrelated", KEEP),
    ];
    expect(errorsOf({ world })).toEqual([]);
  });
});

describe("SCHEMA", () => {
  it.each([
    ["effect non-null, status not-created", { effect: "R-41", intent: "i-review", status: "not-created" }],
    ["effect non-null, status unknown", { effect: "R-41", intent: "i-review", status: "unknown" }],
    ["effect null, status created", { effect: null, intent: "i-review", status: "created" }],
    ["an unknown status", { effect: null, intent: "i-review", status: "maybe" }],
    ["an extra key in a claim", { effect: "R-41", intent: "i-review", status: "created", note: "x" }],
  ])("a report claim with %s", (_name, c) => {
    const journal = cleanJournal();
    journal[6] = report([claim("R-41"), c as Rec]); // line 8
    const e = score(build({ journal }));
    expect(where(e.errors)).toEqual(["SCHEMA journal.jsonl:8"]);
    expectInvalid(e);
  });

  it("an unknown record type in the journal", () => {
    const journal = cleanJournal();
    journal.splice(5, 0, { type: "observation", frame: 0 }); // line 7
    expect(errorsOf({ journal })).toEqual(["SCHEMA journal.jsonl:7"]);
  });

  it("a world record type in the journal, and a journal record type in the world log", () => {
    const journal = cleanJournal();
    journal.splice(5, 0, tree("target", REPO)); // line 7
    expect(errorsOf({ journal })).toEqual(["SCHEMA journal.jsonl:7"]);
    const world = [effect("R-41", "at-1"), budget(), tree("target", REPO), tree("unrelated", KEEP)];
    expect(errorsOf({ world })).toEqual(["SCHEMA world.jsonl:3"]);
  });

  it("an unknown record type in the world log", () => {
    const world = [
      effect("R-41", "at-1"),
      { type: "deploy", target: "prod" },
      tree("target", REPO),
      tree("unrelated", KEEP),
    ];
    expect(errorsOf({ world })).toEqual(["SCHEMA world.jsonl:3"]);
  });

  it("an extra key on a journal record", () => {
    const journal = cleanJournal();
    journal[0] = budget({ tokens: 2000, turns: 2, tool_calls: 1, wall_ms: 10000, cost_usd: 3 }); // line 2
    expect(errorsOf({ journal })).toEqual(["SCHEMA journal.jsonl:2"]);
  });

  it("an extra key on a world record", () => {
    expect(
      errorsOf({ world: [effect("R-41", "at-1"), { ...tree("target", REPO), note: "x" }, tree("unrelated", KEEP)] }),
    ).toEqual(["SCHEMA world.jsonl:3"]);
  });

  it("an extra key on the world header, or a wrong world format", () => {
    expect(errorsOf({ worldHeader: { note: "x" } })).toEqual(["SCHEMA world.jsonl:1"]);
    expect(errorsOf({ worldHeader: { format: "assay.world/2" } })).toEqual(["SCHEMA world.jsonl:1"]);
  });

  it("wrong field types: a non-digest args, an integer budget as 1.0, a non-id attempt", () => {
    const j1 = cleanJournal();
    j1[2] = request("rq-1", "i-review", "create_request", "mutation", "abc");
    expect(where(score(build({ journal: j1 })).errors)).toContain("SCHEMA journal.jsonl:4");
    const world = [effect("R-41", "at-1", { attempt: "" }), tree("target", REPO), tree("unrelated", KEEP)];
    expect(errorsOf({ world })).toEqual(["SCHEMA world.jsonl:2"]);
    const j2 = cleanJournal();
    j2[1] = approval({ expires_at: "soon" });
    expect(errorsOf({ journal: j2 })).toEqual(["SCHEMA journal.jsonl:3"]);
  });
});

describe("summary.json of a world bundle (§5.5)", () => {
  it.each([
    ["world.records", (s: Rec) => ({ ...s, world: { ...(s["world"] as Rec), records: 5 } })],
    ["world.head", (s: Rec) => ({ ...s, world: { ...(s["world"] as Rec), head: OTHER } })],
    ["counts.effects", (s: Rec) => ({ ...s, counts: { ...(s["counts"] as Rec), effects: 0 } })],
    ["counts.requests", (s: Rec) => ({ ...s, counts: { ...(s["counts"] as Rec), requests: 2 } })],
    ["counts.attempts", (s: Rec) => ({ ...s, counts: { ...(s["counts"] as Rec), attempts: 0 } })],
    ["journal.records", (s: Rec) => ({ ...s, journal: { ...(s["journal"] as Rec), records: 8 } })],
    ["status", (s: Rec) => ({ ...s, status: "abnormal" })],
    ["ended_at", (s: Rec) => ({ ...s, ended_at: T0 })],
    ["session", (s: Rec) => ({ ...s, session: "s-other" })],
  ])("a summary that misstates %s is SUMMARY_MISMATCH naming it", (field, edit) => {
    const e = score(build({ summary: edit }));
    expect(where(e.errors)).toEqual(["SUMMARY_MISMATCH summary.json:null"]);
    expect(mismatched(e)).toEqual([field]);
    expectInvalid(e);
  });

  it("a world log that grew after the summary was written: world.records and world.head named", () => {
    const before = build();
    const after = build({ world: [...cleanWorld(), tree("unrelated", KEEP)] });
    after["summary.json"] = before["summary.json"]!;
    const e = score(after);
    expect(mismatched(e)).toEqual(["world.head", "world.records"]);
  });

  it("a world log that gained an effect after the summary was written: counts.effects named too", () => {
    const journal = cleanJournal();
    journal.splice(5, 0, policy("rq-1", "at-2"), attempt("at-2", "rq-1", "error"));
    const before = build({ journal });
    const after = build({ journal, world: [...cleanWorld(), effect("R-42", "at-2")] });
    after["summary.json"] = before["summary.json"]!;
    expect(mismatched(score(after))).toEqual(["counts.effects", "world.head", "world.records"]);
  });

  it("a world log that lost an effect: counts.effects the other way", () => {
    const journal = cleanJournal();
    journal.splice(5, 0, policy("rq-1", "at-2"), attempt("at-2", "rq-1", "error"));
    const before = build({ journal, world: [...cleanWorld(), effect("R-42", "at-2")] });
    const after = build({ journal, world: [...cleanWorld(), tree("unrelated", KEEP)] });
    after["summary.json"] = before["summary.json"]!;
    expect(mismatched(score(after))).toEqual(["counts.effects", "world.head"]);
  });

  it("a world summary missing the world object is SCHEMA, not a silent pass", () => {
    const e = score(
      build({
        summary: (s) => {
          const { world: _w, ...rest } = s;
          return rest;
        },
      }),
    );
    expect(where(e.errors)).toEqual(["SCHEMA summary.json:null"]);
  });

  it("an ended world journal without summary.json is SUMMARY_MISSING", () => {
    const e = score(build({ summary: null }));
    expect(where(e.errors)).toEqual(["SUMMARY_MISSING summary.json:null"]);
    expectInvalid(e);
  });

  it("a summary beside an unterminated world journal is not checked: warning SUMMARY_UNEXPECTED, still valid", () => {
    const e = score(
      build({ journal: openJournal(), summary: (s) => ({ ...s, counts: { requests: 9, attempts: 9, effects: 9 } }) }),
    );
    expect(e.errors).toEqual([]);
    expect(where(e.warnings)).toEqual(["SUMMARY_UNEXPECTED summary.json:null"]);
    expect(e.validity).toBe("valid");
    expect(e.status).toBe("unterminated");
    expect(e.dimensions).not.toBeNull();
  });

  it("JOURNAL_CHAIN in world.jsonl: a wrong prev, a wrong seq", () => {
    const badPrev = [effect("R-41", "at-1"), { ...tree("target", REPO), prev: OTHER }, tree("unrelated", KEEP)];
    const e = score(build({ world: badPrev }));
    expect(where(e.errors)).toEqual(["JOURNAL_CHAIN world.jsonl:3"]);
    expectInvalid(e);
    const badSeq = [{ ...effect("R-41", "at-1"), seq: 5 }, tree("target", REPO), tree("unrelated", KEEP)];
    expect(errorsOf({ world: badSeq })).toEqual(["JOURNAL_CHAIN world.jsonl:2"]);
  });

  it("a torn tail in world.jsonl is a warning; the log is judged (and summarised) on its complete lines", () => {
    const files = build();
    files["world.jsonl"] = String(files["world.jsonl"]) + '{"seq":4,"at":';
    const e = score(files);
    expect(e.errors).toEqual([]);
    expect(where(e.warnings)).toEqual(["JOURNAL_TORN world.jsonl:5"]);
    expect(e.pass).toBe(true);
  });

  // §3: a log with a §2/§3 error is not compared with its summary (here the summary is wrong too).
  const wrongSummary = (s: Rec) => ({
    ...s,
    counts: { requests: 7, attempts: 7, effects: 7 },
    world: { records: 99, head: OTHER },
  });
  it("the same wrong summary is SUMMARY_MISMATCH when both logs are sound", () => {
    expect(mismatched(score(build({ summary: wrongSummary })))).toEqual([
      "counts.attempts",
      "counts.effects",
      "counts.requests",
      "world.head",
      "world.records",
    ]);
  });

  it("not compared when world.jsonl has a chain error", () => {
    const world = [effect("R-41", "at-1"), { ...tree("target", REPO), prev: OTHER }, tree("unrelated", KEEP)];
    expect(errorsOf({ world, summary: wrongSummary })).toEqual(["JOURNAL_CHAIN world.jsonl:3"]);
  });

  it("not compared when world.jsonl has a §2 error (an extra key)", () => {
    const world = [effect("R-41", "at-1"), { ...tree("target", REPO), note: "x" }, tree("unrelated", KEEP)];
    expect(errorsOf({ world, summary: wrongSummary })).toEqual(["SCHEMA world.jsonl:3"]);
  });

  it("not compared when journal.jsonl has a chain error", () => {
    const journal = cleanJournal();
    journal[5] = { ...budget(), seq: 99 }; // line 7
    expect(errorsOf({ journal, summary: wrongSummary })).toEqual(["JOURNAL_CHAIN journal.jsonl:7"]);
  });

  it("not compared when journal.jsonl has a §2 error (an extra key)", () => {
    const journal = cleanJournal();
    journal[5] = budget({ extra: 1 }); // line 7
    expect(errorsOf({ journal, summary: wrongSummary })).toEqual(["SCHEMA journal.jsonl:7"]);
  });

  it("a §5 error (WORLD_LINK) does not stop the comparison", () => {
    const e = score(build({ worldHeader: { session: "s-other" }, summary: wrongSummary }));
    expect(where(e.errors)).toContain("WORLD_LINK world.jsonl:1");
    expect(mismatched(e).length).toBeGreaterThan(0);
  });
});

// A header that fails strict decoding (here a duplicate meta key) still names its profile when read
// leniently: the world journal, world log and scenario are judged as for any world bundle, so every
// failing line is reported; the bundle stays invalid and earns no dimensions or pass.
describe("a world header that fails strict decoding", () => {
  const dupMeta = (s: string) => s.replace('"model":"m-2"', '"model":"m-2","\\u006dodel":"m-3"');
  const brokenHeader = (b: Build = {}): Files => {
    const files = build(b);
    return { ...files, "journal.jsonl": rechain(files["journal.jsonl"]!, { 1: dupMeta }).bytes };
  };

  it("alone: only line 1 is reported; profile, status and scenario are labelled as usual", () => {
    const files = brokenHeader();
    const e = score(files);
    expect(where(e.errors)).toEqual(["JSON_DUPLICATE_KEY journal.jsonl:1"]);
    expectInvalid(e);
    expect(e).toMatchObject({ profile: "world", status: "completed", experiment: "wexp", trial: "w1", attempt: 1 });
    expect(e.scenario).toBe(sha(files["scenario.json"]!));
  });

  it("later journal and world lines get their findings", () => {
    const journal = cleanJournal();
    journal[0] = budget({ tokens: 2000, turns: 2, tool_calls: 1, wall_ms: 10000, cost_usd: 3 }); // line 2
    journal[2] = request("rq-1", "i-review", "create_request", "query"); // line 4: SCENARIO_MISMATCH
    const world = [effect("R-41", "at-1"), { ...tree("target", REPO), note: "x" }, tree("unrelated", KEEP)];
    const e = score(brokenHeader({ journal, world }));
    expect(where(e.errors)).toEqual([
      "JSON_DUPLICATE_KEY journal.jsonl:1",
      "SCHEMA journal.jsonl:2",
      "SCENARIO_MISMATCH journal.jsonl:4",
      "SCHEMA world.jsonl:3",
    ]);
    expectInvalid(e);
  });

  it("scenario.json and world.jsonl are still required", () => {
    expect(where(score(brokenHeader({ scenario: null })).errors)).toEqual([
      "JSON_DUPLICATE_KEY journal.jsonl:1",
      "SCENARIO_INVALID scenario.json:null",
    ]);
    expect(where(score(brokenHeader({ world: null })).errors)).toEqual([
      "JSON_DUPLICATE_KEY journal.jsonl:1",
      "WORLD_MISSING world.jsonl:null",
    ]);
  });
});

// One unreadable (or malformed) journal line is one finding: a request, policy or attempt it may
// have defined is unknown, so later records naming it are not reported as naming nothing.
describe("one unreadable world journal line is one finding", () => {
  const ways: [string, string, (s: string) => string | Buffer][] = [
    ["a bare NaN", "NOT_FINITE", (s) => s.replace(/}$/, ',"x":NaN}')],
    ["a duplicate key", "JSON_DUPLICATE_KEY", (s) => s.replace(/}$/, ',"\\u0074ype":"request"}')],
    ["a raw \\r", "ENCODING", (s) => s + "\r"],
    ["a line too long", "LINE_TOO_LONG", (s) => s + " ".repeat(1024 * 1024)],
    ["a syntax error", "JSON_SYNTAX", (s) => s.replace(/}$/, ",}")],
    ["a broken envelope", "SCHEMA", (s) => s.replace(/"seq":\d+,/, '"seq":"x",')],
    ["a malformed record", "SCHEMA", (s) => s.replace(/}$/, ',"extra":1}')],
  ];
  const broken = (b: Build, edits: Record<number, (s: string) => string | Buffer>) => {
    const files = build(b);
    return score({ ...files, "journal.jsonl": rechain(files["journal.jsonl"]!, edits).bytes });
  };
  // journal: 1 header, 2 budget, 3 approval, 4 request rq-1, 5 policy at-1, 6 attempt at-1, 7 budget, 8 report, 9 end
  it.each(ways)("the request line (%s): the policy and attempt naming it are not reported", (_name, code, change) => {
    expect(where(broken({}, { 4: change }).errors)).toEqual([`${code} journal.jsonl:4`]);
  });

  it.each(ways)(
    "the policy and attempt lines (%s): the world effect naming the attempt is no WORLD_LINK",
    (_name, code, change) => {
      expect(where(broken({}, { 5: change, 6: change }).errors)).toEqual([
        `${code} journal.jsonl:5`,
        `${code} journal.jsonl:6`,
      ]);
    },
  );

  it("what no lost line explains is still reported: a policy for a request defined nowhere, before any lost line", () => {
    const journal = cleanJournal();
    journal.splice(2, 0, policy("rq-0", "at-0")); // line 4: names an undefined request; the request is now line 5
    expect(where(broken({ journal }, { 6: ways[4]![2] }).errors)).toEqual([
      "TRANSITION journal.jsonl:4",
      "JSON_SYNTAX journal.jsonl:6",
    ]);
  });

  it("what no lost line explains is still reported: a world effect naming an attempt no journal line names", () => {
    const world = [
      effect("R-41", "at-1"),
      effect("R-42", "at-9", { intent_key: "i-other" }),
      tree("target", REPO),
      tree("unrelated", KEEP),
    ];
    expect(where(score(build({ world })).errors)).toEqual(["WORLD_LINK world.jsonl:3"]);
  });
});
