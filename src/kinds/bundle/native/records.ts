// Native-game records (contract §4.1–4.5), strict.

import { z } from "zod";
import { digest, envelope, id, int, text } from "../../../core/schema.js";
import { summaryIdentityShape } from "../summary.js";

const item = z.strictObject({
  slot: int(0, 37),
  k_idx: int(0),
  tval: int(0, 255),
  sval: int(0, 255),
  number: int(0, 99),
  name1: int(0),
});

export const nativeState = z
  .strictObject({
    character_generated: z.boolean(),
    playing: z.boolean(),
    is_dead: z.boolean(),
    escaped: z.boolean(),
    depth: int(0, 20),
    max_depth: int(0, 20),
    game_type: int(),
    noscore: int(0, 65535),
    wizard: z.boolean(),
    score_options: z.boolean(),
    died_from: text(80),
    turn: int(0),
    playerturn: int(0),
    silmarils: int(0),
    inventory: z.array(item).max(38),
  })
  .refine((s) => s.max_depth >= s.depth, { message: "max_depth is below depth", path: ["max_depth"] })
  .refine((s) => new Set(s.inventory.map((i) => i.slot)).size === s.inventory.length, {
    message: "inventory slots are not distinct",
    path: ["inventory"],
  });
export type NativeState = z.output<typeof nativeState>;
export type InventoryItem = NativeState["inventory"][number];

export const END_STATUSES = ["completed", "interrupted", "abnormal", "resource-bound"] as const;
export type EndStatus = (typeof END_STATUSES)[number];

export const observationRecord = z.strictObject({ ...envelope("observation"), frame: int(0), state: nativeState });
export const keysRecord = z.strictObject({ ...envelope("keys"), frame: int(0), keys: text(256, 1) });
export const scoreRecord = z
  .strictObject({ ...envelope("score"), final: z.boolean(), snapshot: digest.nullable() })
  .refine((r) => (r.snapshot !== null) === r.final, {
    message: "snapshot must be non-null iff final",
    path: ["snapshot"],
  });
export const endRecord = z.strictObject({ ...envelope("end"), status: z.enum(END_STATUSES), reason: text(512) });

export const summarySchema = z.strictObject({
  ...summaryIdentityShape,
  journal: z.strictObject({ records: int(0), head: digest }),
  status: z.string(),
  ended_at: int(),
  native_ending: z
    .strictObject({ at: int(), frame: int(0), escaped: z.boolean(), is_dead: z.boolean(), depth: int(0, 20) })
    .nullable(),
  victory: z.boolean(),
  snapshot: digest.nullable(),
  counts: z.strictObject({ keys: int(0), observations: int(0), scores: int(0) }),
});
export type NativeSummary = z.output<typeof summarySchema>;

export const snapshotSchema = z.strictObject({
  format: z.string(),
  session: id,
  frame: int(0),
  at: int(),
  state: nativeState,
});
