// What the main thread needs of a bundle folder's listing (its size, its seal): shared by the main
// thread (with a store), the worker (without one) and the pool (a folder whose worker died).
import { SEAL, type BundleEntryInfo } from "../core/folder.js";
import type { ListedEntry } from "./types.js";

/** The bytes of its regular files, and whether an assay bundle (not a Harbor trial) holds seal.json; nothing for a folder that could not be listed. */
export function listingOf(entries: readonly BundleEntryInfo[] | undefined, kind: "harbor" | undefined): ListedEntry["listing"] {
  let bytes = 0;
  for (const e of entries ?? []) if (e.kind === "file") bytes += e.size;
  return { bytes, sealed: kind === undefined && entries?.some((e) => e.path === SEAL) === true };
}
