// The Inspect version that wrote a log (`eval.packages.inspect_ai`): semantics that changed between
// releases are judged by the writer's version (contract §12). Pure.

/** "0.3.95.dev16+g6527d0861" → [0, 3, 95]; null when the log names no version (version-1 logs). */
export function parseVersion(v: unknown): number[] | null {
  if (typeof v !== "string") return null;
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3])];
}

/**
 * The writer is at least `min` ("0.3.247"). A development build of a release counts as that
 * release (its changes were being made there); a log that names no version is older than any.
 */
export function atLeast(version: readonly number[] | null, min: string): boolean {
  if (version === null) return false;
  const m = min.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (version[i]! !== m[i]!) return version[i]! > m[i]!;
  return true;
}

/** When behaviour changed (inspect-notes.md §1.8). */
export const SINCE = {
  /** An errored sample that carries a score enters the metrics. */
  erroredScored: "0.3.247",
  /** `completed_samples` counts logged samples without an error. */
  completedSamples: "0.3.252",
  /** value_to_float no longer reads "nan"/"inf" strings as numbers. */
  finiteStrings: "0.3.221",
  /** A dead sandbox is a tool error of type `sandbox_unavailable` (#4709); before, docker's own line was the tool's output. */
  sandboxUnavailable: "0.3.260",
  /**
   * choice() raises on a sample without options (#5310; before, it scored INCORRECT) and scores an
   * empty completion `N` with reason `no_response` (#5333). Both merged in September 2026, after
   * 0.3.263 was measured without them (#5376): the first release after it.
   */
  choiceScoring: "0.3.264",
} as const;
