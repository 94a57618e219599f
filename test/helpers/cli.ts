// Run the CLI in-process (main(argv, io)) or as a spawned `node dist/cli.js`.
import { spawnSync } from "node:child_process";
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
