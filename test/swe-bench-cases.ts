// The cases of test/fixtures/swe-bench/harness-cases.json: inputs and what SWE-bench's harness
// (7a21e05) gives for them, written by its own code (generate.py, README.md).
import { readFileSync } from "node:fs";
import { LineSplitter } from "../src/kinds/swe-bench/python-text.js";
import type { ParserName } from "../src/kinds/swe-bench/repo.js";

type Entries = [string, string][];
export interface HarnessCases {
  parsers: { parser: ParserName; name: string; text: string; expected: { map: Entries } | { crash: string } }[];
  grading: {
    parser: ParserName;
    name: string;
    text: string;
    expected: { found: boolean; map: Entries } | { crash: string };
  }[];
  reports: {
    name: string;
    map: Entries;
    FAIL_TO_PASS: string[];
    PASS_TO_PASS: string[];
    expected: {
      FAIL_TO_PASS: { success: string[]; failure: string[] };
      PASS_TO_PASS: { success: string[]; failure: string[] };
      resolved: boolean;
    };
  }[];
  /** Seeded random texts of the tokens the parsers react to: the parser's map and get_logs_eval's. */
  random: {
    parser: ParserName;
    text: string;
    expected: { map: Entries } | { crash: string };
    grading: { found: boolean; map: Entries } | { crash: string };
  }[];
  infra: { name: string; text: string; expected: { reason: string; tier: string } | null }[];
}

export const harnessCases = JSON.parse(
  readFileSync(new URL("fixtures/swe-bench/harness-cases.json", import.meta.url), "utf8"),
) as HarnessCases;

/** Chunk sizes every text is fed in: whole, and sizes that cut lines, \r\n pairs and markers. */
export const CHUNKINGS = [Infinity, 1, 2, 3, 7, 64];

/** The lines of `text` fed through the splitter `size` characters at a time. */
export function linesInChunks(text: string, size: number): string[] {
  const out: string[] = [];
  const splitter = new LineSplitter((l) => out.push(l));
  const step = Number.isFinite(size) ? size : Math.max(1, text.length);
  for (let i = 0; i < text.length; i += step) splitter.push(text.slice(i, i + step));
  splitter.end();
  return out;
}
