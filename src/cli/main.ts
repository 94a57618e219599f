// assay's command line: dispatch, and the one place where errors become exit codes. A command's
// code is loaded only when it runs, and its help text only when asked for: `assay --help` loads
// neither (docs/development.md has its start-up time).

import { forTerminal } from "../core/text.js";
import { TOOL_VERSION } from "../version.js";
import { didYouMean } from "./args.js";
import { EXIT, isUserError } from "./exit.js";
import { processIo, type CliIo } from "./io.js";
import { moreFor, REFERENCE } from "./docs-pages.js";
import type * as Help from "./help.js";

type Run = (argv: string[], io: CliIo) => number | Promise<number>;
interface Command {
  load: () => Promise<Run>;
  /** One line for `assay --help`. */
  summary: string;
  /** Its details, in help.ts. */
  help: keyof typeof Help;
}
const COMMANDS: Record<string, Command> = {
  demo: {
    load: async () => (await import("./commands/synth.js")).demoCommand,
    summary: "score a small synthetic corpus of every kind",
    help: "DEMO_HELP",
  },
  score: {
    load: async () => (await import("./commands/score.js")).scoreCommand,
    summary: "score every bundle, trial, SWE-bench instance and Inspect log under the roots",
    help: "SCORE_HELP",
  },
  verify: {
    load: async () => (await import("./commands/verify.js")).verifyCommand,
    summary: "validate one bundle, trial, job, run, SWE-bench model folder or Inspect log, with every finding",
    help: "VERIFY_HELP",
  },
  triage: {
    load: async () => (await import("./commands/triage.js")).triageCommand,
    summary: "check Inspect logs' claims from their headers and summaries alone; name those to verify",
    help: "TRIAGE_HELP",
  },
  compare: {
    load: async () => (await import("./commands/compare.js")).compareCommand,
    summary: "compare two results documents; rank the runs of one, or of three or more",
    help: "COMPARE_HELP",
  },
  export: {
    load: async () => (await import("./commands/export.js")).exportCommand,
    summary: "every unit of results documents as rows: a DuckDB database and Parquet files",
    help: "EXPORT_HELP",
  },
  merge: {
    load: async () => (await import("./commands/merge.js")).mergeCommand,
    summary: "merge the shards of score --shard i/n into one document",
    help: "MERGE_HELP",
  },
  "slurm-script": {
    load: async () => (await import("./commands/slurm-script.js")).slurmScriptCommand,
    summary: "write the script that scores in shards on Slurm, then merges",
    help: "SLURM_SCRIPT_HELP",
  },
  seal: {
    load: async () => (await import("./commands/seal.js")).sealCommand,
    summary: "seal assay bundles with an HMAC key",
    help: "SEAL_HELP",
  },
  attest: {
    load: async () => (await import("./commands/attest.js")).attestCommand,
    summary: "sign what assay verified (in-toto, DSSE, ed25519); attest verify checks and recounts it",
    help: "ATTEST_HELP",
  },
  analyze: {
    load: async () => (await import("./commands/analyze.js")).analyzeCommand,
    summary: "score, then ask a model whether each trial is legitimate (advisory)",
    help: "ANALYZE_HELP",
  },
  "check-task": {
    load: async () => (await import("./commands/check-task.js")).checkTaskCommand,
    summary: "judge task folders against the task-quality rubric before launch",
    help: "CHECK_TASK_HELP",
  },
  narrate: {
    load: async () => (await import("./commands/narrate.js")).narrateCommand,
    summary: "a job narrative around a results document's figures",
    help: "NARRATE_HELP",
  },
  cache: {
    load: async () => (await import("./commands/cache.js")).cacheCommand,
    summary: "the analysis cache: stats, prune, export",
    help: "CACHE_HELP",
  },
  synth: {
    load: async () => (await import("./commands/synth.js")).synthCommand,
    summary: "write synthetic trials of a kind, with their expected verdicts",
    help: "SYNTH_HELP",
  },
  schema: {
    load: async () => (await import("./commands/schema.js")).schemaCommand,
    summary: "print the JSON Schema of the results document",
    help: "SCHEMA_HELP",
  },
};
const NAMES = Object.keys(COMMANDS);

const USAGE =
  "usage: assay COMMAND [options]   (assay --help lists the commands; assay COMMAND --help describes one)\n";

/** One screen: each command on a line, the common flags, the exit codes, where to read more. */
const OVERVIEW = `assay ${TOOL_VERSION}: score archived agent-benchmark runs from their evidence

usage: assay COMMAND [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(14)}${c.summary}`)
  .join("\n")}

Common options (where a command has them):
  -o, --out FILE   write to FILE (its extension picks the format; - for standard output)
  -f, --format F   output format (table, json, jsonl, html, junit, md)
  -q, --quiet      no progress on stderr
  -j, --jobs N     worker threads at most
  -h, --help       this list; assay COMMAND --help (or assay help COMMAND) describes one command
  -v, --version    print the version

Exit codes: 0 done; 1 what --fail-on names happened (verify: invalid; check-task: a criterion
fails); 2 usage error; 3 a bundle the tool could not finish; 130 stopped by Ctrl-C.
${REFERENCE}`;

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h";

/** Not a command: where a typo is near one, say which (an option before any command: the command comes first). */
function unknownCommand(name: string, io: CliIo): number {
  if (name.startsWith("-"))
    io.stderr(
      `assay: unknown option ${forTerminal(name)}${didYouMean(name, ["--help", "--version"])} (a command comes first: assay COMMAND [options])\n`,
    );
  else
    io.stderr(
      `assay: unknown command ${JSON.stringify(name)}${didYouMean(name, NAMES) || " (assay --help lists the commands)"}\n`,
    );
  return EXIT.USAGE;
}

async function commandHelp(name: string, io: CliIo): Promise<number> {
  const command = COMMANDS[name];
  if (command === undefined) return unknownCommand(name, io);
  io.stdout((await import("./help.js"))[command.help] + moreFor(name));
  return EXIT.OK;
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(USAGE);
    return EXIT.USAGE;
  }
  if (isHelp(name) || (name === "help" && (rest.length === 0 || isHelp(rest[0])))) {
    io.stdout(OVERVIEW);
    return EXIT.OK;
  }
  if (name === "help") return commandHelp(rest[0]!, io);
  if (name === "--version" || name === "-v") {
    io.stdout(`${TOOL_VERSION}\n`);
    return EXIT.OK;
  }
  const command = COMMANDS[name];
  if (command === undefined) return unknownCommand(name, io);
  // --help anywhere before a `--` (after it, it is a name the command reads)
  const end = rest.indexOf("--");
  if ((end < 0 ? rest : rest.slice(0, end)).some(isHelp)) return commandHelp(name, io);
  try {
    return await (
      await command.load()
    )(rest, io);
  } catch (e) {
    if (isUserError(e)) io.stderr(`${said(name, e.message)}\n`);
    else {
      // A failure that stopped the run: say what, not where (ASSAY_DEBUG=1 for the stack).
      io.stderr(`assay ${name}: internal error: ${(e as Error).message}\n`);
      if (io.env["ASSAY_DEBUG"]) io.stderr(`${(e as Error).stack}\n`);
    }
    return EXIT.USAGE;
  }
}

/**
 * A refusal as one line "assay CMD: …", the command said once: a message that opens by naming it
 * ("assay score needs…") loses that opening rather than read "assay score: assay score needs…".
 */
export function said(name: string, message: string): string {
  const own = `assay ${name} `;
  return `assay ${name}: ${message.startsWith(own) ? message.slice(own.length) : message}`;
}
