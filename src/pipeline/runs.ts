// Sorted runs of bundle entries, one JSON text a line, in a temporary flat file, merged in path
// order as they are read back: an external merge sort for entries that come mostly in path order
// already (a merge's shard documents each are), so most of it is appending and one k-way merge.
// A stretch in order that follows on from the last run extends it; one that does not begins a
// run; short stretches (entries out of order) are sorted together into one run. At most
// FAN_IN runs are read at once: more are first merged FAN_IN at a time into a new file.

import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { BundleEntry } from "../core/results.js";
import { byteCompare } from "../core/text.js";
import { removeStaleTemps } from "../io/output.js";

/** Runs read at once in a merge (each with a READ buffer). */
export const FAN_IN = 64;
const READ = 64 * 1024;
const WRITE = 1024 * 1024;
/** A batch's buffer larger than this (grown for a long entry) is let go once the batch is written. */
const KEPT = 16 * 1024 * 1024;
/** A stretch in order shorter than this share of its batch is sorted with the other short ones. */
const SHORT = 1 / 16;

interface Run {
  start: number;
  end: number;
  /** The path of its last entry. */
  last: string;
}

/** One temporary file written from its start: lines appended, buffered. */
class Scratch {
  readonly file: string;
  readonly fd: number;
  size = 0;
  private held = Buffer.allocUnsafe(WRITE);
  private heldBytes = 0;

  constructor(dir: string, name: string) {
    removeStaleTemps(dir, name);
    this.file = join(dir, `.${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    this.fd = openSync(this.file, "wx+", 0o600);
    try {
      rmSync(this.file); // it lives on until closed: a killed merge leaves no entries behind
    } catch {
      // an open file cannot be removed here (Windows): remove() does
    }
  }

  /** One line (its text, then a line end). */
  line(text: string): void {
    if (this.heldBytes + 3 * text.length + 1 > this.held.length) {
      this.flush();
      if (3 * text.length + 1 > this.held.length) return this.put(Buffer.from(`${text}\n`, "utf8"));
    }
    this.heldBytes += this.held.write(text, this.heldBytes, "utf8");
    this.held[this.heldBytes++] = 0x0a;
  }

  /** Bytes already laid out as lines. */
  bytes(b: Uint8Array): void {
    if (this.heldBytes + b.length > this.held.length) this.flush();
    if (b.length >= this.held.length) return this.put(b);
    this.held.set(b, this.heldBytes);
    this.heldBytes += b.length;
  }

  /** Everything written so far is in the file; its size. */
  flush(): number {
    if (this.heldBytes > 0) this.put(this.held.subarray(0, this.heldBytes));
    this.heldBytes = 0;
    return this.size;
  }

  private put(b: Uint8Array): void {
    for (let at = 0; at < b.length;) at += writeSync(this.fd, b, at, b.length - at, this.size + at);
    this.size += b.length;
  }

  remove(): void {
    closeSync(this.fd);
    rmSync(this.file, { force: true });
  }
}

/** Entries' lines held before they go to a RunFile: their JSON texts' bytes off the JavaScript heap, each line's path and end. */
export class Batch {
  bytes = Buffer.allocUnsafe(64 * 1024);
  size = 0;
  readonly paths: string[] = [];
  readonly ends: number[] = [];

  add(path: string, json: string): void {
    if (this.size + 3 * json.length + 1 > this.bytes.length) {
      // the bound (3 bytes a UTF-16 unit) decides whether to look; the exact size, how much to take
      const more = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, this.size + Buffer.byteLength(json, "utf8") + 1));
      this.bytes.copy(more, 0, 0, this.size);
      this.bytes = more;
    }
    this.size += this.bytes.write(json, this.size, "utf8");
    this.bytes[this.size++] = 0x0a;
    this.paths.push(path);
    this.ends.push(this.size);
  }

  /** Line i's bytes, its line end included. */
  line(i: number): Buffer {
    return this.bytes.subarray(i === 0 ? 0 : this.ends[i - 1]!, this.ends[i]!);
  }

  clear(): void {
    this.size = 0;
    this.paths.length = 0;
    this.ends.length = 0;
    if (this.bytes.length > KEPT) this.bytes = Buffer.allocUnsafe(64 * 1024); // one long entry's buffer is not kept
  }
}

/** One run's lines, read READ bytes at a time. */
class RunReader {
  private buf = Buffer.allocUnsafe(READ);
  private from = 0;
  private to = 0;

  constructor(
    private readonly fd: number,
    private at: number,
    private readonly end: number,
  ) {}

  /** The next line, or null at the run's end. */
  next(): string | null {
    const parts: Buffer[] = [];
    for (;;) {
      if (this.from === this.to) {
        if (this.at >= this.end) {
          if (parts.length > 0) throw new Error("a spilled run ends inside a line");
          return null;
        }
        const n = readSync(this.fd, this.buf, 0, Math.min(READ, this.end - this.at), this.at);
        if (n === 0) throw new Error("the spill file is shorter than it was written");
        this.at += n;
        this.from = 0;
        this.to = n;
      }
      const nl = this.buf.indexOf(0x0a, this.from);
      if (nl !== -1 && nl < this.to) {
        const line =
          parts.length === 0
            ? this.buf.toString("utf8", this.from, nl)
            : Buffer.concat([...parts, this.buf.subarray(this.from, nl)]).toString("utf8");
        this.from = nl + 1;
        return line;
      }
      // A line longer than what is left of the buffer: kept, and the buffer read into anew.
      parts.push(Buffer.from(this.buf.subarray(this.from, this.to)));
      this.from = this.to;
    }
  }
}

/** A run's entry at the head of the merge. */
interface Head {
  entry: BundleEntry;
  line: string;
  /** Which run: ties in path go in the order the runs were written. */
  run: number;
  reader: RunReader;
}

/** Lines of `runs` in `fd`, merged by path (ties: the earlier run first), each with its entry. */
function* merge(fd: number, runs: readonly Run[]): Generator<Head> {
  const heap: Head[] = [];
  const before = (a: Head, b: Head) => {
    const c = byteCompare(a.entry.path, b.entry.path);
    return c < 0 || (c === 0 && a.run < b.run);
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const c = l + 1 < heap.length && before(heap[l + 1]!, heap[l]!) ? l + 1 : l;
      if (!before(heap[c]!, heap[i]!)) return;
      [heap[c], heap[i]] = [heap[i]!, heap[c]!];
      i = c;
    }
  };
  /** The run's next line into `h`; false at its end. */
  const advance = (h: Head): boolean => {
    const line = h.reader.next();
    if (line === null) return false;
    h.line = line;
    h.entry = JSON.parse(line) as BundleEntry;
    return true;
  };
  runs.forEach((r, run) => {
    const h: Head = { entry: null!, line: "", run, reader: new RunReader(fd, r.start, r.end) };
    if (advance(h)) heap.push(h);
  });
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const top = heap[0]!;
    yield top;
    if (!advance(top)) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    down(0);
  }
}

/** Entries' JSON texts in sorted runs of a temporary file: added a batch at a time, read back merged in path order. */
export class RunFile {
  private scratch: Scratch;
  private runs: Run[] = [];

  constructor(
    private readonly dir: string,
    private readonly name: string,
  ) {
    this.scratch = new Scratch(dir, name);
  }

  /** A batch's lines in the order given: its stretches in path order, as runs. */
  add(batch: Batch): void {
    const { paths } = batch;
    const short: number[] = [];
    for (let i = 0; i < paths.length;) {
      let j = i + 1;
      while (j < paths.length && byteCompare(paths[j - 1]!, paths[j]!) <= 0) j++;
      if (j - i < paths.length * SHORT) for (let k = i; k < j; k++) short.push(k);
      else
        this.stretch(paths[i]!, paths[j - 1]!, () =>
          this.scratch.bytes(batch.bytes.subarray(i === 0 ? 0 : batch.ends[i - 1]!, batch.ends[j - 1]!)),
        );
      i = j;
    }
    if (short.length === 0) return;
    short.sort((a, b) => byteCompare(paths[a]!, paths[b]!));
    this.stretch(paths[short[0]!]!, paths[short[short.length - 1]!]!, () => {
      for (const k of short) this.scratch.bytes(batch.line(k));
    });
  }

  /** Lines in path order from `first` to `last`, written by `write`: the last run goes on with them, or they begin one. */
  private stretch(first: string, last: string, write: () => void): void {
    const run = this.runs[this.runs.length - 1];
    const start = run !== undefined && byteCompare(run.last, first) <= 0 ? null : this.scratch.flush();
    write();
    const end = this.scratch.flush();
    if (start === null) {
      run!.end = end;
      run!.last = last;
    } else this.runs.push({ start, end, last });
  }

  /** Every entry, in path order (ties: the earlier run first). */
  *merged(): Generator<BundleEntry> {
    this.scratch.flush();
    // More runs than are read at once: merged FAN_IN at a time into a new file, until few enough.
    while (this.runs.length > FAN_IN) {
      const into = new Scratch(this.dir, this.name);
      const runs: Run[] = [];
      try {
        for (let g = 0; g < this.runs.length; g += FAN_IN) {
          const start = into.flush();
          let last = "";
          for (const h of merge(this.scratch.fd, this.runs.slice(g, g + FAN_IN))) {
            into.line(h.line);
            last = h.entry.path;
          }
          runs.push({ start, end: into.flush(), last });
        }
      } catch (e) {
        into.remove();
        throw e;
      }
      this.scratch.remove();
      this.scratch = into;
      this.runs = runs;
    }
    for (const h of merge(this.scratch.fd, this.runs)) yield h.entry;
  }

  close(): void {
    this.scratch.remove();
  }
}
