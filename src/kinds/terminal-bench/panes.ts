// Re-deriving parser_results from panes/post-test.txt exactly as Terminal-Bench does (research §A.5;
// TB's terminal_bench/parsers/*.py). The pane is the tmux capture TB handed its parser, written
// as-is, so the same bytes give the same results: no unwrapping of tmux's hard wraps at 160
// columns, Python's whitespace, line breaks and case folding, the first summary header, last name
// wins. Pure: text in, results out; it holds the pane and one map of test names, no more.

import type { ParserName } from "./entry.js";
import type { ParserResults } from "./models.js";

/**
 * The largest pane re-derived: 16 MiB. TB's tmux keeps 50,000 history lines (+ 40 on screen) of
 * 160 columns, so a pane of ASCII output is at most ~8 MiB; this leaves room for multi-byte text.
 * A larger pane is not re-derived, and says so.
 */
export const MAX_PANE_BYTES = 16 * 1024 * 1024;

/** Python's str.isspace() set (also what its re's `\s` matches): what split(), strip() and TB's header pattern use. */
const PY_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
const isSpace = (s: string, i: number) => PY_SPACE.has(s.charCodeAt(i));
/** Python re's IGNORECASE matches for these letters (i: İ ı; s: ſ), which JS's /iu does not all give. */
const FOLD: Record<string, string> = { i: "Ii\\u0130\\u0131", s: "Ss\\u017f" };
const caseless = (word: string) =>
  [...word].map((c) => (c === " " ? " " : `[${FOLD[c] ?? c.toUpperCase() + c}]`)).join("");
/** The words of PytestParser.SHORT_TEST_SUMMARY_INFO_PATTERN (`=+\s*short test summary info\s*=+`, re.IGNORECASE). */
const PHRASE = new RegExp(caseless("short test summary info"), "gu");
/** str.splitlines()'s line boundaries. */
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;

/**
 * Where re.split(pattern, maxsplit=1) splits: the leftmost `=+ ws* phrase ws* =+`, as
 * [its start, its end]. Found from the phrase outward, never by the pattern itself, whose `=+`
 * backtracks quadratically over a long run of `=` (each stretch of text is scanned at most twice).
 */
function header(text: string): [number, number] | null {
  PHRASE.lastIndex = 0;
  for (let m = PHRASE.exec(text); m !== null; m = PHRASE.exec(text)) {
    let before = m.index;
    while (before > 0 && isSpace(text, before - 1)) before--;
    if (before === 0 || text[before - 1] !== "=") continue;
    let after = m.index + m[0].length;
    while (after < text.length && isSpace(text, after)) after++;
    if (text[after] !== "=") continue;
    while (text[after] === "=") after++;
    while (before > 0 && text[before - 1] === "=") before--;
    return [before, after];
  }
  return null;
}

/** str.strip() (chars null) or str.strip(":"), by scanning: a trailing-run regex would backtrack quadratically. */
function strip(s: string, drop: (s: string, i: number) => boolean = isSpace): string {
  let a = 0;
  let b = s.length;
  while (a < b && drop(s, a)) a++;
  while (b > a && drop(s, b - 1)) b--;
  return s.slice(a, b);
}
const isColon = (s: string, i: number) => s[i] === ":";

/** PytestTestStatus members by name, and the UnitTestStatus each maps to (UNKNOWN lines are dropped). */
const PYTEST: Record<string, "passed" | "failed" | null> = {
  UNKNOWN: null,
  PASSED: "passed",
  XFAIL: "passed",
  SKIPPED: "passed",
  FAILED: "failed",
  XPASS: "failed",
  ERROR: "failed",
};

export interface Parsed {
  parser: ParserName;
  results: Map<string, "passed" | "failed">;
  /** Names whose last status was SKIPPED or XFAIL (TB counts them passed). */
  skippedAsPassed: number;
  /** Lines that overwrote an earlier status of the same name. */
  duplicates: number;
}

/** str.splitlines() of text[from..], lazily. */
function* lines(text: string, from: number): Generator<string> {
  LINE_BREAK.lastIndex = from;
  let start = from;
  for (let m = LINE_BREAK.exec(text); m !== null; m = LINE_BREAK.exec(text)) {
    yield text.slice(start, m.index);
    start = m.index + m[0].length;
  }
  if (start < text.length) yield text.slice(start);
}

/** One summary line → [name, PytestTestStatus name], or null for a line TB ignores (PytestParser._parse_result_line). */
function resultLine(line: string): [string, string] | null {
  if (line.startsWith("FAILED")) {
    const cut = line.lastIndexOf(" - ");
    if (cut !== -1) line = line.slice(0, cut);
  }
  // line.split(maxsplit=1): the first word, and the rest after the whitespace that follows it.
  let a = 0;
  while (a < line.length && isSpace(line, a)) a++;
  let b = a;
  while (b < line.length && !isSpace(line, b)) b++;
  let c = b;
  while (c < line.length && isSpace(line, c)) c++;
  if (c === line.length) return null; // one part (or none)
  const status = strip(line.slice(a, b), isColon);
  if (!Object.hasOwn(PYTEST, status)) return null;
  const path = strip(line.slice(c));
  const sep = path.indexOf("::");
  const name = sep === -1 ? path : path.slice(sep + 2);
  return name === "" ? null : [name, status];
}

/** PytestParser.parse: null where TB raises (no summary header: a parse error). */
export function parsePytest(text: string): Parsed | null {
  const h = header(text);
  if (h === null) return null;
  const out: Parsed = { parser: "pytest", results: new Map(), skippedAsPassed: 0, duplicates: 0 };
  const raw = new Map<string, string>();
  for (const line of lines(text, h[1])) {
    const r = resultLine(line);
    if (r === null || r[1] === "UNKNOWN") continue;
    if (raw.has(r[0])) out.duplicates++;
    raw.set(r[0], r[1]);
    out.results.set(r[0], PYTEST[r[1]]!);
  }
  for (const s of raw.values()) if (s === "SKIPPED" || s === "XFAIL") out.skippedAsPassed++;
  return out;
}

/** pytest's closing line, `=== 2 failed, 1 passed in 0.06s ===`, once its `=` and spaces are stripped (a longer line is not one). */
const CLOSING =
  /^\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)\b.* in \d+(?:\.\d+)?s\b/;
const MAX_CLOSING = 300;
const isRule = (s: string, i: number) => s[i] === "=" || isSpace(s, i);

/**
 * A pytest summary that ran to its end: a FAILED (or XPASS, ERROR) line below the first header,
 * and pytest's closing count line after it. What a timed-out run cut short lacks (its pane stops
 * mid-summary); null otherwise.
 */
export function completeFailure(text: string): Parsed | null {
  const h = header(text);
  const parsed = h === null ? null : parsePytest(text);
  if (h === null || parsed === null || ![...parsed.results.values()].includes("failed")) return null;
  for (const line of lines(text, h[1])) {
    if (line.length > MAX_CLOSING || !line.startsWith("=")) continue;
    if (CLOSING.test(strip(line, isRule))) return parsed;
  }
  return null;
}

/** The text between the first start marker and the last end marker after it, stripped (content.split(start,1)[-1].rsplit(end,1)[0].strip()). */
function between(text: string, start: string, end: string): string {
  const s = text.indexOf(start);
  const after = s === -1 ? text : text.slice(s + start.length);
  const e = after.lastIndexOf(end);
  return strip(e === -1 ? after : after.slice(0, e));
}
const one = (parser: ParserName, key: string, passed: boolean): Parsed => ({
  parser,
  results: new Map([[key, passed ? "passed" : "failed"]]),
  skippedAsPassed: 0,
  duplicates: 0,
});

/** SWEBenchParser and SWEPerfParser: null (TB raises) unless both markers are present. */
function markerParser(parser: "swebench" | "sweperf", start: string, end: string, text: string): Parsed | null {
  if (!text.includes(start) || !text.includes(end)) return null;
  return one(parser, "tests", between(text, start, end) === "PASSED");
}
export const parseSwebench = (text: string) =>
  markerParser("swebench", "SWEBench results starts here", "SWEBench results ends here", text);
export const parseSweperf = (text: string) =>
  markerParser("sweperf", "SWE-Perf results starts here", "SWE-Perf results ends here", text);
/** MLEBenchParser: never raises; without its markers the whole pane is the block, so it fails. */
export const parseMlebench = (text: string): Parsed =>
  one(
    "mlebench",
    "tests",
    between(text, "MLEBench results starts here", "MLEBench results ends here") === "ALL TESTS PASSED",
  );
export const hasMlebenchMarkers = (text: string) =>
  text.includes("MLEBench results starts here") && text.includes("MLEBench results ends here");
/** SWELancerParser: never raises. */
export function parseSwelancer(text: string): Parsed {
  const t = text.toLowerCase();
  const passed = t.includes("swe lancer success")
    ? true
    : t.includes("swe lancer failure")
      ? false
      : t.includes("user_tool") && t.includes("completed");
  return one("swelancer", "swelancer_task", passed);
}

/**
 * The parsers that could have produced `claimed` from this pane, each with what it gives, most
 * likely first. The run does not record the task's parser (task.yaml does), so the claim's shape
 * names the family — {"tests"} the marker parsers, {"swelancer_task"} SWE-Lancer's, anything else
 * pytest — and a parser counts only where its format is in the pane (pytest's header, both
 * markers), except those that never raise (MLE-bench for {"tests"}, SWE-Lancer). pytest is always
 * tried last when its header is there. With no claim (TB recorded none), any format found.
 */
export function candidates(text: string, claimed: ParserResults | null): Parsed[] {
  const keys = claimed === null ? null : Object.keys(claimed);
  const only = (k: string) => keys !== null && keys.length === 1 && keys[0] === k;
  const out: (Parsed | null)[] = [];
  if (keys === null || only("tests")) {
    out.push(parseSwebench(text), parseSweperf(text));
    if (keys !== null || hasMlebenchMarkers(text)) out.push(parseMlebench(text));
  }
  if (only("swelancer_task")) out.push(parseSwelancer(text));
  out.push(parsePytest(text));
  return out.filter((p): p is Parsed => p !== null);
}

/** The claim is exactly these results (as maps: names and statuses, order aside). */
export function sameResults(claimed: ParserResults, parsed: Parsed): boolean {
  const entries = Object.entries(claimed);
  return entries.length === parsed.results.size && entries.every(([k, v]) => parsed.results.get(k) === v);
}

/** The first few differences between the claim and a re-parse, in words. */
export function differences(claimed: ParserResults, parsed: Parsed, max = 3): string[] {
  const out: string[] = [];
  const c = new Map(Object.entries(claimed));
  for (const [k, v] of c)
    if (parsed.results.get(k) !== v)
      out.push(`${JSON.stringify(k)}: ${v} in parser_results, ${parsed.results.get(k) ?? "absent"} in the pane`);
  for (const [k, v] of parsed.results)
    if (!c.has(k)) out.push(`${JSON.stringify(k)}: absent from parser_results, ${v} in the pane`);
  return out.length > max ? [...out.slice(0, max), `and ${out.length - max} more`] : out;
}
