// Writing ZIP archives as Inspect's recorder does (for synthesised .eval logs): members one at a
// time, stored, Deflate or zstd (method 93, in one frame or several), the central directory at
// the end, ZIP64 records when asked for. Effects: an output function the caller provides, so a
// log of a gigabyte is written a member at a time.

import * as zlib from "node:zlib";
import { compress as zstdCompress, init as zstdInit } from "@bokuweb/zstd-wasm";

export type Method = 0 | 8 | 93;

/** zstd's encoder is WebAssembly, made ready once before the first zstd member. */
let zstdReady = false;
export async function readyZstd(): Promise<void> {
  if (!zstdReady) await zstdInit();
  zstdReady = true;
}

/** CRC-32 (zlib's own where Node has it; a table otherwise, as the reader does). */
const crcTable = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
export const crc32 = (b: Uint8Array): number => {
  const native = (zlib as { crc32?: (b: Uint8Array) => number }).crc32;
  if (native !== undefined) return native(b);
  let c = -1;
  for (let i = 0; i < b.length; i++) c = crcTable[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
};

/** Compress a member's bytes; zstd in `frames` frames (Inspect splits members past 200 MiB so). */
export function compressed(data: Uint8Array, method: Method, frames = 1): Uint8Array {
  if (method === 0) return data;
  if (method === 8) return zlib.deflateRawSync(data, { level: 5 });
  if (!zstdReady) throw new Error("readyZstd() must be awaited before writing zstd members");
  const step = Math.ceil(data.length / frames) || 1;
  const parts: Uint8Array[] = [];
  for (let at = 0; at < data.length || parts.length === 0; at += step)
    parts.push(zstdCompress(data.subarray(at, at + step), 3));
  return Buffer.concat(parts);
}

/** What a member's entry may override (see ZipWriter.add). */
export interface MemberOptions {
  frames?: number;
  crc?: number;
  localName?: string;
  body?: Uint8Array;
  usize?: number;
}

interface Written {
  name: Buffer;
  method: Method;
  crc: number;
  csize: number;
  usize: number;
  offset: number;
}

/** An archive being written: `add` members, then `end` (or not: a killed writer). */
export class ZipWriter {
  private offset = 0;
  private readonly written: Written[] = [];

  constructor(
    private readonly out: (b: Uint8Array) => void,
    private readonly zip64 = false,
  ) {}

  private emit(b: Uint8Array): void {
    this.out(b);
    this.offset += b.length;
  }

  /**
   * A member; the options override what is written (for corrupt and hostile fixtures): `body` the
   * compressed bytes as they are (`data` then only gives the CRC and size), `usize` the declared
   * uncompressed size, `crc`, `localName`.
   */
  add(name: string, data: Uint8Array, method: Method, o: MemberOptions = {}): void {
    const body = o.body ?? compressed(data, method, o.frames);
    const w: Written = {
      name: Buffer.from(name, "utf8"),
      method,
      crc: o.crc ?? crc32(data),
      csize: body.length,
      usize: o.usize ?? data.length,
      offset: this.offset,
    };
    const localName = o.localName === undefined ? w.name : Buffer.from(o.localName, "utf8");
    const extra = this.zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
    if (this.zip64) {
      extra.writeUInt16LE(1, 0);
      extra.writeUInt16LE(16, 2);
      extra.writeBigUInt64LE(BigInt(w.usize), 4);
      extra.writeBigUInt64LE(BigInt(w.csize), 12);
    }
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(this.zip64 ? 45 : 20, 4);
    h.writeUInt16LE(0x800, 6);
    h.writeUInt16LE(method, 8);
    h.writeUInt32LE(w.crc, 14);
    h.writeUInt32LE(this.zip64 ? 0xffffffff : w.csize, 18);
    h.writeUInt32LE(this.zip64 ? 0xffffffff : w.usize, 22);
    h.writeUInt16LE(localName.length, 26);
    h.writeUInt16LE(extra.length, 28);
    this.emit(Buffer.concat([h, localName, extra]));
    this.emit(body);
    this.written.push(w);
  }

  /** The central directory and its end record(s). */
  end(): void {
    const start = this.offset;
    for (const w of this.written) {
      const extra = this.zip64 ? Buffer.alloc(28) : Buffer.alloc(0);
      if (this.zip64) {
        extra.writeUInt16LE(1, 0);
        extra.writeUInt16LE(24, 2);
        extra.writeBigUInt64LE(BigInt(w.usize), 4);
        extra.writeBigUInt64LE(BigInt(w.csize), 12);
        extra.writeBigUInt64LE(BigInt(w.offset), 20);
      }
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE(0x031e, 4);
      h.writeUInt16LE(this.zip64 ? 45 : 20, 6);
      h.writeUInt16LE(0x800, 8);
      h.writeUInt16LE(w.method, 10);
      h.writeUInt32LE(w.crc, 16);
      h.writeUInt32LE(this.zip64 ? 0xffffffff : w.csize, 20);
      h.writeUInt32LE(this.zip64 ? 0xffffffff : w.usize, 24);
      h.writeUInt16LE(w.name.length, 28);
      h.writeUInt16LE(extra.length, 30);
      h.writeUInt32LE(this.zip64 ? 0xffffffff : w.offset, 42);
      this.emit(Buffer.concat([h, w.name, extra]));
    }
    const size = this.offset - start;
    const n = this.written.length;
    // As Python's zipfile: ZIP64 end records when asked for, or when the counts or offsets need them.
    const big = this.zip64 || n >= 0xffff || start >= 0xffffffff || size >= 0xffffffff;
    if (big) {
      const rec = Buffer.alloc(56);
      rec.writeUInt32LE(0x06064b50, 0);
      rec.writeBigUInt64LE(44n, 4);
      rec.writeUInt16LE(45, 12);
      rec.writeUInt16LE(45, 14);
      rec.writeBigUInt64LE(BigInt(n), 24);
      rec.writeBigUInt64LE(BigInt(n), 32);
      rec.writeBigUInt64LE(BigInt(size), 40);
      rec.writeBigUInt64LE(BigInt(start), 48);
      const at = this.offset;
      this.emit(rec);
      const loc = Buffer.alloc(20);
      loc.writeUInt32LE(0x07064b50, 0);
      loc.writeBigUInt64LE(BigInt(at), 8);
      loc.writeUInt32LE(1, 16);
      this.emit(loc);
    }
    const e = Buffer.alloc(22);
    e.writeUInt32LE(0x06054b50, 0);
    e.writeUInt16LE(big ? 0xffff : n, 8);
    e.writeUInt16LE(big ? 0xffff : n, 10);
    e.writeUInt32LE(big ? 0xffffffff : size, 12);
    e.writeUInt32LE(big ? 0xffffffff : start, 16);
    this.emit(e);
  }
}

/** A whole archive in memory (small logs, tests). */
export function zipBytes(
  members: readonly ({ name: string; data: Uint8Array; method: Method } & MemberOptions)[],
  o: { zip64?: boolean; end?: boolean } = {},
): Buffer {
  const parts: Uint8Array[] = [];
  const w = new ZipWriter((b) => parts.push(b), o.zip64 ?? false);
  for (const m of members) w.add(m.name, m.data, m.method, m);
  if (o.end !== false) w.end();
  return Buffer.concat(parts);
}
