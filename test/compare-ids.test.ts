// `assay compare` with experiments that share an id across kinds (a Harbor job folder named as the
// native experiment beside it), and with Harbor trials copied byte for byte inside their job:
// nothing compared is dropped or mixed up, and the paired analysis counts what the metric counts.

import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { comparisonSchema, type Comparison, type ExperimentComparison } from "../src/core/compare/schema.js";
import { run, spawnCli } from "./helpers/cli.js";
import { ok } from "./helpers/documents.js";
import { scratch } from "./helpers/shared.js";

const { at } = scratch("assay-compare-ids-");

/** A compare that must finish: exit 0, or 1 where it found a regression. */
const cli = (argv: string[]) => ok(argv, [1]);
async function compare(...argv: string[]): Promise<Comparison> {
  const r = await run(["compare", ...argv, "--format", "json"]);
  expect(r.stderr).toBe("");
  return comparisonSchema.parse(JSON.parse(r.stdout));
}
const refused = (argv: string[], message: RegExp) => {
  const r = spawnCli(["compare", ...argv]);
  expect(r.code).toBe(2);
  expect(r.stderr.split("\n")).toHaveLength(2);
  expect(r.stderr).toMatch(message);
};

/** Every unit its metric counts is a pair, none on one side only: each trial (native), each task (Harbor: tasks hold one trial or more). */
function pairsAll(e: ExperimentComparison, metric: string): void {
  const m = e.metrics.find((x) => x.metric === metric)!;
  const p = m.paired!;
  expect(m.base.n).toBeGreaterThan(0);
  expect([p.only_base, p.only_head, p.unpaired, p.mean_diff]).toEqual([0, 0, [], 0]);
  if (p.unit === "trial") expect(p.pairs).toBe(m.base.n);
  else expect([p.unit, p.pairs > 0 && p.pairs <= m.base.n!]).toEqual(["task", true]);
}

beforeAll(async () => {
  await cli(["synth", "--out", at("native"), "--n", "20", "--seed", "1"]);
  await cli(["synth", "--out", at("harbor"), "--n", "20", "--seed", "1", "--profile", "harbor"]);
  // "mixed": the native corpus with the Harbor job beside it, its folder named as the native experiment.
  cpSync(at("native"), at("mixed"), { recursive: true });
  mkdirSync(at("mixed/jobs"));
  cpSync(at("harbor/synth-harbor-job"), at("mixed/jobs/synth-native"), { recursive: true });
  await cli(["score", at("mixed"), "--quiet", "--out", at("mixed.json")]);
  await cli(["score", at("native"), "--quiet", "--out", at("native.json")]);
}, 120_000);

describe("a Harbor job and a native experiment of one id", () => {
  it("are compared each with its own kind, named profile:id, every counted trial paired", async () => {
    const doc = await compare(at("mixed.json"), at("mixed.json"));
    expect(doc.experiments.map((e) => [e.base, e.head, e.profile.base, e.profile.head])).toEqual([
      ["native-game:synth-native", "native-game:synth-native", "native-game", "native-game"],
      ["harbor:synth-native", "harbor:synth-native", "harbor", "harbor"],
    ]);
    expect([doc.only_base, doc.only_head]).toEqual([[], []]);
    pairsAll(doc.experiments[0]!, "accuracy");
    pairsAll(doc.experiments[1]!, doc.experiments[1]!.metrics.find((m) => /^reward\/.*\/mean$/.test(m.metric))!.metric);
  });

  it("one present on one side only is listed there by name, the other still compared", async () => {
    const doc = await compare(at("mixed.json"), at("native.json"));
    expect(doc.experiments.map((e) => [e.base, e.head])).toEqual([["native-game:synth-native", "synth-native"]]);
    expect([doc.only_base, doc.only_head]).toEqual([["harbor:synth-native"], []]);
    pairsAll(doc.experiments[0]!, "accuracy");
  });

  it("--pair takes profile:id; a bare id that names both is refused, naming each", async () => {
    const doc = await compare(at("mixed.json"), at("native.json"), "--pair", "native-game:synth-native=synth-native");
    expect(doc.experiments.map((e) => [e.base, e.head, e.match])).toEqual([
      ["native-game:synth-native", "synth-native", "pair"],
    ]);
    expect([doc.only_base, doc.only_head]).toEqual([["harbor:synth-native"], []]);
    // Two kinds share no metric: such a pair is refused, not compared as nothing.
    refused(
      [at("mixed.json"), at("native.json"), "--pair", "harbor:synth-native=synth-native"],
      /^assay compare: --pair harbor:synth-native=synth-native: experiments of different kinds \(harbor, bundle\) share no metric: nothing to compare\n$/,
    );
    refused(
      [at("mixed.json"), at("native.json"), "--pair", "synth-native=synth-native"],
      /^assay compare: --pair synth-native=synth-native: .*mixed\.json has 2 experiments synth-native: name one as native-game:synth-native or harbor:synth-native\n$/,
    );
  });

  it("a document listing one kind and id twice is refused, not half read", () => {
    const doc = JSON.parse(readFileSync(at("native.json"), "utf8"));
    doc.experiments.push(doc.experiments[0]);
    writeFileSync(at("twice.json"), JSON.stringify(doc));
    refused([at("twice.json"), at("native.json")], /twice\.json lists experiment synth-native \(native-game\) twice/);
  });
});

describe("a Harbor trial copied byte for byte inside its job", () => {
  it("is one trial, paired on both sides, as the reward mean counts it once", async () => {
    cpSync(at("harbor"), at("copied"), { recursive: true });
    const job = at("copied/synth-harbor-job");
    const trial = readdirSync(job, { withFileTypes: true }).find((d) => d.isDirectory())!.name;
    cpSync(join(job, trial), join(job, `${trial}-copy`), { recursive: true });
    await cli(["score", at("harbor"), "--quiet", "--out", at("harbor.json")]);
    await cli(["score", at("copied"), "--quiet", "--out", at("copied.json")]);
    const e = (await compare(at("harbor.json"), at("copied.json"))).experiments[0]!;
    const mean = e.metrics.find((m) => /^reward\/.*\/mean$/.test(m.metric))!;
    expect(mean.head.n).toBe(mean.base.n);
    pairsAll(e, mean.metric);
  });
});
