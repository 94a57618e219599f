// parse_log_sympy: first every match of `(_*) (.*)\.py:(.*) (_*)` in the whole text is FAILED,
// then the `test_` lines are read, overwriting. Read in one pass, the two are kept apart and
// joined in the source's order at the end.

import { pySplit, pyStrip } from "./python-text.js";
import type { LogParser, StatusMap } from "./parsers.js";
import { ERROR, FAILED, PASSED } from "./statuses.js";

// Python's `.` stops only at \n, so the pattern's matches lie within a line; `s` makes JS's `.`
// take \r and \u2028 as Python's does. Its greedy groups end a match at the line's last space,
// so a line holds at most one (findall's) match, the first JS finds.
const FAILURE_HEADER = /(_*) (.*)\.py:(.*) (_*)/su;

export function sympyParser(): LogParser {
  const headers: StatusMap = new Map();
  const lines: StatusMap = new Map();
  return {
    line(raw) {
      const m = FAILURE_HEADER.exec(raw);
      if (m) headers.set(`${m[2] ?? ""}.py:${m[3] ?? ""}`, FAILED);
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
