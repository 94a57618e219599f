// The filters a document records in run.options (issue 37), apart from core/filter.ts so that the
// results schema needs no kind registry of its own. Each list is what was given, in order; empty:
// that option was not given.

import { z } from "zod";

export const filtersSchema = z.object({
  /** --experiment: globs over the experiment's id (an experiment matches if any matches). */
  experiment: z.array(z.string()),
  /** --agent and --model: globs over the identity's agents and models (any of them). */
  agent: z.array(z.string()),
  model: z.array(z.string()),
  /** --kind: kind names (bundle, harbor, inspect, terminal-bench). */
  kind: z.array(z.string()),
  /** --since as given: an ISO 8601 date (midnight UTC) or a date and time with its zone. */
  since: z.string().nullable(),
});
export type Filters = z.infer<typeof filtersSchema>;
