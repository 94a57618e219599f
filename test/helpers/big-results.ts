// A large native-game results document written straight to disk in chunks (never one string):
// `n` trials of one experiment, one attempt each, the trials in `lost` losing, every other winning.
import { closeSync, openSync, writeSync } from "node:fs";
import { blankEntry, blankExperiment, type Results } from "../../src/core/results.js";
import { wilson95 } from "../../src/core/batch/stats.js";

const trialId = (i: number) => `t${String(i).padStart(7, "0")}`;

export function writeBigResults(file: string, n: number, lost: (i: number) => boolean): { victories: number } {
  const run: Results["run"] = {
    tool_version: "0.1.0",
    scoring_version: 5,
    started_at: "2026-12-01T00:00:00.000Z",
    complete: true,
    shard: null,
    roots: ["big"],
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
  };
  const fd = openSync(file, "w");
  let held: string[] = [];
  const put = (s: string) => {
    held.push(s);
    if (held.length >= 2000) {
      writeSync(fd, held.join(""));
      held = [];
    }
  };
  put(`{"format":"assay.results/1","run":${JSON.stringify(run)},"bundles":[`);
  let victories = 0;
  for (let i = 0; i < n; i++) {
    const victory = !lost(i);
    if (victory) victories++;
    const e = blankEntry({
      validity: "valid",
      errors: [],
      profile: "native-game",
      experiment: "big",
      trial: trialId(i),
      attempt: 1,
      seed: ((i * 2654435761) >>> 0).toString(16).padStart(32, "0"),
      digest: ((i * 40503) >>> 0).toString(16).padStart(64, "0"),
      status: "completed",
      ending: true,
      final_score: true,
      victory,
      late: false,
    });
    put(`${i === 0 ? "" : ","}${JSON.stringify({ path: `big/${trialId(i)}/a1`, ...e })}`);
  }
  const x = blankExperiment("big", "native-game", n);
  x.accuracy = {
    value: victories / n,
    victories,
    scored: n,
    wilson95: wilson95(victories, n),
    interval: null,
    interval_reason: null,
  };
  x.completion = { value: 1, completed: n, scheduled: n, interval: null, interval_reason: null };
  x.retry = [];
  put(`],"experiments":[${JSON.stringify(x)}]}\n`);
  writeSync(fd, held.join(""));
  closeSync(fd);
  return { victories };
}
