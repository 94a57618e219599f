// Inspect logs (contract §12). What both threads need to know of the kind; nothing here imports
// anything.
export const inspectDeclaration = {
  name: "inspect",
  profiles: ["inspect"],
  /** §12: a log is complete, or incomplete (no header.json, status started, or cut short). */
  states: ["complete", "incomplete"],
  /** Its codes are in the contract (core/codes.ts): §12 is part of it. */
  codes: {},
  /** The file an assay seal is kept in, out of the digest (a log is one file: there is no folder to seal). */
  seal: null,
  /** Why `assay seal` passes it over. */
  unsealed: "a log is one file and carries no seal",
} as const;
