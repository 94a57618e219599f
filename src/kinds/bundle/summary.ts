// The identity part of summary.json, shared by the profiles' summaries (§4.5, §5.5).

import { z } from "zod";
import type { Header } from "./journal.js";
import { int } from "../../core/schema.js";

export const summaryIdentityShape = {
  format: z.string(),
  session: z.string(),
  experiment: z.string(),
  trial: z.string(),
  attempt: int(),
  seed: z.string(),
};

/** What a correct writer puts in the identity fields: the header's own values. */
export const summaryIdentity = (h: Header) => ({
  format: "assay.summary/1",
  session: h.session,
  experiment: h.experiment,
  trial: h.trial,
  attempt: h.attempt,
  seed: h.seed,
});
