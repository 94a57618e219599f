// One test over every kind in the list (src/kinds/list.ts): its folder has the fixed face, its main-
// process face and its scorer load and agree with its declaration, its words cover its profiles,
// its codes are its own, the shipped JSON Schema knows its profiles, states and codes, and what its
// evidence names (a job, a run, a log's task, a bundle's experiment) is escaped in every report.
// A kind added to the list without evidence below does not compile (EVIDENCE is keyed by KindName).

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CODES } from "../src/core/codes.js";
import { DECLARED, type KindName } from "../src/kinds/declared.js";
import { KIND_LIST } from "../src/kinds/list.js";
import { bundle, game, writeFiles } from "./helpers/bundle.js";
import { run } from "./helpers/cli.js";
import { scratchInTest } from "./helpers/shared.js";
import { writeJob } from "./helpers/harbor.js";
import { writeRun } from "./helpers/terminal-bench.js";

const SRC_KINDS = new URL("../src/kinds/", import.meta.url).pathname;
const SCHEMA = JSON.parse(
  readFileSync(new URL("../src/report/results.schema.json", import.meta.url), "utf8"),
) as Record<string, any>;
const INSPECT_LOG = new URL("./fixtures/inspect/2025-05-12T20-28-13-04-00_popularity.json", import.meta.url).pathname;
const SWE_MODEL = new URL("./fixtures/swe-bench/run/work/logs/run_evaluation/demo-run/org__model-7b", import.meta.url)
  .pathname;

/** What a report must never print as it is: markup, a table cell's end, an entity (a folder's name: no slash). */
const HOSTILE = "k<i>x|y&z";

/** Evidence of each kind below `root` whose name (as the kind's reports show it) is `name`. */
const EVIDENCE: Record<KindName, (root: string, name: string) => void> = {
  // A bundle's experiment and trial are ids (§3): what it names freely is where it lies, which the
  // reports show of an invalid one (its summary edited).
  bundle: (root, name) => writeFiles(join(root, "bundles", name), bundle(game(), { summary: { victory: true } })),
  harbor: (root, name) => void writeJob(join(root, "jobs"), name, [{ name: "hello__a1", rewards: { reward: 1 } }]),
  "terminal-bench": (root, name) => void writeRun(join(root, "tb", name), { trials: [{}] }),
  // A model folder's name is its experiment's (`<run_id>/<model>`).
  "swe-bench": (root, name) =>
    cpSync(SWE_MODEL, join(root, "logs", "run_evaluation", "demo-run", name), { recursive: true }),
  inspect: (root, name) => {
    mkdirSync(join(root, "logs"), { recursive: true });
    const log = JSON.parse(readFileSync(INSPECT_LOG, "utf8"));
    log.eval.task = name;
    writeFileSync(join(root, "logs", "2025-05-12T20-28-13-04-00_popularity.json"), JSON.stringify(log));
  },
};

/** Every schema enum a value may take at `path` (JSON Schema's anyOf/oneOf flattened). */
function enumAt(path: string[]): string[] {
  let node: any = SCHEMA;
  for (const p of path) node = node?.properties?.[p] ?? node?.items?.properties?.[p];
  const values: string[] = [];
  const walk = (n: any) => {
    if (n === null || typeof n !== "object") return;
    if (Array.isArray(n.enum)) values.push(...n.enum.filter((v: unknown) => typeof v === "string"));
    for (const k of ["anyOf", "oneOf", "items"]) (Array.isArray(n[k]) ? n[k] : [n[k]]).forEach(walk);
  };
  walk(node);
  return values;
}
const entrySchema = () => (SCHEMA["properties"]?.["bundles"] ? ["bundles"] : []);

/** A Markdown line shows the name as text: inside a code span, or with its markup escaped; a table row never ends a cell at its "|". */
function expectMarkdownSafe(line: string): void {
  const outsideCode = line.replace(/`(?:[^`\\]|\\.)*`/g, "");
  expect(outsideCode, line).not.toContain("<i>");
  if (line.startsWith("|")) expect(line, line).not.toMatch(/x\|y/);
}

describe("the list of kinds", () => {
  it("names every folder of src/kinds/, each with the fixed face (declaration.ts, kind.ts, scorer.ts), once", () => {
    const folders = readdirSync(SRC_KINDS, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const listed = KIND_LIST.map((k) => k.declaration.name);
    expect([...listed].sort()).toEqual(folders);
    expect(new Set(listed).size).toBe(listed.length);
    for (const f of folders)
      for (const part of ["declaration.ts", "kind.ts", "scorer.ts"])
        expect(existsSync(join(SRC_KINDS, f, part)), `${f}/${part}`).toBe(true);
  });

  it("gives each profile to one kind", () => {
    const profiles = DECLARED.flatMap((d) => d.profiles as readonly string[]);
    expect(new Set(profiles).size).toBe(profiles.length);
  });
});

describe.each(KIND_LIST.map((k) => [k.declaration.name, k] as const))("kind %s", (name, listed) => {
  const d = listed.declaration;

  it("loads its face and its scorer, which agree with its declaration", async () => {
    const kind = await listed.kind();
    const scorer = await listed.scorer();
    expect(kind.name).toBe(name);
    expect(scorer.form).toBe(d.form);
    expect(typeof kind.recogniser).toBe("object");
    expect(typeof kind.batch).toBe("function");
    expect(typeof kind.pack).toBe("function");
  });

  it("has words for each of its profiles, and only those", async () => {
    const kind = await listed.kind();
    expect(Object.keys(kind.words).sort()).toEqual([...d.profiles].sort());
    for (const p of d.profiles) {
      const w = kind.words[p as keyof typeof kind.words]!;
      expect(w.kind).toBe(p);
      for (const text of [w.label, w.experiment, w.evidence, w.evidencePlural, w.invalidMeans])
        expect(text.trim()).not.toBe("");
    }
  });

  it("owns its codes: none is the contract's or another kind's, each says what it means", () => {
    const others = DECLARED.filter((o) => o.name !== name).flatMap((o) => Object.keys(o.codes));
    for (const [code, meaning] of Object.entries(d.codes as Record<string, string>)) {
      expect(others, code).not.toContain(code);
      expect(CODES[code as keyof typeof CODES], code).toBe(meaning);
      expect(meaning.length).toBeGreaterThan(10);
    }
  });

  it("is known to the shipped JSON Schema: its profiles, states and codes", () => {
    const text = JSON.stringify(SCHEMA);
    for (const p of d.profiles) expect(text).toContain(JSON.stringify(p));
    for (const s of d.states) expect(text).toContain(JSON.stringify(s));
    for (const c of Object.keys(d.codes)) expect(text).toContain(JSON.stringify(c));
    expect(entrySchema()).toEqual(["bundles"]);
    expect(enumAt(["bundles", "profile"])).toEqual(expect.arrayContaining([...d.profiles]));
  });

  it("has what its evidence names escaped in every report", async () => {
    const { at } = scratchInTest(`assay-kinds-${name}-`);
    EVIDENCE[name](at("roots"), HOSTILE);
    const scored = await run(["score", at("roots"), "--format", "json", "--quiet", "--out", at("doc.json")]);
    expect(scored.code, scored.stderr).toBe(0);
    const doc = readFileSync(at("doc.json"), "utf8");
    expect(doc, "the document names it").toContain(JSON.stringify(HOSTILE).slice(1, -1));
    // Its recogniser found the evidence, and its scorer scored it as its own.
    const profiles = (JSON.parse(doc).bundles as { profile: string }[]).map((b) => b.profile);
    expect(profiles.length).toBeGreaterThan(0);
    for (const p of profiles) expect(d.profiles).toContain(p);
    for (const format of ["html", "md", "junit"] as const) {
      const r = await run([
        "score",
        at("roots"),
        "--format",
        format,
        "--quiet",
        "--details",
        "--out",
        at(`doc.${format}`),
      ]);
      expect(r.code, r.stderr).toBe(0);
      const text = readFileSync(at(`doc.${format}`), "utf8");
      // As text (an entity, a Markdown escape, or inside a code span), or in the HTML page's JSON data (\u003c).
      expect(text, `${format} names it`).toMatch(/k(&lt;|\\<|<|\\u003c)i(&gt;|\\>|>|\\u003e)x/);
      if (format === "md") for (const line of text.split("\n")) expectMarkdownSafe(line);
      else expect(text, format).not.toContain("<i>x");
    }
  });

  it("is the only kind its report's legend names a claim source for (another kind added to assay changes nothing here)", async () => {
    const { at } = scratchInTest(`assay-kinds-legend-${name}-`);
    EVIDENCE[name](at("roots"), "plain");
    const r = await run(["score", at("roots"), "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const claim = r.stdout
      .split("\n")
      .find((l) => l.trimStart().startsWith("claim:"))!
      .trim();
    const sources = Object.values((await listed.kind()).words).flatMap((w) =>
      w?.claimFrom === undefined ? [] : [w.claimFrom],
    );
    if (sources.length === 0)
      expect(claim).toBe("claim: none of these kinds' harnesses records a figure of its own to check");
    else
      expect(claim).toBe(
        `claim: the harness's own figure (${sources.join(", ")}); agrees, differs (the details say why) or unverified`,
      );
  });
});
