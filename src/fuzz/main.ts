// `npm run fuzz [-- --cases N] [--seed S] [--case I] [--eval-cases M] [--eval-case J]`: the
// byte-level fuzzer of bundles and Harbor trials, then the .eval structure fuzzer (not tests: long
// runs and their figures; test/fuzz.test.ts and test/fuzz-eval.test.ts run short ones). Exit 1 at
// the first failing case.

import { parseArgs } from "node:util";
import { fuzzEval, RSS_BASE_MB, RSS_PER_MEMBER, type EvalFuzzReport } from "./eval.js";
import { fuzz, type FuzzReport } from "./run.js";

const HELP = `npm run fuzz -- [--cases N] [--seed S] [--case I] [--eval-cases M] [--eval-case J]
  N cases (default 100000) of seed S (default 1), each a valid base with 1-3 seeded mutations,
  judged by the oracle; one in 500 also through the pipeline on disk. --case I runs only case I
  (what a failure prints).
  Then M .eval structure cases (default 10000) of seed S: synthesised Inspect logs with their
  member tables, sizes, end records, zstd frames and Deflate streams mutated, read in child
  processes whose peak RSS is bounded per case; one in 500 also through \`assay score --jobs 2\`.
  --eval-case J runs only that case. --eval-cases 0 or --cases 0 skips either part.
`;

function count(s: string | undefined, name: string, fallback: number): number {
  if (s === undefined) return fallback;
  if (!/^[0-9]+$/.test(s) || !Number.isSafeInteger(Number(s)))
    throw new Error(`--${name} takes a whole number, not ${JSON.stringify(s)}`);
  return Number(s);
}

const top = (m: Record<string, number>, n = 12) =>
  Object.entries(m)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([k, v]) => `${k} ${v}`)
    .join(" · ");

function print(r: FuzzReport): void {
  const rate = r.cases / Math.max(r.seconds, 1e-9);
  console.log(
    `${r.cases} cases in ${r.seconds.toFixed(1)} s: ${rate.toFixed(0)} cases/s; ${r.diskCases} of them also through the pool on disk (${r.diskSeconds.toFixed(1)} s)`,
  );
  console.log(`validity       ${top(r.validity)}`);
  console.log(`first error    ${top(r.firstCode, 40)}`);
  console.log(`mutations      ${top(r.ops, 40)}`);
  for (const [profile, c] of Object.entries(r.credit))
    console.log(
      `${profile.padEnd(14)} ${c.fromCredited} cases from a credited base; ${c.held} cases credited after mutation`,
    );
  for (const [why, k] of Object.entries(r.kept).sort((a, b) => b[1].count - a[1].count))
    console.log(`  ${String(k.count).padStart(6)}  ${why}   (e.g. case ${k.example})`);
  console.log(
    `harbor         ${r.rewardsMoved} valid trials with rewards other than their base's (result.json and its reward file changed together)`,
  );
}

function printEval(r: EvalFuzzReport): void {
  console.log(
    `.eval structure: ${r.cases} cases in ${r.seconds.toFixed(1)} s: ${(r.cases / Math.max(r.seconds, 1e-9)).toFixed(0)} cases/s; ${r.cliCases} of them also through assay score --jobs 2`,
  );
  console.log(
    `peak RSS       ${r.peakRssMb.toFixed(0)} MB reading in process, ${r.cliPeakRssMb.toFixed(0)} MB through the CLI (a case may reach ${RSS_BASE_MB} MB + ${RSS_PER_MEMBER} x its largest declared member, at most the member cap)`,
  );
  console.log(`validity       ${top(r.validity)}`);
  console.log(`first error    ${top(r.firstCode, 40)}`);
  console.log(`mutations      ${top(r.ops, 40)}`);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        cases: { type: "string" },
        seed: { type: "string" },
        case: { type: "string" },
        "eval-cases": { type: "string" },
        "eval-case": { type: "string" },
        help: { type: "boolean" },
      },
    }));
  } catch (e) {
    console.error(`fuzz: ${(e as Error).message}\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  let seed: number, cases: number, first: number, evalCases: number, evalFirst: number;
  try {
    seed = count(values.seed, "seed", 1);
    first = count(values.case, "case", 0);
    evalFirst = count(values["eval-case"], "eval-case", 0);
    cases =
      values["eval-case"] !== undefined ? 0 : values.case !== undefined ? 1 : count(values.cases, "cases", 100_000);
    evalCases =
      values.case !== undefined
        ? 0
        : values["eval-case"] !== undefined
          ? 1
          : count(values["eval-cases"], "eval-cases", 10_000);
  } catch (e) {
    console.error(`fuzz: ${(e as Error).message}`);
    return 2;
  }
  if (cases > 0) {
    const code = await bytes(seed, cases, first, values.case !== undefined);
    if (code !== 0) return code;
  }
  if (evalCases === 0) return 0;
  console.log(`\nassay fuzz, .eval structure: seed ${seed}, cases ${evalFirst}..${evalFirst + evalCases - 1}`);
  const started = performance.now();
  const r = await fuzzEval({
    seed,
    cases: evalCases,
    first: evalFirst,
    batch: 200,
    cliEvery: values["eval-case"] !== undefined ? 1 : 500,
    onProgress: (n) => console.log(`  ${n} cases, ${((performance.now() - started) / 1000).toFixed(0)} s`),
  });
  printEval(r);
  const f = r.failure;
  if (f === null) return 0;
  console.log(`\nFAILED at .eval case ${f.index} (seed ${f.seed}):\n  ${f.ops.join("\n  ")}\n${f.message}`);
  console.log(
    `\nreproduce: npm run fuzz -- --seed ${f.seed} --eval-case ${f.index}\nthe case's file: ${f.file}\n  node dist/cli.js verify ${JSON.stringify(f.file)}`,
  );
  return 1;
}

/** The byte-level fuzzer of bundles and Harbor trials. */
async function bytes(seed: number, cases: number, first: number, one: boolean): Promise<number> {
  console.log(`assay fuzz: seed ${seed}, cases ${first}..${first + cases - 1}`);
  const started = performance.now();
  const report = await fuzz({
    seed,
    cases,
    first,
    diskEvery: one ? 1 : 500,
    onProgress: (n) => {
      const s = (performance.now() - started) / 1000;
      console.log(`  ${n} cases, ${s.toFixed(0)} s`);
    },
  });
  print(report);
  const f = report.failure;
  if (f === null) return 0;
  console.log(`\nFAILED at case ${f.index} (seed ${f.seed}), base ${f.base}:\n  ${f.ops.join("\n  ")}\n${f.message}`);
  console.log(
    `\nreproduce: npm run fuzz -- --seed ${f.seed} --case ${f.index}\nthe case's folder: ${f.folder}\n  node dist/cli.js verify ${JSON.stringify(f.folder)}`,
  );
  return 1;
}

process.exitCode = await main();
