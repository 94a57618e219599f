// The twins of the per-bundle zod schemas (session header, score and end records, summary.json,
// snapshot.json) must accept exactly what zod accepts, and what they accept must be what zod
// outputs: a twin may only skip zod. Checked on thousands of seeded mutations of valid values,
// and on every field set to every edge value.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { jsonEqual } from "../src/core/compare.js";
import { fastHeader } from "../src/kinds/bundle/fast.js";
import { headerSchema } from "../src/kinds/bundle/journal.js";
import { JsonDecimal } from "../src/core/json/strict.js";
import { fastEnd, fastObservation, fastScore, fastSnapshot, fastSummary } from "../src/kinds/bundle/native/fast.js";
import { endRecord, scoreRecord, snapshotSchema, summarySchema } from "../src/kinds/bundle/native/records.js";
import { escaped, header, killed, live, sha, ZERO } from "./helpers/bundle.js";
import { rng } from "./helpers/random.js";

type Rec = Record<string, unknown>;

// Values on or across the schemas' lines, plus wrong types.
const ODD: unknown[] = [
  0,
  1,
  -1,
  20,
  21,
  64,
  65,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  1.5,
  -0,
  NaN,
  Infinity,
  new JsonDecimal(1),
  new JsonDecimal(2.5),
  "",
  "x",
  "a".repeat(64),
  "a".repeat(65),
  "é".repeat(64),
  "😀".repeat(65),
  "a".repeat(512),
  "a".repeat(513),
  "x".repeat(1024),
  "x".repeat(1025),
  "completed",
  "interrupted",
  "abnormal",
  "resource-bound",
  "done",
  "assay.bundle/1",
  "Ab-1.c:d",
  "-bad",
  "a b",
  ZERO,
  sha("x"),
  sha("x").toUpperCase(),
  true,
  false,
  null,
  [],
  {},
  [1],
  { a: 1 },
  undefined,
];
const META_KEYS = [
  "model",
  "task",
  "max_turns",
  "a.b-c_d",
  "Upper",
  "1x",
  "constructor",
  "prototype",
  "__proto__",
  "toString",
  "x".repeat(64),
  "x".repeat(65),
];

const ENVELOPE = new Set(["seq", "at", "prev"]);
const env = (type: string) => ({ seq: 3, at: 1_788_000_000_000, type, prev: ZERO });
const BASES: Record<string, Rec[]> = {
  header: [
    { seq: 0, prev: ZERO, ...header() },
    { seq: 0, prev: ZERO, ...header({ meta: {} }) },
    { seq: 0, prev: ZERO, ...header({ meta: { task: "t-1", model: "m", n: 3, ok: true } }) },
  ],
  score: [
    { ...env("score"), final: false, snapshot: null },
    { ...env("score"), final: true, snapshot: sha("s") },
  ],
  end: [
    { ...env("end"), status: "completed", reason: "" },
    { ...env("end"), status: "abnormal", reason: "crash" },
  ],
  summary: [
    {
      format: "assay.summary/1",
      session: "s",
      experiment: "e",
      trial: "t",
      attempt: 1,
      seed: "00",
      journal: { records: 3, head: sha("h") },
      status: "completed",
      ended_at: 5,
      native_ending: { at: 4, frame: 1, escaped: false, is_dead: true, depth: 3 },
      victory: false,
      snapshot: null,
      counts: { keys: 1, observations: 2, scores: 0 },
    },
    {
      format: "assay.summary/1",
      session: "s",
      experiment: "e",
      trial: "t",
      attempt: 2,
      seed: "00",
      journal: { records: 9, head: sha("h") },
      status: "interrupted",
      ended_at: 5,
      native_ending: null,
      victory: false,
      snapshot: sha("s"),
      counts: { keys: 0, observations: 0, scores: 1 },
    },
  ],
  snapshot: [
    { format: "assay.snapshot/1", session: "s-1", frame: 3, at: 9, state: live() },
    { format: "assay.snapshot/1", session: "s-1", frame: 0, at: 9, state: escaped() },
    { format: "assay.snapshot/1", session: "s-1", frame: 7, at: 9, state: killed() },
  ],
};
const TWINS: Record<string, [(v: Rec) => unknown, z.ZodType]> = {
  header: [fastHeader, headerSchema],
  score: [fastScore, scoreRecord],
  end: [fastEnd, endRecord],
  summary: [fastSummary, summarySchema],
  snapshot: [fastSnapshot, snapshotSchema],
};

const isObj = (v: unknown): v is Rec =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonDecimal);
/** Every object inside `v` (itself included), for mutations at any depth. */
function objects(v: unknown, out: Rec[] = []): Rec[] {
  if (Array.isArray(v)) for (const x of v) objects(x, out);
  else if (isObj(v)) {
    out.push(v);
    for (const x of Object.values(v)) objects(x, out);
  }
  return out;
}

function mutate(base: Rec, r: () => number): Rec {
  const rec = structuredClone(base) as Rec;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const odd = () => {
    const v = pick(ODD);
    return v instanceof JsonDecimal ? v : structuredClone(v); // never one object in two places
  };
  for (let k = 0, n = 1 + Math.floor(r() * 3); k < n; k++) {
    const o = pick(objects(rec));
    // The envelope's seq, at and prev are JournalReader's (checked before any schema): left alone.
    const keys = Object.keys(o).filter((key) => o !== rec || !ENVELOPE.has(key));
    switch (Math.floor(r() * 5)) {
      case 0:
      case 1:
        if (keys.length) o[pick(keys)] = odd();
        break;
      case 2:
        if (keys.length) delete o[pick(keys)];
        break;
      case 3:
        o[pick(["extra", "Type", ...keys])] = odd();
        break;
      case 4: {
        // meta keys and values, and counts of them
        const meta = isObj(rec["meta"]) ? rec["meta"] : undefined;
        if (meta)
          for (let i = 0, m = pick([1, 1, 2, 70]); i < m; i++)
            Object.defineProperty(meta, m > 2 ? `k${i}` : pick(META_KEYS), {
              value: odd(),
              enumerable: true,
              configurable: true,
              writable: true,
            });
        break;
      }
    }
  }
  return rec;
}

const shown = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) =>
    x === undefined ? "<undefined>" : x instanceof JsonDecimal ? `<decimal ${x.value}>` : x,
  );
const holdsDecimal = (v: unknown): boolean =>
  v instanceof JsonDecimal || (typeof v === "object" && v !== null && Object.values(v).some(holdsDecimal));

/**
 * The twin accepts only what zod accepts, and returns what zod outputs; and it accepts all of it,
 * but for a value holding a boxed decimal (zod transforms it; the twins leave that to zod).
 */
function agree(name: string, v: Rec): boolean {
  const [fast, schema] = TWINS[name]!;
  const zod = schema.safeParse(v);
  const got = fast(v);
  if (got !== null && !zod.success) expect.fail(`${name} twin accepts what zod refuses: ${shown(v)}`);
  if (got !== null && !jsonEqual(got, zod.data)) expect.fail(`${name} twin's output is not zod's: ${shown(v)}`);
  if (got === null && zod.success && !holdsDecimal(v))
    expect.fail(`${name} twin refuses what zod accepts: ${shown(v)}`);
  return zod.success;
}

describe("per-bundle twins agree with zod", () => {
  for (const name of Object.keys(TWINS))
    it(`${name}: on seeded mutations`, () => {
      const r = rng(name.length * 7919);
      let accepted = 0;
      let rejected = 0;
      const bases = BASES[name]!;
      for (let i = 0; i < 4000; i++) {
        if (agree(name, mutate(bases[i % bases.length]!, r))) accepted++;
        else rejected++;
      }
      for (const b of bases) expect(agree(name, b)).toBe(true);
      // Not vacuous: both sides of the line are well populated.
      expect(accepted).toBeGreaterThan(300);
      expect(rejected).toBeGreaterThan(1500);
    });

  it("on every field set to every edge value, alone", () => {
    let cases = 0;
    for (const [name, bases] of Object.entries(BASES))
      for (const base of bases)
        objects(base).forEach((o, at) => {
          for (const key of Object.keys(o).filter((k) => at > 0 || !ENVELOPE.has(k)))
            for (const value of ODD) {
              const v = structuredClone(base) as Rec;
              objects(v)[at]![key] = value instanceof JsonDecimal ? value : structuredClone(value);
              agree(name, v);
              cases++;
            }
        });
    expect(cases).toBeGreaterThan(5000);
  });

  it("judges keys in any order alike (the writers' usual order only saves a lookup)", () => {
    const r = rng(5);
    const shuffled = (o: Rec): Rec => {
      const keys = Object.keys(o).sort(() => r() - 0.5);
      return Object.fromEntries(keys.map((k) => [k, isObj(o[k]) ? shuffled(o[k] as Rec) : o[k]]));
    };
    for (let i = 0; i < 200; i++)
      for (const [name, bases] of Object.entries(BASES))
        for (const base of bases) expect(agree(name, shuffled(structuredClone(base)))).toBe(true);
    const obs = { ...env("observation"), frame: 1, state: live() };
    expect(fastObservation(shuffled(obs))).not.toBeNull();
    expect(fastObservation({ ...shuffled(obs), extra: 1 })).toBeNull();
    const { frame: _frame, ...noFrame } = obs;
    expect(fastObservation({ ...noFrame, extra: 1 })).toBeNull(); // as many keys, one not in the set
  });

  it("never accepts a record of another type", () => {
    expect(fastScore({ ...env("end"), final: false, snapshot: null })).toBeNull();
    expect(fastEnd({ ...env("score"), status: "completed", reason: "" })).toBeNull();
    expect(fastHeader({ ...BASES["header"]![0]!, type: "end" })).toBeNull();
  });
});
