// What a Terminal-Bench trial's entry carries beyond the fields every kind shares (docs/terminal-bench.md):
// its states, and the one optional `terminal_bench` object. Imported by the results schema, so it
// imports nothing of it.

import { z } from "zod";
import type { terminalBenchDeclaration } from "./declaration.js";

/** The states of a trial's entry (declaration.ts). */
export type TbState = (typeof terminalBenchDeclaration.states)[number];

export const PARSERS = ["pytest", "swebench", "sweperf", "mlebench", "swelancer"] as const;
export type ParserName = (typeof PARSERS)[number];

/**
 * How panes/post-test.txt bears on parser_results: re-parsed and equal, re-parsed and different,
 * not re-derivable (why in a warning), absent, or holding results TB never parsed (a test timeout).
 */
export const PANE_CHECKS = ["agrees", "differs", "not-rederived", "absent", "ignored"] as const;

export const terminalBenchSchema = z.object({
  /** TrialResults.failure_mode as written ("unset" on a clean trial: TB never sets "none"). */
  failure_mode: z.string().nullable(),
  /** The parser the pane was re-derived with (null: not re-derived). */
  parser: z.enum(PARSERS).nullable(),
  pane: z.enum(PANE_CHECKS),
  /** The tests behind the verdict: TB's statuses, and how many passed only as SKIPPED/XFAIL; names given twice. */
  tests: z.object({ passed: z.int(), failed: z.int(), skipped_as_passed: z.int(), duplicates: z.int() }).nullable(),
  /** Token counts: recorded, "reported-none" (0 and 0: the agent reports none, not a measured zero), or not recorded (null). */
  tokens: z.enum(["recorded", "reported-none", "not-recorded"]),
  /**
   * Each top-level field of the trial's results.json, as the first 16 hex digits of the SHA-256 of
   * its canonical JSON: what the run-level rules compare with the run's entry of the same trial.
   */
  fields: z.record(z.string(), z.string()).nullable(),
});
export type TerminalBenchPart = z.infer<typeof terminalBenchSchema>;
