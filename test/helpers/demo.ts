// The demo corpus (`assay demo --keep`) scored into the JSON document and the HTML report, as the
// browser tests and the screenshot read them.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Results } from "../../src/core/results.js";
import { run } from "./cli.js";

export interface DemoReport {
  doc: Results;
  html: string;
  htmlFile: string;
  corpus: string;
  /** Removes the kept corpus (the reports in `out` are the caller's). */
  cleanup: () => void;
}

/** Synthesise the demo's corpus, score it to `out`/demo.json and `out`/demo.html. */
export async function demoReport(out: string): Promise<DemoReport> {
  const demo = await run(["demo", "--keep"]);
  const kept = /corpus kept in (.+)\n/.exec(demo.stderr)?.[1];
  if (kept === undefined) throw new Error(`assay demo kept no corpus: ${demo.stderr}`);
  const corpus = join(kept, "corpus");
  const jsonFile = join(out, "demo.json");
  const htmlFile = join(out, "demo.html");
  for (const [format, file] of [
    ["json", jsonFile],
    ["html", htmlFile],
  ] as const) {
    const r = await run(["score", corpus, "--quiet", "--format", format, "--out", file]);
    if (r.code !== 0) throw new Error(`assay score --format ${format}: exit ${r.code}: ${r.stderr}`);
  }
  return {
    doc: JSON.parse(readFileSync(jsonFile, "utf8")) as Results,
    html: readFileSync(htmlFile, "utf8"),
    htmlFile,
    corpus,
    cleanup: () => rmSync(kept, { recursive: true, force: true }),
  };
}

/**
 * Each headline figure of experiment `e` as the document states it, by the name the page gives it
 * (written here apart from the page's code, so a test holds one to the other).
 */
export function expectedFigures(e: Results["experiments"][number]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  if (e.accuracy !== null) out["accuracy"] = e.accuracy.value;
  if (e.completion !== null) out["completion"] = e.completion.value;
  if (e.raw_record !== null) out["raw_record"] = e.raw_record.mean;
  if (e.pass !== null) out["pass"] = e.pass.total === 0 ? null : e.pass.passed / e.pass.total;
  for (const [k, v] of Object.entries(e.pass_hat_k ?? {})) out[`pass_hat_k:${k}`] = v;
  for (const [key, r] of Object.entries(e.rewards ?? {})) {
    out[`reward:${key}:mean`] = r.mean;
    out[`reward:${key}:coverage`] = r.coverage;
    out[`reward:${key}:pass_rate`] = r.pass_rate;
    for (const [k, v] of Object.entries(r.pass_at_k ?? {})) out[`reward:${key}:pass_at_k:${k}`] = v;
    for (const [k, v] of Object.entries(r.pass_hat_k ?? {})) out[`reward:${key}:pass_hat_k:${k}`] = v;
  }
  for (const [key, m] of Object.entries(e.inspect ?? {})) {
    out[`inspect:${key}:value`] = m.value;
    out[`inspect:${key}:coverage`] = m.coverage.planned === 0 ? null : m.coverage.scored / m.coverage.planned;
    for (const [k, v] of Object.entries(m.pass_at_k ?? {})) out[`inspect:${key}:pass_at_k:${k}`] = v;
    for (const [k, v] of Object.entries(m.pass_hat_k ?? {})) out[`inspect:${key}:pass_hat_k:${k}`] = v;
  }
  if (e.usage !== null) {
    out["usage:spent:cost_usd"] = e.usage.spent.cost_usd;
    out["usage:counted:cost_usd"] = e.usage.counted.cost_usd;
    out["usage:cost_per_success"] = e.usage.cost_per_success;
  }
  return out;
}
