// The table fits the width it is given (issue 40): a terminal's columns, else COLUMNS, else 80
// (or --width N); names and models wrap, never cut, so two Inspect runs that differ only in the
// model's last characters are told apart at 80, 120 and 200 columns — in-process, piped, and on a
// real terminal (tmux). The layout's rules (src/report/fit.ts) each on both sides: the table where
// it fits, else each row's name on its own line above a table of the rest, else rows stacked.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fitTable, layOut, nameAbove, stackRows, wrap, wrapLines, type Column } from "../src/report/fit.js";
import { widthFor } from "../src/cli/width.js";
import { CLI, run, spawnCli } from "./helpers/cli.js";
import { runsWithShared, scratch, SHARED_DIR } from "./helpers/shared.js";

/** The widest line's printed width (a terminal's colour codes take no column). */
const widest = (text: string) => Math.max(...text.split("\n").map((l) => [...l.replace(/\x1b\[[0-9;]*m/g, "")].length));
const noSpace = (s: string) => s.replace(/\s+/g, "");

describe("wrap: lines of at most the width, every character kept", () => {
  it("breaks at spaces, continues under the indent, and leaves a line that fits as it is", () => {
    expect(wrap("short line", 20)).toEqual(["short line"]);
    const lines = wrap("alpha beta gamma delta epsilon zeta eta theta", 30, "    ");
    expect(lines).toEqual(["alpha beta gamma delta epsilon", "    zeta eta theta"]);
    expect(lines.every((l) => l.length <= 30)).toBe(true);
  });

  it("breaks a word longer than the line after a / _ or -, else inside it; nothing is dropped", () => {
    const name = "openrouter/deepseek/deepseek-r1-distill-qwen-14b";
    const lines = wrap(name, 24);
    expect(lines.every((l) => l.length <= 24)).toBe(true);
    expect(lines.join("")).toBe(name);
    expect(lines[0]).toBe("openrouter/deepseek/");
    expect(wrap("x".repeat(25), 10)).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(5)]);
  });

  it("wrapLines continues a 'label   value' line under its value, prose two columns in", () => {
    const [a, b] = wrapLines(["  coverage   6/8 = 75.0%   trials scored (invalid ones as 0) / every trial"], 50);
    expect(a).toBe("  coverage   6/8 = 75.0%   trials scored (invalid");
    expect(b).toBe("             ones as 0) / every trial");
    expect(wrapLines(["no label here, just some prose that runs on"], 30)[1]).toMatch(/^ {2}\S/);
    expect(wrapLines(["fits"], Infinity)).toEqual(["fits"]);
  });
});

const COLS: Column[] = [{ head: "name", wrap: true }, { head: "kind" }, { head: "n", right: true }];
const ROWS = [
  ["a-very-long-experiment-name-that-tells-rows-apart-1", "inspect", "3"],
  ["a-very-long-experiment-name-that-tells-rows-apart-2", "harbor", "12"],
];

describe("fitTable and stackRows", () => {
  it("lays a table out as it is where it fits, counts right-aligned, no trailing spaces", () => {
    const t = fitTable(COLS, ROWS, 200)!;
    expect(t).toHaveLength(3);
    expect(t[1]).toMatch(/-1 {2}inspect {3}3$/);
    expect(t.every((l) => l === l.trimEnd())).toBe(true);
  });

  it("wraps the wrapping column inside its width where the whole does not fit; every name whole once rejoined", () => {
    const t = fitTable(COLS, ROWS, 40)!;
    expect(widest(t.join("\n"))).toBeLessThanOrEqual(40);
    expect(t.length).toBeGreaterThan(3);
    const nameCol = t.map((l) => l.slice(0, t[0]!.indexOf("kind")).trim()).join("");
    for (const [name] of ROWS) expect(nameCol).toContain(name);
  });

  it("gives up (null) where even the narrowest columns do not fit; layOut then stacks every row", () => {
    const wide: Column[] = [...COLS, { head: "x".repeat(30) }];
    const rows = ROWS.map((r) => [...r, "y"]);
    expect(fitTable(wide, rows, 40)).toBeNull();
    const s = layOut(wide, rows, 40);
    expect(s).toEqual(stackRows(wide, rows, 40));
    expect(widest(s.join("\n"))).toBeLessThanOrEqual(40);
    expect(s[0]).toBe("a-very-long-experiment-name-that-tells-");
    expect(s).toContain("  kind inspect · n 3");
  });
});

describe("laying out takes time linear in a cell's length, whatever the evidence names (review 11)", () => {
  const LONG: Column[] = [
    { head: "name", wrap: true, weight: 8, above: true },
    { head: "model", wrap: true, above: true },
    { head: "figure" },
    { head: "n", right: true },
  ];
  const model = `openai/${"x".repeat(8000)}`;
  const rows = [
    ["popularity", model, "match/-/accuracy 0.667", "3"],
    ["popularity", "openai/gpt-4", "match/-/accuracy 0.500", "12"],
  ];

  it.each([80, 250])(
    "an 8,000-character model at %i columns: laid out in well under a second, every character kept",
    (w) => {
      const t0 = performance.now();
      const out = layOut(LONG, rows, w);
      const ms = performance.now() - t0;
      expect(ms).toBeLessThan(1000); // 15 s at 250 columns before
      expect(widest(out.join("\n"))).toBeLessThanOrEqual(w);
      expect(noSpace(out.join(""))).toContain("x".repeat(w - 10));
      const t1 = performance.now();
      const lines = wrap("x".repeat(400_000), w);
      expect(performance.now() - t1).toBeLessThan(1000);
      expect(lines.join("")).toBe("x".repeat(400_000));
    },
  );

  it("a column wider than the others' narrowest leave it starts at that width; one narrower keeps its own", () => {
    const cols: Column[] = [
      { head: "name", wrap: true },
      { head: "model", wrap: true },
      { head: "note", wrap: true, weight: 8 },
    ];
    const r = [
      [
        "alpha beta gamma delta epsilon",
        "openai/gpt-4o-mini-2024-07-18",
        Array.from({ length: 20 }, (_, i) => `word${i}`).join(" "),
      ],
    ];
    // 80 columns: the note must lose most of its 139 columns; taking them from it first leaves the names room (two lines each, not three).
    expect(fitTable(cols, r, 80)).toEqual([
      "name              model            note",
      "alpha beta gamma  openai/gpt-4o-   word0 word1 word2 word3 word4 word5 word6",
      "delta epsilon     mini-2024-07-18  word7 word8 word9 word10 word11 word12 word13",
      "                                   word14 word15 word16 word17 word18 word19",
    ]);
    // 200 columns: every column fits as it is.
    expect(fitTable(cols, r, 200)).toEqual([`name${" ".repeat(28)}model${" ".repeat(26)}note`, r[0]!.join("  ")]);
  });
});

// What tells rows apart (above) and the figures: the middle layout puts the first on a line of their own.
const NAMED: Column[] = [
  { head: "name", wrap: true, weight: 8, above: true },
  { head: "model", wrap: true, above: true },
  { head: "figure" },
  { head: "coverage" },
  { head: "n", right: true },
];
const NAMED_ROWS = [
  ["popularity", "openrouter/deepseek/deepseek-r1-distill-qwen-14b", "match/-/accuracy 0.667", "3/3", "3"],
  ["popularity", "openrouter/deepseek/deepseek-r1-distill-qwen-32b", "match/-/accuracy 0.500", "2/3", "12"],
];
const nameLine = (r: string[]) => `${r[0]} · ${r[1]}`;

describe("the middle layout: each row's name on its own line, the rest a table under a shared header", () => {
  it("where the table fits (100 columns) it is the table: nothing above", () => {
    const t = layOut(NAMED, NAMED_ROWS, 100);
    expect(t).toEqual(fitTable(NAMED, NAMED_ROWS, 100));
    expect(t).toHaveLength(3);
    expect(t[0]).toMatch(/^name +model +figure/);
  });

  it("where the table does not fit even wrapped (61 columns): names whole on their lines, the figures aligned under one header", () => {
    expect(fitTable(NAMED, NAMED_ROWS, 61)).toBeNull();
    const m = layOut(NAMED, NAMED_ROWS, 61);
    expect(m).toEqual(nameAbove(NAMED, NAMED_ROWS, 61));
    expect(m).toEqual([
      "name · model",
      "  figure                  coverage   n",
      nameLine(NAMED_ROWS[0]!),
      "  match/-/accuracy 0.667  3/3        3",
      nameLine(NAMED_ROWS[1]!),
      "  match/-/accuracy 0.500  2/3       12",
    ]);
    expect(widest(m.join("\n"))).toBeLessThanOrEqual(61);
  });

  it("a name longer than the line wraps deeper than the table's rows, never cut", () => {
    const long = [["x".repeat(30), "openrouter/deepseek/deepseek-r1-distill-qwen-14b", "f 1", "1/1", "1"]];
    const m = nameAbove(NAMED, long, 50)!;
    expect(widest(m.join("\n"))).toBeLessThanOrEqual(50);
    expect(m[3]).toMatch(/^ {4}\S/);
    expect(noSpace(m.slice(2, -1).join(""))).toBe(noSpace(nameLine(long[0]!)));
    expect(m.at(-1)).toMatch(/^ {2}f 1/);
  });

  it("where even the rest does not fit (30 columns) the rows stack; without columns marked above there is no middle layout", () => {
    expect(nameAbove(NAMED, NAMED_ROWS, 30)).toBeNull();
    expect(layOut(NAMED, NAMED_ROWS, 30)).toEqual(stackRows(NAMED, NAMED_ROWS, 30));
    const plain = NAMED.map(({ above: _, ...c }) => c);
    expect(nameAbove(plain, NAMED_ROWS, 60)).toBeNull();
    expect(layOut(plain, NAMED_ROWS, 60)).toEqual(stackRows(plain, NAMED_ROWS, 60));
  });

  it("a table that fits only by wrapping into more lines than the middle layout takes gives way to it; one that wraps less stays", () => {
    // 80 columns: each model wraps into two lines, 5 lines against the middle layout's 6: the table.
    const t80 = fitTable(NAMED, NAMED_ROWS, 80)!;
    expect(t80).toHaveLength(5);
    expect(layOut(NAMED, NAMED_ROWS, 80)).toEqual(t80);
    // 70 columns: the table still fits, each model in three lines (7); the middle layout's 6 win.
    expect(fitTable(NAMED, NAMED_ROWS, 70)).toHaveLength(7);
    expect(layOut(NAMED, NAMED_ROWS, 70)).toEqual(nameAbove(NAMED, NAMED_ROWS, 70));
    expect(nameAbove(NAMED, NAMED_ROWS, 70)).toHaveLength(6);
  });
});

const INSPECT = join(SHARED_DIR, "real-world", "inspect", "2025-05-12T20-28-13-04-00_popularity.json");
const MODELS = ["openrouter/deepseek/deepseek-r1-distill-qwen-14b", "openrouter/deepseek/deepseek-r1-distill-qwen-32b"];

/** The overview's layout in a report: the table (its header a row of headings), the middle layout (names above, under "experiment · …"), or stacked rows. */
function layoutOf(report: string): "table" | "middle" | "stacked" {
  if (/^experiment {2,}\S/m.test(report)) return "table";
  if (/^experiment · /m.test(report)) return "middle";
  return "stacked";
}
/** At each width the overview of the two runs is laid out so: the table fits 200, the middle layout 120, only stacked rows fit 80. */
const LAYOUT: Record<number, ReturnType<typeof layoutOf>> = { 80: "stacked", 120: "middle", 200: "table" };

describe.skipIf(!runsWithShared(INSPECT))("two Inspect runs that differ only in the model's end", () => {
  const { dir: tmp } = scratch("assay-fit-");
  const root = join(tmp, "two");
  beforeAll(() => {
    mkdirSync(root);
    const log = JSON.parse(readFileSync(INSPECT, "utf8")) as { eval: Record<string, unknown> };
    MODELS.forEach((model, i) => {
      for (const k of ["run_id", "eval_id", "task_id"]) log.eval[k] = `${String(log.eval[k]).slice(0, -1)}${i}`;
      log.eval["model"] = model;
      writeFileSync(join(root, `2025-05-12T20-28-1${i}-04-00_popularity.json`), JSON.stringify(log));
    });
  });

  it.each([80, 120, 200])("at %i columns (COLUMNS, piped): every line fits, both models whole", async (w) => {
    const r = await run(["score", "-q", root], { COLUMNS: String(w) });
    expect(r.code, r.stderr).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(w);
    for (const m of MODELS) expect(r.stdout).toContain(m);
    expect(layoutOf(r.stdout)).toBe(LAYOUT[w]);
    // In the middle layout each name is whole on its own line, its figures under the shared header.
    if (w === 120)
      for (const m of MODELS)
        expect(r.stdout).toMatch(new RegExp(`^popularity · ${m} · inspect · 2025-05-13\\n {8}3  match`, "m"));
    // The legend fits too.
    expect(r.stdout).toMatch(/^legend$/m);
  });

  it("without COLUMNS a pipe gets 80; --width beats COLUMNS; a terminal's own width beats COLUMNS", async () => {
    expect(widest((await run(["score", "-q", root], { COLUMNS: undefined })).stdout)).toBeLessThanOrEqual(80);
    expect(widest(spawnCli(["score", "-q", root], { env: { COLUMNS: undefined } }).stdout)).toBeLessThanOrEqual(80);
    const wide = await run(["score", "-q", root], { COLUMNS: "80" }, { stdoutIsTTY: true, columns: 200 });
    expect(widest(wide.stdout)).toBeGreaterThan(120);
    expect(widest(wide.stdout)).toBeLessThanOrEqual(200);
    expect(wide.stdout).toMatch(/^experiment +agent \/ model +kind/m); // a table at 200, never stacked
    const given = await run(["score", "-q", "--width", "120", root], { COLUMNS: "200" });
    expect(widest(given.stdout)).toBeLessThanOrEqual(120);
    expect(widest(given.stdout)).toBeGreaterThan(80);
  });

  it("-o FILE from a terminal gets COLUMNS, else 80, as the help says; the terminal's width is for the terminal (review 12)", async () => {
    const term = { stdoutIsTTY: true, columns: 200 };
    const file = join(tmp, "table.txt");
    expect((await run(["score", "-q", "-o", file, root], { COLUMNS: undefined }, term)).code).toBe(0);
    expect(widest(readFileSync(file, "utf8"))).toBeLessThanOrEqual(80);
    expect((await run(["score", "-q", "-o", file, root], { COLUMNS: "120" }, term)).code).toBe(0);
    expect(widest(readFileSync(file, "utf8"))).toBeLessThanOrEqual(120);
    expect(widest(readFileSync(file, "utf8"))).toBeGreaterThan(80);
    // To the terminal itself (no -o, or -o -): the terminal's 200.
    for (const out of [[], ["-o", "-"]])
      expect(widest((await run(["score", "-q", ...out, root], { COLUMNS: undefined }, term)).stdout)).toBeGreaterThan(
        120,
      );
  });

  it("--details fits too; the JSON is the same at any width", async () => {
    const d = await run(["score", "-q", "--details", "--width", "80", root]);
    expect(widest(d.stdout)).toBeLessThanOrEqual(80);
    const j80 = await run(["score", "-q", "-f", "json", "--width", "80", root]);
    const j200 = await run(["score", "-q", "-f", "json", "--width", "200", root]);
    const mask = (s: string) => s.replace(/"(created_at|finished_at|started_at|wall_seconds)": [^,\n]+/g, "");
    expect(mask(j80.stdout)).toBe(mask(j200.stdout));
  });

  it("refuses a --width that is no count or under 40 columns (exit 2), before scoring", async () => {
    for (const bad of ["0", "39", "wide", "4O"]) {
      const r = await run(["score", "-q", "--width", bad, root]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain("--width must be a whole number of columns, at least 40");
    }
    expect((await run(["score", "-q", "--width", "40", root])).code).toBe(0);
  });

  it("compare's table fits its width too, its runs named whole", async () => {
    const a = join(tmp, "a.json");
    expect(spawnCli(["score", "-q", "-f", "json", "--out", a, root]).code).toBe(0);
    const wide = await run(["compare", a, "--width", "1000"]);
    expect(widest(wide.stdout)).toBeGreaterThan(80); // unfitted, it would not fit 80
    expect(wide.stdout).toMatch(/^ {2}group {2}run +agent \/ model +started/m);
    for (const w of [80, 120, 200]) {
      const r = await run(["compare", a, "--width", String(w)]);
      expect(widest(r.stdout), r.stdout).toBeLessThanOrEqual(w);
      for (const m of MODELS) expect(noSpace(r.stdout)).toContain(noSpace(m));
      // The ranked runs: a table at 200; narrower, each run (who, when) on its own line above its figures.
      if (w === 200) expect(r.stdout).toMatch(/^ {2}group {2}run +agent \/ model +started/m);
      else {
        expect(r.stdout).toMatch(/^ {2}run · agent \/ model · started\n {4}group {2}mean over 3 paired samples/m);
        for (const m of MODELS) expect(r.stdout).toMatch(new RegExp(`^ {2}popularity \\(${m}\\) ·`, "m"));
      }
    }
  });

  const hasTmux = spawnSync("tmux", ["-V"], { encoding: "utf8" }).status === 0;
  describe.skipIf(!hasTmux)("on a real terminal (tmux)", () => {
    const session = `assay-fit-${process.pid}`;
    const tmux = (...args: string[]) =>
      spawnSync("tmux", ["-S", join(tmp, "tmux.sock"), ...args], {
        encoding: "utf8",
        env: { ...process.env, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
      });
    afterAll(() => void tmux("kill-server"));
    const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

    it.each([80, 120, 200])("a %i-column pane: the table is laid out in the pane's width, models whole", async (w) => {
      try {
        // COLUMNS unset (the test run sets it): the width is the terminal's own.
        const cmd = `unset COLUMNS; ${q(process.execPath)} ${q(CLI)} score -q ${q(root)}; echo "rc=$?"; sleep 30`;
        expect(tmux("-u", "new-session", "-d", "-s", session, "-x", String(w), "-y", "50", cmd).status).toBe(0);
        let screen = "";
        for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
          // -J joins what the terminal wrapped: a line wider than the pane would show whole here.
          screen = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", session).stdout ?? "";
          if (/rc=\d+/.test(screen)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(screen).toContain("rc=0");
        expect(widest(screen)).toBeLessThanOrEqual(w);
        for (const m of MODELS) expect(noSpace(screen)).toContain(noSpace(m));
        expect(layoutOf(screen)).toBe(LAYOUT[w]);
        if (w === 80) expect(screen).toMatch(/^popularity$/m); // stacked: the name on a line of its own
      } finally {
        tmux("kill-session", "-t", session);
      }
    });
  });
});

const REAL = ["harbor-jobs", "inspect", "inspect-more", "terminal-bench"].map((f) => join(SHARED_DIR, "real-world", f));

describe.skipIf(!REAL.every((f) => runsWithShared(f)))("the real folders at 120 columns read as a table", () => {
  it.each(REAL)(
    "%s: the middle layout, every row's name whole and distinct, its figures in the table under it",
    async (root) => {
      const r = await run(["score", "-q", "--width", "120", root]);
      expect(r.code, r.stderr).toBe(0);
      expect(widest(r.stdout)).toBeLessThanOrEqual(120);
      expect(layoutOf(r.stdout)).toBe("middle");
      const lines = r.stdout.split("\n");
      const top = lines.findIndex((l) => l.startsWith("experiment · "));
      const body = lines.slice(top + 2, lines.indexOf("", top));
      // Names start at the margin, figures two columns in (a name's own continuation deeper still).
      const names = body.filter((l) => !l.startsWith(" "));
      const json = JSON.parse((await run(["score", "-q", "-f", "json", root])).stdout) as { experiments: unknown[] };
      expect(names).toHaveLength(Math.min(50, json.experiments.length));
      expect(new Set(names).size).toBe(names.length);
      expect(body.filter((l) => /^ {2}\S|^ {3} *\d/.test(l)).length).toBeGreaterThanOrEqual(names.length);
    },
  );

  it("harbor-jobs: the table itself at 200 columns, stacked rows at 80", async () => {
    const [root] = REAL;
    expect(layoutOf((await run(["score", "-q", "--width", "200", root!])).stdout)).toBe("table");
    expect(layoutOf((await run(["score", "-q", "--width", "80", root!])).stdout)).toBe("stacked");
  });
});

describe("the Markdown report's short form", () => {
  const { dir: tmp } = scratch("assay-fit-md-");
  let demo: string;
  beforeAll(() => {
    expect(spawnCli(["demo", "--out", join(tmp, "demo")]).code).toBe(0);
    demo = join(tmp, "demo");
    cpSync(join(demo, "jobs"), join(tmp, "jobs"), { recursive: true });
  });

  it("is the overview alone by default, saying --details opens the rest; --details adds each experiment and the findings", async () => {
    const short = (await run(["score", "-q", "-f", "md", join(demo, "runs"), join(demo, "jobs")])).stdout;
    expect(short).toContain("| experiment |");
    expect(short).toContain("**Legend**");
    expect(short).toContain("`--details`");
    expect(short).not.toMatch(/^### /m);
    const long = (await run(["score", "-q", "-f", "md", "--details", join(demo, "runs"), join(demo, "jobs")])).stdout;
    expect(long.startsWith(short.slice(0, short.indexOf("**Legend**")))).toBe(true);
    expect(long).toMatch(/^### Findings$/m);
    expect(long).toMatch(/^### `synth-native`/m);
    expect(long.split("\n").length).toBeGreaterThan(3 * short.split("\n").length);
  });
});

describe("the width a table is laid out in (widthFor)", () => {
  const io = (tty: boolean, columns: number | undefined, COLUMNS?: string) => ({
    env: COLUMNS === undefined ? {} : { COLUMNS },
    stdoutIsTTY: tty,
    columns,
  });
  it("--width first; else a terminal's own width, only when the table goes to it (no --out, or --out -)", () => {
    expect(widthFor(io(true, 200, "120"), "100")).toBe(100);
    expect(widthFor(io(true, 200, "120"), undefined)).toBe(200);
    expect(widthFor(io(true, 200, "120"), undefined, "-")).toBe(200);
    expect(widthFor(io(true, 200, "120"), undefined, "table.txt")).toBe(120);
    expect(widthFor(io(true, 200), undefined, "table.txt")).toBe(80);
    expect(widthFor(io(false, undefined, "120"), undefined)).toBe(120);
    expect(widthFor(io(false, undefined), undefined)).toBe(80);
  });
  it("refuses a --width below 40 or not a whole number; a squeezed terminal is laid out at 40", () => {
    for (const bad of ["39", "0", "-5", "80.5", "wide"])
      expect(() => widthFor(io(false, undefined), bad)).toThrow(/--width/);
    expect(widthFor(io(false, undefined), "40")).toBe(40);
    expect(widthFor(io(true, 12), undefined)).toBe(40);
  });
});
