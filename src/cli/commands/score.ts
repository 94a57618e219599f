import { availableParallelism } from "node:os";
import type { parseArgs } from "node:util";
import { indexSchedules } from "../../core/batch/schedule.js";
import { describeFilter, filterResults, parseFilter, unknownTimeNote } from "../../core/filter.js";
import type { BundleEntry, ResultsView } from "../../core/results.js";
import { forTerminal } from "../../core/text.js";
import { colourFor, painted } from "../colour.js";
import { checkKept, checkOutput, gathered, withSqliteFiles, writeOutput, type Protected } from "../../io/output.js";
import { loadSchedule, scoreRun, storeOptions, type ScoredRun } from "../../pipeline/score.js";
import { parseScanId, parseShard } from "../../pipeline/shard.js";
import { FORMAT_NAMES, formatForFile, loadFormat, type FormatName } from "../../report/formats.js";
import { byFrequency, tallied } from "../../report/vocabulary.js";
import { JOBS_PER_CPU, maxJobs } from "../../pool/pool.js";
import { oneOf, parseOptions, positiveInt } from "../args.js";
import { FILTER_OPTIONS } from "../filters.js";
import { EXIT, exitForResults, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { progressReporter } from "../progress.js";
import { widthFor } from "../width.js";
import { checkDataset, checkedNothing } from "../dataset.js";

/**
 * Write the document, piece by piece as its entries are read, to `out` (never onto what the
 * command reads or keeps), else to stdout.
 */
export async function writeResults(
  doc: ResultsView,
  format: FormatName,
  out: string | undefined,
  io: CliIo,
  o: {
    quiet?: boolean | undefined;
    protect?: Protected;
    macKey?: Uint8Array | undefined;
    details?: boolean | undefined;
    /** The table's width (cli/width.ts). */
    width?: number | undefined;
  } = {},
): Promise<void> {
  const seen = out !== undefined && !o.quiet && doc.tally.error > 0 ? toolErrorCodes(doc) : null;
  const shown = seen === null ? doc : { ...doc, bundles: seen.bundles };
  // With a key, a JSON or JSON Lines document ends with its MAC under that key (§8 "keyed documents").
  const text = await (await loadFormat(format)).render(shown, { macKey: o.macKey, details: o.details, width: o.width });
  if (out !== undefined) {
    writeOutput(out, text, { protect: o.protect ?? {} });
    if (!o.quiet)
      io.stderr(
        `assay: wrote ${forTerminal(out)} (${tallied(doc.tally).phrase()}${doc.run.complete ? "" : ", incomplete"})\n`,
      );
    if (seen !== null) io.stderr(`assay: ${seen.line()}\n`);
  } else
    for (const piece of gathered(format === "table" ? painted(text as Iterable<string>, colourFor(io)) : text))
      io.stdout(piece);
}

/**
 * The codes of a run's tool errors, counted as the document is written (a second read of a spilled
 * run would cost as much again), so a run written to --out says on stderr why it exits 3, not only
 * how many: "1 tool error, not scored: TIMEOUT 1". A format that reads no entry gets its own pass.
 */
function toolErrorCodes(doc: ResultsView): { bundles: Iterable<BundleEntry>; line: () => string } {
  const codes = new Map<string, number>();
  let counted = false;
  const see = (e: BundleEntry) => {
    if (e.validity !== "error") return;
    for (const c of new Set(e.errors.map((f) => f.code))) codes.set(c, (codes.get(c) ?? 0) + 1);
  };
  const bundles: Iterable<BundleEntry> = {
    *[Symbol.iterator]() {
      if (counted) return yield* doc.bundles;
      codes.clear(); // a pass left unfinished counted part of the entries
      for (const e of doc.bundles) {
        see(e);
        yield e;
      }
      counted = true;
    },
  };
  return {
    bundles,
    line: () => {
      if (!counted) {
        const pass = bundles[Symbol.iterator]();
        while (pass.next().done !== true);
      }
      const n = doc.tally.error;
      return `${n} tool error${n === 1 ? "" : "s"}, not scored: ${byFrequency(codes)} (each entry's errors say why)`;
    },
  };
}

/** The options of a scoring run (score, and analyze which scores first). */
export const SCORE_OPTIONS = {
  schedule: { type: "string", multiple: true },
  format: { type: "string" },
  out: { type: "string" },
  invalid: { type: "string" },
  "resource-bound": { type: "string" },
  errors: { type: "string" },
  "fail-on": { type: "string" },
  jobs: { type: "string" },
  store: { type: "string" },
  "verify-digests": { type: "boolean" },
  shard: { type: "string" },
  "scan-id": { type: "string" },
  "bundle-timeout": { type: "string" },
  "hmac-key-file": { type: "string" },
  dataset: { type: "string" },
  quiet: { type: "boolean" },
  "allow-empty": { type: "boolean" },
  details: { type: "boolean" },
  width: { type: "string" },
} as const;
type ScoreValues = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof SCORE_OPTIONS }>
>["values"];

export interface Scored {
  /** The document, its entries in a spill file until results.close(). */
  results: ScoredRun;
  format: FormatName;
  out: string | undefined;
  failOnInvalid: boolean;
  quiet: boolean;
  /** What the document must not be written onto: the roots, the store, the schedules, the key file, and the caller's own inputs. */
  protect: Protected;
  /** Without a key file: how many assay bundles hold a seal.json that went unchecked. */
  uncheckedSeals: number;
  /** The key file's bytes, when given: the document is written with its MAC (never the key). */
  macKey: Uint8Array | undefined;
  /** The table shows each experiment's section after the overview. */
  details: boolean;
  /** The columns the table is laid out in. */
  width: number;
  /** --dataset was given and no unit of its kinds was scored: what to say (the run then fails). */
  datasetUnused: string | null;
}

/** Said once, at the end of a run without a key, when any bundle holds a seal that was not checked. */
export function sayUncheckedSeals(n: number, io: CliIo): void {
  if (n === 1)
    io.stderr("assay: 1 bundle holds seal.json; its seal was not checked (give --hmac-key-file to check it)\n");
  else if (n > 1)
    io.stderr(
      `assay: ${n} bundles hold seal.json; their seals were not checked (give --hmac-key-file to check them)\n`,
    );
}

export async function scoreCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { ...SCORE_OPTIONS, ...FILTER_OPTIONS },
  });
  // Refused before scoring: a mistyped filter should not cost a run.
  const filter = parseFilter(values);
  if (filter !== null && values.shard !== undefined)
    throw new UsageError(
      "a shard holds bundle entries only, no experiments to filter: filter the merged document's report instead (score without --shard)",
    );
  const scored = await scoreFromOptions(values, positionals, io, "score");
  if (typeof scored === "number") return scored;
  let results: ScoredRun = scored.results;
  try {
    if (filter !== null) {
      const filtered = filterResults(results, filter);
      results = filtered.doc;
      const note = unknownTimeNote(filtered.unknownTime, filter.given.since ?? "");
      if (note !== "") io.stderr(`assay: ${note}\n`);
      // Nothing is not a pass: a filter that keeps nothing is a mistake to say, not an empty report.
      if (results.experiments.length === 0)
        throw new UsageError(
          `no experiment matches ${describeFilter(filter.given)} (of ${scored.results.experiments.length} scored)`,
        );
    }
    await writeResults(results, scored.format, scored.out, io, scored);
  } finally {
    scored.results.close();
  }
  sayUncheckedSeals(scored.uncheckedSeals, io);
  const exit = exitForFiltered(scored.results, results, scored.failOnInvalid);
  return withDatasetCheck(exit, scored.datasetUnused, io);
}

/** A --dataset that checked nothing is said, and fails the run (exit 1, unless it is already worse). */
export function withDatasetCheck(exit: number, unused: string | null, io: CliIo): number {
  if (unused === null) return exit;
  io.stderr(`assay: ${unused}\n`);
  return exit === EXIT.OK ? EXIT.FAILED : exit;
}

/**
 * The exit code of a filtered run: the kept document's (--fail-on invalid asks of the experiments
 * selected), but a tool error anywhere in the run is exit 3 still: a filter selects what is
 * reported, and never makes a run that could not read its evidence look complete.
 */
export function exitForFiltered(all: Pick<ResultsView, "tally">, kept: ResultsView, failOnInvalid: boolean): number {
  return all.tally.error > 0 ? EXIT.INCOMPLETE : exitForResults(kept, failOnInvalid);
}

/**
 * Check the options, score the roots (with progress and Ctrl-C), and return the document, or an
 * exit code when stopped. `kept`: files the caller reads or keeps besides score's own (analyze's
 * cache, rubric and prompt), which no output may land on.
 */
export async function scoreFromOptions(
  values: ScoreValues,
  positionals: string[],
  io: CliIo,
  command: string,
  kept: readonly (string | undefined)[] = [],
): Promise<Scored | number> {
  if (positionals.length === 0)
    throw new UsageError(`assay ${command} needs at least one ROOT (see assay ${command} --help)`);
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  const scanId = values["scan-id"] === undefined ? undefined : parseScanId(values["scan-id"]);
  const format = formatForFile(values.out, {
    format: values.format,
    formats: FORMAT_NAMES,
    fallback: shard ? "json" : "table",
  });
  const width = widthFor(io, values.width, values.out); // a bad --width is refused before the run
  if (shard && format !== "json" && format !== "jsonl")
    throw new UsageError("--shard writes bundle entries for assay merge: use --format json or jsonl");
  if (values["fail-on"] !== undefined && values["fail-on"] !== "invalid")
    throw new UsageError("--fail-on takes: invalid");
  if (values["verify-digests"] && values.store === undefined)
    throw new UsageError("--verify-digests goes with --store");
  const keyFile = values["hmac-key-file"];
  const protect: Protected = {
    roots: positionals,
    files: [...(values.schedule ?? []), ...withSqliteFiles(values.store), keyFile, values.dataset, ...kept],
  };
  if (values.out !== undefined) checkOutput(values.out, protect);
  if (values.store !== undefined) checkKept(values.store, "the results store", positionals);
  const schedules = (values.schedule ?? []).map(loadSchedule);
  indexSchedules(schedules.map((s) => s.schedule)); // two for one experiment: refuse before scoring
  const timeoutS = values["bundle-timeout"] === undefined ? undefined : Number(values["bundle-timeout"]);
  if (timeoutS !== undefined && !(timeoutS > 0 && timeoutS <= 86_400))
    throw new UsageError("--bundle-timeout takes a number of seconds above 0 and at most 86400 (a day)");
  const jobs = values.jobs === undefined ? undefined : positiveInt("jobs", values.jobs);
  if (jobs !== undefined && jobs > maxJobs())
    io.stderr(
      `assay: --jobs ${values.jobs} is more than this machine can use: using ${maxJobs()} (${JOBS_PER_CPU} × ${availableParallelism()} available CPUs)\n`,
    );
  const statusSeconds = Number(io.env["ASSAY_STATUS_SECONDS"] ?? 5);
  if (!(statusSeconds > 0 && statusSeconds <= 86_400))
    throw new UsageError("ASSAY_STATUS_SECONDS must be a number of seconds above 0");
  // seal.js is loaded only with a key: it imports the workers' scorers.
  const key =
    keyFile === undefined ? undefined : (await import("./seal.js")).readKeyFile(keyFile, positionals, io.stderr);
  // A derived scan id is the same for every scan of the same bundles: merge could not tell this shard from a replayed older one.
  if (key !== undefined && shard !== undefined && scanId === undefined)
    io.stderr(
      "assay: a keyed shard without --scan-id: merge refuses shards of other bundles, but not an older shard of these replayed (give every scan its own --scan-id; slurm-script does)\n",
    );

  const dataset = values.dataset === undefined ? undefined : checkDataset(values.dataset);
  // SQLite is loaded only by a run that keeps a store.
  const store =
    values.store === undefined
      ? undefined
      : new (await import("../../store/store.js")).ResultStore(values.store, storeOptions(key?.bytes, dataset?.file));
  try {
    const taken = store?.claim(values.shard ?? null) ?? null; // one writer at a time: two shards on one store are refused here
    if (taken !== null) io.stderr(`assay: ${forTerminal(values.store!)}: ${forTerminal(taken)}\n`);
  } catch (e) {
    store?.close();
    throw e;
  }
  const mode = values.quiet ? "quiet" : io.stderrIsTTY ? "tty" : "lines";
  const reporter = await progressReporter(io, mode, statusSeconds * 1000);
  const stop = new AbortController();
  const removeHandler = io.onInterrupt(() => {
    if (stop.signal.aborted) {
      reporter.stop(); // restores the cursor the progress bar hid
      process.exit(EXIT.INTERRUPTED); // a second Ctrl-C: now
    }
    reporter.note(
      "\nassay: stopping — finishing the work in flight; the store keeps what is done (Ctrl-C again to quit now)\n",
    );
    stop.abort();
  });
  // The format's module loads while the workers start; writeResults then finds it loaded.
  loadFormat(format).catch(() => {}); // a module that fails to load fails again there, and is said
  let uncheckedSeals = 0;
  let results: ScoredRun;
  try {
    results = await scoreRun(positionals, {
      schedules,
      invalid: oneOf("invalid", values.invalid, ["count", "exclude"], "count"),
      resourceBound: oneOf("resource-bound", values["resource-bound"], ["default", "exclude", "loss"], "default"),
      errors: oneOf("errors", values.errors, ["exclude", "zero"], "exclude"),
      jobs,
      bundleTimeoutMs: timeoutS === undefined ? undefined : timeoutS * 1000,
      store,
      verifyDigests: values["verify-digests"] ?? false,
      shard,
      scanId,
      signal: stop.signal,
      progress: reporter,
      onSkip: (path, reason) => io.stderr(`assay: skipped ${forTerminal(path)}: ${reason}\n`),
      allowEmpty: values["allow-empty"] ?? false,
      hmacKey: key?.bytes,
      dataset: dataset?.file,
      onSealNotChecked: () => void uncheckedSeals++,
    });
  } finally {
    reporter.stop();
    store?.close();
    removeHandler();
  }
  if (stop.signal.aborted) {
    // Stopped: only an explicit --out gets a document (marked incomplete unless every bundle
    // had already been handed out); the store has the rest. Ctrl-C always means exit 130.
    try {
      if (values.out !== undefined)
        await writeResults(results, format, values.out, io, {
          quiet: values.quiet,
          protect,
          macKey: key?.bytes,
          width,
        });
    } finally {
      results.close();
    }
    io.stderr(
      `assay: stopped after ${tallied(results.tally).phrase()}${values.store ? `; ${forTerminal(values.store)} keeps them for the rerun` : ""}\n`,
    );
    return EXIT.INTERRUPTED;
  }
  return {
    results,
    format,
    out: values.out,
    failOnInvalid: values["fail-on"] === "invalid",
    quiet: values.quiet ?? false,
    protect,
    uncheckedSeals,
    macKey: key?.bytes,
    details: values.details ?? false,
    width,
    datasetUnused: dataset === undefined || shard !== undefined ? null : checkedNothing(values.dataset!, results.tally),
  };
}
