// What `harbor analyze` (analysis.json, analysis.md; Harbor ≥ 0.3) and the older `harbor jobs
// summarize` (summary.md, v0.1.25 to v0.1.45) write into a trial folder after the fact (research
// §D.2; HB analyze/analyzer.py:117-280, analyze/models.py:15-57). They are a model's reading of the
// evidence, not evidence: outside the trial's digest (analysing a trial keeps its verdict's
// identity, and a store keeps serving it), read where the trial lies after any store lookup, and
// shown beside assay's flags. A `reward_hacking: fail` is a review flag; nothing here changes a
// state. A malformed file is said in the entry, never a finding on the trial. Pure.

import { decodeDocument, isPlainObject } from "../../core/json/decode.js";
import { redact } from "../../core/redact.js";
import type { BundleEntry, ScoredBundle } from "../../core/results.js";
import type { Finding } from "../../core/codes.js";
import { shorten } from "../../core/text.js";
import { READINGS } from "../../core/folder.js";

export const ANALYSIS_JSON = "analysis.json";
/** Files at a trial's root that are a reading of its evidence, never part of it (nor of its digest). */
export const NOT_TRIAL_EVIDENCE: ReadonlySet<string> = READINGS;
/** Is this path (relative to the trial folder) part of the trial's evidence? */
export const isTrialEvidence = (path: string): boolean => !NOT_TRIAL_EVIDENCE.has(path);

/** The most of analysis.json read, and of a markdown file's head (its first line is all that is shown). */
export const MAX_ANALYSIS_BYTES = 1024 * 1024;
export const MARKDOWN_HEAD_BYTES = 4096;
const MAX_CHECKS = 20;
const MAX_TEXT = 200;

/** What the edge read: analysis.json's bytes (or why not), else the head of analysis.md or summary.md. */
export type AnalysisFiles =
  { file: string; json: Uint8Array } | { file: string; markdown: Uint8Array } | { file: string; unreadable: string };

type Analysis = NonNullable<BundleEntry["harbor_analysis"]>;

const line = (v: unknown): string => {
  const first = (typeof v === "string" ? v : "").split(/\r\n|\r|\n/).find((l) => l.trim() !== "") ?? "";
  return shorten(redact(first.trim()), MAX_TEXT);
};

/** The entry's `harbor_analysis` from what was read. */
export function readAnalysis(files: AnalysisFiles): Analysis {
  const out: Analysis = { file: files.file, summary: null, checks: [], more: 0, unreadable: null };
  if ("unreadable" in files) return { ...out, unreadable: files.unreadable };
  if ("markdown" in files) {
    const text = Buffer.from(files.markdown).toString("utf8");
    // The heading the renderer writes first ("# …") is a title, not what it says.
    return {
      ...out,
      summary:
        line(
          text
            .split(/\r\n|\r|\n/)
            .filter((l) => !/^\s*#/.test(l))
            .join("\n"),
        ) || null,
    };
  }
  const problems: Finding[] = [];
  const doc = decodeDocument(files.json, files.file, problems);
  if (doc === undefined) return { ...out, unreadable: `${problems[0]!.code}: ${problems[0]!.message}` };
  if (!isPlainObject(doc) || (doc["checks"] !== undefined && !isPlainObject(doc["checks"])))
    return { ...out, unreadable: "not an AnalyzeResult object (trial_name, summary, checks)" };
  out.summary = typeof doc["summary"] === "string" ? line(doc["summary"]) || null : null;
  // Criteria are the rubric's (reward_hacking and task_specification by default; custom rubrics add more): any name is read.
  for (const [name, check] of Object.entries((doc["checks"] as Record<string, unknown> | undefined) ?? {})) {
    if (out.checks.length >= MAX_CHECKS) {
      out.more++;
      continue;
    }
    const c = isPlainObject(check) ? check : {};
    out.checks.push({
      name: shorten(name, 80),
      outcome: typeof c["outcome"] === "string" ? shorten(c["outcome"], 40) : "unknown",
      explanation: line(c["explanation"]),
    });
  }
  return out;
}

/** The rubric criterion whose failure is a review flag (HB analyze-rubric.toml: writes to the reward files, test edits, solution access). */
const REWARD_HACKING = "reward_hacking";

/**
 * An entry's fields from its analysis, set where the trial lies (placed): the analysis, and its
 * flags with ANALYZE_REWARD_HACKING added when the analysis says reward_hacking failed. A new flags
 * array: the scored entry's own (which a store keeps) is left as it was.
 */
export function analysed(
  entry: Pick<ScoredBundle, "flags">,
  analysis: Analysis | null,
): Pick<ScoredBundle, "flags" | "harbor_analysis"> {
  const fail = analysis?.checks.find((c) => c.name === REWARD_HACKING && c.outcome === "fail");
  const flag =
    fail === undefined
      ? []
      : [
          {
            code: "ANALYZE_REWARD_HACKING" as const,
            evidence: `Harbor analyze says reward_hacking: fail (${analysis!.file})${fail.explanation === "" ? "" : `: ${fail.explanation}`}`,
          },
        ];
  return { flags: flag.length === 0 ? entry.flags : [...entry.flags, ...flag], harbor_analysis: analysis };
}
