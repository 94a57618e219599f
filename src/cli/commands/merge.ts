import { existsSync } from "node:fs";
import { forTerminal } from "../../core/text.js";
import { checkOutput, type Protected } from "../../io/output.js";
import { BundleSet, checkKeyOf, checkMacOf, readShard, type ShardRun } from "../../io/shard-reader.js";
import { assembleView, loadSchedule } from "../../pipeline/score.js";
import { parseShard } from "../../pipeline/shard.js";
import { EntrySpill } from "../../pipeline/spill.js";
import { FORMAT_NAMES, formatForFile } from "../../report/index.js";
import { parseOptions } from "../args.js";
import { exitForResults, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { checkedNothing } from "../dataset.js";
import { withDatasetCheck, writeResults } from "./score.js";
import { widthFor } from "../width.js";
import { readKeyFile } from "./seal.js";

/**
 * Refuse, shard by shard as each is read, what would make the merge differ from a single run; the
 * shards missing are known only once every one is read (checkComplete).
 */
class ShardChecks {
  private first: { file: string; run: ShardRun["run"] } | null = null;
  private readonly seen = new Set<number>();
  private count: number | null = null;

  run(f: string, run: ShardRun["run"]): void {
    if (run.shard === null) throw new UsageError(`${f} is not a shard (score it with --shard i/n)`);
    if (!run.complete) throw new UsageError(`${f} is an incomplete shard (its run was stopped): score it again`);
    const s = parseShard(run.shard);
    if (this.count !== null && s.count !== this.count)
      throw new UsageError(`${f} is shard ${run.shard}; the others are of ${this.count}`);
    this.count = s.count;
    if (this.seen.has(s.index)) throw new UsageError(`${f}: shard ${run.shard} is given twice`);
    this.seen.add(s.index);
    this.first ??= { file: f, run };
    const first = this.first.run;
    if (run.scoring_version !== first.scoring_version || run.tool_version !== first.tool_version)
      throw new UsageError(
        `${f} was scored by assay ${run.tool_version} under scoring version ${run.scoring_version}, not ${first.tool_version} under ${first.scoring_version}`,
      );
    // Shards partition by results path, which starts with the roots as typed: `c` and `./c` differ.
    if (JSON.stringify(run.roots) !== JSON.stringify(first.roots))
      throw new UsageError(
        `${f} was scored over roots ${JSON.stringify(run.roots)}, not ${JSON.stringify(first.roots)}: shards must be given the same roots, spelled the same way`,
      );
    // Every shard walked the same folders: the containers it found (their plans and claims) and
    // what it did not recognise are the whole run's, so they must agree.
    const found = (r: ShardRun["run"]) => JSON.stringify([r.jobs, r.containers ?? {}, r.unrecognised]);
    if (found(run) !== found(first))
      throw new UsageError(
        `${f} found other Harbor jobs (or other containers: their own files differ), or unrecognised folders, than ${this.first.file}: were the folders changed between shards?`,
      );
    // Every option that changes results (schedules aside: merge takes its own).
    const { schedules: _a, ...mine } = run.options;
    const { schedules: _b, ...theirs } = first.options;
    if (JSON.stringify(mine) !== JSON.stringify(theirs))
      throw new UsageError(
        `${f} was scored with other options (${JSON.stringify(mine)}) than ${this.first.file} (${JSON.stringify(theirs)})`,
      );
    this.scan(f, run.scan, first.scan);
  }

  /**
   * issue 35: shards of one scan only. Genuine shards of another corpus, or an older shard of this
   * one replayed (its MAC still valid), would merge into a figure of neither: each carries its
   * scan, under its MAC when keyed.
   */
  private scan(f: string, mine: ShardRun["run"]["scan"], theirs: ShardRun["run"]["scan"]): void {
    const other = this.first!.file;
    if ((mine === undefined) !== (theirs === undefined))
      throw new UsageError(
        `${mine === undefined ? f : other} carries no scan (run.scan: written by an older assay), ${mine === undefined ? other : f} does: score every shard with one assay`,
      );
    if (mine === undefined || theirs === undefined) return;
    if (mine.found !== theirs.found)
      throw new UsageError(
        `${f} found other bundles below the roots than ${other} (run.scan.found differs; scan ${forTerminal(mine.id)}, not ${forTerminal(theirs.id)}): a shard of another corpus, or the folders changed between shards; merge the shards of one scan`,
      );
    if (mine.id !== theirs.id)
      throw new UsageError(
        `${f} is of scan ${forTerminal(mine.id)}, ${other} of scan ${forTerminal(theirs.id)} (run.scan.id): shards of two scans (an older shard replayed?) do not merge; merge the shards of one scan`,
      );
  }

  checkComplete(): void {
    const missing = [...Array(this.count!).keys()].filter((i) => !this.seen.has(i));
    if (missing.length > 0)
      throw new UsageError(
        `shards missing: ${missing.map((i) => `${i}/${this.count}`).join(", ")} (score each with --shard i/${this.count}, then merge every shard)`,
      );
  }
}

export async function mergeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      schedule: { type: "string", multiple: true },
      format: { type: "string" },
      out: { type: "string" },
      "fail-on": { type: "string" },
      "hmac-key-file": { type: "string" },
      details: { type: "boolean" },
      width: { type: "string" },
    },
  });
  if (positionals.length === 0) throw new UsageError("assay merge needs the shards' RESULTS files");
  const format = formatForFile(values.out, { format: values.format, formats: FORMAT_NAMES, fallback: "table" });
  const width = widthFor(io, values.width, values.out);
  if (values["fail-on"] !== undefined && values["fail-on"] !== "invalid")
    throw new UsageError("--fail-on takes: invalid");
  const protect: Protected = { files: [...positionals, ...(values.schedule ?? []), values["hmac-key-file"]] };
  if (values.out !== undefined) checkOutput(values.out, protect);
  // Every absent file named at once: on a cluster, each is a shard job that wrote no document.
  const absent = positionals.filter((f) => !existsSync(f));
  if (absent.length > 0)
    throw new UsageError(
      `no such shard document: ${absent.map(forTerminal).join(", ")} (its shard did not finish: score it again, then merge)`,
    );
  const key = values["hmac-key-file"] === undefined ? undefined : readKeyFile(values["hmac-key-file"], [], io.stderr);
  const schedules = (values.schedule ?? []).map(loadSchedule);
  // Entries go straight to a spill file as each document is read, each checked by the reader
  // (credit, counts, path, partition). Once a shard is read: with a key, that this key scored it
  // (said first: it names the key that did) and its MAC; then its run; then a bundle it shares with
  // a shard read before it (after the runs: the same shard given twice is better named so).
  // Each shard lists its entries in path order: kept as sorted runs, merged as they are written.
  const spill = new EntrySpill(undefined, undefined, { sorted: true });
  const seen = new BundleSet();
  try {
    const checks = new ShardChecks();
    const runs = positionals.map((f) => {
      const r = readShard(f, (e) => spill.add(e), undefined, { key: key?.bytes, seen, partition: true });
      if (key !== undefined) {
        checkKeyOf(f, r.run, key.fingerprint);
        checkMacOf(f, r);
      }
      checks.run(f, r.run);
      if (r.twice !== null)
        throw new UsageError(
          `bundle ${forTerminal(r.twice.path)} appears in two shards (${forTerminal(r.twice.earlier)} and ${forTerminal(f)}), under one spelling or two`,
        );
      return r;
    });
    checks.checkComplete();
    seen.close(); // read: its table is let go before the batch rules need their memory
    const o = runs[0]!.run.options;
    const results = assembleView(
      spill,
      {
        invalid: o.invalid,
        resourceBound: o.resource_bound,
        errors: o.errors,
        schedules,
        keyFingerprint: o.hmac_key,
        dataset: o.dataset,
      },
      new Date().toISOString(),
      {
        complete: true,
        roots: runs[0]!.run.roots,
        scan: runs[0]!.run.scan,
        jobs: runs[0]!.run.jobs,
        containers: runs[0]!.run.containers,
        unrecognised: runs[0]!.run.unrecognised,
      },
    );
    // With the key, the merged document carries its own MAC (each shard's was checked above).
    await writeResults(results, format, values.out, io, {
      protect,
      macKey: key?.bytes,
      details: values.details ?? false,
      width,
    });
    const exit = exitForResults(results, values["fail-on"] === "invalid");
    return withDatasetCheck(exit, o.dataset ? checkedNothing(o.dataset.file, results.tally) : null, io);
  } finally {
    spill.close();
    seen.close();
  }
}
