// `assay slurm-script`: writes the bash script that submits a sharded scoring to Slurm — a job
// array of `assay score --shard i/n`, each shard with its own store, and a merge that waits for
// every task (afterok) — so a user hand-writes neither. .ci/slurm runs its output on a real cluster.

import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { forTerminal } from "../../core/text.js";
import { TOOL_VERSION } from "../../version.js";
import { checkOutput, writeOutput } from "../../io/output.js";
import { oneOf, parseOptions, positiveInt } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

export interface SlurmPlan {
  roots: string[];
  shards: number;
  /** Where the shards, their stores and logs, and the merged document go: a filesystem every node shares. */
  dir: string;
  /** The absolute folder the roots (and dir) are spelled from: the jobs run there. */
  cwd: string;
  /** How a job runs assay, as shell words ("assay", "node /opt/assay/dist/cli.js"). */
  assay: string;
  /** score's options that change results, as arguments (the same for every shard). */
  score: string[];
  /** merge's options (schedules, key file), as arguments. */
  merge: string[];
  /** Extra sbatch options for both jobs (partition, account, time). */
  sbatch: string[];
  /** CPUs per shard task: --cpus-per-task, and score's --jobs. */
  cpus: number;
}

/** A word for bash: bare when it is plainly safe, else single-quoted. */
export function sh(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The submit script for a plan (pure: the same plan gives the same text). */
export function slurmScript(p: SlurmPlan): string {
  const n = p.shards;
  const roots = p.roots.map(sh).join(" ");
  const extra = p.sbatch.map((o) => ` ${sh(o)}`).join("");
  const shardFiles = Array.from({ length: n }, (_, i) => `"$d/shard-${i}.json"`).join(" ");
  const score = [...p.score, "--jobs", String(p.cpus)].map(sh).join(" ");
  const merge = p.merge.map(sh).join(" ");
  return `#!/bin/bash
# Written by assay slurm-script (assay ${TOOL_VERSION}). Run it where sbatch works: bash THIS-FILE
# It submits two jobs, and prints their ids:
#   assay-score  a job array of ${n} tasks: task i scores shard i/${n} of the roots into
#                DIR/shard-i.json, keeping its own store DIR/store-i.sqlite and log DIR/shard-i.log;
#   assay-merge  once every task has succeeded (afterok): merges them into DIR/results.json.
# A task that exits 3 (a bundle the tool could not finish) has still written its shard: it counts
# as done, and the merged document lists those bundles as unscored.
# A task that fails, or whose node dies: requeue it (scontrol requeue JOBID_i). It resumes from its
# store, and the merge still waits for it. Do not scancel it and submit it again: the merge waits
# on this array, and a cancelled task makes it wait forever (DependencyNeverSatisfied), even once
# the new one succeeds; then scancel the merge and run its command below by hand.
# A requeued task starts again only after the cluster's credential lifetime (AuthInfo
# cred_expire, 120 s by default). Two tasks never share a store: assay refuses a store another
# run is writing (one that died is taken over once its pid is gone, or after 60 s of silence).
# Each submission is a scan of its own: its shards carry its id, and the merge refuses a shard of
# another scan (an older shard left in DIR, or one of another corpus).
set -euo pipefail
cd ${sh(p.cwd)}   # the roots are spelled from here: every shard must name them the same way
d=${sh(p.dir)}
mkdir -p -- "$d"
scan=$(date -u +%Y%m%dT%H%M%SZ)-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \\n')
array=$(sbatch --parsable --job-name=assay-score --array=0-${n - 1} --requeue --open-mode=append --cpus-per-task=${p.cpus} --output="$d/shard-%a.log" --export=ALL,ASSAY_SCAN_ID="$scan"${extra} <<'JOB'
#!/bin/bash
d=${sh(p.dir)}
i=$SLURM_ARRAY_TASK_ID
${p.assay} score --shard "$i/${n}" --scan-id="$ASSAY_SCAN_ID" --store="$d/store-$i.sqlite" ${score} --format json --out="$d/shard-$i.json" -- ${roots} || [ $? -eq 3 ]
JOB
)
array=\${array%%;*}   # --parsable prints JOBID or JOBID;CLUSTER
merge=$(sbatch --parsable --job-name=assay-merge --dependency=afterok:$array --output="$d/merge.log"${extra} <<'JOB'
#!/bin/bash
d=${sh(p.dir)}
${p.assay} merge${merge ? ` ${merge}` : ""} --format json --out="$d/results.json" -- ${shardFiles} || [ $? -eq 3 ]
JOB
)
echo "assay-slurm: shards job $array (array 0-${n - 1}), merge job \${merge%%;*}; results in $d/results.json"
`;
}

const OPTIONS = {
  shards: { type: "string" },
  dir: { type: "string" },
  out: { type: "string" },
  assay: { type: "string" },
  cpus: { type: "string" },
  sbatch: { type: "string", multiple: true },
  schedule: { type: "string", multiple: true },
  invalid: { type: "string" },
  "resource-bound": { type: "string" },
  errors: { type: "string" },
  "bundle-timeout": { type: "string" },
  "verify-digests": { type: "boolean" },
  "hmac-key-file": { type: "string" },
  dataset: { type: "string" },
} as const;

// A newline would end a line of the script (or its here-document) early; % is a pattern in
// Slurm's --output names.
function plain(what: string, value: string, more = ""): string {
  if (/[\u0000-\u001f\u007f]/.test(value))
    throw new UsageError(`${what} ${forTerminal(value)} holds a control character: a job script cannot carry it`);
  if (more && [...more].some((c) => value.includes(c)))
    throw new UsageError(`${what} ${forTerminal(value)} holds ${more}: Slurm reads it in a log file name`);
  return value;
}

export function slurmScriptCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({ args: argv, allowPositionals: true, options: OPTIONS });
  if (positionals.length === 0) throw new UsageError("assay slurm-script needs at least one ROOT");
  if (values.dir === undefined)
    throw new UsageError(
      "--dir is required: the shared folder for the shards, their stores and logs, and results.json",
    );
  const shards = positiveInt("shards", values.shards);
  const cpus = positiveInt("cpus", values.cpus, 1);
  for (const r of positionals) {
    if (!existsSync(plain("root", r))) throw new UsageError(`root ${forTerminal(r)} does not exist here`);
    // Shards written under a root would be found by the shards still walking it: each would see other folders.
    const rel = relative(resolve(r), resolve(values.dir));
    if (!rel.startsWith("..") && !isAbsolute(rel))
      throw new UsageError(
        `--dir ${forTerminal(values.dir)} is inside root ${forTerminal(r)}: the shards would find each other's files; give a folder outside the roots`,
      );
  }
  const score: string[] = [];
  // --name=value: a value that begins with "-" (a key file's name) is never read as an option.
  const pass = (name: string, v: string | undefined) => void (v !== undefined && score.push(`--${name}=${v}`));
  pass(
    "invalid",
    values.invalid === undefined ? undefined : oneOf("invalid", values.invalid, ["count", "exclude"], "count"),
  );
  pass(
    "resource-bound",
    values["resource-bound"] === undefined
      ? undefined
      : oneOf("resource-bound", values["resource-bound"], ["default", "exclude", "loss"], "default"),
  );
  pass(
    "errors",
    values.errors === undefined ? undefined : oneOf("errors", values.errors, ["exclude", "zero"], "exclude"),
  );
  const timeout = values["bundle-timeout"];
  if (timeout !== undefined && !(Number(timeout) > 0 && Number(timeout) <= 86_400))
    throw new UsageError("--bundle-timeout takes a number of seconds above 0 and at most 86400 (a day)");
  pass("bundle-timeout", timeout);
  if (values["verify-digests"]) score.push("--verify-digests");
  const key = values["hmac-key-file"];
  pass("hmac-key-file", key === undefined ? undefined : plain("--hmac-key-file", key));
  pass("dataset", values.dataset === undefined ? undefined : plain("--dataset", values.dataset));
  const merge = [
    ...(values.schedule ?? []).map((s) => `--schedule=${plain("--schedule", s)}`),
    ...(key === undefined ? [] : [`--hmac-key-file=${key}`]),
  ];
  for (const o of values.sbatch ?? [])
    if (!plain("--sbatch", o).startsWith("-"))
      throw new UsageError(`--sbatch takes one sbatch option, as --sbatch=--partition=NAME (got ${forTerminal(o)})`);
  const text = slurmScript({
    roots: positionals,
    shards,
    dir: plain("--dir", values.dir, "%"),
    cwd: plain("the working folder", process.cwd()),
    assay: plain("--assay", values.assay ?? "assay"),
    score,
    merge,
    sbatch: values.sbatch ?? [],
    cpus,
  });
  if (values.out === undefined || values.out === "-") io.stdout(text);
  else {
    const protect = { roots: positionals, files: [key, values.dataset, ...(values.schedule ?? [])] };
    checkOutput(values.out, protect);
    writeOutput(values.out, text, { protect });
    io.stderr(`assay: wrote ${forTerminal(values.out)}: submit it with bash ${forTerminal(values.out)}\n`);
  }
  return EXIT.OK;
}
