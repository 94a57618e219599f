// A large member streamed (issue 40 §4): its bytes handed over a piece at a time as they are
// decoded, never held whole, for readers that only walk a member (triage's summaries.json). The
// checks are withMember's (zip.ts): the same refusals before a byte is decoded, the decoded size
// and CRC-32 counted as the pieces pass. A streamed piece is the reader's to keep.
//
// zstd streams through fzstd (pure JavaScript, streaming; ~3 times slower than the WebAssembly
// zstd of zstd.ts, which decodes only in one shot, so small members keep that). Deflate streams
// through Node's zlib stream, which is asynchronous (its synchronous API is one-shot only).

import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createInflateRaw } from "node:zlib";
import { Decompress } from "fzstd";
import { checkDeclared, walkFramesBy, ZstdError } from "../../io/zstd.js";
import { crc32, MAX_MEMBER_BYTES, MemberError, memberBody, readInto, withMember, type ZipMember } from "./zip.js";

/**
 * Members this large or larger are streamed; smaller ones are decoded in one shot, which is faster
 * (fzstd is ~3 times slower than the WebAssembly zstd) and bounded: csize + usize in the decoder's
 * memory, given back after the member. Measured on the 100,000-sample log (a 65 MB summaries.json):
 * streamed, triage was ~30 % slower and its peak RSS no lower, being then set by the checks that
 * follow (docs/development.md); past 64 MiB the one-shot decode sets the peak.
 */
export const STREAM_FROM = 64 * 1024 * 1024;
/** Compressed bytes read at a time. */
const CHUNK = 1024 * 1024;
/**
 * The largest zstd window streamed: fzstd holds one window (and follows matches no further back
 * than 2^25). A frame declaring more is decoded in one shot, bounded by its declared size as before.
 */
export const STREAM_WINDOW = 2 ** 25;

export interface StreamOptions {
  /** A Date.now() time: past it, TIMEOUT. */
  until?: number;
  /** The largest member read (FILE_TOO_LARGE past it): MAX_MEMBER_BYTES unless the reader streams more. */
  limit?: number;
  /** Members this large or larger are streamed (STREAM_FROM; tests stream small ones). */
  streamFrom?: number;
  /** After the last piece, the member checked: a reader finishes here (a piece of a member decoded whole is valid until this returns). */
  end?: () => void;
}

/** What `use` threw, carried past the decoders' own error handling. */
class FromUse {
  constructor(readonly error: unknown) {}
}

/**
 * Hand `m`'s decoded bytes to `use` a piece at a time, checked as withMember checks them
 * (MemberError: EVAL_CORRUPT, EVAL_METHOD, FILE_TOO_LARGE past `limit`), or TIMEOUT once `until`
 * (a Date.now() time) has passed. A streamed member may be larger than one held whole
 * (MAX_MEMBER_BYTES): never held, it costs time, bounded by `until`, not memory. One smaller than
 * `streamFrom` is decoded whole, then handed over in pieces: views of the decoder's memory, valid
 * until `end` returns (a reader that keeps a piece past it copies it).
 * The CRC-32 and size are known only at the end: a reader drops what it made of a member that fails.
 */
export async function streamMember(
  fd: number,
  size: number,
  m: ZipMember,
  use: (piece: Buffer) => void,
  o: StreamOptions = {},
): Promise<void> {
  const { until = Infinity, limit = MAX_MEMBER_BYTES, streamFrom = STREAM_FROM, end } = o;
  const start = memberBody(fd, size, m, limit);
  let made = 0;
  let crc = 0;
  const finish = (): void => {
    try {
      end?.();
    } catch (e) {
      throw new FromUse(e);
    }
  };
  const take = (piece: Buffer): void => {
    made += piece.length;
    if (made > m.usize)
      throw new MemberError("EVAL_CORRUPT", `${m.name} inflates to more than the ${m.usize} bytes the directory says`);
    if (Date.now() > until) throw new MemberError("TIMEOUT", `${m.name}: still decoding when its time ran out`);
    crc = crc32(piece, crc);
    try {
      use(piece);
    } catch (e) {
      throw new FromUse(e);
    }
  };
  try {
    const frames = m.usize < streamFrom || m.method !== 93 ? null : zstdFrames(fd, start, m, limit);
    if (m.usize < streamFrom || (m.method === 93 && frames === null)) {
      // one shot: the pieces are views of the decoder's memory, valid until `end` returns (never copied)
      withMember(fd, size, m, (bytes) => {
        for (let at = 0; at < bytes.length; at += CHUNK) take(bytes.subarray(at, at + CHUNK));
        finish();
      });
      return;
    }
    if (m.method === 0)
      for (let at = 0; at < m.csize; at += CHUNK) {
        const piece = Buffer.allocUnsafe(Math.min(CHUNK, m.csize - at));
        if (readInto(fd, piece, start + at) < piece.length)
          throw new MemberError("EVAL_CORRUPT", `${m.name}: the file ended before its bytes did`);
        take(piece);
      }
    else if (m.method === 8) await inflated(fd, start, m, take);
    else
      // A frame at a time, each held to the size it declares (fzstd does not hold a frame to it).
      for (let f = 0; f < frames!.length; f += 3) {
        const [from, to, declared] = [frames![f]!, frames![f + 1]!, frames![f + 2]!];
        const before = made;
        const z = new Decompress((b) => take(Buffer.from(b.buffer, b.byteOffset, b.length)));
        for (let at = from; at < to; at += CHUNK) {
          // a fresh piece each time: fzstd keeps a block cut by a piece's end as a view of it
          const piece = Buffer.allocUnsafe(Math.min(CHUNK, to - at));
          if (readInto(fd, piece, start + at) < piece.length)
            throw new ZstdError("the file ended before its bytes did");
          z.push(piece, at + piece.length >= to);
        }
        if (made - before !== declared)
          throw new ZstdError(`the frame at byte ${from} makes ${made - before} bytes; it declares ${declared}`);
      }
  } catch (e) {
    if (e instanceof FromUse) throw e.error;
    if (e instanceof MemberError) throw e;
    if (/^E[A-Z]+$/.test((e as NodeJS.ErrnoException).code ?? "")) throw e; // the file system's, not the bytes'
    throw new MemberError("EVAL_CORRUPT", `${m.name} does not inflate: ${(e as Error).message}`);
  }
  if (made !== m.usize)
    throw new MemberError("EVAL_CORRUPT", `${m.name} inflates to ${made} bytes; the directory says ${m.usize}`);
  if (crc !== m.crc)
    throw new MemberError(
      "EVAL_CORRUPT",
      `${m.name}: CRC-32 ${crc.toString(16).padStart(8, "0")}, the directory says ${m.crc.toString(16).padStart(8, "0")}`,
    );
  try {
    finish();
  } catch (e) {
    throw (e as FromUse).error;
  }
}

/** The most frames a member streams with (their bounds held, three numbers each); more is decoded in one shot. */
const MAX_STREAMED_FRAMES = 1 << 16;

/**
 * The frames of a zstd member that streams, as [start, end, declared size] triples, or null where
 * it is decoded in one shot: its frames walked in the file (as decodeZstdInPlace walks them in
 * memory, the same refusals), each window at most STREAM_WINDOW, each declaring its size (held to
 * it as it is decoded), none with a checksum or a dictionary. fzstd skips a frame's checksum and
 * dictionary ID and does not hold a frame to its declared size, which the one-shot decoder refuses
 * (a review): a member it would not check as strictly is decoded in one shot, as score decodes it.
 */
function zstdFrames(fd: number, start: number, m: ZipMember, limit: number): number[] | null {
  const cache = Buffer.allocUnsafe(64 * 1024);
  let from = 0;
  let held = 0;
  const byte = (i: number): number => {
    if (i < from || i >= from + held) {
      from = i;
      held = readInto(fd, cache.subarray(0, Math.min(cache.length, m.csize - i)), start + i);
      if (held === 0) throw new ZstdError("the file ended before its bytes did");
    }
    return cache[i - from]!;
  };
  const frames: number[] = [];
  let sized = true;
  const w = walkFramesBy(m.csize, byte, limit, (a, b, size) => {
    if (size === null) sized = false;
    else if (frames.length < 3 * MAX_STREAMED_FRAMES) frames.push(a, b, size);
  });
  checkDeclared(w, m.usize);
  const streams =
    sized && w.frames <= MAX_STREAMED_FRAMES && w.window <= STREAM_WINDOW && !w.checksummed && !w.dictionary;
  return streams ? frames : null;
}

/**
 * A Deflate member through zlib's stream, its compressed bytes read a chunk at a time from `fd`
 * (not an fs stream: destroyed on an error, one closes the descriptor, which is the caller's).
 */
async function inflated(fd: number, start: number, m: ZipMember, take: (piece: Buffer) => void): Promise<void> {
  function* compressedBytes(): Generator<Buffer> {
    for (let at = 0; at < m.csize; at += CHUNK) {
      const piece = Buffer.allocUnsafe(Math.min(CHUNK, m.csize - at));
      if (readInto(fd, piece, start + at) < piece.length)
        throw new MemberError("EVAL_CORRUPT", `${m.name}: the file ended before its bytes did`);
      yield piece;
    }
  }
  await pipeline(Readable.from(compressedBytes()), createInflateRaw(), async (pieces: AsyncIterable<Buffer>) => {
    for await (const piece of pieces) take(piece);
  });
}
