// Which attempt of a trial decides it (§6 adjudication), over the record's common fields: the
// batch rules adjudicate by it and compare pairs the deciding attempts of two runs by it (core
// never asks a kind, so the rule lives here).
import type { BatchRecord } from "./record.js";

const SCORED_STATUSES = new Set(["completed", "interrupted", "resource-bound"]);

/** An attempt with an outcome: a native ending, or completed, interrupted (an unterminated run with a final score counts so) or resource-bound. */
export const hasOutcome = (a: Pick<BatchRecord, "ending" | "status" | "final_score">): boolean =>
  a.ending === true || SCORED_STATUSES.has(a.status ?? "") || (a.status === "unterminated" && a.final_score === true);
