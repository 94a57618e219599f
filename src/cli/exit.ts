// The one place where outcomes become exit codes.

// Types only: main.ts loads this for `assay --help`, which must not load the results schema (zod).
import type { Results, ResultsView } from "../core/results.js";

export const EXIT = {
  /** Scored (whatever the evidence said). */
  OK: 0,
  /** What the user asked to fail on happened (--fail-on invalid; an invalid bundle for verify). */
  FAILED: 1,
  /** A usage error, or a failure that stopped the whole run. */
  USAGE: 2,
  /** Incomplete: a bundle the tool could not finish (validity "error"). Wins over FAILED. */
  INCOMPLETE: 3,
  /** Stopped by Ctrl-C (128 + SIGINT): the store keeps what finished. */
  INTERRUPTED: 130,
} as const;

export { UsageError } from "../errors.js";

export function exitForResults(doc: Results | ResultsView, failOnInvalid: boolean): number {
  const has = (v: "invalid" | "error") =>
    "tally" in doc ? doc.tally[v] > 0 : doc.bundles.some((e) => e.validity === v);
  if (has("error")) return EXIT.INCOMPLETE;
  const anyInvalid = has("invalid") || doc.experiments.some((e) => e.invalid.length > 0);
  return failOnInvalid && anyInvalid ? EXIT.FAILED : EXIT.OK;
}

export function exitForValidity(v: "valid" | "invalid" | "error"): number {
  return v === "error" ? EXIT.INCOMPLETE : v === "invalid" ? EXIT.FAILED : EXIT.OK;
}

/** Errors that are the user's to fix (bad arguments, unreadable roots, a malformed schedule). */
export const isUserError = (e: unknown): e is Error & { code: string } =>
  e instanceof Error &&
  [
    "USAGE",
    "SCHEDULE",
    "DISCOVERY",
    "RUBRIC",
    "TEMPLATE",
    "CACHE",
    "STORE",
    "OUTPUT",
    "ENOENT",
    "EACCES",
    "ENOTDIR",
    "EEXIST",
  ].includes((e as { code?: string }).code ?? "");
