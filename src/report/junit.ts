// JUnit XML, for the test reports of CI systems (Jenkins, GitLab, GitHub's test reporters): one
// <testsuite> per experiment, one <testcase> per bundle entry (a native or world attempt, a Harbor
// trial, an Inspect log) and per missing trial. A testcase says whether the evidence counts, not
// whether the agent won: invalid evidence is a <failure>, a tool error an <error>, evidence that
// enters no figure (missing, excluded, unscored, superseded…) is <skipped> with the reason; the
// entry's outcome is in its <system-out>. The experiment's figures are the suite's <properties>:
// the schema Jenkins and GitLab read (junit-10.xsd, kept in test/) allows properties on a suite,
// not on a testcase. Folders that looked like evidence but were not recognised are skipped
// testcases of a suite of their own; a stopped run says so in the root's name.
//
// Written by xmlbuilder2's streaming writer, a testcase at a time. A suite's counts come first
// in its opening tag, so a first pass over the entries counts every suite; then each pass writes
// suites whose entries lie in disjoint stretches of path order. An experiment's entries usually
// lie together (a job folder, an experiment's folder): one pass writes them all. Experiments
// interleaved in path order take one more pass each, as deep as they interleave.

import { USAGE_FIELDS } from "../core/usage.js";
import { createRequire } from "node:module";
import type { BundleEntry, Experiment, ResultsView } from "../core/results.js";
import { coverageCount } from "../core/results.js";
import { forTerminal, terminalText } from "../core/text.js";
import { entryKey, experimentKey, TrialIndex, type Verdict } from "./trial-index.js";
import { relativeTo } from "./where.js";
import type { WithInterval } from "./intervals.js";
import { hasPassK, MISSING_AT_RANDOM } from "./pass-at-k.js";
import { nameOf, wordsOf } from "./vocabulary.js";
import type { Sections } from "../kinds/words.js";

/** xmlbuilder2, loaded when a JUnit report is first written (it takes ~100 ms, which every other run of score would pay). */
let builder: typeof import("xmlbuilder2") | undefined;
const xmlbuilder2 = (): typeof import("xmlbuilder2") =>
  (builder ??= createRequire(import.meta.url)("xmlbuilder2") as typeof import("xmlbuilder2"));

/** Findings written into one failure; the rest are counted (assay verify shows them all). */
const MAX_FINDINGS = 20;

/** Characters XML 1.0 forbids (controls, lone surrogates, U+FFFE/U+FFFF). */
const FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const spelled = (c: string) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`;

/**
 * Text as XML can carry it: what the shown-text rules leave that XML forbids (a lone surrogate,
 * U+FFFF) spelled out too, and every `&` written as `&amp;` before the library escapes the rest:
 * xmlbuilder2 passes a text that already reads as an entity (`&lt;`) through unescaped, which would
 * turn a folder named `&lt;b&gt;` into `<b>`.
 */
const xmlSafe = (s: string) => s.replace(FORBIDDEN, spelled).replace(/&/g, "&amp;");
/**
 * What evidence says, shown as the other formats show it (shown.ts): a name (a path, an experiment,
 * a trial, a key) as forTerminal quotes it, prose as terminalText spells it (an attribute's on one
 * line, an element's line by line), so no control, bidi override or line separator reaches a CI
 * page raw to make a name read other than it is.
 */
const xmlName = (s: string) => xmlSafe(forTerminal(s));
const xmlLine = (s: string) => xmlSafe(terminalText(s));
const xmlText = (s: string) => xmlSafe(s.split("\n").map(terminalText).join("\n"));

interface Suite {
  key: string;
  name: string;
  index: TrialIndex;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  /** Where its entries lie in path order (-1: none). */
  first: number;
  last: number;
}

const suiteName = (x: Experiment | null) => (x === null ? "(unattributed)" : nameOf(x));

/** Missing trials as testcases: each named one, and each count of unnamed ones (Inspect's missing samples lie inside a log: its testcase says them). */
const missingCases = (x: Experiment | null) => (x === null || wordsOf(x.profile).logged ? [] : x.missing);

function tally(s: Suite, kind: Verdict["kind"]): void {
  s.tests++;
  if (kind === "failure") s.failures++;
  else if (kind === "error") s.errors++;
  else if (kind === "skipped") s.skipped++;
}

/** Every suite, counted: a pass over the entries (the experiments' lists indexed once). */
function countSuites(doc: ResultsView): Suite[] {
  const suites = new Map<string, Suite>();
  const add = (key: string, x: Experiment | null) => {
    const s: Suite = {
      key,
      name: suiteName(x),
      index: new TrialIndex(x),
      tests: 0,
      failures: 0,
      errors: 0,
      skipped: 0,
      first: -1,
      last: -1,
    };
    for (const _ of missingCases(x)) tally(s, "skipped");
    suites.set(key, s);
    return s;
  };
  for (const x of doc.experiments) if (!suites.has(experimentKey(x))) add(experimentKey(x), x);
  let i = 0;
  for (const e of doc.bundles) {
    const key = entryKey(e);
    const s = suites.get(key) ?? add(key, null);
    tally(s, s.index.verdict(e).kind);
    if (s.first === -1) s.first = i;
    s.last = i++;
  }
  return [...suites.values()];
}

/** Suites grouped into passes: in each, suites whose stretches of path order do not overlap, in path order. */
function passes(suites: readonly Suite[]): Suite[][] {
  let left = suites.filter((s) => s.first !== -1).sort((a, b) => a.first - b.first);
  const out: Suite[][] = [];
  while (left.length > 0) {
    const pass: Suite[] = [];
    const later: Suite[] = [];
    let end = -1;
    for (const s of left) {
      if (s.first > end) {
        pass.push(s);
        end = s.last;
      } else later.push(s);
    }
    out.push(pass);
    left = later;
  }
  return out;
}

const fig = (x: number | string | null | undefined) => (x === null || x === undefined ? null : String(x));

/** The experiment's figures, as the JSON document has them (full precision), by dotted name. */
function figures(x: Experiment): [string, string | null][] {
  const out: [string, string | null][] = [
    ["profile", x.profile],
    ["scheduled", fig(x.scheduled)],
    ["invalid", fig(x.invalid.length)],
    ["excluded", fig(x.excluded.length)],
    ["missing", fig(x.missing.reduce((n, m) => n + (typeof m === "string" ? 1 : m.count), 0))],
    ["unscored", fig(x.unscored.length)],
  ];
  const w = (name: string, v: [number, number] | null) =>
    out.push([`${name}.wilson95`, v === null ? null : `${v[0]},${v[1]}`]);
  // §13.2's interval beside wilson95 (which treats every unit as independent): what it is over, or why there is none.
  let intervals = false;
  const iv = (name: string, m: WithInterval) => {
    const i = m.interval ?? null;
    intervals ||= i !== null;
    if (i !== null)
      out.push(
        [`${name}.interval`, `${i.lo},${i.hi}`],
        [`${name}.interval_method`, i.method],
        [`${name}.units`, fig(i.units)],
        [`${name}.clusters`, fig(i.clusters)],
      );
    else out.push([`${name}.interval_reason`, m.interval_reason ?? null]);
  };
  const ks = (name: string, m: Record<string, number> | null) => {
    for (const [k, v] of Object.entries(m ?? {})) out.push([`${name}.${k}`, fig(v)]);
  };
  if (x.accuracy !== null) {
    out.push(
      ["accuracy", fig(x.accuracy.value)],
      ["accuracy.victories", fig(x.accuracy.victories)],
      ["accuracy.scored", fig(x.accuracy.scored)],
    );
    w("accuracy", x.accuracy.wilson95);
    iv("accuracy", x.accuracy);
  }
  if (x.completion !== null) {
    out.push(
      ["completion", fig(x.completion.value)],
      ["completion.completed", fig(x.completion.completed)],
      ["completion.scheduled", fig(x.completion.scheduled)],
    );
    iv("completion", x.completion);
  }
  if (x.pass !== null) {
    out.push(["pass.passed", fig(x.pass.passed)], ["pass.total", fig(x.pass.total)]);
    iv("pass", x.pass);
  }
  for (const [d, v] of Object.entries(x.dimensions ?? {})) {
    out.push([`dimension.${d}`, `${v.passed}/${v.total}`]);
    iv(`dimension.${d}`, v);
  }
  ks("pass_hat_k", x.pass_hat_k);
  for (const [s, n] of Object.entries(x.states ?? {})) out.push([`state.${s}`, fig(n)]);
  for (const [key, r] of Object.entries(x.rewards ?? {})) {
    out.push(
      [`reward.${key}.mean`, fig(r.mean)],
      [`reward.${key}.coverage`, coverageCount(r)],
      [`reward.${key}.pass_rate`, fig(r.pass_rate)],
    );
    w(`reward.${key}`, r.wilson95);
    iv(`reward.${key}`, r);
    ks(`reward.${key}.pass_at_k`, r.pass_at_k);
    ks(`reward.${key}.pass_hat_k`, r.pass_hat_k);
  }
  for (const c of x.claimed?.compared ?? [])
    out.push([`harbor.${c.metric}`, fig(c.claimed)], [`harbor.${c.metric}.assay`, fig(c.assay)]);
  if (x.log !== null) out.push(["log", x.log.path], ["log.status", x.log.status], ["log.state", x.log.state]);
  for (const [key, m] of Object.entries(x.inspect ?? {})) {
    out.push(
      [`metric.${key}`, fig(m.value)],
      [`metric.${key}.claimed`, fig(m.claimed)],
      [`metric.${key}.check`, m.check],
      [`metric.${key}.coverage`, `${m.coverage.scored}/${m.coverage.planned}`],
    );
    w(`metric.${key}`, m.wilson95);
    iv(`metric.${key}`, m);
    ks(`metric.${key}.pass_at_k`, m.pass_at_k);
    ks(`metric.${key}.pass_hat_k`, m.pass_hat_k);
  }
  // §13.5: null (not recorded) leaves a property out, as every figure here; never written as 0.
  if (x.usage !== null) {
    for (const side of ["spent", "counted"] as const) {
      const t = x.usage[side];
      out.push([`usage.${side}.entries`, fig(t.entries)], [`usage.${side}.costed`, fig(t.costed)]);
      for (const f of USAGE_FIELDS) out.push([`usage.${side}.${f}`, fig(t[f])]);
    }
    out.push(["usage.successes", fig(x.usage.successes)], ["usage.cost_per_success", fig(x.usage.cost_per_success)]);
  }
  if (x.job !== null) out.push(["job", x.job], ["job_id", x.job_id]);
  if (x.warnings.length > 0) out.push(["warnings", x.warnings.map((f) => f.code).join(", ")]);
  // What the figures mean (§13.7 "words"), once a suite: the question its intervals answer, what pass@k and pass^k assume.
  if (intervals) out.push(["interval.question", wordsOf(x.profile).units.question]);
  if (hasPassK(x)) out.push(["pass_at_k.assumes", MISSING_AT_RANDOM]);
  return out;
}

const yn = (b: boolean | null) => (b === null ? "n/a" : b ? "yes" : "no");

/** What an entry of each kind came to, in its <system-out> (a kind not listed: a native bundle's fields). */
const OUTCOME: Record<Sections, (e: BundleEntry) => string[]> = {
  rewards: (e) => [
    `state ${e.state ?? "n/a"}; rewards ${
      e.rewards === null
        ? "none"
        : Object.entries(e.rewards)
            .map(([k, v]) => `${k}=${v}`)
            .join(", ") || "none"
    }`,
    ...(e.exception === null
      ? []
      : [`exception ${e.exception.type}${e.exception.step === null ? "" : ` in step ${e.exception.step}`}`]),
  ],
  samples: (e) => [
    `status ${e.status ?? "n/a"}, ${e.state ?? "n/a"}; samples ${
      Object.entries(e.samples ?? {})
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ") || "none"
    }`,
  ],
  dimensions: (e) => {
    const failed = Object.entries(e.dimensions ?? {})
      .filter(([, d]) => !d.pass)
      .map(([n]) => n);
    return [
      `status ${e.status ?? "n/a"}; pass ${yn(e.pass)}${failed.length > 0 ? `; failed ${failed.join(", ")}` : ""}`,
    ];
  },
  victories: (e) => [
    `status ${e.status ?? "n/a"}; ending ${yn(e.ending)}; victory ${yn(e.victory)}; late ${yn(e.late)}`,
  ],
};

/** The entry's outcome and what it is, for its testcase's <system-out>. */
function outcome(e: BundleEntry, review: readonly string[]): string {
  const lines = [`${e.path}`];
  if (e.trial !== null) lines.push(`trial ${e.trial}${e.attempt === null ? "" : `, attempt ${e.attempt}`}`);
  lines.push(...OUTCOME[wordsOf(e.profile).sections](e));
  const own = new Set(e.flags.map((f) => f.code));
  for (const f of e.flags) lines.push(`flag ${f.code}: ${f.evidence}`);
  for (const r of review) if (![...own].some((c) => r === `flag ${c}`)) lines.push(r);
  for (const w of e.warnings.slice(0, MAX_FINDINGS))
    lines.push(`warning ${w.code} ${w.file ?? ""}${w.line === null ? "" : `:${w.line}`} ${w.message}`);
  return lines.join("\n");
}

/** A failure's or error's body: the findings, capped. */
function findingsText(e: BundleEntry, trialCodes: readonly string[] | null): string {
  const lines: string[] = [];
  if (trialCodes !== null) lines.push(`trial ${TrialIndex.trialOf(e) ?? ""} is invalid: ${trialCodes.join(", ")}`);
  for (const f of e.errors.slice(0, MAX_FINDINGS))
    lines.push(`${f.code} ${f.file ?? ""}${f.line === null ? "" : `:${f.line}`} ${f.message}`);
  if (e.errors.length > MAX_FINDINGS) lines.push(`… ${e.errors.length - MAX_FINDINGS} more (assay verify ${e.path})`);
  return lines.join("\n");
}

export function* render(doc: ResultsView): Generator<string> {
  const suites = countSuites(doc);
  const roots = doc.run.roots;
  const chunks: string[] = [];
  const xml = xmlbuilder2().createCB({ data: (chunk: string) => void chunks.push(chunk), prettyPrint: true });
  const flush = () => chunks.splice(0).join("");
  const u = doc.run.unrecognised;
  const unrecognised = u.paths.length + (u.count > u.paths.length ? 1 : 0);
  const sum = (k: "tests" | "failures" | "errors") =>
    String(suites.reduce((n, s) => n + s[k], k === "tests" ? unrecognised : 0));
  xml.dec({ version: "1.0", encoding: "UTF-8" });
  // The root has no attribute for it: a run stopped before all its evidence was scored says so in its name.
  const name = doc.run.complete
    ? "assay"
    : "assay (incomplete: the run was stopped before all its evidence was scored)";
  xml.ele("testsuites", { name, tests: sum("tests"), failures: sum("failures"), errors: sum("errors") });

  const open = (s: Suite) => {
    const c = (n: number) => String(n);
    xml.ele("testsuite", {
      name: xmlName(s.name),
      tests: c(s.tests),
      failures: c(s.failures),
      errors: c(s.errors),
      skipped: c(s.skipped),
      timestamp: doc.run.started_at,
    });
    const x = s.index.experiment;
    if (x === null) return;
    xml.ele("properties");
    for (const [name, value] of figures(x))
      if (value !== null) xml.ele("property", { name: xmlName(name), value: xmlName(value) }).up();
    xml.up();
  };
  const close = (s: Suite) => {
    for (const m of missingCases(s.index.experiment)) {
      const [name, why] =
        typeof m === "string"
          ? [m, "missing: scheduled, with no bundle"]
          : [`(${m.count} absent)`, `missing: ${m.count} ${m.reason}`];
      xml
        .ele("testcase", { classname: xmlName(s.name), name: xmlName(name) })
        .ele("skipped", { message: xmlLine(why) })
        .up()
        .up();
    }
    xml.up();
  };
  const testcase = (s: Suite, e: BundleEntry) => {
    const v = s.index.verdict(e);
    xml.ele("testcase", { classname: xmlName(s.name), name: xmlName(relativeTo(e.path, roots)) });
    if (v.kind === "skipped") xml.ele("skipped", { message: xmlLine(v.message) }).up();
    else if (v.kind !== "passed")
      xml
        .ele(v.kind, { message: xmlLine(v.message), type: xmlLine(v.message.split(", ")[0]!) })
        .txt(xmlText(findingsText(e, v.trialCodes)))
        .up();
    xml
      .ele("system-out")
      .txt(xmlText(outcome(e, s.index.reviewOf(e))))
      .up();
    xml.up();
  };

  for (const pass of passes(suites)) {
    let k = 0;
    let i = 0;
    for (const e of doc.bundles) {
      const s = pass[k];
      if (s === undefined) break; // the pass's last suite is written: the rest of the entries are other passes'
      if (i === s.first) open(s);
      if (i >= s.first && entryKey(e) === s.key) testcase(s, e);
      if (i === s.last) {
        close(s);
        k++;
      }
      i++;
      if (chunks.length > 0) yield flush();
    }
  }
  for (const s of suites) {
    if (s.first !== -1) continue;
    open(s);
    close(s);
  }
  // What looked like evidence but was not recognised: scored by nothing, so said as skipped.
  if (unrecognised > 0) {
    const suite = "(not recognised)";
    const c = String(unrecognised);
    xml.ele("testsuite", {
      name: suite,
      tests: c,
      failures: "0",
      errors: "0",
      skipped: c,
      timestamp: doc.run.started_at,
    });
    const skip = (name: string, why: string) =>
      xml
        .ele("testcase", { classname: suite, name: xmlName(name) })
        .ele("skipped", { message: why })
        .up()
        .up();
    for (const p of u.paths)
      skip(
        relativeTo(p, roots),
        "looks like evidence (a file a harness writes: a result.json, a reward file, a trial.log, an Inspect log, a SWE-bench instance's report.json…) but is nothing assay reads: not scored",
      );
    if (u.count > u.paths.length)
      skip(`(${u.count - u.paths.length} more)`, "not listed (run.unrecognised in --format json counts them)");
    xml.up();
  }
  xml.up().end();
  yield flush() + "\n";
}
