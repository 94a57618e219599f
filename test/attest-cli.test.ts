// `assay attest` through the CLI (contract §15): keygen's files and keyid, an envelope that both
// `attest verify` and an independent verifier accept, the refusals, the demo corpus and real
// archives attested and recounted, and each §15.6 code produced by the edit it guards (every
// other check on the same statement passing, so no code shows beside an edit that is not its own).

import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { AttestCode } from "../src/core/attest/codes.js";
import { decodeEnvelope, envelope, IN_TOTO_PAYLOAD_TYPE, signEnvelope } from "../src/core/attest/dsse.js";
import { privateKeyFrom } from "../src/core/attest/keys.js";
import type { Statement } from "../src/core/attest/statement.js";
import { run, spawnCli } from "./helpers/cli.js";
import { HAVE_SSLIB, PYTHON, VERIFIER } from "./helpers/attest.js";
import { REQUIRE_SHARED, runsWithShared, scratch, SHARED_DIR } from "./helpers/shared.js";

const sc = scratch("attest-cli-");
const REAL = join(SHARED_DIR, "real-world");
const HAVE_OPENSSL = spawnSync("openssl", ["version"]).status === 0;

interface Keys {
  key: string;
  pub: string;
  keyid: string;
}
async function keygen(name: string): Promise<Keys> {
  const out = join(sc.dir, name);
  const r = await run(["attest", "keygen", "--out", out]);
  expect(r.code, r.stderr).toBe(0);
  return { key: `${out}.key`, pub: `${out}.pub`, keyid: r.stdout.trim() };
}
async function ok(argv: string[]): Promise<void> {
  const r = await run(argv);
  expect(r.code, `${argv.join(" ")}: ${r.stderr}`).toBe(0);
}
/** `attest verify … --format json`: its exit code, failures and their codes (each once, sorted). */
async function verify(args: string[]) {
  const r = await run(["attest", "verify", ...args, "--format", "json"]);
  if (r.code > 1) throw new Error(`attest verify: exit ${r.code}: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as {
    format: string;
    verified: boolean;
    failures: { code: AttestCode; where: string; detail: string }[];
  };
  return { ...out, code: r.code, codes: [...new Set(out.failures.map((f) => f.code))].sort() };
}
/** The statement in an envelope file's first line. */
function statementIn(file: string): Statement {
  const d = decodeEnvelope(readFileSync(file, "utf8").split("\n")[0]!);
  if (!d.ok) throw new Error(d.reason);
  return JSON.parse(d.envelope.payload.toString("utf8")) as Statement;
}
/** An edited statement signed again with `keys`' private key: as a signer who lies would make it. */
function resign(from: string, keys: Keys, name: string, change: (s: Statement) => void): string {
  const s = statementIn(from);
  change(s);
  const file = sc.at(name);
  const text = signEnvelope(Buffer.from(JSON.stringify(s)), IN_TOTO_PAYLOAD_TYPE, [
    privateKeyFrom(readFileSync(keys.key, "utf8")),
  ]);
  writeFileSync(file, text);
  return file;
}
/** A copy of `from` in a fresh scratch folder (the archive edited there, never in ../shared). */
function copyOf(from: string, name: string): string {
  const to = join(sc.fresh(name), name);
  cpSync(from, to, { recursive: true });
  return to;
}

/** A Harbor trial of the demo corpus (its reward file is edited, the folder removed or copied). */
const HARBOR_TRIAL = "jobs/2025-11-03__10-00-00/task-0__2b4f676e";
const metricOf = (s: Statement) => s.predicate.experiments.flatMap((e) => e.metrics).find((m) => m.value !== null)!;
const claimOf = (s: Statement) => s.predicate.experiments.flatMap((e) => e.claims).find((c) => c.verdict === "agrees")!;

let signer: Keys;
let other: Keys;
beforeAll(async () => {
  signer = await keygen("signer");
  other = await keygen("other");
});

describe("attest pubkey", () => {
  it("gives a private key's public half: the SPKI PEM keygen wrote, or its 64 hex digits, which verify takes alike", async () => {
    const pem = await run(["attest", "pubkey", "--key", signer.key]);
    expect(pem.code, pem.stderr).toBe(0);
    expect(pem.stdout).toBe(readFileSync(signer.pub, "utf8"));
    expect(pem.stderr).toContain(`keyid ${signer.keyid}`);
    const hex = await run(["attest", "pubkey", "--key", signer.key, "--hex"]);
    expect(hex.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    const hexFile = join(sc.dir, "signer.hex");
    writeFileSync(hexFile, hex.stdout);
    const doc = join(sc.fresh("pubkey"), "r.json");
    await ok(["synth", "--out", join(doc, "..", "runs"), "--n", "2", "--seed", "pub"]);
    await ok(["score", join(doc, "..", "runs"), "-f", "json", "-o", doc, "-q"]);
    await ok(["attest", doc, "--key", signer.key]);
    expect(await verify([`${doc}.intoto.jsonl`, "--key", hexFile])).toMatchObject({ verified: true, code: 0 });
  });
  it("refuses a public key or no --key (exit 2)", async () => {
    expect((await run(["attest", "pubkey", "--key", signer.pub])).code).toBe(2);
    expect((await run(["attest", "pubkey"])).code).toBe(2);
  });
});

describe("attest keygen", () => {
  it("writes NAME.key (0600) and NAME.pub, prints openssl's keyid, and never replaces them", async () => {
    const k = await keygen("kg");
    expect(statSync(k.key).mode & 0o777).toBe(0o600);
    expect(readFileSync(k.key, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(readFileSync(k.pub, "utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(k.keyid).toMatch(/^[0-9a-f]{64}$/);
    if (HAVE_OPENSSL) {
      const der = execFileSync("openssl", ["pkey", "-pubin", "-in", k.pub, "-outform", "DER"]);
      expect(execFileSync("sha256sum", { input: der }).toString().split(" ")[0]).toBe(k.keyid);
    }
    const before = [readFileSync(k.key), readFileSync(k.pub)];
    const again = spawnCli(["attest", "keygen", "--out", sc.at("kg")]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/kg\.key exists: attest keygen never replaces a key/);
    expect([readFileSync(k.key), readFileSync(k.pub)]).toEqual(before);
    // A NAME.pub alone in the way refuses too, and leaves no NAME.key beside it that it does not match.
    const pubOnly = sc.at("pub-only");
    writeFileSync(`${pubOnly}.pub`, readFileSync(k.pub));
    expect(spawnCli(["attest", "keygen", "--out", pubOnly]).code).toBe(2);
    expect(existsSync(`${pubOnly}.key`)).toBe(false);
    expect(readFileSync(`${pubOnly}.pub`)).toEqual(readFileSync(k.pub));
  });
});

// The demo corpus (every kind) scored to one document and attested once; the edits below start from it.
describe("the demo corpus", () => {
  let dir = "";
  let corpus = "";
  let roots: string[] = [];
  let doc = "";
  let env = "";
  beforeAll(async () => {
    dir = sc.fresh("demo");
    corpus = join(dir, "demo");
    await ok(["demo", "--out", corpus]);
    roots = ["runs", "worlds", "jobs", "logs", "swe"].map((f) => join(corpus, f));
    doc = join(dir, "demo.json");
    await ok(["score", ...roots, "--format", "json", "--out", doc, "--quiet"]);
    await ok(["attest", doc, "--key", signer.key]);
    env = `${doc}.intoto.jsonl`;
  });

  it("is attested, and verifies by its signature, with --results, and recounted from ROOT…", async () => {
    const s = statementIn(env);
    expect([...new Set(s.predicate.experiments.map((e) => e.profile))].sort()).toEqual([
      "harbor",
      "inspect",
      "native-game",
      "swe-bench",
      "world",
    ]);
    // Fractional figures in the signed payload (the strict parser boxes them; they must read as numbers).
    expect(s.predicate.experiments.some((e) => e.metrics.some((m) => !Number.isInteger(m.value ?? 0)))).toBe(true);
    for (const args of [[], ["--results", doc], roots, ["--results", doc, ...roots]]) {
      const v = await verify([env, "--key", signer.pub, ...args]);
      expect(v.failures, args.join(" ")).toEqual([]);
      expect(v).toMatchObject({ format: "assay.attest-verify/1", verified: true, code: 0 });
    }
    const lines = await run(["attest", "verify", env, "--key", signer.pub, "--results", doc, ...roots]);
    expect(lines).toMatchObject({ code: 0, stdout: "verified\n" });
  });

  it("--unsigned writes the Statement alone; two --key sign twice, and --threshold 2 needs both", async () => {
    await ok(["attest", doc, "--unsigned"]);
    const alone = JSON.parse(readFileSync(`${doc}.intoto.json`, "utf8")) as Statement;
    expect(alone).toMatchObject({
      _type: "https://in-toto.io/Statement/v1",
      predicate: { assuranceLevel: "reproduced" },
    });
    expect(alone.predicate.evidence).toEqual(statementIn(env).predicate.evidence);

    const both = sc.at("both.intoto.jsonl");
    await ok(["attest", doc, "--key", signer.key, "--key", other.key, "--out", both]);
    const d = decodeEnvelope(readFileSync(both, "utf8").trim());
    if (!d.ok) throw new Error(d.reason);
    expect(d.envelope.signatures.map((x) => x.keyid)).toEqual([signer.keyid, other.keyid]);
    const two = await verify([both, "--key", signer.pub, "--key", other.pub, "--threshold", "2", "--results", doc]);
    expect(two).toMatchObject({ verified: true, code: 0, failures: [] });
    // One of them signed this one: two keys given, one verifies, two needed.
    const third = await keygen("third");
    const one = await verify([env, "--key", signer.pub, "--key", third.pub, "--threshold", "2"]);
    expect(one).toMatchObject({ verified: false, code: 1, codes: ["SIGNATURE_INVALID"] });
    expect((await verify([env, "--key", signer.pub, "--key", third.pub])).verified).toBe(true);
    const fewer = await run(["attest", "verify", both, "--key", signer.pub, "--threshold", "2"]);
    expect(fewer.code).toBe(2);
  });

  it("refuses (exit 2) a shard, an incomplete run, an --out onto RESULTS, and a file with no in-toto envelope", async () => {
    const shard = join(dir, "shard.json");
    await ok(["score", ...roots, "--shard", "0/2", "--format", "json", "--out", shard, "--quiet"]);
    const incomplete = join(dir, "incomplete.json");
    const d = JSON.parse(readFileSync(doc, "utf8")) as { run: { complete: boolean } };
    d.run.complete = false;
    writeFileSync(incomplete, JSON.stringify(d));
    for (const [argv, why] of [
      [[shard, "--key", signer.key], /is shard 0\/2 of a run/],
      [[incomplete, "--key", signer.key], /is an incomplete run/],
      [[doc, "--key", signer.key, "--out", doc], /will not write .*demo\.json/],
    ] as const) {
      const r = spawnCli(["attest", ...argv]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(why);
    }
    expect(existsSync(`${shard}.intoto.jsonl`) || existsSync(`${incomplete}.intoto.jsonl`)).toBe(false);
    // The document and an envelope of another type hold no in-toto envelope: nothing to verify.
    const foreign = sc.at("foreign.jsonl");
    writeFileSync(
      foreign,
      signEnvelope(Buffer.from("{}"), "application/vnd.example+json", [
        privateKeyFrom(readFileSync(signer.key, "utf8")),
      ]),
    );
    for (const file of [doc, foreign]) {
      const r = spawnCli(["attest", "verify", file, "--key", signer.pub]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/holds no DSSE envelope of type application\/vnd\.in-toto\+json/);
    }
  });

  // Each re-signed edit is checked against the document (--results), where every other check passes.
  it("each edit of a re-signed statement shows as its own code, and only that code", async () => {
    const edits: [string, (s: Statement) => void, AttestCode[]][] = [
      ["scoring version", (s) => void (s.predicate.harness.scoringVersion += 1), ["SCORING_VERSION"]],
      ["experiment renamed", (s) => void (s.predicate.experiments[0]!.experiment = "renamed"), ["EXPERIMENT_MISMATCH"]],
      ["a count", (s) => void (s.predicate.experiments[0]!.counts.valid += 1), ["COUNT_MISMATCH"]],
      ["a figure", (s) => void (metricOf(s).value! += 0.25), ["FIGURE_MISMATCH"]],
      ["a claim", (s) => void (claimOf(s).verdict = "differs"), ["CLAIM_MISMATCH"]],
      ["the evidence subject dropped", (s) => void s.subject.splice(1, 1), ["SUBJECT_MISSING"]],
      [
        "assuranceLevel",
        (s) => void ((s.predicate as { assuranceLevel: string }).assuranceLevel = "self-reported"),
        ["STATEMENT_MALFORMED"],
      ],
    ];
    for (const [what, change, codes] of edits) {
      const file = resign(env, signer, `${what.replace(/ /g, "-")}.intoto.jsonl`, change);
      const v = await verify([file, "--key", signer.pub, "--results", doc]);
      expect(v.codes, `${what}: ${JSON.stringify(v.failures)}`).toEqual(codes);
      expect(v).toMatchObject({ verified: false, code: 1 });
    }
    // Another runtime is a warning on recount (at the same scoring version): still verified, exit 0.
    // A document does not say which runtime counted it, so against --results alone there is none.
    const runtime = resign(
      env,
      signer,
      "runtime.intoto.jsonl",
      (s) => void (s.predicate.harness.runtime = "node v0.0.0"),
    );
    const w = await verify([runtime, "--key", signer.pub, "--results", doc, ...roots]);
    expect(w).toMatchObject({ verified: true, code: 0, codes: ["HARNESS_DIFFERS"] });
    expect(w.failures.map((f) => f.where)).toEqual(["harness.runtime"]);
    expect(await verify([runtime, "--key", signer.pub, "--results", doc])).toMatchObject({
      verified: true,
      failures: [],
    });
    // The unedited statement signed again is no edit: nothing to report.
    const same = resign(env, signer, "same.intoto.jsonl", () => {});
    expect(await verify([same, "--key", signer.pub, "--results", doc])).toMatchObject({ verified: true, failures: [] });
  });

  it("SIGNATURE_INVALID: another key, or a payload edited without signing again; DIGEST_MISMATCH: another document", async () => {
    const wrong = await verify([env, "--key", other.pub, "--results", doc]);
    expect(wrong).toMatchObject({ code: 1, codes: ["SIGNATURE_INVALID"] });
    // attestedAt is compared with nothing: the edit shows only as the broken signature.
    const d = decodeEnvelope(readFileSync(env, "utf8").trim());
    if (!d.ok) throw new Error(d.reason);
    const s = statementIn(env);
    s.predicate.attestedAt = "2000-01-01T00:00:00Z";
    const edited = sc.at("unsigned-edit.intoto.jsonl");
    writeFileSync(
      edited,
      envelope(
        Buffer.from(JSON.stringify(s)),
        IN_TOTO_PAYLOAD_TYPE,
        d.envelope.signatures.map((x) => ({ keyid: x.keyid, sig: x.sig })),
      ),
    );
    expect(await verify([edited, "--key", signer.pub, "--results", doc])).toMatchObject({
      code: 1,
      codes: ["SIGNATURE_INVALID"],
    });
    // The same document written with other spacing: every figure the same, its bytes not.
    // Same name, so only the bytes differ.
    const compact = join(sc.fresh("compact"), "demo.json");
    writeFileSync(compact, JSON.stringify(JSON.parse(readFileSync(doc, "utf8"))));
    const v = await verify([env, "--key", signer.pub, "--results", compact]);
    expect(v.codes).toEqual(["DIGEST_MISMATCH"]);
    expect(v.failures).toHaveLength(1);
  });

  it("ENVELOPE_MALFORMED: a payload that is not base64, or not JSON; STATEMENT_MALFORMED: signed JSON that is no statement", async () => {
    const priv = privateKeyFrom(readFileSync(signer.key, "utf8"));
    const notBase64 = sc.at("not-base64.intoto.jsonl");
    writeFileSync(notBase64, `{"payloadType":"${IN_TOTO_PAYLOAD_TYPE}","payload":"not base64!","signatures":[]}\n`);
    expect(await verify([notBase64, "--key", signer.pub])).toMatchObject({ code: 1, codes: ["ENVELOPE_MALFORMED"] });
    const notJson = sc.at("not-json.intoto.jsonl");
    writeFileSync(notJson, signEnvelope(Buffer.from("results: fine"), IN_TOTO_PAYLOAD_TYPE, [priv]));
    expect(await verify([notJson, "--key", signer.pub])).toMatchObject({ code: 1, codes: ["ENVELOPE_MALFORMED"] });
    const notStatement = sc.at("not-statement.intoto.jsonl");
    writeFileSync(notStatement, signEnvelope(Buffer.from('{"results":"fine"}'), IN_TOTO_PAYLOAD_TYPE, [priv]));
    expect(await verify([notStatement, "--key", signer.pub])).toMatchObject({
      code: 1,
      codes: ["STATEMENT_MALFORMED"],
    });
  });

  it("CRITERIA_MISMATCH: another criteria file, or a rule's passed flipped and signed again", async () => {
    const s = statementIn(env);
    const e = s.predicate.experiments.find((x) => x.metrics.some((m) => m.value !== null))!;
    const m = e.metrics.find((x) => x.value !== null)!;
    const crit = join(dir, "criteria.txt");
    writeFileSync(crit, `# bars\n${JSON.stringify(e.experiment)} ${m.name} >= 0\n`);
    const otherCrit = join(dir, "criteria-2.txt");
    writeFileSync(otherCrit, `${JSON.stringify(e.experiment)} ${m.name} >= 0.5\n`);
    const withCrit = join(dir, "crit.intoto.jsonl");
    await ok(["attest", doc, "--key", signer.key, "--criteria", crit, "--out", withCrit]);
    expect(statementIn(withCrit).predicate.criteria?.rules).toMatchObject([
      { metric: m.name, threshold: "0", passed: true },
    ]);
    expect(await verify([withCrit, "--key", signer.pub, "--results", doc, "--criteria", crit])).toMatchObject({
      verified: true,
      failures: [],
    });
    expect(await verify([withCrit, "--key", signer.pub, "--results", doc, "--criteria", otherCrit])).toMatchObject({
      code: 1,
      codes: ["CRITERIA_MISMATCH"],
    });
    expect(await verify([withCrit, "--key", signer.pub, "--criteria", otherCrit])).toMatchObject({
      code: 1,
      codes: ["CRITERIA_MISMATCH"],
    });
    const flipped = resign(
      withCrit,
      signer,
      "flipped.intoto.jsonl",
      (x) => void (x.predicate.criteria!.rules[0]!.passed = false),
    );
    expect(await verify([flipped, "--key", signer.pub, "--results", doc])).toMatchObject({
      code: 1,
      codes: ["CRITERIA_MISMATCH"],
    });
    expect(await verify([flipped, "--key", signer.pub, ...roots])).toMatchObject({
      code: 1,
      codes: ["CRITERIA_MISMATCH"],
    });
  });

  it("a recount of an edited archive: DIGEST_MISMATCH, ENTRY_MISSING and ENTRY_EXTRA, and the figures the edit moves", async () => {
    const copy = () => {
      const c = copyOf(corpus, "demo");
      return { c, roots: roots.map((r) => join(c, r.slice(corpus.length + 1))) };
    };
    // The copy untouched verifies: the evidence root does not depend on where the archive lies.
    const clean = copy();
    expect(await verify([env, "--key", signer.pub, "--results", doc, ...clean.roots])).toMatchObject({
      verified: true,
      failures: [],
    });

    // The reward file's bytes changed, not its number ("1\n" to "1"): the digests alone show it.
    const respaced = copy();
    const reward = join(respaced.c, HARBOR_TRIAL, "verifier/reward.txt");
    expect(readFileSync(reward, "utf8")).toBe("1\n");
    writeFileSync(reward, "1");
    const v = await verify([env, "--key", signer.pub, "--results", doc, ...respaced.roots]);
    expect(v.codes).toEqual(["DIGEST_MISMATCH", "ENTRY_EXTRA", "ENTRY_MISSING"]);
    const trial = HARBOR_TRIAL.split("/").at(-1)!;
    for (const code of ["ENTRY_MISSING", "ENTRY_EXTRA"])
      expect(v.failures.filter((f) => f.code === code).map((f) => f.where)).toEqual([
        expect.stringMatching(new RegExp(`/${trial}$`)),
      ]);
    expect(v.failures.filter((f) => f.code === "DIGEST_MISMATCH").map((f) => f.where)).toEqual([
      "subject.assayEvidenceMerkle1",
      "evidence.merkleRoot",
      'experiments["2025-11-03__10-00-00"].evidence.merkleRoot',
    ]);
    // Without --results there are no entries to name: the roots show it.
    expect((await verify([env, "--key", signer.pub, ...respaced.roots])).codes).toEqual(["DIGEST_MISMATCH"]);

    // The reward itself edited (1 to 0): the recount's figures and the job's claim move too.
    const edited = copy();
    writeFileSync(join(edited.c, HARBOR_TRIAL, "verifier/reward.txt"), "0\n");
    const e = await verify([env, "--key", signer.pub, "--results", doc, ...edited.roots]);
    expect(e.codes).toEqual([
      "CLAIM_MISMATCH",
      "COUNT_MISMATCH",
      "DIGEST_MISMATCH",
      "ENTRY_EXTRA",
      "ENTRY_MISSING",
      "FIGURE_MISMATCH",
    ]);
    expect(e.failures.filter((f) => f.code === "FIGURE_MISMATCH").map((f) => f.where)).toContain(
      'experiments["2025-11-03__10-00-00"].metrics["rewards/reward"].value',
    );

    const removed = copy();
    rmSync(join(removed.c, HARBOR_TRIAL), { recursive: true });
    const r = await verify([env, "--key", signer.pub, "--results", doc, ...removed.roots]);
    expect(r.codes).toEqual([
      "CLAIM_MISMATCH",
      "COUNT_MISMATCH",
      "DIGEST_MISMATCH",
      "ENTRY_MISSING",
      "FIGURE_MISMATCH",
    ]);

    const added = copy();
    cpSync(join(added.c, HARBOR_TRIAL), join(added.c, `${HARBOR_TRIAL}x`), { recursive: true });
    const a = await verify([env, "--key", signer.pub, "--results", doc, ...added.roots]);
    // A byte-identical copy: the same digest twice, so one more entry and leaf (duplicates kept).
    expect(a.codes).toEqual(["COUNT_MISMATCH", "DIGEST_MISMATCH", "ENTRY_EXTRA"]);
  });

  it("OPTIONS_MISMATCH: a recount under a --schedule the statement was not made with, refused before counting", async () => {
    const schedule = join(dir, "schedule.json");
    writeFileSync(
      schedule,
      JSON.stringify({ format: "assay.schedule/1", experiment: "exp", trials: [{ trial: "t", seed: "aa".repeat(8) }] }),
    );
    const v = await verify([env, "--key", signer.pub, ...roots, "--schedule", schedule]);
    expect(v).toMatchObject({ code: 1, codes: ["OPTIONS_MISMATCH"] });
    expect(v.failures.map((f) => f.where)).toEqual(["options.schedules"]);
  });

  it("the envelope verifies under the independent Python verifier (securesystemslib), and not under another key", () => {
    if (!HAVE_SSLIB) {
      if (REQUIRE_SHARED) throw new Error(`CI=true but ${PYTHON} cannot import securesystemslib`);
      return;
    }
    const py = (pub: string) => spawnSync(PYTHON, [VERIFIER, pub, env], { encoding: "utf8", timeout: 60_000 });
    const good = py(signer.pub);
    expect(good.stderr).toBe("");
    expect(JSON.parse(good.stdout)).toMatchObject({ keyid: signer.keyid, verified: true, reason: null });
    expect(good.status).toBe(0);
    const bad = py(other.pub);
    expect(JSON.parse(bad.stdout)).toMatchObject({ verified: false, reason: "signature" });
    expect(bad.status).toBe(1);
  });
});

// "B beats A by ≥ 0.05, paired": two synthesised Harbor jobs over the same tasks (12 and 15 trials:
// job-c is ahead by 0.089 on the pairs, its paired-t interval −0.12 to 0.30), one rule each side of
// the bar; the figure is compare's own, verify recomputes it from --results and from a recount.
describe("paired criteria (HEAD - BASE METRIC …)", () => {
  let dir = "";
  let roots: string[] = [];
  let doc = "";
  let crit = "";
  let env = "";
  beforeAll(async () => {
    dir = sc.fresh("paired");
    for (const [name, n] of [
      ["job-a", "12"],
      ["job-c", "15"],
    ] as const) {
      await ok(["synth", "--profile", "harbor", "--n", n, "--seed", name, "--out", join(dir, name)]);
      roots.push(join(dir, name, name));
      renameSync(join(dir, name, "synth-harbor-job"), join(dir, name, name));
    }
    doc = join(dir, "r.json");
    await ok(["score", ...roots, "--format", "json", "--out", doc, "--quiet"]);
    crit = join(dir, "criteria.txt");
    writeFileSync(
      crit,
      "# job-c beats job-a by 0.05, paired\njob-c - job-a rewards/reward >= 0.05\njob-c - job-a rewards/reward.lo >= 0.05\n",
    );
    const r = await run(["attest", doc, "--key", signer.key, "--criteria", crit]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/criteria: 1 of 2 met/);
    env = `${doc}.intoto.jsonl`;
  });

  it("records HEAD − BASE over the pairs, as assay compare gives it, with what its interval assumes", async () => {
    const [mean, lo] = statementIn(env).predicate.criteria!.rules;
    expect(mean).toMatchObject({ experiment: "job-c", baseline: "job-a", passed: true });
    expect(lo).toMatchObject({ passed: false, observed: mean!.paired!.interval!.lo });
    expect(mean!.observed).toBeGreaterThan(0.05);
    expect(lo!.observed).toBeLessThan(0.05);
    expect(mean!.paired).toMatchObject({ unit: "task", onlyBase: 0, onlyHead: 0, test: "paired-t" });
    expect(mean!.paired!.assumes).toMatch(
      /a task's trials are averaged into its value first\); paired t: the tasks are taken as independent/,
    );
    // compare's paired figure on the same two jobs, each its own document, paired by name.
    const [a, c] = [join(dir, "a.json"), join(dir, "c.json")];
    await ok(["score", roots[0]!, "--format", "json", "--out", a, "--quiet"]);
    await ok(["score", roots[1]!, "--format", "json", "--out", c, "--quiet"]);
    const cmp = await run(["compare", a, c, "--pair", "job-a=job-c", "--format", "json"]);
    const m = (
      JSON.parse(cmp.stdout) as {
        experiments: { metrics: { metric: string; paired: { mean_diff: number; interval: unknown } }[] }[];
      }
    ).experiments[0]!.metrics.find((x) => x.metric === "reward/reward/mean")!;
    expect([m.paired.mean_diff, m.paired.interval]).toEqual([mean!.observed, mean!.paired!.interval]);
  });

  it("refuses (exit 2) a criteria file or a key over 1 MiB, naming it, before reading the document", () => {
    const big = join(dir, "big.txt");
    writeFileSync(big, `${"# padding\n".repeat(110_000)}job-c - job-a rewards/reward >= 0\n`);
    const r = spawnCli(["attest", doc, "--key", signer.key, "--criteria", big, "--out", join(dir, "big.jsonl")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--criteria .*big\.txt: more than 1048576 bytes/);
    expect(existsSync(join(dir, "big.jsonl"))).toBe(false);
    const k = spawnCli(["attest", doc, "--key", big]);
    expect([k.code, /--key .*big\.txt: more than 1048576 bytes/.test(k.stderr)]).toEqual([2, true]);
  });

  it("verifies with --results and --criteria, and from a recount of the two jobs", async () => {
    for (const args of [["--results", doc, "--criteria", crit], roots, ["--results", doc, ...roots]])
      expect(await verify([env, "--key", signer.pub, ...args]), args.join(" ")).toMatchObject({
        verified: true,
        failures: [],
      });
  });

  it("CRITERIA_MISMATCH: a paired figure, a verdict or a BASE edited and signed again, or another criteria file", async () => {
    const edits: [string, (s: Statement) => void, string][] = [
      ["mean", (s) => (s.predicate.criteria!.rules[0]!.paired!.meanDiff = 0.5), "criteria.rules[0].paired"],
      ["pairs", (s) => (s.predicate.criteria!.rules[1]!.paired!.pairs += 1), "criteria.rules[1].paired"],
      ["observed", (s) => (s.predicate.criteria!.rules[1]!.observed = 0.06), "criteria.rules[1].observed"],
      ["base", (s) => (s.predicate.criteria!.rules[0]!.baseline = "job-c"), "criteria.rules[0].observed"],
    ];
    for (const [name, change, where] of edits) {
      const v = await verify([
        resign(env, signer, `paired-${name}.jsonl`, change),
        "--key",
        signer.pub,
        "--results",
        doc,
      ]);
      expect({ name, codes: v.codes, code: v.code }).toEqual({ name, codes: ["CRITERIA_MISMATCH"], code: 1 });
      expect(v.failures.map((f) => f.where)).toContain(where);
    }
    // The same rule with BASE and HEAD swapped is another rule: the file no longer matches the statement.
    const swapped = join(dir, "swapped.txt");
    writeFileSync(swapped, "job-a - job-c rewards/reward >= 0.05\njob-c - job-a rewards/reward.lo >= 0.05\n");
    const v = await verify([env, "--key", signer.pub, "--criteria", swapped]);
    expect(v).toMatchObject({ code: 1, codes: ["CRITERIA_MISMATCH"] });
    // And on recount: a paired figure edited shows there too.
    const r = await verify([resign(env, signer, "paired-recount.jsonl", edits[0]![1]), "--key", signer.pub, ...roots]);
    expect(r.codes).toEqual(["CRITERIA_MISMATCH"]);
  });
});

describe("a keyed document (§8)", () => {
  it("is refused without its key; a recount without the key the statement names is OPTIONS_MISMATCH", async () => {
    const dir = sc.fresh("keyed");
    const root = join(dir, "runs");
    const hmac = join(dir, "hmac.bin");
    writeFileSync(hmac, "attest-cli test key", { mode: 0o600 });
    const K = ["--hmac-key-file", hmac];
    await ok(["synth", "--out", root, "--n", "4", "--seed", "keyed"]);
    await ok(["seal", root, ...K, "--quiet"]);
    const doc = join(dir, "keyed.json");
    await ok(["score", root, "--format", "json", "--out", doc, "--quiet", ...K]);
    const refused = spawnCli(["attest", doc, "--key", signer.key]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/was scored with a key .*give it with --hmac-key-file/);
    expect(existsSync(`${doc}.intoto.jsonl`)).toBe(false);
    await ok(["attest", doc, "--key", signer.key, ...K]);
    const env = `${doc}.intoto.jsonl`;
    expect(statementIn(env).predicate.options.hmac_key).toMatch(/\S/);
    expect(await verify([env, "--key", signer.pub, "--results", doc, root, ...K])).toMatchObject({
      verified: true,
      failures: [],
    });
    const noKey = await verify([env, "--key", signer.pub, root]);
    expect(noKey).toMatchObject({ code: 1, codes: ["OPTIONS_MISMATCH"] });
    expect(noKey.failures.map((f) => f.where)).toEqual(["options.hmac_key"]);
  });
});

// Real archives from ../shared, each copied to a scratch folder, scored, attested and recounted there.
const REAL_ARCHIVES: [string, string, string][] = [
  ["a Harbor job", "harbor", join(REAL, "harbor-jobs/Imdhiraj007--Assignment/jobs/test-oracle")],
  ["an Inspect folder", "inspect", join(REAL, "inspect")],
  [
    "a Terminal-Bench run",
    "terminal-bench",
    join(
      REAL,
      "terminal-bench/David-kibobo--ai-challenges/Tasks/software-development/051552bf_21cb_4d6e_985a_435764d87689_terminal_bench_fifo_medium/model_run_logs/golden_solution_log",
    ),
  ],
];
for (const [what, profile, source] of REAL_ARCHIVES)
  describe.runIf(runsWithShared(source))(`real archives: ${what}`, () => {
    it("is attested and verified by a recount of a copy", async () => {
      if (!existsSync(source)) throw new Error(`CI=true but ${source} is missing`);
      const root = copyOf(source, "archive");
      const doc = join(root, "..", "results.json");
      const scored = await run(["score", root, "--format", "json", "--out", doc, "--quiet"]);
      expect(scored.code, scored.stderr).toBeLessThan(2);
      await ok(["attest", doc, "--key", signer.key]);
      const env = `${doc}.intoto.jsonl`;
      const s = statementIn(env);
      expect(s.predicate.evidence.entries).toBeGreaterThan(0);
      expect(new Set(s.predicate.experiments.map((e) => e.profile))).toEqual(new Set([profile]));
      const v = await verify([env, "--key", signer.pub, "--results", doc, root]);
      expect(v.failures).toEqual([]);
      expect(v).toMatchObject({ verified: true, code: 0 });
    });
  });

// Every archive of ../shared/real-world at once (Harbor jobs, Inspect logs, Terminal-Bench runs): one
// document, its statement checked by the independent verifier and by a recount of a copy.
describe.runIf(runsWithShared(REAL))("real archives: every one in ../shared/real-world, as one document", () => {
  it("is attested, verified by securesystemslib, and verified by a recount", async () => {
    if (!existsSync(REAL)) throw new Error(`CI=true but ${REAL} is missing`);
    const root = copyOf(REAL, "real-world");
    const doc = join(root, "..", "all.json");
    const scored = await run(["score", root, "--format", "json", "--out", doc, "--quiet"]);
    expect(scored.code, scored.stderr).toBeLessThan(2);
    await ok(["attest", doc, "--key", signer.key]);
    const env = `${doc}.intoto.jsonl`;
    const s = statementIn(env);
    expect(new Set(s.predicate.experiments.map((e) => e.profile))).toEqual(
      new Set(["harbor", "inspect", "terminal-bench"]),
    );
    if (HAVE_SSLIB) {
      const py = spawnSync(PYTHON, [VERIFIER, signer.pub, env], { encoding: "utf8", timeout: 60_000 });
      expect(JSON.parse(py.stdout)).toMatchObject({ verified: true, reason: null });
    } else if (REQUIRE_SHARED) throw new Error(`CI=true but ${PYTHON} cannot import securesystemslib`);
    const v = await verify([env, "--key", signer.pub, "--results", doc, root]);
    expect(v.failures).toEqual([]);
    expect(v).toMatchObject({ verified: true, code: 0 });
  }, 120_000);
});
