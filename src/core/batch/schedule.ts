// Schedules (§6): which trials an experiment was meant to run, with their seeds.

import { z } from "zod";
import type { Finding } from "../codes.js";
import { decodeDocument } from "../json/decode.js";
import { describeIssues, digest, id } from "../schema.js";
import { forTerminal, SEED_RE } from "../text.js";

const scheduleSchema = z.strictObject({
  format: z.literal("assay.schedule/1"),
  experiment: id,
  trials: z.array(
    z.strictObject({
      trial: id,
      seed: z.string().regex(SEED_RE, "seed is not canonical (16..128 lowercase hex digits, even length)"),
      scenario: digest.optional(),
    }),
  ),
});
export type Schedule = z.output<typeof scheduleSchema>;

/** A schedule the user gave that cannot be used: a usage error, not a finding. */
export class ScheduleError extends Error {
  readonly code = "SCHEDULE";
}

export function parseSchedule(bytes: Uint8Array, name: string): Schedule {
  const problems: Finding[] = [];
  const value = decodeDocument(bytes, name, problems);
  if (value === undefined)
    throw new ScheduleError(`schedule ${forTerminal(name)}: ${problems[0]!.code}: ${problems[0]!.message}`);
  const r = scheduleSchema.safeParse(value);
  if (!r.success) throw new ScheduleError(`schedule ${forTerminal(name)}: ${describeIssues(r.error.issues)}`);
  const seen = new Set<string>();
  for (const t of r.data.trials) {
    if (seen.has(t.trial)) throw new ScheduleError(`schedule ${forTerminal(name)}: trial ${t.trial} is listed twice`);
    seen.add(t.trial);
  }
  return r.data;
}

export function indexSchedules(schedules: readonly Schedule[]): Map<string, Schedule> {
  const m = new Map<string, Schedule>();
  for (const s of schedules) {
    if (m.has(s.experiment)) throw new ScheduleError(`two schedules for experiment ${s.experiment}`);
    m.set(s.experiment, s);
  }
  return m;
}
