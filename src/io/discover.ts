// Discovery (contract §1): walk the roots, yield each bundle directory once.

import { isUtf8 } from "node:buffer";
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

/** Called for a directory below a root that discovery had to pass over, and why. */
export type OnSkip = (path: string, reason: string) => void;

/**
 * Yields bundles in a stable order (roots in the order given, entries by name). A root given
 * as a symlink is followed; links below a root are not. Directories are deduplicated by
 * device and inode, so overlapping roots never produce a bundle twice. A root that cannot be
 * read stops the run; a directory below it that cannot be read is skipped and reported.
 */
export function* discover(roots: readonly string[], onSkip: OnSkip = () => {}): Generator<Found> {
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
    const entries = list(real);
    if (typeof entries === "string") throw new DiscoveryError(`cannot read root ${root}: ${entries}`);
    yield* walk(real, shown, entries, seen, onSkip);
  }
}

function list(dir: string): Dirent<Buffer>[] | string {
  try {
    return readdirSync(dir, { withFileTypes: true, encoding: "buffer" });
  } catch (e) {
    return (e as Error).message;
  }
}

function* walk(dir: string, shown: string, entries: Dirent<Buffer>[], seen: Set<string>, onSkip: OnSkip): Generator<Found> {
  const st = statSync(dir, { bigint: true });
  const key = `${st.dev}:${st.ino}`;
  if (seen.has(key)) return;
  seen.add(key);
  if (entries.some((e) => e.name.toString() === "journal.jsonl")) {
    yield { dir, path: shown };
    return; // never descend into a bundle
  }
  const dirs = entries.filter((e) => e.isDirectory()).sort((a, b) => Buffer.compare(a.name, b.name));
  for (const e of dirs) {
    const path = `${shown}/${e.name.toString("utf8")}`;
    if (!isUtf8(e.name)) {
      onSkip(path, "its name is not valid UTF-8");
      continue;
    }
    const sub = join(dir, e.name.toString("utf8"));
    const listed = list(sub);
    if (typeof listed === "string") onSkip(path, listed);
    else yield* walk(sub, path, listed, seen, onSkip);
  }
}

export class DiscoveryError extends Error {
  readonly code = "DISCOVERY";
}
