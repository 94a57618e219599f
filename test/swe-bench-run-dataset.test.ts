// `--dataset FILE` (swe-bench/dataset.ts): the dataset streamed in the HF JSONL and a JSON list, its
// lists as JSON strings or lists, and DATASET_MISMATCH on each side of its line, against the
// fixture run's report.json and test_output.txt re-derived with the dataset's deciding tests.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { scratch } from "./helpers/shared.js";
import {
  datasetMismatch,
  decidingFromDataset,
  NAMED_TESTS,
  readDataset,
  testsListOf,
  type DatasetTests,
} from "../src/kinds/swe-bench/dataset.js";
import { rederive, TestOutputScan, type Rederivation } from "../src/kinds/swe-bench/grade.js";
import type { InstanceReport } from "../src/kinds/swe-bench/instance-report.js";
import { linesOf } from "../src/kinds/swe-bench/python-text.js";
import { A, B, MODEL_FOLDER, RUN_FIXTURE } from "./helpers/swe-bench-run.js";

const { dir: tmp } = scratch("assay-swe-dataset-");
const write = (name: string, text: string) => {
  writeFileSync(join(tmp, name), text);
  return join(tmp, name);
};
const reportOf = (id: string): InstanceReport =>
  (JSON.parse(readFileSync(join(MODEL_FOLDER, id, "report.json"), "utf8")) as Record<string, InstanceReport>)[id]!;
const logOf = (id: string) => readFileSync(join(MODEL_FOLDER, id, "test_output.txt"), "utf8");
/** test_output.txt's text re-derived over `deciding`, as the instance level does. */
const rederived = (text: string, deciding: DatasetTests): Rederivation => {
  const scan = new TestOutputScan("pytest");
  for (const l of linesOf(text)) scan.line(l);
  return rederive(scan.finish(), deciding);
};

let dataset: Map<string, DatasetTests>;
beforeAll(async () => {
  const r = await readDataset(join(RUN_FIXTURE, "dataset.jsonl"));
  if (r.read !== "ok") throw new Error(r.why);
  dataset = r.instances;
});

describe("reading the dataset", () => {
  it("the HF JSONL (lists as JSON strings) and a JSON list (lists as lists) give the same lists", async () => {
    expect(dataset.size).toBe(6);
    expect(dataset.get(A)).toEqual({
      FAIL_TO_PASS: ["tests/test_blueprints.py::test_dotted_name_not_allowed"],
      PASS_TO_PASS: ["tests/test_blueprints.py::test_route_decorator_custom_endpoint"],
    });
    expect(await readDataset(join(RUN_FIXTURE, "dataset.json"))).toEqual({
      read: "ok",
      instances: dataset,
      records: 6,
    });
  });
  it("a list field: a list of strings or a JSON string of one; anything else is none", () => {
    expect(testsListOf(["a", "b"])).toEqual(["a", "b"]);
    expect(testsListOf('["a", "b"]')).toEqual(["a", "b"]);
    expect(testsListOf("[]")).toEqual([]);
    for (const bad of ["a", '"a"', "[1]", [1], null, undefined, { a: 1 }])
      expect(testsListOf(bad), JSON.stringify(bad)).toBe(null);
  });
  it("only the wanted ids are kept; every record is checked", async () => {
    const r = await readDataset(join(RUN_FIXTURE, "dataset.jsonl"), new Set([A]));
    expect(r.read === "ok" && [[...r.instances.keys()], r.records]).toEqual([[A], 6]);
    const bad = write(
      "d0.jsonl",
      '{"instance_id":"a__b-1","FAIL_TO_PASS":"[]","PASS_TO_PASS":"[]"}\n{"instance_id":"a__b-2","FAIL_TO_PASS":3,"PASS_TO_PASS":"[]"}\n',
    );
    expect(readDataset(bad, new Set(["a__b-1"]))).toMatchObject({
      read: "unreadable",
      why: expect.stringContaining("line 2 (a__b-2)"),
    });
  });
  it("a record without instance_id or with a malformed list, an unreadable or absent file: unreadable", async () => {
    expect(await readDataset(write("d1.jsonl", '{"FAIL_TO_PASS":"[]","PASS_TO_PASS":"[]"}\n'))).toEqual({
      read: "unreadable",
      why: `${join(tmp, "d1.jsonl")}: SCHEMA: line 1: no instance_id`,
    });
    expect(
      await readDataset(write("d2.jsonl", '{"instance_id":"a__b-1","FAIL_TO_PASS":"[","PASS_TO_PASS":"[]"}\n')),
    ).toMatchObject({ read: "unreadable", why: expect.stringContaining("(a__b-1): FAIL_TO_PASS and PASS_TO_PASS") });
    expect(await readDataset(write("d3.json", "[{"))).toMatchObject({
      read: "unreadable",
      why: expect.stringContaining("JSON_SYNTAX"),
    });
    expect(await readDataset(join(tmp, "none.jsonl"))).toMatchObject({
      read: "unreadable",
      why: expect.stringContaining("no such file"),
    });
  });
});

describe("DATASET_MISMATCH", () => {
  it("a report whose lists are the dataset's: none", () => {
    const expected = dataset.get(A)!;
    expect(datasetMismatch(A, reportOf(A), expected, rederived(logOf(A), expected))).toBe(null);
    expect(datasetMismatch(B, reportOf(B), dataset.get(B), null)).toBe(null);
  });
  it("a dropped test the log grades is named", () => {
    const extra = "tests/test_blueprints.py::test_extra";
    const expected = { ...dataset.get(A)!, PASS_TO_PASS: [...dataset.get(A)!.PASS_TO_PASS, extra] };
    expect(datasetMismatch(A, reportOf(A), expected, rederived(logOf(A), expected))).toEqual({
      code: "DATASET_MISMATCH",
      message: `report.json's tests_status drops 1 (${extra}) of the dataset's tests`,
    });
  });
  it("a dropped test the harness itself leaves out (a status neither pass nor fail) is excused; without results found, it is not", () => {
    const extra = "tests/test_blueprints.py::test_extra";
    const expected = { ...dataset.get(A)!, PASS_TO_PASS: [...dataset.get(A)!.PASS_TO_PASS, extra] };
    const log = logOf(A).replace("+ SWEBENCH_TEST_EXIT_CODE=0", `XFAILED ${extra}\n+ SWEBENCH_TEST_EXIT_CODE=0`);
    expect(datasetMismatch(A, reportOf(A), expected, rederived(log, expected))).toBe(null);
    const notFound = rederived(log.replace(">>>>> Start Test Output", ">>>>> Tests Errored"), expected);
    expect(notFound.found).toBe(false);
    expect(datasetMismatch(A, reportOf(A), expected, notFound)?.code).toBe("DATASET_MISMATCH");
  });
  it("a test moved between the lists, or one the dataset lacks", () => {
    const [f2p, p2p] = [dataset.get(A)!.FAIL_TO_PASS[0]!, dataset.get(A)!.PASS_TO_PASS[0]!];
    const swapped = { FAIL_TO_PASS: [p2p], PASS_TO_PASS: [f2p] };
    expect(datasetMismatch(A, reportOf(A), swapped, null)?.message).toBe(
      `report.json's tests_status moves 2 (${p2p} (FAIL_TO_PASS → PASS_TO_PASS), ${f2p} (PASS_TO_PASS → FAIL_TO_PASS)) of the dataset's tests`,
    );
    expect(datasetMismatch(A, reportOf(A), { FAIL_TO_PASS: [f2p], PASS_TO_PASS: [] }, null)?.message).toBe(
      `report.json's tests_status adds 1 (${p2p}) of the dataset's tests`,
    );
  });
  it(`the first ${NAMED_TESTS} dropped tests are named, the rest counted`, () => {
    const many = Array.from({ length: NAMED_TESTS + 2 }, (_, i) => `t${i}`);
    const m = datasetMismatch(
      A,
      reportOf(A),
      { ...dataset.get(A)!, FAIL_TO_PASS: [...dataset.get(A)!.FAIL_TO_PASS, ...many] },
      null,
    );
    expect(m?.message).toBe(
      `report.json's tests_status drops 12 (${many.slice(0, NAMED_TESTS).join(", ")}, and 2 more) of the dataset's tests`,
    );
  });
  it("a test listed twice counts twice (multisets)", () => {
    const expected = dataset.get(A)!;
    const twice = {
      ...reportOf(A),
      tests_status: {
        ...reportOf(A).tests_status!,
        FAIL_TO_PASS: { success: [expected.FAIL_TO_PASS[0]!, expected.FAIL_TO_PASS[0]!], failure: [] },
      },
    };
    expect(datasetMismatch(A, twice, expected, null)?.message).toBe(
      `report.json's tests_status adds 1 (${expected.FAIL_TO_PASS[0]}) of the dataset's tests`,
    );
  });
  it("an instance the dataset lacks; a report without tests_status has nothing to compare", () => {
    expect(datasetMismatch(A, reportOf(A), undefined, null)).toEqual({
      code: "DATASET_MISMATCH",
      message: `${A} is not in the dataset: its deciding tests cannot be checked`,
    });
    expect(datasetMismatch(A, { resolved: false }, dataset.get(A), null)).toBe(null);
  });
  it("the dataset's lists decide the re-derivation: a test the report left out fails it", () => {
    const expected = {
      ...dataset.get(A)!,
      FAIL_TO_PASS: [...dataset.get(A)!.FAIL_TO_PASS, "tests/test_blueprints.py::test_never_ran"],
    };
    expect(rederived(logOf(A), decidingFromDataset(dataset.get(A)!)).resolved).toBe(true);
    expect(rederived(logOf(A), decidingFromDataset(expected)).resolved).toBe(false);
  });
});
