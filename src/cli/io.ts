// What a command may touch of its process: injected so tests can run `main` in-process.
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Is stderr a terminal (progress bars) or a log (status lines)? */
  stderrIsTTY: boolean;
  /** Register a Ctrl-C handler; returns its removal. In-process tests have none. */
  onInterrupt(handler: () => void): () => void;
}

export const processIo: CliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  stderrIsTTY: process.stderr.isTTY === true,
  onInterrupt(handler) {
    process.on("SIGINT", handler);
    return () => void process.off("SIGINT", handler);
  },
};
