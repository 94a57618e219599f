// parse_log_django: a loop over the stripped lines, then three multi-line patterns over the whole
// text (re.MULTILINE), each match's group 1 PASSED. The patterns are matched on a window of the
// lines they can span (django-multiline.ts), and their names joined after the loop's, in the
// source's order.

import type { LogParser, StatusMap } from "./parsers.js";
import { BoundedPattern, TestingAgainstPattern } from "./django-multiline.js";
import { pyLstrip, pySplit, pyStrip } from "./python-text.js";
import { ERROR, FAILED, ParserCrash, PASSED, SKIPPED } from "./statuses.js";

const VERSION_TEST = "--version is equivalent to version";
const PASS_SUFFIXES = [" ... ok", " ... OK", " ...  OK"];
const DJANGO_7188 = "Applying sites.0002_alter_domain_unique...test_no_migrations";

export function djangoParser(): LogParser {
  const map: StatusMap = new Map();
  let previous: string | null = null;
  const patterns = [new TestingAgainstPattern(), BoundedPattern.internalServerError(), BoundedPattern.systemCheck()];
  return {
    line(raw) {
      previous = djangoLine(pyStrip(raw), previous, map);
      for (const p of patterns) p.line(raw);
    },
    end() {
      for (const p of patterns) for (const name of p.end()) map.set(name, PASSED);
      return map;
    },
  };
}

/** One stripped line into the map; gives the test remembered for a later `ok` line. */
function djangoLine(line: string, previous: string | null, map: StatusMap): string | null {
  if (line.includes(VERSION_TEST)) map.set(VERSION_TEST, PASSED);
  // The test a later `ok` line (after the test's own output) passes.
  if (line.includes(" ... ")) previous = line.split(" ... ")[0] ?? "";
  const suffix = PASS_SUFFIXES.find((s) => line.endsWith(s));
  if (suffix !== undefined) {
    // The harness's fix for django__django-7188, whose result shares a line with a migration's.
    if (line.startsWith(DJANGO_7188)) line = pyStrip(line.slice(line.indexOf("...") + 3));
    const at = line.lastIndexOf(suffix);
    map.set(at < 0 ? line : line.slice(0, at), PASSED);
  }
  if (line.includes(" ... skipped")) map.set(line.split(" ... skipped")[0] ?? "", SKIPPED);
  if (line.endsWith(" ... FAIL")) map.set(line.split(" ... FAIL")[0] ?? "", FAILED);
  if (line.startsWith("FAIL:")) map.set(secondWord(line), FAILED);
  if (line.endsWith(" ... ERROR")) map.set(line.split(" ... ERROR")[0] ?? "", ERROR);
  if (line.startsWith("ERROR:")) map.set(secondWord(line), ERROR);
  if (pyLstrip(line).startsWith("ok") && previous !== null) map.set(previous, PASSED);
  return previous;
}

/** `line.split()[1].strip()`, which raises on a line of one word. */
function secondWord(line: string): string {
  const word = pySplit(line)[1];
  if (word === undefined)
    throw new ParserCrash(
      `IndexError: list index out of range (django parser on ${JSON.stringify(line.slice(0, 80))})`,
    );
  return word;
}
