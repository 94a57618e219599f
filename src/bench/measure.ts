// What the bench's sections measure with: their settings, a median, seconds since a moment, a
// function timed, and a whole process timed from spawn to exit.

import { spawnSync } from "node:child_process";

/** A number from the environment (a BENCH_* setting), or `d`. */
export const env = (k: string, d: number): number => Number(process.env[k] ?? d);
/** Rounds of the sections that alternate what they compare (BENCH_ROUNDS). */
export const ROUNDS = env("BENCH_ROUNDS", 3);

/** The middle value (the upper one of an even count). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Seconds since `t` (a `process.hrtime.bigint()`). */
export const secondsSince = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e9;

/** Seconds `fn` takes (awaited). */
export async function time(fn: () => unknown): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return secondsSince(t);
}

/** `node ARGS` as a whole process, in seconds (its output discarded); an exit outside `exits` stops the bench. */
export function timeProcess(args: readonly string[], exits: readonly number[] = [0]): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const secs = secondsSince(t);
  if (!exits.includes(r.status ?? -1)) throw new Error(`node ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return secs;
}
