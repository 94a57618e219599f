// §15.6 verification failures: the codes `assay attest verify` reports, and the shape it reports
// them in. The lead registers them in core/codes.ts (§9: never reused); attest's own modules name
// them through this union so a misspelt code fails to compile.

export const ATTEST_CODES = [
  "ENVELOPE_MALFORMED",
  "STATEMENT_MALFORMED",
  "SIGNATURE_INVALID",
  "SUBJECT_MISSING",
  "DIGEST_MISMATCH",
  "ENTRY_MISSING",
  "ENTRY_EXTRA",
  "OPTIONS_MISMATCH",
  "SCORING_VERSION",
  "EXPERIMENT_MISMATCH",
  "COUNT_MISMATCH",
  "FIGURE_MISMATCH",
  "CLAIM_MISMATCH",
  "CRITERIA_MISMATCH",
  "HARNESS_DIFFERS",
] as const;
export type AttestCode = (typeof ATTEST_CODES)[number];

/** The codes that warn and never fail a statement (§15.6: another build at the same scoring version). */
export const ATTEST_WARNINGS: ReadonlySet<AttestCode> = new Set<AttestCode>(["HARNESS_DIFFERS"]);

/** One verification failure, printed `CODE where: detail`. */
export interface AttestFailure {
  code: AttestCode;
  /** Where in the statement (or the archive) it is: `experiments["x"].metrics["rewards/reward"].value`. */
  where: string;
  detail: string;
}

/** Whether a statement passes with these: none but warnings. */
export const passes = (failures: readonly AttestFailure[]): boolean =>
  failures.every((f) => ATTEST_WARNINGS.has(f.code));
