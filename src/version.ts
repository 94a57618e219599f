// Versions stamped into results. SCORING_VERSION changes whenever any rule changes a result:
// stored results and caches key on it.
export const TOOL_VERSION = "0.1.0";
// 6 (issue 21): a JSON value nested deeper than 512 levels is JSON_TOO_DEEP (invalid where it was
// read, or a tool error); an Inspect scorer named __proto__ is read (its log was invalid); a dict
// key a record lacks is never an inherited property; a plan of 10^7 epochs is counted (it was a
// tool error). No result of ordinary evidence changed (the fingerprint below is the same).
// 8 (issue 25, Harbor and Inspect as written now): reward.json and reward.txt disagreeing,
// Rewardkit's reward-details.json and a trial's own lock.json digest change Harbor entries a store
// holds; an Inspect grader's failure (Score.reason) is a sample state of its own, mixed metrics
// lists are checked, and the chunked sample layout is read (Inspect logs are never stored).
// 9 (issue 35): Inspect: an unfinished log credits only the records a summary confirms, at its
// planned denominator; absent members of a finished .eval are findings; retry chains withhold a
// value a cut or unidentified log may change. Harbor: a trial whose result.json is lost after its verifier ran warns
// REWARD_WITHOUT_RESULT, a trial's unreadable lock.json LOCK_UNREADABLE (the job counts the one 0 and
// leaves pass@k unknown for the other): Harbor entries a store holds change.
// Also: a Harbor trial whose result.json names nothing records the task path its config.json names
// (task_path), by which the job places it in its task.
// 10 (issue 36, contract §13.7): binary units in clusters get the Korn–Graubard interval (an
// experiment's figures change); Inspect entries keep each sample's cluster (sample_clusters), by
// which compare pairs samples in their clusters.
// 11 (issue 37): every entry records its run's identity (agent, model, benchmark, harness, times)
// as its own evidence gives it: Harbor entries a store holds change.
export const SCORING_VERSION = 11;
