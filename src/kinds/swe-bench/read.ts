// The one reader of an instance's text logs (test_output.txt, run_instance.log): streamed in
// chunks, UTF-8 with invalid sequences as U+FFFD (the harness's `decode(errors="replace")`) and a
// leading BOM kept as U+FEFF (Python's "utf-8" keeps it), lines by universal newlines. No log is
// held whole; a log over `maxBytes` is not read at all.

import { closeSync, openSync, readSync, statSync } from "node:fs";
import { LineSplitter } from "./python-text.js";

/** §14: a log over 64 MiB is `unverified` (LOG_TOO_LARGE), never read. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

export type LogRead =
  | { read: "absent" }
  | { read: "too-large"; bytes: number }
  | { read: "unreadable"; why: string }
  | { read: "ok"; bytes: number };

/** A log as its folder holds it: absent, there but not readable, or its size and its bytes in chunks. */
export type LogSource =
  { read: "absent" } | { read: "unreadable"; why: string } | { size: number; chunks: () => Iterable<Uint8Array> };

/** Every line of `src` to `sink`, in order; what became of the reading. Synchronous: a worker's scorer reads through it. */
export function readLogLinesFrom(src: LogSource, sink: (line: string) => void, maxBytes = MAX_LOG_BYTES): LogRead {
  if ("read" in src) return src;
  if (src.size > maxBytes) return { read: "too-large", bytes: src.size };
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const lines = new LineSplitter(sink);
  try {
    for (const chunk of src.chunks()) lines.push(decoder.decode(chunk, { stream: true }));
  } catch (e) {
    return { read: "unreadable", why: (e as Error).message };
  }
  lines.push(decoder.decode());
  lines.end();
  return { read: "ok", bytes: src.size };
}

/** A file on disk as a LogSource (read in chunks of `chunkBytes`). */
export function fileLog(file: string, chunkBytes = 64 * 1024): LogSource {
  try {
    const st = statSync(file);
    if (!st.isFile()) return { read: "unreadable", why: "not a regular file" };
    return { size: st.size, chunks: () => fileChunks(file, chunkBytes) };
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT"
      ? { read: "absent" }
      : { read: "unreadable", why: (e as Error).message };
  }
}

function* fileChunks(file: string, chunkBytes: number): Generator<Uint8Array> {
  const fd = openSync(file, "r");
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(chunkBytes);
      const n = readSync(fd, buf, 0, chunkBytes, null);
      if (n === 0) return;
      yield buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Every line of `file` to `sink`, in order; what became of the reading. */
export async function readLogLines(
  file: string,
  sink: (line: string) => void,
  maxBytes = MAX_LOG_BYTES,
  chunkBytes = 64 * 1024,
): Promise<LogRead> {
  return readLogLinesFrom(fileLog(file, chunkBytes), sink, maxBytes);
}
