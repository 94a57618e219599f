// The fixture run of fixtures/swe-bench/run read as the run level sees it: its final report, its
// predictions and each instance folder's outcome (assessInstance, then outcomeOf).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { finalReportOf, type FinalReport } from "../../src/kinds/swe-bench/final-report.js";
import { assessInstance } from "../../src/kinds/swe-bench/instance.js";
import { readPredictions, type PredictionsSummary } from "../../src/kinds/swe-bench/predictions.js";
import { fileDigest } from "../../src/kinds/swe-bench/run-files.js";
import { outcomeOf, type InstanceOutcome } from "../../src/kinds/swe-bench/run-instances.js";

export const RUN_FIXTURE = new URL("../fixtures/swe-bench/run/", import.meta.url).pathname;
export const WORK = join(RUN_FIXTURE, "work");
export const MODEL_FOLDER = join(WORK, "logs/run_evaluation/demo-run/org__model-7b");
export const REPORT_NAME = "org__model-7b.demo-run.json";
export const [A, B, C, D, E, F] = [
  "pallets__flask-4045",
  "pallets__flask-4992",
  "pallets__flask-5063",
  "pallets__flask-4935",
  "psf__requests-2317",
  "psf__requests-863",
] as const;

export function fixtureReport(): FinalReport {
  const parsed = finalReportOf(JSON.parse(readFileSync(join(WORK, REPORT_NAME), "utf8")));
  if (!parsed.ok) throw new Error(parsed.why);
  return parsed.report;
}

export async function fixturePredictions(): Promise<PredictionsSummary> {
  const r = await readPredictions(join(WORK, "preds.jsonl"), "org__model-7b");
  if (r.read !== "ok") throw new Error(r.read);
  return r.summary;
}

export async function fixtureOutcomes(): Promise<InstanceOutcome[]> {
  const out: InstanceOutcome[] = [];
  for (const id of readdirSync(MODEL_FOLDER).sort()) {
    const folder = join(MODEL_FOLDER, id);
    const reportFile = existsSync(join(folder, "report.json"));
    const doc: unknown = reportFile ? JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) : undefined;
    const a = await assessInstance(folder, id, doc);
    if (!a) throw new Error(id);
    out.push(outcomeOf(id, a, reportFile, fileDigest(join(folder, "patch.diff"))));
  }
  return out;
}
