// A member whose JSON would take a worker past its heap (parse-room.ts): JSON.parse cannot be
// stopped once it runs, so such a member is refused (FILE_TOO_LARGE) before it is parsed. Before,
// a worker past its bundle's time limit went on parsing at its heap limit: the entry was TIMEOUT at
// once, but the process could not exit for minutes (and past the limit V8 aborted it).

import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resultsSchema } from "../src/core/results.js";
import { checkParseRoom, parseCost } from "../src/kinds/inspect/parse-room.js";
import { inspectLogBytes } from "../src/synth/inspect.js";
import { zipBytes } from "../src/synth/zip.js";
import { spawnCli } from "./helpers/cli.js";
import { json, members, place, scratch, type Member } from "./helpers/inspect.js";

const MB = 2 ** 20;
const text = (s: string) => Buffer.from(s);

describe("parseCost: what a JSON text's values may take once parsed", () => {
  it("counts containers, slots and strings outside strings only: quotes, brackets and commas inside a string cost nothing", () => {
    const plain = text('{"a":[1,2],"b":"x"}');
    // 2 bytes a byte of text; 2 containers (80 each); ':' twice, ',' twice (16 each); 3 strings (32 each)
    expect(parseCost(plain)).toBe(2 * plain.length + 2 * 80 + 4 * 16 + 3 * 32);
    const inside = text(JSON.stringify({ a: '{[,:]} \\" " \\\\' }));
    expect(parseCost(inside)).toBe(2 * inside.length + 80 + 16 + 2 * 32);
  });

  it("an escaped quote does not end a string; a quote after an even run of backslashes does", () => {
    expect(parseCost(text('["a\\"[[[", 1]'))).toBe(2 * 13 + 80 + 16 + 32);
    expect(parseCost(text('["a\\\\", [1]]'))).toBe(2 * 12 + 2 * 80 + 16 + 32);
  });

  it("stops counting past `stopAbove`", () => {
    const bomb = text(`[${"{},".repeat(1_000_000)}{}]`);
    expect(parseCost(bomb)).toBeGreaterThan(80 * 1_000_000);
    expect(parseCost(bomb, 10 * MB)).toBeLessThan(11 * MB);
  });
});

describe("checkParseRoom: refused past the heap left, parsed within it", () => {
  // 8 MB each: one of small objects, one of text (a transcript's tool output)
  const bomb = text(`[${'{"a":[1]},'.repeat(800_000)}{}]`);
  const prose = text(JSON.stringify({ output: "lorem ipsum, [dolor] {sit}: amet. ".repeat(240_000) }));

  it("small objects that would take more than the heap left: FILE_TOO_LARGE, naming the member", () => {
    expect(() => checkParseRoom(bomb, "samples/1_epoch_1.json", 64 * MB)).toThrow(
      new RegExp(
        `^samples/1_epoch_1\\.json: its ${bomb.length} bytes of JSON may need more heap once parsed than the 64 MiB this reader has left`,
      ),
    );
    try {
      checkParseRoom(bomb, "x", 64 * MB);
    } catch (e) {
      expect((e as { code: string }).code).toBe("FILE_TOO_LARGE");
    }
  });

  it("text of the same size within that heap, or the small objects with room for them: parsed", () => {
    expect(prose.length).toBeGreaterThan(bomb.length);
    expect(() => checkParseRoom(prose, "x", 64 * MB)).not.toThrow();
    expect(() => checkParseRoom(bomb, "x", 512 * MB)).not.toThrow();
  });
});

/** A 3-sample .eval whose first sample holds `filler` in its metadata, with a random stored member keeping it within its decoding budget. */
function logWith(name: string, filler: string, dir: string): string {
  const base = members(
    place(
      `base-${name}`,
      inspectLogBytes({
        task: "heavy",
        model: "openai/gpt-4o-mini",
        case: "clean",
        samples: 3,
        epochs: 1,
        format: "eval",
        method: 8,
        seed: name,
        offset: 0,
      }),
    ),
  );
  const first = base.find((m) => m.name.startsWith("samples/"))!;
  const sample = json(first) as Record<string, unknown>;
  const head = JSON.stringify({ ...sample, metadata: undefined }).slice(0, -1);
  const data = Buffer.concat([text(`${head},"metadata":{"x":[`), text(filler), text("]}}")]);
  const ms: Member[] = [
    ...base.map((m) => (m === first ? { ...m, data } : m)),
    { name: "pad.bin", data: randomBytes(Math.ceil(data.length / 60)), method: 0 },
  ];
  place(join("spawned", name), zipBytes(ms));
  return join(dir, name);
}

describe("spawned: a member that would take its worker past its heap, under a tight --bundle-timeout", () => {
  it("its log is FILE_TOO_LARGE (or TIMEOUT), the logs beside it are scored, and the process exits at once with its code, nothing on stderr", () => {
    const dir = join(scratch(), "spawned");
    mkdirSync(dir, { recursive: true });
    // 50 MB of `{},` takes ~13 heap bytes a byte once parsed: past a worker's 512 MB. The build
    // before this exited after more than 150 s (load average 5), its entry TIMEOUT at 3 s.
    logWith("2025-01-01T00-00-00+00-00_heavy_aaaaaaaaaaaaaaaaaaaaaa.eval", `${"{},".repeat(16_666_666)}{}`, dir);
    logWith("2025-01-01T00-00-00+00-00_clean_bbbbbbbbbbbbbbbbbbbbbb.eval", "1", dir);
    const t0 = Date.now();
    const r = spawnCli([
      "score",
      dir,
      "--jobs",
      "1",
      "--bundle-timeout",
      "3",
      "--fail-on",
      "invalid",
      "--quiet",
      "--format",
      "json",
    ]);
    const secs = (Date.now() - t0) / 1000;
    expect(secs).toBeLessThan(20);
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe("");
    const doc = resultsSchema.parse(JSON.parse(r.stdout));
    const heavy = doc.bundles.find((b) => b.path.includes("_heavy_"))!;
    const clean = doc.bundles.find((b) => b.path.includes("_clean_"))!;
    expect(clean.validity).toBe("valid");
    const code = heavy.errors[0]!.code;
    expect(["FILE_TOO_LARGE", "TIMEOUT"]).toContain(code);
    // FILE_TOO_LARGE makes the log invalid (exit 1 under --fail-on invalid); a TIMEOUT is the tool's error (exit 3).
    expect(r.code).toBe(code === "TIMEOUT" ? 3 : 1);
    if (code === "FILE_TOO_LARGE") expect(heavy.errors[0]!.message).toMatch(/samples\/1_epoch_1\.json: its \d+ bytes/);
  }, 60_000);
});
