// The metrics a log declares (contract §12): each `results.scores[]` entry's metrics, and the
// built-ins of scorers `eval.scorers` declares but results lacks — with how assay recomputes each
// (a built-in with default params, a clustered stderr, or not at all) and what its intervals are
// clustered by. What metrics.ts then checks and recomputes. Pure.

import { isPlainObject } from "../../core/json/decode.js";
import type { MetricInput } from "./metrics.js";
import { isBuiltInMetric, parseReducer, type Reducer } from "./stats.js";

/** One metric of one results entry (or of a declared scorer results lacks). */
export interface Spec {
  key: string;
  /** The record's scores key, and the dict key below it (a dict-valued scorer). */
  scorer: string;
  sub: string | null;
  reducer: Reducer | null;
  reducerName: string | null;
  metric: string;
  builtIn: boolean;
  /** A built-in `stderr` declared with `cluster="<key>"`: its claim is re-derived clustered. */
  cluster: string | null;
  /** The metadata key the scorer's `stderr` (or `ci`) clusters by: its intervals' clusters (§13.1). */
  clusterBy: string | null;
  claimed: unknown;
  path: string;
  /** The results entry (for its counts), or null for a declared scorer results lacks. */
  entry: Record<string, unknown> | null;
}

/** A metric's params (`options` in older logs) without those at their default (`cluster=None`); null when not an object. */
function setParams(m: Record<string, unknown>): Record<string, unknown> | null {
  const p = m["params"] ?? m["options"];
  if (p === undefined || p === null) return {};
  if (!isPlainObject(p)) return null;
  return Object.fromEntries(Object.entries(p).filter(([k, v]) => !(k === "cluster" && v === null)));
}

/**
 * How assay recomputes a metric named `name`: a built-in with default params, or a `stderr` whose
 * only param is `cluster` (Inspect's clustered_metric); null when it does not.
 */
function builtInForm(name: string, m: Record<string, unknown>): { cluster: string | null } | null {
  const p = setParams(m);
  if (p === null || !isBuiltInMetric(name)) return null;
  const keys = Object.keys(p);
  if (keys.length === 0) return { cluster: null };
  return name === "stderr" && keys.length === 1 && typeof p["cluster"] === "string" ? { cluster: p["cluster"] } : null;
}

/** The metadata key a `stderr` or `ci` metric clusters by, if it declares one. */
function clusterKeyOf(name: string, m: Record<string, unknown>): string | null {
  const p = setParams(m);
  return (name === "stderr" || name === "ci") && typeof p?.["cluster"] === "string" ? p["cluster"] : null;
}

const shortName = (name: string) => /^inspect_ai\/(.+)$/.exec(name)?.[1] ?? name;

/** A declared metric: how assay recomputes it (null: not a built-in with default options), and the key a `stderr`/`ci` clusters by. */
interface DeclaredMetric {
  form: { cluster: string | null } | null;
  clusterKey: string | null;
}
type DeclaredList = Map<string, DeclaredMetric>;

/**
 * A scorer as `eval.scorers` declares it. Inspect accepts `list[Metric | dict[str, list[Metric]]]`
 * or a bare dict: the list's plain metrics give the results entry named by the scorer; each
 * `{key: [metrics]}` gives one entry per score key the key (a glob) matches.
 */
interface Declared {
  plain: DeclaredList;
  keyed: { matches: (scoreKey: string) => boolean; metrics: DeclaredList; literal: string | null }[];
  cluster: string | null;
}

/** The metrics of one declared list, by unqualified name (the first of a name wins, as Inspect's resolution keeps it). */
function declaredList(list: unknown[], into: DeclaredList = new Map()): DeclaredList {
  for (const m of list) {
    if (!isPlainObject(m) || typeof m["name"] !== "string") continue;
    const name = shortName(m["name"]);
    if (into.has(name)) continue;
    into.set(name, {
      form: m["name"].startsWith("inspect_ai/") ? builtInForm(name, m) : null,
      clusterKey: clusterKeyOf(name, m),
    });
  }
  return into;
}

/** Python's fnmatch.translate (case-sensitive, as Inspect compiles it): a declared key (a glob) as the score keys it matches. */
export function globMatcher(glob: string): (scoreKey: string) => boolean {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") out += "[\\s\\S]*";
    else if (c === "?") out += "[\\s\\S]";
    else if (c === "[") {
      let j = i + 1;
      if (glob[j] === "!") j++;
      if (glob[j] === "]") j++;
      while (j < glob.length && glob[j] !== "]") j++;
      if (j >= glob.length) out += "\\[";
      else {
        let body = glob
          .slice(i + 1, j)
          .replace(/\\/g, "\\\\")
          .replace(/\^/g, "\\^");
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        out += `[${body}]`;
        i = j;
      }
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  try {
    const re = new RegExp(`^(?:${out})$`, "u");
    return (k) => re.test(k);
  } catch {
    // A class Python's re refuses too (`[z-a]`): no log Inspect wrote; the key matches only itself.
    return (k) => k === glob;
  }
}

/** `eval.scorers` by name, as Declared; null when absent. */
function declared(scorers: unknown): Map<string, Declared> | null {
  if (!Array.isArray(scorers)) return null;
  const out = new Map<string, Declared>();
  for (const s of scorers) {
    if (!isPlainObject(s) || typeof s["name"] !== "string") continue;
    const d: Declared = { plain: new Map(), keyed: [], cluster: null };
    const keyed = (o: Record<string, unknown>) => {
      for (const [key, list] of Object.entries(o))
        if (Array.isArray(list))
          d.keyed.push({
            matches: globMatcher(key),
            metrics: declaredList(list),
            literal: /[*?[]/.test(key) ? null : key,
          });
    };
    const ms = s["metrics"];
    if (Array.isArray(ms)) {
      declaredList(ms, d.plain);
      for (const m of ms) if (isPlainObject(m) && typeof m["name"] !== "string") keyed(m);
    } else if (isPlainObject(ms)) keyed(ms);
    for (const list of [d.plain, ...d.keyed.map((k) => k.metrics)])
      for (const m of list.values()) d.cluster ??= m.clusterKey;
    out.set(s["name"], d);
  }
  return out;
}

/**
 * What a scorer declares for one results entry: the plain list for the entry named by the scorer,
 * the keys matching its name for a score key's entry (the first declaration of a metric wins).
 * When neither declares anything, every list of the scorer (an entry Inspect's rules do not place).
 */
function declaredFor(d: Declared, name: string, scorer: string): DeclaredList {
  const matching = d.keyed.filter((k) => k.matches(name)).map((k) => k.metrics);
  const own = name === scorer ? [d.plain, ...matching] : matching;
  const lists = own.some((l) => l.size > 0) ? own : [d.plain, ...d.keyed.map((k) => k.metrics)];
  const merged: DeclaredList = new Map();
  for (const l of lists) for (const [k, v] of l) if (!merged.has(k)) merged.set(k, v);
  return merged;
}

/** The metric entries: `results.scores[]`, plus the built-ins of scorers declared but absent from results. */
export function specs(input: Pick<MetricInput, "results" | "scorers" | "epochsReducer" | "records">): Spec[] {
  const decl = declared(input.scorers);
  const out: Spec[] = [];
  const scores = Array.isArray(input.results?.["scores"]) ? (input.results!["scores"] as unknown[]) : [];
  // The key each scorer clusters by, declared on any of its `stderr` or `ci` metrics.
  const clusterBy = new Map<string, string>();
  for (const [name, d] of decl ?? []) if (d.cluster !== null) clusterBy.set(name, d.cluster);
  for (const e of scores) {
    if (!isPlainObject(e) || typeof e["name"] !== "string" || !isPlainObject(e["metrics"])) continue;
    for (const [mk, m] of Object.entries(e["metrics"])) {
      const key = isPlainObject(m) ? clusterKeyOf(shortName(typeof m["name"] === "string" ? m["name"] : mk), m) : null;
      if (key === null) continue;
      if (!clusterBy.has(e["name"])) clusterBy.set(e["name"], key);
      if (typeof e["scorer"] === "string" && !clusterBy.has(e["scorer"])) clusterBy.set(e["scorer"], key);
    }
  }
  const present = new Set<string>();
  const hasKey = (k: string) => input.records.some((r) => Object.hasOwn(r.scores, k));
  scores.forEach((e, i) => {
    if (!isPlainObject(e) || typeof e["name"] !== "string" || !isPlainObject(e["metrics"])) return;
    const name = e["name"];
    const scorer = typeof e["scorer"] === "string" ? e["scorer"] : name;
    present.add(scorer).add(name);
    const reducerName = typeof e["reducer"] === "string" ? e["reducer"] : null;
    // A dict-valued scorer has one results entry per key, named by the key.
    const direct = name === scorer || hasKey(name);
    const label = name === scorer ? scorer : `${scorer}.${name}`;
    const d = decl?.get(scorer) ?? decl?.get(name);
    const fromDecl = d === undefined ? undefined : declaredFor(d, name, scorer);
    let ownCluster: string | null = null;
    for (const m of fromDecl?.values() ?? []) ownCluster ??= m.clusterKey;
    for (const [mk, m] of Object.entries(e["metrics"])) {
      if (!isPlainObject(m)) continue;
      const mname = typeof m["name"] === "string" ? m["name"] : mk;
      const form =
        fromDecl !== undefined ? (fromDecl.get(mname)?.form ?? null) : mk === mname ? builtInForm(mname, m) : null;
      out.push({
        key: `${label}/${reducerName ?? "-"}/${mk}`,
        scorer: direct ? name : scorer,
        sub: direct ? null : name,
        reducer: parseReducer(reducerName),
        reducerName,
        metric: mname,
        builtIn: form !== null,
        cluster: form?.cluster ?? null,
        clusterBy: ownCluster ?? clusterBy.get(scorer) ?? clusterBy.get(name) ?? null,
        claimed: m["value"],
        path: `results.scores[${i}].metrics.${mk}.value`,
        entry: e,
      });
    }
  });
  // A --no-score run: the scorers are declared, results holds none of them (a glob key names no key yet).
  const reducers = Array.isArray(input.epochsReducer)
    ? input.epochsReducer.filter((r): r is string => typeof r === "string")
    : [];
  const reducer = reducers[0] ?? null;
  for (const [name, d] of decl ?? []) {
    if (present.has(name)) continue;
    const lists: [string | null, DeclaredList][] = [
      [null, d.plain],
      ...d.keyed.filter((k) => k.literal !== null).map((k): [string, DeclaredList] => [k.literal!, k.metrics]),
    ];
    for (const [sub, list] of lists)
      for (const [mname, m] of list)
        if (m.form !== null)
          out.push({
            key: `${sub === null ? name : `${name}.${sub}`}/-/${mname}`,
            scorer: name,
            sub,
            reducer: parseReducer(reducer),
            reducerName: reducer,
            metric: mname,
            builtIn: true,
            cluster: m.form.cluster,
            clusterBy: d.cluster,
            claimed: undefined,
            path: "",
            entry: null,
          });
  }
  return out;
}
