// `npm run bench` (and `npm run bench -- --inspect` alone): two large Inspect .eval logs of 100,000
// samples, zstd members as Inspect writes them since 0.3.206 — one realistic (each sample's
// transcript as Inspect condenses it: messages, a dozen events, events_data, attachments; journal
// summaries flushed every ten samples: ~1.3 GB of JSON in 110,004 members), one padded (two
// messages and ~8.6 KB of text a sample: ~1 GB) — each synthesised in a child process, then verified
// by `assay score --jobs 2` in another (its peak RSS is the whole process's, main thread and
// workers), beside the bare limit: the same members read, decoded with the fastest decoder among the
// dependencies (WASM zstd) and JSON.parsed on the same number of threads, nothing else.

import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { isMainThread, Worker, workerData } from "node:worker_threads";
import { inflateRawSync } from "node:zlib";
import type { Results } from "../core/results.js";
import { MAX_MEMBER_BYTES, readDirectory, type ZipMember } from "../kinds/inspect/zip.js";
import { decodeZstdInPlace } from "../io/zstd.js";
import { writeInspectLog } from "../synth/inspect.js";
import { readyZstd } from "../synth/zip.js";
import { env, secondsSince } from "./measure.js";
import { inspectPeerBench, triageRow, triageScalingRow } from "./inspect-archive.js";

const SAMPLES = env("BENCH_INSPECT_SAMPLES", 100_000);
/** The padded log's transcript text per sample: about 10 KB a sample with the rest of its record. */
const PADDING = env("BENCH_INSPECT_PADDING", 8_600);
const SHAPES = ["realistic", "padded"] as const;
type Shape = (typeof SHAPES)[number];
/** The shapes measured (BENCH_INSPECT_SHAPES=realistic: that one alone). */
const MEASURED = SHAPES.filter((s) => (process.env["BENCH_INSPECT_SHAPES"] ?? SHAPES.join(",")).split(",").includes(s));
const WORKERS = 2;
const SELF = fileURLToPath(import.meta.url);

/** Child: write the log (a member at a time through the file descriptor). */
export async function synthBigEval(file: string, shape: Shape): Promise<void> {
  await readyZstd();
  const fd = openSync(file, "w");
  try {
    const padding = shape === "padded" ? PADDING : 0;
    writeInspectLog(
      {
        task: "bench",
        model: "openai/gpt-4o-mini",
        case: "errors-hidden",
        samples: SAMPLES,
        epochs: 1,
        format: "eval",
        method: 93,
        seed: "bench",
        offset: 0,
        padding,
        shape,
      },
      (b) => void writeSync(fd, b),
    );
  } finally {
    closeSync(fd);
  }
}

/** The bare loop over some members: read each by offset, inflate (zstd with the decoder assay uses, the fastest among the dependencies, parsed where it decoded), JSON.parse. Returns uncompressed bytes. */
function bareMembers(file: string, members: readonly ZipMember[]): number {
  const fd = openSync(file, "r");
  let bytes = 0;
  try {
    const head = Buffer.alloc(30);
    for (const m of members) {
      readSync(fd, head, 0, 30, m.offset);
      const raw = Buffer.allocUnsafe(m.csize);
      readSync(fd, raw, 0, m.csize, m.offset + 30 + head.readUInt16LE(26) + head.readUInt16LE(28));
      const parse = (data: Buffer) => {
        JSON.parse(data.toString("utf8"));
        return data.byteLength;
      };
      bytes +=
        m.method === 93
          ? decodeZstdInPlace(m.csize, m.usize, MAX_MEMBER_BYTES, (into) => into.set(raw), parse)
          : parse(m.method === 8 ? inflateRawSync(raw) : raw);
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/** The bare loop on `threads` threads over every member of `files`, dealt out in turn (the directories read here). Returns uncompressed bytes. */
export async function bareThreads(files: readonly string[], threads = WORKERS): Promise<number> {
  const all = files.flatMap((file) => readDirectory(file).members.map((m) => ({ file, m })));
  const shares = Array.from({ length: threads }, (_, t) => all.filter((_, i) => i % threads === t));
  const done = await Promise.all(
    shares.map(
      (share) =>
        new Promise<number>((ok, failed) => {
          const w = new Worker(SELF, {
            workerData: {
              bareInspect: files.map((file) => ({
                file,
                members: share.filter((x) => x.file === file).map((x) => x.m),
              })),
            },
          });
          w.once("message", (n: number) => ok(n));
          w.once("error", failed);
        }),
    ),
  );
  return done.reduce((a, b) => a + b, 0);
}

/** The Inspect section of the benchmark: each shape's log, made, read bare, and scored; then deleted. */
export async function inspectBench(dir: string): Promise<void> {
  for (const shape of MEASURED) {
    const file = `${dir}/2025-11-03T10-00-00+00-00_bench_${shape}.eval`;
    try {
      await shapeBench(file, shape);
    } finally {
      rmSync(file, { force: true });
      rmSync(`${file}.results.json`, { force: true });
    }
  }
}

async function shapeBench(file: string, shape: Shape): Promise<void> {
  const t0 = process.hrtime.bigint();
  const synth = spawnSync(process.execPath, [SELF, "--synth", file, shape], { stdio: "inherit" });
  if (synth.status !== 0) throw new Error("synthesising the .eval failed");
  const made = secondsSince(t0);
  const size = statSync(file).size;
  const members = readDirectory(file).members.length;
  console.log(
    `\nInspect, ${shape}: one .eval of ${SAMPLES.toLocaleString("en")} samples, ${members.toLocaleString("en")} members, ${(size / 1e6).toFixed(0)} MB on disk (zstd), synthesised in ${made.toFixed(0)} s`,
  );
  console.log(
    `load average before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  const b0 = process.hrtime.bigint();
  const uncompressed = await bareThreads([file]);
  const bareSecs = secondsSince(b0);
  const s0 = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [SELF, "--score", file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const secs = secondsSince(s0);
  if (run.status !== 0) throw new Error(`assay score failed: ${run.stderr}`);
  const r = JSON.parse(run.stdout) as {
    rssMb: number;
    validity: string;
    samples: Record<string, number>;
    check: string;
  };
  console.log(
    `load average after:  ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  const mb = uncompressed / 1e6;
  console.log(
    `${"bare limit, 2 threads (read, decode, JSON.parse)".padEnd(50)} ${bareSecs.toFixed(1).padStart(6)} s ${(mb / bareSecs).toFixed(0).padStart(6)} MB/s`,
  );
  console.log(
    `${"assay score, 2 workers (whole process)".padEnd(50)} ${secs.toFixed(1).padStart(6)} s ${(mb / secs).toFixed(0).padStart(6)} MB/s`,
  );
  console.log(`${"assay / bare".padEnd(50)} ${(bareSecs / secs).toFixed(3).padStart(6)}   target >= 0.4`);
  console.log(`peak RSS of assay score: ${r.rssMb.toFixed(0)} MB   target <= 384 MB   (${mb.toFixed(0)} MB of JSON)`);
  if (shape === "realistic") {
    // Issue 40: the claims-only pass against a full verify, and Inspect's own reader, on this log.
    triageRow(file);
    // The same log at a tenth of its samples: does triage's memory follow the log's size?
    const tenth = file.replace(/\.eval$/, "_tenth.eval");
    try {
      const env = { ...process.env, BENCH_INSPECT_SAMPLES: String(Math.round(SAMPLES / 10)) };
      const made = spawnSync(process.execPath, [SELF, "--synth", tenth, shape], { stdio: "inherit", env });
      if (made.status !== 0) throw new Error("synthesising the tenth-size .eval failed");
      triageScalingRow(file, tenth, SAMPLES);
    } finally {
      rmSync(tenth, { force: true });
    }
    inspectPeerBench(dirname(file), [file]);
  }
  console.log(
    `verdict: ${r.validity}; samples ${Object.entries(r.samples)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(" · ")}; accuracy claim ${r.check}`,
  );
}

if (!isMainThread && (workerData as { bareInspect?: unknown } | null)?.bareInspect) {
  const shares = (workerData as { bareInspect: { file: string; members: ZipMember[] }[] }).bareInspect;
  (await import("node:worker_threads")).parentPort!.postMessage(
    shares.reduce((n, { file, members }) => n + bareMembers(file, members), 0),
  );
} else if (isMainThread && process.argv[1] === SELF && process.argv[2] === "--synth") {
  await synthBigEval(process.argv[3]!, process.argv[4] as Shape);
} else if (isMainThread && process.argv[1] === SELF && process.argv[2] === "--score") {
  // Child: exactly `assay score FILE --jobs 2 --format json --out OUT` (with the heap setting
  // dist/cli.js makes), then this process's peak RSS: main thread and workers together.
  setFlagsFromString("--heap-growing-percent=20");
  const out = `${process.argv[3]!}.results.json`;
  const { main } = await import("../cli/main.js");
  const code = await main([
    "score",
    process.argv[3]!,
    "--jobs",
    String(WORKERS),
    "--format",
    "json",
    "--out",
    out,
    "--quiet",
  ]);
  const rssMb = process.resourceUsage().maxRSS / 1024;
  const doc = JSON.parse(readFileSync(out, "utf8")) as Results;
  const e = doc.bundles[0]!;
  const acc = Object.entries(e.inspect?.metrics ?? {}).find(([k]) => k.endsWith("/accuracy"))?.[1];
  console.log(
    JSON.stringify({ code, rssMb, validity: e.validity, samples: e.samples ?? {}, check: acc?.check ?? "none" }),
  );
}
