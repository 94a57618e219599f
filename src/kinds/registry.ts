// The main process's kinds (kinds/list.ts, each face loaded once, here), in the order reports name
// them. Workers never load this: they take their scorers from the list one by one (pool/worker.ts).
import type { Profile } from "../core/results.js";
import { kindOfProfile, type KindName } from "./declared.js";
import type { Kind } from "./kind.js";
import { KIND_LIST } from "./list.js";

/** Folder kinds first, then the kinds read as files (Inspect's logs), each in the list's order: the order errors and legends list them in. */
export const KINDS: readonly Kind[] = await Promise.all(
  [...KIND_LIST]
    .sort((a, b) => Number(a.declaration.form === "file") - Number(b.declaration.form === "file"))
    .map((k) => k.kind()),
);

/** A kind by name. */
export const kindNamed = (name: KindName): Kind => KINDS.find((k) => k.name === name)!;

/**
 * The kind an entry belongs to: an entry that names no profile this version knows (a tool error
 * before its journal could be read, a document from another version) is taken as an assay
 * bundle's, as it always has been.
 */
export const kindOfEntry = (profile: string | null): Kind => kindOf(profile) ?? kindNamed("bundle");

/** The kind whose entries carry this profile (null: none this version knows). */
export function kindOf(profile: Profile | string | null): Kind | null {
  const name = kindOfProfile(profile);
  return name === null ? null : kindNamed(name);
}
