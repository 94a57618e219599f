// The docs cannot drift from the tool (issue 16): every ```sh runnable command in README.md and
// docs/*.md runs, in its page's order, in a fresh copy of what `assay demo --out` writes (the folder
// a newcomer follows along in, issue 23), and must exit as the page says; every transcript (a block starting `$ assay`) must show
// lines the command really prints. Model requests go to a local fake Messages API over HTTP.

import { cpSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  docsMessagesApi,
  needsAbsentRealWorld,
  parsePage,
  shell,
  transcriptMisses,
  writeSandbox,
} from "./helpers/docs.js";
import { REQUIRE_SHARED, SCRATCH, scratch } from "./helpers/shared.js";

const ROOT = new URL("..", import.meta.url).pathname;
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];

const { dir: tmp } = scratch("assay-docs-", SCRATCH);
let base: string;
const fake = docsMessagesApi();

beforeAll(() => {
  base = join(tmp, "base");
  writeSandbox(base);
});

/** A fresh copy of the corpus for one page: each page's commands must work on their own. */
function sandboxFor(page: string): string {
  const dir = join(tmp, page.replace(/[/.]/g, "_"));
  cpSync(base, dir, { recursive: true });
  return dir;
}

/** Runs one command line in bash, its `assay` the built CLI (the sandbox's bin/), models the fake API. */
const sh = (cwd: string, command: string) =>
  // The transcripts show lines whole, as a terminal as wide as they are (piped, a table is laid out in COLUMNS, issue 40).
  shell(cwd, command, {
    PATH: `${join(cwd, "bin")}:${process.env["PATH"]}`,
    HOME: cwd,
    ANTHROPIC_BASE_URL: fake.url,
    COLUMNS: "1000",
  });

describe("the docs' commands run as the docs say", () => {
  for (const page of PAGES) {
    it(
      page,
      async () => {
        const parsed = parsePage(readFileSync(join(ROOT, page), "utf8"));
        expect(parsed.undecided.map((l) => `${page}:${l}: a sh block marked neither runnable nor norun`)).toEqual([]);
        if (parsed.runnable.length + parsed.transcripts.length === 0) return;
        const cwd = sandboxFor(page);
        for (const c of parsed.runnable) {
          const r = await sh(cwd, c.text);
          expect(r.code, `${page}:${c.line}: ${c.text}\n${r.err}`).toBe(c.exit);
        }
        for (const t of parsed.transcripts) {
          const absent = needsAbsentRealWorld(t.command);
          if (absent !== null) {
            expect(
              REQUIRE_SHARED,
              `${page}:${t.line}: ${absent} comes from ../shared/real-world, absent under CI`,
            ).toBe(false);
            console.log(
              `${page}:${t.line}: skipped: ${absent} comes from ../shared/real-world (ASSAY_SHARED_DIR), absent here`,
            );
            continue;
          }
          const r = await sh(cwd, t.command);
          expect(transcriptMisses(t.shown, r.out), `${page}:${t.line}: ${t.command} printed\n${r.out}`).toEqual([]);
        }
      },
      300_000,
    );
  }
});

describe("the parser of the docs' blocks", () => {
  it("reads commands, continuations, expected exits and transcripts; flags an undecided sh block", () => {
    const page = parsePage(
      [
        "text",
        "```sh runnable",
        "# a comment line",
        "assay score runs            # scores",
        "assay verify x   # exit 1: invalid",
        "assay score a \\",
        "  --quiet",
        "echo '# exit 9'",
        "```",
        "```sh norun",
        "sbatch x",
        "```",
        "```sh",
        "assay y",
        "```",
        "```",
        "$ assay score runs",
        "line one",
        "```",
        "```` ```sh runnable ```` is prose, not a fence",
        "````md",
        "```sh runnable",
        "assay inside a longer fence",
        "```",
        "````",
      ].join("\n"),
    );
    expect(page.runnable).toEqual([
      { text: "assay score runs            # scores", line: 4, exit: 0 },
      { text: "assay verify x   # exit 1: invalid", line: 5, exit: 1 },
      { text: "assay score a \\\n  --quiet", line: 6, exit: 0 },
      { text: "echo '# exit 9'", line: 8, exit: 0 },
    ]);
    expect(page.undecided).toEqual([13]);
    expect(page.transcripts).toEqual([{ command: "assay score runs", line: 17, shown: ["line one"] }]);
  });
  it("a transcript holds when its lines appear in order; … is a prefix or lines left out", () => {
    const out = "a\nb   \nc long line\nd\n";
    expect(transcriptMisses(["a", "…", "c long…", "d"], out)).toEqual([]);
    expect(transcriptMisses(["d", "a"], out)).toEqual(["a"]);
    expect(transcriptMisses(["c long"], out)).toEqual(["c long"]);
  });
});
