// Inspect logs (contract §12). What both threads need to know of the kind; nothing here imports
// anything.
export const inspectDeclaration = {
  name: "inspect",
  form: "file",
  profiles: ["inspect"],
  /** §12: a log is complete, or incomplete (no header.json, status started, or cut short). */
  states: ["complete", "incomplete"],
  /** Its own codes beyond the contract's (core/codes.ts holds §12's): those of its harness as it is written now (issue 25). */
  codes: {
    GRADER_FAILED:
      "§12 flag: a sample's score says its grader failed (Score.reason grader_failed or scoring_failed; older logs' grade_parse_failure) and carries no verdict, or choice() raised on a sample without options (Inspect 0.3.264 on): an instrument error, outside assay's figures",
    // issue 35: Inspect attribution
    GRADER_REASON_WITH_VALUE:
      "§12 flag: a score's reason says its grader failed, yet it carries a definite value: the value counts (a reason never removes a verdict)",
    SANDBOX_UNAVAILABLE:
      "§12 flag: a sample's sandbox died under it (a sandbox_unavailable tool error from Inspect 0.3.260, docker's dead-container line before): an instrument error, left out of assay's value, 0 under --errors zero",
  },
  /** The file an assay seal is kept in, out of the digest (a log is one file: there is no folder to seal). */
  seal: null,
  /** Why `assay seal` passes it over. */
  unsealed: "a log is one file and carries no seal",
} as const;
