// A SWE-bench run's own files (swe-bench/{final-report,json-records,predictions,run-files}.ts): the
// final report's schema and where it is looked for, the predictions file in each of
// get_predictions_from_file's shapes, run.json and patch.diff's digest, on fixtures/swe-bench/run
// (written in the harness's shapes at 7a21e05; the report is make_run_report's own, byte for byte).
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratch } from "./helpers/shared.js";
import { finalReportOf, finalReportPlaces } from "../src/kinds/swe-bench/final-report.js";
import { readRecords } from "../src/kinds/swe-bench/json-records.js";
import {
  modelFolderOf,
  patchMismatch,
  readPredictions,
  type PredictionsSummary,
} from "../src/kinds/swe-bench/predictions.js";
import { fileDigest, findPredictions, readFinalReport, readRunMetadata } from "../src/kinds/swe-bench/run-files.js";

const RUN = new URL("fixtures/swe-bench/run/", import.meta.url).pathname;
const W = join(RUN, "work");
const MODEL = join(W, "logs/run_evaluation/demo-run/org__model-7b");
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const { dir: tmp } = scratch("assay-swe-run-");
let n = 0;
const file = (name: string, text: string | Buffer): string => {
  const dir = join(tmp, String(n++));
  mkdirSync(dir);
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const okSummary = async (f: string, model = "org__model-7b"): Promise<PredictionsSummary> => {
  const r = await readPredictions(f, model);
  if (r.read !== "ok") throw new Error(JSON.stringify(r));
  return r.summary;
};

describe("where the final report is looked for", () => {
  it("below logs/run_evaluation: the folder holding logs/, then the run folder, then the model folder", () => {
    expect(finalReportPlaces("/w/logs/run_evaluation/R/org__m")).toEqual({
      runId: "R",
      model: "org__m",
      files: [
        "/w/org__m.R.json",
        "/w/logs/run_evaluation/R/org__m.R.json",
        "/w/logs/run_evaluation/R/org__m/org__m.R.json",
      ],
    });
  });
  it("elsewhere (an archive that moved the run): the run folder, then the model folder", () => {
    expect(finalReportPlaces("/a/R/org__m").files).toEqual(["/a/R/org__m.R.json", "/a/R/org__m/org__m.R.json"]);
    expect(finalReportPlaces("/w/logs/other/R/m").files).toEqual([
      "/w/logs/other/R/m.R.json",
      "/w/logs/other/R/m/m.R.json",
    ]);
  });
  it("the first file found is the report, readable or not", () => {
    const found = readFinalReport(MODEL);
    expect(found.path).toBe(join(W, "org__model-7b.demo-run.json"));
    expect(found.parse?.ok && found.parse.report.total_instances).toBe(6);
    const dir = join(tmp, "first");
    mkdirSync(join(dir, "R", "m"), { recursive: true });
    expect(readFinalReport(join(dir, "R", "m"))).toEqual({ path: null, parse: null });
    writeFileSync(join(dir, "R", "m", "m.R.json"), '{"total_instances": 0, "resolved_ids": []}');
    expect(readFinalReport(join(dir, "R", "m")).path).toBe(join(dir, "R", "m", "m.R.json"));
    writeFileSync(join(dir, "R", "m.R.json"), '{"total_instances": 0,');
    expect(readFinalReport(join(dir, "R", "m"))).toMatchObject({
      path: join(dir, "R", "m.R.json"),
      parse: { ok: false },
    });
  });
});

describe("the final report's schema", () => {
  const report = JSON.parse(readFileSync(join(W, "org__model-7b.demo-run.json"), "utf8")) as Record<string, unknown>;
  it("make_run_report's report at 7a21e05, and an older one without the failure lists or schema_version", () => {
    expect(finalReportOf(report)).toMatchObject({
      ok: true,
      report: { schema_version: 2, failure_reasons: { "psf__requests-2317": "network_unreachable" } },
    });
    const {
      infra_failure_ids,
      ambiguous_failure_ids,
      failure_reasons,
      infra_failure_instances,
      ambiguous_failure_instances,
      schema_version,
      ...old
    } = report;
    expect(finalReportOf({ ...old, unstopped_instances: 0, unstopped_containers: [], unremoved_images: [] }).ok).toBe(
      true,
    );
  });
  it("total_instances and resolved_ids are required", () => {
    expect(finalReportOf({ total_instances: 1 })).toEqual({ ok: false, why: "no resolved_ids" });
    expect(finalReportOf({ resolved_ids: [] })).toEqual({ ok: false, why: "no total_instances" });
    expect(finalReportOf([])).toEqual({ ok: false, why: "not a JSON object" });
  });
  it("a known field of the wrong type makes it unreadable; an unknown one does not", () => {
    expect(finalReportOf({ ...report, error_ids: "x" })).toMatchObject({
      ok: false,
      why: expect.stringMatching(/^error_ids: /),
    });
    expect(finalReportOf({ ...report, resolved_instances: -1 }).ok).toBe(false);
    expect(finalReportOf({ ...report, failure_reasons: { a: 1 } }).ok).toBe(false);
    expect(finalReportOf({ ...report, something_new: [1] }).ok).toBe(true);
  });
  it("read as §2 says: a duplicate key or 1.0 for a count is unreadable", () => {
    const dir = join(tmp, "dup", "R", "m");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "m.R.json"), '{"total_instances": 1, "total_instances": 2, "resolved_ids": []}');
    expect(readFinalReport(dir).parse).toMatchObject({ ok: false, why: expect.stringMatching(/^JSON_DUPLICATE_KEY/) });
    writeFileSync(join(dir, "m.R.json"), '{"total_instances": 1.0, "resolved_ids": []}');
    expect(readFinalReport(dir).parse).toMatchObject({ ok: false, why: expect.stringMatching(/^total_instances/) });
  });
});

describe("predictions in each of get_predictions_from_file's shapes", () => {
  const patch = readFileSync(join(MODEL, "pallets__flask-4045", "patch.diff"), "utf8");
  it("JSONL, a JSON list and an object keyed by instance id give the same summary", async () => {
    const lines = await okSummary(join(W, "preds.jsonl"));
    expect([...lines.records.keys()]).toEqual([
      "pallets__flask-4045",
      "pallets__flask-4992",
      "pallets__flask-5063",
      "psf__requests-2317",
      "psf__requests-863",
    ]);
    expect(lines.records.get("pallets__flask-4045")).toEqual({ empty: false, digest: sha(patch) });
    expect(lines.records.get("pallets__flask-5063")).toEqual({ empty: true, digest: sha("") });
    for (const other of ["preds-list.json", "preds-by-id.json"])
      expect((await okSummary(join(RUN, other))).records).toEqual(lines.records);
  });
  it("the model: model_name_or_path with / as __, \"None\" when absent; other models' records are not this one's", async () => {
    expect(modelFolderOf({ model_name_or_path: "a/b/c" })).toBe("a__b__c");
    expect(modelFolderOf({})).toBe("None");
    const f = file(
      "p.jsonl",
      [
        '{"instance_id":"a__b-1","model_patch":"x"}',
        '{"instance_id":"a__b-2","model_patch":"y","model_name_or_path":"o/m"}',
        "",
      ].join("\n"),
    );
    expect([...(await okSummary(f, "None")).records.keys()]).toEqual(["a__b-1"]);
    expect(await okSummary(f, "o__m")).toMatchObject({
      otherModels: 1,
      records: new Map([["a__b-2", { empty: false, digest: sha("y") }]]),
    });
  });
  it("a later record of an instance replaces the earlier, whichever model it names (the harness's dict)", async () => {
    const f = file(
      "p.jsonl",
      [
        '{"instance_id":"a__b-1","model_patch":"x","model_name_or_path":"m"}',
        '{"instance_id":"a__b-1","model_patch":null,"model_name_or_path":"m"}',
        "",
      ].join("\n"),
    );
    expect((await okSummary(f, "m")).records.get("a__b-1")).toEqual({ empty: true, digest: sha("") });
    const g = file(
      "p.jsonl",
      [
        '{"instance_id":"a__b-1","model_patch":"x","model_name_or_path":"m"}',
        '{"instance_id":"a__b-1","model_patch":"x","model_name_or_path":"n"}',
        "",
      ].join("\n"),
    );
    expect(await okSummary(g, "m")).toMatchObject({ records: new Map(), otherModels: 1 });
  });
  it('an empty patch: "", null or no model_patch; not empty: any other text', async () => {
    const f = file(
      "p.json",
      JSON.stringify([
        { instance_id: "a__b-1", model_patch: "" },
        { instance_id: "a__b-2", model_patch: null },
        { instance_id: "a__b-3" },
        { instance_id: "a__b-4", model_patch: " " },
      ]),
    );
    const r = (await okSummary(f, "None")).records;
    expect([...r.values()].map((p) => p.empty)).toEqual([true, true, true, false]);
  });
  it("not predictions: a first record without instance_id and model_patch, no record, or absent", async () => {
    expect(await readPredictions(join(W, "org__model-7b.demo-run.json"), "org__model-7b")).toMatchObject({
      read: "not-predictions",
    });
    expect(await readPredictions(file("p.json", '[{"instance_id":"a__b-1"}]'), "None")).toMatchObject({
      read: "not-predictions",
    });
    expect(await readPredictions(file("p.json", "[]"), "None")).toEqual({
      read: "not-predictions",
      why: "it holds no record",
    });
    expect(await readPredictions(join(tmp, "none.jsonl"), "None")).toEqual({ read: "not-predictions", why: "absent" });
  });
  it("unreadable: a later record the harness cannot take, or one §2 refuses", async () => {
    const first = '{"instance_id":"a__b-1","model_patch":"x"}';
    expect(await readPredictions(file("p.jsonl", `${first}\n{"model_patch":"y"}\n`), "None")).toMatchObject({
      read: "unreadable",
      finding: { code: "SCHEMA" },
    });
    expect(
      await readPredictions(file("p.jsonl", `${first}\n{"instance_id":"a__b-2","model_patch":3}\n`), "None"),
    ).toMatchObject({ read: "unreadable", finding: { code: "SCHEMA" } });
    expect(
      await readPredictions(
        file("p.jsonl", `${first}\n{"instance_id":"a__b-2","model_patch":"y","model_name_or_path":null}\n`),
        "None",
      ),
    ).toMatchObject({
      read: "unreadable",
      finding: { code: "SCHEMA", message: "line 2: a__b-2: model_name_or_path is not a string" },
    });
    expect(
      await readPredictions(
        file("p.jsonl", `${first}\n{"instance_id":"a__b-2","model_patch":"y","model_patch":"z"}\n`),
        "None",
      ),
    ).toMatchObject({ read: "unreadable", finding: { code: "JSON_DUPLICATE_KEY" } });
    expect(await readPredictions(file("p.jsonl", `${first}\n\n`), "None")).toMatchObject({
      read: "unreadable",
      finding: { code: "JSON_SYNTAX" },
    });
    expect(
      await readPredictions(file("p.json", `[${first},{"instance_id":"a__b-2","model_patch":"\\ud800"}]`), "None"),
    ).toMatchObject({ read: "unreadable", finding: { code: "ENCODING" } });
    expect(await readPredictions(file("p.json", `{"a":${first},"a":${first}}`), "None")).toMatchObject({
      read: "unreadable",
      finding: { code: "JSON_DUPLICATE_KEY" },
    });
    expect(await readPredictions(file("p.json", `[${first},`), "None")).toMatchObject({
      read: "unreadable",
      finding: { code: "JSON_SYNTAX" },
    });
  });
});

describe("records streamed as §2 says", () => {
  const rec = '{"instance_id":"a__b-1","model_patch":"x"}';
  const all = async (f: string, max?: number) => {
    const seen: string[] = [];
    const read = await readRecords(f, (_v, at) => (seen.push(at), "more"), max);
    return { read, seen };
  };
  it("a .json document over the cap is refused unread; a .jsonl file of any size is read by line", async () => {
    const doc = `[${rec},${rec}]`;
    expect((await all(file("p.json", doc), doc.length - 1)).read).toEqual({
      read: "unreadable",
      finding: { code: "FILE_TOO_LARGE", message: `${doc.length} bytes exceeds ${doc.length - 1}` },
    });
    expect(await all(file("p.json", doc), doc.length)).toEqual({
      read: { read: "ok" },
      seen: ["record 0", "record 1"],
    });
    expect(await all(file("p.jsonl", `${rec}\n${rec}\n`), 1)).toEqual({
      read: { read: "ok" },
      seen: ["line 1", "line 2"],
    });
  });
  it("a JSONL line over 1 MiB is LINE_TOO_LONG; one of 1 MiB with its \\n is read", async () => {
    const head = '{"instance_id":"a__b-1","model_patch":"';
    const line = (len: number) => `${head}${"x".repeat(len - head.length - 2)}"}`;
    expect(line(1024 * 1024 - 1).length).toBe(1024 * 1024 - 1);
    expect((await all(file("p.jsonl", `${line(1024 * 1024 - 1)}\n`))).read).toEqual({ read: "ok" });
    expect((await all(file("p.jsonl", `${line(1024 * 1024)}\n`))).read).toMatchObject({
      read: "unreadable",
      finding: { code: "LINE_TOO_LONG" },
    });
  });
  it("a BOM, a raw \\r or invalid UTF-8 is ENCODING; without them it is read", async () => {
    for (const bad of [
      Buffer.from(`\ufeff[${rec}]`),
      Buffer.from(`[${rec},\r\n${rec}]`),
      Buffer.concat([Buffer.from(`[${rec},"`), Buffer.from([0xc3]), Buffer.from('"]')]),
    ]) {
      expect((await all(file("p.json", bad))).read).toMatchObject({
        read: "unreadable",
        finding: { code: "ENCODING" },
      });
    }
    expect((await all(file("p.json", Buffer.from(`[${rec},\n "é"]`)))).read).toEqual({ read: "ok" });
  });
  it("neither a list nor an object, or an empty file, is refused", async () => {
    expect((await all(file("p.json", '"x"'))).read).toMatchObject({ read: "unreadable", finding: { code: "SCHEMA" } });
    expect((await all(file("p.json", " \n"))).read).toMatchObject({
      read: "unreadable",
      finding: { code: "JSON_SYNTAX" },
    });
    expect((await all(file("p.json", `[${rec},{`))).read).toEqual({
      read: "unreadable",
      finding: { code: "JSON_SYNTAX", message: "record 1: the document ends before it is complete (cut short?)" },
    });
    expect((await all(file("p.json", `[${rec}] x`))).read).toMatchObject({
      read: "unreadable",
      finding: { code: "JSON_SYNTAX", message: expect.stringMatching(/at byte 45$/) },
    });
  });
  it("records and multi-byte characters across the 1 MiB chunks are read whole", async () => {
    // 3,000 records of ~1.3 kB: chunk edges fall inside records, strings and 2- to 4-byte characters.
    const preds = Array.from({ length: 3000 }, (_, i) => ({
      instance_id: `a__b-${i}`,
      model_patch: `é😀${"ü".repeat(i % 7)}${"x".repeat(1300)}${i}`,
      model_name_or_path: "m",
    }));
    for (const [name, text] of [
      ["p.json", JSON.stringify(preds)],
      ["q.json", JSON.stringify(Object.fromEntries(preds.map((p) => [p.instance_id, p])))],
    ] as const) {
      const r = await okSummary(file(name, text), "m");
      expect(r.records.size, name).toBe(3000);
      expect(
        preds.every((p) => r.records.get(p.instance_id)?.digest === sha(p.model_patch)),
        name,
      ).toBe(true);
    }
  });
  it("the sink stops the reading", async () => {
    expect(await readRecords(file("p.jsonl", `${rec}\n${rec}\n`), () => "stop")).toEqual({ read: "stopped" });
  });
});

describe("the predictions file of a run, run.json and patch.diff", () => {
  it("beside the report, not the report itself nor run.json", async () => {
    const found = await findPredictions(MODEL, join(W, "org__model-7b.demo-run.json"));
    expect(found.summary?.file).toBe(join(W, "preds.jsonl"));
    expect(found.unreadable).toEqual([]);
  });
  it("without a report: in the run folder; another model's file or an unreadable one is passed over, the latter said", async () => {
    const run = join(tmp, "runs", "R");
    mkdirSync(join(run, "m"), { recursive: true });
    writeFileSync(join(run, "a.jsonl"), '{"instance_id":"a__b-1","model_patch":"x","model_name_or_path":"other"}\n');
    writeFileSync(
      join(run, "b.jsonl"),
      '{"instance_id":"a__b-1","model_patch":"x","model_name_or_path":"m"}\n{"instance_id":\n',
    );
    writeFileSync(join(run, "c.json"), '[{"instance_id":"a__b-1","model_patch":"x","model_name_or_path":"m"}]');
    writeFileSync(join(run, "run.json"), '[{"instance_id":"a__b-9","model_patch":"x","model_name_or_path":"m"}]');
    const found = await findPredictions(join(run, "m"), null);
    expect(found.summary?.file).toBe(join(run, "c.json"));
    expect(found.unreadable.map((u) => u.file)).toEqual([join(run, "b.jsonl")]);
    expect((await findPredictions(join(tmp, "nowhere", "R", "m"), null)).summary).toBe(null);
  });
  it("run.json's dataset and split; null when absent", () => {
    expect(readRunMetadata(join(W, "logs/run_evaluation/demo-run"))).toEqual({
      dataset: "dataset.jsonl",
      split: "test",
    });
    expect(readRunMetadata(MODEL)).toBe(null);
  });
  it("PATCH_MISMATCH: patch.diff's bytes against model_patch, on each side", async () => {
    const preds = await okSummary(join(W, "preds.jsonl"));
    const digest = fileDigest(join(MODEL, "pallets__flask-4045", "patch.diff"));
    expect(digest).toBe(sha(readFileSync(join(MODEL, "pallets__flask-4045", "patch.diff"), "utf8")));
    expect(patchMismatch("pallets__flask-4045", digest, preds)).toBe(null);
    expect(patchMismatch("pallets__flask-4992", digest, preds)).toMatchObject({ code: "PATCH_MISMATCH" });
    expect(patchMismatch("pallets__flask-4992", null, preds)).toBe(null);
    expect(patchMismatch("pallets__flask-4992", digest, null)).toBe(null);
    expect(fileDigest(join(MODEL, "nothing.diff"))).toBe(null);
  });
});
