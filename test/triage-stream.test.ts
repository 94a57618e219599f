// Issue 40 §4: triage streams summaries.json (zip-stream.ts) and bounds each log's reading. Each
// side: a member streamed gives the bytes decoding it whole gives, and is refused as withMember
// refuses it; a summaries.json past what a member held whole may be (MAX_MEMBER_BYTES) is triaged
// in bounded memory, where verify's whole reading refuses it; a hostile member, a document past
// its limit and a log out of time are each named with their code while the batch goes on.
import { spawnSync } from "node:child_process";
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as zlib from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_MEMBER_BYTES, readDirectory, readMember, type ZipMember } from "../src/kinds/inspect/zip.js";
import { STREAM_FROM, streamMember } from "../src/kinds/inspect/zip-stream.js";

/** Members from this size are streamed here (STREAM_FROM, 64 MiB, would make every fixture that large). */
const STREAMED = 1024 * 1024;
import { readSummaryRecords } from "../src/kinds/inspect/triage-read.js";
import { readMeta } from "../src/kinds/inspect/read.js";
import { inspectLogBytes } from "../src/synth/inspect.js";
import { compressed, readyZstd, zipBytes, type Method } from "../src/synth/zip.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const dir = scratch("assay-triage-stream-").dir;

beforeAll(async () => {
  await readyZstd();
});

/** Text that zstd and Deflate compress some tens of times, never to nothing: short runs of a letter. */
function runs(n: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  let x = seed >>> 0 || 1;
  for (let at = 0; at < n;) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const len = 16 + (x >>> 26);
    out.fill(97 + ((x >>> 8) & 15), at, Math.min(n, at + len));
    at += len;
  }
  return out;
}

/** An archive of one member, written and read back: the member's entry. */
function oneMember(
  name: string,
  data: Buffer,
  method: Method,
  o: { body?: Uint8Array; usize?: number; crc?: number } = {},
) {
  const file = join(dir, `${name.replace(/\W/g, "_")}-${method}-${data.length}.eval`);
  writeFileSync(file, zipBytes([{ name: "summaries.json", data, method, ...o }]));
  return { file, m: readDirectory(file).members[0]! };
}

async function streamed(file: string, m: ZipMember, until?: number): Promise<Buffer> {
  const fd = openSync(file, "r");
  const pieces: Buffer[] = [];
  try {
    await streamMember(fd, fstatSync(fd).size, m, (p) => pieces.push(Buffer.from(p)), {
      until,
      streamFrom: STREAMED,
    });
    return Buffer.concat(pieces);
  } finally {
    closeSync(fd);
  }
}

async function refusal(file: string, m: ZipMember): Promise<string> {
  try {
    await streamed(file, m);
    return "read";
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
}

describe("a member streamed (zip-stream.ts)", () => {
  it("gives, stored, Deflate and zstd (one frame or several), the bytes decoding it whole gives", async () => {
    const data = runs(STREAMED * 3 + 300_000, 7);
    for (const [method, frames] of [
      [0, 1],
      [8, 1],
      [93, 1],
      [93, 5],
    ] as const) {
      const file = join(dir, `whole-${method}-${frames}.eval`);
      writeFileSync(file, zipBytes([{ name: "summaries.json", data, method, frames }]));
      const m = readDirectory(file).members[0]!;
      expect(m.usize).toBeGreaterThanOrEqual(STREAMED); // streamed, not decoded in one shot
      expect((await streamed(file, m)).equals(data)).toBe(true);
      const fd = openSync(file, "r");
      expect(readMember(fd, fstatSync(fd).size, m).equals(data)).toBe(true);
      closeSync(fd);
    }
    // a small member is decoded whole and handed over all the same
    const small = oneMember("small", Buffer.from('[{"id":1}]'), 93);
    expect((await streamed(small.file, small.m)).toString()).toBe('[{"id":1}]');
  });

  it("refuses what withMember refuses: a wrong CRC, a member decoding past or short of its size, bytes that do not decode", async () => {
    const data = runs(STREAMED * 2 + 1000, 3);
    for (const method of [8, 93] as const) {
      const crc = oneMember("crc", data, method, { crc: 1234 });
      expect(await refusal(crc.file, crc.m)).toMatch(/^EVAL_CORRUPT: .*CRC-32 .* the directory says 000004d2/);
      // declared a byte short: the decoder is stopped at the declared size (a bomb never decodes past it)
      const body = compressed(data, method);
      const past = oneMember("past", data, method, { body, usize: data.length - 1 });
      expect(await refusal(past.file, past.m)).toMatch(/^EVAL_CORRUPT: /);
      const short = oneMember("short", data, method, { body, usize: data.length + 1 });
      expect(await refusal(short.file, short.m)).toMatch(/^EVAL_CORRUPT: /);
      const bad = Buffer.from(body);
      bad.fill(0xff, 40, 4000);
      const garbled = oneMember("garbled", data, method, { body: bad });
      expect(await refusal(garbled.file, garbled.m)).toMatch(/^EVAL_CORRUPT: /);
    }
    // Other side: the same bytes, declared truly, read.
    const fine = oneMember("fine", data, 93);
    expect(await refusal(fine.file, fine.m)).toBe("read");
  });

  it("refuses what the one-shot decoder refuses though fzstd would not: a wrong checksum, a dictionary, a frame not the size it declares", async () => {
    const data = runs(STREAMED * 3, 9);
    const f = Buffer.from(compressed(data, 93));
    const fhd = f[4]!;
    const withChecksum = Buffer.concat([f, Buffer.from([1, 2, 3, 4])]);
    withChecksum[4] = fhd | 4; // a checksum flag, and a checksum that is wrong
    const at = 5 + ((fhd >> 5) & 1 ? 0 : 1);
    const withDictionary = Buffer.concat([f.subarray(0, at), Buffer.from([7]), f.subarray(at)]);
    withDictionary[4] = fhd | 1; // a one-byte dictionary ID
    // two frames whose declared sizes are each other's (their sum, the directory's, still holds)
    const cut = 1_000_000;
    const [a, b] = [
      Buffer.from(compressed(data.subarray(0, cut), 93)),
      Buffer.from(compressed(data.subarray(cut), 93)),
    ];
    const swapped = (() => {
      const [x, y] = [Buffer.from(a), Buffer.from(b)];
      // 4-byte content sizes here, after the header byte and the window byte where there is one
      const fcsAt = (fr: Buffer) => 5 + ((fr[4]! >> 5) & 1 ? 0 : 1);
      const size = (fr: Buffer) => fr.readUInt32LE(fcsAt(fr));
      const [sa, sb] = [size(x), size(y)];
      x.writeUInt32LE(sb, fcsAt(x));
      y.writeUInt32LE(sa, fcsAt(y));
      return Buffer.concat([x, y]);
    })();
    expect([(a[4]! >> 6) & 3, (b[4]! >> 6) & 3]).toEqual([2, 2]); // 4-byte content sizes, as swapped assumes
    for (const [name, body] of [
      ["checksum", withChecksum],
      ["dictionary", withDictionary],
      ["swapped", swapped],
    ] as const) {
      const { file, m } = oneMember(name, data, 93, { body });
      const fd = openSync(file, "r");
      const whole = (() => {
        try {
          readMember(fd, fstatSync(fd).size, m);
          return "read";
        } catch (e) {
          return (e as { code?: string }).code;
        } finally {
          closeSync(fd);
        }
      })();
      expect([name, whole]).toEqual([name, "EVAL_CORRUPT"]);
      expect([name, (await refusal(file, m)).split(":")[0]]).toEqual([name, "EVAL_CORRUPT"]);
    }
    // the other side: the same two frames, each its own size, stream
    const { file, m } = oneMember("two-frames", data, 93, { body: Buffer.concat([a, b]) });
    expect((await streamed(file, m)).equals(data)).toBe(true);
  });

  it("stops once its time has passed (TIMEOUT), and not before", async () => {
    const { file, m } = oneMember("late", runs(STREAMED * 2, 5), 93);
    expect(await refusal(file, m)).toBe("read");
    await expect(streamed(file, m, Date.now() - 1)).rejects.toMatchObject({ code: "TIMEOUT" });
    const records = await readSummaryRecords(file, m, Date.now() - 1);
    expect(records.toolError?.code).toBe("TIMEOUT");
  });
});

/** A summaries.json written a piece a frame (zstd), its CRC-32 and size counted as the pieces are added. */
function framed() {
  const frames: Uint8Array[] = [];
  let crc = 0;
  let usize = 0;
  return {
    add: (b: Buffer) => {
      frames.push(compressed(b, 93));
      crc = b.length === 0 ? crc : zlib.crc32(b, crc);
      usize += b.length;
    },
    member: () => ({
      name: "summaries.json",
      data: Buffer.alloc(0),
      method: 93 as const,
      body: Buffer.concat(frames),
      crc,
      usize,
    }),
  };
}

/** A synthesised log whose summaries each carry `pad` bytes more (an "input" Inspect's summaries hold), zstd. */
function paddedLog(name: string, pad: number, samples = 20): string {
  const base = join(dir, `${name}-base.eval`);
  writeFileSync(
    base,
    inspectLogBytes({
      task: "t",
      model: "m/x",
      case: "clean",
      samples,
      epochs: 1,
      format: "eval",
      method: 93,
      seed: "s",
      offset: 0,
    }),
  );
  const fd = openSync(base, "r");
  const size = fstatSync(fd).size;
  const members = readDirectory(base).members.map((m) => ({ m, data: readMember(fd, size, m) }));
  closeSync(fd);
  const out = members.map(({ m, data }) => {
    if (m.name !== "summaries.json") return { name: m.name, data, method: 93 as const };
    // each summary padded, compressed a summary a frame, the CRC and size counted as it goes
    const summaries = JSON.parse(data.toString("utf8")) as Record<string, unknown>[];
    const { add, member } = framed();
    summaries.forEach((s, i) => {
      const text = JSON.stringify(s);
      add(Buffer.from(`${i === 0 ? "[" : ","}${text.slice(0, -1)},"input":"`));
      add(runs(pad, i + 11));
      add(Buffer.from('"}'));
    });
    add(Buffer.from("]"));
    return member();
  });
  const file = join(dir, `${name}.eval`);
  writeFileSync(file, zipBytes(out));
  return file;
}

interface Report {
  triaged: {
    path: string;
    findings: { code: string; message: string }[];
    verify: string[];
    claims: { check: string }[];
  }[];
  verify: string[];
}

/** A summaries.json alone: `n` summaries, each score's value a string of `chars` (held by its record). */
function explained(n: number, chars: number): { file: string; m: ZipMember } {
  const { add, member } = framed();
  for (let i = 0; i < n; i++) {
    add(Buffer.from(`${i === 0 ? "[" : ","}{"id":${i},"epoch":1,"scores":{"m":{"value":"`));
    add(runs(chars, i + 5));
    add(Buffer.from('"}}}'));
  }
  add(Buffer.from("]"));
  const file = join(dir, `explained-${n}.eval`);
  writeFileSync(file, zipBytes([member()]));
  return { file, m: readDirectory(file).members[0]! };
}

describe("triage's summaries.json streamed, and each log bounded", () => {
  it("triages a summaries.json past what a member held whole may be in bounded memory; verify's whole reading refuses it", async () => {
    const pad = Math.ceil((MAX_MEMBER_BYTES + 8 * 1024 * 1024) / 200);
    const file = paddedLog("past-whole", pad, 200);
    const m = readDirectory(file).members.find((x) => x.name === "summaries.json")!;
    expect(m.usize).toBeGreaterThan(MAX_MEMBER_BYTES);
    // A whole process each: the peak RSS of reading it and of reading one a quarter of its size.
    // Streamed, they are alike (garbage the collector has not yet taken, not the member); decoded
    // whole, the large one would take 264 MiB more than Node's ~40 MB, and 200 MB more than the small.
    const peak = (f: string) => {
      const script = `
        const { readSummaryRecords } = await import(${JSON.stringify(new URL("../dist/kinds/inspect/triage-read.js", import.meta.url).pathname)});
        const { readDirectory } = await import(${JSON.stringify(new URL("../dist/kinds/inspect/zip.js", import.meta.url).pathname)});
        const m = readDirectory(${JSON.stringify(f)}).members.find((x) => x.name === "summaries.json");
        const r = await readSummaryRecords(${JSON.stringify(f)}, m);
        console.log(JSON.stringify({ records: r.records?.length ?? null, findings: r.findings.length, toolError: r.toolError, rssMb: process.resourceUsage().maxRSS / 1024 }));`;
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      expect(child.stderr).toBe("");
      return JSON.parse(child.stdout) as { records: number; findings: number; toolError: unknown; rssMb: number };
    };
    const big = peak(file);
    expect(big).toMatchObject({ records: 200, findings: 0, toolError: null });
    expect(Math.ceil(pad / 4) * 200).toBeGreaterThan(STREAM_FROM); // streamed too
    const quarter = peak(paddedLog("quarter", Math.ceil(pad / 4), 200));
    expect(quarter).toMatchObject({ records: 200, findings: 0, toolError: null });
    expect(big.rssMb).toBeLessThan(m.usize / 1024 / 1024); // never the member whole
    expect(big.rssMb).toBeLessThan(quarter.rssMb + 60);
    // The command: its claims checked from the padded summaries, and named for verify, which refuses it.
    const r = await run(["triage", file, "--json"]);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.triaged[0]!.claims.every((c) => c.check === "agrees")).toBe(true);
    expect(report.triaged[0]!.verify).toEqual([
      expect.stringMatching(
        /^summaries\.json is \d+ bytes, more than score and verify read in one member .*FILE_TOO_LARGE/,
      ),
    ]);
    const verify = await run(["verify", file, "--json"]);
    expect(verify.stdout).toContain("FILE_TOO_LARGE");
    // Other side: padded within the limit, nothing to verify.
    const within = paddedLog("within-whole", 400_000);
    const ok = JSON.parse((await run(["triage", within, "--json"])).stdout) as Report;
    expect(ok.triaged[0]!.verify).toEqual([]);
  }, 240_000);

  it("one summary past a document's size is FILE_TOO_LARGE before it is joined (a string past V8's limit stopped the batch); a large one within it is read", async () => {
    const over = explained(1, 64 * 1024 * 1024 + 1);
    const r = await readSummaryRecords(over.file, over.m);
    expect(r.records).toBeNull();
    expect(r.toolError).toMatchObject({
      code: "FILE_TOO_LARGE",
      message: expect.stringContaining("summary 0 runs past"),
    });
    const within = explained(3, 4_000_000);
    expect((await readSummaryRecords(within.file, within.m)).records).toHaveLength(3);
  }, 120_000);

  it("a summaries.json declaring more than its compressed bytes can hold stays the log's EVAL_CORRUPT, never the tool's limit", async () => {
    const src = paddedLog("lie-src", 10);
    const fd = openSync(src, "r");
    const size = fstatSync(fd).size;
    const members = readDirectory(src).members.map((m) => ({
      name: m.name,
      data: readMember(fd, size, m),
      method: 8 as const,
    }));
    closeSync(fd);
    const lie = join(dir, "lie.eval");
    const honest = join(dir, "honest.eval");
    writeFileSync(
      lie,
      zipBytes(members.map((x) => (x.name === "summaries.json" ? { ...x, usize: 300 * 1024 * 1024 } : x))),
    );
    writeFileSync(honest, zipBytes(members));
    const report = JSON.parse((await run(["triage", lie, honest, "--json"])).stdout) as Report;
    const codes = (f: string) => report.triaged.find((t) => t.path === f)!.findings.map((x) => x.code);
    expect(codes(lie)).toContain("EVAL_CORRUPT");
    expect(codes(lie)).not.toContain("FILE_TOO_LARGE");
    expect(codes(honest)).toEqual([]);
  });

  it("a summary nested past the limit is JSON_TOO_DEEP, never a stack overflow that stops the batch; 500 levels are read", async () => {
    const summary = (depth: number, id: number) =>
      `{"id":${id},"epoch":1,"scores":{"m":{"value":${"[".repeat(depth)}1${"]".repeat(depth)}}}}`;
    const { file, m } = oneMember("deep", Buffer.from(`[${summary(5000, 1)},${summary(500, 2)}]`), 93);
    const r = await readSummaryRecords(file, m);
    expect(r.findings.map((f) => [f.code, f.file])).toEqual([["JSON_TOO_DEEP", "summaries.json[0]"]]);
    expect(r.records!.map((x) => String(x.id))).toEqual(["2"]);
  });

  it("the members read before summaries.json (the journal where it is absent) stop at the log's time limit", () => {
    const file = paddedLog("journal-only", 10);
    const members = readDirectory(file).members.filter((x) => x.name !== "summaries.json");
    expect(readMeta(file, members, true, Date.now() - 1).toolError).toMatchObject({ code: "TIMEOUT" });
    expect(readMeta(file, members, true).toolError).toBeUndefined();
  });

  it("summary records past what one log may hold (MAX_RECORD_BYTES) are FILE_TOO_LARGE, not held; fewer are read", async () => {
    // each record holds its score's value, counted two bytes a character: 140 of 1 MB pass 256 MiB
    const over = explained(140, 1_000_000);
    const r = await readSummaryRecords(over.file, over.m);
    expect(r.records).toBeNull();
    expect(r.toolError?.code).toBe("FILE_TOO_LARGE");
    const within = explained(20, 1_000_000);
    const ok = await readSummaryRecords(within.file, within.m);
    expect(ok).toMatchObject({ findings: [], toolError: null });
    expect(ok.records).toHaveLength(20);
  }, 120_000);

  it("a hostile member, a document past its limit and a log out of time are each named with their code; the others are triaged", async () => {
    const root = join(dir, "batch");
    mkdirSync(root, { recursive: true });
    const clean = join(root, "a-clean.eval");
    writeFileSync(clean, readFileSync(paddedLog("clean", 10)));
    // summaries.json that decodes past the size it declares: the decoder is stopped there (a bomb)
    const bomb = paddedLog("bomb-src", 600_000);
    const members = (() => {
      const fd = openSync(bomb, "r");
      const size = fstatSync(fd).size;
      try {
        return readDirectory(bomb).members.map((m) => ({
          name: m.name,
          data: readMember(fd, size, m),
          method: 8 as const,
        }));
      } finally {
        closeSync(fd);
      }
    })();
    const s = members.find((x) => x.name === "summaries.json")!;
    writeFileSync(
      join(root, "b-bomb.eval"),
      zipBytes(members.map((x) => (x === s ? { ...x, usize: s.data.length - 1000 } : x))),
    );
    // header.json declared past a document's limit (64 MiB): not decoded
    const big = Buffer.concat([Buffer.from('{"pad":"'), runs(65 * 1024 * 1024, 2), Buffer.from('"}')]);
    writeFileSync(
      join(root, "c-header.eval"),
      zipBytes([...members.filter((x) => x.name !== "header.json"), { name: "header.json", data: big, method: 8 }]),
    );
    const r = await run(["triage", root, "--json"]);
    const report = JSON.parse(r.stdout) as Report;
    expect(r.code).toBe(1);
    const by = (name: string) => report.triaged.find((t) => t.path.endsWith(name))!;
    expect(by("a-clean.eval").verify).toEqual([]);
    expect(by("b-bomb.eval").findings.map((f) => f.code)).toContain("EVAL_CORRUPT");
    expect(by("c-header.eval").findings.map((f) => [f.code, f.message])).toEqual([
      ["FILE_TOO_LARGE", expect.stringContaining("header.json:")],
    ]);
    expect(report.verify.map((p) => p.split("/").pop()).sort()).toEqual(["b-bomb.eval", "c-header.eval"]);
    // Out of time: the log whose summaries take longer than the limit is a TIMEOUT, the small one is not.
    const slow = join(root, "d-slow.eval");
    writeFileSync(slow, readFileSync(paddedLog("slow", 6_000_000)));
    const timed = JSON.parse(
      (await run(["triage", clean, slow, "--json", "--bundle-timeout", "0.5"])).stdout,
    ) as Report;
    expect(timed.triaged.find((t) => t.path === slow)!.findings.map((f) => f.code)).toEqual(["TIMEOUT"]);
    expect(timed.triaged.find((t) => t.path === clean)!.verify).toEqual([]);
  }, 240_000);
});
