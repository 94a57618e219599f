// readChunks stops at a short read that meets the size fstat gave, or the size listed for the file
// (one read, or an fstat, fewer per file): it must still yield every byte, at every size around its
// buffer's, whatever size it was told, and follow a file that grows.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readChunks } from "../src/io/bundle-source.js";
import { scratch } from "./helpers/shared.js";

const { dir } = scratch("assay-perf-io-");
const MiB = 1024 * 1024;
const bytesOf = (n: number) => {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + 3) & 0xff;
  return b;
};

describe("readChunks", () => {
  it("yields every byte of files of every size around its buffer's", () => {
    for (const n of [0, 1, 2, 4095, 4096, MiB - 1, MiB, MiB + 1, 2 * MiB + 5]) {
      const file = join(dir, `f${n}`);
      const data = bytesOf(n);
      writeFileSync(file, data);
      expect(Buffer.concat([...readChunks(file)]).equals(data)).toBe(true);
    }
  });

  it("yields every byte whatever size was listed for the file (a stale listing: it grew or shrank)", () => {
    for (const n of [0, 1, 5, MiB - 1, MiB, MiB + 3]) {
      const file = join(dir, `l${n}`);
      const data = bytesOf(n);
      writeFileSync(file, data);
      for (const listed of [0, 1, n - 1, n, n + 1, 2 * n + 7, MiB, MiB + 1].filter((x) => x >= 0))
        expect(Buffer.concat([...readChunks(file, listed)]).equals(data), `${n} bytes listed as ${listed}`).toBe(true);
    }
  });

  it("a file larger than listed (a stale listing) is read on in whole chunks, not a byte at a time", () => {
    const file = join(dir, "stale");
    writeFileSync(file, bytesOf(2 * MiB));
    // Listed as 0 bytes: a 1-byte buffer first, then chunks of the buffer's full size.
    expect([...readChunks(file, 0)].map((c) => c.length)).toEqual([1, MiB, MiB - 1]);
    expect([...readChunks(file, 10)].map((c) => c.length)).toEqual([11, MiB, MiB - 11]);
  });

  it("a listed file is one chunk of its size; a FIFO (which states size 0) comes in whole chunks, to its end", async () => {
    const file = join(dir, "small");
    writeFileSync(file, bytesOf(100));
    expect([...readChunks(file, 100)].map((c) => c.length)).toEqual([100]);
    expect([...readChunks(file)].map((c) => c.length)).toEqual([100]);
    const fifo = join(dir, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const data = bytesOf(300_000);
    writeFileSync(join(dir, "fed"), data);
    const writer = spawn("sh", ["-c", 'cat "$0" > "$1"', join(dir, "fed"), fifo]);
    const chunks = [...readChunks(fifo)].map((c) => Buffer.from(c));
    await once(writer, "exit");
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    expect(chunks.length).toBeLessThan(100); // it was read a byte at a time
  });

  it("reads on past the size it was opened with when the file grows while it is read", () => {
    const file = join(dir, "growing");
    writeFileSync(file, bytesOf(MiB + 100));
    const chunks: Buffer[] = [];
    for (const c of readChunks(file)) {
      chunks.push(Buffer.from(c));
      if (chunks.length === 1) appendFileSync(file, "tail");
    }
    expect(Buffer.concat(chunks).equals(Buffer.concat([bytesOf(MiB + 100), Buffer.from("tail")]))).toBe(true);
  });
});
