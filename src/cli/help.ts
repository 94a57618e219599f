// Every command's help text, apart from the commands: `assay --help` and `assay CMD --help` load
// none of a command's code (nor the model SDK, SQLite or the worker pool it may need).

import { DEFAULT_MODEL } from "../analysis/models.js";
import { MANIFEST } from "../io/corpus.js";
import { DECLARED } from "../kinds/declared.js";
import { listedSynths } from "../kinds/list.js";
import { HARBOR_CASES } from "../synth/harbor.js";
import { INSPECT_CASES } from "../synth/inspect.js";

/** The filter options (cli/filters.ts), said once for every command that takes them; each command says first what they select. */
export const FILTER_HELP = `  Filters (each but --since repeatable: any of its values; together: all of them; selecting
  nothing exits 2):
  --experiment GLOB        the experiment's id matches GLOB (* any text, / too; ? one character;
                           [abc] [a-z] [!abc] one of, or not of, a set; nothing else is special)
  --agent GLOB             an agent the evidence records matches (none recorded: no match)
  --model GLOB             a model the evidence records matches (none recorded: no match)
  --kind KIND              ${DECLARED.map((d) => d.name).join(", ")} (the kinds assay reads)
  --since DATE             started at or after DATE: 2025-06-01 (midnight UTC) or a date and time
                           with its zone (2025-06-01T09:30Z); a start not recorded, or a local time
                           (no zone) from 12 hours before DATE to 14 after, could be on either
                           side: left out, and counted on stderr
`;

export const SCORE_HELP = `assay score ROOT... [options]
  Score every bundle, Harbor or Terminal-Bench trial, SWE-bench instance and Inspect log under the
  roots (Harbor job and trial folders, Terminal-Bench run folders, SWE-bench run_evaluation folders
  and Inspect .eval and .json logs are read in place, never modified; a root may be a log) in a
  pool of worker threads; per experiment, job, run or Inspect task run, honest metrics.
  --schedule FILE          an assay.schedule/1 file (repeatable, one per experiment)
  -f, --format table|json|jsonl|html|junit|md
                           output format (default table; jsonl: the run, each bundle, each
                           experiment on a line of its own, for DuckDB, Polars, jq; html: one
                           self-contained page with charts and a filterable trial table; junit:
                           JUnit XML for CI test reports, a testsuite per experiment, a testcase
                           per bundle; md: a Markdown summary for $GITHUB_STEP_SUMMARY or a PR)
  -o, --out FILE           write the output to FILE (atomically) instead of stdout (- is stdout);
                           its extension picks the format (.json, .jsonl, .html/.htm, .xml junit,
                           .md/.markdown; .txt or none: the default); a --format it contradicts,
                           or another extension without --format, is refused
  --invalid count|exclude  invalid trials count as non-victories (default) or are left out
  --resource-bound exclude|loss
                           resource-bound runs without a game ending: native default exclude,
                           world default loss (scored on their dimensions, budget among them)
  --errors exclude|zero    Harbor: trials without a reward (infrastructure errors, cancelled,
                           incomplete, unverified) are left out of reward metrics (default) or
                           counted as reward 0, as Harbor's own job stats count them. Inspect:
                           samples without a score (error, cancelled, missing, unscored,
                           invalidated) are left out (default, as Inspect's own figure) or count 0
                           over the planned samples. Terminal-Bench: trials without a verdict
                           (test timeout, parse error, harness error) are left out (default) or
                           count unresolved, as Terminal-Bench's own accuracy counts them
  --fail-on invalid        exit 1 when any bundle or trial is invalid
  -j, --jobs N             worker threads at most, started as work arrives (default: available
                           parallelism; never more than 4 per CPU)
  --store FILE             resumable results store (SQLite): a rerun skips finished bundles,
                           trials and Inspect logs (unchanged since they were scored)
  --verify-digests         with --store: rehash every bundle instead of trusting file stamps
  --shard i/n              score only shard i of n (0-based; by path hash); JSON for assay merge
  --scan-id ID             this scan's id, the same for every shard of it (merge refuses shards of
                           other scans); default: derived from the roots, options and bundles found
  --bundle-timeout S       seconds one bundle may take before it is a TIMEOUT (default 60); a run of
                           at most 64 folders and 1 MiB (no Inspect log) is scored in the main
                           thread, untimed, unless this is given
  --hmac-key-file FILE     check every assay bundle's seal.json against this key (§8; assay seal);
                           a JSON or JSONL document then ends with its MAC under the key, which
                           merge, compare and narrate check when given the key
  --dataset FILE           SWE-bench: the instances' dataset (the Hugging Face JSONL, or a JSON
                           list); each instance's FAIL_TO_PASS and PASS_TO_PASS come from it, so
                           a report.json that drops, adds or moves a test is DATASET_MISMATCH; a
                           dataset no instance was checked against fails the run (exit 1)
  --details                table and md: each experiment's figures and what did not count, after
                           the overview (one line per experiment, problems first; md without it
                           is the overview alone, for $GITHUB_STEP_SUMMARY)
  --width N                table: the columns to fit (default: the terminal's width; piped or
                           to a file, COLUMNS, else 80); names wrap, never cut
  -q, --quiet              no progress on stderr
  --allow-empty            a root under which nothing is recognised is no error (default: exit 2)
  Every bundle is scored; with a filter, the document and its reports hold only the experiments it
  selects and their bundles, and say so (run.options.filters). Not with --shard.
${FILTER_HELP}`;

export const SLURM_SCRIPT_HELP = `assay slurm-script ROOT... --shards N --dir DIR [--out FILE] [options]
  Write the bash script that scores the roots on a Slurm cluster: a job array of N tasks, task i
  running assay score --shard i/N with its own store (DIR/store-i.sqlite, so a requeued task
  resumes), then a merge job that waits for every task (--dependency=afterok) and writes
  DIR/results.json. Submit it with: bash FILE. Its comments say how to requeue a failed task.
  --shards N               how many shards (array tasks)
  --dir DIR                the shards, stores, logs and results.json: a folder every node shares,
                           outside the roots
  -o, --out FILE           write the script to FILE (default: standard output)
  --assay CMD              how a job runs assay (default: assay, found on the PATH sbatch exports)
  --cpus N                 CPUs per shard task: --cpus-per-task and score's --jobs (default 1)
  --sbatch=OPTION          an sbatch option for both jobs, e.g. --sbatch=--partition=short
                           (repeatable)
  --invalid, --resource-bound, --errors, --bundle-timeout, --verify-digests, --hmac-key-file,
  --dataset                passed to every shard (and the key and --schedule FILE to the merge)
  The jobs run in this folder, where the roots are spelled from. Each submission is a scan of its
  own (--scan-id, made when the script runs): the merge refuses a shard of another. Roots go
  after -- in the jobs, so a root named like an option is a root.
`;

export const EXPORT_HELP = `assay export RESULTS... --out DIR [--from DIR] [--memory-limit SIZE] [--quiet]
  Write every unit of the results documents (JSON or JSON Lines, read as streams) as one row: a
  Harbor or Terminal-Bench trial, an Inspect sample's epoch, a SWE-bench instance, an assay
  bundle, with its run's identity, state, each metric's value, usage and where its evidence is;
  beside them the entries and the experiments. Into DIR: assay.duckdb (tables units, entries,
  experiments) and units.parquet, entries.parquet, experiments.parquet, all written by DuckDB.
  An Inspect log's samples are read from the log (the document keeps per-log counts): its path
  is read from --from (the folder assay score ran in; default the current one). A log that
  cannot be read is said on stderr and keeps one row, its entry's. Rows are streamed into
  DuckDB, which keeps to --memory-limit (default 512MB) and spills past it.
  The schema and example queries: docs/export.md.
`;

export const MERGE_HELP = `assay merge RESULTS... [--schedule FILE]... [--format table|json|jsonl|html|junit|md] [--out FILE]
            [--fail-on invalid] [--hmac-key-file FILE] [--details] [--width N]
  Merge the documents of assay score --shard i/n (every shard of one n, each once, same options,
  one scan: --scan-id, or the bundles found; JSON or JSON Lines, read as streams) and compute the batch rules over all their bundles: the
  same document a single run would give.
  With --hmac-key-file, every shard must have checked seals with that key and carry the MAC
  that key gives it (else exit 2, naming the shard); the merged document carries its own. The
  extension of --out picks the format, and a --format it contradicts is refused, as for assay score.
  Without a key a shard is trusted as given, but never beyond what assay could have written: an
  entry crediting invalid evidence, a count out of bounds, a path not normalised or outside its
  shard's partition, a bundle twice, or a line or value over 256 MiB is refused (exit 2).
  --details adds each experiment's figures and what did not count to the table and the Markdown,
  after the overview, and --width N sets the table's columns, as for assay score.
`;

export const COMPARE_HELP = `assay compare BASE HEAD [--pair A=B]... [--by name|benchmark|tasks] [--format table|json|md|html] [--out FILE]
            [--fail-on regression] [--hmac-key-file FILE]
assay compare RESULTS [--pair A=B[=C...]]... [--by ...] [--trend] [...]
assay compare R1 R2 R3 ... [--pair A=B=C...]... [--by ...] [--trend] [...]
  Compare results documents (JSON or JSON Lines, read as streams). Experiments of different runs
  match by name (kind and id), else by the benchmark their evidence records (name, version,
  dataset), else by the set of tasks (or samples) they cover; a key with more than one candidate
  on a side is reported with its candidates, never guessed. Keys never cross kinds.
  Two: per metric HEAD − BASE with a 95% interval (Newcombe's for proportions of independent
  trials; where trials repeat tasks, the difference of two cluster-robust means); per headline metric (native accuracy, world pass, Harbor reward means, Inspect
  mean and accuracy metrics) the paired difference over the units both sides count (trials by id,
  Harbor tasks, Inspect samples by id) with its paired t 95% interval and the smallest difference
  the comparison can see (80% power); for native and world trials the exact McNemar test and the
  trials that flipped; what each harness claimed, side by side. A regression is a drop whose
  paired interval lies below 0 (where units pair; else the unpaired one).
  One (the runs within it: one score over a folder of many models' logs), or three or more: the
  runs grouped as above, and per group and headline metric ranked by their mean over the units
  every run holds (each run's headline beside it), every pair compared over those units (McNemar,
  paired t or the sign test), Holm-adjusted, and groups of runs not distinguished at 95%. A
  regression is a run significantly below its group's R1 after adjustment; the same run given
  twice is ranked once; a group without a score is listed, not ranked; a ranking that compared
  nothing fails --fail-on regression too. Nothing matched at all exits 2, with what to do.
  Documents scored under other options or scoring versions than the first are refused.
  --pair A=B               compare BASE's experiment A with HEAD's B (repeatable); with one
                           document, A=B[=C...] names runs of it to rank together; with three or
                           more, one name per document (A=B=C); where an id names two
                           experiments of a document, name one as profile:id
  --by name|benchmark|tasks
                           match by this criterion only (default: name, then benchmark, then tasks)
  --trend                  rank, and order each group's runs by their recorded start: the slope
                           per run of the ranked figure, with a cluster-robust 95% interval (each
                           unit's own series a cluster); "degrading" only when it excludes 0
  -f, --format table|json|md|html
                           output format (default: by --out's extension, else table)
  -o, --out FILE           write the output to FILE (atomically) instead of stdout (- is stdout);
                           its extension picks the format (.json, .html/.htm, .md/.markdown; .txt
                           or none: table); a --format it contradicts, .jsonl, .xml, or another
                           extension without --format, is refused
  --fail-on regression     exit 1 when any figure regressed
  --width N                table: the columns to fit (default: the terminal's width; piped or
                           to a file, COLUMNS, else 80); names wrap, never cut
  --hmac-key-file FILE     every document must have been scored with this key and carry the MAC
                           it gives it (else exit 2, naming the document). Without a key a
                           document is read as given, but what assay never writes (credit for
                           invalid evidence, counts out of bounds, paths not normalised, a bundle
                           twice, a headline figure or spend its own entries do not give) is refused
  Each document is checked whole; with a filter, only the experiments it selects are matched.
${FILTER_HELP}`;

export const VERIFY_HELP = `assay verify DIR|LOG [--json] [--hmac-key-file FILE] [--bundle-timeout S] [--dataset FILE]
  Validate one bundle, one Harbor trial, every trial of a Harbor job or of a Terminal-Bench run
  (or task folder), every instance of a SWE-bench model folder, or one Inspect log (read in
  place), and print every finding (a Terminal-Bench trial's or SWE-bench instance's own; the rules
  that compare it with its run's results.json or final report are score's); for Harbor, the job's
  plan and warnings, each trial's state, rewards, exception, what the job's result.json says of it,
  and review flags with their evidence;
  for an Inspect log, its status, plan, each sample state's count, each metric claimed beside
  assay's own, and findings naming the member or JSON path.
  With --hmac-key-file, a bundle's seal.json is checked against the key and the seal line says
  whether it matched; without it, a seal is not checked, and the seal line says so.
  --bundle-timeout S       seconds an Inspect log's reading may take before it is a TIMEOUT, as in
                           score (default 60)
  --dataset FILE           SWE-bench: check each instance's report.json against the dataset's
                           FAIL_TO_PASS and PASS_TO_PASS, as score does
  Exit 0 valid, 1 invalid, 3 tool error.
`;

export const TRIAGE_HELP = `assay triage ROOT... [--json] [--bundle-timeout S]
  A claims-only pass for archives too large to verify whole: of each Inspect .eval under the
  roots, only header.json (its claims), reductions.json and summaries.json (read a summary at a
  time) are read, never a sample, and every claim they support is checked as verify checks it
  (each metric claimed beside the summaries' recount, results.completed_samples, total_samples
  against the plan, the reductions, header.json against _journal/start.json). It says what they
  cannot check (what only the samples hold) and ends with the logs a full assay verify should
  run on: those where it found something, left a claim unverified, or counted a sample without a
  summary. A .json log holds its samples inline: it is read whole, as verify reads it. A
  container's claims are its own summary (a Harbor job's result.json): recounted from its members
  as score recounts them (a trial's evidence is a few small files). Loose bundles have no claim
  apart from their journals: they are named for a full verify.
  --json                   the reports, what was not triaged, and the list to verify, as JSON
  --bundle-timeout S       seconds one log's triage may take (default 60): past it the log is a
                           TIMEOUT, named for a full verify, and the others are triaged
  Exit 0 when nothing needs a full verify, 1 when something does.
`;

export const SEAL_HELP = `assay seal ROOT... --hmac-key-file FILE [--quiet]
  Seal every assay bundle under the roots whose files can be read, whatever its verdict (invalid,
  unterminated and torn ones too: a seal changes no verdict): write seal.json, the HMAC-SHA256 of
  the bundle's digest under the key (§8). A later assay score --hmac-key-file FILE then finds any
  change made after sealing (SEAL). Nothing but seal.json is written; an existing seal.json is
  never replaced; Harbor trials and Inspect logs carry no seal.
  --hmac-key-file FILE     the key: a regular file's exact bytes (1 byte to 64 KiB; a FIFO, pipe
                           or device is refused). Never printed or stored; its fingerprint,
                           HMAC-SHA256(key, "assay.key-id"), names it. (score, analyze, verify
                           and merge take it too, to check seals; merge, compare and
                           narrate to check a document's MAC.)
  -q, --quiet              only the bundles not sealed, no closing count
  Exit 0 every bundle sealed or already sealed; 1 a bundle not sealed (an entry that cannot be
  read safely, another seal); 3 a seal could not be written or a bundle could not be read.
`;

/** The kinds whose line in kinds/list.ts has a synth part: their profiles and demo folders join the built-in ones. */
const LISTED = await listedSynths();
const LISTED_DEMOS = LISTED.flatMap((s) => (s.demo ? [s.demo] : []));

const SYNTH_PROFILES = ["native-game", "world", "harbor", "inspect", ...LISTED.map((s) => s.profile)].join("|");
export const SYNTH_HELP = `assay synth --out DIR --n N [--seed S] [--faults] [--events E] [--profile ${SYNTH_PROFILES}]
  Write N synthetic trials (deterministic for a seed). native-game: a known mix of outcomes;
  --faults adds one labelled broken bundle per fault kind. world: the canonical scenarios in turn
  (clean, blind retry, query that finds, safe pause, prohibited effect, unrelated edit destroyed,
  approval for other arguments, budget overrun, report that omits an effect, report that
  misstates one, fault before commit).
  harbor: one Harbor job folder whose trials cycle through ${HARBOR_CASES.join(", ")}.
  inspect: N Inspect logs (.eval with Deflate or zstd members, and .json) cycling through
  ${INSPECT_CASES.join(", ")}.
${LISTED.map((s) => `  ${s.profile}: ${s.description}\n`).join("")}  DIR must be empty or absent.
  ${MANIFEST} in DIR lists every bundle with its outcome, fault and expected verdict.
`;

const DEMO_FOLDER_NAMES = ["runs", "worlds", "jobs", "logs", ...LISTED_DEMOS.map((d) => d.folder), "tasks"].join(", ");
export const DEMO_HELP = `assay demo [--keep | --out DIR]
  Synthesise a small mixed corpus into a temporary folder and score it; the folder is removed
  after (--keep keeps it and names it). It holds game runs with labelled faults, the canonical
  world scenarios, a Harbor job, Inspect logs${LISTED_DEMOS.map((d) => `,\n  ${d.holds}`).join("")}.
  --out DIR    write the folders README.md and docs/ use (${DEMO_FOLDER_NAMES})
               into DIR, which must be empty or new, score them, and print what to run next
               (cd DIR first)
`;

export const ANALYSIS_HELP = `  --rubric FILE            a rubric in Harbor's TOML shape ([[criteria]] name, description, guidance)
  --prompt FILE            a prompt template (default: prompts/<analysis>.md)
  --model M                the model (default ${DEFAULT_MODEL})
  --cache FILE             the analysis cache (default: $ASSAY_CACHE, else cache/assay.sqlite here)
  --offline                answer from the cache only: a miss is "not analysed: not in cache"
  --concurrency N          model requests in flight at once (default 4)
  --request-timeout S      seconds one model request may take (default 120); the SDK retries
  --max-retries N          the SDK's retries of a failed request, with its backoff (default 4)
  --max-calls N            at most N model requests; the rest are "not analysed: budget reached"
  --max-cost USD           stop before spending more: each request's worst case is reserved first
  --price MODEL=IN,OUT     US dollars per million input and output tokens (repeatable); overrides
                           the built-in list prices (dated: shown with every cost)
  --batch                  send the cache misses through the Message Batches API (half the price;
                           results within 24 h); the batch id is kept in the cache database, so a
                           stopped run resumes the same batch instead of paying twice
  --poll-interval S        seconds between batch status checks (default 30)
  --batch-wait S           stop polling after S seconds (default 93600, the API's 24 h and a margin):
                           the batch stays recorded and the next run collects it
  The API key comes from ANTHROPIC_API_KEY (without it: offline); ANTHROPIC_BASE_URL moves the endpoint.`;

export const ANALYZE_HELP = `assay analyze ROOT... [score's options but --shard and the filters] [analysis options]
  Score every bundle and trial first (in the pool, exactly as assay score with the same
  options), then ask a model for the trial-legitimacy analysis of each trial whose evidence is valid.
  The results gain an advisory record per bundle; no verdict, state or metric changes, and the exit
  code is score's. Invalid evidence is not analysed. Answers are cached by evidence digest.
${ANALYSIS_HELP}
`;

export const CHECK_TASK_HELP = `assay check-task TASK_DIR... [--json] [options]
  Before launch: judge each task folder (instruction.md, task.toml, tests/, solution/,
  environment/) against the task-quality rubric with a model. Advisory, cached by evidence digest.
  Exit 0 when every criterion passes or is not applicable, 1 when one fails, 3 when any outcome is
  an error or a task was not analysed (3 wins: a launch gate never passes on an error).
${ANALYSIS_HELP}
`;

export const NARRATE_HELP = `assay narrate RESULTS.json [--out FILE] [--format md|json] [--model M] [--cache F] [--offline] [--price MODEL=IN,OUT]
            [--prompt FILE] [--request-timeout S] [--max-retries N] [--hmac-key-file FILE]
  A job narrative from a results document (assay score or analyze, --format json or jsonl; read an
  entry at a time, whatever its size): its counts and metrics are copied from the document, never
  generated; a model writes the prose around them (an overview, themes citing trial ids — every
  cited trial must exist in the results). The same entries give the same request, and so a cache
  hit. Says which trials had no analysis and why. With --hmac-key-file, the document must have
  been scored with that key and carry the MAC it gives it (else exit 2); without, what assay never
  writes is refused, as by compare.
  Exit 0 written, 3 when the prose could not be written (an error, or offline and not in the cache).
`;

export const CACHE_HELP = `assay cache stats|prune|export [--cache FILE]
  stats [--json]                     rows, size, answers per analysis and model, the last run's hit
                                     rate and the cost its hits saved (no cache yet: empty, exit 0)
  prune --older-than D [--model M]   delete answers made more than D ago (e.g. 30d, 12h, 90m), of
                                     model M only when given
  export FILE                        every answer with its provenance as JSONL (written atomically;
                                     - for standard output)
  Safe while another assay reads the cache (SQLite WAL; a writer waits for the lock).
`;

export const SCHEMA_HELP = "assay schema [--out FILE]\n  Print the JSON Schema of the results document.\n";

export const ATTEST_HELP = `assay attest RESULTS --key KEY [--key KEY…] [--criteria FILE] [--hmac-key-file F] [--unsigned]
             [--out FILE]
assay attest keygen --out NAME
assay attest pubkey --key KEY [--hex]
assay attest verify STATEMENT --key PUB [--key PUB…] [--threshold N] [--results DOC] [--criteria FILE]
             [ROOT… [--schedule FILE…] [--hmac-key-file F] [--dataset FILE]] [--format json]
  attest: an in-toto Statement (v1) about a results document and the evidence under it, signed
  with ed25519 in a DSSE envelope (contract §15): the document by its SHA-256, the evidence by a
  Merkle root over every entry's and container's digest, and what assay verified: each
  experiment's figures with their intervals, units and coverage, the archive's own claims with
  assay's verdict on each, the counts of invalid and unscored, under the options that change
  results; assuranceLevel "reproduced". RESULTS is read as merge reads a shard (a keyed one needs
  its key); a shard or an incomplete run is refused. Written to RESULTS.intoto.jsonl (an in-toto
  bundle) unless --out; each --key (PKCS#8 PEM) adds a signature.
  --criteria FILE          pre-registered rules, one a line: EXPERIMENT METRIC COMPARATOR THRESHOLD
                           (METRIC.lo / METRIC.hi: its 95% interval's bounds; >= > <= <), or
                           paired, HEAD - BASE METRIC COMPARATOR THRESHOLD (HEAD − BASE over the
                           units both count, as assay compare pairs them); each rule's outcome
                           is recorded, with the file's digest to publish first
  --unsigned               the Statement alone, to sign elsewhere (cosign, GitHub, a KMS)
  keygen: NAME.key (private, mode 0600) and NAME.pub (SPKI PEM), never replacing a file; prints
  the keyid (SHA-256 of the public key's DER).
  pubkey: a private key's public half (SPKI PEM, or --hex: the 64 hex digits securesystemslib
  takes) on stdout, its keyid on stderr: what to publish for verifiers.
  verify: the signature (--threshold N of the keys given must verify); with --results, the
  document is the one attested and gives the same statement; with ROOT…, the evidence is scored
  again under the statement's options and must give the same evidence root and figures (every
  entry missing or extra named, with --results). One line per failure: CODE where: detail.
  What an attestation proves, and what it never does: docs/attest.md.
  Exit 0 verified; 1 a check failed; 2 usage or unusable input; 3 a tool error while recounting.
`;
