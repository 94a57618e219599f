// Argument parsing on node:util parseArgs, with usage errors instead of exceptions.

import { UsageError } from "./exit.js";

/** Run node:util parseArgs, turning its complaints into one-line usage errors. */
export function usage<R>(parse: () => R): R {
  try {
    return parse();
  } catch (e) {
    throw new UsageError((e as Error).message.split("\n")[0]!);
  }
}

export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(", ")} (got ${JSON.stringify(value)})`);
}

export function positiveInt(name: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--${name} must be a positive integer (got ${JSON.stringify(value)})`);
  return Number(value);
}
