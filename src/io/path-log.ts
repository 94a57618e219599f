// The paths a BundleSet (shard-reader.ts) has seen, each with a number, appended and read back by
// where they lie: the first megabyte in memory, the rest in a temporary file (ASSAY_TMPDIR, else
// the system's temporary folder), so a million paths cost no memory beyond the set's table. The
// file's name is removed as soon as it is open (it lives on until closed, or until the process
// ends, however it ends: a set its caller never closes leaves nothing); where a system refuses
// that, close() removes it, and a later run one a killed run left behind.

import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forTerminal } from "../core/text.js";
import { removeStaleTemps } from "./output.js";

const NAME = "assay-paths";
/** Bytes held in memory before they go to the file (and at a time after). */
const HELD = 1024 * 1024;
/** Each path is its number (uint32), its length in bytes (uint32), then its UTF-8 bytes. */
const HEAD = 8;

/** The file could not be written or read back (a full disk): the command cannot finish, as when its spill cannot be written. */
class PathLogError extends Error {
  readonly code = "OUTPUT";
}

export class PathLog {
  private held = Buffer.allocUnsafe(HELD);
  private heldBytes = 0;
  /** Bytes in the file: where `held` begins. */
  private written = 0;
  private file: { name: string; fd: number } | null = null;

  constructor(private readonly dir = process.env["ASSAY_TMPDIR"] || tmpdir()) {}

  /** Append `path` with number `n`; where it lies, for read(). */
  append(path: string, n: number): number {
    const bytes = Buffer.byteLength(path, "utf8");
    if (this.heldBytes + HEAD + bytes > this.held.length) {
      this.flush();
      if (HEAD + bytes > this.held.length) this.held = Buffer.allocUnsafe(HEAD + bytes); // a long path: a buffer its size, for now
    }
    const at = this.written + this.heldBytes;
    this.held.writeUInt32LE(n, this.heldBytes);
    this.held.writeUInt32LE(bytes, this.heldBytes + 4);
    this.held.write(path, this.heldBytes + HEAD, "utf8");
    this.heldBytes += HEAD + bytes;
    return at;
  }

  /** The path appended at `at`, with its number. */
  read(at: number): { path: string; n: number } {
    if (at >= this.written) {
      const i = at - this.written;
      const bytes = this.held.readUInt32LE(i + 4);
      return { n: this.held.readUInt32LE(i), path: this.held.toString("utf8", i + HEAD, i + HEAD + bytes) };
    }
    const head = this.fromFile(at, HEAD);
    return { n: head.readUInt32LE(0), path: this.fromFile(at + HEAD, head.readUInt32LE(4)).toString("utf8") };
  }

  close(): void {
    if (this.file === null) return;
    closeSync(this.file.fd);
    rmSync(this.file.name, { force: true });
    this.file = null;
  }

  private fromFile(at: number, length: number): Buffer {
    const b = Buffer.allocUnsafe(length);
    try {
      for (let got = 0; got < length;) {
        const n = readSync(this.file!.fd, b, got, length - got, at + got);
        if (n === 0) throw new Error("the file is shorter than it was written");
        got += n;
      }
    } catch (e) {
      throw this.failed(e);
    }
    return b;
  }

  private flush(): void {
    if (this.heldBytes === 0) return;
    try {
      if (this.file === null) {
        removeStaleTemps(this.dir, NAME);
        const name = join(this.dir, `.${NAME}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
        this.file = { name, fd: openSync(name, "wx+", 0o600) };
        try {
          rmSync(name);
        } catch {
          // an open file cannot be removed here (Windows): close() removes it
        }
      }
      for (let at = 0; at < this.heldBytes;)
        at += writeSync(this.file.fd, this.held, at, this.heldBytes - at, this.written + at);
    } catch (e) {
      throw this.failed(e);
    }
    this.written += this.heldBytes;
    this.heldBytes = 0;
    if (this.held.length > HELD) this.held = Buffer.allocUnsafe(HELD);
  }

  private failed(e: unknown): PathLogError {
    return new PathLogError(
      `cannot keep the bundles' paths in a temporary file in ${forTerminal(this.dir)}: ${(e as Error).message} (ASSAY_TMPDIR names another folder: one that exists, is writable and has room)`,
    );
  }
}
