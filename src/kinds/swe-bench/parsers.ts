// The seven log parsers of the harness's log_parsers/python.py (commit 7a21e05) as line
// consumers: fed the text's lines one at a time (a 64 MiB log is never held whole), they give
// the same map of test name → status as the Python function given the whole text, a later line
// overwriting an earlier one, in the dict's insertion order (the #290 prefix lookup takes the
// first key that matches).

import { djangoParser } from "./parser-django.js";
import { matplotlibLine, pytestLine, pytestOptionsLine, pytestV2Line, seabornLine } from "./parsers-pytest.js";
import type { ParserName } from "./repo.js";
import { sympyParser } from "./parser-sympy.js";
import { ParserCrash } from "./statuses.js";

export type StatusMap = Map<string, string>;

export interface LogParser {
  line(text: string): void;
  /** The map, once every line is in. */
  end(): StatusMap;
}

export { ParserCrash };

/**
 * A parser that raised stays raised: Python's parse of that text ends in the exception, which is
 * given when (and only when) its map is asked for — a crash in a parse the harness does not use
 * (the whole text when the region has results) changes nothing.
 */
export function crashSafe(parser: LogParser): LogParser {
  let crash: ParserCrash | null = null;
  return {
    line(text) {
      if (crash) return;
      try {
        parser.line(text);
      } catch (e) {
        if (!(e instanceof ParserCrash)) throw e;
        crash = e;
      }
    },
    end() {
      if (crash) throw crash;
      return parser.end();
    },
  };
}

/** A parser whose every line is read on its own. */
function lineParser(step: (line: string, map: StatusMap) => void): LogParser {
  const map: StatusMap = new Map();
  return { line: (text) => step(text, map), end: () => map };
}

export function newParser(name: ParserName): LogParser {
  switch (name) {
    case "pytest":
      return lineParser(pytestLine);
    case "pytest_options":
      return lineParser(pytestOptionsLine);
    case "pytest_v2":
      return lineParser(pytestV2Line);
    case "matplotlib":
      return lineParser(matplotlibLine);
    case "seaborn":
      return lineParser(seabornLine);
    case "sympy":
      return sympyParser();
    case "django":
      return djangoParser();
  }
}

/** A whole text through a parser (tests, small inputs). */
export function parseText(name: ParserName, lines: Iterable<string>): StatusMap {
  const parser = newParser(name);
  for (const l of lines) parser.line(l);
  return parser.end();
}
