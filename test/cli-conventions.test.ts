// The command-line habits of the tools users know (issue 23, item 5): a one-screen --help, one
// command's help, "did you mean" for options and commands, short flags, `--out -` as stdout, an
// unknown --out extension refused, `cache stats` before any cache, colour only on a terminal, and
// --help loading no command. Exit codes and stderr through the built CLI; suggestions in-process.

import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AnalysisCache } from "../src/analysis/cache.js";
import { didYouMean, editDistance, nearest } from "../src/cli/args.js";
import { colour, colourFor } from "../src/cli/colour.js";
import { writeCorpus } from "../src/io/corpus.js";
import { run, spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const COMMANDS = [
  "demo",
  "score",
  "verify",
  "compare",
  "merge",
  "seal",
  "analyze",
  "check-task",
  "narrate",
  "cache",
  "synth",
  "schema",
  "export",
];

const { dir: tmp } = scratch("assay-cli-conv-");
let corpus: string;
beforeAll(() => {
  corpus = join(tmp, "corpus");
  writeCorpus(corpus, { n: 4, seed: "cli-conventions", faults: false });
});

describe("help", () => {
  it("assay --help, -h, help and help --help: every command on a line of its own, one screen, on stdout, exit 0", () => {
    const outs = [["--help"], ["-h"], ["help"], ["help", "--help"]].map((argv) => spawnCli(argv));
    for (const r of outs) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe(outs[0]!.stdout);
    }
    const lines = outs[0]!.stdout.trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(40);
    for (const c of COMMANDS)
      expect(
        lines.filter((l) => new RegExp(`^  ${c} +\\S`).test(l)),
        c,
      ).toHaveLength(1);
    expect(outs[0]!.stdout).toMatch(/assay COMMAND --help/);
    // no command's details: those are for COMMAND --help
    expect(outs[0]!.stdout).not.toMatch(/--bundle-timeout|--hmac-key-file/);
  });

  it.each(COMMANDS)("assay %s --help, -h and help %s: that command's details only", async (c) => {
    const [a, b, h] = [await run([c, "--help"]), await run(["help", c]), await run([c, "-h"])];
    for (const r of [a, b, h]) expect(r.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(h.stdout).toBe(a.stdout);
    expect(a.stdout).toMatch(new RegExp(`^assay ${c}\\b`));
    for (const other of COMMANDS.filter((o) => o !== c))
      expect(a.stdout, other).not.toMatch(new RegExp(`^assay ${other} `, "m"));
  });

  it("--help after -- is an argument, not a request for help", async () => {
    const r = await run(["verify", "--", "--help"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
  });

  it("assay alone: the short usage on stderr, nothing on stdout, exit 2 (a usage error)", () => {
    const r = spawnCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^usage: assay COMMAND \[options\] .*assay --help/);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("loads no command, no zod and no help text of a command: only the CLI's own small modules", () => {
    // A resolve hook names every module the process loads.
    const hook = `data:text/javascript,${encodeURIComponent(
      `import { register } from "node:module"; register("data:text/javascript,${encodeURIComponent(
        "export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write('LOAD ' + r.url + '\\n'); return r; }",
      )}");`,
    )}`;
    const r = spawnCli(["--help"], { node: ["--import", hook] });
    expect(r.code, r.stderr).toBe(0);
    const loaded = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("LOAD "))
      .map((l) => l.slice(5));
    expect(loaded.some((u) => u.endsWith("/dist/cli/main.js"))).toBe(true);
    const own = [...new Set(loaded.filter((u) => u.startsWith("file:")).map((u) => u.replace(/^.*\/dist\//, "")))];
    expect(own.filter((u) => /commands\/|cli\/help\.js|core\/results|node_modules/.test(u))).toEqual([]);
    expect(own.length).toBeLessThanOrEqual(12);
  });
});

describe("did you mean", () => {
  it("edit distance, and the nearest name only when it is near enough to be a typo", () => {
    expect(editDistance("formt", "format")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(nearest("--formt", ["--format", "--out", "--jobs"])).toBe("--format");
    expect(nearest("scor", COMMANDS)).toBe("score");
    expect(nearest("chek-task", COMMANDS)).toBe("check-task");
    expect(nearest("frobnicate", COMMANDS)).toBeUndefined();
    expect(didYouMean("exclde", ["count", "exclude"])).toBe(": did you mean exclude?");
    expect(didYouMean("zzz", ["count", "exclude"])).toBe("");
  });

  it("an unknown option names the nearest of that command's options, in one line, exit 2", async () => {
    const cases: [string[], string][] = [
      [["score", corpus, "--formt", "json"], "assay score: unknown option --formt: did you mean --format?\n"],
      [["score", corpus, "--formt=json"], "assay score: unknown option --formt: did you mean --format?\n"],
      [["verify", corpus, "--jsn"], "assay verify: unknown option --jsn: did you mean --json?\n"],
      [
        ["compare", "a.json", "b.json", "--fail-onn", "regression"],
        "assay compare: unknown option --fail-onn: did you mean --fail-on?\n",
      ],
      [["cache", "stats", "--cahce", "x"], "assay cache: unknown option --cahce: did you mean --cache?\n"],
      [
        ["cache", "stat"],
        'assay cache: unknown subcommand "stat": did you mean stats? (stats, prune, export; see assay cache --help)\n',
      ],
      [["cache"], "assay cache: needs a subcommand: stats, prune, export (see assay cache --help)\n"],
      [["score", corpus, "--frobnicate"], "assay score: unknown option --frobnicate\n"],
      [["score", corpus, "--it's"], "assay score: unknown option --it's\n"],
      [["score", corpus, "--\x1b[2Jx"], 'assay score: unknown option "--\\u001b[2Jx"\n'],
      [
        ["score", corpus, "-x"],
        "assay score: unknown option -x (short options here: -f (--format), -o (--out), -j (--jobs), -q (--quiet))\n",
      ],
      [["score", corpus, "--out"], "assay score: option --out needs a value\n"],
      [["score", corpus, "--quiet=yes"], "assay score: option --quiet takes no value\n"],
      [
        ["score", corpus, "--bundle-timeout", "-1"],
        'assay score: option --bundle-timeout needs a value (one starting with "-" is written --bundle-timeout=-…)\n',
      ],
      [["schema", "extra"], 'assay schema: unexpected argument "extra": this command takes none\n'],
      [
        ["score", corpus, "--invalid", "exclde"],
        'assay score: --invalid must be one of count, exclude (got "exclde"): did you mean exclude?\n',
      ],
    ];
    for (const [argv, stderr] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr, argv.join(" ")).toBe(stderr);
    }
  });

  it("the built CLI: never Node's own parser text, and an unknown command names the nearest", () => {
    const opt = spawnCli(["score", corpus, "--formt", "json"]);
    expect(opt.code).toBe(2);
    expect(opt.stderr).toBe("assay score: unknown option --formt: did you mean --format?\n");
    expect(opt.stderr).not.toMatch(/Unknown option|positional|'/);
    const cmd = spawnCli(["scor", corpus]);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toBe('assay: unknown command "scor": did you mean score?\n');
    const far = spawnCli(["frobnicate"]);
    expect(far.stderr).toBe('assay: unknown command "frobnicate" (assay --help lists the commands)\n');
    const help = spawnCli(["help", "veriyf"]);
    expect([help.code, help.stderr]).toEqual([2, 'assay: unknown command "veriyf": did you mean verify?\n']);
    const first = spawnCli(["--formt", "json"]);
    expect([first.code, first.stderr]).toEqual([
      2,
      "assay: unknown option --formt (a command comes first: assay COMMAND [options])\n",
    ]);
    expect(spawnCli(["--hepl"]).stderr).toBe(
      "assay: unknown option --hepl: did you mean --help? (a command comes first: assay COMMAND [options])\n",
    );
  });
});

describe("short flags and --out", () => {
  it("-o -f -q -j are --out --format --quiet --jobs", async () => {
    const out = join(tmp, "short.out.json");
    const r = await run(["score", corpus, "-o", out, "-f", "json", "-q", "-j", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(JSON.parse(readFileSync(out, "utf8")).format).toBe("assay.results/1");
  });

  it("--out - (and -o -) writes to stdout, never a file named -", () => {
    const cwd = mkdtempSync(join(tmp, "dash-"));
    for (const flag of ["--out", "-o"]) {
      const r = spawnCli(["score", corpus, flag, "-", "--format", "json", "--quiet"], { cwd });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      expect(JSON.parse(r.stdout).format).toBe("assay.results/1");
    }
    const schema = spawnCli(["schema", "--out", "-"], { cwd });
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout).$schema).toBeDefined();
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("an --out extension that names no format is refused with the known ones, before scoring; --format or .txt accepts the name", () => {
    const pdf = join(tmp, "report.pdf");
    const r = spawnCli(["score", corpus, "--out", pdf]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `assay score: --out ${pdf}: .pdf names no format; use .json (json), .jsonl (jsonl), .html/.htm (html), .xml (junit), .md/.markdown (md), .txt (the default) (or give --format, or - for standard output)\n`,
    );
    expect(existsSync(pdf)).toBe(false);
    const cmp = spawnCli(["compare", "a.json", "b.json", "-o", join(tmp, "c.gz")]);
    expect(cmp.code).toBe(2);
    expect(cmp.stderr).toMatch(
      /^assay compare: --out .*c\.gz: \.gz names no format; use \.json \(json\), \.html\/\.htm \(html\), \.md\/\.markdown \(md\), \.txt \(the default\)/,
    );
    expect(spawnCli(["score", corpus, "--out", pdf, "--format", "md", "-q"]).code).toBe(0);
    expect(readFileSync(pdf, "utf8")).toMatch(/^## assay results/);
    const txt = join(tmp, "report.txt");
    expect(spawnCli(["score", corpus, "--out", txt, "-q"]).code).toBe(0);
    expect(readFileSync(txt, "utf8")).toMatch(/^assay: /);
  });
});

describe("assay cache stats with no cache yet", () => {
  it("says it is empty, exit 0, offline, and creates nothing", () => {
    const cwd = mkdtempSync(join(tmp, "nocache-"));
    const env = { ASSAY_CACHE: undefined, ANTHROPIC_API_KEY: undefined };
    const r = spawnCli(["cache", "stats"], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `${join(cwd, "cache", "assay.sqlite")}: empty (no cache yet: analyze, check-task and narrate make it)\nno run recorded yet\n`,
    );
    const json = spawnCli(["cache", "stats", "--json"], { cwd, env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: 0, bytes: 0, byAnalysis: [], lastRun: null });
    expect(readdirSync(cwd)).toEqual([]);
    // a cache named on the command line must exist: a typo is not an empty cache
    expect(spawnCli(["cache", "stats", "--cache", "typo.sqlite"], { cwd, env }).code).toBe(2);
  });

  it("cache export - writes the answers to stdout", () => {
    const cwd = mkdtempSync(join(tmp, "export-"));
    const cache = join(cwd, "c.sqlite");
    new AnalysisCache(cache).close(); // an empty cache
    const r = spawnCli(["cache", "export", "-", "--cache", cache], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("assay cache: exported 0 answers to standard output\n");
    expect(readdirSync(cwd)).not.toContain("-");
  });
});

describe("colour for pass/fail markers", () => {
  const on = { stdoutIsTTY: true, env: {} };
  it("on a terminal: markers in their tone; other words as they are", () => {
    const c = colourFor(on);
    expect(c.on).toBe(true);
    expect(c.marker("REGRESSION")).toBe("\x1b[1;31mREGRESSION\x1b[0m");
    expect(c.marker("MISMATCH")).toBe("\x1b[1;31mMISMATCH\x1b[0m");
    expect(c.marker("differs")).toBe("\x1b[1;31mdiffers\x1b[0m");
    // Words that also run through prose are no markers: printed as they are.
    for (const word of ["invalid", "valid", "error", "fail", "pass"]) expect(c.marker(word)).toBe(word);
    expect(c.marker("agrees")).toBe("\x1b[32magrees\x1b[0m");
    expect(c.marker("unverified")).toBe("\x1b[33munverified\x1b[0m");
    expect(c.marker("constructor")).toBe("constructor");
    expect(c.paint("x", "warn")).toBe("\x1b[33mx\x1b[0m");
  });
  it("off with NO_COLOR (any non-empty value), with TERM=dumb, and off a terminal", () => {
    for (const io of [
      { stdoutIsTTY: true, env: { NO_COLOR: "1" } },
      { stdoutIsTTY: true, env: { TERM: "dumb" } },
      { stdoutIsTTY: false, env: {} },
      { env: {} },
    ]) {
      const c = colourFor(io);
      expect(c.on, JSON.stringify(io)).toBe(false);
      expect(c.marker("REGRESSION")).toBe("REGRESSION");
    }
    expect(colourFor({ stdoutIsTTY: true, env: { NO_COLOR: "" } }).on).toBe(true); // no-color.org: empty is unset
    expect(colour(false).paint("x", "bad")).toBe("x");
  });
});

describe("colour in a table written to a terminal", () => {
  const dir = scratch("assay-colour-").at("demo");
  beforeAll(() => {
    expect(spawnCli(["demo", "--out", dir]).code).toBe(0);
  });
  const score = async (env: Record<string, string>, tty: boolean, ...more: string[]) =>
    (await run(["score", join(dir, "logs"), ...more], env, { stdoutIsTTY: tty })).stdout;
  it("paints the verdict markers after the columns are laid out, and nothing else", async () => {
    const plain = await score({}, false);
    const painted = await score({}, true);
    expect(plain).not.toContain("\x1b[");
    expect(plain).toMatch(/\bagrees\b/);
    expect(painted).toContain("\x1b[32magrees\x1b[0m");
    // A claim assay disputes is marked as a failure is (the demo's metric-inflated log).
    expect(plain).toMatch(/0\.600 differs/);
    expect(painted).toContain("0.600 \x1b[1;31mdiffers\x1b[0m");
    expect(painted).not.toMatch(/\x1b\[[0-9;]*m(invalid|pass)\b/);
    // Without the escape codes it is the plain table, column for column.
    expect(painted.replace(/\x1b\[[0-9;]*m/g, "")).toBe(plain);
  });
  it("stays plain with NO_COLOR, and in JSON whatever the terminal", async () => {
    expect(await score({ NO_COLOR: "1" }, true)).not.toContain("\x1b[");
    expect(await score({}, true, "--format", "json")).not.toContain("\x1b[");
  });
});
