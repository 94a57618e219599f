// The one reader of an instance's text logs (test_output.txt, run_instance.log): streamed in
// chunks, UTF-8 with invalid sequences as U+FFFD (the harness's `decode(errors="replace")`) and a
// leading BOM kept as U+FEFF (Python's "utf-8" keeps it), lines by universal newlines. No log is
// held whole; a log over `maxBytes` is not read at all.

import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { LineSplitter } from "./python-text.js";

/** §14: a log over 64 MiB is `unverified` (LOG_TOO_LARGE), never read. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

export type LogRead = { read: "absent" } | { read: "too-large"; bytes: number } | { read: "unreadable"; why: string } | { read: "ok"; bytes: number };

/** Every line of `file` to `sink`, in order; what became of the reading. */
export async function readLogLines(file: string, sink: (line: string) => void, maxBytes = MAX_LOG_BYTES, chunkBytes = 64 * 1024): Promise<LogRead> {
  let bytes: number;
  try {
    const st = await stat(file);
    if (!st.isFile()) return { read: "unreadable", why: "not a regular file" };
    bytes = st.size;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? { read: "absent" } : { read: "unreadable", why: (e as Error).message };
  }
  if (bytes > maxBytes) return { read: "too-large", bytes };
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const lines = new LineSplitter(sink);
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: chunkBytes })) lines.push(decoder.decode(chunk as Buffer, { stream: true }));
  } catch (e) {
    return { read: "unreadable", why: (e as Error).message };
  }
  lines.push(decoder.decode());
  lines.end();
  return { read: "ok", bytes };
}
