// The three patterns parse_log_django runs over the whole text with re.finditer(…, re.MULTILINE),
// for a test's `ok` printed on the line after other output:
//   ^(.*?)\s\.\.\.\sTesting\ against\ Django\ installed\ in\ ((?s:.*?))\ silenced\)\.\nok$
//   ^(.*?)\s\.\.\.\sInternal\ Server\ Error:\ \/(.*)\/\nok$
//   ^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$
// `\s` may be a newline, so a head `name ... Testing…` spans up to three lines; the second and
// third patterns end on the line after the head's, so four lines hold any match. The first one's
// `(?s:.*?)` spans any number of lines up to the first ` silenced).` ending a line before an `ok`
// line. A match starts at a line start (`^`), the next search after its end (no overlaps).

import { PY_WS } from "./python-text.js";

const HEAD = `^([^\\n]*?)[${PY_WS}]\\.\\.\\.[${PY_WS}]`;
// Python's `$` under MULTILINE: before a newline or at the end of the text (a window ends at a
// line's end).
const OK_LINE = "\\nok(?=\\n|$)";

/** A pattern whose matches span at most `span` lines, tried on a window of lines at each start. */
export class BoundedPattern {
  private readonly window: string[] = [];
  private consumed = 0;
  private readonly names: string[] = [];

  private constructor(
    private readonly re: RegExp,
    private readonly span: number,
  ) {}

  static internalServerError(): BoundedPattern {
    return new BoundedPattern(new RegExp(`${HEAD}Internal Server Error: \\/([^\\n]*)\\/${OK_LINE}`, "u"), 4);
  }

  static systemCheck(): BoundedPattern {
    return new BoundedPattern(
      new RegExp(`${HEAD}System check identified no issues \\(0 silenced\\)${OK_LINE}`, "u"),
      4,
    );
  }

  line(text: string): void {
    this.window.push(text);
    if (this.window.length === this.span) this.tryFirst();
  }

  /** Group 1 of every match, in the text's order. */
  end(): string[] {
    while (this.window.length > 0) this.tryFirst();
    return this.names;
  }

  /** Tries a match at the window's first line, then lets that line go. */
  private tryFirst(): void {
    if (this.consumed > 0) this.consumed--;
    else {
      const m = this.re.exec(this.window.join("\n"));
      if (m) {
        this.names.push(m[1] ?? "");
        this.consumed = newlines(m[0]);
      }
    }
    this.window.shift();
  }
}

const TESTING_HEAD = new RegExp(`${HEAD}Testing against Django installed in `, "u");
const SILENCED = " silenced).";

/** The first pattern: a head on up to three lines, then its tail any number of lines on. */
export class TestingAgainstPattern {
  private readonly window: string[] = [];
  private readonly names: string[] = [];
  /** The head waiting for its tail: its name, whether the last line read may end the match. */
  private pending: { name: string; lastEndsSilenced: boolean } | null = null;

  line(text: string): void {
    if (this.pending) this.tail(text, 0);
    else {
      this.window.push(text);
      if (this.window.length === 3) this.tryFirst();
    }
  }

  end(): string[] {
    while (this.window.length > 0 && !this.pending) this.tryFirst();
    return this.names;
  }

  private tryFirst(): void {
    const joined = this.window.join("\n");
    const m = TESTING_HEAD.exec(joined);
    if (!m) {
      this.window.shift();
      return;
    }
    // The lines from the one the head ends on are where the tail is looked for.
    const headLines = newlines(m[0]);
    const offset = m[0].length - (m[0].lastIndexOf("\n") + 1);
    const rest = this.window.splice(0).slice(headLines);
    this.pending = { name: m[1] ?? "", lastEndsSilenced: false };
    rest.forEach((l, i) => this.tail(l, i === 0 ? offset : 0));
  }

  /** One line after the head (`from`: where on it the lazy body may start). */
  private tail(text: string, from: number): void {
    const p = this.pending;
    if (!p) {
      this.line(text);
      return;
    }
    if (p.lastEndsSilenced && text === "ok") {
      this.names.push(p.name);
      this.pending = null;
      return;
    }
    p.lastEndsSilenced = text.endsWith(SILENCED) && text.length - SILENCED.length >= from;
  }
}

const newlines = (s: string): number => s.split("\n").length - 1;
