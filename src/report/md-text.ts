// Evidence in Markdown (GitHub's flavour) as text, never markup: a folder named `| x |` must not
// split a table cell, one named `<img src=x>` must not become an image, `@team` must not notify
// anyone, `$x$` must not become maths. Hidden characters (controls, bidi overrides) are spelled out
// as terminals see them (\u202e), and long texts are cut.

import { shorten, terminalText } from "../core/text.js";

/**
 * A name (a path, an experiment, a trial, a key) as a code span: nothing inside one is markup,
 * link, mention or maths. Its fence is longer than any run of backticks in the name. In a table
 * cell (`inTable`) each pipe is escaped as GFM's tables require (even inside a code span), and
 * only the pipe: GFM ends a cell at no pipe a backslash precedes (however many), then drops just
 * that one backslash before the span is read, so the cell shows the name as a heading does.
 */
export function mdName(name: string, inTable = false, max = 120): string {
  let t = shorten(terminalText(name), max);
  if (t === "") return '""';
  if (inTable) t = t.replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  // A span that starts or ends with a backtick (or a space) is padded; CommonMark strips one space each side.
  const pad = /^[` ]|[` ]$/.test(t) ? " " : "";
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** Prose that may quote evidence (a reason, a note): one line, every ASCII punctuation mark backslash-escaped, so none is markup. */
export const mdText = (text: string, max = 160): string =>
  shorten(terminalText(text.replace(/\s+/g, " ")), max).replace(/[!-/:-@[-`{-~]/g, "\\$&");
