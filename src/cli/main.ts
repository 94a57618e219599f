// assay's command line: dispatch, and the one place where errors become exit codes. A command's
// code is loaded only when it runs (`assay --help` loads none of it).

import { TOOL_VERSION } from "../version.js";
import { EXIT, isUserError } from "./exit.js";
import { processIo, type CliIo } from "./io.js";
import { moreFor, REFERENCE } from "./docs-pages.js";
import * as help from "./help.js";

type Run = (argv: string[], io: CliIo) => number | Promise<number>;
const COMMANDS: Record<string, { load: () => Promise<Run>; help: string }> = {
  demo: { load: async () => (await import("./commands/synth.js")).demoCommand, help: help.DEMO_HELP },
  score: { load: async () => (await import("./commands/score.js")).scoreCommand, help: help.SCORE_HELP },
  merge: { load: async () => (await import("./commands/merge.js")).mergeCommand, help: help.MERGE_HELP },
  compare: { load: async () => (await import("./commands/compare.js")).compareCommand, help: help.COMPARE_HELP },
  verify: { load: async () => (await import("./commands/verify.js")).verifyCommand, help: help.VERIFY_HELP },
  seal: { load: async () => (await import("./commands/seal.js")).sealCommand, help: help.SEAL_HELP },
  "check-task": { load: async () => (await import("./commands/check-task.js")).checkTaskCommand, help: help.CHECK_TASK_HELP },
  analyze: { load: async () => (await import("./commands/analyze.js")).analyzeCommand, help: help.ANALYZE_HELP },
  narrate: { load: async () => (await import("./commands/narrate.js")).narrateCommand, help: help.NARRATE_HELP },
  cache: { load: async () => (await import("./commands/cache.js")).cacheCommand, help: help.CACHE_HELP },
  synth: { load: async () => (await import("./commands/synth.js")).synthCommand, help: help.SYNTH_HELP },
  schema: { load: async () => (await import("./commands/schema.js")).schemaCommand, help: help.SCHEMA_HELP },
};

const HELP = `assay ${TOOL_VERSION}: score archived agent-benchmark runs from their evidence

${Object.values(COMMANDS).map((c) => c.help).join("\n")}
Exit codes: 0 scored; 1 --fail-on invalid (verify: invalid; check-task: a criterion fails; compare: --fail-on regression); 2 usage error;
3 a bundle the tool could not finish (check-task: an error or a task not analysed); 130 stopped by Ctrl-C.
${REFERENCE}`;

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.stdout(HELP);
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (name === "--version") {
    io.stdout(`${TOOL_VERSION}\n`);
    return EXIT.OK;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(`assay: unknown command ${JSON.stringify(name)} (try assay --help)\n`);
    return EXIT.USAGE;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(command.help + moreFor(name));
    return EXIT.OK;
  }
  try {
    return await (await command.load())(rest, io);
  } catch (e) {
    if (isUserError(e)) io.stderr(`assay ${name}: ${e.message}\n`);
    else {
      // A failure that stopped the run: say what, not where (ASSAY_DEBUG=1 for the stack).
      io.stderr(`assay ${name}: internal error: ${(e as Error).message}\n`);
      if (io.env["ASSAY_DEBUG"]) io.stderr(`${(e as Error).stack}\n`);
    }
    return EXIT.USAGE;
  }
}
