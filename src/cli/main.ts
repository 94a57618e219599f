// assay's command line: dispatch, and the one place where errors become exit codes.

import { TOOL_VERSION } from "../version.js";
import { EXIT, isUserError } from "./exit.js";
import { processIo, type CliIo } from "./io.js";
import { schemaCommand } from "./commands/schema.js";
import { MERGE_HELP, mergeCommand } from "./commands/merge.js";
import { SCORE_HELP, scoreCommand } from "./commands/score.js";
import { DEMO_HELP, demoCommand, SYNTH_HELP, synthCommand } from "./commands/synth.js";
import { VERIFY_HELP, verifyCommand } from "./commands/verify.js";
import { ANALYZE_HELP, analyzeCommand } from "./commands/analyze.js";
import { CHECK_TASK_HELP, checkTaskCommand } from "./commands/check-task.js";
import { CACHE_HELP, cacheCommand } from "./commands/cache.js";
import { NARRATE_HELP, narrateCommand } from "./commands/narrate.js";
import { SEAL_HELP, sealCommand } from "./commands/seal.js";

const COMMANDS: Record<string, { run: (argv: string[], io: CliIo) => number | Promise<number>; help: string }> = {
  demo: { run: demoCommand, help: DEMO_HELP },
  score: { run: scoreCommand, help: SCORE_HELP },
  merge: { run: mergeCommand, help: MERGE_HELP },
  verify: { run: verifyCommand, help: VERIFY_HELP },
  seal: { run: sealCommand, help: SEAL_HELP },
  "check-task": { run: checkTaskCommand, help: CHECK_TASK_HELP },
  analyze: { run: analyzeCommand, help: ANALYZE_HELP },
  narrate: { run: narrateCommand, help: NARRATE_HELP },
  cache: { run: cacheCommand, help: CACHE_HELP },
  synth: { run: synthCommand, help: SYNTH_HELP },
  schema: { run: schemaCommand, help: "assay schema [--out FILE]\n  Print the JSON Schema of the results document.\n" },
};

const HELP = `assay ${TOOL_VERSION}: score archived agent-benchmark runs from their evidence

${Object.values(COMMANDS).map((c) => c.help).join("\n")}
Exit codes: 0 scored; 1 --fail-on invalid (verify: invalid; check-task: a criterion fails; seal: a bundle
not sealed); 2 usage error; 3 a bundle the tool could not finish (check-task: an error or a task not
analysed; seal: a seal not written); 130 stopped by Ctrl-C.
`;

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
    io.stdout(command.help);
    return EXIT.OK;
  }
  try {
    return await command.run(rest, io);
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
