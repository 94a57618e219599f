// The width a table is laid out in (issue 40): --width N, else the terminal's own width when
// stdout is one and the table goes there (not to --out FILE), else COLUMNS, else 80 (a pipe or a
// file: what a log viewer or a pager shows).
import { UsageError } from "../errors.js";
import type { CliIo } from "./io.js";

/** Narrower than this, no table or legend reads; --width refuses it. */
export const MIN_WIDTH = 40;
export const PIPED_WIDTH = 80;

const count = (s: string | undefined) => (s !== undefined && /^[1-9][0-9]*$/.test(s) ? Number(s) : null);

/** `out`: the file the table is written to (--out; `-` is stdout), which is no terminal whatever stdout is. */
export function widthFor(
  io: Pick<CliIo, "env" | "stdoutIsTTY" | "columns">,
  option: string | undefined,
  out?: string,
): number {
  if (option !== undefined) {
    const n = count(option);
    if (n === null || n < MIN_WIDTH)
      throw new UsageError(
        `--width must be a whole number of columns, at least ${MIN_WIDTH} (got ${JSON.stringify(option)})`,
      );
    return n;
  }
  const tty = (out === undefined || out === "-") && io.stdoutIsTTY === true ? (io.columns ?? null) : null;
  // A width below the minimum (a pane squeezed to nothing) is laid out at the minimum: lines wrap, never vanish.
  const given = (tty !== null && tty > 0 ? tty : null) ?? count(io.env["COLUMNS"]) ?? PIPED_WIDTH;
  return Math.max(MIN_WIDTH, given);
}
