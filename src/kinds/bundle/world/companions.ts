// scenario.json (§5.3) and the world summary (§5.5).

import { finding, type Finding } from "../../../core/codes.js";
import type { Header, JournalReader } from "../journal.js";
import { decodeDocument } from "../../../core/json/decode.js";
import { describeIssues } from "../../../core/schema.js";
import { summaryIdentity } from "../summary.js";
import type { WorldJournal, WorldLog } from "./journal.js";
import { scenarioSchema, type Scenario } from "./records.js";

export const SCENARIO = "scenario.json";
export const WORLD = "world.jsonl";

/** The scenario, or null with SCENARIO_INVALID (absent, unreadable or malformed: one code). */
export function readScenario(bytes: Uint8Array | null | false, out: Finding[]): Scenario | null {
  if (bytes === false) {
    out.push(finding("SCENARIO_INVALID", SCENARIO, null, "scenario.json is too large to read"));
    return null;
  }
  if (bytes === null) {
    out.push(finding("SCENARIO_INVALID", SCENARIO, null, "scenario.json is absent"));
    return null;
  }
  const problems: Finding[] = [];
  const value = decodeDocument(bytes, SCENARIO, problems);
  if (value === undefined) {
    out.push(finding("SCENARIO_INVALID", SCENARIO, null, `${problems[0]!.code}: ${problems[0]!.message}`));
    return null;
  }
  const r = scenarioSchema.safeParse(value);
  if (!r.success) {
    out.push(finding("SCENARIO_INVALID", SCENARIO, null, describeIssues(r.error.issues)));
    return null;
  }
  return r.data;
}

export function expectedWorldSummary(
  header: Header,
  jr: JournalReader,
  wr: JournalReader,
  j: WorldJournal,
  w: WorldLog,
) {
  return {
    ...summaryIdentity(header),
    journal: { records: jr.records, head: jr.head },
    world: { records: wr.records, head: wr.head },
    status: j.end?.status ?? null,
    ended_at: j.end?.at ?? null,
    counts: { requests: j.requests.size, attempts: j.attempts.length, effects: w.effects.length },
  };
}
