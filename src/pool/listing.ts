// What the main thread needs of a folder's listing (its size, its seal): shared by the main
// thread (with a store), the worker (without one) and the pool (a folder whose worker died).
import type { BundleEntryInfo } from "../core/folder.js";
import { declarationOf, type KindName } from "../kinds/declared.js";
import type { ListedEntry } from "./types.js";

/** The bytes of its regular files, and whether it holds its kind's seal file; nothing for a folder that could not be listed. */
export function listingOf(entries: readonly BundleEntryInfo[] | undefined, kind: KindName): ListedEntry["listing"] {
  let bytes = 0;
  for (const e of entries ?? []) if (e.kind === "file") bytes += e.size;
  const seal = declarationOf(kind).seal;
  return { bytes, sealed: seal !== null && entries?.some((e) => e.path === seal) === true };
}
