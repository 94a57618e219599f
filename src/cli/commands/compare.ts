// `assay compare BASE HEAD` and `assay compare R1 R2 R3 …`: results documents (JSON or JSON Lines)
// read as streams, one after another, entry by entry, keeping per pairing unit only its value
// (core/compare/trials.ts): per unit a number per run, never an entry. The statistics are pure
// (core/compare); the formats derive from the canonical JSON (report/compare).

import { EntrySpend, headlineProblem, InspectFigures } from "../../core/compare/checked.js";
import { compareRuns, filterSide, uncomparedPairs, differingOptions, type Side } from "../../core/compare/compare.js";
import { describeFilter, parseFilter, unknownTimeNote, type ExperimentFilter } from "../../core/filter.js";
import { MATCH_BY, type MatchBy, type Member } from "../../core/compare/match.js";
import { keyOf, kindOf, namesOf } from "../../core/compare/names.js";
import { rankRuns, uncompared } from "../../core/compare/rank.js";
import type { Comparison, RankingDocument } from "../../core/compare/schema.js";
import { TrialOutcomes } from "../../core/compare/trials.js";
import type { Experiment } from "../../core/results.js";
import { forTerminal } from "../../core/text.js";
import { colourFor, painted } from "../colour.js";
import { checkOutput, gathered, writeOutput } from "../../io/output.js";
import { checkKeyOf, checkMacOf, readShard } from "../../io/shard-reader.js";
import { COMPARE_FORMATS, type CompareFormat } from "../../report/compare/index.js";
import { formatForFile } from "../../report/index.js";
import { widthFor } from "../width.js";
import { parseOptions } from "../args.js";
import { FILTER_OPTIONS } from "../filters.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { readKeyFile, type HmacKey } from "./seal.js";

const few = (xs: readonly string[]) =>
  xs.length === 0
    ? "none"
    : `${xs.slice(0, 5).map(forTerminal).join(", ")}${xs.length > 5 ? ` and ${xs.length - 5} more` : ""}`;
// An example only where every name prints as itself and needs no more than single quotes.
const quotable = (x: string | undefined) =>
  x !== undefined && !x.includes("'") && !x.includes("=") && forTerminal(x) === x;
const example = (names: readonly (string | undefined)[]) =>
  names.every(quotable) ? ` (e.g. --pair '${names.join("=")}')` : "";

/** Why nothing matched, and what to do: what each side holds (a few), the ambiguous keys, --by and --pair. */
function noMatch(doc: Comparison | RankingDocument, documents: number, by: MatchBy | undefined): string {
  if (doc.format === "assay.compare-runs/1") {
    if (doc.unscored.length > 0)
      return doc.unscored
        .map((u) => `${forTerminal(u.experiment)}: ${u.reason} (${few(u.members.map((m) => m.run))})`)
        .join("; ");
    const matched =
      by === undefined
        ? "no two runs share a name, a recorded benchmark or a task set"
        : `no two runs share a ${by === "name" ? "name" : by === "benchmark" ? "recorded benchmark" : "task set"} (--by ${by})`;
    const pair =
      documents === 1
        ? `name runs of one benchmark with --pair A=B[=C…]${example(doc.single.slice(0, 2))}`
        : `name one experiment per document with --pair ${Array.from({ length: documents }, (_, i) => `R${i + 1}_NAME`).join("=")}`;
    return `${matched} (runs: ${few(doc.single)}); ${pair}`;
  }
  const ambiguous = doc.ambiguous.map(
    (a) => `by ${a.by}, ${forTerminal(a.key)} has BASE ${few(a.base)} and HEAD ${few(a.head)}`,
  );
  const why = ambiguous.length > 0 ? `ambiguous, so not guessed: ${ambiguous.join("; ")}; ` : "";
  const how =
    by === undefined ? "matched by name, then recorded benchmark, then task set" : `matched by ${by} only (--by)`;
  return `no experiment is on both sides (${how}; ${why}only in BASE: ${few(doc.only_base)}; only in HEAD: ${few(doc.only_head)}); pair two with --pair BASE_NAME=HEAD_NAME${example([doc.only_base[0] ?? doc.ambiguous[0]?.base[0], doc.only_head[0] ?? doc.ambiguous[0]?.head[0]])}, or choose one criterion with --by name|benchmark|tasks`;
}

/**
 * One document read: its run, its experiments, and its units' values (never its entries). With
 * a key, it must have been scored with that key and carry the MAC the key gives it. Either way,
 * each experiment's headline figures and what it spent must be what its entries give.
 */
function readSide(file: string, key: HmacKey | undefined): Side {
  const trials = new TrialOutcomes();
  const spend = new EntrySpend();
  const inspect = new InspectFigures();
  const experiments: Experiment[] = [];
  const read = readShard(
    file,
    (e) => (trials.add(e), spend.add(e), inspect.add(e)),
    (x) => experiments.push(x),
    { key: key?.bytes },
  );
  if (key !== undefined) {
    checkKeyOf(file, read.run, key.fingerprint);
    checkMacOf(file, read);
  }
  const { run } = read;
  if (run.shard !== null)
    throw new UsageError(
      `${forTerminal(file)} is shard ${run.shard} of a run: merge the shards first (assay merge), then compare`,
    );
  const keys = new Set<string>();
  for (const x of experiments) {
    const k = keyOf(x);
    if (k !== null && keys.has(k))
      throw new UsageError(
        `${forTerminal(file)} lists experiment ${forTerminal(x.experiment!)} (${x.profile ?? "no profile"}) twice: not a document assay wrote`,
      );
    if (k !== null) keys.add(k);
  }
  const units = new Map(experiments.map((x) => [x, trials.take(x, run.options)] as const));
  for (const x of experiments) {
    const problem = headlineProblem(x, units.get(x)!) ?? inspect.problem(x, run.options) ?? spend.problem(x);
    if (problem !== null)
      throw new UsageError(
        `${forTerminal(file)}: experiment ${forTerminal(x.experiment ?? "(no id)")} (${x.profile ?? "no profile"}): ${problem} (edited after assay wrote it?)`,
      );
  }
  return { file, run, experiments, units };
}

/** The experiment a --pair side names: by the name compare shows it under, or by its id when only one has it. */
function named(s: Side, names: ReadonlyMap<Experiment, string>, name: string, v: string): Experiment {
  const found = s.experiments.filter((x) => names.get(x) === name || (x.experiment === name && names.has(x)));
  if (found.length === 0)
    throw new UsageError(`--pair ${forTerminal(v)}: ${forTerminal(s.file)} has no experiment ${forTerminal(name)}`);
  if (found.length > 1)
    throw new UsageError(
      `--pair ${forTerminal(v)}: ${forTerminal(s.file)} has ${found.length} experiments ${forTerminal(name)}: name one as ${found.map((x) => forTerminal(names.get(x)!)).join(" or ")}`,
    );
  return found[0]!;
}

/** `A=B` of two documents: at the one "=" that leaves a name of each side's (a name may hold "="), else the first. */
function splitTwo(v: string, sides: readonly Side[], names: readonly ReadonlyMap<Experiment, string>[]): string[] {
  const has = (i: number, name: string) =>
    sides[i]!.experiments.some((x) => names[i]!.get(x) === name || x.experiment === name);
  const at = [...v.matchAll(/=/g)].map((m) => m.index).filter((i) => i > 0 && i < v.length - 1);
  const fits = at.filter((i) => has(0, v.slice(0, i)) && has(1, v.slice(i + 1)));
  const i = fits.length === 1 ? fits[0]! : v.indexOf("=");
  return i <= 0 || i === v.length - 1 ? [v] : [v.slice(0, i), v.slice(i + 1)];
}

/**
 * `--pair A=B[=C…]`: one name per document in command-line order (two documents: BASE's A with
 * HEAD's B, split at the first "="); with one document, two or more of its experiments. Each
 * experiment in one pair at most.
 */
function parsePairs(values: readonly string[], sides: readonly Side[]): Member[][] {
  const names = sides.map((s) => namesOf(s.experiments));
  const seen = new Set<Experiment>();
  return values.map((v) => {
    const parts = sides.length === 2 ? splitTwo(v, sides, names) : v.split("=");
    const wanted =
      sides.length === 1
        ? "A=B[=C…], two or more experiments of the document"
        : sides.length === 2
          ? "BASE_EXPERIMENT=HEAD_EXPERIMENT"
          : `one experiment per document, ${sides.length} names joined by =`;
    if (parts.some((p) => p === "") || (sides.length === 1 ? parts.length < 2 : parts.length !== sides.length))
      throw new UsageError(`--pair takes ${wanted} (got ${JSON.stringify(v)})`);
    const members = parts.map((name, i) => {
      const side = sides.length === 1 ? 0 : i;
      const x = named(sides[side]!, names[side]!, name, v);
      if (seen.has(x)) throw new UsageError(`--pair ${forTerminal(v)}: an experiment is paired twice`);
      seen.add(x);
      return { side, x };
    });
    // Different kinds have no metric in common: such a pair would compare nothing.
    const kinds = new Set(members.map((m) => kindOf(m.x)));
    if (kinds.size > 1)
      throw new UsageError(
        `--pair ${forTerminal(v)}: experiments of different kinds (${[...kinds].join(", ")}) share no metric: nothing to compare`,
      );
    return members;
  });
}

/** Refuse what would make the difference one of options or scoring rules rather than of the runs (every document against the first). */
function checkComparable(base: Side, head: Side): void {
  const [b, h] = [base.run, head.run];
  if (b.scoring_version !== h.scoring_version)
    throw new UsageError(
      `${forTerminal(base.file)} was scored under scoring version ${b.scoring_version} (assay ${forTerminal(b.tool_version)}), ${forTerminal(head.file)} under ${h.scoring_version} (assay ${forTerminal(h.tool_version)}): score both with one assay`,
    );
  const differ = differingOptions(b.options, h.options);
  if (differ.length > 0)
    throw new UsageError(
      `${forTerminal(base.file)} and ${forTerminal(head.file)} were scored with different options (${differ.join("; ")}): score both alike`,
    );
}

/** Each side's experiments the filters select (compare's filters apply after each document is checked whole); none selected anywhere is refused. */
function filterSides(sides: Side[], filter: ExperimentFilter, io: CliIo): void {
  let unknown = 0;
  const before = sides.reduce((n, s) => n + s.experiments.length, 0);
  sides.forEach((s, i) => {
    const r = filterSide(s, filter);
    sides[i] = r.side;
    unknown += r.unknownTime;
  });
  const note = unknownTimeNote(unknown, filter.given.since ?? "");
  if (note !== "") io.stderr(`assay compare: ${forTerminal(note)}\n`);
  if (sides.every((s) => s.experiments.length === 0))
    throw new UsageError(
      `no experiment matches ${forTerminal(describeFilter(filter.given))} (of ${before} in the documents)`,
    );
}

export function compareCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: "string" },
      out: { type: "string" },
      pair: { type: "string", multiple: true },
      by: { type: "string" },
      trend: { type: "boolean" },
      "fail-on": { type: "string" },
      "hmac-key-file": { type: "string" },
      width: { type: "string" },
      ...FILTER_OPTIONS,
    },
  });
  const filter = parseFilter(values);
  if (positionals.length < 1)
    throw new UsageError(
      "assay compare needs a results document to rank within, two (BASE.json HEAD.json) to compare, or three or more to rank",
    );
  if (values["fail-on"] !== undefined && values["fail-on"] !== "regression")
    throw new UsageError("--fail-on takes: regression");
  if (values.by !== undefined && !(MATCH_BY as readonly string[]).includes(values.by))
    throw new UsageError(`--by takes: ${MATCH_BY.join(", ")}`);
  const by = values.by as MatchBy | undefined;
  const format = formatForFile(values.out, {
    format: values.format,
    formats: Object.keys(COMPARE_FORMATS) as CompareFormat[],
    fallback: "table",
  });
  const width = widthFor(io, values.width, values.out);
  const protect = { files: [...positionals, values["hmac-key-file"]] };
  if (values.out !== undefined) checkOutput(values.out, protect);
  const key = values["hmac-key-file"] === undefined ? undefined : readKeyFile(values["hmac-key-file"], [], io.stderr);
  // One document at a time: each is checked against the first as soon as it is read.
  const sides: Side[] = [];
  for (const file of positionals) {
    const s = readSide(file, key);
    if (sides.length > 0) checkComparable(sides[0]!, s);
    sides.push(s);
  }
  if (filter !== null) filterSides(sides, filter, io);
  const pairs = parsePairs(values.pair ?? [], sides);
  // Two documents compare BASE with HEAD; one, or three or more, or a trend, rank.
  const doc: Comparison | RankingDocument =
    sides.length === 2 && values.trend !== true
      ? compareRuns(
          sides[0]!,
          sides[1]!,
          pairs.map((p) => [p[0]!.x, p[1]!.x] as const),
          by,
        )
      : rankRuns(sides, { pairs, by, trend: values.trend === true });
  const text = COMPARE_FORMATS[format].render(doc, { width });
  if (values.out !== undefined) {
    writeOutput(values.out, text, { protect });
    const what = doc.format === "assay.compare/2" ? "experiments compared" : "rankings";
    io.stderr(
      `assay: wrote ${forTerminal(values.out)} (${doc.experiments.length} ${what}, ${doc.regressions.length} regressions)\n`,
    );
  } else for (const piece of gathered(format === "table" ? painted(text, colourFor(io)) : text)) io.stdout(piece);
  // Nothing matched: no comparison was made, which is never "no regression" (with or without a gate).
  if (doc.experiments.length === 0) {
    io.stderr(`assay compare: nothing compared: ${noMatch(doc, sides.length, by)}\n`);
    return EXIT.USAGE;
  }
  if (values["fail-on"] !== "regression") return EXIT.OK;
  // A comparison that compared nothing on a metric is no pass: the gate fails, and says on what.
  const nothing = doc.format === "assay.compare-runs/1" ? uncompared(doc) : uncomparedPairs(doc);
  for (const line of nothing) io.stderr(`assay: --fail-on regression: ${forTerminal(line)}\n`);
  return doc.regressions.length > 0 || nothing.length > 0 ? EXIT.FAILED : EXIT.OK;
}
