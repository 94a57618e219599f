// parse_log_sympy: first every match of `(_*) (.*)\.py:(.*) (_*)` in the whole text is FAILED,
// then the `test_` lines are read, overwriting. Read in one pass, the two are kept apart and
// joined in the source's order at the end.

import { pySplit, pyStrip } from "./python-text.js";
import type { LogParser, StatusMap } from "./parsers.js";
import { ERROR, FAILED, PASSED } from "./statuses.js";

/**
 * The name `(_*) (.*)\.py:(.*) (_*)` finds in a line (Python's `.` stops only at \n, so matches
 * lie within a line), found by index: the regex backtracks quadratically on a line of spaces.
 * The leftmost match starts at the underscores before the first space (if any later start
 * matches, this one does); group 2 runs from that space to the last `.py:` with a space after
 * it, group 3 from there to the line's last space — so a line holds at most one match.
 */
export function failureHeader(line: string): string | null {
  const first = line.indexOf(" ");
  const last = line.lastIndexOf(" ");
  if (first < 0 || last < 4) return null;
  const py = line.lastIndexOf(".py:", last - 4);
  if (py <= first) return null;
  return `${line.slice(first + 1, py)}.py:${line.slice(py + 4, last)}`;
}

export function sympyParser(): LogParser {
  const headers: StatusMap = new Map();
  const lines: StatusMap = new Map();
  return {
    line(raw) {
      const header = failureHeader(raw);
      if (header !== null) headers.set(header, FAILED);
      const line = pyStrip(raw);
      if (!line.startsWith("test_")) return;
      const name = pySplit(line)[0] ?? "";
      if (line.endsWith(" E")) lines.set(name, ERROR);
      if (line.endsWith(" F")) lines.set(name, FAILED);
      if (line.endsWith(" ok")) lines.set(name, PASSED);
    },
    end() {
      const map = new Map(headers);
      for (const [name, status] of lines) map.set(name, status);
      return map;
    },
  };
}
