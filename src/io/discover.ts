// Discovery (contract §1): walk the roots, yield each bundle directory once.

import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";

export interface Found {
  /** The bundle's directory on disk. */
  dir: string;
  /** Its path in results: the root as given, joined by '/' with the path below it. */
  path: string;
}

/** The root as the user gave it, without trailing slashes (so joins read cleanly). */
export const displayRoot = (root: string): string => (root.length > 1 ? root.replace(/\/+$/, "") || "/" : root);

/**
 * Yields bundles in a stable order (roots in the order given, entries by name). A root given
 * as a symlink is followed; links below a root are not. Directories are deduplicated by
 * device and inode, so overlapping roots never produce a bundle twice.
 */
export function* discover(roots: readonly string[]): Generator<Found> {
  const seen = new Set<string>();
  for (const root of roots) {
    const shown = displayRoot(root);
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      throw new DiscoveryError(`root ${root} does not exist`);
    }
    if (!statSync(real).isDirectory()) throw new DiscoveryError(`root ${root} is not a directory`);
    yield* walk(real, shown, seen);
  }
}

function* walk(dir: string, shown: string, seen: Set<string>): Generator<Found> {
  const st = statSync(dir, { bigint: true });
  const key = `${st.dev}:${st.ino}`;
  if (seen.has(key)) return;
  seen.add(key);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw new DiscoveryError(`cannot read directory ${shown}: ${(e as Error).message}`);
  }
  if (entries.some((e) => e.name === "journal.jsonl")) {
    yield { dir, path: shown };
    return; // never descend into a bundle
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) if (e.isDirectory()) yield* walk(join(dir, e.name), `${shown}/${e.name}`, seen);
}

export class DiscoveryError extends Error {
  readonly code = "DISCOVERY";
}
