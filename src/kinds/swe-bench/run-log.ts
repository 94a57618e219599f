// What run_instance.log records of an instance's end (run_evaluation.py at 7a21e05): the patch
// none of the four apply commands took (`>>>>> Patch Apply Failed`, logged before it raises), and a
// harness exception (`Error creating container`, `Error in evaluating model`, a logged
// traceback). The exception's class is the one the last traceback ends with.

import { APPLY_PATCH_FAIL } from "./markers.js";
import { isBlank } from "./python-text.js";

const EXCEPTION_WORDS = ["Traceback", "Error in evaluating model", "Error creating container"];
const TRACEBACK_START = "Traceback (most recent call last):";
// A traceback's last line: `module.Class: message`, or the class alone.
const EXCEPTION_LINE = /^([A-Za-z_][\w.]*)(?::[ ]?(.*))?$/su;

export interface RunLogFacts {
  /** The line holding `>>>>> Patch Apply Failed`, or null. */
  patchApplyFailed: string | null;
  /** The first line recording a harness exception, or null. */
  exceptionLine: string | null;
  /** The class the last traceback names (its last dotted part), or null. */
  exceptionType: string | null;
  /** That traceback's exception line. */
  exceptionMessage: string | null;
}

export class RunLogScan {
  private readonly facts: RunLogFacts = {
    patchApplyFailed: null,
    exceptionLine: null,
    exceptionType: null,
    exceptionMessage: null,
  };
  /** Inside a traceback: its frames are indented; the first line that is not ends it. */
  private inTraceback = false;

  line(text: string): void {
    const f = this.facts;
    if (f.patchApplyFailed === null && text.includes(APPLY_PATCH_FAIL)) f.patchApplyFailed = text;
    if (f.exceptionLine === null && EXCEPTION_WORDS.some((w) => text.includes(w))) f.exceptionLine = text;
    if (text.includes(TRACEBACK_START)) {
      this.inTraceback = true;
      return;
    }
    if (!this.inTraceback || text.startsWith(" ") || isBlank(text)) return;
    this.inTraceback = false;
    const m = EXCEPTION_LINE.exec(text);
    if (m) {
      f.exceptionType = (m[1] ?? "").split(".").at(-1) ?? null;
      f.exceptionMessage = text;
    }
  }

  result(): RunLogFacts {
    return { ...this.facts };
  }
}
