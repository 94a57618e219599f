// A few cases through the real pipeline: written to disk, discovered, listed and read by pool
// workers (scoreRoots with two), rendered. Each must be found where discovery says, get no tool
// error, and get exactly the entry it got in memory.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEFAULT_BATCH } from "../core/batch/experiments.js";
import type { BundleEntry, ScoredBundle } from "../core/results.js";
import { placed, scoreRoots } from "../pipeline/score.js";
import type { FuzzCase } from "./generate.js";
import { foundAt, renderProblem } from "./oracle.js";
import { writeTree } from "./tree.js";

/** Write the case under `root` as discovery would find it; returns its folder. */
export function writeCase(root: string, c: FuzzCase): string {
  const at = foundAt(c, root);
  if (at.member) {
    mkdirSync(dirname(at.dir), { recursive: true });
    writeFileSync(join(dirname(at.dir), "job.log"), "fuzz job\n");
  }
  writeTree(at.dir, c.tree);
  return at.dir;
}

/** What discovery makes of the case's folder (contract §1, §11): its own names decide. */
function discoveredAs(c: FuzzCase): "bundle" | "harbor-trial" | null {
  const names = new Set([...c.tree.keys()].map((p) => p.split("/")[0]!));
  if (c.base.profile.layout === "harbor-trial") return "harbor-trial"; // every subfolder of a job is one of its trials
  if (names.has("journal.jsonl")) return "bundle";
  return names.has("config.json") && (names.has("trial.log") || names.has("result.json")) ? "harbor-trial" : null;
}

/** An entry with its findings in a fixed order (a disk lists a folder in its own order). */
const normal = (e: BundleEntry): string => {
  const sorted = (fs: BundleEntry["errors"]) => fs.map((f) => JSON.stringify(f)).sort();
  return JSON.stringify({ ...e, errors: sorted(e.errors), warnings: sorted(e.warnings) });
};

export interface DiskCase {
  c: FuzzCase;
  /** Its entry as scored in memory. */
  entry: ScoredBundle;
}

/** Run the cases through the pipeline together: the index of a case that fails and why, or null. */
export async function diskProblem(
  cases: readonly DiskCase[],
  jobs = 2,
): Promise<{ index: number; failure: string } | null> {
  const root = mkdtempSync(join(tmpdir(), "assay-fuzz-disk-"));
  try {
    for (const { c } of cases) writeCase(root, c);
    // Through the workers (inThread: null): a set this small would otherwise be scored in the main thread.
    const results = await scoreRoots([root], { schedules: [], ...DEFAULT_BATCH, jobs, inThread: null });
    const byPath = new Map(results.bundles.map((b) => [b.path, b]));
    for (const { c, entry } of cases) {
      const at = foundAt(c, root);
      const got = byPath.get(at.path);
      const kind = discoveredAs(c);
      const fail = (failure: string) => ({ index: c.index, failure });
      if (kind === null) {
        if (got !== undefined) return fail(`found at ${at.path}, where discovery should find nothing`);
        continue;
      }
      if (got === undefined) return fail(`not found at ${at.path} (expected a ${kind})`);
      if (got.validity === "error") return fail(`a tool error on disk: ${JSON.stringify(got.errors)}`);
      if (kind !== c.base.profile.layout) continue; // read as another kind of folder than in memory
      const want = placed(at, entry);
      if (normal(got) !== normal(want))
        return fail(`on disk another entry than in memory:\n  memory: ${normal(want)}\n  disk:   ${normal(got)}`);
    }
    const stray = results.bundles.find((b) => b.validity === "error");
    if (stray !== undefined) return { index: cases[0]!.c.index, failure: `a tool error on disk for ${stray.path}` };
    const doc = renderProblem(results);
    return doc === null ? null : { index: cases[0]!.c.index, failure: `on disk: ${doc}` };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
