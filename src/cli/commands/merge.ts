import { parseArgs } from "node:util";
import { forTerminal } from "../../core/text.js";
import { checkOutput, type Protected } from "../../io/output.js";
import { readShard, type ShardRun } from "../../io/shard-reader.js";
import { assembleView, loadSchedule } from "../../pipeline/score.js";
import { parseShard } from "../../pipeline/shard.js";
import { EntrySpill } from "../../pipeline/spill.js";
import { FORMAT_NAMES, formatForFile } from "../../report/index.js";
import { usage } from "../args.js";
import { exitForResults, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { writeResults } from "./score.js";
import { readKeyFile } from "./seal.js";


/** With a key file given, every shard must have been scored with that very key (by fingerprint). */
function checkKey(files: string[], runs: readonly ShardRun[], fingerprint: string): void {
  runs.forEach((d, i) => {
    const theirs = d.run.options.hmac_key;
    if (theirs === null) throw new UsageError(`${files[i]} was scored without this key: its seals were not checked (score it with --hmac-key-file)`);
    if (theirs !== fingerprint) throw new UsageError(`${files[i]} was scored with another key (fingerprint ${theirs}, not ${fingerprint})`);
  });
}

/** Refuse what would make the merge differ from a single run. */
function checkShards(files: string[], docs: readonly ShardRun[]): void {
  const first = docs[0]!.run;
  const seen = new Set<number>();
  let count: number | null = null;
  docs.forEach((d, i) => {
    const f = files[i]!;
    if (d.run.shard === null) throw new UsageError(`${f} is not a shard (score it with --shard i/n)`);
    if (!d.run.complete) throw new UsageError(`${f} is an incomplete shard (its run was stopped): score it again`);
    const s = parseShard(d.run.shard);
    if (count !== null && s.count !== count) throw new UsageError(`${f} is shard ${d.run.shard}; the others are of ${count}`);
    count = s.count;
    if (seen.has(s.index)) throw new UsageError(`${f}: shard ${d.run.shard} is given twice`);
    seen.add(s.index);
    if (d.run.scoring_version !== first.scoring_version || d.run.tool_version !== first.tool_version)
      throw new UsageError(`${f} was scored by assay ${d.run.tool_version} under scoring version ${d.run.scoring_version}, not ${first.tool_version} under ${first.scoring_version}`);
    // Shards partition by results path, which starts with the roots as typed: `c` and `./c` differ.
    if (JSON.stringify(d.run.roots) !== JSON.stringify(first.roots))
      throw new UsageError(`${f} was scored over roots ${JSON.stringify(d.run.roots)}, not ${JSON.stringify(first.roots)}: shards must be given the same roots, spelled the same way`);
    // Every shard walked the same folders: the Harbor jobs it found (their plans and claims) and
    // what it did not recognise are the whole run's, so they must agree.
    if (JSON.stringify(d.run.jobs) !== JSON.stringify(first.jobs) || JSON.stringify(d.run.unrecognised) !== JSON.stringify(first.unrecognised))
      throw new UsageError(`${f} found other Harbor jobs (or unrecognised folders) than ${files[0]}: were the folders changed between shards?`);
    // Every option that changes results (schedules aside: merge takes its own).
    const { schedules: _a, ...mine } = d.run.options;
    const { schedules: _b, ...theirs } = first.options;
    if (JSON.stringify(mine) !== JSON.stringify(theirs))
      throw new UsageError(`${f} was scored with other options (${JSON.stringify(mine)}) than ${files[0]} (${JSON.stringify(theirs)})`);
  });
  const missing = [...Array(count!).keys()].filter((i) => !seen.has(i));
  if (missing.length > 0) throw new UsageError(`shards missing: ${missing.map((i) => `${i}/${count}`).join(", ")}`);
}

export async function mergeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        schedule: { type: "string", multiple: true },
        format: { type: "string" },
        out: { type: "string" },
        "fail-on": { type: "string" },
        "hmac-key-file": { type: "string" },
      },
    }),
  );
  if (positionals.length === 0) throw new UsageError("assay merge needs the shards' RESULTS files");
  const format = formatForFile(values.out, { format: values.format, formats: FORMAT_NAMES, fallback: "table" });
  if (values["fail-on"] !== undefined && values["fail-on"] !== "invalid") throw new UsageError("--fail-on takes: invalid");
  const protect: Protected = { files: [...positionals, ...(values.schedule ?? []), values["hmac-key-file"]] };
  if (values.out !== undefined) checkOutput(values.out, protect);
  const key = values["hmac-key-file"] === undefined ? undefined : readKeyFile(values["hmac-key-file"], [], io.stderr);
  const schedules = (values.schedule ?? []).map(loadSchedule);
  // Entries go straight to a spill file as each document is read; the runs are checked after.
  const spill = new EntrySpill();
  try {
    const runs = positionals.map((f) => readShard(f, (e) => spill.add(e)));
    if (key !== undefined) checkKey(positionals, runs, key.fingerprint); // before checkShards: it names the shard
    checkShards(positionals, runs);
    const twice = spill.duplicatePath();
    if (twice !== null) throw new UsageError(`bundle ${forTerminal(twice)} appears in two shards`);
    const o = runs[0]!.run.options;
    const results = assembleView(
      spill,
      { invalid: o.invalid, resourceBound: o.resource_bound, errors: o.errors, schedules, keyFingerprint: o.hmac_key },
      new Date().toISOString(),
      { complete: true, roots: runs[0]!.run.roots, jobs: runs[0]!.run.jobs, unrecognised: runs[0]!.run.unrecognised },
    );
    await writeResults(results, format, values.out, io, { protect });
    return exitForResults(results, values["fail-on"] === "invalid");
  } finally {
    spill.close();
  }
}
