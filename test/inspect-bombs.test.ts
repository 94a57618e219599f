// Hostile .eval structure (issue 21, items 2 and 3): zstd frames that expand without bound or
// declare a huge window or content size, and an end record that lies about the size of its central
// directory. Each is a real file on disk (the large ones sparse), run through the built CLI —
// `verify` in process, `score` through real workers — under a heap cap, with its peak RSS measured:
// a finding (EVAL_CORRUPT) in bounded memory, never a tool error or exit 3.

import { randomBytes } from "node:crypto";
import { closeSync, existsSync, ftruncateSync, openSync, readdirSync, statSync, writeSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { scoreInspectLog } from "../src/kinds/inspect/read.js";
import { inspectLogBytes } from "../src/synth/inspect.js";
import { decodeZstd, decodeZstdInPlace, decoderMemory } from "../src/io/zstd.js";
import { compressed, readyZstd, zipBytes } from "../src/synth/zip.js";
import { blockBomb as bombOf, compressedBlock } from "../src/fuzz/eval.js";
import { decodeBudget, overDecodeBudget, readDirectory } from "../src/kinds/inspect/zip.js";
import { spawnMeasured } from "./helpers/cli.js";
import { HAVE_SHARED, SHARED_DIR } from "./helpers/shared.js";
import { members, place, scratch, type Member } from "./helpers/inspect.js";
import { join } from "node:path";

/** A zstd frame header: no checksum, no dictionary; `window` (a descriptor byte) or single-segment with `fcs`. */
function frameHeader(o: { wd?: number; fcs?: bigint }): Buffer {
  const magic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
  if (o.fcs !== undefined) {
    const fcs = Buffer.alloc(8);
    fcs.writeBigUInt64LE(o.fcs);
    return Buffer.concat([
      magic,
      Buffer.from([0xc0 | (o.wd === undefined ? 0x20 : 0), ...(o.wd === undefined ? [] : [o.wd])]),
      fcs,
    ]);
  }
  return Buffer.concat([magic, Buffer.from([0x00, o.wd ?? 0x38])]);
}

/** `n` RLE blocks of 128 KiB each (4 bytes apiece: 32,768 times their size once decoded), the last marked last. */
function rleBlocks(n: number): Buffer {
  const b = Buffer.alloc(4 * n);
  for (let i = 0; i < n; i++) {
    const h = ((128 * 1024) << 3) | (1 << 1) | (i === n - 1 ? 1 : 0);
    b[4 * i] = h & 0xff;
    b[4 * i + 1] = (h >> 8) & 0xff;
    b[4 * i + 2] = (h >> 16) & 0xff;
    b[4 * i + 3] = 0x20; // the repeated byte: a space
  }
  return b;
}

/** A frame of `n` compressed blocks, each ~15 bytes making 128 KiB: only decoding can tell how much. */
let block: Buffer;
const blockBomb = (n: number): Buffer => bombOf(n, block);

let base: Member[];
beforeAll(async () => {
  await readyZstd();
  block = compressedBlock();
  expect((block.readUIntLE(0, 3) >> 1) & 3).toBe(2); // a compressed block

  const file = place(
    "base.eval",
    inspectLogBytes({
      task: "bombs",
      model: "openai/gpt-4o-mini",
      case: "clean",
      samples: 3,
      epochs: 1,
      format: "eval",
      method: 8,
      seed: "bombs",
      offset: 0,
    }),
  );
  base = members(file);
});

/** Bomb members declare 64 KiB (or what is given): more than their bodies, so their compressed size is plausible and they reach the decoder. */
const DECLARED = 64 * 1024;

/** The clean base log with its first sample member's body replaced by `body` (method 93, declaring `usize` bytes). */
function withBody(name: string, body: Buffer, usize = DECLARED): string {
  const first = base.findIndex((m) => m.name.startsWith("samples/"));
  const ms = base.map((m, i) => (i === first ? { ...m, method: 93 as const, body, usize } : m));
  return place(name, zipBytes(ms));
}

function verify(file: string) {
  const r = spawnMeasured(["verify", file, "--json"], ["--max-old-space-size=256"]);
  return { ...r, rssMB: r.maxRssKb / 1024, entry: r.stdout.trim() === "" ? null : JSON.parse(r.stdout) };
}
function score(file: string) {
  const r = spawnMeasured(["score", file, "--jobs", "2", "--format", "json", "--quiet"], ["--max-old-space-size=256"]);
  return { ...r, rssMB: r.maxRssKb / 1024, entry: r.stdout.trim() === "" ? null : JSON.parse(r.stdout).bundles[0] };
}

/** An entry found invalid for EVAL_CORRUPT (its message matching `message`), not a tool error. */
function expectCorrupt(r: ReturnType<typeof verify>, message: RegExp, exit: number, maxMB: number): void {
  expect(r.stderr).not.toMatch(/IO_ERROR|WORKER_FAILED|out of range/i);
  expect(r.code, r.stderr).toBe(exit);
  expect(r.entry).not.toBeNull();
  expect(r.entry.validity).toBe("invalid");
  const corrupt = (r.entry.errors as { code: string; message: string }[]).filter((f) => f.code === "EVAL_CORRUPT");
  expect(corrupt.map((f) => f.message).join("\n")).toMatch(message);
  expect(r.rssMB).toBeLessThan(maxMB);
}

// The CLI itself (node, its modules, two workers) peaks near 150 MB; each bomb below took
// gigabytes before the fix.
const BOUND_MB = 256;

describe("zstd bombs are decoded within the member's declared size", () => {
  it("RLE blocks decoding to 1.3 GB in a 40 KB member that declares 64 KiB: refused from their headers, before decoding", () => {
    const file = withBody("rle-bomb.eval", Buffer.concat([frameHeader({}), rleBlocks(10_000)]));
    for (const [r, exit] of [
      [verify(file), 1],
      [score(file), 0],
    ] as const) {
      console.log(`rle bomb: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectCorrupt(
        r,
        /samples\/.*its raw and RLE blocks alone make 1310720000 bytes, more than the 65536 declared/,
        exit,
        BOUND_MB,
      );
    }
  }, 120_000);

  it("compressed blocks decoding to 1.3 GB in a 150 KB member that declares 256 KiB: decoding stops at 256 KiB", () => {
    const file = withBody("block-bomb.eval", blockBomb(10_000), 256 * 1024);
    for (const [r, exit] of [
      [verify(file), 1],
      [score(file), 0],
    ] as const) {
      console.log(`compressed-block bomb: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectCorrupt(r, /samples\/.*decodes to more than the 262144 bytes declared/, exit, BOUND_MB);
    }
  }, 120_000);

  it("a 9.5 KB frame declaring a 1.875 GiB window is refused before decoding", () => {
    const file = withBody("window-bomb.eval", Buffer.concat([frameHeader({ wd: (20 << 3) | 7 }), rleBlocks(2_400)]));
    for (const [r, exit] of [
      [verify(file), 1],
      [score(file), 0],
    ] as const) {
      console.log(`window bomb: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectCorrupt(r, /declares a window of 2013265920 bytes, more than the 268435456/, exit, BOUND_MB);
    }
  }, 120_000);

  it("a frame declaring 2 GiB (less 1 MiB) of content is refused before decoding", () => {
    const file = withBody(
      "content-bomb.eval",
      Buffer.concat([frameHeader({ wd: 0x38, fcs: 2n ** 31n - 2n ** 20n }), rleBlocks(2_400)]),
    );
    for (const [r, exit] of [
      [verify(file), 1],
      [score(file), 0],
    ] as const) {
      console.log(`content-size bomb: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectCorrupt(r, /declares 2146435072 bytes of content/, exit, BOUND_MB);
    }
  }, 120_000);

  it("several bomb members in one 180 KB log", () => {
    const body = blockBomb(4_000); // 60 KB, 524 MB decoded, each
    const ms = base.map((m) =>
      m.name.startsWith("samples/") ? { ...m, method: 93 as const, body, usize: 128 * 1024 } : m,
    );
    const file = place("many-bombs.eval", zipBytes(ms));
    for (const [r, exit] of [
      [verify(file), 1],
      [score(file), 0],
    ] as const) {
      console.log(
        `${ms.filter((m) => m.name.startsWith("samples/")).length} bomb members: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`,
      );
      expectCorrupt(r, /decodes to more than the 131072 bytes declared/, exit, BOUND_MB);
    }
  }, 120_000);
});

describe("a log's decoded bytes are bounded by its size (decodeBudget: 64 times it and 16 MiB)", () => {
  it("three consistent zstd members at the 256 MiB cap in a 92 KB log (verify took 74 s and 1.13 GB, score timed out): FILE_TOO_LARGE before decoding", () => {
    const body = blockBomb(2_048); // 30 KB, exactly 256 MiB decoded: within every per-member limit
    const ms = base.map((m) =>
      m.name.startsWith("samples/") ? { ...m, method: 93 as const, body, usize: 256 * 2 ** 20 } : m,
    );
    const file = place("cap-bombs.eval", zipBytes(ms));
    for (const [r, exit] of [
      [verify(file), 1],
      [score(file), 0],
    ] as const) {
      console.log(`three 256 MiB members: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expect(r.code, r.stderr).toBe(exit);
      expect(r.entry.validity).toBe("invalid"); // earns nothing: never set aside as the tool's error
      expect(r.entry.errors.map((f: { code: string }) => f.code)).toEqual(["FILE_TOO_LARGE"]);
      expect(r.entry.errors[0].message).toMatch(
        /its members declare 805\d+ bytes uncompressed, more than assay decodes for a log of 9\d{4} bytes \(2\d{7}: 64 times its size and 16777216, at most 34359738368\)/,
      );
      expect(r.entry.experiment).toBe("bombs (openai/gpt-4o-mini)"); // its header, within the budget, still names it
      expect(r.rssMB).toBeLessThan(BOUND_MB);
    }
  }, 60_000);

  /** The base log with its first sample padded by `random` bytes of random text and `spaces` spaces (Deflate): a chosen ratio. */
  function padded(name: string, random: number, spaces: number): string {
    const first = base.findIndex((m) => m.name.startsWith("samples/"));
    const sample = JSON.parse(base[first]!.data.toString("utf8"));
    sample.store = { pad: randomBytes(random * 0.75).toString("base64") + " ".repeat(spaces) };
    return place(
      name,
      zipBytes(
        base.map((m, i) => (i === first ? { ...m, data: Buffer.from(JSON.stringify(sample)), method: 8 as const } : m)),
      ),
    );
  }

  it("both sides of the line, in process: 50 times its size is read; 120 times is refused, in bounded time", () => {
    const honest = padded("compressible.eval", 512 * 1024, 20 * 2 ** 20);
    const { size } = statSync(honest);
    const entry = scoreInspectLog(honest, "eval");
    expect(entry.validity).toBe("valid");
    expect(decodeBudget(size)).toBeGreaterThan(20.5 * 2 ** 20);
    const attack = padded("too-compressible.eval", 512 * 1024, 48 * 2 ** 20);
    const t = performance.now();
    const refused = scoreInspectLog(attack, "eval");
    expect(refused.validity).toBe("invalid");
    expect(refused.errors.map((f) => f.code)).toEqual(["FILE_TOO_LARGE"]);
    expect(performance.now() - t).toBeLessThan(2_000);
  });

  it("a Deflate member of 64 MiB in a 70 KB log (1,000:1, consistent, its CRC right) is refused; a lying one stays EVAL_CORRUPT", () => {
    const data = Buffer.alloc(64 * 2 ** 20, 0x20);
    const first = base.findIndex((m) => m.name.startsWith("samples/"));
    const file = place(
      "deflate-cap.eval",
      zipBytes(base.map((m, i) => (i === first ? { ...m, data, method: 8 as const } : m))),
    );
    const entry = scoreInspectLog(file, "eval");
    expect(entry.errors.map((f) => f.code)).toEqual(["FILE_TOO_LARGE"]);
    // a declared size the bytes cannot hold costs nothing to refuse: it keeps its own finding
    const lie = base.map((m, i) => (i === first ? { ...m, usize: 300 * 2 ** 20 } : m));
    expect(scoreInspectLog(place("deflate-lie.eval", zipBytes(lie)), "eval").errors.map((f) => f.code)).toContain(
      "EVAL_CORRUPT",
    );
  });

  it("every real .eval under shared/real-world decodes to at most 13 times its size, well within its budget", () => {
    const logs = realEvals();
    if (logs.length === 0) return;
    for (const file of logs) {
      const d = readDirectory(file);
      const decoded = d.members.reduce((n, m) => n + m.usize, 0);
      expect(decoded / d.size, file).toBeLessThan(13);
      expect(overDecodeBudget(d.members, d.size), file).toBeNull();
    }
  });
});

/** The real .eval logs kept under shared/real-world (none on a fresh clone). */
function realEvals(): string[] {
  if (!HAVE_SHARED) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".eval")) out.push(join(dir, e.name));
    }
  };
  for (const d of ["inspect", "inspect-more"])
    if (existsSync(join(SHARED_DIR, "real-world", d))) walk(join(SHARED_DIR, "real-world", d));
  return out;
}

/**
 * The clean base log with a hole of `hole` bytes between its central directory and its end record,
 * which claims the directory runs to the record (ZIP64 records when `zip64`): a sparse file.
 */
function lyingEnd(name: string, hole: number, zip64: boolean): string {
  const whole = zipBytes(base);
  const eocd = whole.length - 22;
  const count = whole.readUInt16LE(eocd + 10);
  const cdOffset = whole.readUInt32LE(eocd + 16);
  const body = whole.subarray(0, eocd);
  const file = join(scratch(), name);
  const fd = openSync(file, "w");
  try {
    writeSync(fd, body, 0, body.length, 0);
    const at = body.length + hole;
    ftruncateSync(fd, at);
    const cdSize = at - cdOffset;
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    if (zip64) {
      const rec = Buffer.alloc(56);
      rec.writeUInt32LE(0x06064b50, 0);
      rec.writeBigUInt64LE(44n, 4);
      rec.writeUInt16LE(45, 12);
      rec.writeUInt16LE(45, 14);
      rec.writeBigUInt64LE(BigInt(count), 24);
      rec.writeBigUInt64LE(BigInt(count), 32);
      rec.writeBigUInt64LE(BigInt(cdSize), 40);
      rec.writeBigUInt64LE(BigInt(cdOffset), 48);
      const loc = Buffer.alloc(20);
      loc.writeUInt32LE(0x07064b50, 0);
      loc.writeBigUInt64LE(BigInt(at), 8);
      loc.writeUInt32LE(1, 16);
      end.writeUInt16LE(0xffff, 8);
      end.writeUInt16LE(0xffff, 10);
      end.writeUInt32LE(0xffffffff, 12);
      end.writeUInt32LE(0xffffffff, 16);
      const tail = Buffer.concat([rec, loc, end]);
      writeSync(fd, tail, 0, tail.length, at);
    } else {
      end.writeUInt16LE(count, 8);
      end.writeUInt16LE(count, 10);
      end.writeUInt32LE(cdSize, 12);
      end.writeUInt32LE(cdOffset, 16);
      writeSync(fd, end, 0, end.length, at);
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

describe("an end record that lies about its central directory", () => {
  it("claims a 2 GB directory for a few entries (sparse file): EVAL_CORRUPT, read in chunks", () => {
    const file = lyingEnd("lying-end.eval", 2_000_000_000, false);
    for (const [r, exit] of [
      [verify(file), 1],
      [score(file), 0],
    ] as const) {
      console.log(`2 GB directory claimed: exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectCorrupt(
        r,
        /the end record says the central directory is \d+ bytes, more than its \d+ entries can need/,
        exit,
        BOUND_MB,
      );
    }
  }, 120_000);

  it("claims a 4.5 GiB directory in ZIP64 records: EVAL_CORRUPT, not Node's out-of-range IO_ERROR", () => {
    const file = lyingEnd("lying-end64.eval", 4.5 * 2 ** 30, true);
    for (const [r, exit] of [
      [verify(file), 1],
      [score(file), 0],
    ] as const) {
      console.log(`4.5 GiB directory claimed (ZIP64): exit ${r.code}, peak RSS ${r.rssMB.toFixed(0)} MB`);
      expectCorrupt(
        r,
        /the end record says the central directory is \d+ bytes, more than its \d+ entries can need/,
        exit,
        BOUND_MB,
      );
    }
  }, 120_000);
});

describe("a ZIP64 extra field cut short by its length (found by the .eval fuzzer)", () => {
  it("is no read past the field: the walk of a log without its end record stops, not the worker", () => {
    const bytes = zipBytes(base, { zip64: true, end: false });
    bytes.writeUInt16LE(19, 28); // the first local header's extra field: 19 bytes, its ZIP64 field says 16 after 4
    const entry = scoreInspectLog(place("zip64-extra-cut.eval", bytes), "eval");
    expect(entry.validity).not.toBe("error");
    // its csize is not in the field's 19 bytes: the member seems to run past the end, a cut writer
    expect(JSON.stringify(entry)).toContain("EVAL_TRUNCATED");
  });
});

describe("a declared size its compressed bytes cannot hold", () => {
  const first = () => base.findIndex((m) => m.name.startsWith("samples/"));
  it("is EVAL_CORRUPT (a lie), not the tool error FILE_TOO_LARGE", () => {
    const ms = base.map((m, i) => (i === first() ? { ...m, usize: 300 * 2 ** 20 } : m)); // Deflate: at most 1032 x its bytes
    const entry = scoreInspectLog(place("declared-300mb.eval", zipBytes(ms)), "eval");
    expect(entry.validity).toBe("invalid");
    expect(entry.errors.map((f) => f.message).join("\n")).toMatch(
      /314572800 bytes uncompressed declared, more than its \d+ compressed bytes can hold/,
    );
  });

  it("while a member whose bytes could hold it is FILE_TOO_LARGE, assay's own limit, before anything is decoded: invalid, as a log past any of assay's limits", () => {
    const body = Buffer.concat([frameHeader({}), rleBlocks(2_400)]); // 300 MiB decoded
    const ms = base.map((m, i) => (i === first() ? { ...m, method: 93 as const, body, usize: 300 * 2 ** 20 } : m));
    const entry = scoreInspectLog(place("really-300mb.eval", zipBytes(ms)), "eval");
    expect(entry.validity).toBe("invalid");
    expect(entry.errors.map((f) => f.code)).toEqual(["FILE_TOO_LARGE"]);
  });
});

describe("the zstd decoder's memory", () => {
  it("a large member's memory is not kept: the instance is dropped after it, and the next starts small", async () => {
    await readyZstd();
    const data = Buffer.alloc(96 * 2 ** 20);
    for (let i = 0; i < data.length; i += 4096) data.write(`{"sample":${i},"text":"step ${i % 977}"}`, i);
    const body = Buffer.from(compressed(data, 93, 2));
    const out = decodeZstd(body.length, data.length, 256 * 2 ** 20, (into) => into.set(body));
    expect(out.equals(data)).toBe(true);
    expect(decoderMemory()).toBe(0); // grew past 64 MB: dropped
    const small = Buffer.from('{"a":1}');
    const z = Buffer.from(compressed(small, 93));
    expect(decodeZstd(z.length, small.length, 256 * 2 ** 20, (into) => into.set(z)).equals(small)).toBe(true);
    expect(decoderMemory()).toBeLessThanOrEqual(32 * 2 ** 20);
    // a content size other than the declared one is refused from the frame header; frames that
    // declare none are decoded only as far as the declared size
    expect(() => decodeZstd(body.length, data.length - 1, 256 * 2 ** 20, (into) => into.set(body))).toThrow(
      /its frames declare 100663296 bytes of content, the directory 100663295/,
    );
    const bomb = blockBomb(2_000);
    expect(() => decodeZstd(bomb.length, 2_000 * 128 * 1024 - 1, 256 * 2 ** 20, (into) => into.set(bomb))).toThrow(
      /decodes to more than the 262143999 bytes declared/,
    );
    expect(decodeZstd(bomb.length, 2_000 * 128 * 1024, 256 * 2 ** 20, (into) => into.set(bomb)).length).toBe(
      2_000 * 128 * 1024,
    );
    expect(decoderMemory()).toBe(0);
  });
  it("in place: `use` reads the decoded bytes where they were written, may not decode again meanwhile, and its own error passes through", async () => {
    await readyZstd();
    const small = Buffer.from('{"a":1}');
    const z = Buffer.from(compressed(small, 93));
    const decode = <T>(use: (b: Buffer) => T) =>
      decodeZstdInPlace(z.length, small.length, 2 ** 20, (into) => into.set(z), use);
    expect(decode((b) => b.toString())).toBe('{"a":1}');
    expect(() => decode(() => decode((b) => b.length))).toThrow(/called again before its `use` returned/);
    const mine = new Error("the caller's own");
    expect(() =>
      decode(() => {
        throw mine;
      }),
    ).toThrow(mine);
    expect(decode((b) => b.toString())).toBe('{"a":1}'); // usable again after both
  });
});
