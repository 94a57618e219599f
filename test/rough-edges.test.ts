// The reports' rough edges of issue 40, each rule on both sides: a refusal prefixed once, progress
// in the kinds' own noun, claimed figures rounded and counts whole (the JSON exact), state colours
// by meaning (never by order), a chart of nothing that says so, the compare page without an empty
// column, card titles that break between words.
import { join } from "node:path";
import { existsSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { said } from "../src/cli/main.js";
import { progressNoun } from "../src/cli/progress.js";
import { claimedOr, claimedText } from "../src/report/claimed.js";
import { MEANING_COLOUR, stateColour } from "../src/report/html/state-colours.js";
import { states } from "../src/report/html/charts.js";
import { STYLES } from "../src/report/html/styles.js";
import { render as compareHtml } from "../src/report/compare/html.js";
import type { Comparison } from "../src/core/compare/schema.js";
import type { Experiment, Results } from "../src/core/results.js";
import { run, spawnCli } from "./helpers/cli.js";
import { runsWithShared, scratch, SHARED_DIR } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-rough-");
let demo: string;
beforeAll(() => {
  demo = join(tmp, "demo");
  expect(spawnCli(["demo", "--out", demo]).code).toBe(0);
});

describe("a refusal names its command once", () => {
  it("every refusal opens 'assay CMD: ', a message that opens with the command losing it; one that does not keeps all of it", async () => {
    expect(said("score", "assay score needs at least one ROOT")).toBe("assay score: needs at least one ROOT");
    expect(said("score", "--fail-on takes: invalid")).toBe("assay score: --fail-on takes: invalid");
    expect(said("merge", "assay score needs x")).toBe("assay merge: assay score needs x");
    const none = await run(["score"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^assay score: needs at least one ROOT/);
    expect(none.stderr).not.toContain("assay score: assay score");
    expect((await run(["score", "x", "--fail-on", "nope"])).stderr).toMatch(/^assay score: --fail-on takes: invalid/);
  });
});

describe("progress counts in the kinds' own noun", () => {
  it("trials, logs, instances, bundles; mixed ones joined; bundles before any is done", () => {
    expect(progressNoun([])).toBe("bundles");
    expect(progressNoun(["harbor"])).toBe("trials");
    expect(progressNoun(["terminal-bench"])).toBe("trials");
    expect(progressNoun(["inspect"])).toBe("logs");
    expect(progressNoun(["swe-bench"])).toBe("instances");
    expect(progressNoun(["native-game", "world"])).toBe("bundles");
    expect(progressNoun(["harbor", "inspect"])).toBe("logs/trials");
  });

  it("the status line of a Harbor job says trials, of Inspect logs logs, of bundles bundles", () => {
    const line = (root: string) => spawnCli(["score", root, "-o", join(tmp, "x.json")]).stderr;
    expect(line(join(demo, "jobs"))).toMatch(/^assay: 8\/8 trials \(0 from store\)/m);
    expect(line(join(demo, "logs"))).toMatch(/^assay: 6\/6 logs \(/m);
    expect(line(join(demo, "runs"))).toMatch(/^assay: \d+\/\d+ bundles \(/m);
    expect(line(join(demo, "jobs"))).not.toMatch(/bundles/);
  });
});

describe("claimed figures as a person reads them", () => {
  it("rounded to 3 decimals, a count whole, NaN as it is; a count that is no whole number rounded", () => {
    expect(claimedText("accuracy", 0.6666666666666666)).toBe("0.667");
    expect(claimedText("accuracy", 1)).toBe("1.000");
    expect(claimedText("n_resolved", 3)).toBe("3");
    expect(claimedText("x/0/n_unresolved", 0)).toBe("0");
    expect(claimedText("n_resolved", 2.5)).toBe("2.500");
    expect(claimedText("accuracy", "NaN")).toBe("NaN");
    expect(claimedOr("accuracy", null, "none")).toBe("none");
  });

  const TB = join(SHARED_DIR, "real-world", "terminal-bench");
  it.skipIf(!runsWithShared(TB))(
    "Terminal-Bench's counts print whole in the table and Markdown; the JSON keeps the numbers",
    async () => {
      const t = (await run(["score", "-q", "--details", TB])).stdout;
      expect(t).toMatch(/^ {4}n_resolved = \d+ {3}assay \d+: agrees$/m);
      expect(t).not.toMatch(/n_resolved = \d+\.\d/);
      expect(t).toMatch(/^ {4}accuracy = \d\.\d{3} /m);
      const md = (await run(["score", "-q", "--details", "-f", "md", TB])).stdout;
      expect(md).toMatch(/`n_resolved` \| \d+ \|/);
      expect(existsSync(TB)).toBe(true);
    },
  );

  it("compare shows each side's claim rounded, the JSON exact", async () => {
    const f = join(tmp, "j.json");
    expect(spawnCli(["score", "-q", "-f", "json", "--out", f, join(demo, "jobs")]).code).toBe(0);
    const json = JSON.parse((await run(["compare", f, f, "-f", "json"])).stdout) as Comparison;
    const claim = json.experiments[0]!.claimed[0]!;
    const doc: Comparison = {
      ...json,
      experiments: [{ ...json.experiments[0]!, claimed: [{ ...claim, base: 2 / 3, head: 2 / 3 }] }],
    };
    const html = [...compareHtml(doc)].join("");
    expect(html).toContain(">0.667</td>");
    expect(html).not.toContain("0.6666666666666666");
  });
});

describe("state colours follow meaning", () => {
  it("infrastructure-error is never green, incomplete never a pass's or a scored state's colour; the same state the same colour anywhere", () => {
    expect(stateColour("infrastructure-error")).not.toBe(MEANING_COLOUR.pass);
    expect(stateColour("infrastructure-error")).toBe(stateColour("harness-error"));
    expect(stateColour("incomplete")).toBe(MEANING_COLOUR.unfinished);
    expect(stateColour("incomplete")).not.toBe(stateColour("scored-with-exception"));
    expect(stateColour("scored")).toBe(MEANING_COLOUR.pass);
    expect(stateColour("resolved")).toBe(stateColour("victory"));
    expect(stateColour("unresolved")).toBe(MEANING_COLOUR.fail);
    expect(stateColour("a-state-of-tomorrow")).toBe(MEANING_COLOUR.other);
  });

  it("the states chart colours each state by its meaning, whatever its place; a chart of nothing says so", async () => {
    const doc = JSON.parse((await run(["score", "-q", "-f", "json", join(demo, "jobs")])).stdout) as Results;
    const job = doc.experiments[0]! as Experiment;
    const colourOf = (e: Experiment) => {
      const c = (states(e) as { encoding: { color: { scale: { domain: string[]; range: string[] } } } }).encoding.color
        .scale;
      return Object.fromEntries(c.domain.map((d, i) => [d, c.range[i]]));
    };
    const seen = colourOf(job);
    expect(seen["infrastructure-error"]).toBe(MEANING_COLOUR.infrastructure);
    expect(seen["incomplete"]).toBe(MEANING_COLOUR.unfinished);
    expect(seen["scored"]).toBe(MEANING_COLOUR.pass);
    // The states in reverse order: each keeps its colour.
    const reversed = { ...job, states: Object.fromEntries(Object.entries(job.states!).reverse()) };
    expect(colourOf(reversed)).toEqual(seen);
    // Nothing in any state: a line that says so, not an empty frame.
    const none = { ...job, states: Object.fromEntries(Object.keys(job.states!).map((k) => [k, 0])) };
    const spec = states(none) as { mark: { type: string }; data: { values: { text: string }[] } };
    expect(spec.mark.type).toBe("text");
    expect(spec.data.values[0]!.text).toBe("no Harbor trials in this run");
  });
});

describe("the compare page and the cards", () => {
  it("the metrics table has a regression column only where a figure regressed", async () => {
    const f = join(tmp, "k.json");
    expect(spawnCli(["score", "-q", "-f", "json", "--out", f, join(demo, "jobs")]).code).toBe(0);
    const json = JSON.parse((await run(["compare", f, f, "-f", "json"])).stdout) as Comparison;
    const same = [...compareHtml(json)].join("");
    expect(same).not.toContain("<th></th>");
    expect(same).not.toContain("<th>regression</th>");
    const e = json.experiments[0]!;
    const worse: Comparison = {
      ...json,
      experiments: [{ ...e, metrics: e.metrics.map((m, i) => ({ ...m, regression: i === 0 })) }],
    };
    const html = [...compareHtml(worse)].join("");
    expect(html).toContain("<th>regression</th>");
    expect(html).toContain('<span class="reg">regression</span>');
  });

  it("card titles break between words, never mid-word (overflow-wrap: break-word, not anywhere)", () => {
    const rule = /\.metric span \{[^}]*\}/.exec(STYLES)![0];
    expect(rule).toContain("overflow-wrap: break-word");
    expect(rule).not.toContain("anywhere");
  });
});
