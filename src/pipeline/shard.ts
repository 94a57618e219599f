// Sharding (`--shard i/n`): a partition of bundles by a hash of their results path. It reads no
// file, so every machine agrees on the partition from the paths alone.

import { createHash } from "node:crypto";
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
export const inShardHashed = (sha256: Uint8Array, s: Shard): boolean => s.count === 1 || new DataView(sha256.buffer, sha256.byteOffset).getUint32(0) % s.count === s.index;
