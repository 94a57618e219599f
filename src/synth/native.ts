// Synthesised native-game bundles (contract §3–4), written byte for byte as a correct harness
// would, from a spec naming the outcome. Faults then break the evidence in labelled ways.
// Kept independent of the scorer: it builds summaries from the spec, not from core/.

import { createHash } from "node:crypto";

export const NATIVE_OUTCOMES = [
  "victory", // escape with a Silmaril, on time
  "death", // killed by a monster: is_dead, playing still set
  "late-victory", // the escape is accepted after the deadline
  "retire", // do_cmd_suicide: is_dead, playing cleared, not escaped
  "escape-empty", // escaped without a quest item
  "interrupted", // final scoring stopped a live game
  "resource-bound", // a step limit stopped the run, no ending
  "abnormal", // the supervisor failed, no ending
  "save-quit", // playing cleared without is_dead (a suspension), then abnormal
  "unterminated", // the writer died mid-game: no end, no summary
  "torn-ending", // killed while appending `end` after a death: torn tail
] as const;
export type NativeOutcome = (typeof NATIVE_OUTCOMES)[number];

export const NATIVE_FAULTS = [
  "bad-chain", // a line altered after it was chained
  "duplicate-key", // a keys record repeats `keys`
  "summary-claims-victory", // the summary says victory; the journal does not earn it
  "late-keys", // keys admitted after the deadline
  "nan-meta", // a bare NaN in the header's meta
  "seed-uppercase", // the seed in upper case
  "missing-summary", // summary.json deleted
  "snapshot-mismatch", // the snapshot's state differs from the last observation
  "crlf", // \r\n line ends
  "float-frame", // a frame written as 1.0
] as const;
export type NativeFault = (typeof NATIVE_FAULTS)[number];

/** The code a fault must produce (the label a test checks against). */
export const FAULT_CODES: Record<NativeFault, string> = {
  "bad-chain": "JOURNAL_CHAIN",
  "duplicate-key": "JSON_DUPLICATE_KEY",
  "summary-claims-victory": "SUMMARY_MISMATCH",
  "late-keys": "TRANSITION",
  "nan-meta": "NOT_FINITE",
  "seed-uppercase": "SEED_NOT_CANONICAL",
  "missing-summary": "SUMMARY_MISSING",
  "snapshot-mismatch": "SNAPSHOT_MISMATCH",
  crlf: "ENCODING",
  "float-frame": "SCHEMA",
};

export interface NativeSpec {
  experiment: string;
  trial: string;
  attempt: number;
  seed: string;
  outcome: NativeOutcome;
  /** Key batches before the outcome (each followed by an observation). */
  events?: number;
  task?: string;
  fault?: NativeFault;
  /** Header `at`; the rest of the run follows at one-second steps. */
  start?: number;
}

const T0 = 1_788_000_000_000;
const STEP = 1000;

type State = {
  character_generated: boolean;
  playing: boolean;
  is_dead: boolean;
  escaped: boolean;
  depth: number;
  max_depth: number;
  game_type: number;
  noscore: number;
  wizard: boolean;
  score_options: boolean;
  died_from: string;
  turn: number;
  playerturn: number;
  silmarils: number;
  inventory: { slot: number; k_idx: number; tval: number; sval: number; number: number; name1: number }[];
};

const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");

function liveState(frame: number): State {
  const depth = 1 + (frame % 12);
  return {
    character_generated: true,
    playing: true,
    is_dead: false,
    escaped: false,
    depth,
    max_depth: 13,
    game_type: 0,
    noscore: 0,
    wizard: false,
    score_options: false,
    died_from: "",
    turn: 10 * (frame + 1),
    playerturn: 5 * (frame + 1),
    silmarils: 0,
    inventory: [{ slot: 0, k_idx: 20, tval: 23, sval: 1, number: 1, name1: 0 }],
  };
}

function endingState(outcome: NativeOutcome, frame: number): State | null {
  const s = liveState(frame);
  switch (outcome) {
    case "victory":
    case "late-victory":
      return {
        ...s,
        playing: false,
        is_dead: true,
        escaped: true,
        depth: 0,
        max_depth: 20,
        died_from: "ripe old age",
        silmarils: 1,
        inventory: [...s.inventory, { slot: 1, k_idx: 131, tval: 39, sval: 9, number: 1, name1: 0 }],
      };
    case "death":
    case "torn-ending":
      return { ...s, is_dead: true, died_from: "an orc" };
    case "retire":
      return { ...s, playing: false, is_dead: true, died_from: "retired" };
    case "escape-empty":
      return { ...s, playing: false, is_dead: true, escaped: true, depth: 0, died_from: "ripe old age" };
    default:
      return null;
  }
}

/** A synthesised file: its bytes, produced in pieces when written (a journal can outgrow any string). */
export type SynthFile = [path: string, bytes: () => Iterable<string | Uint8Array>];

/** The files of one bundle: relative path → bytes (small bundles; tests). */
export function synthNative(spec: NativeSpec): Map<string, Buffer> {
  return new Map(
    nativeFiles(spec).map(([path, bytes]) => [
      path,
      Buffer.concat([...bytes()].map((p) => (typeof p === "string" ? Buffer.from(p) : p))),
    ]),
  );
}

/** What writing the journal found, for the files written after it. */
interface Written {
  records: number;
  head: string;
  endAt: number;
  ending: { at: number; frame: number; state: State } | null;
  snapshot: Buffer | null;
  counts: { keys: number; observations: number; scores: number };
}

/**
 * The files of one bundle, in order: the journal's lines are made as they are written, and the
 * summary and snapshot from what making them found (the journal is made again, unwritten, should
 * a later file be asked for first).
 */
export function nativeFiles(spec: NativeSpec): SynthFile[] {
  let written: Written | null = null;
  const journal = function* (): Generator<string> {
    const w: Written = {
      records: 0,
      head: "",
      endAt: 0,
      ending: null,
      snapshot: null,
      counts: { keys: 0, observations: 0, scores: 0 },
    };
    yield* chain(records(spec, w), spec.fault, spec.outcome === "torn-ending", w);
    written = w;
  };
  const after = (): Written => {
    if (written === null) for (const _ of journal());
    return written!;
  };
  const files: SynthFile[] = [["journal.jsonl", journal]];
  const stopped = spec.outcome === "unterminated";
  // A torn run keeps the summary written before the writer died (stale: not checked).
  if (!stopped && spec.fault !== "missing-summary")
    files.push(["summary.json", () => [JSON.stringify(summaryOf(spec, after())) + "\n"]]);
  const scored =
    spec.outcome !== "unterminated" && (endingState(spec.outcome, 0) !== null || spec.outcome === "interrupted");
  if (scored)
    files.push([
      "snapshot.json",
      () => {
        let snapshot = after().snapshot!;
        if (spec.fault === "snapshot-mismatch") {
          // Keep the digest the journal names but change what it describes.
          const s = JSON.parse(snapshot.toString());
          s.state.turn += 1;
          snapshot = Buffer.from(JSON.stringify(s));
        }
        return [snapshot];
      },
    ]);
  return files;
}

/**
 * The header's deadline: just before the ending for a late win; with the late-keys fault, just
 * before the first key batch (start + 2 steps), which the service admitted anyway; else an hour
 * after the start, or after the run's last record for a run longer than that.
 */
function deadlineOf(spec: NativeSpec): number {
  const events = spec.events ?? 8;
  const start = spec.start ?? T0;
  if (spec.fault === "late-keys") return start + 2 * STEP - 1;
  if (spec.outcome === "late-victory") return start + (2 * events + 1) * STEP + STEP / 2;
  return start + Math.max(3_600_000, (2 * events + 8) * STEP);
}

/** The journal's records in order (envelope `prev` filled in by chain); `w` learns the ending, the snapshot and the counts. */
function* records(spec: NativeSpec, w: Written): Generator<Record<string, unknown>> {
  const events = spec.events ?? 8;
  const start = spec.start ?? T0;
  let seq = 0;
  let at = start;
  const record = (type: string, body: Record<string, unknown>) => {
    if (type === "keys") w.counts.keys++;
    if (type === "observation") w.counts.observations++;
    if (type === "score") w.counts.scores++;
    w.endAt = at;
    return { seq: seq++, at, type, prev: "", ...body };
  };
  const deadline = deadlineOf(spec);
  yield record("session", {
    format: "assay.bundle/1",
    profile: "native-game",
    session: `${spec.experiment}.${spec.trial}.a${spec.attempt}`,
    experiment: spec.experiment,
    trial: spec.trial,
    attempt: spec.attempt,
    seed: spec.seed,
    harness: { name: "silq-bench", revision: "0.5.0" },
    deadline,
    meta: { model: "m-1", max_turns: 400, ...(spec.task !== undefined ? { task: spec.task } : {}) },
  });
  const step = () => (at += STEP);
  let frame = 0;
  let last: { frame: number; state: State; at: number } | null = null;
  const observe = (state: State) => {
    step();
    last = { frame, state, at };
    if (state.is_dead && w.ending === null) w.ending = last;
    return record("observation", { frame, state });
  };
  yield observe(liveState(0));
  for (let i = 0; i < events; i++) {
    step();
    yield record("keys", { frame, keys: "hjkl"[i % 4]! });
    frame++;
    yield observe(liveState(frame));
  }
  const ending = endingState(spec.outcome, frame + 1);
  if (ending !== null) {
    frame++;
    yield observe(ending);
  }
  if (spec.outcome === "save-quit") {
    frame++;
    yield observe({ ...liveState(frame), playing: false });
  }
  const stopped = spec.outcome === "unterminated";
  const scored = ending !== null || spec.outcome === "interrupted";
  if (scored && !stopped) {
    step();
    const l = last!;
    w.snapshot = Buffer.from(
      JSON.stringify({
        format: "assay.snapshot/1",
        session: `${spec.experiment}.${spec.trial}.a${spec.attempt}`,
        frame: l.frame,
        at,
        state: l.state,
      }),
    );
    yield record("score", { final: true, snapshot: sha(w.snapshot) });
  } else if (spec.outcome === "resource-bound") {
    step();
    yield record("score", { final: false, snapshot: null });
  }
  if (!stopped) {
    step();
    yield record("end", {
      status: statusOf(spec.outcome),
      reason: spec.outcome === "torn-ending" ? "native ending" : `synthetic ${spec.outcome}`,
    });
  }
}

const statusOf = (outcome: NativeOutcome): string =>
  endingState(outcome, 0) !== null
    ? "completed"
    : outcome === "interrupted"
      ? "interrupted"
      : outcome === "resource-bound"
        ? "resource-bound"
        : "abnormal";

function summaryOf(spec: NativeSpec, w: Written): Record<string, unknown> {
  const e = w.ending;
  const victory = e !== null && spec.outcome === "victory" && e.at <= deadlineOf(spec);
  return {
    format: "assay.summary/1",
    session: `${spec.experiment}.${spec.trial}.a${spec.attempt}`,
    experiment: spec.experiment,
    trial: spec.trial,
    attempt: spec.attempt,
    seed: spec.seed,
    journal: { records: w.records, head: w.head },
    status: statusOf(spec.outcome),
    ended_at: w.endAt,
    native_ending:
      e === null ? null : { at: e.at, frame: e.frame, escaped: e.state.escaped, is_dead: true, depth: e.state.depth },
    victory: spec.fault === "summary-claims-victory" ? true : victory,
    snapshot: w.snapshot === null ? null : sha(w.snapshot),
    counts: w.counts,
  };
}

/**
 * Serialise and chain the records, line by line; some faults are applied to the text. A torn
 * ending holds its last line back and writes it cut short (20 characters short, with no \n).
 */
function* chain(
  recs: Iterable<Record<string, unknown>>,
  fault: NativeFault | undefined,
  torn: boolean,
  w: Written,
): Generator<string> {
  let prev = "0".repeat(64);
  let held: string | null = null;
  const eol = fault === "crlf" ? "\r\n" : "\n";
  let i = 0;
  for (const l of recs) {
    l["prev"] = prev;
    let s = JSON.stringify(l);
    if (i === 0 && fault === "nan-meta") s = s.replace(`"max_turns":400`, `"max_turns":NaN`);
    if (i === 0 && fault === "seed-uppercase")
      s = s.replace(/"seed":"([0-9a-f]+)"/, (_m, x: string) => `"seed":"${x.toUpperCase()}"`);
    if (l["type"] === "keys" && i === 2 && fault === "duplicate-key") s = s.replace(/}$/, `,"keys":"x"}`);
    if (l["type"] === "observation" && i === 3 && fault === "float-frame") s = s.replace(`"frame":1,`, `"frame":1.0,`);
    prev = sha(s);
    // Altered after chaining: the next line's prev no longer matches.
    if (i === 3 && fault === "bad-chain")
      s = s.replace(/"turn":([0-9]+)/, (_m, x: string) => `"turn":${Number(x) + 1}`);
    if (held !== null) yield held + eol;
    held = s;
    i++;
  }
  w.records = i;
  w.head = prev;
  if (held !== null) yield torn ? held.slice(0, held.length - 19) : held + eol; // 20 characters short, counting its \n
}
