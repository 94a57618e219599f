// SWE-bench's book (main process): each model folder's run files — the final report, this model's
// predictions, run.json — found and read once when discovery reaches the model folder, into a small
// record kept in the document (`run.containers["swe-bench"]`), so a merge of shards recomputes the
// run's rules from it. Predictions are kept as each instance's emptiness and patch digest, never a patch.
import { posix } from "node:path";
import { finding, type Finding } from "../../core/codes.js";
import type { Containers } from "../../core/results.js";
import { byteCompare } from "../../core/text.js";
import type { FoundContainer } from "../../io/discover.js";
import type { ContainerBook } from "../kind.js";
import { containerDigest, ownListing } from "../../io/container-digest.js";
import { statOf } from "../../io/small-file.js";
import { keptReportSchema } from "./entry.js";
import { finalReportPlaces } from "./final-report.js";
import { findPredictions, readFinalReport, readRunMetadata } from "./run-files.js";

export type RunDocument = NonNullable<Containers["swe-bench"]>[number];

export class ModelBook implements ContainerBook {
  private readonly byPath = new Map<string, RunDocument>();

  found(c: FoundContainer): void {
    if (c.partial && this.byPath.has(c.path)) return;
    this.byPath.set(c.path, c.partial ? partialDocument(c) : readModelFolder(c));
  }

  records(): RunDocument[] {
    return [...this.byPath.values()].sort((a, b) => byteCompare(a.path, b.path));
  }
}

/** The run folder's path and name, as results show them. */
function runOf(c: FoundContainer): { run: string; run_id: string } {
  const run = posix.dirname(c.path);
  return { run, run_id: posix.basename(posix.dirname(c.dir)) };
}

/** Only an instance of it was given: its run files are not read (as a Terminal-Bench run's), and that is said. */
const partialDocument = (c: FoundContainer): RunDocument => ({
  path: c.path,
  model: c.name,
  ...runOf(c),
  partial: true,
  digest: null,
  report: null,
  predictions: null,
  dataset: null,
  warnings: [
    finding(
      "RUN_FILES_UNREAD",
      null,
      null,
      `only instance folders of ${c.path} were given: its final report, predictions and run.json are not read, so the run's claims are unchecked (give ${c.path} to check them)`,
    ),
  ],
});

function readModelFolder(c: FoundContainer): RunDocument {
  // A file found on disk, as results show it: relative to the model folder's shown path.
  const shown = (file: string) => posix.normalize(posix.join(c.path, posix.relative(c.dir, file)));
  const warnings: Finding[] = [];
  const found = readFinalReport(c.dir);
  let report: RunDocument["report"] = null;
  if (found.path === null) {
    const names = finalReportPlaces(c.dir).files.map(shown).join(", ");
    warnings.push(
      finding(
        "RUN_REPORT_ABSENT",
        null,
        null,
        `no final report in ${names} (killed before its end, or not archived): the run's claims are unknown`,
      ),
    );
  } else {
    const name = posix.basename(found.path);
    const ok = found.parse?.ok === true ? found.parse.report : null;
    if (ok === null)
      warnings.push(
        finding(
          "RUN_REPORT_UNREADABLE",
          name,
          null,
          `${found.parse?.ok === false ? found.parse.why : "unreadable"}: no claims`,
        ),
      );
    report = { path: shown(found.path), name, lists: ok === null ? null : keptReportSchema.parse(ok) };
  }
  const preds = findPredictions(c.dir, found.path);
  for (const u of preds.unreadable)
    warnings.push(finding("PREDICTIONS_UNREADABLE", shown(u.file), null, `${u.finding.code}: ${u.finding.message}`));
  const summary = preds.summary;
  const predictions =
    summary === null
      ? null
      : {
          path: shown(summary.file),
          records: [...summary.records].map(([id, p]) => ({ id, empty: p.empty, digest: p.digest })),
        };
  const dataset = readRunMetadata(posix.dirname(c.dir))?.dataset ?? null;
  const digest = modelDigest(c.dir, [found.path, summary?.file ?? null, posix.join(posix.dirname(c.dir), "run.json")]);
  return { path: c.path, model: c.name, ...runOf(c), partial: false, digest, report, predictions, dataset, warnings };
}

/**
 * §15.3: the files whose claims no instance's entry covers. The model folder's own top-level files
 * (its other subfolders are walked on their own), and the run files its record was read from,
 * which the harness writes outside it (the final report in the working folder, the predictions
 * beside it, run.json in the run folder): each a regular file, by its path relative to the model
 * folder, so the digest does not depend on where the archive lies. Other files the book only
 * looked through for predictions (another model's report, say) are not this model's.
 */
function modelDigest(dir: string, read: readonly (string | null)[]): string | null {
  const own = ownListing(dir, false);
  if (own === null) return null;
  const outside = read.flatMap((f) => {
    const st = f === null ? undefined : statOf(f);
    return f !== null && typeof st === "object" && st.isFile() ? [posix.relative(dir, f)] : [];
  });
  return containerDigest(dir, [...own.files, ...outside]);
}
