// The hand-written fast path must accept exactly what the zod schemas accept: it may only skip
// zod for records zod would pass. Checked on thousands of seeded mutations of valid records.
import { describe, expect, it } from "vitest";
import { JsonDecimal } from "../src/core/json/strict.js";
import { fastKeys, fastObservation } from "../src/kinds/bundle/native/fast.js";
import { keysRecord, observationRecord } from "../src/kinds/bundle/native/records.js";
import { CROWN, escaped, killed, live, SILMARIL, ZERO } from "./helpers/bundle.js";
import { rng } from "./helpers/random.js";

// Values that sit on or across the schemas' lines, plus wrong types.
const ODD: unknown[] = [
  0,
  1,
  -1,
  20,
  21,
  37,
  38,
  99,
  100,
  255,
  256,
  65535,
  65536,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  1.5,
  NaN,
  Infinity,
  new JsonDecimal(1),
  new JsonDecimal(0),
  "",
  "x",
  "é".repeat(80),
  "é".repeat(81),
  "😀".repeat(80),
  "😀".repeat(81),
  "a".repeat(256),
  "a".repeat(257),
  true,
  false,
  null,
  [],
  {},
  [1],
  { slot: 1 },
  undefined,
];
const KEYS_OF_STATE = Object.keys(live());
const KEYS_OF_ITEM = ["slot", "k_idx", "tval", "sval", "number", "name1"];

function mutate(base: Record<string, unknown>, r: () => number): Record<string, unknown> {
  const rec = structuredClone(base) as Record<string, unknown>;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const n = 1 + Math.floor(r() * 3);
  for (let k = 0; k < n; k++) {
    const isObj = (v: unknown): v is Record<string, unknown> =>
      typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonDecimal);
    const state = isObj(rec["state"]) ? rec["state"] : undefined;
    const inv = Array.isArray(state?.["inventory"]) ? (state["inventory"] as unknown[]).filter(isObj) : undefined;
    const list = Array.isArray(state?.["inventory"]) ? (state["inventory"] as unknown[]) : undefined;
    switch (Math.floor(r() * 9)) {
      case 0:
        if (state) state[pick(KEYS_OF_STATE)] = pick(ODD);
        break;
      case 1:
        if (inv && inv.length) pick(inv)[pick(KEYS_OF_ITEM)] = pick(ODD);
        break;
      case 2:
        rec[pick(["frame", "keys", "extra", "state"])] = pick(ODD);
        break;
      case 3:
        if (state) delete state[pick(KEYS_OF_STATE)];
        break;
      case 4:
        if (list) list.push({ ...SILMARIL, slot: pick([0, 1, 2, 5, 37, 38]) });
        break;
      case 5:
        if (inv && inv.length) delete pick(inv)[pick(KEYS_OF_ITEM)];
        break;
      case 6:
        if (state) state[pick(["extra", "__proto__x", "Depth"])] = 1;
        break;
      case 7:
        if (state) {
          state["depth"] = pick([0, 5, 20]);
          state["max_depth"] = pick([0, 4, 5, 20]);
        }
        break;
      case 8:
        if (list) for (let i = 0; i < pick([0, 30, 40]); i++) list.push({ ...CROWN, slot: i });
        break;
    }
  }
  return rec;
}

const envelope = (type: string) => ({ seq: 3, at: 1_788_000_000_000, type, prev: ZERO });

describe("fast path agrees with zod", () => {
  const r = rng(20261129);
  const states = [live(), killed(), escaped(), escaped({ inventory: [CROWN] }), live({ inventory: [] })];

  it("on observations: accepts exactly what observationRecord accepts", () => {
    let accepted = 0;
    let rejected = 0;
    for (let i = 0; i < 6000; i++) {
      const rec = mutate({ ...envelope("observation"), frame: 2, state: states[i % states.length] }, r);
      const zod = observationRecord.safeParse(rec).success;
      expect(fastObservation(rec) !== null, JSON.stringify(rec).slice(0, 300)).toBe(zod);
      if (zod) accepted++;
      else rejected++;
    }
    // Not vacuous: both sides of the line are well populated.
    expect(accepted).toBeGreaterThan(800);
    expect(rejected).toBeGreaterThan(2000);
  });

  it("on key batches: accepts exactly what keysRecord accepts", () => {
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const rec = mutate({ ...envelope("keys"), frame: 4, keys: "hjkl" }, r);
      const zod = keysRecord.safeParse(rec).success;
      expect(fastKeys(rec) !== null, JSON.stringify(rec).slice(0, 300)).toBe(zod);
      if (zod) accepted++;
    }
    expect(accepted).toBeGreaterThan(300);
  });

  it("on every field set to every edge value, alone", () => {
    let cases = 0;
    const check = (
      rec: Record<string, unknown>,
      fast: (r: Record<string, unknown>) => unknown,
      zod: { safeParse(v: unknown): { success: boolean } },
    ) => {
      expect(fast(rec) !== null, JSON.stringify(rec).slice(0, 300)).toBe(zod.safeParse(rec).success);
      cases++;
    };
    for (const base of states)
      for (const value of ODD) {
        for (const key of KEYS_OF_STATE)
          check(
            { ...envelope("observation"), frame: 2, state: { ...base, [key]: value } },
            fastObservation,
            observationRecord,
          );
        for (const key of KEYS_OF_ITEM)
          check(
            { ...envelope("observation"), frame: 2, state: { ...base, inventory: [{ ...SILMARIL, [key]: value }] } },
            fastObservation,
            observationRecord,
          );
        check({ ...envelope("observation"), frame: value, state: base }, fastObservation, observationRecord);
        check({ ...envelope("keys"), frame: value, keys: "l" }, fastKeys, keysRecord);
        check({ ...envelope("keys"), frame: 1, keys: value }, fastKeys, keysRecord);
      }
    expect(cases).toBeGreaterThan(4000);
  });

  it("never accepts a record of another type", () => {
    const obs = { ...envelope("keys"), frame: 1, state: live() };
    expect(fastObservation(obs)).toBeNull();
    expect(fastKeys({ ...envelope("observation"), frame: 1, keys: "x" })).toBeNull();
  });
});
