// Synthesis streams (issue 11, item 10): a journal is made line by line as it is written, so
// `synth --events 2000000` (1.2 GB) no longer dies building one string, and a corpus is written
// bundle by bundle. The bytes are those the whole-file synthesis made before.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scoreBundle } from "../src/kinds/bundle/score.js";
import { nativeFiles, synthNative, type NativeSpec } from "../src/synth/native.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { memSource } from "./helpers/bundle.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-synth-stream-");

const spec = (events: number, outcome: NativeSpec["outcome"] = "victory"): NativeSpec => ({
  experiment: "e",
  trial: "t",
  attempt: 1,
  seed: "ab".repeat(8),
  outcome,
  events,
});

describe("a native journal is made as it is written", () => {
  it("the first line of a two-million-event journal comes at once: nothing is built ahead", () => {
    const [path, bytes] = nativeFiles(spec(2_000_000))[0]!;
    expect(path).toBe("journal.jsonl");
    const started = Date.now();
    const it = bytes()[Symbol.iterator]();
    const first = it.next().value as string;
    expect(JSON.parse(first)).toMatchObject({ seq: 0, type: "session" });
    for (let i = 0; i < 1000; i++) it.next();
    expect(Date.now() - started).toBeLessThan(2000); // the whole journal takes about a minute
  });

  it("the summary and snapshot follow from the journal, whichever is asked for first", () => {
    const whole = synthNative(spec(50));
    const files = nativeFiles(spec(50));
    const summaryFirst = files.find(([p]) => p === "summary.json")![1];
    expect(Buffer.from([...summaryFirst()].join(""))).toEqual(whole.get("summary.json"));
    const v = scoreBundle(memSource(Object.fromEntries(whole)));
    expect(v).toMatchObject({ validity: "valid", victory: true, late: false });
  });

  it("a run longer than an hour of steps is still on time: its deadline follows the run (a victory stays a victory)", () => {
    for (const events of [1790, 1800, 5000]) {
      const e = scoreBundle(memSource(Object.fromEntries(synthNative(spec(events)))));
      expect(e, String(events)).toMatchObject({ validity: "valid", victory: true, late: false });
    }
    const late = scoreBundle(memSource(Object.fromEntries(synthNative(spec(5000, "late-victory")))));
    expect(late).toMatchObject({ validity: "valid", victory: false, late: true });
  });

  it("assay synth writes a large journal in pieces, and it scores valid", async () => {
    const out = join(tmp, "big");
    const r = await run(["synth", "--out", out, "--n", "1", "--events", "20000"]);
    expect(r.code).toBe(0);
    const dir = join(out, "synth-native/t0000/a1");
    expect(readFileSync(join(dir, "journal.jsonl")).length).toBeGreaterThan(10_000_000);
    expect(scoreDirectory(dir, "x")).toMatchObject({ validity: "valid" });
    const manifest = JSON.parse(readFileSync(join(out, "synth-manifest.json"), "utf8"));
    expect(manifest.bundles.length).toBeGreaterThan(0);
  });
});
