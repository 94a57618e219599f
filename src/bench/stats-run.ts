// The statistics bench's hands on the real CLI: `node <cli> ARGS` spawned without blocking (two
// cells may run at once), its exit code, and the JSON document it wrote. Nothing here computes a
// figure: the bench reads what assay printed.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

export interface Exit {
  code: number;
  stderr: string;
}

/** `node cli ARGS`; an exit outside `exits` stops the bench with the command and its stderr. */
export function assay(cli: string, args: readonly string[], exits: readonly number[] = [0]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", reject);
    child.on("close", (code) => {
      const r = { code: code ?? -1, stderr };
      if (exits.includes(r.code)) resolve(r);
      else reject(new Error(`assay ${args.join(" ")}: exit ${r.code}: ${stderr}`));
    });
  });
}

/** A JSON document assay wrote. */
export const readDoc = (file: string): any => JSON.parse(readFileSync(file, "utf8"));

/** Tasks run at most `limit` at a time, results in input order. */
export async function pool<T, R>(items: readonly T[], limit: number, f: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
