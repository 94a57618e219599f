// Test-side bundle builder. Written apart from src/ on purpose: it chains, summarises and judges
// victory with its own simple code, so tests check the scorer against an independent reading.

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { BundleSource } from "../../src/core/folder.js";
import { scoreBundle } from "../../src/kinds/bundle/score.js";

export const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");
export const ZERO = "0".repeat(64);
export const T0 = 1_788_000_000_000;
export const DEADLINE = T0 + 3_600_000;

export type Rec = Record<string, unknown>;

export type State = {
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

export const live = (over: Partial<State> = {}): State => ({
  character_generated: true,
  playing: true,
  is_dead: false,
  escaped: false,
  depth: 1,
  max_depth: 1,
  game_type: 0,
  noscore: 0,
  wizard: false,
  score_options: false,
  died_from: "",
  turn: 10,
  playerturn: 5,
  silmarils: 0,
  inventory: [{ slot: 0, k_idx: 20, tval: 23, sval: 1, number: 1, name1: 0 }],
  ...over,
});
export const SILMARIL = { slot: 1, k_idx: 131, tval: 39, sval: 9, number: 1, name1: 0 };
export const CROWN = { slot: 2, k_idx: 300, tval: 33, sval: 50, number: 1, name1: 176 };
/** The state do_cmd_escape leaves, with a Silmaril held. */
export const escaped = (over: Partial<State> = {}): State =>
  live({
    playing: false,
    is_dead: true,
    escaped: true,
    depth: 0,
    max_depth: 20,
    died_from: "ripe old age",
    turn: 900,
    playerturn: 450,
    silmarils: 1,
    inventory: [live().inventory[0]!, SILMARIL],
    ...over,
  });
/** A monster kill: is_dead set, playing still set. */
export const killed = (over: Partial<State> = {}): State =>
  live({ is_dead: true, died_from: "an orc", depth: 7, max_depth: 9, turn: 500, playerturn: 250, ...over });

export interface HeaderOpts {
  experiment?: string;
  trial?: string;
  attempt?: number;
  seed?: string;
  deadline?: number;
  meta?: Rec;
  at?: number;
  session?: string;
}
export const header = (o: HeaderOpts = {}): Rec => ({
  type: "session",
  at: o.at ?? T0,
  format: "assay.bundle/1",
  profile: "native-game",
  session: o.session ?? `s-${o.trial ?? "t1"}-${o.attempt ?? 1}`,
  experiment: o.experiment ?? "exp",
  trial: o.trial ?? "t1",
  attempt: o.attempt ?? 1,
  seed: o.seed ?? "00112233445566778899aabbccddeeff",
  harness: { name: "silq-bench", revision: "0.5.0" },
  deadline: o.deadline ?? DEADLINE,
  meta: o.meta ?? { model: "m-1" },
});

/** Independent victory oracle (contract §4.3), deadline included. */
export function oracleVictory(state: State, at: number, deadline: number): boolean {
  const held = state.inventory.some(
    (i) =>
      i.number > 0 &&
      ((i.tval === 39 && i.sval === 9 && i.k_idx > 0) ||
        (i.tval === 33 && i.sval === 50 && [176, 177, 178].includes(i.name1))),
  );
  return (
    state.escaped &&
    state.is_dead &&
    !state.playing &&
    state.depth === 0 &&
    state.character_generated &&
    state.game_type === 0 &&
    (state.noscore & 15) === 0 &&
    !state.wizard &&
    !state.score_options &&
    held &&
    at <= deadline
  );
}

/**
 * Chain records into journal text: fills `seq` and `prev` (unless a record sets them), keeps
 * key order seq, at, type, prev, then the rest. `raw` strings are used as written.
 */
export function chain(records: (Rec | { raw: string })[]): { text: string; lines: string[]; head: string } {
  let prev = ZERO;
  const lines: string[] = [];
  records.forEach((r, i) => {
    let s: string;
    if ("raw" in r && typeof r.raw === "string") s = r.raw;
    else {
      const { seq, at, type, prev: p, ...rest } = r as Rec;
      s = JSON.stringify({ seq: seq ?? i, at, type, prev: p ?? prev, ...rest });
    }
    lines.push(s);
    prev = sha(s);
  });
  return { text: lines.map((l) => l + "\n").join(""), lines, head: prev };
}

export interface GameOpts extends HeaderOpts {
  /** Observations in order (frames 0..n-1, one key batch between each pair). */
  states?: State[];
  score?: "final" | "none" | "intermediate";
  end?: string | null;
}

/** A whole valid native game as records; timestamps one second apart. */
export function game(o: GameOpts = {}): Rec[] {
  const states = o.states ?? [live(), live({ turn: 20, playerturn: 10 }), killed()];
  let at = o.at ?? T0;
  const recs: Rec[] = [header(o)];
  states.forEach((state, frame) => {
    if (frame > 0) recs.push({ type: "keys", at: (at += 1000), frame: frame - 1, keys: "l" });
    recs.push({ type: "observation", at: (at += 1000), frame, state });
  });
  if ((o.score ?? "final") === "final") recs.push({ type: "score", at: (at += 1000), final: true, snapshot: "auto" });
  if (o.score === "intermediate") recs.push({ type: "score", at: (at += 1000), final: false, snapshot: null });
  const end = o.end === undefined ? (states.some((s) => s.is_dead) ? "completed" : "interrupted") : o.end;
  if (end !== null) recs.push({ type: "end", at: (at += 1000), status: end, reason: "test" });
  return recs;
}

export interface BundleOpts {
  /** "auto" (default): computed here from the records; null: absent; an object: merged over auto. */
  summary?: "auto" | null | Rec;
  snapshot?: "auto" | null | Rec;
  extra?: Record<string, string | Buffer>;
  /** Bytes appended to the journal (e.g. a torn tail). */
  tail?: string;
}

/**
 * Files of a bundle from records. A final score with snapshot "auto" names the digest of the
 * snapshot built from the last observation before it; the summary is computed independently.
 */
export function bundle(records: (Rec | { raw: string })[], o: BundleOpts = {}): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {};
  const recs = records.map((r) => ("raw" in r ? r : { ...r }));
  const hdr = recs[0] as Rec;
  let lastObs: Rec | null = null;
  let snapshotText: string | null = null;
  for (const r of recs) {
    if ("raw" in r) continue;
    if (r["type"] === "observation") lastObs = r;
    if (r["type"] === "score" && r["snapshot"] === "auto") {
      const snap = {
        format: "assay.snapshot/1",
        session: hdr["session"],
        frame: lastObs?.["frame"],
        at: r["at"],
        state: lastObs?.["state"],
        ...(typeof o.snapshot === "object" && o.snapshot !== null ? o.snapshot : {}),
      };
      snapshotText = JSON.stringify(snap);
      r["snapshot"] = sha(snapshotText);
    }
  }
  const { text, head, lines } = chain(recs);
  files["journal.jsonl"] = text + (o.tail ?? "");
  if (snapshotText !== null && o.snapshot !== null) files["snapshot.json"] = snapshotText;
  const plain = recs.filter((r): r is Rec => !("raw" in r));
  const end = plain.find((r) => r["type"] === "end");
  if (end && o.summary !== null) {
    const ending = plain.find((r) => r["type"] === "observation" && (r["state"] as State).is_dead);
    const es = ending?.["state"] as State | undefined;
    const finalScore = plain.find((r) => r["type"] === "score" && r["final"] === true);
    const auto: Rec = {
      format: "assay.summary/1",
      session: hdr["session"],
      experiment: hdr["experiment"],
      trial: hdr["trial"],
      attempt: hdr["attempt"],
      seed: hdr["seed"],
      journal: { records: lines.length, head },
      status: end["status"],
      ended_at: end["at"],
      native_ending: ending
        ? { at: ending["at"], frame: ending["frame"], escaped: es!.escaped, is_dead: es!.is_dead, depth: es!.depth }
        : null,
      victory: ending ? oracleVictory(es!, ending["at"] as number, hdr["deadline"] as number) : false,
      snapshot: finalScore ? finalScore["snapshot"] : null,
      counts: {
        keys: plain.filter((r) => r["type"] === "keys").length,
        observations: plain.filter((r) => r["type"] === "observation").length,
        scores: plain.filter((r) => r["type"] === "score").length,
      },
    };
    files["summary.json"] = JSON.stringify(typeof o.summary === "object" ? { ...auto, ...o.summary } : auto);
  }
  Object.assign(files, o.extra ?? {});
  return files;
}

/** An in-memory BundleSource (every listed file is a regular file; folders are implied). */
export function memSource(files: Record<string, string | Buffer>): BundleSource {
  const bufs = new Map(Object.entries(files).map(([p, b]) => [p, Buffer.isBuffer(b) ? b : Buffer.from(b)]));
  const dirs = new Set<string>();
  for (const p of bufs.keys()) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return {
    entries: [
      ...[...dirs].map((path) => ({ path, kind: "dir" as const, size: 0 })),
      ...[...bufs].map(([path, b]) => ({ path, kind: "file" as const, size: b.length })),
    ],
    read: (p) => [bufs.get(p)!],
  };
}

export const score = (files: Record<string, string | Buffer>) => scoreBundle(memSource(files));
export const codes = (e: { errors: { code: string }[] }) => [...new Set(e.errors.map((f) => f.code))].sort();
export const warningCodes = (e: { warnings: { code: string }[] }) => [...new Set(e.warnings.map((f) => f.code))].sort();

/** Write a bundle's files (relative paths, folders created) under `dir`. */
export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [p, b] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), b);
  }
}

/**
 * Rewrite lines of a chained log (1-based line number → new text or bytes) and re-chain every
 * `prev` after them, so only the edited lines are at fault. Returns the new bytes and head.
 */
export function rechain(
  text: string | Buffer,
  edits: Record<number, (line: string) => string | Buffer>,
): { bytes: Buffer; head: string; records: number } {
  const out: Buffer[] = [];
  let prev = ZERO;
  String(text)
    .split("\n")
    .slice(0, -1)
    .forEach((line, i) => {
      const s = JSON.stringify({ ...JSON.parse(line), prev });
      const changed = edits[i + 1]?.(s) ?? s;
      const b = Buffer.isBuffer(changed) ? changed : Buffer.from(changed);
      out.push(b);
      prev = sha(b);
    });
  return { bytes: Buffer.concat(out.flatMap((b) => [b, Buffer.from("\n")])), head: prev, records: out.length };
}
