// TIMING (contract §11): the trial's own started_at/finished_at and its four phases' eight
// timestamps (and, for multi-step trials, each step's agent_execution and verifier): every present
// phase starts no later than it finishes and lies within the trial's started_at..finished_at;
// phases start in Harbor's order, steps in step order. Only timestamps that are present are checked
// (Harbor leaves them null when a phase never ran), and a naive time is compared only with other
// naive ones: Harbor wrote those in the writer's local zone, which the archive does not record.

import { finding, type Finding } from "../../core/codes.js";
import { PHASES, STEP_PHASES, type Span, type Stamp, type TrialView } from "./result.js";

/** Two stamps whose order means something: both naive, or both with an offset. */
const comparable = (a: Stamp | null, b: Stamp | null): [Stamp, Stamp] | null =>
  a !== null && b !== null && a.naive === b.naive ? [a, b] : null;

export function checkTiming(view: TrialView, errors: Finding[]): void {
  const bad = (message: string) => errors.push(finding("TIMING", "result.json", null, message));
  const trial = view.span;
  const whole = comparable(trial.started, trial.finished);
  if (whole && whole[0].t > whole[1].t) bad(`started_at ${whole[0].text} is after finished_at ${whole[1].text}`);

  const within = (field: string, span: Span) => {
    const own = comparable(span.started, span.finished);
    if (own && own[0].t > own[1].t) bad(`${field}.started_at ${own[0].text} is after its finished_at ${own[1].text}`);
    for (const which of ["started", "finished"] as const) {
      const at = span[which];
      const lo = comparable(at, trial.started);
      if (lo && lo[0].t < lo[1].t)
        bad(`${field}.${which}_at ${lo[0].text} is before the trial's started_at ${lo[1].text}`);
      const hi = comparable(at, trial.finished);
      if (hi && hi[0].t > hi[1].t)
        bad(`${field}.${which}_at ${hi[0].text} is after the trial's finished_at ${hi[1].text}`);
    }
  };
  /** Present starts must not decrease in the given order (each compared with the last comparable one before it). */
  const ordered = (starts: readonly { field: string; span: Span | undefined }[]) => {
    const last: { naive?: { field: string; at: Stamp }; aware?: { field: string; at: Stamp } } = {};
    for (const { field, span } of starts) {
      const at = span?.started ?? null;
      if (at === null) continue;
      const kind = at.naive ? "naive" : "aware";
      const before = last[kind];
      if (before !== undefined && at.t < before.at.t)
        bad(`${field} starts at ${at.text}, before ${before.field} (${before.at.text})`);
      last[kind] = { field, at };
    }
  };

  for (const p of PHASES) if (view.phases[p]) within(p, view.phases[p]);
  ordered(PHASES.map((p) => ({ field: p, span: view.phases[p] })));
  const steps: { field: string; span: Span | undefined }[] = [];
  for (const step of view.steps)
    for (const p of STEP_PHASES) {
      const field = `step_results[${step.index}].${p}`;
      if (step.phases[p]) within(field, step.phases[p]);
      steps.push({ field, span: step.phases[p] });
    }
  ordered(steps);
}
