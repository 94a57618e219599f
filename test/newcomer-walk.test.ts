// A newcomer's whole path (issue 23, "Done when"): a fresh clone, `npm ci`, then README's first
// command (`assay demo --out demo && cd demo`) and every command of README.md and docs/*.md after
// it — page by page, in each page's own order, in ONE folder as a reader following along keeps it —
// with `assay` installed as the README says (`npm install -g .`, here into a scratch prefix so
// nothing global changes) and run from a folder outside the checkout. Each exits as its page says;
// each transcript shows its lines. test/docs.test.ts checks each page alone, in a fresh copy; this
// checks that the pages also hold one after another.
//
// The fresh clone and `npm ci` are what .ci/run gives every run. Here the checkout must be what was
// committed (nothing modified or untracked) and installed from its lockfile; elsewhere the test
// skips, saying why, and under CI=true that is a failure.

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  docsMessagesApi,
  needsAbsentRealWorld,
  parsePage,
  REAL_WORLD,
  shell,
  transcriptMisses,
} from "./helpers/docs.js";
import { installInto } from "./helpers/install.js";
import { HAVE_SHARED, REQUIRE_SHARED, SCRATCH, scratch, SHARED_DIR } from "./helpers/shared.js";

const ROOT = new URL("..", import.meta.url).pathname;
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];

/** Why this checkout is not a fresh clone installed by `npm ci`, or null when it is. */
function notFresh(): string | null {
  let status: string;
  try {
    status = execFileSync("git", ["-C", ROOT, "status", "--porcelain"], { encoding: "utf8" });
  } catch {
    return "the checkout is not a git clone";
  }
  if (status.trim() !== "")
    return `the checkout differs from its commit:\n${status.split("\n").slice(0, 5).join("\n")}`;
  // `npm ci` records what it installed in node_modules/.package-lock.json: the lockfile's packages,
  // less the optional ones for other platforms.
  const hidden = join(ROOT, "node_modules", ".package-lock.json");
  if (!existsSync(hidden)) return "node_modules was not installed by npm";
  const locked: Record<string, { version?: string; optional?: boolean }> = JSON.parse(
    readFileSync(join(ROOT, "package-lock.json"), "utf8"),
  ).packages;
  const installed: Record<string, { version?: string }> = JSON.parse(readFileSync(hidden, "utf8")).packages;
  for (const [name, p] of Object.entries(installed))
    if (locked[name]?.version !== p.version)
      return `${name} ${p.version} is installed, the lockfile says ${locked[name]?.version ?? "nothing"}`;
  for (const [name, p] of Object.entries(locked))
    if (name !== "" && installed[name] === undefined && p.optional !== true)
      return `${name} is in the lockfile and not installed`;
  return null;
}

const why = notFresh();
const { dir: tmp } = scratch("assay-walk-", SCRATCH);
const fake = docsMessagesApi();

describe("a newcomer follows README.md, then docs/, in one folder", () => {
  it.skipIf(why !== null && !REQUIRE_SHARED)(
    `from a fresh clone after npm ci${why === null ? "" : ` (skipped: ${why.split("\n")[0]})`}`,
    async () => {
      expect(why, "under CI=true the checkout must be a fresh clone installed by npm ci").toBeNull();
      // README's install, then its assay is the walk's, run from outside the checkout.
      mkdirSync(join(tmp, "prefix"));
      const bin = installInto(join(tmp, "prefix"));
      const installed = execFileSync(join(bin, "assay"), ["--help"], { cwd: tmp, encoding: "utf8" });
      expect(installed).toBe(
        execFileSync(process.execPath, [join(ROOT, "dist", "cli.js"), "--help"], { encoding: "utf8" }),
      );
      const walk = join(tmp, "walk");
      mkdirSync(walk);
      let cwd = walk;
      const here = join(tmp, "pwd");
      const env = () => ({
        PATH: `${join(tmp, "prefix", "bin")}:${process.env["PATH"]}`,
        // The transcripts show lines whole, as a terminal as wide as they are (piped, a table is laid out in COLUMNS).
        COLUMNS: "1000",
        HOME: tmp,
        ANTHROPIC_BASE_URL: fake.url,
      });
      let ran = 0;
      for (const page of PAGES) {
        const parsed = parsePage(readFileSync(join(ROOT, page), "utf8"));
        // Each page's commands and transcripts in the order the page shows them.
        const steps = [
          ...parsed.runnable.map((c) => ({ line: c.line, text: c.text, exit: c.exit, shown: null as string[] | null })),
          ...parsed.transcripts.map((t) => ({ line: t.line, text: t.command, exit: null, shown: t.shown })),
        ].sort((a, b) => a.line - b.line);
        for (const s of steps) {
          if (s.shown !== null && needsAbsentRealWorld(s.text) !== null) continue; // ../shared absent: docs.test says so
          // The command, then where it left the reader (README's first one ends in `cd demo`).
          const r = await shell(cwd, `${s.text}\n__status=$?; pwd > "${here}"; exit $__status`, env());
          const where = `${page}:${s.line}: ${s.text} (in ${cwd})`;
          if (s.exit !== null) expect(r.code, `${where}\n${r.err}`).toBe(s.exit);
          if (s.shown !== null)
            expect(transcriptMisses(s.shown, r.out), `${where} printed\n${r.out}\n${r.err}`).toEqual([]);
          cwd = readFileSync(here, "utf8").trim();
          if (ran++ === 0) {
            // README's first command made the folder every later command runs in.
            expect(cwd, "README's first command leaves the reader in the demo folder").toBe(join(walk, "demo"));
            expect(readdirSync(cwd).sort()).toEqual(["jobs", "logs", "runs", "swe", "tasks", "worlds"]);
            // What only this machine has: the real archives some transcripts quote.
            if (HAVE_SHARED)
              for (const [name, from] of Object.entries(REAL_WORLD))
                cpSync(join(SHARED_DIR, "real-world", from), join(cwd, name), { recursive: true });
          }
        }
      }
      expect(ran).toBeGreaterThan(40);
    },
    600_000,
  );
});
