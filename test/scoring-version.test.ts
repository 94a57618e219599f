// SCORING_VERSION is part of every store key: a change to the rules that alters any result must
// bump it, or a store would go on serving results the old rules computed. Nothing in the code can
// notice a forgotten bump, so this test does: it fingerprints the entries of a fixed synthesised
// corpus (every profile, every labelled fault) and holds the fingerprint to the version it was
// recorded under. When it fails, bump SCORING_VERSION in src/version.ts and record the new pair.
// (A change to the synthesiser alone moves the fingerprint too; bumping then costs only a rescore.)

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { writeCorpus } from "../src/io/corpus.js";
import { discover } from "../src/io/discover.js";
import { scoreDirectory, scoreFile } from "../src/pool/score-directory.js";
import type { BundleEntry } from "../src/core/results.js";
/** An Inspect log read whole, as a worker reads it. */
const scoreLog = (file: string, path: string, format: "eval" | "json") =>
  scoreFile(file, path, "inspect", { part: "whole", format }) as BundleEntry;
import { INSPECT_CASES, inspectFileName, inspectLogBytes } from "../src/synth/inspect.js";
import { SCORING_VERSION } from "../src/version.js";
import { scratch } from "./helpers/shared.js";

// Re-recorded under 5 when entries gained `samples` and `inspect` (Inspect logs, §12): both null on
// every entry here, and a stored row without them reads as null, so no stored result changed.
// Re-recorded under 6 (issue 21: depth limit, prototype names, counted plans): the rules changed
// verdicts of hostile evidence only; this corpus's fingerprint is the same.
// Under 7, Inspect logs joined the corpus (one of each labelled case, 3 epochs), so that the
// figures of §13 (intervals, pass^k, per-sample values) are held to the version too.
// Re-recorded under 7 (not yet released, so no store holds a 7 of the old shape) when entries gained
// §13.5's `usage`: a stored row without it reads as null; no verdict or figure changed.
// Under 8 (issue 25): Harbor entries gained `task_path`, `reward_details` and `harbor_analysis`, and
// Harbor's rules read reward-details.json, both reward files and a trial's own lock.json.
// Under 9 (issue 35): the killed and truncated Inspect logs credit only the records a summary confirms, at their planned denominator.
// Under 9 (issue 35), also: a Harbor trial whose result.json is lost beside a reward file warns
// REWARD_WITHOUT_RESULT; the synthesised killed trials lost their reward files to stay incomplete.
// Under 9 (issue 35), also: a trial without a readable result.json records its config.json's task path.
// Under 10 (issue 36): Inspect entries gained sample_clusters (§13.7 clustered pairs); intervals changed to Korn–Graubard.
// Under 11 (issue 37): entries gained `identity`, each kind's record of its run (agent, model, benchmark, harness, times).
const RECORDED = { version: 11, fingerprint: "3eba2c7b217c8d9127678a2479415a5847354fba86cc22efe2dbd4077867f4b7" };

const { dir: root } = scratch("assay-fingerprint-");
beforeAll(() => {
  writeCorpus(join(root, "native"), { n: 24, seed: "fingerprint", faults: true, events: 8 });
  writeCorpus(join(root, "world"), { n: 12, seed: "fingerprint", faults: false, profile: "world" });
  writeCorpus(join(root, "harbor"), { n: 16, seed: "fingerprint", faults: false, profile: "harbor" });
  mkdirSync(join(root, "inspect"));
  INSPECT_CASES.forEach((c, i) => {
    const spec = {
      task: `t${i}`,
      model: "m/x",
      case: c,
      samples: 6,
      epochs: 3,
      format: i % 2 === 0 ? "eval" : "json",
      method: 8,
      seed: "fingerprint",
      offset: i,
    } as const;
    writeFileSync(join(root, "inspect", inspectFileName(spec)), inspectLogBytes(spec));
  });
});

function fingerprint(): { fingerprint: string; bundles: number } {
  const h = createHash("sha256");
  let bundles = 0;
  for (const f of discover([root])) {
    const { path: _path, ...entry } = f.file
      ? scoreLog(f.dir, f.path, f.file.format as "eval" | "json")
      : scoreDirectory(f.dir, f.path, undefined, f.kind);
    h.update(`${relative(root, f.dir)}\t${JSON.stringify(entry)}\n`);
    bundles++;
  }
  return { fingerprint: h.digest("hex"), bundles };
}

it("results change only with a new SCORING_VERSION", () => {
  const now = fingerprint();
  expect(now.bundles).toBeGreaterThan(50);
  const record = `record { version: ${SCORING_VERSION}, fingerprint: "${now.fingerprint}" } in test/scoring-version.test.ts`;
  expect(SCORING_VERSION, `SCORING_VERSION moved: ${record}`).toBe(RECORDED.version);
  expect(
    now.fingerprint,
    `results changed under SCORING_VERSION ${SCORING_VERSION}: bump it in src/version.ts, then ${record}`,
  ).toBe(RECORDED.fingerprint);
});
