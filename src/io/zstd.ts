// zstd (a .eval's method 93) decoded with a hard bound on its output and memory: the frames'
// headers walked first (a frame declaring a window or content size over the bound is refused
// before anything is allocated), then zstd's one-shot ZSTD_decompress into a buffer of exactly the
// member's declared size, which it cannot write past (dstSize_tooSmall). One-shot decoding writes
// straight into that buffer: no window is allocated, whatever a frame declares.
//
// The decoder is the WebAssembly build of zstd shipped in @bokuweb/zstd-wasm (2.4-3.2 times the
// speed of the pure-JS fzstd on the synthesiser's Inspect members, measured; and fzstd sizes its
// buffers from what a frame declares), instantiated here rather than through the package's glue: the glue is one
// asynchronous singleton shared with the synthesiser's encoder, and its memory grows to 2 GiB and
// never shrinks. Here each thread compiles the module once, instantiates it synchronously, caps its
// heap at what the member being decoded needs, and drops an instance whose memory grew past
// RETAIN_BYTES, so a thread does not keep a large member's memory for life.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** A refusal or decoding failure, the evidence's fault; the caller names the member. */
export class ZstdError extends Error {}

const MAGIC = 0xfd2fb528;
const BLOCK_MAX = 128 * 1024;
/** An instance whose memory grew past this is dropped after the member (the next one starts afresh at 16 MB). */
const RETAIN_BYTES = 64 * 1024 * 1024;
/** Beyond the input and the output, what zstd's own allocations may take (its context is ~160 KB). */
const HEAP_SLACK = 8 * 1024 * 1024;
const PAGE = 65536;

// The few WebAssembly types used here (the project compiles without the DOM library that declares them).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
type WasmModule = object;
interface WasmApi {
  Module: {
    new (bytes: Uint8Array): WasmModule;
    exports(m: WasmModule): { name: string; kind: string }[];
    imports(m: WasmModule): { module: string; name: string; kind: string }[];
  };
  Instance: new (
    m: WasmModule,
    imports: Record<string, Record<string, unknown>>,
  ) => { exports: Record<string, unknown> };
}
const WebAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface Exports {
  memory: WasmMemory;
  isError(code: number): number;
  decompress(dst: number, dstCapacity: number, src: number, srcSize: number): number;
  malloc(n: number): number;
  free(p: number): void;
}

let compiled: WasmModule | null = null;
/** A `use` of decodeZstdInPlace is running: its view is this thread's decoder memory. */
let inUse = false;
let instance: { exports: Exports; limit: { bytes: number } } | null = null;

function wasmModule(): WasmModule {
  if (compiled !== null) return compiled;
  const file = join(dirname(createRequire(import.meta.url).resolve("@bokuweb/zstd-wasm")), "zstd.wasm");
  const m = new WebAssembly.Module(readFileSync(file));
  const names = new Map(WebAssembly.Module.exports(m).map((e) => [e.name, e.kind]));
  // The build's minified names (zstd.js of @bokuweb/zstd-wasm 0.0.27): f memory, g constructors,
  // h ZSTD_isError, r ZSTD_decompress, s malloc, t free. Another build would be misread: refuse it.
  const want: [string, string][] = [
    ["f", "memory"],
    ["g", "function"],
    ["h", "function"],
    ["r", "function"],
    ["s", "function"],
    ["t", "function"],
  ];
  const imports = WebAssembly.Module.imports(m)
    .map((i) => `${i.module}.${i.name}`)
    .sort()
    .join(",");
  if (want.some(([n, k]) => names.get(n) !== k) || imports !== "a.a,a.b,a.c,a.d,a.e")
    throw new Error(
      `${file} is not the zstd build assay was written against (@bokuweb/zstd-wasm 0.0.27): its exports or imports differ`,
    );
  return (compiled = m);
}

function instantiate(): { exports: Exports; limit: { bytes: number } } {
  const limit = { bytes: 0 };
  let memory: WasmMemory | null = null;
  const fail = (what: string) => () => {
    throw new ZstdError(`zstd ${what}`);
  };
  const imports = {
    a: {
      a: fail("exited"), // proc_exit
      b: () => {}, // emscripten_runtime_keepalive_clear
      c: fail("aborted"), // abort
      d: () => 0, // setitimer: never used by decompression
      // emscripten_resize_heap: grow to what is asked, never past the current member's limit.
      e: (requested: number) => {
        const want = requested >>> 0;
        const have = memory!.buffer.byteLength;
        if (want <= have) return 1;
        if (want > limit.bytes) return 0;
        try {
          memory!.grow(Math.ceil((want - have) / PAGE));
          return 1;
        } catch {
          return 0;
        }
      },
    },
  };
  const inst = new WebAssembly.Instance(wasmModule(), imports);
  const x = inst.exports;
  memory = x["f"] as WasmMemory;
  (x["g"] as () => void)();
  return {
    exports: {
      memory,
      isError: x["h"] as Exports["isError"],
      decompress: x["r"] as Exports["decompress"],
      malloc: x["s"] as Exports["malloc"],
      free: x["t"] as Exports["free"],
    },
    limit,
  };
}

/** What the frames declare, found by walking their headers and blocks (no decoding). */
export interface FrameWalk {
  frames: number;
  /** The sum of the frames' declared content sizes, or null when a frame does not declare one. */
  contentSize: number | null;
  window: number;
  /** What the raw and RLE blocks make (exactly), and how many compressed blocks there are (each at most 128 KiB). */
  exact: number;
  compressedBlocks: number;
  /** Some frame carries a content checksum, or names a dictionary: checks a streaming decoder may skip. */
  checksummed: boolean;
  dictionary: boolean;
}

/**
 * Walk the frames of `src` (zstd frames and skippable ones), refusing with a ZstdError a frame that
 * is malformed, cut short, or declares a window or content size over `limit`, or content sizes
 * adding up past it. Work is linear in the input; nothing is allocated from a declared size.
 */
export function walkFrames(src: Uint8Array, limit: number): FrameWalk {
  return walkFramesBy(src.length, (i) => src[i]!, limit);
}

/**
 * walkFrames over `length` bytes read a byte at a time by `at` (a member's compressed bytes in the
 * file, never held whole: zip-stream.ts walks them before streaming).
 */
export function walkFramesBy(
  length: number,
  at8: (i: number) => number,
  limit: number,
  onFrame?: (start: number, end: number, contentSize: number | null) => void,
): FrameWalk {
  const u16 = (i: number) => at8(i) | (at8(i + 1) << 8);
  const u32 = (i: number) => (u16(i) | (u16(i + 2) << 16)) >>> 0;
  const src = { length };
  let at = 0;
  let frames = 0;
  let total: number | null = 0;
  let window = 0;
  let exact = 0;
  let compressedBlocks = 0;
  let checksummed = false;
  let dictionary = false;
  if (src.length === 0) throw new ZstdError("no zstd frame (an empty member body)");
  while (at < src.length) {
    if (at + 4 > src.length) throw new ZstdError(`cut short: ${src.length - at} stray bytes at byte ${at}`);
    const magic = u32(at);
    if (magic >>> 4 === 0x184d2a5) {
      if (at + 8 > src.length) throw new ZstdError(`a skippable frame cut short at byte ${at}`);
      const n = u32(at + 4);
      if (at + 8 + n > src.length)
        throw new ZstdError(`a skippable frame at byte ${at} declares ${n} bytes, past the end`);
      at += 8 + n;
      continue;
    }
    if (magic !== MAGIC)
      throw new ZstdError(`no zstd frame at byte ${at} (magic ${magic.toString(16).padStart(8, "0")})`);
    const frameAt = at;
    frames++;
    at += 4;
    if (at >= src.length) throw new ZstdError(`a frame header cut short at byte ${frameAt}`);
    const fhd = at8(at++);
    const fcsFlag = fhd >> 6;
    const single = (fhd >> 5) & 1;
    if (fhd & 0x08) throw new ZstdError(`the frame at byte ${frameAt} sets a reserved bit`);
    const checksum = (fhd >> 2) & 1;
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    checksummed ||= checksum === 1;
    dictionary ||= dictBytes > 0;
    const fcsBytes = [single, 2, 4, 8][fcsFlag]!;
    const need = (single ? 0 : 1) + dictBytes + fcsBytes;
    if (at + need > src.length) throw new ZstdError(`a frame header cut short at byte ${frameAt}`);
    let frameWindow = 0;
    if (!single) {
      const wd = at8(at++);
      const log = 10 + (wd >> 3);
      const base = 2 ** log;
      frameWindow = base + (base / 8) * (wd & 7);
    }
    at += dictBytes;
    let fcs: number | null = null;
    if (fcsBytes === 1) fcs = at8(at);
    else if (fcsBytes === 2) fcs = u16(at) + 256;
    else if (fcsBytes === 4) fcs = u32(at);
    else if (fcsBytes === 8) fcs = u32(at) + u32(at + 4) * 2 ** 32;
    at += fcsBytes;
    if (single) frameWindow = fcs!;
    if (frameWindow > limit)
      throw new ZstdError(
        `the frame at byte ${frameAt} declares a window of ${frameWindow} bytes, more than the ${limit} the member may hold`,
      );
    if (fcs !== null && fcs > limit)
      throw new ZstdError(
        `the frame at byte ${frameAt} declares ${fcs} bytes of content, more than the ${limit} the member may hold`,
      );
    window = Math.max(window, frameWindow);
    total = fcs === null || total === null ? null : total + fcs;
    if (total !== null && total > limit)
      throw new ZstdError(
        `its frames declare ${total} bytes of content together, more than the ${limit} the member may hold`,
      );
    for (;;) {
      if (at + 3 > src.length)
        throw new ZstdError(`the frame at byte ${frameAt} is cut short (a block header at byte ${at})`);
      const h = at8(at) | (at8(at + 1) << 8) | (at8(at + 2) << 16);
      at += 3;
      const type = (h >> 1) & 3;
      const size = h >>> 3;
      if (type === 3) throw new ZstdError(`a block of the reserved type at byte ${at - 3}`);
      if (size > BLOCK_MAX) throw new ZstdError(`a block of ${size} bytes at byte ${at - 3} (at most ${BLOCK_MAX})`);
      at += type === 1 ? 1 : size;
      if (type === 2) compressedBlocks++;
      else exact += size;
      if (at > src.length) throw new ZstdError(`the frame at byte ${frameAt} is cut short (a block runs past the end)`);
      if (h & 1) break;
    }
    at += checksum ? 4 : 0;
    if (at > src.length) throw new ZstdError(`the frame at byte ${frameAt} is cut short (its checksum)`);
    onFrame?.(frameAt, at, fcs);
  }
  if (frames === 0) throw new ZstdError("only skippable frames, no zstd frame");
  return { frames, contentSize: total, window, exact, compressedBlocks, checksummed, dictionary };
}

/**
 * What the frames can make, from their headers alone, against the `usize` declared: a mismatch is
 * refused without decoding (an RLE bomb's blocks add up past it; a content size differs).
 */
export function checkDeclared(w: FrameWalk, usize: number): void {
  if (w.contentSize !== null && w.contentSize !== usize)
    throw new ZstdError(`its frames declare ${w.contentSize} bytes of content, the directory ${usize}`);
  if (w.exact > usize)
    throw new ZstdError(`its raw and RLE blocks alone make ${w.exact} bytes, more than the ${usize} declared`);
  if (w.exact + w.compressedBlocks * BLOCK_MAX < usize)
    throw new ZstdError(
      `its blocks make at most ${w.exact + w.compressedBlocks * BLOCK_MAX} bytes, fewer than the ${usize} declared`,
    );
}

/**
 * Decode a member body of `csize` bytes, which `fill` writes into the view it is given, to exactly
 * `usize` bytes (at most `limit`). The frames are walked first; the output buffer holds `usize`
 * bytes and zstd cannot write past it, so the memory spent is csize + usize + a small context.
 * Returns a copy outside the WebAssembly memory.
 */
export function decodeZstd(csize: number, usize: number, limit: number, fill: (into: Uint8Array) => void): Buffer {
  return decodeZstdInPlace(csize, usize, limit, fill, (out) => Buffer.from(out));
}

/**
 * decodeZstd without the copy: `use` is given the decoded bytes where the decoder wrote them,
 * valid only until it returns (a 77 MB summaries.json is not held twice). What `use` throws
 * passes through as it is.
 */
export function decodeZstdInPlace<T>(
  csize: number,
  usize: number,
  limit: number,
  fill: (into: Uint8Array) => void,
  use: (out: Buffer) => T,
): T {
  // A decode inside `use` could grow the memory under the view `use` reads (it would read nothing).
  if (inUse) throw new Error("decodeZstdInPlace called again before its `use` returned");
  if (usize > limit) throw new ZstdError(`${usize} bytes declared, more than ${limit}`);
  instance ??= instantiate();
  const z = instance;
  // what is there (at most RETAIN_BYTES and a member's worth) and room for this member's input and output
  z.limit.bytes = z.exports.memory.buffer.byteLength + csize + usize + HEAP_SLACK;
  const src = z.exports.malloc(Math.max(1, csize));
  const dst = src === 0 ? 0 : z.exports.malloc(Math.max(1, usize));
  try {
    if (src === 0 || dst === 0) throw new ZstdError(`cannot hold ${csize} + ${usize} bytes to decode`);
    const input = new Uint8Array(z.exports.memory.buffer, src, csize);
    fill(input);
    // what the frames can make, from their headers alone, against what is declared: a mismatch
    // is refused without decoding (an RLE bomb's blocks add up past it; a content size differs)
    checkDeclared(walkFrames(input, limit), usize);
    let n: number;
    try {
      n = z.exports.decompress(dst, usize, src, csize);
    } catch (e) {
      instance = null; // a trap leaves the instance's heap in no known state: never reuse it
      throw new ZstdError(`the decoder stopped: ${(e as Error).message}`);
    }
    if (z.exports.isError(n)) {
      const code = -n | 0;
      throw new ZstdError(
        code === 70
          ? `it decodes to more than the ${usize} bytes declared`
          : `zstd error ${code}${ZSTD_ERRORS[code] === undefined ? "" : ` (${ZSTD_ERRORS[code]})`}`,
      );
    }
    inUse = true;
    try {
      return use(Buffer.from(z.exports.memory.buffer, dst, n >>> 0));
    } finally {
      inUse = false;
    }
  } finally {
    if (dst !== 0) z.exports.free(dst);
    if (src !== 0) z.exports.free(src);
    if (z.exports.memory.buffer.byteLength > RETAIN_BYTES) instance = null;
  }
}

/** zstd's error codes (zstd_errors.h) that a hostile frame can reach. */
const ZSTD_ERRORS: Record<number, string> = {
  1: "generic",
  10: "unknown frame prefix",
  12: "unsupported version",
  14: "unsupported frame parameter",
  16: "window too large",
  20: "corruption detected",
  22: "checksum wrong",
  24: "literals header wrong",
  30: "dictionary corrupted",
  32: "dictionary wrong",
  34: "dictionary creation failed",
  40: "unsupported parameter",
  42: "parameter out of bound",
  44: "table log too large",
  46: "max symbol value too large",
  48: "max symbol value too small",
  64: "memory allocation",
  70: "destination buffer too small",
  72: "source size wrong",
  74: "destination buffer null",
};

/** The bytes of WebAssembly memory this thread's decoder holds now (0 when none: never made, or dropped after a large member). */
export const decoderMemory = (): number => instance?.exports.memory.buffer.byteLength ?? 0;
