// A fuzz run: cases in order, each judged in memory, a share of them also on disk through the
// pool; it stops at the first failure and writes that case's folder for `assay verify`.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diskProblem, writeCase, type DiskCase } from "./disk.js";
import { Generator, type FuzzCase } from "./generate.js";
import { judge } from "./oracle.js";

export interface FuzzOptions {
  seed: number;
  cases: number;
  /** Index of the first case (a failure is reproduced with its index and `cases: 1`). */
  first?: number;
  /** One case in this many also goes through the pipeline on disk; 0: none. */
  diskEvery: number;
  /** Disk cases scored together in one pipeline run. */
  diskBatch?: number;
  onProgress?(done: number): void;
}

export interface FuzzFailure {
  seed: number;
  index: number;
  base: string;
  ops: string[];
  message: string;
  /** The case's folder, written for `assay verify`. */
  folder: string;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  seconds: number;
  diskCases: number;
  diskSeconds: number;
  validity: Record<string, number>;
  /** Cases by the code of their first error ("none" when valid). */
  firstCode: Record<string, number>;
  /** Cases by mutation (the first word of each op). */
  ops: Record<string, number>;
  /** Per profile: cases drawn from a credited base (a victory, a pass), and how many of all cases held credit. */
  credit: Record<string, { fromCredited: number; held: number }>;
  /** Why each credited mutant was legitimately credited: count and the first case index. */
  kept: Record<string, { count: number; example: number }>;
  /** Harbor trials valid with rewards other than their base's (result.json and its reward file changed together). */
  rewardsMoved: number;
  failure: FuzzFailure | null;
}

const bump = (m: Record<string, number>, k: string) => void (m[k] = (m[k] ?? 0) + 1);

/** Write a failing case where `assay verify` can read it. */
export function dumpCase(c: FuzzCase): string {
  return writeCase(mkdtempSync(join(tmpdir(), "assay-fuzz-case-")), c);
}

export async function fuzz(o: FuzzOptions, gen = new Generator()): Promise<FuzzReport> {
  const report: FuzzReport = {
    seed: o.seed,
    cases: 0,
    seconds: 0,
    diskCases: 0,
    diskSeconds: 0,
    validity: {},
    firstCode: {},
    ops: {},
    credit: {},
    kept: {},
    rewardsMoved: 0,
    failure: null,
  };
  const started = performance.now();
  const fail = (c: FuzzCase, message: string) => {
    report.failure = { seed: o.seed, index: c.index, base: c.base.name, ops: c.ops, message, folder: dumpCase(c) };
  };
  let pending: DiskCase[] = [];
  const flushDisk = async () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const t = performance.now();
    let bad = await diskProblem(batch);
    // A failure of the whole document names no case: run each alone to find one that fails.
    for (const one of bad !== null && batch.length > 1 ? batch : []) {
      const alone = await diskProblem([one]);
      if (alone !== null) {
        bad = alone;
        break;
      }
    }
    report.diskCases += batch.length;
    report.diskSeconds += (performance.now() - t) / 1000;
    if (bad !== null) fail(batch.find((d) => d.c.index === bad!.index)!.c, bad.failure);
  };

  const first = o.first ?? 0;
  for (let index = first; index < first + o.cases; index++) {
    const c = gen.caseAt(o.seed, index);
    const j = judge(c, gen.bases);
    report.cases++;
    for (const op of c.ops) bump(report.ops, op.split(" ")[0]!);
    if (j.failure !== null) {
      fail(c, j.failure);
      break;
    }
    const e = j.entry!;
    bump(report.validity, e.validity);
    bump(report.firstCode, e.errors[0]?.code ?? "none");
    const p = c.base.profile;
    if (p.credit !== undefined) {
      const tally = (report.credit[p.name] ??= { fromCredited: 0, held: 0 });
      if (p.credit.holds(c.base.entry)) tally.fromCredited++;
      if (j.kept !== null) {
        tally.held++;
        const k = (report.kept[`${e.profile}: ${j.kept}`] ??= { count: 0, example: index });
        k.count++;
      }
    }
    if (
      p.name === "harbor" &&
      e.validity === "valid" &&
      e.rewards !== null &&
      JSON.stringify(e.rewards) !== JSON.stringify(c.base.entry.rewards)
    )
      report.rewardsMoved++;
    if (o.diskEvery > 0 && index % o.diskEvery === 0) {
      pending.push({ c, entry: e });
      if (pending.length >= (o.diskBatch ?? 10)) await flushDisk();
      if (report.failure !== null) break;
    }
    if (report.cases % 10_000 === 0) o.onProgress?.(report.cases);
  }
  if (report.failure === null) await flushDisk();
  report.seconds = (performance.now() - started) / 1000;
  return report;
}
