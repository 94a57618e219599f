// What a command may touch of its process: injected so tests can run `main` in-process.

import { OutputError, writeDescriptor } from "../io/output.js";
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Is stderr a terminal (progress bars) or a log (status lines)? */
  stderrIsTTY: boolean;
  /** Is stdout a terminal (colour for pass/fail markers, colour.ts)? Absent: no. */
  stdoutIsTTY?: boolean;
  /** A terminal's width when stdout is one (process.stdout.columns); absent elsewhere. */
  columns?: number | undefined;
  /** Register a Ctrl-C handler; returns its removal. In-process tests have none. */
  onInterrupt(handler: () => void): () => void;
}

export const processIo: CliIo = {
  // Checked to the last byte (a full disk behind `> file` is an error, not a cut document).
  stdout: (t) => {
    try {
      writeDescriptor(1, t, "standard output");
    } catch (e) {
      // A reader that stops early (`assay … | head`) is not an error worth a message.
      if (e instanceof OutputError && e.errno === "EPIPE") process.exit(process.exitCode ?? 0);
      throw e;
    }
  },
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  stderrIsTTY: process.stderr.isTTY === true,
  stdoutIsTTY: process.stdout.isTTY === true,
  // Read when a table is laid out, so a terminal resized since start-up is measured as it is.
  get columns() {
    return process.stdout.isTTY === true ? process.stdout.columns : undefined;
  },
  onInterrupt(handler) {
    process.on("SIGINT", handler);
    return () => void process.off("SIGINT", handler);
  },
};
