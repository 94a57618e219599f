// The line-at-a-time parsers of log_parsers/python.py: parse_log_pytest, _pytest_options,
// _pytest_v2, _matplotlib and _seaborn. Each function is the body of the source's `for line in
// log.split("\n")` loop.

import { pySplit } from "./python-text.js";
import type { StatusMap } from "./parsers.js";
import { endsWithStatus, FAILED, isSkipSummary, PASSED, startsWithStatus } from "./statuses.js";

export function pytestLine(line: string, map: StatusMap): void {
  const words = pytestWords(line);
  if (words) map.set(words[1], words[0]);
}

/** Status and name of a pytest result line, or null when the line is none. */
function pytestWords(line: string): [string, string] | null {
  if (!startsWithStatus(line)) return null;
  const words = pySplit(line.startsWith(FAILED) ? line.replaceAll(" - ", " ") : line);
  const [status, name] = words;
  if (status === undefined || name === undefined || isSkipSummary(status, name)) return null;
  return [status, name];
}

/**
 * `re.compile(r"(.*?)\[(.*)\]").search(word).groups()`: a word holds no newline, so a match starts
 * at 0 and runs from the first `[` to the last `]` after it. Found by index, as the regex
 * backtracks cubically on a word of `[`s.
 */
export function optionOf(word: string): [string, string] | null {
  const open = word.indexOf("[");
  const close = word.lastIndexOf("]");
  return open >= 0 && close > open ? [word.slice(0, open), word.slice(open + 1, close)] : null;
}

export function pytestOptionsLine(line: string, map: StatusMap): void {
  const words = pytestWords(line);
  if (!words) return;
  const [status, name] = words;
  const m = optionOf(name);
  if (!m) {
    map.set(name, status);
    return;
  }
  const main = m[0];
  let option = m[1];
  // A path option is shortened to its last segment, as the harness's dataset lists were written.
  if (option.startsWith("/") && !option.startsWith("//") && !option.includes("*"))
    option = "/" + (option.split("/").at(-1) ?? "");
  map.set(`${main}[${option}]`, status);
}

const COLOR = /\[\p{Nd}+m/gu;
// `str.maketrans("", "", chr(1)…chr(31))`.
const CONTROLS = /[\x01-\x1f]/g;

export function pytestV2Line(raw: string, map: StatusMap): void {
  let line = raw.replace(COLOR, "").replace(CONTROLS, "");
  if (startsWithStatus(line)) {
    // The " - <assertion message>" after a FAILED id is not part of it.
    if (line.startsWith(FAILED)) line = line.split(" - ")[0] ?? "";
    const words = pySplit(line);
    const [status, first] = words;
    if (status !== undefined && first !== undefined && !isSkipSummary(status, first))
      map.set(words.slice(1).join(" "), status);
  } else if (endsWithStatus(line)) {
    // Older pytest writes the status after the id.
    const words = pySplit(line);
    const status = words.at(-1);
    if (words.length >= 2 && status !== undefined) map.set(words.slice(0, -1).join(" "), status);
  }
}

export function matplotlibLine(line: string, map: StatusMap): void {
  pytestLine(line.replaceAll("MouseButton.LEFT", "1").replaceAll("MouseButton.RIGHT", "3"), map);
}

export function seabornLine(line: string, map: StatusMap): void {
  const [first, second] = pySplit(line);
  if (first === undefined || second === undefined) return;
  if (line.startsWith(FAILED)) map.set(second, FAILED);
  // A line holding " PASSED " with another second word records nothing (elif chain).
  else if (line.includes(` ${PASSED} `)) {
    if (second === PASSED) map.set(first, PASSED);
  } else if (line.startsWith(PASSED)) map.set(second, PASSED);
}
