// `--dataset FILE` (issue 38, beyond §14's version 1): SWE-bench's instances (the Hugging Face
// dataset's JSONL, or a JSON list), streamed, keeping per instance_id only its FAIL_TO_PASS and
// PASS_TO_PASS — JSON-encoded strings of lists in the HF dataset, lists elsewhere: both taken. With
// it, the deciding tests come from the dataset, and a report.json whose tests_status leaves one
// out, adds one or moves one between the lists is DATASET_MISMATCH (a hard finding).

import type { Finding } from "./checks.js";
import { readRecords } from "./json-records.js";
import type { Rederivation } from "./grade.js";
import type { DecidingTests } from "./tests.js";
import type { InstanceReport } from "./instance-report.js";

export type DatasetTests = DecidingTests;
export type DatasetRead =
  { read: "ok"; instances: Map<string, DatasetTests>; records: number } | { read: "unreadable"; why: string };

const LISTS = ["FAIL_TO_PASS", "PASS_TO_PASS"] as const;
/** Dropped tests a finding names; the rest are counted. */
export const NAMED_TESTS = 10;

/** A dataset field's tests: a list of strings, or a string holding one as JSON; null otherwise. */
export function testsListOf(v: unknown): string[] | null {
  let list = v;
  if (typeof v === "string") {
    try {
      list = JSON.parse(v);
    } catch {
      return null;
    }
  }
  return Array.isArray(list) && list.every((t) => typeof t === "string") ? (list as string[]) : null;
}

/**
 * The dataset's lists per instance (`wanted`: only these ids are kept, every record is checked; a
 * later record of an id replaces an earlier one). Synchronous: a worker's scorer reads it.
 */
export function readDataset(file: string, wanted?: ReadonlySet<string>): DatasetRead {
  const instances = new Map<string, DatasetTests>();
  const bad: { why: string | null } = { why: null };
  let records = 0;
  const read = readRecords(
    file,
    (value, at) => {
      const r = value as Record<string, unknown> | null;
      const id = typeof r === "object" && r !== null ? r["instance_id"] : undefined;
      if (typeof id !== "string") {
        bad.why = `SCHEMA: ${at}: no instance_id`;
        return "stop";
      }
      const [f2p, p2p] = LISTS.map((l) => testsListOf(r![l]));
      if (!f2p || !p2p) {
        bad.why = `SCHEMA: ${at} (${id}): FAIL_TO_PASS and PASS_TO_PASS must be lists of test names, or JSON strings of them`;
        return "stop";
      }
      records++;
      if (!wanted || wanted.has(id)) instances.set(id, { FAIL_TO_PASS: f2p, PASS_TO_PASS: p2p });
      return "more";
    },
    Infinity, // streamed a record at a time, and the full dataset as one JSON list is larger than §2's documents
  );
  if (read.read === "absent") return { read: "unreadable", why: `${file}: no such file` };
  if (read.read === "unreadable")
    return { read: "unreadable", why: `${file}: ${read.finding.code}: ${read.finding.message}` };
  if (bad.why !== null) return { read: "unreadable", why: `${file}: ${bad.why}` };
  return { read: "ok", instances, records };
}

const counts = (tests: readonly string[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const t of tests) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
};
/** Take one `t` from the multiset; whether there was one. */
const take = (m: Map<string, number>, t: string): boolean => {
  const n = m.get(t) ?? 0;
  if (n > 0) m.set(t, n - 1);
  return n > 0;
};

/**
 * DATASET_MISMATCH: report.json's tests_status against the dataset's lists, as multisets. A test
 * the report leaves out is excused only where `rederived` (over the dataset's lists, results
 * found) leaves it out too: the harness puts a test of another status (XPASS…) in neither list.
 */
export function datasetMismatch(
  id: string,
  report: InstanceReport,
  expected: DatasetTests | undefined,
  rederived: Rederivation | null,
): Finding | null {
  if (!expected)
    return { code: "DATASET_MISMATCH", message: `${id} is not in the dataset: its deciding tests cannot be checked` };
  const status = report.tests_status;
  if (!status) return null; // no tests graded, none listed
  const have = Object.fromEntries(
    LISTS.map((l) => [l, counts([...status[l].success, ...status[l].failure])]),
  ) as Record<(typeof LISTS)[number], Map<string, number>>;
  const dropped: string[] = [];
  const moved: string[] = [];
  for (const list of LISTS) {
    const other = list === "FAIL_TO_PASS" ? "PASS_TO_PASS" : "FAIL_TO_PASS";
    const placed = rederived?.found
      ? counts([...rederived.tests[list].success, ...rederived.tests[list].failure])
      : null;
    for (const t of expected[list]) {
      if (take(have[list], t)) continue;
      if (take(have[other], t)) moved.push(`${t} (${list} → ${other})`);
      else if (!placed || placed.has(t)) dropped.push(t);
    }
  }
  const added = LISTS.flatMap((l) => [...have[l]].flatMap(([t, n]) => Array<string>(n).fill(t)));
  if (dropped.length + moved.length + added.length === 0) return null;
  const parts = [
    dropped.length > 0 ? `drops ${dropped.length} (${named(dropped)})` : null,
    moved.length > 0 ? `moves ${moved.length} (${named(moved)})` : null,
    added.length > 0 ? `adds ${added.length} (${named(added)})` : null,
  ].filter((p) => p !== null);
  return { code: "DATASET_MISMATCH", message: `report.json's tests_status ${parts.join(", ")} of the dataset's tests` };
}

const named = (tests: readonly string[]): string =>
  tests.slice(0, NAMED_TESTS).join(", ") +
  (tests.length > NAMED_TESTS ? `, and ${tests.length - NAMED_TESTS} more` : "");

/** The deciding tests for the re-derivation when a dataset is given: the dataset's own lists. */
export const decidingFromDataset = (expected: DatasetTests): DecidingTests => ({
  FAIL_TO_PASS: [...expected.FAIL_TO_PASS],
  PASS_TO_PASS: [...expected.PASS_TO_PASS],
});
