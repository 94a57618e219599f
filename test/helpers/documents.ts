// What the tests of results documents share (merge, compare, narrate on edited documents): a
// command that must run, a refusal that must be one line, and edited copies.

import { readFileSync, writeFileSync } from "node:fs";
import { expect } from "vitest";
import { run } from "./cli.js";

/** A command that must finish: exit 0, or one of `also` (3 where a bundle could not be finished; 1 where compare found a regression). */
export async function ok(argv: string[], also: readonly number[] = [3]) {
  const r = await run(argv);
  if (r.code !== 0 && !also.includes(r.code)) throw new Error(`assay ${argv.join(" ")}: exit ${r.code}: ${r.stderr}`);
  return r;
}

/** A refusal: exit 2, one line on stderr naming `file` and matching each pattern, nothing on stdout. */
export async function refused(argv: string[], file: string, ...patterns: RegExp[]): Promise<string> {
  const r = await run(argv);
  expect([r.code, r.stdout], r.stderr).toEqual([2, ""]);
  const lines = r.stderr.split("\n").filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain(file);
  for (const p of patterns) expect(lines[0]).toMatch(p);
  return lines[0]!;
}

/** Edited copies of JSON documents, written beside each other as edited-N.json. */
export function editor(at: (p: string) => string): (from: string, change: (doc: any) => void) => string {
  let n = 0;
  return (from, change) => {
    const doc = JSON.parse(readFileSync(from, "utf8"));
    change(doc);
    const to = at(`edited-${++n}.json`);
    writeFileSync(to, JSON.stringify(doc, null, 2) + "\n");
    return to;
  };
}
