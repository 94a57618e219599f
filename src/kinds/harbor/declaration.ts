// Harbor trials and jobs (contract §11). What both threads need to know of the kind; nothing here
// imports anything.
export const harborDeclaration = {
  name: "harbor",
  profiles: ["harbor"],
  /** §11: one state per trial, never collapsed into a silent 0. */
  states: ["scored", "scored-with-exception", "infrastructure-error", "cancelled", "incomplete", "unverified"],
  /** Its codes are in the contract (core/codes.ts): §11 is part of it. */
  codes: {},
  /** The file an assay seal is kept in, out of the digest (§11: Harbor trials carry no seal: a seal.json there is an ordinary file). */
  seal: null,
  /** Why `assay seal` passes it over. */
  unsealed: "Harbor trials carry no seal",
} as const;
