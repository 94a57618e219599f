// The harness's region of test_output.txt: `content.split(START)[1].split(END)[0]` — the text after
// the first start marker, up to the next start marker, cut at the first end marker. Markers hold
// no newline, so the region's lines are found line by line: its first is the rest of the start
// marker's line (the `'` of a `set -x` trace `+ : '>>>>> Start Test Output'`), its last the part of
// a line before the marker that ends it.

import { END_TEST_OUTPUT, START_TEST_OUTPUT } from "./markers.js";

export class RegionLines {
  private state: "before" | "in" | "after" = "before";

  constructor(private readonly emit: (line: string) => void) {}

  /** One line of the whole text; gives the region's part of it to `emit`. */
  line(text: string): void {
    if (this.state === "after") return;
    if (this.state === "before") {
      const at = text.indexOf(START_TEST_OUTPUT);
      if (at < 0) return;
      this.state = "in";
      text = text.slice(at + START_TEST_OUTPUT.length);
    }
    const cut = firstOf(text, [START_TEST_OUTPUT, END_TEST_OUTPUT]);
    if (cut < 0) this.emit(text);
    else {
      this.emit(text.slice(0, cut));
      this.state = "after";
    }
  }
}

/** Where the first of `needles` occurs in `text`, or -1. */
function firstOf(text: string, needles: string[]): number {
  const found = needles.map((n) => text.indexOf(n)).filter((i) => i >= 0);
  return found.length === 0 ? -1 : Math.min(...found);
}
