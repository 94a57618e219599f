// What the main thread needs of a folder its worker listed (a run without a store): shared by the
// worker, which lists the folders it scores, and the pool, which lists one whose worker died.
import { SEAL, type BundleEntryInfo } from "../core/folder.js";
import type { ListedEntry } from "./types.js";

/** The bytes of its regular files, and whether an assay bundle (not a Harbor trial) holds seal.json; nothing for a folder that could not be listed. */
export function listingOf(entries: readonly BundleEntryInfo[] | undefined, kind: "harbor" | undefined): ListedEntry["listing"] {
  let bytes = 0;
  for (const e of entries ?? []) if (e.kind === "file") bytes += e.size;
  return { bytes, sealed: kind === undefined && entries?.some((e) => e.path === SEAL) === true };
}
