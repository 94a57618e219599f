// Run the CLI in-process (main(argv, io)) or as a spawned `node dist/cli.js`: waited for (also with
// its peak RSS), or started and left running for a test to watch, stop or kill.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.js";

export const CLI = new URL("../../dist/cli.js", import.meta.url).pathname;

/**
 * Run main() in this process with `env` as its whole environment, but for COLUMNS, the test run's
 * own unless `env` sets it (test/vitest.config.ts: tables unfitted); stdout a terminal (of
 * `columns`) only when asked.
 */
export async function run(
  argv: string[],
  env: Record<string, string | undefined> = {},
  tty: { stdoutIsTTY?: boolean; columns?: number } = {},
) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { COLUMNS: process.env["COLUMNS"], ...env },
    stderrIsTTY: false,
    ...tty,
    onInterrupt: () => () => {},
  });
  return { code, stdout, stderr };
}

export interface SpawnOptions {
  cwd?: string;
  /** Added to this process's environment (a key set to undefined is left out). */
  env?: NodeJS.ProcessEnv;
  /** Node's own flags, before the CLI: a heap cap, an --import hook. */
  node?: string[];
  /** Killed after this many ms (its code is then null, its signal SIGTERM). */
  timeout?: number;
  /** Bytes of stdout or stderr taken before it is killed (Node's default is 1 MiB). */
  maxBuffer?: number;
  /** Run as nobody (uid and gid 65534) when the tests run as root, whom no file mode stops. */
  unprivileged?: boolean;
}

const AS_NOBODY = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/** Spawn the built CLI and wait: its exit code (null if killed), signal, stdout and stderr. */
export function spawnCli(argv: string[], opts: SpawnOptions = {}) {
  const { node = [], env, unprivileged = false, ...rest } = opts;
  const r = spawnSync(process.execPath, [...node, CLI, ...argv], {
    encoding: "utf8",
    ...rest,
    ...(unprivileged ? AS_NOBODY : {}),
    env: { ...process.env, ...env },
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

export interface Started {
  /** The running CLI (its pid; kill() to stop it). */
  child: ChildProcess;
  /** What it has written so far. */
  stdout: () => string;
  stderr: () => string;
  /** Once it has exited and all its output is read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start the built CLI without waiting for it (a test that must answer its requests, or watch and kill it). */
export function startCli(argv: string[], opts: Pick<SpawnOptions, "cwd" | "env"> = {}): Started {
  const child = spawn(process.execPath, [CLI, ...argv], {
    cwd: opts.cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...opts.env },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (t: string) => void (out += t));
  child.stderr.setEncoding("utf8").on("data", (t: string) => void (err += t));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

const MAXRSS = fileURLToPath(new URL("../fixtures/max-rss.mjs", import.meta.url));

/** Spawn the built CLI under `node` flags (a heap cap); its peak RSS in KB (the whole process: main thread and workers) comes back beside its exit code. */
export function spawnMeasured(argv: string[], node: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const dir = mkdtempSync(join(tmpdir(), "assay-rss-"));
  try {
    const file = join(dir, "maxrss");
    const r = spawnCli(argv, { node: [...node, "--import", MAXRSS], env: { ...env, MAXRSS_FILE: file } });
    return { code: r.code, stdout: r.stdout, stderr: r.stderr, maxRssKb: Number(readFileSync(file, "utf8")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
