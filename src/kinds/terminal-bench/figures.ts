// Terminal-Bench's run-level figures as its BenchmarkResults computes them (research §A.1): the
// counts, accuracy and pass@k over a list of trials. Pure arithmetic, in TB's order, so the same
// list gives the same figures to the last bit or within FLOAT_TOLERANCE (numpy's product order).

/** One listed trial as TB's computed fields read it: its task_id and whether is_resolved is true. */
export interface Verdict {
  task: string;
  resolved: boolean;
}

/** Figures are compared within this (relative above 1): numpy and JS may round a product's last bits apart. */
export const FLOAT_TOLERANCE = 1e-12;
export const close = (a: number, b: number) =>
  Math.abs(a - b) <= FLOAT_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));

export interface Counts {
  n_resolved: number;
  n_unresolved: number;
  /** n_resolved / len(results); 0 for no trial. */
  accuracy: number;
  /** task_id → how many times it appears in resolved_ids / unresolved_ids (a task repeats per attempt). */
  resolved_ids: Map<string, number>;
  unresolved_ids: Map<string, number>;
}

export function countsOf(list: readonly Verdict[]): Counts {
  const resolved_ids = new Map<string, number>();
  const unresolved_ids = new Map<string, number>();
  for (const v of list) {
    const m = v.resolved ? resolved_ids : unresolved_ids;
    m.set(v.task, (m.get(v.task) ?? 0) + 1);
  }
  let n = 0;
  for (const c of resolved_ids.values()) n += c;
  return {
    n_resolved: n,
    n_unresolved: list.length - n,
    accuracy: list.length === 0 ? 0 : n / list.length,
    resolved_ids,
    unresolved_ids,
  };
}

/** TB's k set: 2, 4, 8, … up to m (the fewest attempts of any task), then 5 and 10 when m reaches them. Never 1. */
export function kValues(m: number): number[] {
  const ks: number[] = [];
  for (let k = 2; k <= m; k *= 2) ks.push(k);
  if (m >= 5) ks.push(5);
  if (m >= 10) ks.push(10);
  return ks;
}

/** 1 − C(n−c, k)/C(n, k) as TB computes it: 1 − Π(1 − k/i) for i in n−c+1..n; 1 when n − c < k. */
export function passAtKOne(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}

/**
 * pass@k per task_id (a trial not resolved counts 0, null included), averaged over the tasks, for
 * TB's k set; {} for no trial or one attempt per task. Keys in TB's order.
 */
export function passAtK(list: readonly Verdict[]): Map<number, number> {
  const byTask = new Map<string, { n: number; c: number }>();
  for (const v of list) {
    const t = byTask.get(v.task) ?? { n: 0, c: 0 };
    t.n++;
    if (v.resolved) t.c++;
    byTask.set(v.task, t);
  }
  const out = new Map<number, number>();
  if (byTask.size === 0) return out;
  let m = Infinity; // a loop, not Math.min(...): a list may name more tasks than a call takes arguments
  for (const t of byTask.values()) m = Math.min(m, t.n);
  for (const k of kValues(m)) {
    let sum = 0;
    let tasks = 0;
    for (const t of byTask.values()) {
      if (t.n < k) continue;
      sum += passAtKOne(t.n, t.c, k);
      tasks++;
    }
    out.set(k, sum / tasks);
  }
  return out;
}

export const FORMULA =
  "TB's own formulas (BenchmarkResults): n_resolved = trials with is_resolved true, n_unresolved = the rest (false and null alike), " +
  "accuracy = n_resolved / every listed trial (0 for none); pass@k per task_id = 1 − C(n−c,k)/C(n,k) with c the resolved attempts, " +
  "averaged over tasks, for k = 2, 4, 8, … ≤ m then 5 and 10 when m reaches them (m: the fewest attempts of any task; no pass@1, so {} for one attempt); " +
  `figures agree within ${FLOAT_TOLERANCE} (relative above 1). Over the evidence: each trial's verdict is the one re-derived from its folder, ` +
  "a listed harness exception without a file counts unresolved (as TB counts it), trial folders the list lacks are counted, " +
  "and no figure is given while a listed trial of another shape has no file";
