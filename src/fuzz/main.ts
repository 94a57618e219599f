// `npm run fuzz [-- --cases N] [--seed S] [--case I]`: the byte-level fuzzer (not a test: a long
// run and its figures; test/fuzz.test.ts runs a short one). Exit 1 at the first failing case.

import { parseArgs } from "node:util";
import { fuzz, type FuzzReport } from "./run.js";

const HELP = `npm run fuzz -- [--cases N] [--seed S] [--case I]
  N cases (default 100000) of seed S (default 1), each a valid base with 1-3 seeded mutations,
  judged by the oracle; one in 500 also through the pipeline on disk. --case I runs only case I
  (what a failure prints).
`;

function count(s: string | undefined, name: string, fallback: number): number {
  if (s === undefined) return fallback;
  if (!/^[0-9]+$/.test(s) || !Number.isSafeInteger(Number(s))) throw new Error(`--${name} takes a whole number, not ${JSON.stringify(s)}`);
  return Number(s);
}

const top = (m: Record<string, number>, n = 12) =>
  Object.entries(m).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map(([k, v]) => `${k} ${v}`).join(" · ");

function print(r: FuzzReport): void {
  const rate = r.cases / Math.max(r.seconds, 1e-9);
  console.log(`${r.cases} cases in ${r.seconds.toFixed(1)} s: ${rate.toFixed(0)} cases/s; ${r.diskCases} of them also through the pool on disk (${r.diskSeconds.toFixed(1)} s)`);
  console.log(`validity       ${top(r.validity)}`);
  console.log(`first error    ${top(r.firstCode, 40)}`);
  console.log(`mutations      ${top(r.ops, 40)}`);
  for (const [profile, c] of Object.entries(r.credit))
    console.log(`${profile.padEnd(14)} ${c.fromCredited} cases from a credited base; ${c.held} cases credited after mutation`);
  for (const [why, k] of Object.entries(r.kept).sort((a, b) => b[1].count - a[1].count)) console.log(`  ${String(k.count).padStart(6)}  ${why}   (e.g. case ${k.example})`);
  console.log(`harbor         ${r.rewardsMoved} valid trials with rewards other than their base's (result.json and its reward file changed together)`);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { cases: { type: "string" }, seed: { type: "string" }, case: { type: "string" }, help: { type: "boolean" } } }));
  } catch (e) {
    console.error(`fuzz: ${(e as Error).message}\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  let seed: number, cases: number, first: number;
  try {
    seed = count(values.seed, "seed", 1);
    first = count(values.case, "case", 0);
    cases = values.case !== undefined ? 1 : count(values.cases, "cases", 100_000);
  } catch (e) {
    console.error(`fuzz: ${(e as Error).message}`);
    return 2;
  }
  console.log(`assay fuzz: seed ${seed}, cases ${first}..${first + cases - 1}`);
  const started = performance.now();
  const report = await fuzz({ seed, cases, first, diskEvery: values.case !== undefined ? 1 : 500, onProgress: (n) => {
    const s = (performance.now() - started) / 1000;
    console.log(`  ${n} cases, ${s.toFixed(0)} s`);
  } });
  print(report);
  const f = report.failure;
  if (f === null) return 0;
  console.log(`\nFAILED at case ${f.index} (seed ${f.seed}), base ${f.base}:\n  ${f.ops.join("\n  ")}\n${f.message}`);
  console.log(`\nreproduce: npm run fuzz -- --seed ${f.seed} --case ${f.index}\nthe case's folder: ${f.folder}\n  node dist/cli.js verify ${JSON.stringify(f.folder)}`);
  return 1;
}

process.exitCode = await main();
