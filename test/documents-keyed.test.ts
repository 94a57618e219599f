// Keyed results documents (issue 21, item 7; contract §8 "keyed documents"): a document scored
// with --hmac-key-file carries a MAC under that key over its run (but started_at), its entries and
// its experiments, as written; merge, compare and narrate given the key refuse, in one line naming
// the document, one whose MAC fails or is absent — a key fingerprint alone proves nothing, since
// every document shows it. The MAC is computed here from the documented bytes, independently of
// src/. Untouched keyed documents are accepted and a keyed merge still equals one keyed run, byte
// for byte apart from `run`.

import { createHash, createHmac } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const KEY = Buffer.from("documents-keyed test key \u00e9\u0001", "utf8");
const OTHER = Buffer.from("another key entirely", "utf8");
const { at } = scratch("assay-docs-keyed-");
const root = at("runs");
const keyFile = at("keys/k.bin");
const otherFile = at("keys/other.bin");

const fingerprint = (key: Buffer) => createHmac("sha256", key).update("assay.key-id").digest("hex");
const sha = (b: string) => createHash("sha256").update(b).digest("hex");

/** docs/results.md "Keyed documents", computed from the file's text. */
function expectedMac(key: Buffer, file: string): string {
  const text = readFileSync(file, "utf8");
  let runValue: Record<string, unknown>;
  let bundles: string[];
  let experiments: string[];
  if (file.endsWith(".jsonl")) {
    const lines = text.split("\n").filter((l) => l !== "");
    runValue = JSON.parse(lines[0]!).run;
    bundles = lines.filter((l) => JSON.parse(l).type === "bundle");
    experiments = lines.filter((l) => JSON.parse(l).type === "experiment");
  } else {
    const doc = JSON.parse(text);
    runValue = doc.run;
    // Each element as it stands in the array: JSON.stringify(…, null, 2) indented two levels.
    const element = (x: unknown) => JSON.stringify(x, null, 2).replace(/\n/g, "\n    ");
    bundles = doc.bundles.map(element);
    experiments = doc.experiments.map(element);
    for (const b of [...bundles, ...experiments]) expect(text.includes(b)).toBe(true);
  }
  const { started_at: _s, ...rest } = runValue;
  const list = (items: string[]) => sha(items.map((i) => `${sha(i)}\n`).join(""));
  const message = `assay.results-mac/1\nrun ${sha(JSON.stringify(rest))}\nbundles ${bundles.length} ${list(bundles)}\nexperiments ${experiments.length} ${list(experiments)}\n`;
  return createHmac("sha256", key).update(message).digest("hex");
}

async function ok(argv: string[]) {
  const r = await run(argv);
  if (r.code !== 0) throw new Error(`assay ${argv.join(" ")}: exit ${r.code}: ${r.stderr}`);
  return r;
}
/** A refusal: exit 2, one line on stderr naming the document, nothing on stdout. */
async function refused(argv: string[], file: string, pattern: RegExp) {
  const r = await run(argv);
  expect([r.code, r.stdout], r.stderr).toEqual([2, ""]);
  const lines = r.stderr.split("\n").filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toMatch(pattern);
}
const narrate = (file: string, ...more: string[]) => [
  "narrate",
  file,
  "--format",
  "json",
  "--offline",
  "--cache",
  at("narrate.sqlite"),
  ...more,
];
const edit = (from: string, to: string, change: (doc: any) => void): string => {
  const doc = JSON.parse(readFileSync(from, "utf8"));
  change(doc);
  writeFileSync(to, JSON.stringify(doc, null, 2) + "\n");
  return to;
};
const editLines = (from: string, to: string, change: (line: any) => void): string => {
  const lines = readFileSync(from, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  for (const l of lines) change(l);
  writeFileSync(to, lines.map((l) => JSON.stringify(l) + "\n").join(""));
  return to;
};
const K = ["--hmac-key-file", keyFile];

beforeAll(async () => {
  await ok(["synth", "--out", root, "--n", "14", "--seed", "keyed", "--faults"]);
  mkdirSync(at("keys"));
  writeFileSync(keyFile, KEY, { mode: 0o600 });
  writeFileSync(otherFile, OTHER, { mode: 0o600 });
  // Sealed, so that scoring with the key finds valid bundles (an unsealed one is SEAL under a key).
  expect((await run(["seal", root, ...K, "--quiet"])).code).toBe(0); // every bundle, invalid and unterminated ones too (§8 revision 2)
  await ok(["score", root, "--format", "json", "--out", at("whole.json"), "--quiet", ...K]);
  await ok(["score", root, "--format", "jsonl", "--out", at("whole.jsonl"), "--quiet", ...K]);
  await ok(["score", root, "--format", "json", "--out", at("plain.json"), "--quiet"]);
  for (const i of [0, 1]) {
    await ok(["score", root, "--shard", `${i}/2`, "--format", "json", "--out", at(`s${i}.json`), "--quiet", ...K]);
    await ok(["score", root, "--shard", `${i}/2`, "--format", "jsonl", "--out", at(`s${i}.jsonl`), "--quiet", ...K]);
  }
});

describe("a document scored with a key carries its MAC", () => {
  it("JSON and JSON Lines, whole and shards: the MAC the documented bytes give under the key, last in the document", () => {
    for (const f of ["whole.json", "whole.jsonl", "s0.json", "s1.jsonl"]) {
      const text = readFileSync(at(f), "utf8");
      const mac = f.endsWith(".jsonl") ? JSON.parse(text.trimEnd().split("\n").at(-1)!) : JSON.parse(text).mac;
      expect(mac, f).toEqual({
        ...(f.endsWith(".jsonl") ? { type: "mac" } : {}),
        alg: "HMAC-SHA256",
        value: expectedMac(KEY, at(f)),
      });
      if (!f.endsWith(".jsonl"))
        expect(text.endsWith(`,\n  "mac": {\n    "alg": "HMAC-SHA256",\n    "value": "${mac.value}"\n  }\n}\n`)).toBe(
          true,
        );
    }
    expect(readFileSync(at("plain.json"), "utf8")).not.toContain('"mac"'); // without a key: as before
  });

  it("merge with the key accepts untouched keyed shards and writes a keyed document: byte-identical to one keyed run apart from run, MAC included", async () => {
    for (const ext of ["json", "jsonl"]) {
      const out = at(`merged.${ext}`);
      await ok(["merge", at(`s0.${ext}`), at(`s1.${ext}`), "--format", ext, "--out", out, ...K]);
      const strip = (f: string) => {
        const text = readFileSync(f, "utf8");
        return ext === "json"
          ? JSON.stringify({ ...JSON.parse(text), run: null }, null, 2)
          : text.split("\n").slice(1).join("\n");
      };
      expect(strip(out), ext).toBe(strip(at(`whole.${ext}`)));
      const text = readFileSync(out, "utf8");
      expect(text).toContain(expectedMac(KEY, out));
      // The merge is itself a keyed document: compare and narrate accept it with the key.
      await ok(["compare", at(`whole.${ext}`), out, "--format", "json", ...K]);
    }
    const n = await run(narrate(at("merged.json"), ...K));
    expect([n.code, n.stderr]).toEqual([3, expect.stringContaining("no prose")]); // read; offline, so no prose
  });

  it("forged victories in a keyed shard or document (consistent figures, the fingerprint left alone): refused by merge, compare and narrate with the key", async () => {
    // Every valid native entry that lost now wins, in each shard; the experiment's figures likewise in a whole document.
    let flipped = 0;
    const forged = [0, 1].map((i) =>
      edit(at(`s${i}.json`), at(`forged-s${i}.json`), (d) => {
        for (const e of d.bundles)
          if (e.validity === "valid" && e.victory === false && flipped < 5) ((e.victory = true), flipped++);
      }),
    );
    expect(flipped).toBeGreaterThan(0);
    const honest = JSON.parse((await ok(["merge", at("s0.json"), at("s1.json"), "--format", "json"])).stdout)
      .experiments[0].accuracy;
    const without = await ok(["merge", ...forged, "--format", "json"]);
    expect(JSON.parse(without.stdout).experiments[0].accuracy.victories).toBeGreaterThan(honest.victories); // without the key a document is trusted as given
    await refused(["merge", ...forged, "--format", "json", ...K], "forged-s", /fails its MAC/);
    const whole = edit(at("whole.json"), at("forged-whole.json"), (d) => {
      const a = d.experiments[0].accuracy;
      a.victories = a.scored - 1;
      a.value = a.victories / a.scored;
      a.interval = { ...a.interval, lo: 0, hi: 1 }; // consistent with its value: only the MAC can tell
    });
    await refused(["compare", at("whole.json"), whole, ...K], whole, /fails its MAC/);
    await refused(["compare", whole, at("whole.json"), ...K], whole, /fails its MAC/);
    await refused(narrate(whole, ...K), whole, /fails its MAC/);
    const lines = editLines(at("whole.jsonl"), at("forged-whole.jsonl"), (l) => {
      if (l.type === "bundle" && l.validity === "valid" && l.victory === false) l.victory = true;
    });
    await refused(["compare", at("whole.json"), lines, ...K], lines, /fails its MAC/);
    await refused(
      [
        "merge",
        at("s0.jsonl"),
        editLines(
          at("s1.jsonl"),
          at("forged-s1.jsonl"),
          (l) => void (l.type === "bundle" && (l.victory = true) && (l.validity = "valid") && (l.errors = [])),
        ),
        ...K,
      ],
      "forged-s1.jsonl",
      /fails its MAC/,
    );
  });

  it("a keyed document without its MAC: refused with the key, read as before without one", async () => {
    const bare = edit(at("whole.json"), at("bare.json"), (d) => void delete d.mac);
    await refused(["compare", at("whole.json"), bare, ...K], bare, /carries no MAC/);
    await refused(narrate(bare, ...K), bare, /carries no MAC/);
    const bareShard = edit(at("s1.json"), at("bare-s1.json"), (d) => void delete d.mac);
    await refused(["merge", at("s0.json"), bareShard, "--format", "json", ...K], bareShard, /carries no MAC/);
    const bareLines = at("bare.jsonl");
    writeFileSync(bareLines, readFileSync(at("whole.jsonl"), "utf8").replace(/\{"type":"mac"[^\n]*\n$/, ""));
    await refused(["compare", bareLines, at("whole.json"), ...K], bareLines, /carries no MAC/);
    expect((await run(["compare", at("whole.json"), bare, "--format", "json"])).code).toBe(0);
    expect((await run(["merge", at("s0.json"), bareShard, "--format", "json"])).code).toBe(0);
  });

  it("the wrong key: a document scored with one key whose fingerprint was edited to name another is refused under that other key", async () => {
    const renamed = edit(
      at("whole.json"),
      at("renamed.json"),
      (d) => void (d.run.options.hmac_key = fingerprint(OTHER)),
    );
    const both = edit(
      at("whole.json"),
      at("renamed-base.json"),
      (d) => void (d.run.options.hmac_key = fingerprint(OTHER)),
    );
    await refused(["compare", both, renamed, "--hmac-key-file", otherFile], "renamed-base.json", /fails its MAC/);
    await refused(narrate(renamed, "--hmac-key-file", otherFile), renamed, /fails its MAC/);
    const shards = [0, 1].map((i) =>
      edit(at(`s${i}.json`), at(`renamed-s${i}.json`), (d) => void (d.run.options.hmac_key = fingerprint(OTHER))),
    );
    await refused(["merge", ...shards, "--format", "json", "--hmac-key-file", otherFile], shards[0]!, /fails its MAC/);
    // Unedited, another key is named by its fingerprint, as before.
    await refused(
      ["compare", at("whole.json"), at("whole.json"), "--hmac-key-file", otherFile],
      at("whole.json"),
      /scored with another key/,
    );
  });

  it("the key appears in no output: documents, merges, comparisons, narratives, messages", async () => {
    const outputs = [
      await run(["merge", at("s0.json"), at("s1.json"), "--format", "json", ...K]),
      await run(["merge", at("s0.jsonl"), at("s1.jsonl"), "--format", "jsonl", ...K]),
      await run(["compare", at("whole.json"), at("whole.jsonl"), "--format", "json", ...K]),
      await run(narrate(at("whole.json"), ...K)),
      await run(["compare", at("whole.json"), at("bare.json"), ...K]),
    ];
    expect(outputs.map((r) => r.code)).toEqual([0, 0, 0, 3, 2]); // the last: no MAC, refused
    const texts = [
      ...outputs.flatMap((r) => [r.stdout, r.stderr]),
      ...["whole.json", "whole.jsonl", "s0.json", "s1.jsonl"].map((f) => readFileSync(at(f), "utf8")),
    ];
    for (const secret of [KEY.toString("utf8"), KEY.toString("hex"), KEY.toString("base64"), keyFile])
      for (const t of texts) expect(t.includes(secret)).toBe(false);
  });
});
