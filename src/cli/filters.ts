// The filter options (issue 37), defined once for every command that takes them (score, compare):
// parseOptions reads them, core/filter.ts judges them; their help is FILTER_HELP (help.ts).

export const FILTER_OPTIONS = {
  experiment: { type: "string", multiple: true },
  agent: { type: "string", multiple: true },
  model: { type: "string", multiple: true },
  kind: { type: "string", multiple: true },
  // Multiple so that a second is refused rather than silently replacing the first.
  since: { type: "string", multiple: true },
} as const;
