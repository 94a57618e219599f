import { lstatSync, statSync } from "node:fs";
import { join } from "node:path";
import { taskPack } from "../../analysis/evidence.js";
import type { Advisory } from "../../core/results.js";
import { parseOptions } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { forTerminal } from "../../core/text.js";
import { shownAdvisory } from "../../report/shown.js";
import { ANALYSIS_OPTIONS, analysisFromOptions, runAnalysis } from "./analysis-options.js";

export async function checkTaskCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { ...ANALYSIS_OPTIONS, json: { type: "boolean" } },
  });
  if (positionals.length === 0) throw new UsageError("assay check-task needs at least one TASK_DIR");
  for (const d of positionals)
    if (!statSync(d, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`${forTerminal(d)} is not a directory`);
  const analysis = analysisFromOptions("task-quality", values, io.env, positionals);
  let results: Advisory[];
  try {
    // A folder without an instruction is not a task: never ask a model to bless an empty folder.
    const targets = positionals.map(
      (d) => () =>
        lstatSync(join(d, "instruction.md"), { throwIfNoEntry: false })?.isFile()
          ? taskPack(d)
          : { skip: "not a task folder: no instruction.md" },
    );
    results = await runAnalysis("check-task", analysis, targets, io);
  } finally {
    analysis.setup.cache.close();
  }
  const tasks = positionals.map((task, i) => ({ task, advisory: results[i]! }));
  io.stdout(values.json ? JSON.stringify(tasks, null, 2) + "\n" : tasks.map(renderTask).join("\n"));
  return gateExit(results);
}

/** 3 when anything is an error or unanalysed (3 wins), else 1 when a criterion fails, else 0. */
export function gateExit(results: readonly Advisory[]): number {
  const outcomes = results.flatMap((a) => Object.values(a.outcomes).map((o) => o.outcome));
  if (results.some((a) => a.status !== "analysed") || outcomes.includes("error")) return EXIT.INCOMPLETE;
  return outcomes.includes("fail") ? EXIT.FAILED : EXIT.OK;
}

/** A task's judgement as text: the folder's name and every field of the advisory shown for a terminal first. */
function renderTask({ task, advisory }: { task: string; advisory: Advisory }): string {
  const a = shownAdvisory(advisory);
  const one = (t: string, max: number) => t.replace(/\s+/g, " ").slice(0, max);
  const lines = [
    `${forTerminal(task)}: ${a.status === "analysed" ? `analysed by ${a.model}${a.cached ? " (from the cache)" : ""}` : `not analysed: ${a.reason}`}`,
  ];
  for (const [name, o] of Object.entries(a.outcomes))
    lines.push(`  ${o.outcome.padEnd(14)} ${name}: ${one(o.explanation, 300)}`);
  if (a.summary) lines.push(`  summary: ${one(a.summary, 500)}`);
  return lines.join("\n") + "\n";
}
