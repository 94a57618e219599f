// `assay export RESULTS... --out DIR [--from DIR]`: every unit of the documents (a trial, an Inspect
// sample's epoch, a SWE-bench instance, a bundle) as one row, with the entries and experiments,
// into a DuckDB database and Parquet files written by DuckDB (src/export, docs/export.md).

import { mkdirSync, statSync } from "node:fs";
import { forTerminal } from "../../core/text.js";
import { DATABASE, exportResults, PARQUET } from "../../export/write.js";
import { parseOptions } from "../args.js";
import { UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

export async function exportCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: "string" },
      from: { type: "string" },
      "memory-limit": { type: "string" },
      quiet: { type: "boolean" },
    },
  });
  if (positionals.length === 0)
    throw new UsageError("no RESULTS given: one or more documents of assay score --format json or jsonl");
  if (values.out === undefined || values.out === "-")
    throw new UsageError("no --out DIR given: the folder the database and Parquet files go into");
  try {
    mkdirSync(values.out, { recursive: true });
  } catch (e) {
    throw new UsageError(`cannot make ${forTerminal(values.out)}: ${(e as Error).message}`);
  }
  const from = values.from ?? ".";
  if (!statSync(from, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--from ${forTerminal(from)} is not a folder`);
  if (values["memory-limit"] !== undefined && !/^\d+(\.\d+)?\s*(KB|MB|GB|KiB|MiB|GiB)$/i.test(values["memory-limit"]))
    throw new UsageError(`--memory-limit ${forTerminal(values["memory-limit"])}: a size such as 512MB`);
  const limit = values["memory-limit"] ?? "512MB";
  const counts = await exportResults({
    documents: positionals,
    out: values.out,
    from,
    memoryLimit: limit,
    onUnread: (path, why) =>
      io.stderr(
        `assay export: ${forTerminal(path)}: its samples could not be read (${why}); its entry stands for them\n`,
      ),
  }).catch((e: unknown) => {
    // DuckDB's own refusal past its limit is the user's to lift, not a defect.
    if (e instanceof Error && e.message.startsWith("Out of Memory Error"))
      throw new UsageError(
        `DuckDB needed more than --memory-limit ${limit}: give it more (${e.message.split("\n")[0]})`,
      );
    throw e;
  });
  if (!values.quiet)
    io.stderr(
      `assay export: ${counts.units} units, ${counts.entries} entries, ${counts.experiments} experiments into ${forTerminal(values.out)}: ${DATABASE}, ${Object.values(PARQUET).join(", ")}\n`,
    );
  return 0;
}
