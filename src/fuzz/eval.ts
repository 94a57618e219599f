// The .eval structure fuzzer (issue 21): valid synthesised Inspect logs (stored, Deflate, zstd in
// one frame or several, ZIP64 or not) with 1-3 seeded mutations of their structure — local
// headers, central directory entries, end records (ZIP64 too), compressed and declared sizes, zstd
// frame headers, windows, content sizes and blocks, decompression bombs (RLE blocks, whose sizes
// their headers say, and compressed blocks, which only decoding measures), Deflate streams,
// truncation, sparse holes that an end record claims — each written to disk and read as `verify`
// reads it and as the split of `score` does (directory, then parts). Cases run in child processes,
// a batch each, so that each case's peak RSS is measured: the high-water mark may rise during a
// case only to a fixed base plus a multiple of the largest member it declares within the member cap
// (nothing else an archive says may cost memory). One case in `cliEvery` also goes through the
// built CLI's `score --jobs 2` (real workers), its peak RSS bounded the same way.
//
// Oracle: no case throws, none is a tool error but for the two the contract allows for what an
// archive declares (FILE_TOO_LARGE: a member larger than assay reads; EVAL_METHOD: an unknown
// method); every case finishes (a watchdog, not a timing assertion: a hung case is a failure).

import { spawnSync } from "node:child_process";
import { closeSync, existsSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateRawSync } from "node:zlib";
import { partsOf, readPart, scoreInspectLog } from "../kinds/inspect/read.js";
import { MAX_MEMBER_BYTES, readDirectory, readMember } from "../kinds/inspect/zip.js";
import { inspectLogBytes, type InspectCase } from "../synth/inspect.js";
import { compressed, readyZstd, zipBytes, type Method, type MemberOptions } from "../synth/zip.js";
import { caseSeed, int, pick, rng, weighted, type Rng } from "./random.js";

// Children run the compiled module (this file may be loaded from its TypeScript source by a test).
const compiled = import.meta.url.endsWith(".ts")
  ? new URL("../../dist/fuzz/eval.js", import.meta.url)
  : new URL(import.meta.url);
const SELF = fileURLToPath(compiled);
const CLI = fileURLToPath(new URL("../cli.js", compiled));

/** Peak RSS allowed for a case: this much (node, modules, the CLI's workers) … */
export const RSS_BASE_MB = 320;
/** … plus this many times the largest member the case declares (capped at the member cap): the member, its text, its decoder's buffer. */
export const RSS_PER_MEMBER = 4;
/** A case that runs this long is a hang (a watchdog: the slowest legitimate case takes well under a second). */
const HANG_MS = 120_000;
/** Tool errors a mutant may earn: the contract's refusals of what an archive declares. */
const ALLOWED_TOOL_ERRORS = new Set(["FILE_TOO_LARGE", "EVAL_METHOD"]);

export interface EvalFuzzOptions {
  seed: number;
  cases: number;
  first?: number;
  /** Cases per child process. */
  batch?: number;
  /** One case in this many also through `node dist/cli.js score --jobs 2`; 0: none. */
  cliEvery?: number;
  onProgress?(done: number): void;
}

export interface EvalFuzzFailure {
  seed: number;
  index: number;
  ops: string[];
  message: string;
  /** The case's file, kept for `assay verify`. */
  file: string;
}

export interface EvalFuzzReport {
  seed: number;
  cases: number;
  seconds: number;
  cliCases: number;
  /** The highest peak RSS of any child (in-process reads) and of any CLI run, in MB. */
  peakRssMb: number;
  cliPeakRssMb: number;
  validity: Record<string, number>;
  firstCode: Record<string, number>;
  ops: Record<string, number>;
  failure: EvalFuzzFailure | null;
}

// ---------------------------------------------------------------------------------------------
// Bases and cases

interface BaseMember {
  name: string;
  data: Buffer;
  method: Method;
  frames?: number;
}
interface Base {
  label: string;
  members: BaseMember[];
  zip64: boolean;
}

const BASE_SPECS: { label: string; case: InspectCase; method: Method; frames?: number; zip64: boolean }[] = [
  { label: "zstd", case: "clean", method: 93, zip64: false },
  { label: "zstd-frames", case: "errors-hidden", method: 93, frames: 3, zip64: false },
  { label: "zstd-zip64", case: "epochs", method: 93, zip64: true },
  { label: "deflate", case: "clean", method: 8, zip64: false },
  { label: "deflate-zip64", case: "metric-inflated", method: 8, zip64: true },
  { label: "stored", case: "summary-edited", method: 0, zip64: false },
];

let bases: Base[] | null = null;
/** One compressed block that zstd makes of 128 KiB of "abc abc …" (~15 bytes), for bombs only decoding can measure. */
let block: Buffer = Buffer.alloc(0);
/** The bases, synthesised once (their members read back with the reader: they are valid). */
async function loadBases(dir: string): Promise<Base[]> {
  if (bases !== null) return bases;
  await readyZstd();
  block = compressedBlock();
  bases = BASE_SPECS.map((s) => {
    const bytes = inspectLogBytes({
      task: `fuzz-${s.label}`,
      model: "openai/gpt-4o-mini",
      case: s.case,
      samples: 3,
      epochs: s.case === "epochs" ? 2 : 1,
      format: "eval",
      method: s.method,
      ...(s.frames === undefined ? {} : { frames: s.frames }),
      seed: s.label,
      offset: 0,
    });
    const file = join(dir, `base-${s.label}.eval`);
    writeFile(file, { head: bytes, hole: 0, tail: Buffer.alloc(0) });
    const dirz = readDirectory(file);
    const fd = openSync(file, "r");
    try {
      const members = dirz.members.map((m) => ({
        name: m.name,
        method: m.method as Method,
        data: readMember(fd, bytes.length, m),
        ...(s.frames === undefined ? {} : { frames: s.frames }),
      }));
      return { label: s.label, members, zip64: s.zip64 };
    } finally {
      closeSync(fd);
    }
  });
  return bases;
}

/** A case's file: `head`, a sparse hole of `hole` bytes, then `tail`. */
interface CaseFile {
  head: Buffer;
  hole: number;
  tail: Buffer;
}

function writeFile(file: string, c: CaseFile): void {
  const fd = openSync(file, "w");
  try {
    writeAll(fd, c.head, 0);
    if (c.hole > 0 || c.tail.length > 0) {
      ftruncateSync(fd, c.head.length + c.hole);
      writeAll(fd, c.tail, c.head.length + c.hole);
    }
  } finally {
    closeSync(fd);
  }
}
function writeAll(fd: number, b: Buffer, pos: number): void {
  for (let at = 0; at < b.length;) at += writeSync(fd, b, at, b.length - at, pos + at);
}

const U32 = [0, 1, 2, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, MAX_MEMBER_BYTES, MAX_MEMBER_BYTES + 1, 0x10000];
const U64 = [...U32, 2 ** 32, 2 ** 32 + 1, 2 ** 53, 2 ** 63, 2 ** 64 - 1, 5 * 2 ** 30];
const value32 = (r: Rng, old: number): number =>
  weighted(r, [
    [6, () => pick(r, U32)],
    [2, () => (old + pick(r, [1, -1, 46, 30])) >>> 0],
    [2, () => int(r, 2 ** 32)],
  ] as const)();
const value64 = (r: Rng, old: number): bigint =>
  weighted(r, [
    [6, () => BigInt(pick(r, U64))],
    [2, () => BigInt(Math.max(0, old + pick(r, [1, -1, 56])))],
    [2, () => BigInt(int(r, 2 ** 32)) * BigInt(int(r, 2 ** 21))],
  ] as const)() & 0xffffffffffffffffn;

/** zstd frame header bytes (no checksum, no dictionary): a window descriptor and/or a content size. */
function zstdHeader(wd: number | null, fcs: bigint | null): Buffer {
  const magic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
  const single = wd === null;
  const fhd = (fcs === null ? 0 : 0xc0) | (single ? 0x20 : 0);
  const f = Buffer.alloc(fcs === null ? 0 : 8);
  if (fcs !== null) f.writeBigUInt64LE(fcs);
  return Buffer.concat([magic, Buffer.from(single ? [fhd] : [fhd, wd]), f]);
}
/** `n` RLE blocks of up to 128 KiB (4 bytes each; `n` × 128 KiB decoded), the last marked last. */
function rleBlocks(n: number, blockBytes = 128 * 1024): Buffer {
  const b = Buffer.alloc(4 * n);
  for (let i = 0; i < n; i++) {
    b.writeUIntLE((blockBytes << 3) | 2 | (i === n - 1 ? 1 : 0), 4 * i, 3);
    b[4 * i + 3] = 0x20;
  }
  return b;
}

const bombs = new Map<number, Buffer>();
/** `mb` MiB of spaces, deflated (about a thousandth of that). */
const deflateBomb = (mb: number): Buffer =>
  bombs.get(mb) ?? bombs.set(mb, deflateRawSync(Buffer.alloc(mb * 2 ** 20, 0x20), { level: 9 })).get(mb)!;

/** The one compressed block zstd makes of 128 KiB of "abc abc …" (readyZstd() awaited first). */
export function compressedBlock(): Buffer {
  const pattern = Buffer.alloc(128 * 1024);
  for (let i = 0; i < pattern.length; i++) pattern[i] = "abc ".charCodeAt(i % 4);
  const frame = Buffer.from(compressed(pattern, 93));
  const fhd = frame[4]!;
  const at = 5 + ((fhd >> 5) & 1 ? 0 : 1) + [0, 1, 2, 4][fhd & 3]! + [(fhd >> 5) & 1, 2, 4, 8][fhd >> 6]!;
  return Buffer.from(frame.subarray(at, at + 3 + (frame.readUIntLE(at, 3) >>> 3)));
}

/**
 * `n` copies of a compressed block (compressedBlock()) in a frame that declares no content size:
 * ~8,700 times its size once decoded, and only decoding can tell how much (unlike RLE blocks).
 */
export function blockBomb(n: number, of: Buffer = block): Buffer {
  const parts = [zstdHeader(0x38, null)];
  const h = of.readUIntLE(0, 3) & ~1;
  for (let i = 0; i < n; i++) {
    const b = Buffer.from(of);
    b.writeUIntLE(h | (i === n - 1 ? 1 : 0), 0, 3);
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/** The byte layout of a written archive: where each record and body is. */
interface Layout {
  locals: { at: number; extra: number; body: number; csize: number; method: number }[];
  centrals: { at: number; extra: number }[];
  eocd: number;
  eocd64: number | null;
  locator: number | null;
}
function layout(b: Buffer): Layout {
  const eocd = b.length - 22;
  const count =
    b.readUInt16LE(eocd + 10) === 0xffff ? Number(b.readBigUInt64LE(eocd - 20 - 56 + 32)) : b.readUInt16LE(eocd + 10);
  const zip64 = b.readUInt16LE(eocd + 10) === 0xffff;
  const cdOffset = zip64 ? Number(b.readBigUInt64LE(eocd - 20 - 56 + 48)) : b.readUInt32LE(eocd + 16);
  const locals: Layout["locals"] = [];
  const centrals: Layout["centrals"] = [];
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    const n = b.readUInt16LE(at + 28);
    const e = b.readUInt16LE(at + 30);
    centrals.push({ at, extra: at + 46 + n });
    const off = zip64 ? Number(b.readBigUInt64LE(at + 46 + n + 4 + 16)) : b.readUInt32LE(at + 42);
    const csize = zip64 ? Number(b.readBigUInt64LE(at + 46 + n + 4 + 8)) : b.readUInt32LE(at + 20);
    const ln = b.readUInt16LE(off + 26);
    const le = b.readUInt16LE(off + 28);
    locals.push({ at: off, extra: off + 30 + ln, body: off + 30 + ln + le, csize, method: b.readUInt16LE(off + 8) });
    at += 46 + n + e + b.readUInt16LE(at + 32);
  }
  return { locals, centrals, eocd, eocd64: zip64 ? eocd - 20 - 56 : null, locator: zip64 ? eocd - 20 : null };
}

export interface EvalCase {
  index: number;
  base: string;
  ops: string[];
  file: CaseFile;
  /** The largest uncompressed size any member declares (for the memory bound), capped at the member cap. */
  declared: number;
}

/** Case `index` of a run seeded `seed`: deterministic on its own. */
export function makeCase(seed: number, index: number, all: readonly Base[]): EvalCase {
  const r = rng(caseSeed(seed, index));
  const base = pick(r, all);
  const ops: string[] = [];
  // 1. Rebuild-level mutations: bodies and declared sizes (the archive is laid out afresh).
  const ms: ({ name: string; data: Uint8Array; method: Method } & MemberOptions)[] = base.members.map((m) => ({
    ...m,
  }));
  const nRebuild = weighted(r, [
    [4, 0],
    [4, 1],
    [2, 2],
  ] as const);
  for (let k = 0; k < nRebuild; k++) {
    const i = int(r, ms.length);
    const m = ms[i]!;
    const op = weighted(r, [
      [3, "rle"],
      [3, "blocks"],
      [2, "window"],
      [2, "content"],
      [1, "skippable"],
      [2, "deflate-bomb"],
      [2, "usize"],
      [1, "frames"],
      [1, "method"],
    ] as const);
    if (op === "rle") {
      const n = 1 + int(r, pick(r, [16, 512, 4096]));
      ms[i] = {
        ...m,
        method: 93,
        body: Buffer.concat([zstdHeader(pick(r, [0x38, 0x50]), null), rleBlocks(n)]),
        ...(r() < 0.5 ? {} : { usize: Math.max(m.usize ?? m.data.length, 4 * n + 64) }),
      };
      ops.push(`rle ${m.name} ${n} blocks (${n * 128} KiB decoded)`);
    } else if (op === "blocks") {
      const n = 1 + int(r, pick(r, [16, 512, 4096]));
      const body = blockBomb(n);
      ms[i] = {
        ...m,
        method: 93,
        body,
        usize: Math.max(m.usize ?? m.data.length, body.length + int(r, 1 + body.length)),
      };
      ops.push(`blocks ${m.name} ${n} compressed blocks (${n * 128} KiB decoded)`);
    } else if (op === "window") {
      const wd = int(r, 256);
      ms[i] = {
        ...m,
        method: 93,
        body: Buffer.concat([zstdHeader(wd, null), rleBlocks(1 + int(r, 64))]),
        usize: Math.max(m.data.length, 4096),
      };
      ops.push(`window ${m.name} descriptor ${wd}`);
    } else if (op === "content") {
      const fcs = value64(r, m.data.length);
      ms[i] = {
        ...m,
        method: 93,
        body: Buffer.concat([zstdHeader(r() < 0.5 ? null : 0x38, fcs), rleBlocks(1 + int(r, 64))]),
        usize: Math.max(m.data.length, 4096),
      };
      ops.push(`content ${m.name} declares ${fcs}`);
    } else if (op === "skippable") {
      const skip = Buffer.alloc(8);
      skip.writeUInt32LE(0x184d2a50 + int(r, 16), 0);
      skip.writeUInt32LE(value32(r, 0), 4);
      ms[i] = {
        ...m,
        method: 93,
        body: Buffer.concat([skip, zstdHeader(0x38, null), rleBlocks(2)]),
        usize: Math.max(m.data.length, 4096),
      };
      ops.push(`skippable ${m.name} declares ${skip.readUInt32LE(4)}`);
    } else if (op === "deflate-bomb") {
      const mb = pick(r, [1, 8, 48]);
      ms[i] = { ...m, method: 8, body: deflateBomb(mb), ...(r() < 0.5 ? {} : { usize: mb * 2 ** 20 }) };
      ops.push(`deflate-bomb ${m.name} ${mb} MiB`);
    } else if (op === "usize") {
      const v = pick(r, [
        0,
        1,
        m.data.length - 1,
        m.data.length + 1,
        2 ** 20,
        MAX_MEMBER_BYTES,
        MAX_MEMBER_BYTES + 1,
        2 ** 32 - 1,
      ]);
      ms[i] = { ...m, usize: Math.max(0, v) };
      ops.push(`usize ${m.name} ${v}`);
    } else if (op === "frames") {
      const f = 1 + int(r, 6);
      ms[i] = { ...m, method: 93, frames: f };
      ops.push(`frames ${m.name} ${f}`);
    } else {
      const method = pick(r, [0, 8, 93] as const);
      ms[i] = { ...m, method };
      ops.push(`method ${m.name} ${method}`);
    }
  }
  const bytes = zipBytes(ms, { zip64: base.zip64 });
  const declared = Math.min(MAX_MEMBER_BYTES, Math.max(...ms.map((m) => m.usize ?? m.data.length)));
  // 2. Byte-level mutations of the structure.
  const L = layout(bytes);
  const file: CaseFile = { head: Buffer.from(bytes), hole: 0, tail: Buffer.alloc(0) };
  let maxDeclared = declared;
  const nBytes = nRebuild === 0 ? 1 + int(r, 3) : int(r, 3);
  for (let k = 0; k < nBytes; k++) {
    const b = file.head;
    const op = weighted(r, [
      [3, "local"],
      [3, "central"],
      [2, "eocd"],
      [2, "eocd64"],
      [2, "zip64-extra"],
      [2, "frame"],
      [2, "block"],
      [1, "flip"],
      [2, "truncate"],
      [1, "hole"],
    ] as const);
    if (op === "local" || op === "central") {
      const rec = op === "local" ? pick(r, L.locals).at : pick(r, L.centrals).at;
      const fields: readonly (readonly [string, number, 2 | 4])[] =
        op === "local"
          ? ([
              ["sig", 0, 4],
              ["flags", 6, 2],
              ["method", 8, 2],
              ["crc", 14, 4],
              ["csize", 18, 4],
              ["usize", 22, 4],
              ["nameLen", 26, 2],
              ["extraLen", 28, 2],
            ] as const)
          : ([
              ["sig", 0, 4],
              ["flags", 8, 2],
              ["method", 10, 2],
              ["crc", 16, 4],
              ["csize", 20, 4],
              ["usize", 24, 4],
              ["nameLen", 28, 2],
              ["extraLen", 30, 2],
              ["commentLen", 32, 2],
              ["offset", 42, 4],
            ] as const);
      const [name, off, w] = pick(r, fields);
      if (rec + off + w > b.length) continue;
      const v = w === 4 ? value32(r, b.readUInt32LE(rec + off)) : value32(r, b.readUInt16LE(rec + off)) & 0xffff;
      b.writeUIntLE(v, rec + off, w);
      if (name === "usize" && op === "central") maxDeclared = Math.max(maxDeclared, Math.min(MAX_MEMBER_BYTES, v));
      ops.push(`${op} ${name} = ${v}`);
    } else if (op === "eocd") {
      const [name, off, w] = pick(r, [
        ["count", 10, 2],
        ["diskCount", 8, 2],
        ["cdSize", 12, 4],
        ["cdOffset", 16, 4],
        ["commentLen", 20, 2],
      ] as const satisfies readonly (readonly [string, number, 2 | 4])[]) as readonly [string, number, 2 | 4];
      const v = w === 4 ? value32(r, b.readUInt32LE(L.eocd + off)) : value32(r, b.readUInt16LE(L.eocd + off)) & 0xffff;
      b.writeUIntLE(v, L.eocd + off, w);
      ops.push(`eocd ${name} = ${v}`);
    } else if (op === "eocd64") {
      if (L.eocd64 === null || L.locator === null) continue;
      const [name, at] = pick(r, [
        ["count", L.eocd64 + 32],
        ["diskCount", L.eocd64 + 24],
        ["cdSize", L.eocd64 + 40],
        ["cdOffset", L.eocd64 + 48],
        ["locator", L.locator + 8],
      ] as const);
      const v = value64(r, Number(b.readBigUInt64LE(at)));
      b.writeBigUInt64LE(v, at);
      ops.push(`eocd64 ${name} = ${v}`);
    } else if (op === "zip64-extra") {
      if (!base.zip64) continue;
      const central = r() < 0.5;
      const at = central ? pick(r, L.centrals).extra : pick(r, L.locals).extra;
      const slot = int(r, central ? 3 : 2);
      const v = value64(r, Number(b.readBigUInt64LE(at + 4 + 8 * slot)));
      b.writeBigUInt64LE(v, at + 4 + 8 * slot);
      if (slot === 0 && central) maxDeclared = Math.max(maxDeclared, Math.min(MAX_MEMBER_BYTES, Number(v)));
      ops.push(`zip64-extra ${central ? "central" : "local"} ${["usize", "csize", "offset"][slot]} = ${v}`);
    } else if (op === "frame" || op === "block") {
      const zs = L.locals.filter((l) => l.method === 93 && l.csize >= 8);
      if (zs.length === 0) continue;
      const l = pick(r, zs);
      if (op === "frame") {
        const at = l.body + 4 + int(r, Math.min(10, l.csize - 4));
        const v = int(r, 256);
        if (at < b.length) b[at] = v;
        ops.push(`frame header byte ${at - l.body} = ${v}`);
      } else {
        // a block header: the first after a two-byte frame header (fhd, window), or anywhere
        const at = l.body + (r() < 0.5 ? 6 : int(r, l.csize - 3));
        const v = (value32(r, 0) & 0xfffff8) | int(r, 8);
        if (at + 3 <= b.length) b.writeUIntLE(v, at, 3);
        ops.push(`block header at ${at - l.body} = ${v}`);
      }
    } else if (op === "flip") {
      const l = pick(r, L.locals);
      const at = l.body + int(r, Math.max(1, l.csize));
      if (at < b.length) b[at]! ^= 1 << int(r, 8);
      ops.push(`flip body byte ${at - l.body}`);
    } else if (op === "truncate") {
      const cut = weighted(r, [
        [2, () => int(r, b.length)],
        [1, () => L.eocd + int(r, 22)],
        [1, () => pick(r, L.centrals).at + int(r, 46)],
        [1, () => pick(r, L.locals).body + int(r, 8)],
      ] as const)();
      file.head = b.subarray(0, Math.min(cut, b.length));
      ops.push(`truncate at ${cut} of ${b.length}`);
      break;
    } else {
      // a sparse hole before the end record(s), which then claim a directory spanning it
      const hole = pick(r, [4096, 2 ** 20, 40 * 2 ** 20, ...(r() < 0.1 ? [2 ** 31 + 7, 4.25 * 2 ** 30] : [])]);
      const endAt = L.eocd64 ?? L.eocd;
      const tail = Buffer.from(b.subarray(endAt));
      const e = tail.length - 22;
      if (L.eocd64 !== null) {
        tail.writeBigUInt64LE(tail.readBigUInt64LE(40) + BigInt(hole), 40);
        tail.writeBigUInt64LE(tail.readBigUInt64LE(56 + 8) + BigInt(hole), 56 + 8);
      } else tail.writeUInt32LE(Math.min(0xffffffff, tail.readUInt32LE(e + 12) + hole), e + 12);
      file.head = b.subarray(0, endAt);
      file.hole = hole;
      file.tail = tail;
      ops.push(`hole ${hole} bytes claimed by the directory`);
      break;
    }
  }
  return { index, base: base.label, ops, file, declared: maxDeclared };
}

// ---------------------------------------------------------------------------------------------
// The child: a batch of cases read in process, a JSON line each

interface CaseResult {
  i: number;
  validity: string;
  code: string;
  rssKb: number;
  declared: number;
  problem?: string;
}

async function child(seed: number, first: number, count: number, dir: string): Promise<void> {
  const all = await loadBases(dir);
  let peak = 0;
  for (let i = first; i < first + count; i++) {
    const c = makeCase(seed, i, all);
    const file = join(dir, `case-${i}.eval`);
    writeFile(file, c.file);
    let validity = "?";
    let code = "none";
    let problem: string | undefined;
    try {
      const entry = scoreInspectLog(file, "eval");
      validity = entry.validity;
      code = entry.errors[0]?.code ?? "none";
      if (entry.validity === "error" && !entry.errors.every((e) => ALLOWED_TOOL_ERRORS.has(e.code)))
        problem = `a tool error: ${entry.errors.map((e) => `${e.code} ${e.message}`).join("; ")}`;
      // the split's path: the main thread's directory, then each part as a worker reads it
      const d = readDirectory(file);
      const { meta, samples } = partsOf(d.members);
      for (const task of [
        { part: "meta" as const, members: meta },
        { part: "samples" as const, members: samples },
      ]) {
        const p = readPart(file, file, task);
        if (p.toolError !== undefined && !ALLOWED_TOOL_ERRORS.has(p.toolError.code))
          problem ??= `a part's tool error: ${p.toolError.code} ${p.toolError.message}`;
      }
    } catch (e) {
      problem = `threw: ${(e as Error).stack ?? String(e)}`;
    }
    rmSync(file, { force: true });
    const line: CaseResult = {
      i,
      validity,
      code,
      rssKb: process.resourceUsage().maxRSS,
      declared: c.declared,
      ...(problem === undefined ? {} : { problem }),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    // a failing case ends the batch at once (the parent judges it from its line)
    if (problem !== undefined || (line.rssKb > peak && line.rssKb > rssBoundKb(c.declared))) return;
    peak = Math.max(peak, line.rssKb);
  }
}

// ---------------------------------------------------------------------------------------------
// The parent: batches in children, a share through the CLI

/** The memory a case may take, in KB: the base plus a multiple of its largest declared member. */
export const rssBoundKb = (declared: number): number =>
  RSS_BASE_MB * 1024 + (RSS_PER_MEMBER * Math.min(declared, MAX_MEMBER_BYTES)) / 1024;

export async function fuzzEval(o: EvalFuzzOptions): Promise<EvalFuzzReport> {
  const started = performance.now();
  const first = o.first ?? 0;
  const batch = o.batch ?? 200;
  const dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "assay-fuzz-eval-"));
  const report: EvalFuzzReport = {
    seed: o.seed,
    cases: 0,
    seconds: 0,
    cliCases: 0,
    peakRssMb: 0,
    cliPeakRssMb: 0,
    validity: {},
    firstCode: {},
    ops: {},
    failure: null,
  };
  const all = await loadBases(dir);
  const keep = (c: EvalCase, message: string): EvalFuzzFailure => {
    const kept = join(dir, "failed");
    mkdirSync(kept, { recursive: true });
    const file = join(kept, `case-${c.index}.eval`);
    writeFile(file, c.file);
    return { seed: o.seed, index: c.index, ops: c.ops, message, file };
  };
  try {
    for (let at = first; at < first + o.cases && report.failure === null; at += batch) {
      const n = Math.min(batch, first + o.cases - at);
      const run = spawnSync(process.execPath, [SELF, "--child", String(o.seed), String(at), String(n), dir], {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
        timeout: HANG_MS * Math.max(1, Math.ceil(n / 20)),
      });
      const lines = run.stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as CaseResult);
      let prev = 0;
      for (const line of lines) {
        const c = makeCase(o.seed, line.i, all);
        report.cases++;
        for (const op of c.ops) report.ops[op.split(" ")[0]!] = (report.ops[op.split(" ")[0]!] ?? 0) + 1;
        report.validity[line.validity] = (report.validity[line.validity] ?? 0) + 1;
        report.firstCode[line.code] = (report.firstCode[line.code] ?? 0) + 1;
        report.peakRssMb = Math.max(report.peakRssMb, line.rssKb / 1024);
        // the high-water mark rose during this case: it is this case's peak
        if (line.rssKb > prev && line.rssKb > rssBoundKb(line.declared))
          report.failure = keep(
            c,
            `peak RSS ${(line.rssKb / 1024).toFixed(0)} MB, more than the ${(rssBoundKb(line.declared) / 1024).toFixed(0)} MB allowed for a largest declared member of ${line.declared} bytes`,
          );
        else if (line.problem !== undefined) report.failure = keep(c, line.problem);
        prev = Math.max(prev, line.rssKb);
        if (report.failure !== null) break;
        if (o.cliEvery !== undefined && o.cliEvery > 0 && line.i % o.cliEvery === 0) {
          const problem = throughCli(c, dir, report);
          if (problem !== null) report.failure = keep(c, problem);
        }
        if (report.failure !== null) break;
      }
      if (report.failure === null && lines.length < n) {
        const c = makeCase(o.seed, at + lines.length, all);
        report.failure = keep(
          c,
          run.error !== undefined || run.signal !== null
            ? `the case did not finish (${run.signal ?? run.error?.message}): a hang or a crash of the reading process`
            : `the reading process exited ${run.status}: ${run.stderr.slice(-2000)}`,
        );
      }
      o.onProgress?.(report.cases);
    }
  } finally {
    report.seconds = (performance.now() - started) / 1000;
    if (report.failure === null) rmSync(dir, { recursive: true, force: true });
  }
  return report;
}

/** The case through `node dist/cli.js score FILE --jobs 2` (real workers), its peak RSS read at exit. */
function throughCli(c: EvalCase, dir: string, report: EvalFuzzReport): string | null {
  const file = join(dir, `cli-${c.index}.eval`);
  writeFile(file, c.file);
  try {
    const hook = `data:text/javascript,import{writeSync}from"node:fs";process.on("exit",()=>writeSync(2,"\\nmaxrss="+process.resourceUsage().maxRSS+"\\n"))`;
    const run = spawnSync(
      process.execPath,
      ["--max-old-space-size=512", "--import", hook, CLI, "score", file, "--jobs", "2", "--format", "json", "--quiet"],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: HANG_MS },
    );
    report.cliCases++;
    const rss = Number(/maxrss=(\d+)/.exec(run.stderr)?.[1] ?? NaN);
    // exit 0, or 3 for one of the tool errors an archive may earn (checked below)
    if (run.status !== 0 && run.status !== 3)
      return `assay score exited ${run.status ?? run.signal}: ${run.stderr.slice(-2000)}`;
    report.cliPeakRssMb = Math.max(report.cliPeakRssMb, rss / 1024);
    if (!(rss <= rssBoundKb(c.declared)))
      return `assay score: peak RSS ${(rss / 1024).toFixed(0)} MB, more than the ${(rssBoundKb(c.declared) / 1024).toFixed(0)} MB allowed`;
    const entry = (
      JSON.parse(run.stdout) as { bundles: { validity: string; errors: { code: string; message: string }[] }[] }
    ).bundles[0]!;
    if (entry.validity === "error" && !entry.errors.every((e) => ALLOWED_TOOL_ERRORS.has(e.code)))
      return `assay score: a tool error: ${entry.errors.map((e) => `${e.code} ${e.message}`).join("; ")}`;
    if (run.status === 3 && entry.validity !== "error")
      return `assay score exited 3 on a log that is ${entry.validity}: ${run.stderr.slice(-2000)}`;
    return null;
  } finally {
    rmSync(file, { force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "--child") {
  const [seed, first, count, dir] = process.argv.slice(3);
  await child(Number(seed), Number(first), Number(count), dir!);
}
