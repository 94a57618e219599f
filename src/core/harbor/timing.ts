// TIMING (contract §11): every present phase starts no later than it finishes and lies within the
// trial's started_at..finished_at; phases start in Harbor's order. Only timestamps that are present
// are checked: a null or absent one is never a finding (Harbor leaves them null when a phase never ran).

import { finding, type Finding } from "../codes.js";
import { PHASES, STEP_PHASES, type Span, type TrialView } from "./result.js";

const at = (s: Span, which: "started" | "finished") => (which === "started" ? s.startedText : s.finishedText);

export function checkTiming(view: TrialView, errors: Finding[]): void {
  const bad = (message: string) => errors.push(finding("TIMING", "result.json", null, message));
  const trial = view.span;
  if (trial.started !== null && trial.finished !== null && trial.started > trial.finished)
    bad(`started_at ${trial.startedText} is after finished_at ${trial.finishedText}`);

  const within = (field: string, span: Span) => {
    if (span.started !== null && span.finished !== null && span.started > span.finished)
      bad(`${field}.started_at ${span.startedText} is after its finished_at ${span.finishedText}`);
    for (const which of ["started", "finished"] as const) {
      const t = span[which];
      if (t === null) continue;
      if (trial.started !== null && t < trial.started) bad(`${field}.${which}_at ${at(span, which)} is before the trial's started_at ${trial.startedText}`);
      if (trial.finished !== null && t > trial.finished) bad(`${field}.${which}_at ${at(span, which)} is after the trial's finished_at ${trial.finishedText}`);
    }
  };
  /** Present starts must not decrease in the given order. */
  const ordered = (fields: readonly string[], spans: Partial<Record<string, Span>>, prefix: string) => {
    let last: { field: string; span: Span } | null = null;
    for (const field of fields) {
      const span = spans[field];
      if (span === undefined || span.started === null) continue;
      if (last !== null && span.started < last.span.started!)
        bad(`${prefix}${field} starts at ${span.startedText}, before ${prefix}${last.field} (${last.span.startedText})`);
      last = { field, span };
    }
  };

  for (const p of PHASES) if (view.phases[p]) within(p, view.phases[p]);
  ordered(PHASES, view.phases, "");
  for (const step of view.steps) {
    const prefix = `step_results[${step.index}].`;
    for (const p of STEP_PHASES) if (step.phases[p]) within(`${prefix}${p}`, step.phases[p]);
    ordered(STEP_PHASES, step.phases, prefix);
  }
}
