// An instance folder's two text logs read once each, every consumer fed in the same pass:
// test_output.txt → the re-derivation's scan and the infra signatures, then run_instance.log →
// its facts and the infra signatures (the harness's classify_logs order).

import { join } from "node:path";
import { TestOutputScan, type LogEvaluation } from "./grade.js";
import { InfraScan, type InfraClass } from "./infra.js";
import { readLogLines, type LogRead } from "./read.js";
import type { ParserName } from "./repo.js";
import { RunLogScan, type RunLogFacts } from "./run-log.js";

export interface InstanceLogs {
  testOutput: LogRead;
  /** The scan of test_output.txt when read (parser null: markers, exit codes and timeout only). */
  evaluation: LogEvaluation | null;
  runLog: LogRead;
  runLogFacts: RunLogFacts | null;
  /** infra_failure.py's classification of what was read. */
  infra: InfraClass | null;
}

export async function scanInstanceLogs(folder: string, parser: ParserName | null, maxBytes?: number): Promise<InstanceLogs> {
  const infra = new InfraScan();
  const scan = new TestOutputScan(parser);
  const testOutput = await readLogLines(join(folder, "test_output.txt"), (l) => {
    scan.line(l);
    infra.line(l);
  }, maxBytes);
  const facts = new RunLogScan();
  const runLog = await readLogLines(join(folder, "run_instance.log"), (l) => {
    facts.line(l);
    infra.line(l);
  }, maxBytes);
  return {
    testOutput,
    evaluation: testOutput.read === "ok" ? scan.finish() : null,
    runLog,
    runLogFacts: runLog.read === "ok" ? facts.result() : null,
    infra: infra.result(),
  };
}
