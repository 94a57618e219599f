// Issue 35 (§1's Inspect bullets, one of §5's): whose a failure is follows the evidence. A refusal
// is the model's (0 in both figures, counted); a dead sandbox is the instrument's (left out, 0 under
// --errors zero); an instrument reason removes only a missing verdict; choice() without options is
// the scorer's, by the writer's version; a log whose claims cover samples it lacks is unverified.
// Each rule with its attack and its honest neighbour, on the real popularity log edited here.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { partsOf, readSamples, scoreInspectLog } from "../src/kinds/inspect/read.js";
import { readDirectory } from "../src/kinds/inspect/zip.js";
import { inspectLogBytes } from "../src/synth/inspect.js";
import { zipBytes } from "../src/synth/zip.js";
import { run } from "./helpers/cli.js";
import { fixture, json, members, place, scratch, type Member } from "./helpers/inspect.js";
import { runsWithShared, SHARED_DIR } from "./helpers/shared.js";

/** JSON with NaN written as Inspect writes it (a bare token). */
const withNaN = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === "number" && Number.isNaN(x) ? "\u0000NaN" : x), 2).replace(
    /"\\u0000NaN"/g,
    "NaN",
  );
/** The real popularity log (samples 1, 2, 3 score C, C, I; written by Inspect 0.3.95), events and reductions dropped, as a success. */
function popularity(version = "0.3.95"): any {
  const log = JSON.parse(readFileSync(fixture("2025-05-12T20-28-13-04-00_popularity.json"), "utf8"));
  delete log.reductions;
  for (const s of log.samples) s.events = [];
  log.status = "success";
  log.eval.packages.inspect_ai = version;
  return log;
}
/** Claims as Inspect writes them: accuracy (its stderr too) over the values it counts. */
function claim(log: any, accuracy: number, stderr: number): any {
  log.results.scores[0].metrics.accuracy.value = accuracy;
  log.results.scores[0].metrics.stderr.value = stderr;
  return log;
}
const scoreLog = (log: unknown) =>
  scoreInspectLog(place(`${Math.random().toString(36).slice(2)}.json`, withNaN(log)), "json");
const accuracy = (e: ReturnType<typeof scoreLog>) => e.inspect!.metrics["match/-/accuracy"]!;
const flag = (e: ReturnType<typeof scoreLog>, code: string) => e.flags.find((f) => f.code === code);
/** A log file named as Inspect names them (so `score` finds it), for the CLI. */
const file = (log: unknown, name: string) => place(`2025-05-12T20-28-13-04-00_${name}.json`, withNaN(log));

describe("refusals are the model's failures (fail_on_refusal, PR #5327; Score.reason; the letter N, #5333)", () => {
  /** Sample 2 (a C) refused: an error, no score; Inspect's claim is over C and I alone (0.5). */
  function refused(message: string): any {
    const log = claim(popularity(), 0.5, 0.5);
    log.samples[1].scores = {};
    log.samples[1].error = { message, traceback: "", traceback_ansi: "" };
    log.results.completed_samples = 2;
    return log;
  }
  it("a refusal error (its message, or its repr) is its own state and a 0 in both figures: 0.500 → 0.333, the claim still agrees", () => {
    for (const message of [
      "Model refusal (openai/gpt-4o, category cyber): I can't help with that.",
      "ModelRefusalError('Model refusal (openai/gpt-4o): no')",
    ]) {
      const e = scoreLog(refused(message));
      expect(e.validity).toBe("valid");
      expect(e.samples).toMatchObject({ scored: 2, refusal: 1, error: 0 });
      expect(accuracy(e)).toMatchObject({
        check: "agrees",
        coverage: { scored: 3, planned: 3 },
        refusals: 1,
        exclude: { value: 1 / 3, n: 3 },
        zero: { value: 1 / 3, n: 3 },
      });
    }
  });
  it("an ordinary error stays the sample's error: left out by default (0.500), 0 under --errors zero, no refusal counted", () => {
    const e = scoreLog(refused("RuntimeError('the model API timed out')"));
    expect(e.samples).toMatchObject({ scored: 2, error: 1 });
    expect(e.samples).not.toHaveProperty("refusal");
    expect(accuracy(e)).toMatchObject({
      coverage: { scored: 2, planned: 3 },
      exclude: { value: 0.5, n: 2 },
      zero: { value: 1 / 3, n: 3 },
    });
    expect(accuracy(e).refusals).toBeUndefined();
  });
  it("Score.reason refusal / no_response without a verdict (NaN) is the model's 0, not an unscored sample left out", () => {
    for (const reason of ["refusal", "no_response"]) {
      const log = claim(popularity(), 0.5, 0.5);
      log.samples[1].scores.match = { value: NaN, reason, answer: "" };
      const e = scoreLog(log);
      expect(e.samples).toMatchObject({ scored: 2, refusal: 1, unscored: 0 });
      expect(accuracy(e)).toMatchObject({
        check: "agrees",
        refusals: 1,
        exclude: { value: 1 / 3, n: 3 },
        zero: { value: 1 / 3 },
      });
    }
  });
  it("a definite value keeps its word whatever the reason (a refusal benchmark's C stays 1), and NaN with no reason stays unscored", () => {
    const log = claim(popularity(), 2 / 3, 1 / 3);
    log.samples[2].scores.match = { value: "C", reason: "refusal" };
    log.results.scores[0].metrics.accuracy.value = 1;
    log.results.scores[0].metrics.stderr.value = 0;
    const e = scoreLog(log);
    expect(accuracy(e)).toMatchObject({ check: "agrees", exclude: { value: 1 }, refusals: 1 });
    const plain = claim(popularity(), 1, 0);
    plain.samples[2].scores.match = { value: NaN };
    const u = scoreLog(plain);
    expect(u.samples).toMatchObject({ unscored: 1 });
    expect(accuracy(u)).toMatchObject({ exclude: { value: 1, n: 2 }, zero: { value: 2 / 3 } });
    expect(accuracy(u).refusals).toBeUndefined();
  });
  it("the no-answer letter N is a 0 in the figure (as value_to_float maps it) and counted among the refusals; I is not", () => {
    const log = claim(popularity("0.3.264"), 2 / 3, 1 / 3);
    log.samples[2].scores.match = { value: "N", reason: "no_response", answer: "" };
    const e = scoreLog(log);
    expect(accuracy(e)).toMatchObject({ check: "agrees", refusals: 1, exclude: { value: 2 / 3, n: 3 } });
    expect(accuracy(scoreLog(claim(popularity("0.3.264"), 2 / 3, 1 / 3))).refusals).toBeUndefined();
  });
  it("the report says how many beside coverage (--details, verify) and the experiment's JSON carries it (schema-checked), under both --errors settings", async () => {
    const f = file(refused("Model refusal (openai/gpt-4o): I can't help with that."), "refused");
    const table = await run(["score", "--details", f]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("samples      scored 2 · refusal 1   (of 3 planned records: sample_ids × epochs)");
    expect(table.stdout).toMatch(/coverage 3\/3 planned records scored = 100\.0%   refusals 1/);
    expect(table.stdout).toContain("    refused    1 record where the model gave no answer");
    const verify = await run(["verify", f]);
    expect(verify.stdout).toContain("assay 0.333333 over 3 scored records (1 of them the model's refusals, as 0)");
    for (const errors of ["exclude", "zero"]) {
      const doc = JSON.parse((await run(["score", f, "--format", "json", "--errors", errors])).stdout);
      expect(doc.experiments[0].inspect["match/-/accuracy"]).toMatchObject({
        value: 1 / 3,
        refusals: 1,
        coverage: { scored: 3, planned: 3 },
      });
      expect(doc.experiments[0].states).toMatchObject({ refusal: 1 });
    }
  });
});

describe("a refusal is 0 in pass@k and in the per-sample values compare pairs, under both --errors settings", () => {
  /** Two epochs of C, C, I; sample 1's second epoch refused (Inspect's claim leaves it out: mean 1, 1, 0 = 2/3). */
  function epochs(message: string): any {
    const log = claim(popularity(), 2 / 3, 1 / 3);
    log.eval.config.epochs = 2;
    const second = log.samples.map((s: any) => ({ ...structuredClone(s), epoch: 2 }));
    second[0].scores = {};
    second[0].error = { message, traceback: "" };
    log.samples.push(...second);
    return log;
  }
  it("refused: sample 1 is [1, 0], so 0.500 over the samples, pass@1 0.500 and pass@2 0.667 in both figures", () => {
    const m = accuracy(scoreLog(epochs("Model refusal (openai/gpt-4o): no.")));
    expect(m).toMatchObject({ refusals: 1, coverage: { scored: 6, planned: 6 } });
    for (const f of [m.exclude, m.zero]) {
      expect(f.value).toBeCloseTo(0.5, 12);
      expect(f.pass_at_k!["1"]).toBeCloseTo(0.5, 12);
      expect(f.pass_at_k!["2"]).toBeCloseTo(2 / 3, 12);
    }
    expect(m.values).toEqual({ exclude: [0.5, 1, 0], zero: [0.5, 1, 0] });
  });
  it("the neighbour: an ordinary error in its place is left out by default (sample 1 is 1 over its one epoch: 0.667, no pass@2), 0 under --errors zero", () => {
    const m = accuracy(scoreLog(epochs("RuntimeError('boom')")));
    expect(m.refusals).toBeUndefined();
    expect(m.exclude.value).toBeCloseTo(2 / 3, 12);
    expect(m.exclude.pass_at_k).toEqual({ "1": 2 / 3 });
    expect(m.values!.exclude).toEqual([1, 1, 0]);
    expect(m.zero.value).toBeCloseTo(0.5, 12);
    expect(m.values!.zero).toEqual([0.5, 1, 0]);
  });
});

describe("a dead sandbox is the instrument's (sandbox_unavailable, #4709, from Inspect 0.3.260)", () => {
  const DEAD = 'The sandbox is not running and cannot execute: service "default" is not running';
  /** Sample 3 (the I) ran a tool whose sandbox was dead; Inspect still scored it I and counted it (claim 2/3). */
  function dead(version: string, tool: Record<string, unknown>, where: "messages" | "events" = "messages"): any {
    const log = claim(popularity(version), 2 / 3, 1 / 3);
    const s = log.samples[2];
    if (where === "messages")
      s.messages.push({ role: "tool", tool_call_id: "c1", function: "bash", content: "", ...tool });
    // A transcript with events holds its score's event too (SCORE_EVENT_MISMATCH otherwise, issue 35 §2).
    else
      s.events.push(
        { event: "tool", id: "c1", function: "bash", arguments: {}, result: "", ...tool },
        { event: "score", scorer: "match", intermediate: false, score: { value: s.scores.match.value } },
      );
    return log;
  }
  it("a typed tool error (a message or an event) takes the sample out of the model's figure: 0.667 → 1.000, 0 under --errors zero, flagged", () => {
    for (const where of ["messages", "events"] as const) {
      const e = scoreLog(dead("0.3.260", { error: { type: "sandbox_unavailable", message: DEAD } }, where));
      expect(e.validity).toBe("valid");
      expect(e.samples).toMatchObject({ scored: 2, "sandbox-unavailable": 1 });
      expect(accuracy(e)).toMatchObject({
        check: "agrees",
        coverage: { scored: 2, planned: 3 },
        exclude: { value: 1, n: 2 },
        zero: { value: 2 / 3, n: 3 },
      });
      expect(flag(e, "SANDBOX_UNAVAILABLE")?.evidence).toBe(
        `1 samples whose sandbox died under them (instrument errors: left out of assay's value, 0 under --errors zero): samples[2] (${DEAD})`,
      );
    }
  });
  it("older logs: docker's dead-container line as the whole of a tool's output, and only that", () => {
    const e = scoreLog(dead("0.3.95", { content: 'service "default" is not running\n' }));
    expect(e.samples).toMatchObject({ "sandbox-unavailable": 1 });
    expect(accuracy(e).exclude.value).toBe(1);
    for (const content of [
      'service "default" is not running\nand then some',
      'echo service "default" is not running',
      "Error response from daemon: container abc is not running",
    ]) {
      const n = scoreLog(dead("0.3.95", { content }));
      expect(n.samples, content).not.toHaveProperty("sandbox-unavailable");
      expect(accuracy(n).exclude.value).toBeCloseTo(2 / 3, 12);
    }
  });
  it("older logs: the line a model printed is not a dead container: a live result of that tool after it undoes it; another tool's answer (submit) does not", () => {
    const calls = (...results: [fn: string, content: string][]) => {
      const log = claim(popularity("0.3.95"), 2 / 3, 1 / 3);
      for (const [fn, content] of results)
        log.samples[2].messages.push({ role: "tool", tool_call_id: "c", function: fn, content });
      return scoreLog(log);
    };
    const LINE = 'service "default" is not running';
    const printed = calls(["bash", LINE], ["bash", "total 0"]);
    expect(printed.samples).toMatchObject({ scored: 3 });
    expect(flag(printed, "SANDBOX_UNAVAILABLE")).toBeUndefined();
    expect(accuracy(printed).exclude.value).toBeCloseTo(2 / 3, 12);
    for (const dead of [
      calls(["bash", "total 0"], ["bash", LINE], ["bash", LINE]),
      calls(["bash", LINE], ["submit", "No"]),
    ]) {
      expect(dead.samples).toMatchObject({ "sandbox-unavailable": 1 });
      expect(flag(dead, "SANDBOX_UNAVAILABLE")?.evidence).toContain(`samples[2] (${LINE})`);
      expect(accuracy(dead).exclude.value).toBe(1);
    }
  });
  it("the writer's version decides which evidence is Inspect's: the bare line in a 0.3.260 log is the model's output, a typed error in an older log is no Inspect's, another type is not a dead sandbox", () => {
    for (const [version, tool] of [
      ["0.3.260", { content: 'service "default" is not running' }],
      ["0.3.259", { error: { type: "sandbox_unavailable", message: DEAD } }],
      ["0.3.260", { error: { type: "timeout", message: "Command timed out before completing." } }],
    ] as const) {
      const e = scoreLog(dead(version, tool));
      expect(e.samples, `${version} ${JSON.stringify(tool)}`).toMatchObject({ scored: 3 });
      expect(flag(e, "SANDBOX_UNAVAILABLE")).toBeUndefined();
      expect(accuracy(e).exclude.value).toBeCloseTo(2 / 3, 12);
    }
  });
});

describe("a dead sandbox in a chunked sample (its event chunks, read a chunk at a time)", () => {
  /** A generated .eval with sample 2 (epoch 1) chunked as convert.py writes it, a tool event of `tool` among its events. */
  function chunked(tool: Record<string, unknown>, ...later: Record<string, unknown>[]): string {
    const ms = members(
      place(
        `g-${Math.random().toString(36).slice(2)}.eval`,
        inspectLogBytes({
          task: "t",
          model: "m/x",
          samples: 3,
          epochs: 1,
          format: "eval",
          method: 8,
          seed: "dead",
          offset: 0,
          case: "clean",
        }),
      ),
    );
    const out = ms.flatMap((m): Member[] => {
      // Written by 0.3.260, whose tool errors carry the type (the generator writes 0.3.255).
      if (m.name === "header.json" || m.name === "_journal/start.json") {
        const v = json(m);
        v.eval.packages.inspect_ai = "0.3.260";
        return [{ ...m, data: Buffer.from(JSON.stringify(v)) }];
      }
      if (m.name !== "samples/2_epoch_1.json") return [m];
      const { messages, events, attachments: _a, events_data: _d, ...shell } = json(m);
      const part = (name: string, v: unknown): Member => ({
        name: `samples/2_epoch_1/${name}`,
        data: Buffer.from(JSON.stringify(v)),
        method: 8,
      });
      return [
        part("sample.json", { ...shell, message_refs: [[0, messages.length]] }),
        part("messages/0.json", messages),
        part("events/0.json", [
          ...events,
          ...[tool, ...later].map((t) => ({
            event: "tool",
            id: "c1",
            function: "bash",
            arguments: { command: "ls" },
            result: "",
            ...t,
          })),
        ]),
      ];
    });
    return place(`c-${Math.random().toString(36).slice(2)}.eval`, zipBytes(out));
  }
  const recordOf = (file: string) =>
    readSamples(file, partsOf(readDirectory(file).members).samples).samples!.find((r) => r.id === "2")!;
  it("a typed tool error in an event chunk reaches the record, only the few fields read", () => {
    const r = recordOf(
      chunked({
        error: {
          type: "sandbox_unavailable",
          message: 'The sandbox is not running and cannot execute: service "default" is not running',
        },
      }),
    );
    expect(r.sandbox).toEqual({
      typed: true,
      evidence: 'The sandbox is not running and cannot execute: service "default" is not running',
    });
    expect(
      scoreInspectLog(chunked({ error: { type: "sandbox_unavailable", message: "dead" } }), "eval").samples,
    ).toMatchObject({ "sandbox-unavailable": 1 });
  });
  it("an ordinary tool event, or another error type, is no dead sandbox", () => {
    expect(recordOf(chunked({ result: "file.txt" })).sandbox).toBeNull();
    expect(recordOf(chunked({ error: { type: "timeout", message: "Command timed out" } })).sandbox).toBeNull();
  });
  it("docker's line in an event chunk is read as in a whole sample: the tool's last answer, dead; a live answer after it shows it was output", () => {
    const line = 'service "default" is not running';
    expect(recordOf(chunked({ result: "file.txt" }, { result: line })).sandbox).toEqual({
      typed: false,
      evidence: line,
    });
    expect(recordOf(chunked({ result: line }, { result: "file.txt" })).sandbox).toBeNull();
  });
});

describe("grader_failed needs a missing verdict", () => {
  /** Sample 3's I carries an instrument reason; Inspect counted it (claim 2/3). */
  const graded = (value: unknown) => {
    const log = claim(popularity(), 2 / 3, 1 / 3);
    log.samples[2].scores.match = { value, reason: "grader_failed", answer: "No" };
    if (typeof value === "number") claim(log, 1, 0);
    return log;
  };
  it('a definite "I" with reason grader_failed still counts: 1.000 → 0.667, the claim agrees, flagged GRADER_REASON_WITH_VALUE (not GRADER_FAILED)', () => {
    const e = scoreLog(graded("I"));
    expect(e.samples).toMatchObject({ scored: 3 });
    expect(accuracy(e)).toMatchObject({
      check: "agrees",
      coverage: { scored: 3, planned: 3 },
      exclude: { value: 2 / 3, n: 3 },
    });
    expect(accuracy(e).grader_failed).toBeUndefined();
    expect(flag(e, "GRADER_FAILED")).toBeUndefined();
    expect(flag(e, "GRADER_REASON_WITH_VALUE")?.evidence).toContain('samples[2] (match: grader_failed, value "I")');
  });
  it("with no verdict (NaN) it is the grader's failure, as before: in neither figure, GRADER_FAILED", () => {
    const e = scoreLog(graded(NaN));
    expect(e.samples).toMatchObject({ "grader-failed": 1 });
    expect(accuracy(e)).toMatchObject({ grader_failed: 1, exclude: { value: 1, n: 2 }, zero: { value: 1, n: 2 } });
    expect(flag(e, "GRADER_REASON_WITH_VALUE")).toBeUndefined();
  });
  it("a dict-valued score is read a key at a time: a key without a verdict is GRADER_FAILED, a key with one GRADER_REASON_WITH_VALUE", () => {
    const both = scoreLog(graded({ a: NaN, b: "I" }));
    expect(flag(both, "GRADER_FAILED")?.evidence).toContain("samples[2] (match: grader_failed)");
    expect(flag(both, "GRADER_REASON_WITH_VALUE")?.evidence).toContain("samples[2] (match: grader_failed, value ");
    const none = scoreLog(graded({ a: NaN, b: null }));
    expect(flag(none, "GRADER_FAILED")?.evidence).toContain("samples[2] (match: grader_failed)");
    expect(flag(none, "GRADER_REASON_WITH_VALUE")).toBeUndefined();
    const all = scoreLog(graded({ a: "C", b: "I" }));
    expect(flag(all, "GRADER_FAILED")).toBeUndefined();
    expect(flag(all, "GRADER_REASON_WITH_VALUE")?.evidence).toContain("samples[2] (match: grader_failed, value ");
  });
  it("the experiment counts its logs' flags: the table's flags column and the JSON's flags name them", async () => {
    const f = file(graded("I"), "graded");
    const doc = JSON.parse((await run(["score", f, "--format", "json"])).stdout);
    expect(doc.experiments[0].flags).toEqual([
      { code: "GRADER_REASON_WITH_VALUE", trial: f, attempt: null, evidence: null },
    ]);
    expect(doc.experiments[0].inspect["match/-/accuracy"]).toMatchObject({
      value: 2 / 3,
      claimed: 2 / 3,
      check: "agrees",
    });
    const table = await run(["score", f]);
    expect(table.stdout).toMatch(/match\/-\/accuracy 0\.667 .* 0\.667 agrees +0 +1 /);
  });
});

describe("choice() without options is the scorer's (#5310), by the writer's version", () => {
  /** A multiple-choice log: scorer choice, samples 1 and 2 with options, sample 3 with none (choices null). */
  function mc(version: string, third: Record<string, unknown>): any {
    const log = claim(popularity(version), 2 / 3, 1 / 3);
    log.samples.forEach((s: any, i: number) => {
      s.scores = { choice: { value: i < 2 ? "C" : "I" } };
      s.choices = i < 2 ? ["Yes", "No"] : null;
    });
    Object.assign(log.samples[2], third);
    log.eval.scorers[0].name = "choice";
    Object.assign(log.results.scores[0], { name: "choice", scorer: "choice" });
    return log;
  }
  const choice = (e: ReturnType<typeof scoreLog>) => e.inspect!.metrics["choice/-/accuracy"]!;
  it("before it, the INCORRECT Inspect wrote for a sample without options is a definite value and counts as written: stripping a failure's options raises nothing (0.667 in both figures, no GRADER_FAILED)", () => {
    const e = scoreLog(mc("0.3.263", {}));
    expect(e.samples).toMatchObject({ scored: 3 });
    expect(e.samples).not.toHaveProperty("grader-failed");
    expect(choice(e)).not.toHaveProperty("grader_failed");
    expect(choice(e).exclude.value).toBeCloseTo(2 / 3, 12);
    expect(choice(e).zero.value).toBeCloseTo(2 / 3, 12);
    expect(flag(e, "GRADER_FAILED")).toBeUndefined();
  });
  it("the neighbours: a sample with options keeps its I, before and from 0.3.264", () => {
    expect(choice(scoreLog(mc("0.3.263", { choices: ["Yes", "No"] }))).exclude.value).toBeCloseTo(2 / 3, 12);
    expect(choice(scoreLog(mc("0.3.264", {}))).exclude.value).toBeCloseTo(2 / 3, 12);
  });
  const raised = {
    scores: {},
    error: { message: "ValueError('The choice scorer requires samples with choices')", traceback: "" },
  };
  it("from 0.3.264 choice()'s error on such a sample is the grader's failure (out of --errors zero too); in an older log the same words are an ordinary error", () => {
    const now = scoreLog(claim(mc("0.3.264", raised), 1, 0));
    expect(now.samples).toMatchObject({ scored: 2, "grader-failed": 1 });
    expect(choice(now)).toMatchObject({ grader_failed: 1, exclude: { value: 1 }, zero: { value: 1, n: 2 } });
    expect(flag(now, "GRADER_FAILED")?.evidence).toContain(
      "samples[2] (ValueError('The choice scorer requires samples with choices')",
    );
    const old = scoreLog(claim(mc("0.3.263", raised), 1, 0));
    expect(old.samples).toMatchObject({ scored: 2, error: 1 });
    expect(choice(old)).toMatchObject({ exclude: { value: 1 }, zero: { value: 2 / 3, n: 3 } });
  });
  it("the error's words alone decide nothing: on a sample with options, or for a scorer other than choice(), it is an ordinary error, 0 under --errors zero (never out of it)", () => {
    const withOptions = scoreLog(claim(mc("0.3.264", { ...raised, choices: ["Yes", "No"] }), 1, 0));
    expect(withOptions.samples).toMatchObject({ scored: 2, error: 1 });
    expect(withOptions.samples).not.toHaveProperty("grader-failed");
    expect(choice(withOptions)).toMatchObject({ exclude: { value: 1 }, zero: { value: 2 / 3, n: 3 } });
    expect(choice(withOptions)).not.toHaveProperty("grader_failed");
    expect(flag(withOptions, "GRADER_FAILED")).toBeUndefined();
    // A match() log whose sample carries choice()'s words: match's figure counts it 0 under --errors zero.
    const log = claim(popularity("0.3.264"), 1, 0);
    Object.assign(log.samples[2], raised);
    const other = accuracy(scoreLog(log));
    expect(other).toMatchObject({ exclude: { value: 1 }, zero: { value: 2 / 3, n: 3 } });
    expect(other).not.toHaveProperty("grader_failed");
  });
});

describe("a log whose claims cover samples it lacks, none of those it holds scored, is unverified, like one with none (§12's no sample evidence)", () => {
  it.runIf(runsWithShared(`${SHARED_DIR}/real-world/inspect/log_tool_call_error.json`))(
    "the real log_tool_call_error.json (claims 1.0 over 4 completed, holds one unscored record): unverified, valid, coverage 0/1, not METRIC_MISMATCH",
    async () => {
      const f = `${SHARED_DIR}/real-world/inspect/log_tool_call_error.json`;
      const e = scoreInspectLog(f, "json");
      expect(e.validity).toBe("valid");
      expect(e.errors).toEqual([]);
      expect(e.inspect!.metrics["includes/-/accuracy"]).toMatchObject({
        check: "unverified",
        coverage: { scored: 0, planned: 1 },
        exclude: { value: null },
        zero: { value: null },
      });
      expect(flag(e, "NO_SAMPLE_EVIDENCE")?.evidence).toBe(
        "results holds metrics over 4 completed samples (results.completed_samples) but the log holds 1 sample record, none scored: they are listed as unverified",
      );
      const details = await run(["score", "--details", f]);
      expect(details.stdout).toContain("coverage 0/1 planned record scored = 0.0%");
      expect(details.stdout).not.toContain("100.0%");
    },
  );
  it("the same in an edited log: every held record unscored, fewer than it completed: unverified, no value of assay's own", () => {
    const log = claim(popularity(), 1, 0);
    log.results.completed_samples = 4;
    for (const sample of log.samples) sample.scores = {};
    const e = scoreLog(log);
    expect(e.validity).toBe("valid");
    expect(accuracy(e)).toMatchObject({
      check: "unverified",
      note: "the log lacks the samples behind it (results.completed_samples), and none it holds scored",
      exclude: { value: null },
      zero: { value: null },
    });
    expect(flag(e, "NO_SAMPLE_EVIDENCE")).toBeDefined();
  });
  it("the neighbour: a log holding every sample it completed is re-derived, and a false claim over them is METRIC_MISMATCH", () => {
    const e = scoreLog(claim(popularity(), 1, 0));
    expect(e.validity).toBe("invalid");
    expect(accuracy(e).check).toBe("mismatch");
    expect(flag(e, "NO_SAMPLE_EVIDENCE")).toBeUndefined();
  });
  it("the attack: a count raised above the records held (unchecked before 0.3.252) never switches off the mismatch its scored records decide", () => {
    const log = claim(popularity(), 1, 0);
    log.results.completed_samples = 4;
    const e = scoreLog(log);
    expect(e.validity).toBe("invalid");
    expect(e.errors.map((f) => f.code)).toContain("METRIC_MISMATCH");
    expect(accuracy(e).check).toBe("mismatch");
    expect(flag(e, "NO_SAMPLE_EVIDENCE")).toBeUndefined();
  });
  it("a scored sample stripped (3 completed, 2 held) is a missing record of the plan, as when the count is lowered with it: left out by default, 0 under --errors zero", () => {
    for (const completed of [3, 2]) {
      const log = claim(popularity(), 1, 0);
      log.samples.pop();
      log.results.completed_samples = completed;
      const e = scoreLog(log);
      expect(e.samples).toMatchObject({ scored: 2, missing: 1 });
      expect(flag(e, "NO_SAMPLE_EVIDENCE")).toBeUndefined();
      expect(accuracy(e)).toMatchObject({
        check: "agrees",
        coverage: { scored: 2, planned: 3 },
        exclude: { value: 1 },
      });
      expect(accuracy(e).zero.value).toBeCloseTo(2 / 3, 12);
    }
  });
  it("an invalid log's coverage says what was scored, not that every planned record was", async () => {
    // C, C and an error: Inspect's rules give 1.0 over the two scored; the log claims 0.5.
    const log = claim(popularity(), 0.5, 0);
    log.samples[2].scores = {};
    log.samples[2].error = { message: "RuntimeError('boom')", traceback: "" };
    const f = file(log, "invalid");
    const doc = JSON.parse((await run(["score", f, "--format", "json"])).stdout);
    expect(doc.experiments[0].inspect["match/-/accuracy"]).toMatchObject({
      value: 0,
      coverage: { scored: 2, planned: 3 },
    });
    const details = await run(["score", "--details", f]);
    expect(details.stdout).toContain(
      "every planned record 0: an invalid log earns nothing (--invalid exclude leaves it out)   coverage 2/3 planned records scored = 66.7%",
    );
  });
});

describe('the table\'s "every planned record 0" line follows the invalid handling in force, never the figures', () => {
  /** One task run, two logs: an invalid one (claims 1.0 over C, C, I) and a later valid success whose samples all score I. */
  function chain(): string {
    const dir = join(scratch(), `chain-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    const bad = claim(popularity(), 1, 0);
    bad.eval.run_id = "run-invalid";
    const zeros = claim(popularity(), 0, 0);
    for (const sample of zeros.samples) sample.scores.match.value = "I";
    zeros.eval.run_id = "run-zeros";
    zeros.eval.created = "2025-05-13T20:28:13-04:00";
    zeros.stats.completed_at = "2025-05-13T20:28:15-04:00";
    writeFileSync(join(dir, "2025-05-12T20-28-13-04-00_invalid.json"), withNaN(bad));
    writeFileSync(join(dir, "2025-05-13T20-28-13-04-00_zeros.json"), withNaN(zeros));
    return dir;
  }
  const LINE = "every planned record 0: an invalid log earns nothing";
  it("--invalid exclude: the invalid log is left out and the valid run's own 0 is shown as a figure, not as the invalid log's zeros", async () => {
    const dir = chain();
    const doc = JSON.parse((await run(["score", dir, "--invalid", "exclude", "--format", "json"])).stdout);
    const e = doc.experiments[0];
    expect(e.invalid).toHaveLength(1);
    expect(e.inspect["match/-/accuracy"]).toMatchObject({
      value: 0,
      errors_zero: 0,
      coverage: { scored: 3, planned: 3 },
    });
    for (const errors of ["exclude", "zero"]) {
      const details = await run(["score", "--details", dir, "--invalid", "exclude", "--errors", errors]);
      expect(details.stdout).toContain("assay      0.000");
      expect(details.stdout).not.toContain(LINE);
    }
  });
  it("the neighbour: --invalid count (the default) zeroes the run for its invalid log, and the line says so", async () => {
    const dir = chain();
    const details = await run(["score", "--details", dir]);
    expect(details.stdout).toContain(
      `${LINE} (--invalid exclude leaves it out)   coverage 3/3 planned records scored = 100.0%`,
    );
  });
});
