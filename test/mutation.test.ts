// Mutation test (contract §2–4): thousands of seeded mutants of valid native-game bundles, each
// re-chained (§3) and re-summarised (§4.4, §4.5) by code written here, so that they get past the
// chain and companion checks and reach the scoring logic. Each mutant is then judged twice:
// by scoreBundle and by a deliberately simple reading of the contract written in this file
// (a validity oracle for the rules the mutation operators can break, and the §4.3 victory oracle).
// The two must agree both ways, and a meaningful share of mutants must be valid.

import { describe, expect, it } from "vitest";
import { scoreBundle } from "../src/kinds/bundle/score.js";
import { synthNative, type NativeOutcome } from "../src/synth/native.js";
import { rng as seeded } from "./helpers/random.js";
import {
  bundle,
  CROWN,
  escaped,
  game,
  live,
  memSource,
  oracleVictory,
  sha,
  SILMARIL,
  ZERO,
  type Rec,
  type State,
} from "./helpers/bundle.js";

// ---------------------------------------------------------------------------------------------
// Seeded PRNG (helpers/random.ts): the mutant set is the same on every run.
type Rng = () => number;
const int = (rng: Rng, n: number) => Math.floor(rng() * n);
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[int(rng, xs.length)]!;
const clone = <T>(v: T): T => structuredClone(v);

// ---------------------------------------------------------------------------------------------
// Bases: valid bundles as records (envelope seq/prev are recomputed on materialisation).

interface Base {
  name: string;
  records: Rec[];
  /** A torn tail (the bytes of a line the writer never finished), or null. */
  tail: string | null;
  /** A summary.json left by the writer beside an unterminated journal (stale, never checked). */
  staleSummary: string | null;
  victory: boolean;
}

const stripEnvelope = (r: Rec): Rec => {
  const { seq: _s, prev: _p, ...rest } = r;
  return rest;
};

function fromFiles(name: string, files: Map<string, Buffer> | Record<string, string | Buffer>, victory: boolean): Base {
  const get = (p: string) => (files instanceof Map ? files.get(p) : files[p]);
  const text = get("journal.jsonl")!.toString();
  const parts = text.split("\n");
  const tail = parts.pop()!; // "" when the journal ends with \n
  const records = parts.map((l) => stripEnvelope(JSON.parse(l) as Rec));
  const hasEnd = records.some((r) => r["type"] === "end");
  const summary = get("summary.json");
  return {
    name,
    records,
    tail: tail === "" ? null : tail,
    staleSummary: !hasEnd && summary !== undefined ? summary.toString() : null,
    victory,
  };
}

function synthBase(outcome: NativeOutcome, victory: boolean, events = 5): Base {
  const files = synthNative({
    experiment: "mx",
    trial: `t-${outcome}`,
    attempt: 1,
    seed: "00112233445566778899aabbccddeeff",
    outcome,
    events,
  });
  return fromFiles(`synth:${outcome}`, files, victory);
}

const INV0 = live().inventory[0]!;

function bases(): Base[] {
  return [
    synthBase("victory", true),
    synthBase("death", false),
    synthBase("late-victory", false),
    synthBase("retire", false),
    synthBase("interrupted", false),
    synthBase("unterminated", false),
    synthBase("torn-ending", false),
    synthBase("escape-empty", false),
    synthBase("resource-bound", false),
    synthBase("save-quit", false),
    // A crown win followed by a post-game screen (keys and an observation after the ending).
    fromFiles(
      "helper:crown-postgame",
      bundle(
        game({
          trial: "crown",
          states: [
            live(),
            live({ turn: 20, playerturn: 10 }),
            escaped({ inventory: [INV0, CROWN] }),
            escaped({ turn: 901, playerturn: 451, inventory: [INV0, CROWN] }),
          ],
        }),
      ),
      true,
    ),
    // Final scoring of a live game, then the writer died before `end`: unterminated with a final score.
    fromFiles(
      "helper:unterminated-final",
      bundle(game({ trial: "uf", states: [live(), live({ turn: 20, playerturn: 10 })], score: "final", end: null })),
      false,
    ),
    // An escape whose crown slot is empty (number 0): the silmarils counter says 3, no possession.
    fromFiles(
      "helper:empty-crown",
      bundle(
        game({
          trial: "ec",
          states: [live(), escaped({ silmarils: 3, inventory: [INV0, { ...CROWN, number: 0 }] })],
        }),
      ),
      false,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// Mutants.

interface DupKey {
  /** Line index (0-based) whose text gets a duplicated key. */
  line: number;
  /** Which pattern to duplicate (index into DUP_PATTERNS among those matching). */
  choice: number;
  before: boolean;
  escapeKey: boolean;
}

interface Mutant {
  base: Base;
  ops: string[];
  records: Rec[];
  dupKey: DupKey | null;
}

const BOOLS = ["escaped", "is_dead", "playing", "wizard", "score_options", "character_generated"] as const;
const END_STATUSES = ["completed", "interrupted", "abnormal", "resource-bound"];

const isObs = (r: Rec) => r["type"] === "observation" && typeof r["state"] === "object" && r["state"] !== null;
const stateOf = (r: Rec) => r["state"] as State;
const deadlineOf = (recs: Rec[]) => (recs[0]?.["deadline"] as number | undefined) ?? 0;
const endingIndex = (recs: Rec[]) => recs.findIndex((r) => isObs(r) && stateOf(r).is_dead === true);

/** An observation to mutate: mostly the ending (or the last observation), sometimes any. */
function targetObs(rng: Rng, recs: Rec[]): number[] {
  const obs = recs.map((r, i) => (isObs(r) ? i : -1)).filter((i) => i >= 0);
  if (obs.length === 0) return [];
  const e = endingIndex(recs);
  const main = rng() < 0.65 ? (e >= 0 ? e : obs[obs.length - 1]!) : pick(rng, obs);
  // Half the time the change holds from there on (a consistent game), else on that line alone.
  return rng() < 0.5 ? obs.filter((i) => i >= main) : [main];
}

type Op = (rng: Rng, recs: Rec[], m: Mutant) => string | null;

const ITEM_VALUES: Record<string, number[]> = {
  tval: [0, 23, 33, 39, 255, 256],
  sval: [1, 9, 50, 255, 256],
  k_idx: [0, 1, 131, -1],
  number: [0, 1, 99, 100],
  name1: [0, 175, 176, 177, 178, 179, -1],
};

const OPS: [number, string, Op][] = [
  [
    20,
    "flip",
    (rng, recs) => {
      const k = pick(rng, BOOLS);
      const ts = targetObs(rng, recs);
      if (ts.length === 0) return null;
      const v = !stateOf(recs[ts[0]!]!)[k];
      for (const i of ts) (stateOf(recs[i]!) as Record<string, unknown>)[k] = v;
      return `flip ${k}=${v}@${ts.join(",")}`;
    },
  ],
  [
    7,
    "depth",
    (rng, recs) => {
      const d = pick(rng, [0, 1, 20]);
      const raiseMax = rng() < 0.6;
      const ts = targetObs(rng, recs);
      if (ts.length === 0) return null;
      for (const i of ts) {
        const s = stateOf(recs[i]!);
        s.depth = d;
        if (raiseMax) s.max_depth = Math.max(s.max_depth, d);
      }
      return `depth=${d}${raiseMax ? "+max" : ""}@${ts.join(",")}`;
    },
  ],
  [
    10,
    "item",
    (rng, recs) => {
      const field = pick(rng, Object.keys(ITEM_VALUES));
      const v = pick(rng, ITEM_VALUES[field]!);
      const ts = targetObs(rng, recs);
      if (ts.length === 0) return null;
      const inv0 = stateOf(recs[ts[0]!]!).inventory;
      if (inv0.length === 0) return null;
      const slotIdx = int(rng, inv0.length);
      for (const i of ts) {
        const it = stateOf(recs[i]!).inventory[slotIdx];
        if (it !== undefined) (it as Record<string, number>)[field] = v;
      }
      return `item[${slotIdx}].${field}=${v}@${ts.join(",")}`;
    },
  ],
  [
    9,
    "add-quest-item",
    (rng, recs) => {
      const kind = pick(rng, [
        "silmaril",
        "crown",
        "crown-176",
        "crown-178",
        "crown-179",
        "silmaril-k0",
        "silmaril-n0",
      ]);
      const item =
        kind === "silmaril"
          ? { ...SILMARIL }
          : kind === "silmaril-k0"
            ? { ...SILMARIL, k_idx: 0 }
            : kind === "silmaril-n0"
              ? { ...SILMARIL, number: 0 }
              : kind === "crown-176"
                ? { ...CROWN, name1: 176 }
                : kind === "crown-178"
                  ? { ...CROWN, name1: 178 }
                  : kind === "crown-179"
                    ? { ...CROWN, name1: 179 }
                    : { ...CROWN, name1: 177 };
      // Usually a free slot; sometimes a slot already used (distinct slots: SCHEMA).
      const slot = rng() < 0.85 ? 10 + int(rng, 28) : 0;
      const ts = targetObs(rng, recs);
      if (ts.length === 0) return null;
      for (const i of ts) stateOf(recs[i]!).inventory.push({ ...item, slot });
      return `add ${kind} slot ${slot}@${ts.join(",")}`;
    },
  ],
  [
    4,
    "drop-items",
    (rng, recs) => {
      const ts = targetObs(rng, recs);
      if (ts.length === 0) return null;
      for (const i of ts) stateOf(recs[i]!).inventory = [];
      return `inventory=[]@${ts.join(",")}`;
    },
  ],
  [
    3,
    "silmarils",
    (rng, recs) => {
      const v = pick(rng, [0, 1, 3]);
      const ts = targetObs(rng, recs);
      if (ts.length === 0) return null;
      for (const i of ts) stateOf(recs[i]!).silmarils = v;
      return `silmarils=${v}@${ts.join(",")}`;
    },
  ],
  [
    6,
    "rules",
    (rng, recs) => {
      const field = rng() < 0.4 ? "game_type" : "noscore";
      const v =
        field === "game_type" ? pick(rng, [0, -1, 1, 2]) : pick(rng, [0, 1, 2, 4, 8, 15, 16, 32, 256, 65535, 65536]);
      const ts = targetObs(rng, recs);
      if (ts.length === 0) return null;
      for (const i of ts) (stateOf(recs[i]!) as Record<string, unknown>)[field] = v;
      return `${field}=${v}@${ts.join(",")}`;
    },
  ],
  [
    2,
    "died_from",
    (rng, recs) => {
      const v = pick(rng, ["won the game", "Morgoth, Lord of Darkness", "ripe old age", ""]);
      const ts = targetObs(rng, recs);
      if (ts.length === 0) return null;
      for (const i of ts) stateOf(recs[i]!).died_from = v;
      return `died_from=${JSON.stringify(v)}`;
    },
  ],
  [
    6,
    "ending-at",
    (rng, recs) => {
      // Move the ending (else the last observation) to around the deadline; later records follow.
      let k = endingIndex(recs);
      if (k < 0)
        k =
          recs
            .map((r, i) => (isObs(r) ? i : -1))
            .filter((i) => i >= 0)
            .pop() ?? -1;
      if (k < 0) return null;
      const d = pick(rng, [-1000, -1, 0, 1, 1000]);
      const delta = deadlineOf(recs) + d - (recs[k]!["at"] as number);
      for (let i = k; i < recs.length; i++) recs[i]!["at"] = (recs[i]!["at"] as number) + delta;
      return `ending-at=deadline${d >= 0 ? "+" : ""}${d}@${k}`;
    },
  ],
  [
    6,
    "deadline",
    (rng, recs) => {
      const h = recs[0]!;
      const k = endingIndex(recs);
      const obs = recs.filter(isObs);
      const anchor =
        k >= 0
          ? (recs[k]!["at"] as number)
          : ((obs[obs.length - 1]?.["at"] as number | undefined) ?? (h["at"] as number) + 5000);
      const which = int(rng, 7);
      const v =
        which < 5
          ? anchor + [-1000, -1, 0, 1, 1000][which]!
          : which === 5
            ? (h["at"] as number)
            : (h["at"] as number) + 1;
      h["deadline"] = v;
      return `deadline=${v - anchor >= 0 ? "+" : ""}${v - anchor}`;
    },
  ],
  [
    4,
    "at",
    (rng, recs) => {
      const i = 1 + int(rng, recs.length - 1);
      const prev = recs[i - 1]!["at"] as number;
      const v = prev + pick(rng, [-1, 0, 1]);
      recs[i]!["at"] = v;
      return `at[${i}]=prev${v - prev >= 0 ? "+" : ""}${v - prev}`;
    },
  ],
  [
    4,
    "type",
    (rng, recs) => {
      const i = int(rng, recs.length);
      const v = pick(rng, ["session", "observation", "keys", "score", "end", "bogus", "Observation"]);
      recs[i]!["type"] = v;
      return `type[${i}]=${v}`;
    },
  ],
  [
    4,
    "frame",
    (rng, recs) => {
      const idx = recs.map((r, i) => (typeof r["frame"] === "number" ? i : -1)).filter((i) => i >= 0);
      if (idx.length === 0) return null;
      const i = pick(rng, idx);
      const f = recs[i]!["frame"] as number;
      const v = pick(rng, [f + 1, f - 1, 0, 1.5]);
      recs[i]!["frame"] = v;
      return `frame[${i}]=${v}`;
    },
  ],
  [
    6,
    "status",
    (rng, recs) => {
      const ends = recs.map((r, i) => (r["type"] === "end" ? i : -1)).filter((i) => i >= 0);
      const v = pick(rng, [...END_STATUSES, "done"]);
      if (ends.length === 0) {
        // Append an end record to an unterminated journal.
        const lastAt = recs[recs.length - 1]!["at"] as number;
        recs.push({ at: lastAt + 1000, type: "end", status: v, reason: "mutant" });
        return `append end ${v}`;
      }
      const i = pick(rng, ends);
      recs[i]!["status"] = v;
      return `status[${i}]=${v}`;
    },
  ],
  [
    3,
    "final",
    (rng, recs) => {
      const idx = recs.map((r, i) => (r["type"] === "score" ? i : -1)).filter((i) => i >= 0);
      if (idx.length === 0) {
        // Insert a score record just before the end (or at the end).
        const e = recs.findIndex((r) => r["type"] === "end");
        const at = e >= 0 ? (recs[e]!["at"] as number) : (recs[recs.length - 1]!["at"] as number) + 1000;
        const fin = rng() < 0.6;
        recs.splice(e >= 0 ? e : recs.length, 0, { at, type: "score", final: fin, snapshot: null });
        return `insert score final=${fin}`;
      }
      const i = pick(rng, idx);
      recs[i]!["final"] = !recs[i]!["final"];
      return `final[${i}]=${recs[i]!["final"]}`;
    },
  ],
  [
    5,
    "drop",
    (rng, recs) => {
      if (recs.length < 2) return null;
      const i = rng() < 0.05 ? 0 : 1 + int(rng, recs.length - 1);
      recs.splice(i, 1);
      return `drop[${i}]`;
    },
  ],
  [
    4,
    "swap",
    (rng, recs) => {
      if (recs.length < 3) return null;
      const i = rng() < 0.05 ? 0 : 1 + int(rng, recs.length - 2);
      [recs[i], recs[i + 1]] = [recs[i + 1]!, recs[i]!];
      return `swap[${i},${i + 1}]`;
    },
  ],
  [
    2,
    "move",
    (rng, recs) => {
      if (recs.length < 3) return null;
      const i = 1 + int(rng, recs.length - 1);
      const [r] = recs.splice(i, 1);
      const j = 1 + int(rng, recs.length);
      recs.splice(j, 0, r!);
      return `move[${i}->${j}]`;
    },
  ],
  [
    5,
    "duplicate",
    (rng, recs) => {
      const i = rng() < 0.05 ? 0 : 1 + int(rng, recs.length - 1);
      const where = rng() < 0.7 ? i + 1 : recs.length;
      recs.splice(where, 0, clone(recs[i]!));
      return `dup[${i}->${where}]`;
    },
  ],
  [
    6,
    "dup-key",
    (rng, recs, m) => {
      if (m.dupKey !== null) return null;
      m.dupKey = { line: int(rng, recs.length), choice: int(rng, 1000), before: rng() < 0.5, escapeKey: rng() < 0.4 };
      return `dup-key line ${m.dupKey.line}${m.dupKey.escapeKey ? " (escaped)" : ""}`;
    },
  ],
];
const TOTAL_WEIGHT = OPS.reduce((a, [w]) => a + w, 0);

function pickOp(rng: Rng): Op {
  let x = rng() * TOTAL_WEIGHT;
  for (const [w, , op] of OPS) if ((x -= w) < 0) return op;
  return OPS[OPS.length - 1]![2];
}

function mutate(base: Base, rng: Rng): Mutant {
  const m: Mutant = { base, ops: [], records: clone(base.records), dupKey: null };
  const n = 1 + (rng() < 0.45 ? 1 : 0) + (rng() < 0.15 ? 1 : 0);
  for (let tries = 0; m.ops.length < n && tries < 20; tries++) {
    const label = pickOp(rng)(rng, m.records, m);
    if (label !== null) m.ops.push(label);
  }
  if (m.dupKey !== null && m.dupKey.line >= m.records.length) m.dupKey.line = m.records.length - 1;
  return m;
}

// ---------------------------------------------------------------------------------------------
// Duplicated keys, injected into a line's text (after serialisation, before chaining).

const DUP_PATTERNS: [RegExp, (k: string, v: string) => string][] = [
  [
    /"(escaped|is_dead|playing|wizard|score_options|character_generated|final)":(true|false)/,
    (_k, v) => (v === "true" ? "false" : "true"),
  ],
  [
    /"(number|depth|tval|noscore|game_type|silmarils)":(-?[0-9]+)/,
    (k, v) => (k === "depth" ? "0" : v === "0" ? "1" : "0"),
  ],
  [/"(type|status)":"([A-Za-z-]+)"/, (k) => (k === "type" ? `"observation"` : `"completed"`)],
  [/"(deadline|at|frame|seq)":([0-9]+)/, (_k, v) => String(Number(v) + 1)],
];

function injectDupKey(text: string, d: DupKey): string {
  const matching = DUP_PATTERNS.filter(([re]) => re.test(text));
  const [re, other] = matching[d.choice % matching.length]!;
  return text.replace(re, (whole, k: string, v: string) => {
    const key = d.escapeKey ? `\\u${k.charCodeAt(0).toString(16).padStart(4, "0")}${k.slice(1)}` : k;
    const dup = `"${key}":${other(k, v)}`;
    return d.before ? `${dup},${whole}` : `${whole},${dup}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Materialise: snapshot (§4.4), chain (§3), summary (§4.5) — all recomputed from the mutated records.

function materialise(m: { records: Rec[]; dupKey: DupKey | null; base: Base }): Record<string, string> {
  const recs = clone(m.records);
  const hdr = recs[0] ?? {};
  const files: Record<string, string> = {};

  const lastObs = [...recs].reverse().find(isObs);
  const firstFinal = recs.find((r) => r["type"] === "score" && r["final"] === true);
  let snapDigest: string | null = null;
  if (firstFinal !== undefined) {
    const at = Math.max(firstFinal["at"] as number, (lastObs?.["at"] as number | undefined) ?? 0);
    const snap = JSON.stringify({
      format: "assay.snapshot/1",
      session: hdr["session"],
      frame: lastObs?.["frame"],
      at,
      state: lastObs?.["state"],
    });
    files["snapshot.json"] = snap;
    snapDigest = sha(snap);
  }
  for (const r of recs)
    if (r["type"] === "score" && typeof r["final"] === "boolean") r["snapshot"] = r["final"] ? snapDigest : null;

  let prev = ZERO;
  const lines: string[] = [];
  recs.forEach((r, i) => {
    const { at, type, ...rest } = r;
    let s = JSON.stringify({ seq: i, at, type, prev, ...rest });
    if (m.dupKey !== null && m.dupKey.line === i) s = injectDupKey(s, m.dupKey);
    lines.push(s);
    prev = sha(s);
  });
  files["journal.jsonl"] = lines.map((l) => l + "\n").join("") + (m.base.tail ?? "");

  const end = recs.find((r) => r["type"] === "end");
  if (end !== undefined) {
    const e = recs.find((r) => isObs(r) && stateOf(r).is_dead === true);
    const es = e === undefined ? null : stateOf(e);
    files["summary.json"] =
      JSON.stringify({
        format: "assay.summary/1",
        session: hdr["session"],
        experiment: hdr["experiment"],
        trial: hdr["trial"],
        attempt: hdr["attempt"],
        seed: hdr["seed"],
        journal: { records: lines.length, head: prev },
        status: end["status"],
        ended_at: end["at"],
        native_ending:
          e === undefined
            ? null
            : { at: e["at"], frame: e["frame"], escaped: es!.escaped, is_dead: es!.is_dead, depth: es!.depth },
        victory: e === undefined ? false : oracleVictory(es!, e["at"] as number, hdr["deadline"] as number),
        snapshot: firstFinal === undefined ? null : snapDigest,
        counts: {
          keys: recs.filter((r) => r["type"] === "keys").length,
          observations: recs.filter((r) => r["type"] === "observation").length,
          scores: recs.filter((r) => r["type"] === "score").length,
        },
      }) + "\n";
  } else if (m.base.staleSummary !== null) {
    files["summary.json"] = m.base.staleSummary;
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// The simple oracle: the rules (§2–4) that the operators above can break, and §4.3 victory.

const isInt = (v: unknown, lo = -(2 ** 53 - 1), hi = 2 ** 53 - 1): v is number =>
  Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi;

function stateProblems(s: State): string[] {
  const p: string[] = [];
  if (!isInt(s.depth, 0, 20) || !isInt(s.max_depth, 0, 20) || s.max_depth < s.depth) p.push("depth");
  if (!isInt(s.noscore, 0, 65535)) p.push("noscore");
  for (const it of s.inventory) {
    if (
      !isInt(it.slot, 0, 37) ||
      !isInt(it.k_idx, 0) ||
      !isInt(it.tval, 0, 255) ||
      !isInt(it.sval, 0, 255) ||
      !isInt(it.number, 0, 99) ||
      !isInt(it.name1, 0)
    )
      p.push("item");
  }
  if (new Set(s.inventory.map((i) => i.slot)).size !== s.inventory.length) p.push("slots");
  return p;
}

/** §2: a record holds exactly the envelope and its type's keys. */
const strict = (r: Rec, keys: string[]) => {
  const have = Object.keys(r)
    .filter((k) => k !== "at" && k !== "type")
    .sort();
  return JSON.stringify(have) === JSON.stringify([...keys].sort());
};

/** Why the contract makes this mutant invalid (empty: valid). */
function oracleProblems(m: Mutant): string[] {
  const p: string[] = [];
  if (m.dupKey !== null) p.push("§2 duplicate key");
  const recs = m.records;
  const h = recs[0];
  if (h === undefined || h["type"] !== "session") return [...p, "§3 line 1 not a session header"];
  const deadline = h["deadline"] as number;
  if (!(deadline > (h["at"] as number))) p.push("§3 deadline not after header at");
  let lastAt = h["at"] as number;
  let obsCount = 0;
  let latestFrame: number | null = null;
  let prevObs: State | null = null;
  let ending: State | null = null;
  let final = false;
  let ended = false;
  recs.forEach((r, i) => {
    if (i === 0) return;
    const at = r["at"] as number;
    if (at < lastAt) p.push(`§3 at decreases on line ${i + 1}`);
    lastAt = Math.max(lastAt, at);
    if (ended) p.push(`§4.1 record after end on line ${i + 1}`);
    else if (final && r["type"] !== "end") p.push(`§4.1 non-end record after the final score on line ${i + 1}`);
    switch (r["type"]) {
      case "session":
        p.push(`§3 second session on line ${i + 1}`);
        break;
      case "observation": {
        if (!strict(r, ["frame", "state"]) || !isInt(r["frame"], 0)) {
          p.push(`§2 malformed observation on line ${i + 1}`);
          break;
        }
        const s = stateOf(r);
        if (r["frame"] !== obsCount)
          p.push(`§4.1 observation frame ${r["frame"]} on line ${i + 1}, expected ${obsCount}`);
        latestFrame = r["frame"] as number;
        obsCount++;
        for (const x of stateProblems(s)) p.push(`§4.2 ${x} on line ${i + 1}`);
        if (prevObs !== null && (s.turn < prevObs.turn || s.playerturn < prevObs.playerturn))
          p.push(`§4.2 turn decreases on line ${i + 1}`);
        if (ending !== null && (s.is_dead !== ending.is_dead || s.escaped !== ending.escaped))
          p.push(`§4.3 flags changed after the ending on line ${i + 1}`);
        if (ending === null && s.is_dead) ending = s;
        prevObs = s;
        break;
      }
      case "keys":
        if (!strict(r, ["frame", "keys"]) || !isInt(r["frame"], 0) || typeof r["keys"] !== "string") {
          p.push(`§2 malformed keys record on line ${i + 1}`);
          break;
        }
        if (latestFrame === null) p.push(`§4.1 keys before the first observation on line ${i + 1}`);
        else if (r["frame"] !== latestFrame)
          p.push(`§4.1 keys frame ${r["frame"]} on line ${i + 1}, latest observation ${latestFrame}`);
        if (at > deadline) p.push(`§4.1 keys after the deadline on line ${i + 1}`);
        break;
      case "score":
        if (!strict(r, ["final", "snapshot"]) || typeof r["final"] !== "boolean") {
          p.push(`§2 malformed score record on line ${i + 1}`);
          break;
        }
        if (obsCount === 0) p.push(`§4.1 score before the first observation on line ${i + 1}`);
        if (r["final"] === true) final = true;
        break;
      case "end":
        if (
          !strict(r, ["status", "reason"]) ||
          !END_STATUSES.includes(r["status"] as string) ||
          typeof r["reason"] !== "string"
        ) {
          p.push(`§2 malformed end record on line ${i + 1}`);
          break;
        }
        if (r["status"] === "completed" && ending === null)
          p.push(`§4.1 completed without a native ending on line ${i + 1}`);
        if (r["status"] === "interrupted" && !final) p.push(`§4.1 interrupted without a final score on line ${i + 1}`);
        ended = true;
        break;
      default:
        p.push(`§4.1 unknown record type ${JSON.stringify(r["type"])} on line ${i + 1}`);
    }
  });
  if (m.base.tail !== null && ended) p.push("§2 torn tail after the end record");
  return p;
}

interface Expected {
  valid: boolean;
  problems: string[];
  ending: boolean;
  victory: boolean;
  late: boolean | null;
  status: string;
}

function oracle(m: Mutant): Expected {
  const problems = oracleProblems(m);
  const recs = m.records;
  const e = recs.find((r) => isObs(r) && stateOf(r).is_dead === true);
  const deadline = deadlineOf(recs);
  const end = recs.find((r) => r["type"] === "end");
  return {
    valid: problems.length === 0,
    problems,
    ending: e !== undefined,
    // §4.3 on the first observation with is_dead; with an ending the ending decides whatever the status (§4.1).
    victory: e !== undefined && oracleVictory(stateOf(e), e["at"] as number, deadline),
    late: e === undefined ? null : (e["at"] as number) > deadline,
    status: (end?.["status"] as string | undefined) ?? "unterminated",
  };
}

// ---------------------------------------------------------------------------------------------

const SEED = 0x5eed_a55a;
const PER_BASE = 500;

describe("mutation: seeded mutants of valid native bundles, judged by scoreBundle and a simple oracle", () => {
  const all = bases();

  it("every base bundle is valid and scores as its outcome says (the starting points are sound)", () => {
    for (const b of all) {
      const m: Mutant = { base: b, ops: [], records: clone(b.records), dupKey: null };
      const e = scoreBundle(memSource(materialise(m)));
      expect({ base: b.name, validity: e.validity, errors: e.errors }).toEqual({
        base: b.name,
        validity: "valid",
        errors: [],
      });
      expect({ base: b.name, victory: e.victory }).toEqual({ base: b.name, victory: b.victory });
      expect(oracle(m)).toMatchObject({ valid: true, victory: b.victory });
    }
  });

  it("no mutant throws; the scorer and the oracle agree on validity, victory, late, ending and status", () => {
    const rng = seeded(SEED);
    const stats = {
      total: 0,
      valid: 0,
      invalid: 0,
      validVictories: 0,
      validNonVictories: 0,
      validLate: 0,
      victoryLost: 0,
      victoryGained: 0,
      dupKey: 0,
    };
    const byCode = new Map<string, number>();
    const disagreements: string[] = [];
    const companionErrors: string[] = [];
    const started = Date.now();

    for (const b of all) {
      for (let n = 0; n < PER_BASE; n++) {
        const m = mutate(b, rng);
        const files = materialise(m);
        const want = oracle(m);
        const where = `${b.name} #${n} [${m.ops.join("; ")}]`;
        stats.total++;
        let got: ReturnType<typeof scoreBundle>;
        try {
          got = scoreBundle(memSource(files));
        } catch (err) {
          disagreements.push(`${where}: scoreBundle threw ${String(err)}`);
          continue;
        }
        const codes = [...new Set(got.errors.map((f) => f.code))].sort();
        for (const c of codes) byCode.set(c, (byCode.get(c) ?? 0) + 1);
        if (m.dupKey !== null) stats.dupKey++;

        // The companions are rebuilt here from the journal: whenever the scorer compares them
        // (§3: only without a §2/§3 error) they must match its recomputation, victory field included.
        const ends = m.records.filter((r) => r["type"] === "end").length;
        const finals = m.records.filter((r) => r["type"] === "score" && r["final"] === true).length;
        if (ends <= 1 && finals <= 1 && m.records.some(isObs)) {
          const bad = got.errors.filter((f) => f.file !== "journal.jsonl");
          if (bad.length > 0)
            companionErrors.push(`${where}: ${bad.map((f) => `${f.code} ${f.file}: ${f.message}`).join(" | ")}`);
        }
        if (m.dupKey !== null && !codes.includes("JSON_DUPLICATE_KEY"))
          disagreements.push(`${where}: duplicated key not reported (codes ${codes.join(",") || "none"})`);

        const valid = got.validity === "valid";
        if (valid !== want.valid) {
          disagreements.push(
            `${where}: scorer ${got.validity} [${got.errors.map((f) => `${f.code}@${f.line}: ${f.message}`).join(" | ")}]` +
              ` but oracle ${want.valid ? "valid" : `invalid [${want.problems.join(" | ")}]`}`,
          );
          continue;
        }
        if (!valid) {
          stats.invalid++;
          // §10: victory and late are null when invalid.
          if (got.victory !== null || got.late !== null)
            disagreements.push(`${where}: invalid but victory=${got.victory} late=${got.late}`);
          continue;
        }
        stats.valid++;
        if (want.victory) stats.validVictories++;
        else stats.validNonVictories++;
        if (want.late === true) stats.validLate++;
        if (b.victory && !want.victory) stats.victoryLost++;
        if (!b.victory && want.victory) stats.victoryGained++;
        const gotView = { victory: got.victory, late: got.late, ending: got.ending, status: got.status };
        const wantView = { victory: want.victory, late: want.late, ending: want.ending, status: want.status };
        if (JSON.stringify(gotView) !== JSON.stringify(wantView))
          disagreements.push(`${where}: scorer ${JSON.stringify(gotView)} but oracle ${JSON.stringify(wantView)}`);
      }
    }

    const seconds = (Date.now() - started) / 1000;
    console.log(
      `mutation: ${stats.total} mutants from ${all.length} bases in ${seconds.toFixed(1)} s — ` +
        `${stats.valid} valid (reached scoring: ${stats.validVictories} victories, ${stats.validNonVictories} non-victories, ${stats.validLate} late), ` +
        `${stats.invalid} rejected; outcome flipped: ${stats.victoryLost} wins lost, ${stats.victoryGained} wins gained; ${stats.dupKey} with duplicated keys\n` +
        `  rejection codes (mutants per code): ${[...byCode]
          .sort((a, b) => b[1] - a[1])
          .map(([c, k]) => `${c}=${k}`)
          .join(", ")}`,
    );
    if (disagreements.length > 0)
      console.log(`disagreements (${disagreements.length}), first 15:\n  ${disagreements.slice(0, 15).join("\n  ")}`);
    if (companionErrors.length > 0)
      console.log(
        `companion errors (${companionErrors.length}), first 10:\n  ${companionErrors.slice(0, 10).join("\n  ")}`,
      );

    expect(disagreements.slice(0, 15)).toEqual([]);
    expect(companionErrors.slice(0, 10)).toEqual([]);
    // Not vacuous: a meaningful share reached the scoring logic, with outcomes of both kinds,
    // and mutations changed outcomes in both directions.
    expect(stats.total).toBeGreaterThanOrEqual(5000);
    expect(stats.valid / stats.total).toBeGreaterThanOrEqual(0.25);
    expect(stats.invalid / stats.total).toBeGreaterThanOrEqual(0.1);
    expect(stats.validVictories).toBeGreaterThanOrEqual(50);
    expect(stats.validNonVictories).toBeGreaterThanOrEqual(200);
    expect(stats.validLate).toBeGreaterThan(0);
    expect(stats.victoryLost).toBeGreaterThan(0);
    expect(stats.victoryGained).toBeGreaterThan(0);
    expect(stats.dupKey).toBeGreaterThan(50);
  });
});
