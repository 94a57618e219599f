// A .eval log (an Inspect ZIP archive) read in place, by its central directory (ZIP64 too), a
// member at a time (contract §12): CRC-32 and sizes checked, stored, Deflate and zstd (every
// frame) members inflated, a repeated name resolved to its last entry. A file with no end of
// central directory is a killed or partial writer: its local entries are read as far as they are
// intact. Synchronous reads by offset, so a worker can read any range of members on its own.
//
// Hand-written rather than yauzl: yauzl refuses an archive without its end record (the case
// Inspect's killed writers leave), reads asynchronously through streams, and decodes neither
// zstd nor checks CRC-32; what is needed here is small (the records are fixed layouts).

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import * as zlib from "node:zlib";
import { finding, type Code, type Finding } from "../../core/codes.js";
import { decodeZstdInPlace, ZstdError } from "../../io/zstd.js";

export interface ZipMember {
  name: string;
  /** The name's bytes as Latin-1 text: compared byte for byte with the local header's. */
  raw: string;
  method: number;
  flags: number;
  crc: number;
  csize: number;
  usize: number;
  /** Offset of its local header. */
  offset: number;
}

export interface ZipDirectory {
  /** Members by name, the last entry of a repeated name winning, in the order of their last entries. */
  members: ZipMember[];
  /** No end of central directory: the local entries were walked instead. */
  truncated: boolean;
  findings: Finding[];
  size: number;
}

/** The largest member assay inflates (a member is held whole while its JSON is read). */
export const MAX_MEMBER_BYTES = 256 * 1024 * 1024;

/**
 * The decoded bytes one log may make, all its members together: 64 times its file's size and
 * 16 MiB, at most 32 GiB. Real logs decode to 3–13 times their file (the fifteen real .eval under
 * shared/real-world: 3.0–12.6; their most compressible member 24.5), so 64 leaves five times the
 * most compressible of them; the 16 MiB lets a small log through whatever its ratio; the ceiling
 * bounds the work of one log (minutes of decoding, whatever its size). Members each within their
 * own limits can otherwise make a 98 KB log decode gigabytes (zstd: 128 KiB per 4 bytes).
 */
export const DECODE_RATIO = 64;
export const DECODE_SPARE = 16 * 1024 * 1024;
export const MAX_DECODED_BYTES = 32 * 1024 * 1024 * 1024;
export const decodeBudget = (fileSize: number): number =>
  Math.min(MAX_DECODED_BYTES, DECODE_SPARE + DECODE_RATIO * fileSize);

/**
 * Why reading `members` of a log of `fileSize` bytes is past its budget (FILE_TOO_LARGE: the tool's
 * limit), or null. Checked from the sizes members declare, before anything is decoded: no decoder
 * writes past a member's declared size, so what is declared is what decoding can cost. A member
 * withMember refuses before decoding (a lie, an unknown method, one over MAX_MEMBER_BYTES) costs
 * nothing and keeps its own finding: a lying log stays EVAL_CORRUPT, never becomes the tool's error.
 */
export function overDecodeBudget(members: readonly ZipMember[], fileSize: number, streamed = 0): string | null {
  // `streamed`: bytes a reader streams past MAX_MEMBER_BYTES (triage's summaries.json), counted too
  let declared = streamed;
  for (const m of members) if (decodable(m)) declared += m.usize;
  const budget = decodeBudget(fileSize);
  return declared <= budget
    ? null
    : `its members declare ${declared} bytes uncompressed, more than assay decodes for a log of ${fileSize} bytes (${budget}: ${DECODE_RATIO} times its size and ${DECODE_SPARE}, at most ${MAX_DECODED_BYTES})`;
}

/**
 * The most compressed bytes a member of `usize` bytes can take: stored is exact; Deflate and zstd
 * add at most a few bytes per block (zlib's deflateBound, ZSTD_compressBound: well under 1 %), so
 * 3 % and a kilobyte is generous. More is corrupt, and is never read.
 */
export const maxCompressed = (method: number, usize: number): number =>
  method === 0 ? usize : usize + Math.ceil(usize / 32) + 1024;

/**
 * The most a member's compressed bytes can inflate to: stored is exact; Deflate's ratio is at most
 * 1032:1 (a 258-byte match in two bits); zstd's block outputs at most 128 KiB and takes at least 4
 * bytes (a 3-byte header and one RLE byte). A larger declared size is a lie, not a large member.
 */
export const maxInflated = (method: number, csize: number): number =>
  method === 0 ? csize : method === 8 ? csize * 1032 + 1024 : Math.ceil(csize / 4) * 128 * 1024;

/** Is its method one assay reads, and are its sizes consistent (neither a lie the other refutes)? */
export const sizesHold = (m: ZipMember): boolean =>
  [0, 8, 93].includes(m.method) &&
  m.usize <= maxInflated(m.method, m.csize) &&
  m.csize <= maxCompressed(m.method, m.usize);

/** Would withMember decode it (its method read, its sizes consistent, within MAX_MEMBER_BYTES)? */
const decodable = (m: ZipMember): boolean => sizesHold(m) && m.usize <= MAX_MEMBER_BYTES;

/** A central directory entry is 46 bytes and a name, an extra field and a comment of at most 65,535 each. */
const MAX_ENTRY_BYTES = 46 + 3 * 0xffff;
/** The central directory is read this much at a time. */
const CD_CHUNK = 1024 * 1024;

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_EOCD64 = 0x06064b50;
const SIG_LOCATOR64 = 0x07064b50;
const SIGNATURE_PREFIX = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** A member that cannot be read: the evidence's fault (EVAL_CORRUPT) or the tool's (EVAL_METHOD, FILE_TOO_LARGE). */
export class MemberError extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}

/** Fill `into` from byte `pos` of the file; how many bytes it holds (fewer at the file's end). */
export function readInto(fd: number, into: Uint8Array, pos: number): number {
  let at = 0;
  while (at < into.length) {
    const n = readSync(fd, into, at, into.length - at, pos + at);
    if (n === 0) break;
    at += n;
  }
  return at;
}

function readAt(fd: number, pos: number, length: number): Buffer {
  if (!Number.isSafeInteger(pos) || pos < 0) return Buffer.alloc(0);
  const buf = Buffer.allocUnsafe(length);
  const at = readInto(fd, buf, pos);
  return at === length ? buf : buf.subarray(0, at);
}

const u64 = (b: Buffer, at: number): number => Number(b.readBigUInt64LE(at));

/** A region of the file (the central directory) read a chunk at a time, never whole. */
class Chunks {
  private buf: Buffer = Buffer.alloc(0);
  private start = 0;
  constructor(
    private readonly fd: number,
    private readonly base: number,
    private readonly size: number,
  ) {}

  /** Bytes [at, at + n) of the region, or null when they are not all in it (or in the file). */
  get(at: number, n: number): Buffer | null {
    if (at + n > this.size) return null;
    if (at < this.start || at + n > this.start + this.buf.length) {
      this.buf = readAt(this.fd, this.base + at, Math.min(Math.max(CD_CHUNK, n), this.size - at));
      this.start = at;
      if (this.buf.length < n) return null;
    }
    return this.buf.subarray(at - this.start, at - this.start + n);
  }
}

/** ZIP64 extra field (id 1): the 64-bit values of the fields that are 0xFFFFFFFF, in order. */
function zip64(
  extra: Buffer,
  wanted: ("usize" | "csize" | "offset")[],
): Partial<Record<"usize" | "csize" | "offset", number>> {
  for (let i = 0; i + 4 <= extra.length;) {
    const id = extra.readUInt16LE(i);
    const len = extra.readUInt16LE(i + 2);
    if (id === 1) {
      const out: Partial<Record<"usize" | "csize" | "offset", number>> = {};
      let at = i + 4;
      for (const w of wanted) {
        if (at + 8 > Math.min(i + 4 + len, extra.length)) break; // a field cut short by its length or the extra field's end
        out[w] = u64(extra, at);
        at += 8;
      }
      return out;
    }
    i += 4 + len;
  }
  return {};
}

const nameOf = (raw: Buffer, flags: number): string =>
  raw.toString(flags & 0x800 || raw.every((c) => c < 0x80) ? "utf8" : "latin1");

/** The last entry of each name wins (Inspect's deliberate superseding since 0.3.252); earlier ones are a warning. */
function resolve(entries: ZipMember[], findings: Finding[]): ZipMember[] {
  const last = new Map<string, number>();
  entries.forEach((m, i) => last.set(m.name, i));
  const repeated = new Map<string, number>();
  for (const m of entries) repeated.set(m.name, (repeated.get(m.name) ?? 0) + 1);
  for (const [name, n] of repeated)
    if (n > 1)
      findings.push(
        finding("MEMBER_DUPLICATE", name, null, `${n} entries of this name; the last is read (as Inspect reads it)`),
      );
  return entries.filter((m, i) => last.get(m.name) === i);
}

/** The archive's directory: from its end record when there is one, else by walking its local entries. */
export function readDirectory(file: string): ZipDirectory {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const findings: Finding[] = [];
    const head = readAt(fd, 0, Math.min(4, size));
    if (!SIGNATURE_PREFIX.subarray(0, head.length).equals(head)) {
      findings.push(
        finding(
          "EVAL_CORRUPT",
          null,
          null,
          "not a ZIP archive: it does not start with a local file header (PK\\x03\\x04)",
        ),
      );
      return { members: [], truncated: false, findings, size };
    }
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = readAt(fd, size - tailLength, tailLength);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--)
      if (tail.readUInt32LE(i) === SIG_EOCD && i + 22 + tail.readUInt16LE(i + 20) === tail.length) {
        eocd = i;
        break;
      }
    if (eocd === -1) return walkLocal(fd, size, findings);
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    const locAt = eocd - 20;
    if (
      (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) &&
      locAt >= 0 &&
      tail.readUInt32LE(locAt) === SIG_LOCATOR64
    ) {
      const recAt = u64(tail, locAt + 8);
      const rec = recAt + 56 <= size ? readAt(fd, recAt, 56) : Buffer.alloc(0);
      if (rec.length < 56 || rec.readUInt32LE(0) !== SIG_EOCD64) {
        findings.push(
          finding(
            "EVAL_CORRUPT",
            null,
            null,
            "the ZIP64 end of central directory record is not where its locator says",
          ),
        );
        return { members: [], truncated: false, findings, size };
      }
      count = u64(rec, 32);
      cdSize = u64(rec, 40);
      cdOffset = u64(rec, 48);
    }
    const corrupt = (message: string): ZipDirectory => {
      findings.push(finding("EVAL_CORRUPT", null, null, message));
      return { members: [], truncated: false, findings, size };
    };
    if (cdOffset + cdSize > size)
      return corrupt(`the central directory (${cdSize} bytes at ${cdOffset}) lies outside the file (${size} bytes)`);
    // What the end record says is checked against what its entry count can need before anything
    // is read, and the directory is then read a chunk at a time: a lying record costs nothing.
    if (cdSize > count * MAX_ENTRY_BYTES)
      return corrupt(
        `the end record says the central directory is ${cdSize} bytes, more than its ${count} entr${count === 1 ? "y" : "ies"} can need (${count * MAX_ENTRY_BYTES})`,
      );
    if (count * 46 > cdSize)
      return corrupt(`the end record says ${count} entries, more than its ${cdSize}-byte central directory can hold`);
    const cd = new Chunks(fd, cdOffset, cdSize);
    const entries: ZipMember[] = [];
    let at = 0;
    for (let i = 0; i < count; i++) {
      const fixed = cd.get(at, 46);
      if (fixed === null || fixed.readUInt32LE(0) !== SIG_CENTRAL) {
        findings.push(finding("EVAL_CORRUPT", null, null, `central directory entry ${i + 1} of ${count} is malformed`));
        break;
      }
      const flags = fixed.readUInt16LE(8);
      const n = fixed.readUInt16LE(28);
      const e = fixed.readUInt16LE(30);
      const c = fixed.readUInt16LE(32);
      const method = fixed.readUInt16LE(10);
      const crc = fixed.readUInt32LE(16);
      let csize = fixed.readUInt32LE(20);
      let usize = fixed.readUInt32LE(24);
      let offset = fixed.readUInt32LE(42);
      const rest = cd.get(at + 46, n + e);
      if (rest === null) {
        findings.push(
          finding(
            "EVAL_CORRUPT",
            null,
            null,
            `central directory entry ${i + 1} of ${count} runs past the end of the directory`,
          ),
        );
        break;
      }
      const rawName = Buffer.from(rest.subarray(0, n));
      const wanted = (
        [
          ["usize", usize],
          ["csize", csize],
          ["offset", offset],
        ] as const
      )
        .filter(([, v]) => v === 0xffffffff)
        .map(([k]) => k);
      if (wanted.length > 0) {
        const big = zip64(rest.subarray(n, n + e), wanted);
        usize = big.usize ?? usize;
        csize = big.csize ?? csize;
        offset = big.offset ?? offset;
      }
      entries.push({
        name: nameOf(rawName, flags),
        raw: rawName.toString("latin1"),
        method,
        flags,
        crc,
        csize,
        usize,
        offset,
      });
      at += 46 + n + e + c;
    }
    return { members: resolve(entries, findings), truncated: false, findings, size };
  } finally {
    closeSync(fd);
  }
}

/**
 * No end record: walk the local entries from the start. What is a prefix of a valid archive is a
 * killed or partial writer (EVAL_TRUNCATED, the cut last member ignored); anything else is corrupt.
 */
function walkLocal(fd: number, size: number, findings: Finding[]): ZipDirectory {
  const entries: ZipMember[] = [];
  let pos = 0;
  let cut = false;
  while (pos < size) {
    const h = readAt(fd, pos, 30);
    const sig = h.length >= 4 ? h.readUInt32LE(0) : -1;
    if (sig === SIG_CENTRAL) {
      cut = true; // the central directory began, its end record never came
      break;
    }
    if (h.length < 30) {
      if (SIGNATURE_PREFIX.subarray(0, Math.min(4, h.length)).equals(h.subarray(0, 4)) || sig === SIG_LOCAL) cut = true;
      else findings.push(finding("EVAL_CORRUPT", null, null, `no local file header at byte ${pos}`));
      break;
    }
    if (sig !== SIG_LOCAL) {
      findings.push(
        finding("EVAL_CORRUPT", null, null, `no local file header at byte ${pos}, and no end of central directory`),
      );
      break;
    }
    const flags = h.readUInt16LE(6);
    const n = h.readUInt16LE(26);
    const e = h.readUInt16LE(28);
    const names = readAt(fd, pos + 30, n + e);
    if (names.length < n + e) {
      cut = true;
      break;
    }
    let csize = h.readUInt32LE(18);
    let usize = h.readUInt32LE(22);
    if (csize === 0xffffffff || usize === 0xffffffff) {
      const big = zip64(names.subarray(n), ["usize", "csize"]);
      usize = big.usize ?? usize;
      csize = big.csize ?? csize;
    }
    if (flags & 0x8) {
      findings.push(
        finding(
          "EVAL_CORRUPT",
          null,
          null,
          `the member at byte ${pos} sizes itself in a data descriptor: without the central directory it cannot be walked past`,
        ),
      );
      break;
    }
    const end = pos + 30 + n + e + csize;
    if (end > size) {
      cut = true; // the last member, cut short: ignored
      break;
    }
    const raw = names.subarray(0, n);
    entries.push({
      name: nameOf(raw, flags),
      raw: raw.toString("latin1"),
      method: h.readUInt16LE(8),
      flags,
      crc: h.readUInt32LE(14),
      csize,
      usize,
      offset: pos,
    });
    pos = end;
  }
  if (pos >= size && !cut && findings.length === 0) cut = true; // every entry intact, the directory never written
  if (cut)
    findings.push(
      finding(
        "EVAL_TRUNCATED",
        null,
        null,
        `no end of central directory: a killed or partial writer; ${entries.length} intact member${entries.length === 1 ? "" : "s"} read, a cut last one ignored`,
      ),
    );
  return { members: resolve(entries, findings), truncated: cut, findings, size };
}

/** CRC-32 (zlib's own where Node has it, 20.15 and later; a table otherwise), continued from `prev`. */
export const crc32: (b: Uint8Array, prev?: number) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === "function"
    ? // an empty piece continues nothing: Node's crc32 of no bytes is 0 whatever `prev` is
      (b, prev = 0) =>
        b.length === 0 ? prev : (zlib as unknown as { crc32(b: Uint8Array, v: number): number }).crc32(b, prev)
    : (() => {
        const table = new Int32Array(256).map((_, n) => {
          let c = n;
          for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
          return c;
        });
        return (b: Uint8Array, prev = 0) => {
          let c = ~prev;
          for (let i = 0; i < b.length; i++) c = table[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
          return (c ^ -1) >>> 0;
        };
      })();

/**
 * withMember's checks of a member before a byte of it is decoded (its method, its sizes against
 * each other and `limit`, its local header): where its compressed bytes start. The limit is
 * MAX_MEMBER_BYTES for a member held whole; a streamed one (zip-stream.ts) may be given more.
 */
export function memberBody(fd: number, size: number, m: ZipMember, limit = MAX_MEMBER_BYTES): number {
  if (![0, 8, 93].includes(m.method))
    throw new MemberError(
      "EVAL_METHOD",
      `${m.name}: compression method ${m.method} (assay reads stored, Deflate and zstd)`,
    );
  if (m.usize > maxInflated(m.method, m.csize))
    throw new MemberError(
      "EVAL_CORRUPT",
      `${m.name}: ${m.usize} bytes uncompressed declared, more than its ${m.csize} compressed bytes can hold (at most ${maxInflated(m.method, m.csize)})`,
    );
  if (m.csize > maxCompressed(m.method, m.usize))
    throw new MemberError(
      "EVAL_CORRUPT",
      m.method === 0
        ? `${m.name}: stored, but ${m.csize} bytes for ${m.usize} uncompressed`
        : `${m.name}: ${m.csize} compressed bytes for ${m.usize} uncompressed, more than any encoder makes (at most ${maxCompressed(m.method, m.usize)})`,
    );
  const h = m.offset + 30 <= size ? readAt(fd, m.offset, 30) : Buffer.alloc(0);
  if (h.length < 30 || h.readUInt32LE(0) !== SIG_LOCAL)
    throw new MemberError(
      "EVAL_CORRUPT",
      `no local header where the central directory puts ${m.name} (byte ${m.offset})`,
    );
  const n = h.readUInt16LE(26);
  const e = h.readUInt16LE(28);
  const local = readAt(fd, m.offset + 30, n).toString("latin1");
  if (local !== m.raw)
    throw new MemberError(
      "EVAL_CORRUPT",
      `the local header at byte ${m.offset} names ${JSON.stringify(Buffer.from(local, "latin1").toString("utf8"))}, the central directory ${JSON.stringify(m.name)}`,
    );
  const start = m.offset + 30 + n + e;
  if (start + m.csize > size)
    throw new MemberError("EVAL_CORRUPT", `${m.name}: its ${m.csize} bytes run past the end of the file`);
  // consistent and in the file, but larger than assay holds: the tool's limit, not the evidence's fault
  if (m.usize > limit)
    throw new MemberError(
      "FILE_TOO_LARGE",
      `${m.name}: ${m.usize} bytes uncompressed, more than assay reads in one member (${limit})`,
    );
  return start;
}

/**
 * A member's bytes, inflated and checked (local header, sizes, CRC-32). Bounded by what it
 * declares, itself bounded: a declared size its compressed bytes cannot hold (maxInflated), or
 * compressed bytes its declared size cannot need (maxCompressed), is EVAL_CORRUPT and nothing is
 * read; a consistent member over MAX_MEMBER_BYTES is FILE_TOO_LARGE (the tool's limit); no decoder
 * may write past the declared size.
 */
export function readMember(fd: number, size: number, m: ZipMember): Buffer {
  return withMember(fd, size, m, (bytes) => (m.method === 93 ? Buffer.from(bytes) : bytes));
}

/** What `use` is thrown, carried past the decoder's error handling. */
class FromUse {
  constructor(readonly error: unknown) {}
}

/**
 * readMember's checks, then `use` of the member's bytes — a zstd member's where the decoder wrote
 * them, valid only until `use` returns (never copied). What `use` throws passes through as it is.
 */
export function withMember<T>(fd: number, size: number, m: ZipMember, use: (bytes: Buffer) => T): T {
  const start = memberBody(fd, size, m);
  const checked = (out: Buffer): Buffer => {
    if (out.length !== m.usize)
      throw new MemberError("EVAL_CORRUPT", `${m.name} inflates to ${out.length} bytes; the directory says ${m.usize}`);
    const crc = crc32(out);
    if (crc !== m.crc)
      throw new MemberError(
        "EVAL_CORRUPT",
        `${m.name}: CRC-32 ${crc.toString(16).padStart(8, "0")}, the directory says ${m.crc.toString(16).padStart(8, "0")}`,
      );
    return out;
  };
  let out: Buffer;
  try {
    if (m.method === 93)
      return decodeZstdInPlace(
        m.csize,
        m.usize,
        MAX_MEMBER_BYTES,
        (into) => {
          // read straight into the decoder's memory: the compressed bytes are not held twice
          if (readInto(fd, into, start) < into.length)
            throw new ZstdError("the file ended before its compressed bytes did");
        },
        (decoded) => {
          const bytes = checked(decoded);
          try {
            return use(bytes);
          } catch (e) {
            throw new FromUse(e);
          }
        },
      );
    const data = readAt(fd, start, m.csize);
    out = m.method === 0 ? data : zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, m.usize) });
  } catch (err) {
    if (err instanceof FromUse) throw err.error;
    if (err instanceof MemberError) throw err;
    // the file system's refusal (EIO, …) stays the tool's; anything the bytes caused is theirs
    if (/^E[A-Z]+$/.test((err as NodeJS.ErrnoException).code ?? "")) throw err;
    throw new MemberError("EVAL_CORRUPT", `${m.name} does not inflate: ${(err as Error).message}`);
  }
  return use(checked(out));
}
