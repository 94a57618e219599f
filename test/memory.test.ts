// Memory test (contract §2–4: a journal is validated as a stream). A ~300 MB native-game journal
// is written to a temp dir in chunks, then validated by a child `node --max-old-space-size=64`
// running the COMPILED scorer (dist/: run `npx tsc -p .` first). The child must finish, judge
// the bundle valid and keep its peak RSS far below the journal's size.
//
// The journal ends with the native ending (an escape with a Silmaril) and an `end` record, and
// carries a summary.json: the scorer must read to the last line to find the ending, and the
// summary's record count, head digest and per-type counts (§4.5) prove that every line was read
// and counted.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { SCRATCH, scratch } from "./helpers/shared.js";
import { escaped, live, SILMARIL, type State } from "./helpers/bundle.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST_BUNDLE = join(ROOT, "dist/kinds/bundle/score.js");
const DIST_SOURCE = join(ROOT, "dist/io/bundle-source.js");

const TARGET_BYTES = 300 * 1024 * 1024;
const RSS_BOUND_MB = 200;
const T0 = 1_788_000_000_000;

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

interface Written {
  bytes: number;
  records: number;
  keys: number;
  observations: number;
  head: string;
  ending: { at: number; frame: number };
  endAt: number;
}

/**
 * Write journal.jsonl and summary.json into `dir` without holding the journal in memory:
 * lines are built one at a time, chained (prev = SHA-256 of the previous line), and flushed
 * with fs.writeSync every few MB.
 */
function writeBundle(dir: string): Written {
  const fd = openSync(join(dir, "journal.jsonl"), "w");
  let buf: string[] = [];
  let pending = 0;
  let bytes = 0;
  let prev = "0".repeat(64);
  let seq = 0;
  let at = T0;
  const counts = { keys: 0, observations: 0 };
  const flush = () => {
    if (buf.length === 0) return;
    writeSync(fd, buf.join(""));
    buf = [];
    pending = 0;
  };
  const put = (line: string) => {
    buf.push(line, "\n");
    pending += line.length + 1;
    bytes += line.length + 1;
    prev = sha(line);
    seq++;
    if (pending >= 4 * 1024 * 1024) flush();
  };
  const header = {
    seq: 0,
    at,
    type: "session",
    prev,
    format: "assay.bundle/1",
    profile: "native-game",
    session: "mem-1",
    experiment: "mem",
    trial: "t1",
    attempt: 1,
    seed: "00112233445566778899aabbccddeeff",
    harness: { name: "silq-bench", revision: "0.5.0" },
    deadline: T0 + 10 * 24 * 3_600_000,
    meta: { model: "m-1" },
  };
  put(JSON.stringify(header));

  // A live state with a full pack (38 slots): ~2.5 KB per observation line.
  const inventory = Array.from({ length: 38 }, (_, slot) => ({
    slot,
    k_idx: 20 + slot,
    tval: 23,
    sval: 1 + (slot % 5),
    number: 1,
    name1: 0,
  }));
  const liveState = (turn: number): State => live({ depth: 5, max_depth: 9, turn, playerturn: turn >> 1, inventory });
  // The state's JSON with the turn counters as the only varying part.
  const [pre, post] = JSON.stringify(liveState(123456789)).split(`"turn":123456789,"playerturn":61728394`);
  if (pre === undefined || post === undefined) throw new Error("state template did not split");
  let frame = 0;
  for (; bytes < TARGET_BYTES; frame++) {
    const turn = 10 * (frame + 1);
    if (frame > 0) {
      at += 7;
      put(`{"seq":${seq},"at":${at},"type":"keys","prev":"${prev}","frame":${frame - 1},"keys":"hjkl;ahjkl;ahjkl;a"}`);
      counts.keys++;
    }
    at += 3;
    put(
      `{"seq":${seq},"at":${at},"type":"observation","prev":"${prev}","frame":${frame},"state":${pre}"turn":${turn},"playerturn":${turn >> 1}${post}}`,
    );
    counts.observations++;
  }
  // The last key batch, then the ending: do_cmd_escape with a Silmaril, on time.
  at += 7;
  put(JSON.stringify({ seq, at, type: "keys", prev, frame: frame - 1, keys: "E" }));
  counts.keys++;
  at += 3;
  const win = escaped({
    turn: 10 * (frame + 1),
    playerturn: 5 * (frame + 1),
    inventory: [inventory[0]!, { ...SILMARIL, slot: 1 }],
  });
  put(JSON.stringify({ seq, at, type: "observation", prev, frame, state: win }));
  counts.observations++;
  const ending = { at, frame };
  at += 1000;
  put(JSON.stringify({ seq, at, type: "end", prev, status: "completed", reason: "escaped" }));
  flush();
  closeSync(fd);

  const written: Written = { bytes, records: seq, ...counts, head: prev, ending, endAt: at };
  const summary = {
    format: "assay.summary/1",
    session: header.session,
    experiment: header.experiment,
    trial: header.trial,
    attempt: header.attempt,
    seed: header.seed,
    journal: { records: written.records, head: written.head },
    status: "completed",
    ended_at: written.endAt,
    native_ending: { at: ending.at, frame: ending.frame, escaped: true, is_dead: true, depth: 0 },
    victory: true,
    snapshot: null,
    counts: { keys: counts.keys, observations: counts.observations, scores: 0 },
  };
  writeFileSync(join(dir, "summary.json"), JSON.stringify(summary) + "\n");
  return written;
}

const CHILD = `
import { scoreBundle } from ${JSON.stringify(pathToFileURL(DIST_BUNDLE).href)};
import { diskBundle } from ${JSON.stringify(pathToFileURL(DIST_SOURCE).href)};
const started = Date.now();
const e = scoreBundle(diskBundle(process.argv[2]));
process.stdout.write(JSON.stringify({
  validity: e.validity, status: e.status, ending: e.ending, victory: e.victory, late: e.late,
  errors: e.errors.slice(0, 5), warnings: e.warnings.slice(0, 5),
  ms: Date.now() - started, maxRSS: process.resourceUsage().maxRSS, heapUsed: process.memoryUsage().heapUsed,
}) + "\\n");
`;

describe("memory: a journal of a few hundred MB is validated as a stream", () => {
  const { dir: tmp } = scratch("assay-mem-", SCRATCH);

  it("validates a ~300 MB journal in a child with a 64 MB heap, peak RSS well below the journal's size", () => {
    expect(
      existsSync(DIST_BUNDLE) && existsSync(DIST_SOURCE),
      "dist/ is missing: run `npx tsc -p .` before this test",
    ).toBe(true);
    const dir = join(tmp, "bundle");
    mkdirSync(dir);
    const script = join(tmp, "validate.mjs");
    writeFileSync(script, CHILD);

    const t0 = Date.now();
    const w = writeBundle(dir);
    const genMs = Date.now() - t0;
    expect(statSync(join(dir, "journal.jsonl")).size).toBe(w.bytes);
    expect(w.bytes).toBeGreaterThanOrEqual(TARGET_BYTES);

    const t1 = Date.now();
    const r = spawnSync(process.execPath, ["--max-old-space-size=64", script, dir], {
      encoding: "utf8",
      timeout: 200_000,
      maxBuffer: 1024 * 1024,
    });
    const childMs = Date.now() - t1;
    expect({ status: r.status, signal: r.signal, stderr: r.stderr.slice(0, 2000) }).toEqual({
      status: 0,
      signal: null,
      stderr: "",
    });
    const out = JSON.parse(r.stdout) as {
      validity: string;
      status: string;
      ending: boolean;
      victory: boolean;
      late: boolean;
      errors: unknown[];
      warnings: unknown[];
      ms: number;
      maxRSS: number;
      heapUsed: number;
    };
    const rssMB = out.maxRSS / 1024; // resourceUsage().maxRSS is in KiB
    console.log(
      `memory: journal ${(w.bytes / 2 ** 20).toFixed(0)} MiB, ${w.records} records (${w.observations} observations, ${w.keys} key batches); ` +
        `generated in ${(genMs / 1000).toFixed(1)} s; child validated in ${(out.ms / 1000).toFixed(1)} s (${(childMs / 1000).toFixed(1)} s wall), ` +
        `peak RSS ${rssMB.toFixed(1)} MiB, heap at exit ${(out.heapUsed / 2 ** 20).toFixed(1)} MiB`,
    );
    // Valid, terminated by `end`, and the summary (records, head, counts) matched: every line was read and counted.
    expect({ validity: out.validity, errors: out.errors, warnings: out.warnings }).toEqual({
      validity: "valid",
      errors: [],
      warnings: [],
    });
    // The ending is the journal's second-to-last line: found only by reading to the end.
    expect(out).toMatchObject({ status: "completed", ending: true, victory: true, late: false });
    // Holding the journal (or even a fraction of it) in memory would exceed this.
    expect(rssMB).toBeLessThan(RSS_BOUND_MB);
    expect(rssMB).toBeLessThan(w.bytes / 2 ** 20 / 1.5);
  }, 240_000);
});
