// Hostile or odd input found in review: each case once failed (a hang, a crash, a lost loss).
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { computeExperiments } from "../src/kinds/batch.js";
import { MAX_MESSAGE } from "../src/core/codes.js";
import { parseStrictJson } from "../src/core/json/strict.js";
import { discover } from "../src/io/discover.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import {
  bundle,
  chain,
  codes,
  escaped,
  game,
  header,
  killed,
  live,
  score,
  ZERO,
  writeFiles,
} from "./helpers/bundle.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-hostile-");
const put = writeFiles;

describe("cost does not follow a hostile input", () => {
  it(
    "duplicate-key detection stays linear: 200k distinct keys parse, a duplicate among them is found",
    { timeout: 20_000 },
    () => {
      const keys = Array.from({ length: 200_000 }, (_, i) => `"k${i}":${i}`);
      expect(parseStrictJson(`{${keys.join(",")}}`, " ").ok).toBe(true);
      const dup = parseStrictJson(`{${keys.join(",")},"k77":1}`, " ");
      expect(dup).toMatchObject({ ok: false, issue: { code: "JSON_DUPLICATE_KEY" } });
    },
  );

  it("messages quoting evidence are cut: a 900k-character record type yields a short finding", () => {
    const huge = "x".repeat(900_000);
    const e = score({
      "journal.jsonl": chain([
        header(),
        { raw: `{"seq":1,"at":${Date.UTC(2026, 0)},"type":"${huge}","prev":"${ZERO}"}` },
      ]).text,
    });
    expect(e.validity).toBe("invalid");
    for (const f of e.errors) expect(f.message.length).toBeLessThanOrEqual(MAX_MESSAGE + 10);
  });

  it("a record with thousands of unknown keys names a few and counts the rest", () => {
    const extra = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`x${i}`, 1]));
    const recs = game();
    Object.assign(recs[2]!, extra);
    const e = score(bundle(recs));
    const schema = e.errors.find((f) => f.code === "SCHEMA")!;
    expect(schema.message).toMatch(/unknown keys "x0", .* and 4995 more/);
    expect(schema.message.length).toBeLessThan(MAX_MESSAGE);
  });
});

describe("broken evidence never removes a loss", () => {
  const trial = (name: string, seed: string, states = [live(), killed()]) =>
    bundle(game({ trial: name, seed, states }));

  it.each([
    ["a raw \\r in the header line", (t: string) => t.replace("\n", "\r\n"), "ENCODING"],
    [
      "a duplicate key in the header's meta",
      (t: string) => t.replace(`"meta":{`, `"meta":{"model":"x",`),
      "JSON_DUPLICATE_KEY",
    ],
    ["a bare NaN in the header's meta", (t: string) => t.replace(`"model":"m-1"`, `"model":NaN`), "NOT_FINITE"],
  ])("%s: the bundle is still attributed, its trial invalid and counted", (_name, breakIt, code) => {
    const win = { path: "e/win", ...score(trial("win", "aa".repeat(8), [live(), escaped()])) };
    const lossFiles = trial("loss", "bb".repeat(8));
    lossFiles["journal.jsonl"] = breakIt(lossFiles["journal.jsonl"] as string);
    const loss = { path: "e/loss", ...score(lossFiles) };
    expect(loss).toMatchObject({ validity: "invalid", experiment: "exp", trial: "loss", attempt: 1 });
    expect(codes(loss)).toContain(code);
    const [exp] = computeExperiments([win, loss], [], DEFAULT_BATCH);
    expect(exp!.accuracy).toMatchObject({ victories: 1, scored: 2 });
    expect(exp!.invalid).toEqual([{ trial: "loss", codes: expect.arrayContaining([code]) }]);
  });
});

describe("file names", () => {
  it("a file whose name is not UTF-8 is UNSAFE_PATH, not a tool error", () => {
    const dir = join(tmp, "badname");
    put(dir, bundle(game()));
    writeFileSync(Buffer.concat([Buffer.from(dir + "/"), Buffer.from([0xff, 0x6a])]), "x");
    const e = scoreDirectory(dir, "badname");
    expect(e.validity).toBe("invalid");
    expect(e.errors.map((f) => f.code)).toEqual(["UNSAFE_PATH"]);
    expect(e.errors[0]!.message).toMatch(/not valid UTF-8/);
  });

  it("a directory below a root that is not UTF-8 is skipped and reported; the run goes on", () => {
    const root = join(tmp, "root-badname");
    put(join(root, "e/t1/a1"), bundle(game()));
    mkdirSync(Buffer.concat([Buffer.from(root + "/"), Buffer.from([0xfe, 0x41])]));
    const skipped: string[] = [];
    const found = [...discover([root], (p, why) => skipped.push(`${p}: ${why}`))].map((f) => f.path);
    expect(found).toEqual([join(root, "e/t1/a1")]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(/not valid UTF-8/);
  });
});

describe("experiment profile", () => {
  it("is the majority's: one stray world bundle neither renames the experiment nor erases its metrics", () => {
    const native = ["t1", "t2"].map((t, i) => ({
      path: `e/${t}`,
      ...score(bundle(game({ trial: t, seed: `${i}${i}`.repeat(8) }))),
    }));
    const world = bundle(game({ trial: "a0", seed: "cc".repeat(8) }));
    world["journal.jsonl"] = chain([{ ...header({ trial: "a0", seed: "cc".repeat(8) }), profile: "world" }]).text;
    const stray = { path: "e/a0", ...score(world) };
    const [exp] = computeExperiments([stray, ...native], [], DEFAULT_BATCH);
    expect(exp!.profile).toBe("native-game");
    expect(exp!.accuracy).toMatchObject({ scored: 3 });
    expect(exp!.invalid).toEqual([{ trial: "a0", codes: expect.arrayContaining(["PROFILE_MIXED"]) }]);
  });

  it("a bundle whose profile is unknown is not PROFILE_MIXED", () => {
    // A header naming its profile twice: which one the writer meant is unknown (a header that is
    // merely malformed still names its profile, read leniently).
    const broken = bundle(game({ trial: "t9" }));
    broken["journal.jsonl"] = (broken["journal.jsonl"] as string).replace(
      `"profile":"native-game"`,
      `"profile":"native-game","profile":"world"`,
    );
    const e = { path: "e/t9", ...score(broken) };
    expect(e.profile).toBeNull();
    expect(e.trial).toBe("t9");
    const [exp] = computeExperiments([e], [], DEFAULT_BATCH);
    expect(exp!.invalid[0]!.codes).not.toContain("PROFILE_MIXED");
  });
});

describe("a key named __proto__ is never dropped unseen", () => {
  // JSON.parse keeps it as an own key, but a schema reading an object into a plain one cannot
  // set it: refused with its finding, never lost.
  it("in the header's meta: SCHEMA on line 1", () => {
    const files = bundle(game({ trial: "p1", states: [live(), killed()] }));
    const lines = (files["journal.jsonl"] as string).split("\n");
    const h = JSON.parse(lines[0]!) as Record<string, unknown>;
    const rest = lines
      .slice(1)
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of [h, ...rest]) {
      delete r["seq"];
      delete r["prev"];
    }
    files["journal.jsonl"] = chain([{ ...h, meta: JSON.parse('{"__proto__":1}') }, ...rest]).text;
    const e = score(files);
    expect(e.errors.map((f) => [f.code, f.file, f.line])).toEqual([["SCHEMA", "journal.jsonl", 1]]);
    expect(e.errors[0]!.message).toMatch(/__proto__/);
  });
});

describe("CLI edges", () => {
  it("verify on a bundle whose journal is a dangling link reports UNSAFE_PATH (exit 1), as score does", async () => {
    const dir = join(tmp, "dangling");
    mkdirSync(dir);
    symlinkSync(join(tmp, "nowhere"), join(dir, "journal.jsonl"));
    const r = await run(["verify", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/UNSAFE_PATH/);
  });

  it("two schedules for one experiment are refused before anything is scored", async () => {
    const s = join(tmp, "s.json");
    writeFileSync(s, JSON.stringify({ format: "assay.schedule/1", experiment: "exp", trials: [] }));
    const r = await run(["score", join(tmp, "nope-not-read"), "--schedule", s, "--schedule", s]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/two schedules for experiment exp/);
  });

  it("--out into a missing folder names the path the user gave", async () => {
    put(join(tmp, "one/e/t1/a1"), bundle(game()));
    const out = join(tmp, "missing/out.json");
    const r = await run(["score", join(tmp, "one"), "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`assay score: cannot write ${out}: folder ${join(tmp, "missing")} does not exist\n`);
  });
});
