// `assay triage` (issue 40 §4): an Inspect .eval's claims checked from header.json, reductions.json
// and summaries.json alone, never a sample; each side of its reach against a full `assay verify` of
// the same log: a clean log (nothing to verify), claims it catches (an inflated metric, an edited
// summary), and what it cannot (a corrupt sample member, an edited score: the samples hold them).
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSummaryRecords } from "../src/kinds/inspect/triage-read.js";
import { triedOn } from "../src/cli/commands/triage.js";
import { discover } from "../src/io/discover.js";
import { kindNamed } from "../src/kinds/registry.js";
import { readDirectory, readMember } from "../src/kinds/inspect/zip.js";
import { inspectLogBytes, type InspectCase } from "../src/synth/inspect.js";
import { zipBytes } from "../src/synth/zip.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const dir = scratch("assay-triage-").dir;

/** A synthesised .eval of the case (Deflate members, as the real logs are). */
function log(c: InspectCase, samples = 20): string {
  const file = join(dir, `${c}-${samples}.eval`);
  writeFileSync(
    file,
    inspectLogBytes({
      task: "t",
      model: "m/x",
      case: c,
      samples,
      epochs: 1,
      format: "eval",
      method: 8,
      seed: "s",
      offset: 0,
    }),
  );
  return file;
}

/** A copy of `file` as `name`, each member's text passed through `edit` (Deflate members again). */
function rewritten(file: string, name: string, edit: (member: string, text: string) => string): string {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const members = readDirectory(file).members.map((m) => ({
      name: m.name,
      data: Buffer.from(edit(m.name, readMember(fd, size, m).toString("utf8"))),
      method: 8 as const,
    }));
    const out = join(dir, name);
    writeFileSync(out, zipBytes(members));
    return out;
  } finally {
    closeSync(fd);
  }
}

interface Report {
  triaged: {
    path: string;
    claims: { name: string; claimed: string; recount: string; check: string }[];
    findings: { code: string }[];
    unchecked: string[];
    verify: string[];
    read: { members: string[] };
  }[];
  verify: string[];
}

async function triage(file: string): Promise<{ code: number; report: Report; text: string }> {
  const json = await run(["triage", file, "--json"]);
  const text = await run(["triage", file]);
  expect(json.code).toBe(text.code);
  return { code: json.code, report: JSON.parse(json.stdout) as Report, text: text.stdout };
}

describe("assay triage of Inspect .eval logs, beside a full verify", () => {
  it("reads header.json, reductions.json and summaries.json, never a sample member", async () => {
    const { report } = await triage(log("clean"));
    const members = report.triaged[0]!.read.members;
    expect([...members].sort()).toEqual(["_journal/start.json", "header.json", "reductions.json", "summaries.json"]);
  });

  it("keeps per summary one compact record (six own fields, the rest shared), the same at 20 and 400 samples", async () => {
    for (const n of [20, 400]) {
      const file = log("errors-hidden", n);
      const member = readDirectory(file).members.find((m) => m.name === "summaries.json")!;
      const { records, findings } = await readSummaryRecords(file, member);
      expect(findings).toEqual([]);
      expect(records).toHaveLength(n);
      const proto = Object.getPrototypeOf(records![0]) as object;
      for (const r of records!) {
        expect(Object.keys(r).sort()).toEqual(["epoch", "error", "id", "limit", "retries", "scores"]);
        expect(Object.getPrototypeOf(r)).toBe(proto);
        expect(r.graderFailed).toBe(records![0]!.graderFailed); // one shared empty list, not one a record
      }
      // What a summary says is kept: errored samples (errors-hidden hides errors behind its claims) and clean ones.
      expect(records!.some((r) => r.error === "error")).toBe(true);
      expect(records!.some((r) => r.error === null)).toBe(true);
      expect(records![0]!.member).toBe(`summaries.json (${JSON.stringify(records![0]!.id)}, epoch 1)`);
    }
  });

  it("an element that is no summary is a finding and no record; NaN (Inspect's) is read strictly, not refused", async () => {
    const summaries =
      '[{"id":1,"epoch":1,"scores":{"m":{"value":NaN}}},{"epoch":1},7,{"id":"b","epoch":2,"error":"x"}]';
    const file = join(dir, "odd-summaries.eval");
    writeFileSync(file, zipBytes([{ name: "summaries.json", data: Buffer.from(summaries), method: 8 }]));
    const member = readDirectory(file).members[0]!;
    const { records, findings } = await readSummaryRecords(file, member);
    expect(records!.map((r) => [r.id, r.epoch, r.error])).toEqual([
      ["1", 1, null],
      ["b", 2, "error"],
    ]);
    expect(Number.isNaN(records![0]!.scores["m"])).toBe(true);
    expect(findings.map((f) => [f.code, f.file])).toEqual([
      ["SCHEMA", "summaries.json[1]"],
      ["SCHEMA", "summaries.json[2]"],
    ]);
    writeFileSync(file, zipBytes([{ name: "summaries.json", data: Buffer.from('{"id":1}'), method: 8 }]));
    const notList = await readSummaryRecords(file, readDirectory(file).members[0]!);
    expect(notList.records).toEqual([]);
    expect(notList.findings.map((f) => f.code)).toEqual(["SCHEMA"]);
  });

  it("a clean log: every claim agrees, nothing to verify (exit 0), as verify finds it valid", async () => {
    const file = log("clean");
    const { code, report, text } = await triage(file);
    expect(code).toBe(0);
    const t = report.triaged[0]!;
    expect(t.claims.length).toBeGreaterThan(0);
    expect(t.claims.every((c) => c.check === "agrees")).toBe(true);
    expect(t.verify).toEqual([]);
    expect(report.verify).toEqual([]);
    expect(text).toContain("Triage found nothing in the 1 log or container it checked");
    expect((await run(["verify", file])).code).toBe(0);
  });

  it.each([
    ["metric-inflated", "METRIC_MISMATCH"],
    ["summary-edited", "METRIC_MISMATCH"],
  ] as const)("catches %s: the claim mismatches, the log is named for a full verify (exit 1)", async (c, code) => {
    const file = log(c);
    const t = await triage(file);
    expect(t.code).toBe(1);
    const r = t.report.triaged[0]!;
    expect(r.claims.some((x) => x.check === "mismatch")).toBe(true);
    expect(r.findings.map((f) => f.code)).toContain(code);
    expect(t.report.verify).toEqual([file]);
    expect(t.text).toContain(`assay verify ${file}`);
    expect((await run(["verify", file])).code).toBe(1); // and the full verify agrees: invalid
  });

  it.each([
    ["corrupt-member", "EVAL_CORRUPT", "the sample members' bytes"],
    ["limits-and-edits", "SCORE_EDITED", "edited or invalidated scores"],
  ] as const)(
    "cannot catch %s (only the samples hold it): says so, and a full verify finds %s",
    async (c, code, unchecked) => {
      const file = log(c);
      const t = await triage(file);
      expect(t.code).toBe(0);
      expect(t.report.triaged[0]!.unchecked.some((u) => u.startsWith(unchecked))).toBe(true);
      expect(t.text).toContain("What triage cannot check");
      const full = await run(["verify", file, "--json"]);
      const entry = JSON.parse(full.stdout) as { errors: { code: string }[]; flags: { code: string }[] };
      expect([...entry.errors, ...entry.flags].map((f) => f.code)).toContain(code);
    },
  );

  it("a root holding nothing assay reads is a usage error (exit 2), said once", async () => {
    const { mkdirSync } = await import("node:fs");
    const empty = join(dir, "empty");
    mkdirSync(empty, { recursive: true });
    const r = await run(["triage", empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`assay triage: nothing under ${empty} is an Inspect log or anything else assay reads\n`);
  });

  it("--bundle-timeout takes seconds above 0 and at most a day: anything else is a usage error (exit 2) before a log is read", async () => {
    const empty = join(dir, "empty-timeout");
    mkdirSync(empty, { recursive: true });
    for (const bad of ["0", "-1", "abc", "86401"]) {
      const r = await run(["triage", empty, `--bundle-timeout=${bad}`]);
      expect([bad, r.code, r.stderr]).toEqual([
        bad,
        2,
        "assay triage: --bundle-timeout takes a number of seconds above 0 and at most 86400 (a day)\n",
      ]);
    }
    // within: the root is read (and found empty)
    expect((await run(["triage", empty, "--bundle-timeout", "86400"])).stderr).toContain("nothing under");
  });

  it("an unfinished log (killed: no header.json, no summaries) is named for a full verify", async () => {
    const file = log("killed");
    const t = await triage(file);
    expect(t.code).toBe(1);
    expect(t.report.triaged[0]!.verify.join("; ")).toContain("its status is started");
  });

  it("a Harbor job's claims are checked against its trials; loose bundles are named for a full verify", async () => {
    const root = join(dir, "mixed");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(root, { recursive: true });
    writeFileSync(
      join(root, "a.eval"),
      inspectLogBytes({
        task: "t",
        model: "m/x",
        case: "clean",
        samples: 5,
        epochs: 1,
        format: "eval",
        method: 8,
        seed: "s",
        offset: 1,
      }),
    );
    const demo = await run(["demo", "--out", join(dir, "demo")]);
    expect(demo.code).toBe(0);
    // A Harbor job's claims are its result.json: recounted from its trials as score does, the
    // demo's job (whose summary does not follow from its trials) named with its reason.
    const jobs = await run(["triage", join(dir, "demo", "jobs"), "--json"]);
    const job = (JSON.parse(jobs.stdout) as Report & { triaged: { from: string; whole: boolean }[] }).triaged;
    expect(job).toHaveLength(1);
    expect(job[0]!.from).toBe("members");
    expect(job[0]!.claims.some((c) => c.check === "mismatch")).toBe(true);
    expect(job[0]!.verify.join("; ")).toContain("JOB_CLAIM_MISMATCH");
    expect(jobs.code).toBe(1);
    const t = await run(["triage", root, join(dir, "demo", "runs"), "--json"]);
    const report = JSON.parse(t.stdout) as Report & { not_triaged: { path: string; kind: string }[] };
    expect(report.triaged.map((x) => x.path)).toEqual([join(root, "a.eval")]);
    expect(report.not_triaged.length).toBeGreaterThan(0);
    expect(report.not_triaged.every((x) => x.kind !== "inspect")).toBe(true);
    expect(report.verify).toEqual(report.not_triaged.map((x) => x.path));
    expect(t.code).toBe(1);
  });

  // review40 #6: triage decoded what score refuses (a small .eval declaring a huge header.json).
  it("a log past score's decode limit is decoded by neither: FILE_TOO_LARGE, named for a full verify (exit 1)", async () => {
    const base = log("clean", 4);
    const pad = (n: number) => (m: string, t: string) => (m === "header.json" ? t + " ".repeat(n) : t);
    const big = rewritten(base, "padded-27MB.eval", pad(27_000_000));
    const t = await triage(big);
    expect(t.code).toBe(1);
    const r = t.report.triaged[0]!;
    expect(r.findings.map((f) => f.code)).toEqual(["FILE_TOO_LARGE"]);
    expect(r.read.members).toEqual([]);
    expect(r.verify.join("; ")).toContain("FILE_TOO_LARGE");
    expect(t.report.verify).toEqual([big]);
    expect((await run(["verify", big])).code).toBe(1);
    // Within the limit (1 MB of padding in a log of a few KB: under the 16 MiB spare), it is read as before.
    const small = rewritten(base, "padded-1MB.eval", pad(1_000_000));
    const ok = await triage(small);
    expect(ok.code).toBe(0);
    expect(ok.report.triaged[0]!.read.members).toContain("header.json");
    expect((await run(["verify", small])).code).toBe(0);
  });

  // review40 #7: the figure shown beside a verdict is the one the verdict came from (Inspect's rules).
  it("shows the figure each check comes from: the claim where Inspect's rules agree, their figure where not", async () => {
    // Sample 2's summary and reduction renamed 7: Inspect's rules over the summaries present still
    // give the claim; assay's own figure over the plan (0.6667) did not, and was shown beside "agrees".
    const renamed = rewritten(log("clean", 4), "renamed-7.eval", (m, t) =>
      m === "summaries.json" || m.startsWith("_journal/summaries/") || m === "reductions.json"
        ? t.replace('{"id":2,', '{"id":7,').replace('"sample_id":2}', '"sample_id":7}')
        : t,
    );
    const a = await triage(renamed);
    const agrees = a.report.triaged[0]!.claims.filter((c) => c.check === "agrees");
    expect(agrees.length).toBeGreaterThan(0);
    for (const c of agrees) expect(c.recount).toBe(c.claimed);
    expect(a.text).not.toMatch(/claimed (\S+), Inspect's rules over the summaries give (?!\1:)\S+: agrees/);
    const m = await triage(log("metric-inflated"));
    const mismatch = m.report.triaged[0]!.claims.filter((c) => c.check === "mismatch");
    expect(mismatch.length).toBeGreaterThan(0);
    for (const c of mismatch) {
      expect(c.recount).not.toBe(c.claimed);
      expect(c.recount).not.toBe("none");
    }
  });

  // review40 #8: the directory names each sample; summaries standing for other samples are caught.
  it("summaries naming samples the directory does not hold: named for a full verify, as verify fails it", async () => {
    // Sample 2 is 5 in everything but its member (the plan, the summaries, the reductions): the
    // counts and the claims all agree, only the directory's names tell.
    const renamed = rewritten(log("clean", 4), "renamed-5.eval", (m, t) =>
      m.startsWith("samples/")
        ? t
        : t
            .replace('{"id":2,', '{"id":5,')
            .replace('"sample_id":2}', '"sample_id":5}')
            .replace('"sample_ids":[1,2,3,4]', '"sample_ids":[1,5,3,4]'),
    );
    const t = await triage(renamed);
    expect(t.code).toBe(1);
    expect(t.report.triaged[0]!.verify.join("; ")).toContain(
      "the directory and the summaries name different samples: 1 sample member(s) without a summary, 1 summary(ies) without a sample member",
    );
    expect((await run(["verify", renamed])).code).toBe(1);
    // The same log unedited: names match, nothing to verify, and the closing line claims no more than it read.
    const clean = await triage(log("clean", 4));
    expect(clean.code).toBe(0);
    expect(clean.report.triaged[0]!.verify).toEqual([]);
    expect(clean.text).toContain("A log's samples were not read");
    expect(clean.text).not.toContain("no full verify is needed");
  });

  // review40 #9: a log gone or unreadable between discovery and its triage is named, not an internal error.
  it("a log that disappears after discovery is named for a full verify, not thrown out of the command", async () => {
    const root = join(dir, "vanishing");
    mkdirSync(root, { recursive: true });
    const a = join(root, "a.eval");
    writeFileSync(a, readFileSync(log("clean", 4)));
    const found = [...discover([root])];
    expect(found.map((f) => f.dir)).toEqual([a]);
    const triage = kindNamed("inspect").triage!;
    // Still there: triaged as any log.
    expect((await triedOn(found[0]!, triage)).verify).toEqual([]);
    unlinkSync(a);
    const gone = await triedOn(found[0]!, triage);
    expect(gone.verify).toHaveLength(1);
    expect(gone.verify[0]).toMatch(/^could not be read \(ENOENT: /);
    // assay's own errors are not taken for the file's: they still end the command.
    await expect(
      triedOn(found[0]!, () => {
        throw new TypeError("a bug");
      }),
    ).rejects.toThrow("a bug");
  });
});
