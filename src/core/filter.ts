// Which experiments a report or comparison holds (issue 37): --experiment, --agent, --model,
// --kind and --since. Pure. Each option but --since is repeatable: its values are alternatives (an
// experiment matches if any matches); the options together all must match. An experiment's
// identity is what its evidence records (core/identity.ts): a field it does not record matches no
// --agent, --model or --since, and a start time assay cannot place on the right side of --since
// is left out and counted, never let through (nothing unread may make a report look better).

import { DECLARED, kindOfProfile } from "../kinds/declared.js";
import { UsageError } from "../errors.js";
import { kindKey } from "./compare/names.js";
import { timeMs, valuesOf } from "./identity.js";
import type { Filters } from "./filter-schema.js";
import { count, emptyTally, type BundleEntry, type Experiment, type ResultsView } from "./results.js";

export type { Filters } from "./filter-schema.js";

/** Filters as parsed: what the document records, and --since as an instant (ms since the epoch). */
export interface ExperimentFilter {
  given: Filters;
  since: number | null;
}

/** The filter options as parseOptions gives them. */
export interface FilterValues {
  experiment?: string[] | undefined;
  agent?: string[] | undefined;
  model?: string[] | undefined;
  kind?: string[] | undefined;
  since?: string[] | undefined;
}

/** The kinds --kind takes. */
export const KIND_NAMES: readonly string[] = DECLARED.map((d) => d.name);

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ZONED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether the year, month and day name a day of the calendar (2025-02-30 does not). */
function realDay(y: string, m: string, d: string): boolean {
  const t = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return t.getUTCFullYear() === Number(y) && t.getUTCMonth() === Number(m) - 1 && t.getUTCDate() === Number(d);
}

/**
 * --since as an instant: a date is its midnight in UTC; a date and time must carry its zone (`Z` or
 * `±hh:mm`): a time without one names no instant, and guessing the zone would move the line.
 */
export function parseSince(text: string): number {
  const bad = (why: string) =>
    new UsageError(
      `--since takes an ISO 8601 date (2025-06-01, midnight UTC) or date and time with its zone (2025-06-01T09:30:00Z, 2025-06-01T09:30+02:00): ${why} (got ${JSON.stringify(text)})`,
    );
  const date = DATE.exec(text);
  if (date !== null) {
    if (!realDay(date[1]!, date[2]!, date[3]!)) throw bad("no such day");
    return Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
  }
  const at = ZONED.exec(text);
  if (at === null)
    throw bad(
      /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)
        ? "a time without a zone names no instant"
        : "not a date",
    );
  if (!realDay(at[1]!, at[2]!, at[3]!) || Number(at[4]) > 23 || Number(at[5]) > 59 || Number(at[6] ?? 0) > 59)
    throw bad("no such time");
  return Date.parse(text);
}

/** The filter from the command's options; refuses an unknown kind, a --since that is no instant, an empty value, a second --since. */
export function parseFilter(values: FilterValues): ExperimentFilter | null {
  const list = (name: keyof FilterValues) => {
    const xs = values[name] ?? [];
    if (xs.some((x) => x === "")) throw new UsageError(`--${name} takes a non-empty value`);
    return [...xs];
  };
  const given: Filters = {
    experiment: list("experiment"),
    agent: list("agent"),
    model: list("model"),
    kind: list("kind"),
    since: null,
  };
  for (const k of given.kind)
    if (!KIND_NAMES.includes(k))
      throw new UsageError(`--kind takes one of ${KIND_NAMES.join(", ")} (got ${JSON.stringify(k)})`);
  const since = list("since");
  if (since.length > 1) throw new UsageError("--since is given once (the earliest start to keep)");
  given.since = since[0] ?? null;
  const instant = given.since === null ? null : parseSince(given.since);
  const any =
    given.experiment.length + given.agent.length + given.model.length + given.kind.length > 0 || instant !== null;
  return any ? { given, since: instant } : null;
}

/**
 * Whether `text` matches the glob `pattern`, character for character (code points; no case
 * folding, no normalisation): `*` any run of characters, `/` included; `?` one character; `[abc]`,
 * `[a-z]` one of a set, `[!abc]` or `[^abc]` one outside it; `[` with no closing `]` is itself.
 * No other character is special, so a pattern never becomes a regular expression.
 */
export function globMatch(pattern: string, text: string): boolean {
  const p = Array.from(pattern);
  const t = Array.from(text);
  // Iterative with one backtrack point per `*`: linear in practice, never exponential.
  let [pi, ti, starP, starT] = [0, 0, -1, 0];
  while (ti < t.length) {
    if (pi < p.length && p[pi] === "*") {
      [starP, starT, pi] = [pi, ti, pi + 1];
      continue;
    }
    const step = pi < p.length ? one(p, pi, t[ti]!) : null;
    if (step !== null && step.matched) [pi, ti] = [step.next, ti + 1];
    else if (starP >= 0) [pi, ti, starT] = [starP + 1, starT + 1, starT + 1];
    else return false;
  }
  while (pi < p.length && p[pi] === "*") pi++;
  return pi === p.length;
}

/** Whether the pattern's element at `i` (not a `*`) matches `c`, and where the next element starts. */
function one(p: readonly string[], i: number, c: string): { matched: boolean; next: number } {
  if (p[i] === "?") return { matched: true, next: i + 1 };
  if (p[i] !== "[") return { matched: p[i] === c, next: i + 1 };
  let j = i + 1;
  const negated = p[j] === "!" || p[j] === "^";
  if (negated) j++;
  const start = j;
  // A `]` first in the set is one of its members, as in shells.
  while (j < p.length && (p[j] !== "]" || j === start)) j++;
  if (j >= p.length) return { matched: c === "[", next: i + 1 };
  let inSet = false;
  for (let k = start; k < j; k++) {
    if (p[k + 1] === "-" && k + 2 < j) {
      const at = (x: string) => x.codePointAt(0)!;
      if (at(p[k]!) <= at(c) && at(c) <= at(p[k + 2]!)) inSet = true;
      k += 2;
    } else if (p[k] === c) inSet = true;
  }
  return { matched: inSet !== negated, next: j + 1 };
}

const anyMatches = (patterns: readonly string[], values: readonly string[]) =>
  patterns.some((p) => values.some((v) => globMatch(p, v)));

/** The furthest any zone is from UTC (UTC−12 to UTC+14): a local time is an instant within these of itself read as UTC. */
const EAST_MS = 14 * 3_600_000;
const WEST_MS = 12 * 3_600_000;

/**
 * Where an experiment's start lies against --since: "after" (at or after it), "before", or
 * "unknown": no start recorded, or a local time (no zone recorded) within the span of the world's
 * zones of the line, which no zone assay could guess would settle.
 */
export function sinceSide(x: Experiment, since: number): "after" | "before" | "unknown" {
  const id = x.identity;
  if (id === null || id.started_at === null || id.clock === null) return "unknown";
  const ms = timeMs(id.started_at, id.clock);
  if (!Number.isFinite(ms)) return "unknown";
  if (id.clock === "utc") return ms >= since ? "after" : "before";
  if (ms - EAST_MS >= since) return "after";
  return ms + WEST_MS < since ? "before" : "unknown";
}

/** Whether the experiment matches every option but --since. */
function matchesNames(x: Experiment, g: Filters): boolean {
  if (g.experiment.length > 0 && (x.experiment === null || !anyMatches(g.experiment, [x.experiment]))) return false;
  if (g.kind.length > 0 && !g.kind.includes(kindOfProfile(x.profile) ?? "")) return false;
  if (g.agent.length > 0 && !anyMatches(g.agent, valuesOf(x.identity?.agent ?? null))) return false;
  if (g.model.length > 0 && !anyMatches(g.model, valuesOf(x.identity?.model ?? null))) return false;
  return true;
}

/** Whether the experiment matches the filter (an unknown start time does not match --since). */
export const matches = (x: Experiment, f: ExperimentFilter): boolean =>
  matchesNames(x, f.given) && (f.since === null || sinceSide(x, f.since) === "after");

/** The experiments the filter keeps, in order, and how many it left out only because their start time is unknown against --since. */
export function selectExperiments<T extends Experiment>(
  xs: readonly T[],
  f: ExperimentFilter,
): { kept: T[]; unknownTime: number } {
  const kept: T[] = [];
  let unknownTime = 0;
  for (const x of xs) {
    if (!matchesNames(x, f.given)) continue;
    const side = f.since === null ? "after" : sinceSide(x, f.since);
    if (side === "after") kept.push(x);
    else if (side === "unknown") unknownTime++;
  }
  return { kept, unknownTime };
}

/** A value as a shell would take it back: bare when it is plain, else single-quoted. */
const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The filters as the options that give them (`--model 'gpt-4*' --since 2025-06-01`), for reports; "" for none. */
export function describeFilter(g: Filters | null): string {
  if (g === null) return "";
  const parts: string[] = [];
  for (const name of ["experiment", "agent", "model", "kind"] as const)
    for (const v of g[name]) parts.push(`--${name} ${shellWord(v)}`);
  if (g.since !== null) parts.push(`--since ${shellWord(g.since)}`);
  return parts.join(" ");
}

/** What a report says of the experiments left out for an unknown start time ("" for none). */
export const unknownTimeNote = (n: number, since: string): string =>
  n === 0
    ? ""
    : `${n} experiment${n === 1 ? "" : "s"} left out by --since ${shellWord(since)}: no start time recorded, or a local time (no zone recorded) from 12 hours before it to 14 after, which could be on either side`;

/**
 * A document holding only the experiments the filter keeps, and their bundle entries (read lazily:
 * a spilled document stays spilled), its tally recounted and its filters recorded in run.options.
 * Entries without an experiment go with the kept experiment without an id of their kind, if any.
 */
export function filterResults<V extends ResultsView>(doc: V, f: ExperimentFilter): { doc: V; unknownTime: number } {
  const { kept, unknownTime } = selectExperiments(doc.experiments, f);
  const keys = new Set(kept.map((x) => kindKey(x.profile, x.experiment)));
  const bundles: Iterable<BundleEntry> = {
    *[Symbol.iterator]() {
      for (const e of doc.bundles) if (keys.has(kindKey(e.profile, e.experiment))) yield e;
    },
  };
  const tally = emptyTally();
  for (const e of bundles) count(tally, e);
  return {
    doc: {
      ...doc,
      run: { ...doc.run, options: { ...doc.run.options, filters: f.given } },
      bundles,
      experiments: kept,
      tally,
    },
    unknownTime,
  };
}
