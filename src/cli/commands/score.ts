import { indexSchedules } from "../../core/batch/schedule.js";
import { writeFileAtomic } from "../../io/write.js";
import { FORMATS, isFormat } from "../../report/index.js";
import { loadSchedule, scoreRoots } from "../../pipeline/score.js";
import { parseArgs } from "node:util";
import { oneOf, usage } from "../args.js";
import { exitForResults, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

export const SCORE_HELP = `assay score ROOT... [options]
  Score every bundle under the roots; per experiment, honest metrics.
  --schedule FILE          an assay.schedule/1 file (repeatable, one per experiment)
  --format table|json      output format (default table)
  --out FILE               write the output to FILE (atomically) instead of stdout
  --invalid count|exclude  invalid trials count as non-victories (default) or are left out
  --resource-bound exclude|loss
                           resource-bound runs without an ending: excluded (default) or losses
  --fail-on invalid        exit 1 when any bundle or trial is invalid
`;

export function scoreCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = usage(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        schedule: { type: "string", multiple: true },
        format: { type: "string" },
        out: { type: "string" },
        invalid: { type: "string" },
        "resource-bound": { type: "string" },
        "fail-on": { type: "string" },
      },
    }),
  );
  if (positionals.length === 0) throw new UsageError("assay score needs at least one ROOT (see assay score --help)");
  const format = values.format ?? "table";
  if (!isFormat(format)) throw new UsageError(`--format must be one of ${Object.keys(FORMATS).join(", ")}`);
  if (values["fail-on"] !== undefined && values["fail-on"] !== "invalid") throw new UsageError("--fail-on takes: invalid");
  const schedules = (values.schedule ?? []).map(loadSchedule);
  indexSchedules(schedules.map((s) => s.schedule)); // two for one experiment: refuse before scoring
  const results = scoreRoots(positionals, {
    schedules,
    onSkip: (path, reason) => io.stderr(`assay: skipped ${path}: ${reason}\n`),
    invalid: oneOf("invalid", values.invalid, ["count", "exclude"], "count"),
    resourceBound: oneOf("resource-bound", values["resource-bound"], ["exclude", "loss"], "exclude"),
  });
  const text = FORMATS[format].render(results);
  if (values.out !== undefined) {
    writeFileAtomic(values.out, text);
    io.stderr(`assay: wrote ${values.out} (${results.bundles.length} bundles)\n`);
  } else io.stdout(text);
  return exitForResults(results, values["fail-on"] === "invalid");
}
