// An instance folder's two text logs read once each, every consumer fed in the same pass:
// test_output.txt → the re-derivation's scan and the infra signatures, then run_instance.log →
// its facts and the infra signatures (the harness's classify_logs order).

import { TestOutputScan, type LogEvaluation } from "./grade.js";
import { InfraScan, type InfraClass } from "./infra.js";
import { readLogLinesFrom, type LogRead, type LogSource } from "./read.js";
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

/** An instance folder's files by name (test_output.txt, run_instance.log). */
export type InstanceFiles = (name: string) => LogSource;

export function scanInstanceLogs(files: InstanceFiles, parser: ParserName | null, maxBytes?: number): InstanceLogs {
  const infra = new InfraScan();
  const scan = new TestOutputScan(parser);
  const testOutput = readLogLinesFrom(
    files("test_output.txt"),
    (l) => {
      scan.line(l);
      infra.line(l);
    },
    maxBytes,
  );
  const facts = new RunLogScan();
  const runLog = readLogLinesFrom(
    files("run_instance.log"),
    (l) => {
      facts.line(l);
      infra.line(l);
    },
    maxBytes,
  );
  return {
    testOutput,
    evaluation: testOutput.read === "ok" ? scan.finish() : null,
    runLog,
    runLogFacts: runLog.read === "ok" ? facts.result() : null,
    infra: infra.result(),
  };
}
