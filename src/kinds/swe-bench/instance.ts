// One instance folder assessed from its own files (§14; nothing from another folder, §7): its logs
// read once, report.json's entry (the caller parses the document, §2), the re-derivation, the
// state, the findings and the infra flag. What the registry's entry is built from.

import { instanceFindings, type Finding } from "./checks.js";
import { datasetMismatch, decidingFromDataset, type DatasetTests } from "./dataset.js";
import { rederive, type Rederivation } from "./grade.js";
import type { InfraClass } from "./infra.js";
import { decidingOf, reportEntryOf, type ReportEntry } from "./instance-report.js";
import { join } from "node:path";
import { scanInstanceLogs, type InstanceFiles, type InstanceLogs } from "./logs.js";
import { fileLog } from "./read.js";
import { repoOf, type InstanceRepo } from "./repo.js";
import { decideState, type FolderState, type StateDecision } from "./state.js";

/** How test_output.txt stands to report.json (the entry's `swe_bench.log`). */
export type LogStanding = "agrees" | "differs" | "unverified" | "absent";

export interface InstanceAssessment {
  repo: InstanceRepo;
  logs: InstanceLogs;
  /** report.json's entry; null: no report.json. */
  report: ReportEntry | null;
  rederivation: Rederivation | null;
  decision: StateDecision;
  log: LogStanding;
  /** Hard checks and warnings (LOG_TOO_LARGE, REPORT_UNREADABLE; SCHEMA per wrong field; LOG_UNREADABLE: a tool error). */
  findings: Finding[];
  /** The INFRA_SIGNATURE flag's evidence, for the states it is raised on. */
  infra: InfraClass | null;
}

const INFRA_STATES: ReadonlySet<FolderState> = new Set(["unresolved", "tests-not-run", "tests-timeout", "error"]);
const NO_TESTS = { FAIL_TO_PASS: [], PASS_TO_PASS: [] };

/**
 * `reportDoc`: report.json as parsed (§2), undefined when there is no report.json; an empty or
 * cut one is the caller's REPORT_UNREADABLE, passed as undefined.
 */
export async function assessInstance(
  folder: string,
  instanceId: string,
  reportDoc: unknown,
  maxLogBytes?: number,
  dataset?: ReadonlyMap<string, DatasetTests>,
): Promise<InstanceAssessment | null> {
  return assessInstanceFiles((name) => fileLog(join(folder, name)), instanceId, reportDoc, maxLogBytes, dataset);
}

/** assessInstance over the folder's files as its caller reads them (a worker's scorer: synchronously, through its source). */
export function assessInstanceFiles(
  files: InstanceFiles,
  instanceId: string,
  reportDoc: unknown,
  maxLogBytes?: number,
  dataset?: ReadonlyMap<string, DatasetTests>,
): InstanceAssessment | null {
  const repo = repoOf(instanceId);
  if (!repo) return null;
  const logs = scanInstanceLogs(files, repo.parser, maxLogBytes);
  const entry = reportDoc === undefined ? null : reportEntryOf(reportDoc, instanceId);
  const report = entry?.entry === "ok" ? entry.report : null;
  const evaluation = logs.evaluation;
  // With --dataset the deciding tests are the dataset's (issue 38): a report.json that drops one is caught.
  const expected = dataset?.get(instanceId);
  const deciding = expected ? decidingFromDataset(expected) : report ? (decidingOf(report) ?? NO_TESTS) : NO_TESTS;
  const rederivation = report && repo.parser && evaluation ? rederive(evaluation, deciding) : null;
  const testOutput = logs.testOutput.read === "ok" ? "read" : logs.testOutput.read;
  const decision = decideState({
    report,
    testOutput,
    evaluation,
    rederivation,
    supported: repo.parser !== null,
    runLog: logs.runLogFacts,
    runLogUnread: logs.runLog.read === "too-large" || logs.runLog.read === "unreadable",
  });
  const findings = [
    ...readingFindings(logs, entry),
    ...instanceFindings({ report, testOutputPresent: testOutput !== "absent", evaluation, rederivation }),
  ];
  const against = dataset && report ? datasetMismatch(instanceId, report, expected, rederivation) : null;
  if (against !== null) findings.push(against);
  const differs = findings.some((f) => f.code === "REPORT_MISMATCH");
  const log: LogStanding =
    testOutput === "absent" ? "absent" : rederivation ? (differs ? "differs" : "agrees") : "unverified";
  return {
    repo,
    logs,
    report: entry,
    rederivation,
    decision,
    log,
    findings,
    infra: INFRA_STATES.has(decision.state) ? logs.infra : null,
  };
}

function readingFindings(logs: InstanceLogs, entry: ReportEntry | null): Finding[] {
  const out: Finding[] = [];
  for (const [name, read] of [
    ["test_output.txt", logs.testOutput],
    ["run_instance.log", logs.runLog],
  ] as const) {
    if (read.read === "too-large")
      out.push({
        code: "LOG_TOO_LARGE",
        message: `${name} is ${read.bytes} bytes, more than assay reads: not re-derived`,
      });
    if (read.read === "unreadable") out.push({ code: "LOG_UNREADABLE", message: `${name}: ${read.why}` });
  }
  if (entry?.entry === "unreadable") out.push({ code: "REPORT_UNREADABLE", message: entry.why });
  if (entry?.entry === "schema")
    for (const i of entry.issues) out.push({ code: "SCHEMA", message: `report.json ${i.path}: ${i.message}` });
  return out;
}
