// Run the CLI in-process (main(argv, io)) or as a spawned `node dist/cli.js` (also with its peak RSS).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.js";

export const CLI = new URL("../../dist/cli.js", import.meta.url).pathname;

export async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env,
    stderrIsTTY: false,
    onInterrupt: () => () => {},
  });
  return { code, stdout, stderr };
}

export function spawnCli(argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...argv], { encoding: "utf8", cwd: opts.cwd, env: { ...process.env, ...opts.env } });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const MAXRSS = fileURLToPath(new URL("../fixtures/max-rss.mjs", import.meta.url));

/** Spawn the built CLI under `node` flags (a heap cap); its peak RSS in KB (the whole process: main thread and workers) comes back beside its exit code. */
export function spawnMeasured(argv: string[], node: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const dir = mkdtempSync(join(tmpdir(), "assay-rss-"));
  try {
    const file = join(dir, "maxrss");
    const r = spawnSync(process.execPath, [...node, "--import", MAXRSS, CLI, ...argv], { encoding: "utf8", env: { ...process.env, ...env, MAXRSS_FILE: file } });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, maxRssKb: Number(readFileSync(file, "utf8")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
