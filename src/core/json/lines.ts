// Streaming JSONL framing (contract §2): splits chunks into lines, hashes each line as written
// (for the `prev` chain) and the whole file, and never holds more than one capped line.

import { isAscii } from "node:buffer";
import { createHash, hash as oneShot, type Hash } from "node:crypto";

const sha256Hex = (b: Uint8Array): string => oneShot("sha256", b, "hex");
const plain = (b: Buffer | null): boolean => b !== null && isAscii(b) && b.indexOf(0x0d) === -1;

export const MAX_LINE_BYTES = 1024 * 1024; // including the \n

export interface RawLine {
  /** 1-based line number. */
  number: number;
  /** The line's bytes without its \n; null when the line is over the cap (not retained). */
  bytes: Buffer | null;
  /** Bytes in the line, without its \n. */
  length: number;
  /** SHA-256 hex of the line's bytes as written, without its \n. */
  digest: string;
  /** False for a torn tail: a last line without \n. */
  terminated: boolean;
  /**
   * The line is ASCII without \r: its §2 encoding holds (ASCII is valid UTF-8 and holds no BOM) and
   * it decodes as Latin-1. Checked once per chunk: a line inside a chunk that passed needs no check
   * of its own. False for a line over the cap.
   */
  ascii: boolean;
}

/**
 * Split a stream of chunks into lines. The consumer must finish with a line before asking for
 * the next one (chunks may be reused buffers).
 */
export function* splitLines(chunks: Iterable<Uint8Array>): Generator<RawLine> {
  let number = 0;
  let parts: Buffer[] = [];
  let length = 0;
  let hash: Hash | null = null;
  const start = () => (hash ??= createHash("sha256"));

  for (const chunk of chunks) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const ascii = plain(buf);
    let from = 0;
    while (from < buf.length) {
      const nl = buf.indexOf(0x0a, from);
      const end = nl === -1 ? buf.length : nl;
      const piece = buf.subarray(from, end);
      if (piece.length > 0) {
        if (length + piece.length < MAX_LINE_BYTES) parts.push(piece);
        else parts = [];
        length += piece.length;
      }
      if (nl === -1) {
        if (piece.length > 0) start().update(piece);
        // Keep an unfinished line across a chunk boundary: the caller may reuse the chunk.
        if (parts.length > 0 && parts[parts.length - 1] === piece) parts[parts.length - 1] = Buffer.from(piece);
        break;
      }
      number++;
      const over = length + 1 > MAX_LINE_BYTES;
      const bytes = over ? null : parts.length === 1 ? parts[0]! : Buffer.concat(parts, length);
      // A line inside one chunk is hashed in one shot (no Hash object): the common case.
      const partial = hash as Hash | null; // set by start() when the line began in an earlier chunk
      const digest = partial === null ? sha256Hex(piece) : partial.update(piece).digest("hex");
      yield { number, bytes, length, digest, terminated: true, ascii: (ascii && partial === null) || plain(bytes) };
      parts = [];
      length = 0;
      hash = null;
      from = nl + 1;
    }
  }
  if (hash !== null || length > 0) {
    number++;
    const bytes = length + 1 > MAX_LINE_BYTES ? null : Buffer.concat(parts, length);
    yield { number, bytes, length, digest: start().digest("hex"), terminated: false, ascii: plain(bytes) };
  }
}
