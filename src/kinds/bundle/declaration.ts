// assay bundles (contract §1–§8): a folder holding journal.jsonl, of the native-game or world
// profile. What both threads need to know of the kind; nothing here imports anything.
export const bundleDeclaration = {
  name: "bundle",
  form: "folder",
  profiles: ["native-game", "world"],
  /** Its entries carry no state: validity and status say it all. */
  states: [],
  /** Its codes are the contract's own (core/codes.ts). */
  codes: {},
  /** The file an assay seal is kept in, out of the digest (§8: an assay seal signs the digest, so it stays out of it). */
  seal: "seal.json",
  unsealed: null,
} as const;
