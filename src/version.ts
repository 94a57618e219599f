// Versions stamped into results. SCORING_VERSION changes whenever any rule changes a result:
// stored results and caches key on it.
export const TOOL_VERSION = "0.1.0";
export const SCORING_VERSION = 5;
