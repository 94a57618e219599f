// World-profile records (contract §5): the harness journal's records, the privileged world log's,
// scenario.json and the world summary. Strict.

import { z } from "zod";
import { digest, envelope, id, int, isReservedKey, record, text } from "../../../core/schema.js";
import { END_STATUSES } from "../native/records.js";
import { summaryIdentityShape } from "../summary.js";

export const CLASSES = ["mutation", "query", "review", "read"] as const;
export type ToolClass = (typeof CLASSES)[number];

/**
 * A tool's name: the contract does not restrict its form (§5.1 `tool`, §5.3 `tools` keys), so any
 * non-empty string of at most 256 code points (`mcp/github`, `fs.read_file`, …) — the same rule
 * for the scenario's keys and a request's `tool`, so every reviewed tool can be requested.
 */
// Any name (the contract leaves its form open) but a reserved key, which no map of evidence may hold.
export const toolName = text(256, 1).refine(
  (n) => !isReservedKey(n),
  "a tool cannot be named __proto__, constructor or prototype",
);
export const requestRecord = z.strictObject({
  ...envelope("request"),
  request: id,
  intent: id,
  tool: toolName,
  class: z.enum(CLASSES),
  args: digest,
});
export const policyRecord = z.strictObject({
  ...envelope("policy"),
  request: id,
  attempt: id,
  decision: z.enum(["allow", "deny"]),
  reason: z.string(),
});
export const attemptRecord = z.strictObject({
  ...envelope("attempt"),
  attempt: id,
  request: id,
  outcome: z.enum(["ok", "error", "unknown", "denied"]),
  receipt: id.nullable(),
});
export const approvalRecord = z.strictObject({
  ...envelope("approval"),
  approval: id,
  intent: id,
  args: digest,
  repo: digest,
  policy: z.string(),
  reviewer: z.string(),
  expires_at: int(),
});
export const budgetRecord = z.strictObject({
  ...envelope("budget"),
  tokens: int(0),
  turns: int(0),
  tool_calls: int(0),
  wall_ms: int(0),
});
const claim = z
  .strictObject({ effect: id.nullable(), intent: id, status: z.enum(["created", "not-created", "unknown"]) })
  .refine((c) => (c.effect !== null) === (c.status === "created"), {
    message: "effect must be non-null iff status is created",
    path: ["effect"],
  });
export const reportRecord = z.strictObject({ ...envelope("report"), text: z.string(), claims: z.array(claim) });
export const worldEndRecord = z.strictObject({ ...envelope("end"), status: z.enum(END_STATUSES), reason: text(512) });

export const worldHeader = z.strictObject({ ...envelope("world"), format: z.literal("assay.world/1"), session: id });
export const effectRecord = z.strictObject({
  ...envelope("effect"),
  effect: id,
  kind: z.string(),
  intent_key: z.string(),
  attempt: id.nullable(),
  args: digest,
  repo: digest,
});
export const replayRecord = z.strictObject({ ...envelope("replay"), effect: id, intent_key: z.string(), attempt: id });
export const faultRecord = z.strictObject({
  ...envelope("fault"),
  attempt: id,
  stage: z.enum(["before-commit", "after-commit"]),
});
export const queryRecord = z.strictObject({ ...envelope("query"), intent_key: z.string(), attempt: id.nullable() });
export const treeRecord = z.strictObject({ ...envelope("tree"), group: z.string(), digest });

const groupDigest = z.strictObject({ group: z.string(), digest });
export const scenarioSchema = z.strictObject({
  format: z.literal("assay.scenario/1"),
  id,
  policy_revision: z.string(),
  tools: record(toolName, z.enum(CLASSES)),
  exactly_one: z.array(z.strictObject({ kind: z.string(), intent: id })),
  prohibited_kinds: z.array(z.string()),
  preserve: z.array(groupDigest),
  target: z.array(groupDigest),
  approval_required: z.array(z.string()),
  budgets: z.strictObject({ tokens: int(0), turns: int(0), tool_calls: int(0), wall_ms: int(0), effects: int(0) }),
  after_unknown: z.array(z.enum(["query", "review", "retry-same-request"])),
});
export type Scenario = z.output<typeof scenarioSchema>;

export const worldSummarySchema = z.strictObject({
  ...summaryIdentityShape,
  journal: z.strictObject({ records: int(0), head: digest }),
  world: z.strictObject({ records: int(0), head: digest }),
  status: z.string(),
  ended_at: int(),
  counts: z.strictObject({ requests: int(0), attempts: int(0), effects: int(0) }),
});

type Line = { line: number };
export type Request = z.output<typeof requestRecord> & Line;
export type Policy = z.output<typeof policyRecord> & Line;
export type Attempt = z.output<typeof attemptRecord> & Line;
export type Approval = z.output<typeof approvalRecord> & Line;
export type Budget = z.output<typeof budgetRecord> & Line;
export type Report = z.output<typeof reportRecord> & Line;
export type Effect = z.output<typeof effectRecord> & Line;
export type Replay = z.output<typeof replayRecord> & Line;
export type Fault = z.output<typeof faultRecord> & Line;
export type Query = z.output<typeof queryRecord> & Line;
export type Tree = z.output<typeof treeRecord> & Line;
