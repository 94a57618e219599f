// Sharding (`--shard i/n`): a partition of bundles by a hash of their results path. It reads no
// file, so every machine agrees on the partition from the paths alone.

import { createHash } from "node:crypto";
import type { Scan } from "../core/results.js";
import { UsageError } from "../errors.js";

export interface Shard {
  index: number;
  count: number;
}

export function parseShard(spec: string): Shard {
  const m = /^(0|[1-9][0-9]*)\/([1-9][0-9]*)$/.exec(spec);
  if (!m) throw new UsageError(`--shard takes i/n with 0 <= i < n (got ${JSON.stringify(spec)})`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (index >= count) throw new UsageError(`--shard ${spec}: i must be below n (shards are numbered from 0)`);
  return { index, count };
}

export const formatShard = (s: Shard): string => `${s.index}/${s.count}`;

export function inShard(path: string, s: Shard): boolean {
  return s.count === 1 || inShardHashed(createHash("sha256").update(path).digest(), s);
}

/** inShard, given the path's SHA-256 (merge hashes each path once, for this and for its set of bundles). */
export const inShardHashed = (sha256: Uint8Array, s: Shard): boolean =>
  s.count === 1 || new DataView(sha256.buffer, sha256.byteOffset).getUint32(0) % s.count === s.index;

/**
 * issue 35: what makes shards one scan. Each shard walks every folder below the roots (then keeps
 * its partition), so each hashes the same list of bundles found; and the id, when --scan-id gives
 * none, derives from the roots, the options and that list. A derived id tells apart scans of other
 * bundles, roots or options, never two scans of the same list (an older shard replayed): for that,
 * each scan is given its own id (slurm-script gives one per submission).
 */
export class ScanListing {
  private readonly hash = createHash("sha256");

  /** A bundle found (in or out of this shard): its path, kind and, for a log file, its size. */
  found(path: string, kind: string, size: number | undefined): void {
    this.hash.update(`${JSON.stringify([path, kind, size ?? null])}\n`);
  }

  scan(given: string | undefined, roots: readonly string[], options: unknown): Scan {
    const found = this.hash.digest("hex");
    if (given !== undefined) return { id: given, given: true, found };
    const derived = createHash("sha256")
      .update(JSON.stringify([roots, options, found]))
      .digest("hex");
    return { id: `derived-${derived.slice(0, 32)}`, given: false, found };
  }
}

/** --scan-id: printable ASCII without spaces, short (it is said in messages and kept in every document). */
export function parseScanId(id: string): string {
  if (!/^[\x21-\x7e]{1,128}$/.test(id))
    throw new UsageError(
      `--scan-id takes 1 to 128 printable ASCII characters without spaces (got ${JSON.stringify(id.slice(0, 140))})`,
    );
  return id;
}
