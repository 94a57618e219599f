// Shards that must belong together (issue 35 §3): every document carries its scan (--scan-id, else
// an id derived from the roots, the options and the bundles found), under its MAC when keyed; merge
// refuses shards of two scans, naming the shard and what differs. The attacks are genuine keyed
// shards: of another corpus scored at the same roots, and an older shard replayed after a bundle
// was tampered with (its entry still valid). Their honest neighbours merge as before.

import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "./helpers/cli.js";
import { ok, refused } from "./helpers/documents.js";
import { scratch } from "./helpers/shared.js";

const { at } = scratch("assay-docs-scans-");
const root = at("runs");
const keyFile = at("keys/k.bin");
const K = ["--hmac-key-file", keyFile];

const read = (f: string) => JSON.parse(readFileSync(f, "utf8"));
const shards = async (tag: string, ...more: string[]) => {
  for (const i of [0, 1])
    await ok([
      "score",
      root,
      "--shard",
      `${i}/2`,
      "--format",
      "json",
      "--out",
      at(`${tag}-${i}.json`),
      "--quiet",
      ...K,
      ...more,
    ]);
  return [at(`${tag}-0.json`), at(`${tag}-1.json`)] as const;
};
const merge = (...files: string[]) => ["merge", ...files, "--format", "json", ...K];
const native = (doc: { experiments: { experiment: string; accuracy: unknown }[] }) =>
  doc.experiments.find((x) => x.experiment === "synth-native")!.accuracy;

beforeAll(async () => {
  mkdirSync(at("keys"));
  writeFileSync(keyFile, Buffer.from("documents-scans test key"), { mode: 0o600 });
});

describe("every document carries its scan", () => {
  it("derived when no --scan-id is given: the same for every shard and for one run over the same bundles; --scan-id as given", async () => {
    await ok(["synth", "--out", root, "--n", "8", "--seed", "scans-a", "--faults"]);
    await ok(["seal", root, ...K, "--quiet"]);
    await ok(["score", root, "--format", "json", "--out", at("whole-a.json"), "--quiet", ...K]);
    const [s0, s1] = await shards("a");
    const scans = [at("whole-a.json"), s0, s1].map((f) => read(f).run.scan);
    expect(scans[0]).toEqual({
      id: expect.stringMatching(/^derived-[0-9a-f]{32}$/),
      given: false,
      found: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(scans[1]).toEqual(scans[0]);
    expect(scans[2]).toEqual(scans[0]);
    const merged = await ok(merge(s0, s1));
    expect(read(at("whole-a.json")).run.scan).toEqual(JSON.parse(merged.stdout).run.scan);
    expect(native(JSON.parse(merged.stdout))).toEqual(native(read(at("whole-a.json"))));
    // A keyed shard without an id of its own is told what a derived one cannot catch; with one, nothing is said.
    const note =
      /a keyed shard without --scan-id: merge refuses shards of other bundles, but not an older shard of these replayed/;
    expect((await ok(["score", root, "--shard", "0/2", "--format", "json", "--quiet", ...K])).stderr).toMatch(note);
    expect(
      (await ok(["score", root, "--shard", "0/2", "--format", "json", "--quiet", ...K, "--scan-id", "s"])).stderr,
    ).toBe("");
    await ok([
      "score",
      root,
      "--format",
      "json",
      "--out",
      at("given.json"),
      "--quiet",
      "--scan-id",
      "nightly-2026-12-07",
    ]);
    expect(read(at("given.json")).run.scan).toEqual({ id: "nightly-2026-12-07", given: true, found: scans[0].found });
  });

  it("--scan-id must be 1 to 128 printable characters without spaces", async () => {
    for (const bad of ["", "two words", "x".repeat(129), "tab\there"]) {
      const r = await run(["score", root, "--scan-id", bad, "--format", "json"]);
      expect([r.code, r.stdout], r.stderr).toEqual([2, ""]);
      expect(r.stderr).toMatch(/--scan-id takes 1 to 128 printable ASCII characters without spaces/);
    }
  });
});

describe("keyed shards of two scans are refused by merge", () => {
  it("a genuine shard of another corpus scored at the same roots (before: merged into a figure of neither corpus)", async () => {
    const [a0, a1] = [at("a-0.json"), at("a-1.json")];
    renameSync(root, at("corpus-a"));
    await ok(["synth", "--out", root, "--n", "12", "--seed", "scans-b", "--faults"]);
    await ok(["seal", root, ...K, "--quiet"]);
    const [b0, b1] = await shards("b");
    const line = await refused(merge(a0, b1), b1, /found other bundles below the roots than/, /another corpus/);
    expect(line).toContain(a0);
    await refused(merge(b0, a1), a1, /found other bundles/);
    // The same corpus given one --scan-id twice over is still two corpora.
    const [c0] = await shards("c", "--scan-id", "reused");
    renameSync(root, at("corpus-b"));
    renameSync(at("corpus-a"), root);
    const [, d1] = await shards("d", "--scan-id", "reused");
    await refused(merge(c0, d1), d1, /found other bundles/);
    // Honest neighbours: each corpus's own shards merge into its own figure.
    expect(native(JSON.parse((await ok(merge(a0, a1))).stdout))).toEqual(native(read(at("whole-a.json"))));
    expect((await ok(merge(b0, b1))).code).toBe(0);
  });

  it("an older shard replayed after a bundle was tampered with (before: the bundle stayed valid through the replay)", async () => {
    const [o0, o1] = await shards("old", "--scan-id", "scan-1");
    // A bundle credited with a victory, tampered with once scan-1 was scored: its seal now fails.
    const entry = [o0, o1]
      .flatMap((f) => read(f).bundles.map((e: { path: string }) => ({ ...e, file: f })))
      .find((e: { victory: boolean | null; validity: string }) => e.victory === true && e.validity === "valid");
    appendFileSync(join(entry.path, "summary.json"), " ");
    const [n0, n1] = await shards("new", "--scan-id", "scan-2");
    const [stale, fresh] = entry.file === o0 ? [o0, n1] : [o1, n0];
    const line = await refused(
      merge(stale, fresh),
      entry.file === o0 ? fresh : stale,
      /is of scan (scan-1|scan-2), \S+ of scan (scan-1|scan-2) \(run\.scan\.id\): shards of two scans/,
    );
    expect(line).toMatch(/scan-1/);
    // Honest neighbour: the shards of scan-2 merge, and the tampered bundle is invalid there.
    const merged = JSON.parse((await ok(merge(n0, n1))).stdout);
    expect(merged.run.scan).toEqual({ id: "scan-2", given: true, found: read(n0).run.scan.found });
    expect(merged.bundles.find((e: { path: string }) => e.path === entry.path).validity).toBe("invalid");
    // The scan is under the MAC: a replayed shard relabelled as scan-2 fails its MAC.
    const relabelled = at("relabelled.json");
    const doc = read(stale);
    doc.run.scan.id = "scan-2";
    writeFileSync(relabelled, JSON.stringify(doc, null, 2) + "\n");
    await refused(merge(relabelled, fresh), relabelled, /fails its MAC/);
  });
});

describe("documents of an older assay (no scan)", () => {
  it("merge refuses one beside a shard that carries a scan; shards that all lack one merge as before (unkeyed)", async () => {
    await ok(["synth", "--out", at("plain"), "--n", "6", "--seed", "scans-plain"]);
    for (const i of [0, 1])
      await ok(["score", at("plain"), "--shard", `${i}/2`, "--format", "json", "--out", at(`p${i}.json`), "--quiet"]);
    const older = (f: string) => {
      const doc = read(f);
      delete doc.run.scan;
      const to = f.replace(/\.json$/, "-older.json");
      writeFileSync(to, JSON.stringify(doc, null, 2) + "\n");
      return to;
    };
    const [q0, q1] = [older(at("p0.json")), older(at("p1.json"))];
    await refused(
      ["merge", at("p0.json"), q1, "--format", "json"],
      q1,
      /carries no scan \(run.scan: written by an older assay\)/,
    );
    const merged = await ok(["merge", q0, q1, "--format", "json"]);
    expect(JSON.parse(merged.stdout).run.scan).toBeUndefined();
  });
});
