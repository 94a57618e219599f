// Inspect logs (contract §12). What both threads need to know of the kind; nothing here imports
// anything.
export const inspectDeclaration = {
  name: "inspect",
  profiles: ["inspect"],
  /** §12: a log is complete, or incomplete (no header.json, status started, or cut short). */
  states: ["complete", "incomplete"],
  /** Its own codes beyond the contract's (core/codes.ts holds §12's): those of its harness as it is written now (issue 25). */
  codes: {
    GRADER_FAILED: "§12 flag: a sample's score says its grader failed (Score.reason grader_failed or scoring_failed; older logs' grade_parse_failure): an instrument error, outside assay's figures",
  },
  /** The file an assay seal is kept in, out of the digest (a log is one file: there is no folder to seal). */
  seal: null,
  /** Why `assay seal` passes it over. */
  unsealed: "a log is one file and carries no seal",
} as const;
