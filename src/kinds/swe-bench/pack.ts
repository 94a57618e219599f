// What `assay analyze` shows a model of a SWE-bench instance (after assay's hard result): the
// harness's verdict, the patch the model submitted, and the test output's region its verdict rests
// on (the whole text when it has no markers), each capped; eval.sh and the harness's own log are
// not shown (the hard result says what they gave).
import { buildPack, CAPS, part, readText, type EvidencePack } from "../pack.js";
import type { BundleEntry } from "../../core/results.js";
import { PATCH, REPORT, TEST_OUTPUT } from "./instance-entry.js";
import { linesOf } from "./python-text.js";
import { RegionLines } from "./region.js";

export function sweBenchPack(dir: string, entry: BundleEntry): EvidencePack {
  return buildPack(
    [
      ...part(REPORT, readText(dir, REPORT), CAPS.small),
      ...part(`${PATCH} (the model's patch)`, readText(dir, PATCH), CAPS.trajectory),
      ...testOutput(readText(dir, TEST_OUTPUT)),
    ],
    entry,
  );
}

/** The harness's region of the test output (read up to readText's bound), or the text itself when it has none. */
function testOutput(text: string | null): ReturnType<typeof part> {
  if (text === null) return [];
  const region: string[] = [];
  const lines = new RegionLines((l) => region.push(l));
  for (const l of linesOf(text)) lines.line(l);
  return region.length === 0
    ? part(`${TEST_OUTPUT} (the tests' output)`, text, CAPS.tests)
    : part(`${TEST_OUTPUT} (the region between the harness's markers)`, region.join("\n"), CAPS.tests);
}
