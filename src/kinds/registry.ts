// The main process's registry of kinds, in the order reports name them. The workers' registry is
// scorers.ts (a worker never loads a kind's words or batch rules).
import type { Profile } from "../core/results.js";
import { bundleKind } from "./bundle/kind.js";
import { kindOfProfile, type KindName } from "./declared.js";
import { harborKind } from "./harbor/kind.js";
import { inspectKind } from "./inspect/kind.js";
import type { Kind } from "./kind.js";
import { terminalBenchKind } from "./terminal-bench/kind.js";

/** Folder kinds first, then the kinds read as files (Inspect's logs): the order errors and legends list them in. */
export const KINDS: readonly Kind[] = [bundleKind, harborKind, terminalBenchKind, inspectKind];

/** A kind by name. */
export const kindNamed = (name: KindName): Kind => KINDS.find((k) => k.name === name)!;

/**
 * The kind an entry belongs to: an entry that names no profile this version knows (a tool error
 * before its journal could be read, a document from another version) is taken as an assay
 * bundle's, as it always has been.
 */
export const kindOfEntry = (profile: string | null): Kind => kindOf(profile) ?? bundleKind;

/** The kind whose entries carry this profile (null: none this version knows). */
export function kindOf(profile: Profile | string | null): Kind | null {
  const name = kindOfProfile(profile);
  return name === null ? null : kindNamed(name);
}
