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
      return { ...s, playing: false, is_dead: true, escaped: true, depth: 0, max_depth: 20, died_from: "ripe old age", silmarils: 1,
        inventory: [...s.inventory, { slot: 1, k_idx: 131, tval: 39, sval: 9, number: 1, name1: 0 }] };
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

/** The files of one bundle: relative path → bytes. */
export function synthNative(spec: NativeSpec): Map<string, Buffer> {
  const events = spec.events ?? 8;
  const start = spec.start ?? T0;
  const lines: Record<string, unknown>[] = [];
  let at = start;
  const push = (type: string, body: Record<string, unknown>) => lines.push({ seq: lines.length, at, type, prev: "", ...body });
  const late = spec.outcome === "late-victory";
  // The deadline falls just before the ending for a late win, else long after the run.
  const deadline = late ? start + (2 * events + 1) * STEP + STEP / 2 : start + 3_600_000;
  push("session", {
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
    push("observation", { frame, state });
    last = { frame, state, at };
  };
  observe(liveState(0));
  for (let i = 0; i < events; i++) {
    step();
    push("keys", { frame, keys: "hjkl"[i % 4]! });
    frame++;
    observe(liveState(frame));
  }
  const ending = endingState(spec.outcome, frame + 1);
  if (ending !== null) {
    frame++;
    observe(ending);
  }
  if (spec.outcome === "save-quit") {
    frame++;
    observe({ ...liveState(frame), playing: false });
  }
  const stopped = spec.outcome === "unterminated";
  let snapshot: Buffer | null = null;
  const scored = ending !== null || spec.outcome === "interrupted";
  if (scored && !stopped) {
    step();
    const l = last!;
    snapshot = Buffer.from(JSON.stringify({ format: "assay.snapshot/1", session: `${spec.experiment}.${spec.trial}.a${spec.attempt}`, frame: l.frame, at, state: l.state }));
    push("score", { final: true, snapshot: sha(snapshot) });
  } else if (spec.outcome === "resource-bound") {
    step();
    push("score", { final: false, snapshot: null });
  }
  const status =
    ending !== null ? "completed"
    : spec.outcome === "interrupted" ? "interrupted"
    : spec.outcome === "resource-bound" ? "resource-bound"
    : "abnormal";
  const torn = spec.outcome === "torn-ending";
  if (!stopped) {
    step();
    push("end", { status, reason: torn ? "native ending" : `synthetic ${spec.outcome}` });
  }

  applyRecordFaults(lines, spec.fault);
  const { text, head } = chain(lines, spec.fault);
  const files = new Map<string, Buffer>();
  let journal = text;
  if (torn) journal = journal.slice(0, journal.length - 20); // the end record torn mid-write
  files.set("journal.jsonl", Buffer.from(spec.fault === "crlf" ? journal.replace(/\n/g, "\r\n") : journal));

  // A torn run keeps the summary written before the writer died (stale: not checked).
  if (!stopped) {
    const counts = { keys: 0, observations: 0, scores: 0 };
    for (const l of lines) {
      if (l["type"] === "keys") counts.keys++;
      if (l["type"] === "observation") counts.observations++;
      if (l["type"] === "score") counts.scores++;
    }
    const endAt = lines[lines.length - 1]!["at"];
    const e = ending === null ? null : lines.find((l) => l["type"] === "observation" && (l["state"] as State).is_dead)!;
    const deadlineNow = lines[0]!["deadline"] as number;
    const victory = ending !== null && spec.outcome === "victory" && (e!["at"] as number) <= deadlineNow;
    const summary = {
      format: "assay.summary/1",
      session: `${spec.experiment}.${spec.trial}.a${spec.attempt}`,
      experiment: spec.experiment,
      trial: spec.trial,
      attempt: spec.attempt,
      seed: spec.seed,
      journal: { records: lines.length, head },
      status,
      ended_at: endAt,
      native_ending: e === null ? null : { at: e["at"], frame: e["frame"], escaped: ending!.escaped, is_dead: true, depth: ending!.depth },
      victory: spec.fault === "summary-claims-victory" ? true : victory,
      snapshot: snapshot === null ? null : sha(snapshot),
      counts,
    };
    if (spec.fault !== "missing-summary") files.set("summary.json", Buffer.from(JSON.stringify(summary) + "\n"));
  }
  if (snapshot !== null) {
    if (spec.fault === "snapshot-mismatch") {
      // Keep the digest the journal names but change what it describes.
      const s = JSON.parse(snapshot.toString());
      s.state.turn += 1;
      snapshot = Buffer.from(JSON.stringify(s));
    }
    files.set("snapshot.json", snapshot);
  }
  return files;
}

function applyRecordFaults(lines: Record<string, unknown>[], fault: NativeFault | undefined): void {
  if (fault === "late-keys") {
    // The deadline passes just before the first key batch, which the service admitted anyway.
    const keys = lines.find((l) => l["type"] === "keys")!;
    lines[0]!["deadline"] = (keys["at"] as number) - 1;
  }
}

/** Serialise and chain the records; some faults are applied to the text. */
function chain(lines: Record<string, unknown>[], fault: NativeFault | undefined): { text: string; head: string } {
  let prev = "0".repeat(64);
  let text = "";
  lines.forEach((l, i) => {
    l["prev"] = prev;
    let s = JSON.stringify(l);
    if (i === 0 && fault === "nan-meta") s = s.replace(`"max_turns":400`, `"max_turns":NaN`);
    if (i === 0 && fault === "seed-uppercase") s = s.replace(/"seed":"([0-9a-f]+)"/, (_m, x: string) => `"seed":"${x.toUpperCase()}"`);
    if (l["type"] === "keys" && i === 2 && fault === "duplicate-key") s = s.replace(/}$/, `,"keys":"x"}`);
    if (l["type"] === "observation" && i === 3 && fault === "float-frame") s = s.replace(`"frame":1,`, `"frame":1.0,`);
    prev = sha(s);
    // Altered after chaining: the next line's prev no longer matches.
    if (i === 3 && fault === "bad-chain") s = s.replace(/"turn":([0-9]+)/, (_m, x: string) => `"turn":${Number(x) + 1}`);
    text += s + "\n";
  });
  return { text, head: prev };
}
