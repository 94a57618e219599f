import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { describeIssues } from "../../core/schema.js";
import { resultsSchema, type BundleEntry, type Results } from "../../core/results.js";
import { assemble, loadSchedule } from "../../pipeline/score.js";
import { parseShard } from "../../pipeline/shard.js";
import { FORMATS, isFormat } from "../../report/index.js";
import { parseStrictJson } from "../../core/json/strict.js";
import { checkOutput, type Protected } from "../../io/output.js";
import { usage } from "../args.js";
import { exitForResults, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { writeResults } from "./score.js";
import { readKeyFile } from "./seal.js";

export const MERGE_HELP = `assay merge RESULTS... [--schedule FILE]... [--format table|json] [--out FILE] [--fail-on invalid]
            [--hmac-key-file FILE]
  Merge the documents of assay score --shard i/n (every shard of one n, each once, same options)
  and compute the batch rules over all their bundles: the same document a single run would give.
  With --hmac-key-file, every shard must have checked seals with that key.
`;

/** With a key file given, every shard must have been scored with that very key (by fingerprint). */
function checkKey(files: string[], docs: Results[], fingerprint: string): void {
  docs.forEach((d, i) => {
    const theirs = d.run.options.hmac_key;
    if (theirs === null) throw new UsageError(`${files[i]} was scored without this key: its seals were not checked (score it with --hmac-key-file)`);
    if (theirs !== fingerprint) throw new UsageError(`${files[i]} was scored with another key (fingerprint ${theirs}, not ${fingerprint})`);
  });
}

/**
 * A shard document is assay's own output, not evidence: plain JSON.parse (no 64 MiB document cap,
 * no boxing of decimals), then the results schema decides.
 */
function readShard(file: string): Results {
  const text = readFileSync(file, "utf8"); // a missing file is its own clear error
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // One line, naming where: JSON.parse's own message quotes the file's text, line breaks and all.
    const r = parseStrictJson(text, " \n");
    throw new UsageError(`${file} is not an assay results document: not JSON (${r.ok ? "unreadable" : r.issue.message})`);
  }
  const r = resultsSchema.safeParse(value);
  if (!r.success) throw new UsageError(`${file} is not an assay results document: ${describeIssues(r.error.issues)}`);
  return r.data;
}

/** Refuse what would make the merge differ from a single run. */
function checkShards(files: string[], docs: Results[]): void {
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
    // Every option that changes results (schedules aside: merge takes its own).
    const { schedules: _a, ...mine } = d.run.options;
    const { schedules: _b, ...theirs } = first.options;
    if (JSON.stringify(mine) !== JSON.stringify(theirs))
      throw new UsageError(`${f} was scored with other options (${JSON.stringify(mine)}) than ${files[0]} (${JSON.stringify(theirs)})`);
  });
  const missing = [...Array(count!).keys()].filter((i) => !seen.has(i));
  if (missing.length > 0) throw new UsageError(`shards missing: ${missing.map((i) => `${i}/${count}`).join(", ")}`);
}

export function mergeCommand(argv: string[], io: CliIo): number {
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
  const format = values.format ?? "table";
  if (!isFormat(format)) throw new UsageError(`--format must be one of ${Object.keys(FORMATS).join(", ")}`);
  if (values["fail-on"] !== undefined && values["fail-on"] !== "invalid") throw new UsageError("--fail-on takes: invalid");
  const protect: Protected = { files: [...positionals, ...(values.schedule ?? []), values["hmac-key-file"]] };
  if (values.out !== undefined) checkOutput(values.out, protect);
  const key = values["hmac-key-file"] === undefined ? undefined : readKeyFile(values["hmac-key-file"]);
  const docs = positionals.map(readShard);
  if (key !== undefined) checkKey(positionals, docs, key.fingerprint); // before checkShards: it names the shard
  checkShards(positionals, docs);
  const bundles: BundleEntry[] = [];
  const paths = new Set<string>();
  for (const d of docs)
    for (const b of d.bundles) {
      if (paths.has(b.path)) throw new UsageError(`bundle ${b.path} appears in two shards`);
      paths.add(b.path);
      bundles.push(b);
    }
  const o = docs[0]!.run.options;
  const results = assemble(
    bundles,
    { invalid: o.invalid, resourceBound: o.resource_bound, errors: o.errors, schedules: (values.schedule ?? []).map(loadSchedule), keyFingerprint: o.hmac_key },
    new Date().toISOString(),
    { complete: true, roots: docs[0]!.run.roots },
  );
  writeResults(results, format, values.out, io, { protect });
  return exitForResults(results, values["fail-on"] === "invalid");
}
