// A synthesised run's own files, streamed id by id (a run of a million instances is never one
// string): the final report as reporting.py make_run_report writes it at 7a21e05 (its field order,
// sorted id lists, json.dumps indent 4 and print's newline: test/fixtures/swe-bench/run/work/),
// predictions as JSON Lines, the dataset's rows (the HF shape: FAIL_TO_PASS and PASS_TO_PASS as
// JSON-encoded strings), and run.json.

import type { KindSynthFile, KindSynthOptions } from "../synth.js";
import {
  CASES,
  DJANGO,
  FLASK,
  listsOf,
  planned,
  reasonOf,
  REQUESTS,
  SWE_CASES,
  SYNTH_MODEL,
  type ReportList,
  type SweCase,
} from "./synth-cases.js";
import { commitOf, patchOf } from "./synth-texts.js";

/** Repos in their ids' byte order: the report's sorted lists go repo by repo, then by index. */
const BY_ID = [DJANGO, FLASK, REQUESTS];

/** How many of the first n instances are of each case (they cycle). */
const countOf = (n: number, c: SweCase): number => {
  const k = SWE_CASES.indexOf(c);
  return Math.floor(n / SWE_CASES.length) + (k < n % SWE_CASES.length ? 1 : 0);
};

/** The ids whose case passes `keep`, sorted as the harness sorts them. */
function* sorted(o: KindSynthOptions, keep: (c: SweCase) => boolean): Generator<{ id: string; c: SweCase }> {
  for (const repo of BY_ID)
    for (let i = 0; i < o.n; i++) {
      const c = SWE_CASES[i % SWE_CASES.length]!;
      if (CASES[c].repo === repo && keep(c)) yield { id: planned(o, i).id, c };
    }
}
function* sortedIds(o: KindSynthOptions, keep: (c: SweCase) => boolean): Generator<string> {
  for (const { id } of sorted(o, keep)) yield id;
}

const inList = (list: ReportList) => (c: SweCase) => listsOf(c).includes(list);
const always = () => true;

/** `"key": [ids]` at json.dumps(indent=4)'s first level. */
function* idList(key: string, ids: Iterable<string>): Generator<string> {
  let first = true;
  for (const id of ids) {
    yield `${first ? `    ${JSON.stringify(key)}: [\n` : ",\n"}        ${JSON.stringify(id)}`;
    first = false;
  }
  yield first ? `    ${JSON.stringify(key)}: [],\n` : "\n    ],\n";
}

function* finalReport(o: KindSynthOptions): Generator<string> {
  const count = (keep: (c: SweCase) => boolean) => SWE_CASES.filter(keep).reduce((s, c) => s + countOf(o.n, c), 0);
  const counts: [string, number][] = [
    ["total_instances", o.n],
    ["submitted_instances", o.n],
    ["completed_instances", count(inList("completed"))],
    ["resolved_instances", count(inList("resolved"))],
    ["unresolved_instances", count(inList("unresolved"))],
    ["infra_failure_instances", 0],
    ["ambiguous_failure_instances", count(inList("ambiguous_failure"))],
    ["empty_patch_instances", count(inList("empty_patch"))],
    ["error_instances", count(inList("error"))],
  ];
  yield "{\n";
  for (const [key, n] of counts) yield `    ${JSON.stringify(key)}: ${n},\n`;
  yield* idList("completed_ids", sortedIds(o, inList("completed")));
  yield* idList("incomplete_ids", []);
  yield* idList("empty_patch_ids", sortedIds(o, inList("empty_patch")));
  yield* idList("submitted_ids", sortedIds(o, always));
  yield* idList("resolved_ids", sortedIds(o, inList("resolved")));
  yield* idList("unresolved_ids", sortedIds(o, inList("unresolved")));
  yield* idList("infra_failure_ids", []);
  yield* idList("ambiguous_failure_ids", sortedIds(o, inList("ambiguous_failure")));
  // failure_reasons: every id of either failure list, with its reason.
  let first = true;
  for (const { id, c } of sorted(o, (c) => reasonOf(c) !== undefined)) {
    yield `${first ? '    "failure_reasons": {\n' : ",\n"}        ${JSON.stringify(id)}: ${JSON.stringify(reasonOf(c))}`;
    first = false;
  }
  yield first ? '    "failure_reasons": {},\n' : "\n    },\n";
  yield* idList("error_ids", sortedIds(o, inList("error")));
  yield '    "schema_version": 2\n}\n';
}

/** A record as Python's json.dumps writes it (", " and ": "); every value here is ASCII. */
const pyRecord = (fields: [string, string | null][]): string =>
  `{${fields.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ")}}`;
/** A list of names as json.dumps writes it: the dataset keeps it as a string. */
const pyList = (names: readonly string[]): string => `[${names.map((n) => JSON.stringify(n)).join(", ")}]`;

function* predictions(o: KindSynthOptions): Generator<string> {
  for (let i = 0; i < o.n; i++) {
    const p = planned(o, i);
    const patch = p.case === "empty-patch" ? "" : patchOf(p.text);
    yield `${pyRecord([
      ["instance_id", p.id],
      ["model_name_or_path", SYNTH_MODEL],
      ["model_patch", patch],
    ])}\n`;
  }
}

function* dataset(o: KindSynthOptions): Generator<string> {
  for (let i = 0; i < o.n; i++) {
    const p = planned(o, i);
    const r = p.text.repo;
    yield `${pyRecord([
      ["repo", r.repo],
      ["instance_id", p.id],
      ["base_commit", commitOf(p.text)],
      ["patch", ""],
      ["test_patch", ""],
      ["problem_statement", ""],
      ["version", "2.0"],
      ["FAIL_TO_PASS", pyList(r.FAIL_TO_PASS)],
      ["PASS_TO_PASS", pyList(r.PASS_TO_PASS)],
    ])}\n`;
  }
}

/** The run's own files, after its instance folders (as the harness writes them last). */
export function* runFiles(o: KindSynthOptions): Generator<KindSynthFile> {
  const { run, model } = planned(o, 0).text;
  yield [
    `logs/run_evaluation/${run}/run.json`,
    [
      `${JSON.stringify({ dataset: "dataset.jsonl", split: "test", task_repo: null, created_at: "2026-08-20T10:00:00+00:00" }, null, 2)}\n`,
    ],
  ];
  yield [`${model}.${run}.json`, finalReport(o)];
  yield ["preds.jsonl", predictions(o)];
  yield ["dataset.jsonl", dataset(o)];
}
