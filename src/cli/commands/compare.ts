// `assay compare BASE HEAD` and `assay compare R1 R2 R3 …`: results documents (JSON or JSON Lines)
// read as streams, one after another, entry by entry, keeping per pairing unit only its value
// (core/compare/trials.ts): per unit a number per run, never an entry. The statistics are pure
// (core/compare); the formats derive from the canonical JSON (report/compare).

import { EntrySpend, headlineProblem, InspectFigures } from "../../core/compare/checked.js";
import { compareRuns, uncomparedPairs, differingOptions, type Side } from "../../core/compare/compare.js";
import { keyOf, namesOf } from "../../core/compare/names.js";
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
import { parseOptions } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { readKeyFile, type HmacKey } from "./seal.js";

/** Why nothing matched, and what to do: the names each side holds (a few), and --pair. */
function noMatch(doc: Comparison | RankingDocument): string {
  const few = (xs: readonly string[]) => (xs.length === 0 ? "none" : `${xs.slice(0, 5).map(forTerminal).join(", ")}${xs.length > 5 ? ` and ${xs.length - 5} more` : ""}`);
  if (doc.format === "assay.compare-runs/1")
    return `no experiment is held by two of the documents (experiments match by kind and id${doc.single.length > 0 ? `; held by one only: ${few(doc.single)}` : ""}); compare two documents with --pair BASE_NAME=HEAD_NAME to pair experiments of different names`;
  // An example only where both names print as themselves and need no more than single quotes.
  const quotable = (x: string | undefined) => x !== undefined && !x.includes("'") && forTerminal(x) === x;
  const example = quotable(doc.only_base[0]) && quotable(doc.only_head[0]) ? ` (e.g. --pair '${doc.only_base[0]}=${doc.only_head[0]}')` : "";
  return `no experiment is on both sides (experiments match by kind and id; only in BASE: ${few(doc.only_base)}; only in HEAD: ${few(doc.only_head)}); pair two of different names with --pair BASE_NAME=HEAD_NAME${example}`;
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
  const read = readShard(file, (e) => (trials.add(e), spend.add(e), inspect.add(e)), (x) => experiments.push(x), { key: key?.bytes });
  if (key !== undefined) {
    checkKeyOf(file, read.run, key.fingerprint);
    checkMacOf(file, read);
  }
  const { run } = read;
  if (run.shard !== null) throw new UsageError(`${forTerminal(file)} is shard ${run.shard} of a run: merge the shards first (assay merge), then compare`);
  const keys = new Set<string>();
  for (const x of experiments) {
    const k = keyOf(x);
    if (k !== null && keys.has(k)) throw new UsageError(`${forTerminal(file)} lists experiment ${forTerminal(x.experiment!)} (${x.profile ?? "no profile"}) twice: not a document assay wrote`);
    if (k !== null) keys.add(k);
  }
  const units = new Map(experiments.map((x) => [x, trials.take(x, run.options)] as const));
  for (const x of experiments) {
    const problem = headlineProblem(x, units.get(x)!) ?? inspect.problem(x, run.options) ?? spend.problem(x);
    if (problem !== null) throw new UsageError(`${forTerminal(file)}: experiment ${forTerminal(x.experiment ?? "(no id)")} (${x.profile ?? "no profile"}): ${problem} (edited after assay wrote it?)`);
  }
  return { file, run, experiments, units };
}

/** The experiment a --pair side names: by the name compare shows it under, or by its id when only one has it. */
function named(s: Side, names: ReadonlyMap<Experiment, string>, name: string, v: string): Experiment {
  const found = s.experiments.filter((x) => names.get(x) === name || (x.experiment === name && names.has(x)));
  if (found.length === 0) throw new UsageError(`--pair ${forTerminal(v)}: ${forTerminal(s.file)} has no experiment ${forTerminal(name)}`);
  if (found.length > 1) throw new UsageError(`--pair ${forTerminal(v)}: ${forTerminal(s.file)} has ${found.length} experiments ${forTerminal(name)}: name one as ${found.map((x) => forTerminal(names.get(x)!)).join(" or ")}`);
  return found[0]!;
}

/** `--pair A=B`: BASE's experiment A is compared with HEAD's B. */
function parsePairs(values: readonly string[], base: Side, head: Side): [Experiment, Experiment][] {
  const [bn, hn] = [namesOf(base.experiments), namesOf(head.experiments)];
  const seen = { base: new Set<Experiment>(), head: new Set<Experiment>() };
  return values.map((v) => {
    const eq = v.indexOf("=");
    if (eq <= 0 || eq === v.length - 1) throw new UsageError(`--pair takes BASE_EXPERIMENT=HEAD_EXPERIMENT (got ${JSON.stringify(v)})`);
    const [a, b] = [named(base, bn, v.slice(0, eq), v), named(head, hn, v.slice(eq + 1), v)];
    if (seen.base.has(a) || seen.head.has(b)) throw new UsageError(`--pair ${forTerminal(v)}: an experiment is paired twice`);
    seen.base.add(a);
    seen.head.add(b);
    return [a, b];
  });
}

/** Refuse what would make the difference one of options or scoring rules rather than of the runs (every document against the first). */
function checkComparable(base: Side, head: Side): void {
  const [b, h] = [base.run, head.run];
  if (b.scoring_version !== h.scoring_version)
    throw new UsageError(`${forTerminal(base.file)} was scored under scoring version ${b.scoring_version} (assay ${forTerminal(b.tool_version)}), ${forTerminal(head.file)} under ${h.scoring_version} (assay ${forTerminal(h.tool_version)}): score both with one assay`);
  const differ = differingOptions(b.options, h.options);
  if (differ.length > 0) throw new UsageError(`${forTerminal(base.file)} and ${forTerminal(head.file)} were scored with different options (${differ.join("; ")}): score both alike`);
}

export function compareCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { format: { type: "string" }, out: { type: "string" }, pair: { type: "string", multiple: true }, "fail-on": { type: "string" }, "hmac-key-file": { type: "string" } },
  });
  if (positionals.length < 2) throw new UsageError("assay compare needs two results documents (BASE.json HEAD.json), or three or more to rank");
  if (positionals.length > 2 && values.pair !== undefined) throw new UsageError("--pair takes two documents (BASE and HEAD); runs of three or more are matched by kind and id");
  if (values["fail-on"] !== undefined && values["fail-on"] !== "regression") throw new UsageError("--fail-on takes: regression");
  const format = formatForFile(values.out, { format: values.format, formats: Object.keys(COMPARE_FORMATS) as CompareFormat[], fallback: "table" });
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
  const doc: Comparison | RankingDocument = sides.length === 2 ? compareRuns(sides[0]!, sides[1]!, parsePairs(values.pair ?? [], sides[0]!, sides[1]!)) : rankRuns(sides);
  const text = COMPARE_FORMATS[format].render(doc);
  if (values.out !== undefined) {
    writeOutput(values.out, text, { protect });
    const what = doc.format === "assay.compare/2" ? "experiments compared" : "rankings";
    io.stderr(`assay: wrote ${forTerminal(values.out)} (${doc.experiments.length} ${what}, ${doc.regressions.length} regressions)\n`);
  } else for (const piece of gathered(format === "table" ? painted(text, colourFor(io)) : text)) io.stdout(piece);
  // Nothing matched: no comparison was made, which is never "no regression" (with or without a gate).
  if (doc.experiments.length === 0) {
    io.stderr(`assay compare: nothing compared: ${noMatch(doc)}\n`);
    return EXIT.USAGE;
  }
  if (values["fail-on"] !== "regression") return EXIT.OK;
  // A comparison that compared nothing on a metric is no pass: the gate fails, and says on what.
  const nothing = doc.format === "assay.compare-runs/1" ? uncompared(doc) : uncomparedPairs(doc);
  for (const line of nothing) io.stderr(`assay: --fail-on regression: ${forTerminal(line)}\n`);
  return doc.regressions.length > 0 || nothing.length > 0 ? EXIT.FAILED : EXIT.OK;
}
