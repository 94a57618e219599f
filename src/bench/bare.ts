// The bare limit `npm run bench` compares assay with: a loop that only reads each bundle's files,
// splits the journal into lines, JSON.parses each line and SHA-256-chains them. On N threads the
// bundles are dealt out in turn to N worker threads, each running the same loop. Run as a script
// (`node dist/bench/bare.js ROOT THREADS`) it is a whole process: startup, a plain walk that
// finds the bundles, then the loop, so it compares with a whole `assay score` process.

import { hash as oneShot } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, Worker, workerData } from "node:worker_threads";

const ZERO = "0".repeat(64);

export function bare(dirs: readonly string[]): void {
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, name));
      if (name.endsWith(".jsonl")) {
        let prev = ZERO;
        let from = 0;
        for (;;) {
          const nl = bytes.indexOf(0x0a, from);
          if (nl === -1) break;
          const line = bytes.subarray(from, nl);
          const rec = JSON.parse(line.toString("utf8")) as { prev: string };
          if (rec.prev !== prev) throw new Error(`${dir}: chain`);
          prev = oneShot("sha256", line, "hex");
          from = nl + 1;
        }
      } else if (name.endsWith(".json")) JSON.parse(bytes.toString("utf8"));
    }
  }
}

/** The bare loop on `threads` worker threads, each given every threads-th bundle (thread start counted). */
export async function bareThreads(dirs: readonly string[], threads: number): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  await Promise.all(
    Array.from({ length: threads }, (_, t) => {
      const share = dirs.filter((_, i) => i % threads === t);
      return new Promise<void>((done, failed) => {
        const w = new Worker(self, { workerData: { bareDirs: share } });
        w.once("error", failed);
        w.once("exit", (code) => (code === 0 ? done() : failed(new Error(`bare thread exited with ${code}`))));
      });
    }),
  );
}

/** Bundle folders below `root`, by a plain walk (a folder holding journal.jsonl is one; never descended into). */
export function walk(root: string, out: string[] = []): string[] {
  const entries = readdirSync(root, { withFileTypes: true });
  if (entries.some((e) => e.name === "journal.jsonl")) out.push(root);
  else for (const e of entries) if (e.isDirectory()) walk(join(root, e.name), out);
  return out;
}

if (!isMainThread && (workerData as { bareDirs?: string[] } | null)?.bareDirs) {
  bare((workerData as { bareDirs: string[] }).bareDirs);
} else if (isMainThread && process.argv[1] === fileURLToPath(import.meta.url)) {
  const dirs = walk(process.argv[2]!);
  const threads = Number(process.argv[3] ?? 1);
  if (threads === 1) bare(dirs);
  else await bareThreads(dirs, threads);
}
