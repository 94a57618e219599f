// Approvals bind one effect each (contract §5.4): a maximum matching of the effects of one
// (intent, args, repo) to that bucket's approvals. An approval fits an effect when it is on a
// journal line before the effect's gate (its attempt's policy) and expires no earlier than the
// effect's `at`. Effects in gate order, each taking the available approval that expires first, is
// a maximum matching (exchange argument: a later effect can use anything an earlier one passed
// over, so the earlier one never gains by taking a later-expiring approval) — no search.
//
// O((a + e) log a): the approvals sorted by expiry, and a Fenwick tree marking which of them are
// available (recorded before the current gate and not yet used), which finds the first available
// approval at or after a given expiry in O(log a).

export interface ApprovalSlot {
  line: number;
  expires_at: number;
}
export interface EffectSlot {
  /** The journal line of the effect's gate: only approvals on earlier lines fit. */
  gateLine: number;
  /** The effect's `at`: only approvals expiring at or after it fit. */
  at: number;
}

/**
 * For each effect (by input index), the index of the approval matched to it, or -1. The count of
 * matched effects is the size of a maximum matching. Among approvals of equal expiry the one on
 * the earlier line is taken; among effects with the same gate, input order.
 */
export function matchApprovals(approvals: readonly ApprovalSlot[], effects: readonly EffectSlot[]): Int32Array {
  const out = new Int32Array(effects.length).fill(-1);
  const n = approvals.length;
  if (n === 0 || effects.length === 0) return out;
  const byLine = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => approvals[a]!.line - approvals[b]!.line || a - b,
  );
  const byExpiry = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => approvals[a]!.expires_at - approvals[b]!.expires_at || approvals[a]!.line - approvals[b]!.line || a - b,
  );
  const rank = new Int32Array(n);
  byExpiry.forEach((a, r) => (rank[a] = r));
  const expiries = byExpiry.map((a) => approvals[a]!.expires_at);
  const available = new Fenwick(n);
  const order = Array.from({ length: effects.length }, (_, i) => i).sort(
    (a, b) => effects[a]!.gateLine - effects[b]!.gateLine || a - b,
  );
  let next = 0;
  for (const i of order) {
    const e = effects[i]!;
    for (; next < n && approvals[byLine[next]!]!.line < e.gateLine; next++) available.add(rank[byLine[next]!]!, 1);
    const r = available.firstFrom(lowerBound(expiries, e.at));
    if (r < n) {
      available.add(r, -1);
      out[i] = byExpiry[r]!;
    }
  }
  return out;
}

/** Counts over positions 0..n-1: add, and the first position at or after i with a non-zero count. */
class Fenwick {
  private readonly tree: Int32Array;
  private readonly top: number;
  constructor(private readonly n: number) {
    this.tree = new Int32Array(n + 1);
    let t = 1;
    while (t * 2 <= n) t *= 2;
    this.top = t;
  }
  add(i: number, d: number): void {
    for (let x = i + 1; x <= this.n; x += x & -x) this.tree[x]! += d;
  }
  /** The sum over positions 0..i-1. */
  private before(i: number): number {
    let s = 0;
    for (let x = i; x > 0; x -= x & -x) s += this.tree[x]!;
    return s;
  }
  /** The first position ≥ i with a count (counts are 0 or 1), or n when there is none. */
  firstFrom(i: number): number {
    let k = this.before(i) + 1; // the k-th marked position overall
    let pos = 0;
    for (let step = this.top; step > 0; step >>= 1) {
      const nx = pos + step;
      if (nx <= this.n && this.tree[nx]! < k) {
        pos = nx;
        k -= this.tree[nx]!;
      }
    }
    return pos; // 0-based: positions 0..pos-1 hold fewer than k marks, so position pos is the k-th (or n)
  }
}

/** First index in ascending `xs` whose value is >= `v`. */
function lowerBound(xs: readonly number[], v: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
