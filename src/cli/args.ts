// Argument parsing on node:util parseArgs, with usage errors instead of exceptions.

import { parseArgs, type ParseArgsConfig } from "node:util";
import { forTerminal } from "../core/text.js";
import { UsageError } from "./exit.js";

/** Short flags for the options users type most, wherever a command has them (as vitest, promptfoo). */
const SHORT: Readonly<Record<string, string>> = { out: "o", format: "f", quiet: "q", jobs: "j" };

/** Levenshtein distance, for "did you mean" (names are short: the quadratic table is nothing). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The known name nearest to `typed`, when it is near enough to be a typo (a third of its length, at least 2). */
export function nearest(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(typed.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(typed, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

/** `: did you mean X?`, or nothing. */
export const didYouMean = (typed: string, known: readonly string[]): string => {
  const n = nearest(typed, known);
  return n === undefined ? "" : `: did you mean ${n}?`;
};

type Options = NonNullable<ParseArgsConfig["options"]>;

/** parseArgs's complaint as one line of ours: the option quoted plainly, the nearest one suggested. */
function explain(e: Error & { code?: string }, options: Options): string {
  // What it quotes ends where its message goes on: a quote inside the argument stays in it.
  const quoted =
    /'(.*?)'(?=\. To specify|\. This command| argument missing| does not take|$)/s.exec(e.message)?.[1] ?? "";
  if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const long = quoted.startsWith("--");
    const names = Object.keys(options).map((n) => `--${n}`);
    const shorts = Object.entries(options).flatMap(([n, o]) => (o.short ? [`-${o.short} (--${n})`] : []));
    const hint = long
      ? didYouMean(quoted, names)
      : shorts.length > 0
        ? ` (short options here: ${shorts.join(", ")})`
        : "";
    return `unknown option ${forTerminal(quoted)}${hint}`;
  }
  if (e.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = /--[\w-]+/.exec(e.message.split("\n")[0]!)?.[0] ?? quoted;
    // A value starting with "-" (a negative number, a typo) is read as the next option.
    if (/argument is ambiguous/.test(e.message))
      return `option ${forTerminal(name)} needs a value (one starting with "-" is written ${forTerminal(name)}=-…)`;
    return / argument missing/.test(e.message)
      ? `option ${forTerminal(name)} needs a value`
      : `option ${forTerminal(name)} takes no value`;
  }
  if (e.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
    return `unexpected argument ${JSON.stringify(quoted)}: this command takes none`;
  return e.message.split("\n")[0]!;
}

/**
 * parseArgs for a command: the common options gain their short flag, every complaint becomes a
 * usage error naming the nearest option, and `--out -` means standard output (no --out).
 */
export function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const given: Options = config.options ?? {};
  const options = Object.fromEntries(
    Object.entries(given).map(([n, o]) => [
      n,
      SHORT[n] !== undefined && o.short === undefined ? { ...o, short: SHORT[n] } : o,
    ]),
  );
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs({ ...config, options }) as ReturnType<typeof parseArgs<T>>;
  } catch (e) {
    throw new UsageError(explain(e as Error, options));
  }
  const values = parsed.values as Record<string, unknown>;
  if (values["out"] === "-") delete values["out"];
  return parsed;
}

/** A parse by a command that names no options here (synth, demo): its complaints as one plain line. */
export function usage<R>(parse: () => R): R {
  try {
    return parse();
  } catch (e) {
    throw new UsageError(explain(e as Error, {}));
  }
}

export function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `--${name} must be one of ${allowed.join(", ")} (got ${JSON.stringify(value)})${didYouMean(value, allowed)}`,
  );
}

export function positiveInt(name: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  if (!/^[1-9][0-9]*$/.test(value))
    throw new UsageError(`--${name} must be a positive integer (got ${JSON.stringify(value)})`);
  return Number(value);
}
