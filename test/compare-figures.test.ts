// compare checks an experiment's figures against the document's own entries before using them
// (issue 35 §3): a document whose Harbor reward mean was edited (its entries untouched, its
// interval still holding the new value) was ranked first on it. Each headline figure (native
// accuracy, world pass, a Harbor reward mean, an Inspect mean or accuracy) is recomputed from the
// units its entries give, and what the experiment spent from its entries' usage; a mismatch is
// refused, exit 2, in one line naming the document and the experiment. Honest documents compare
// as before.

import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "./helpers/cli.js";
import { editor, ok, refused } from "./helpers/documents.js";
import { scratch } from "./helpers/shared.js";

const { at } = scratch("assay-compare-figures-");

const edit = editor(at);
const harbor = (d: any) => d.experiments.find((x: any) => x.profile === "harbor");

beforeAll(async () => {
  await ok(["demo", "--out", at("demo")]);
  await ok(["score", at("demo/jobs"), "--format", "json", "--out", at("jobs.json"), "--quiet"]);
  await ok(["score", at("demo/logs"), "--format", "json", "--out", at("logs.json"), "--quiet"]);
  await ok(["synth", "--out", at("syn"), "--n", "16", "--seed", "figures", "--faults"]);
  await ok(["score", at("syn"), "--format", "json", "--out", at("syn.json"), "--quiet"]);
});

describe("a headline figure its entries do not give", () => {
  it("a Harbor reward mean edited to 0.99 or 4/6, its interval still holding it (before: ranked first; now refused, ranked or paired)", async () => {
    const jobs = at("jobs.json");
    const mean = harbor(JSON.parse(readFileSync(jobs, "utf8"))).rewards.reward.mean;
    expect(mean).toBeCloseTo(5 / 6, 12);
    // 0.99 of 6 trials is no 0/1 mean: its korn-graubard interval refuses it (§13.7). 4/6 is one, and its interval holds it.
    const fractional = edit(jobs, (d) => void (harbor(d).rewards.reward.mean = 0.99));
    await refused(
      ["compare", jobs, fractional],
      fractional,
      /korn-graubard interval over units that are not 0\/1 \(value 0\.99 of 6 units\)/,
    );
    const edited = edit(jobs, (d) => void (harbor(d).rewards.reward.mean = 4 / 6));
    expect(harbor(JSON.parse(readFileSync(edited, "utf8"))).rewards.reward.interval.lo).toBeLessThan(4 / 6); // so no bound check saw it
    await refused(
      ["compare", jobs, edited, jobs, "--format", "json"],
      edited,
      /experiment 2025-11-03__10-00-00 \(harbor\): its reward\/reward\/mean 0\.6+7? is not what its entries give: 0\.833/,
    );
    await refused(["compare", edited, jobs], edited, /reward\/reward\/mean 0\.6+7? is not/);
    // Honest neighbour: the document unedited is read; given thrice it is one run given three times,
    // listed (each twin with the run it repeats), never ranked against itself: nothing compared, exit 2.
    const thrice = await run(["compare", jobs, jobs, jobs, "--format", "json"]);
    expect(thrice.code).toBe(2);
    const listed = JSON.parse(thrice.stdout);
    expect(listed.experiments).toEqual([]);
    expect(listed.unscored[0].duplicates).toEqual([
      { run: `${jobs} (R2)`, same_as: `${jobs} (R1)` },
      { run: `${jobs} (R3)`, same_as: `${jobs} (R1)` },
    ]);
  });

  it("a Harbor mean's Wilson interval (from which compare recovers its k of n) narrowed, the mean untouched: refused", async () => {
    const jobs = at("jobs.json");
    const edited = edit(jobs, (d) => void (harbor(d).rewards.reward.wilson95 = [0.8, 0.86]));
    await refused(
      ["compare", jobs, edited],
      edited,
      /its reward\/reward\/mean Wilson interval \[0\.8, 0\.86\] is not what its entries give \(\[0\.436/,
    );
  });

  it("native accuracy with one more victory (value and interval made to agree): refused; the document as written is read", async () => {
    const syn = at("syn.json");
    const edited = edit(syn, (d) => {
      const a = d.experiments.find((x: any) => x.experiment === "synth-native").accuracy;
      a.victories += 1;
      a.value = a.victories / a.scored;
      Object.assign(a.interval, { lo: 0, hi: 1 });
    });
    await refused(
      ["compare", syn, edited],
      edited,
      /experiment synth-native \(native-game\): its accuracy \S+ \(\d+ of \d+\) is not what its entries give: \S+ \(\d+ of \d+\)/,
    );
    expect((await ok(["compare", syn, syn])).code).toBe(0);
  });

  it("an Inspect accuracy edited from 0.8 to 0.9: refused", async () => {
    const logs = at("logs.json");
    const edited = edit(logs, (d) => {
      const m = d.experiments.find((x: any) => x.experiment.startsWith("clean-0")).inspect["match/mean/accuracy"];
      expect(m.value).toBe(0.8);
      m.value = 0.9;
    });
    await refused(
      ["compare", logs, edited],
      edited,
      /experiment clean-0 \(openai\/gpt-4o-mini\) \(inspect\): its inspect\/match\/mean\/accuracy\/value 0\.9 is not what its entries give: 0\.8/,
    );
    expect((await ok(["compare", logs, logs])).code).toBe(0);
  });
});

describe("an Inspect experiment's figures are its deciding log's", () => {
  it("a coverage raised, a stderr edited, a metric the log does not have: refused", async () => {
    const logs = at("logs.json");
    const clean = (d: any) => d.experiments.find((x: any) => x.experiment.startsWith("clean-0")).inspect;
    const covered = edit(logs, (d) => void (clean(d)["match/mean/accuracy"].coverage.scored += 1));
    await refused(
      ["compare", logs, covered],
      covered,
      /its Inspect metric "match\/mean\/accuracy" \(value 0\.8\) is not what its deciding log's entry gives/,
    );
    const stderr = edit(logs, (d) => void (clean(d)["match/mean/stderr"].value = 0.01));
    await refused(
      ["compare", logs, stderr],
      stderr,
      /"match\/mean\/stderr" \(value 0\.01\) is not what its deciding log's entry gives \(value 0\.133/,
    );
    const extra = edit(
      logs,
      (d) => void (clean(d)["match/mean/f1"] = { ...clean(d)["match/mean/accuracy"], value: 0.9 }),
    );
    await refused(
      ["compare", logs, extra],
      extra,
      /its Inspect metric "match\/mean\/f1" is none its deciding log's entry gives/,
    );
  });

  it("a figure the batch withheld (an unreadable log named for its task beside it) is read as withheld; given back its log's value, refused", async () => {
    const dir = at("withheld/logs");
    mkdirSync(dir, { recursive: true });
    const clean = "2025-11-03T10-00-00+00-00_clean-0_hp58PAzRR8miqfFB0nwLVi.eval";
    copyFileSync(at(`demo/logs/${clean}`), join(dir, clean));
    writeFileSync(join(dir, "2025-11-03T13-00-00+00-00_clean-0_AAAAAAAAAAAAAAAAAAAAAA.eval"), ""); // LOG_UNIDENTIFIED
    const doc = at("withheld.json");
    await ok(["score", dir, "--format", "json", "--out", doc, "--quiet"]);
    const accuracy = (d: any) =>
      d.experiments.find((x: any) => x.experiment?.startsWith("clean-0")).inspect["match/mean/accuracy"];
    expect(accuracy(JSON.parse(readFileSync(doc, "utf8"))).value).toBeNull();
    expect((await ok(["compare", doc, doc])).code).toBe(0); // was refused: "(value null) is not what its deciding log's entry gives (value 0.8)"
    const given = edit(doc, (d) => void (accuracy(d).value = 0.8));
    await refused(
      ["compare", doc, given],
      given,
      /"match\/mean\/accuracy" \(value 0\.8\) is not what its deciding log's entry gives/,
    );
  });
});

describe("usage that contradicts the entries' (§13.5)", () => {
  it("a job's spend halved, its counted spend and cost per success made to agree: refused", async () => {
    const jobs = at("jobs.json");
    const edited = edit(jobs, (d) => {
      const u = harbor(d).usage;
      u.spent.cost_usd /= 2;
      u.counted.cost_usd /= 2;
      u.cost_per_success = u.spent.cost_usd / u.successes;
    });
    await refused(
      ["compare", jobs, edited],
      edited,
      /its usage spent \(8 entries, cost_usd 0\.014\) is not what its entries spent \(8 entries, cost_usd 0\.028/,
    );
  });

  it("an entry's usage raised above the experiment's total: refused; the totals as written are read", async () => {
    const jobs = at("jobs.json");
    const edited = edit(jobs, (d) => {
      const e = d.bundles.find((b: any) => b.usage?.cost_usd != null);
      e.usage.cost_usd += 1;
    });
    await refused(
      ["compare", edited, jobs],
      edited,
      /its usage spent \(8 entries, cost_usd 0\.028\) is not what its entries spent/,
    );
    expect((await ok(["compare", jobs, jobs])).code).toBe(0);
  });
});
