// The HTML report in a real browser (issue 15 item 5): the demo's page opens with no console
// error and no request of any kind; each experiment's headline numbers are the JSON document's;
// the charts are there and sized; the trial table filters and sorts; a folder named like markup
// stays text; a 100,000-row document opens and filters in reasonable time. A screenshot of the
// demo's page is saved under test/artifacts/ (git-ignored).
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCorpus } from "../src/io/corpus.js";
import { writeOutput } from "../src/io/output.js";
import {
  blankEntry,
  blankExperiment,
  emptyTally,
  type BundleEntry,
  type Results,
  type ResultsView,
} from "../src/core/results.js";
import { render } from "../src/report/html/index.js";
import { MAX_ROWS } from "../src/report/html/rows.js";
import { HAVE_CHROMIUM, launch, REQUIRE_CHROMIUM, type Browser, type Opened } from "./helpers/browser.js";
import { run } from "./helpers/cli.js";
import { demoReport, expectedFigures, type DemoReport } from "./helpers/demo.js";
import { HAVE_SHARED, SCRATCH, scratchInTest, SHARED_DIR } from "./helpers/shared.js";

const ARTIFACTS = new URL("artifacts/", import.meta.url).pathname;

describe("a browser to test in", () => {
  it.runIf(REQUIRE_CHROMIUM)("is installed under CI (.ci/run installs Debian's chromium)", () => {
    expect(HAVE_CHROMIUM, "/usr/bin/chromium is absent").toBe(true);
  });
});

/** The rows the trial table has in the document now, as text by column name (the page shows only the columns some row fills). */
const visibleRows = (o: Opened) =>
  o.page.$eval("#trial-table", (table) => {
    const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent!.replace(/[ ▲▼]+$/, ""));
    return [...table.querySelectorAll("tbody tr.row")].map(
      (tr) =>
        Object.fromEntries([...tr.querySelectorAll("td")].map((td, i) => [names[i]!, td.textContent ?? ""])) as Record<
          string,
          string
        >,
    );
  });
/** The trial table's shown columns, each with whether some embedded row fills it. */
const trialColumns = (o: Opened) =>
  o.page.$eval("#trial-table", (table) => {
    const data = JSON.parse(table.ownerDocument.getElementById("trial-data")!.textContent!) as unknown[][];
    return [...table.querySelectorAll("thead th")].map((th) => {
      const c = Number(th.getAttribute("data-col"));
      return { name: th.textContent!.replace(/[ ▲▼]+$/, ""), filled: data.some((r) => r[c] !== null && r[c] !== "") };
    });
  });
/** Cells of the trial and experiments tables whose text is wider than the cell (cut or overflowing). */
const cutCells = (o: Opened) =>
  o.page.$$eval("#trial-table th, #trial-table tbody td, #survey th, #survey td", (cells) =>
    cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
  );
/** The experiments table's rows that end below the top of the first section. */
const surveyBelowSections = (o: Opened) =>
  o.page.$eval("#survey", (table) => {
    const first = table.ownerDocument.getElementById("exp-0")!.getBoundingClientRect().top;
    return [...table.querySelectorAll("tbody tr")].filter((tr) => tr.getBoundingClientRect().bottom > first).length;
  });
/**
 * Scroll the trial table and wait until the page has drawn the rows now in view: it draws on the
 * animation frame after a scroll event, so reading rows straight after a scroll can see the old ones.
 */
const scrollTrials = (o: Opened, to: "top" | "bottom") =>
  o.page.locator("#trial-scroll").evaluate(
    (el, to) =>
      new Promise<void>((done) => {
        const target = to === "top" ? 0 : el.scrollHeight - el.clientHeight;
        if (Math.abs(el.scrollTop - target) < 1) return done();
        // Listeners run in the order added: the page's draw is queued before this frame's wait ends.
        const frame = (f: () => void) => el.ownerDocument.defaultView!.requestAnimationFrame(f);
        el.addEventListener("scroll", () => frame(() => frame(done)), { once: true });
        el.scrollTo(0, target);
      }),
    to,
  );
const matching = async (o: Opened) => Number(await o.page.getAttribute("#trial-count", "data-matching"));
const clean = (o: Opened) => {
  expect(o.refused, "requests").toEqual([]);
  expect(o.consoleErrors, "console errors").toEqual([]);
  expect(o.pageErrors, "page errors").toEqual([]);
  expect(o.dialogs, "dialogs").toEqual([]);
};

describe.skipIf(!HAVE_CHROMIUM)("the HTML report in Chromium", () => {
  let tmp: string;
  let demo: DemoReport;
  let browser: Browser;
  let o: Opened;
  beforeAll(async () => {
    tmp = mkdtempSync(join(SCRATCH, "assay-html-browser-"));
    demo = await demoReport(tmp);
    browser = await launch();
    o = await browser.open(demo.htmlFile);
  });
  afterAll(async () => {
    await browser?.close();
    demo?.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("opens the demo's page with no console error, no page error and no request but the file itself", async () => {
    expect(await o.page.title()).toBe("assay report");
    clean(o);
    mkdirSync(ARTIFACTS, { recursive: true });
    await o.page.screenshot({ path: join(ARTIFACTS, "report.png") });
    await o.page.screenshot({ path: join(ARTIFACTS, "report-full.png"), fullPage: true });
  });

  it("shows each experiment's headline numbers as the JSON document states them", async () => {
    const shown = await o.page.$$eval("section.experiment", (sections) =>
      sections.map((s) => ({
        i: Number(s.getAttribute("data-experiment")),
        figures: [...s.querySelectorAll("[data-metric]")].map((m) => ({
          name: m.getAttribute("data-metric")!,
          value: m.getAttribute("data-value")!,
          text: m.querySelector("b")?.textContent ?? "",
        })),
      })),
    );
    expect(shown.map((s) => s.i)).toEqual(demo.doc.experiments.map((_, i) => i));
    for (const s of shown) {
      const want = expectedFigures(demo.doc.experiments[s.i]!);
      expect(
        Object.fromEntries(s.figures.map((f) => [f.name, f.value === "" ? null : Number(f.value)])),
        demo.doc.experiments[s.i]!.experiment ?? "",
      ).toEqual(want);
      for (const f of s.figures) {
        // the figure a person reads is the same number, rounded: a percentage to 0.1, else to 0.001
        const v = want[f.name]!;
        if (v === null) expect(f.text).toBe("n/a");
        else if (f.text.endsWith("%"))
          expect(Math.abs(Number(f.text.slice(0, -1)) - 100 * v)).toBeLessThanOrEqual(0.05 + 1e-9);
        else expect(Math.abs(Number(f.text) - v)).toBeLessThanOrEqual(0.0005 + 1e-9);
      }
    }
  });

  it("draws the charts, each sized: per experiment its headline and states, the world grid, the claims, the findings", async () => {
    const boxes = await o.page.$$eval("figure.chart svg", (svgs) =>
      svgs.map((s) => s.getBoundingClientRect()).map((r) => [r.width, r.height]),
    );
    expect(boxes.length).toBeGreaterThan(2 * demo.doc.experiments.length);
    for (const [w, h] of boxes) expect(w! * h!).toBeGreaterThan(0);
    const world = demo.doc.experiments.findIndex((e) => e.profile === "world");
    expect(await o.page.locator(`#exp-${world} svg`).filter({ hasText: "World dimensions" }).count()).toBe(1);
    const harbor = demo.doc.experiments.findIndex((e) => e.profile === "harbor");
    expect(await o.page.locator(`#exp-${harbor} svg`).filter({ hasText: "Harbor claims" }).count()).toBe(1);
    expect(await o.page.locator(`#findings svg`).count()).toBe(1);
  });

  it("filters the trial table: by codes and by validity, the rows in view all match and the count is the document's", async () => {
    // A row per entry, and one per sample of an Inspect log with per-sample values (its validity the log's).
    const rowsOf = (b: BundleEntry) => 1 + (b.inspect?.sample_ids?.length ?? 0);
    const all = demo.doc.bundles.reduce((n, b) => n + rowsOf(b), 0);
    expect(await matching(o)).toBe(all);
    const before = await visibleRows(o);
    await o.page.fill("#f-codes", "SCHEMA");
    const schema = demo.doc.bundles.filter((b) => [...b.errors, ...b.warnings].some((f) => f.code === "SCHEMA")).length;
    expect(schema).toBeGreaterThan(0);
    expect(await matching(o)).toBe(schema);
    const after = await visibleRows(o);
    expect(after).not.toEqual(before);
    expect(after).toHaveLength(schema);
    for (const r of after) expect(r["codes"]).toContain("SCHEMA");
    await o.page.fill("#f-codes", "");
    await o.page.selectOption("#f-validity", "invalid");
    // A bundle is invalid, or valid in a trial its experiment makes invalid (the batch rules).
    const trialInvalid = new Set(
      demo.doc.experiments.flatMap((x) => x.invalid.map((i) => `${x.experiment}\u0000${i.trial}`)),
    );
    const invalid = demo.doc.bundles
      .filter(
        (b) =>
          b.validity === "invalid" || (b.validity === "valid" && trialInvalid.has(`${b.experiment}\u0000${b.trial}`)),
      )
      .reduce((n, b) => n + rowsOf(b), 0);
    expect(await matching(o)).toBe(invalid);
    for (const r of await visibleRows(o)) expect(r["validity"]).toMatch(/^invalid( \(trial: [A-Z_, ]+\))?$/);
    await o.page.selectOption("#f-validity", "");
    expect(await matching(o)).toBe(all);
    clean(o);
  });

  it("sorts the trial table by a column, ascending then descending", async () => {
    const th = o.page.locator("#trial-table thead th", { hasText: "trial" });
    await th.click();
    expect(await th.getAttribute("aria-sort")).toBe("ascending");
    const up = (await visibleRows(o)).map((r) => r["trial"]!).filter((t) => t !== "");
    expect(up.length).toBeGreaterThan(10);
    expect(up).toEqual([...up].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    await th.click();
    expect(await th.getAttribute("aria-sort")).toBe("descending");
    const down = (await visibleRows(o)).map((r) => r["trial"]!).filter((t) => t !== "");
    expect(down).toEqual([...down].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
    clean(o);
  });

  it("shows each experiment's result in the first table, above every section, each row linking to its section", async () => {
    expect(await o.page.locator("#survey tbody tr").count()).toBe(demo.doc.experiments.length);
    expect(await surveyBelowSections(o)).toBe(0);
    expect(await o.page.$$eval("#survey tbody td.figure", (tds) => tds.map((td) => td.textContent))).toHaveLength(
      demo.doc.experiments.length,
    );
    const last = demo.doc.experiments.length - 1;
    await o.page.locator(`#survey-${last} a`).click();
    expect(new URL(o.page.url()).hash).toBe(`#exp-${last}`);
    expect(await o.page.locator(`#exp-${last}`).isVisible()).toBe(true);
    await o.page.evaluate("window.scrollTo(0, 0)");
    clean(o);
  });

  it("sorts the experiments table by a click on a header: numbers as numbers, ascending then descending, the unscored last", async () => {
    // The headline's column, found by its header (it was read as the fourth cell, "started", once a column came before it).
    const col = await o.page.$$eval("#survey thead th", (ths) =>
      ths.findIndex((th) => th.textContent!.startsWith("headline")),
    );
    expect(col).toBeGreaterThan(0);
    const order = () =>
      o.page.$$eval(
        "#survey tbody tr",
        (trs, i) => trs.map((tr) => tr.querySelectorAll("td")[i]!.getAttribute("data-sort")!),
        col,
      );
    const numbers = (xs: string[]) => xs.filter((x) => x !== "").map(Number);
    const th = o.page.locator("#survey thead th", { hasText: "headline" });
    await th.click();
    expect(await th.getAttribute("aria-sort")).toBe("ascending");
    const up = await order();
    expect(numbers(up)).toEqual([...numbers(up)].sort((a, b) => a - b));
    expect(up.slice(up.includes("") ? up.indexOf("") : up.length).every((x) => x === "")).toBe(true);
    await th.click();
    expect(await th.getAttribute("aria-sort")).toBe("descending");
    const down = await order();
    expect(numbers(down)).toEqual([...numbers(down)].sort((a, b) => b - a));
    const name = o.page.locator("#survey thead th", { hasText: "experiment" });
    await name.press("Enter");
    expect(await name.getAttribute("aria-sort")).toBe("ascending");
    clean(o);
  });

  it("cuts no cell of either table: each column as wide as its text", async () => {
    expect(await cutCells(o)).toEqual([]);
    await scrollTrials(o, "bottom");
    expect(await cutCells(o)).toEqual([]);
    await scrollTrials(o, "top");
  });

  it("shows the reward, victory and pass columns of a mixed corpus, and no column no row fills", async () => {
    const cols = await trialColumns(o);
    expect(cols.map((c) => c.name)).toEqual(
      expect.arrayContaining(["path", "trial", "reward", "victory", "pass", "outcome"]),
    );
    expect(cols.filter((c) => !c.filled).map((c) => c.name)).toEqual([]);
  });

  it("links each row's evidence (a file: URL, fetched only on a click) and shows its task; the text filter finds a task", async () => {
    const links = await o.page.$$eval("#trial-table tbody tr.row a", (as) =>
      as.map((a) => ({ text: a.textContent!, href: a.getAttribute("href")! })),
    );
    expect(links.length).toBeGreaterThan(0);
    for (const l of links) expect(l.href).toMatch(/^file:\/\/\//);
    expect(links.some((l) => l.text.endsWith("/agent/trajectory.json"))).toBe(true);
    await o.page.fill("#f-text", "task-1");
    const rows = await visibleRows(o);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(`${r["task"]} ${r["trial"]} ${r["path"]}`).toContain("task-1");
    expect(rows.some((r) => r["task"] === "task-1")).toBe(true);
    await o.page.fill("#f-text", "");
    clean(o);
  });

  it("shows each Inspect sample as a row (its id, state and value, the inspect view address that opens it), and the samples without a score by the outcome filter", async () => {
    // The demo's log that hides errors: samples 5 and 10 have no score, as its entry's per-sample values say.
    const e = demo.doc.bundles.find((b) => b.path.includes("errors-hidden"))!;
    const values = Object.values(e.inspect!.metrics).find((m) => m.values !== null)!.values!.exclude;
    const unscored = e.inspect!.sample_ids!.filter((_, i) => values[i] === null);
    expect(unscored.length).toBeGreaterThan(0);
    await o.page.fill("#f-text", "errors-hidden");
    await o.page.fill("#f-outcome", "no score");
    const rows = await visibleRows(o);
    expect(rows.map((r) => r["sample"]).sort()).toEqual([...unscored].sort());
    for (const r of rows) {
      expect(r["outcome"]).toBe("no score: left out");
      expect(r["evidence"]).toMatch(
        / · inspect view --log-dir \S+ · http:\/\/127\.0\.0\.1:7575\/#\/logs\/[^/]+\/samples\/sample\/\d+\/1$/,
      );
    }
    await o.page.fill("#f-outcome", "scored");
    const scored = await visibleRows(o);
    expect(scored.length).toBe(e.inspect!.sample_ids!.length - unscored.length);
    for (const r of scored) expect(r["score"]).toMatch(/^[01]$/);
    await o.page.fill("#f-outcome", "");
    await o.page.fill("#f-text", "");
    clean(o);
  });

  it("holds the task × run matrix in the page: the trial table links to it, and it shows each sample of the runs of the same samples", async () => {
    expect(await o.page.getAttribute("#evidence-note a", "href")).toBe("#task-matrix");
    expect(await o.page.locator("#task-matrix table").count()).toBeGreaterThan(0);
    expect(await o.page.locator("#no-task-matrix").count()).toBe(0);
    const heads = await o.page.$$eval("#task-matrix table thead th", (ths) => ths.map((th) => th.textContent));
    expect(heads).toContain("sample");
    clean(o);
  });

  it("shows a bundle folder named like markup as text: no script runs, no element is made", async () => {
    const corpus = join(tmp, "hostile");
    writeCorpus(corpus, { n: 3, seed: "html", faults: false });
    // Trial folders renamed like markup (a folder name cannot hold "/": "∕" stands in for it).
    const trials = join(corpus, "synth-native");
    const names = [`<script>alert(1)<∕script><!--`, `<img src=x onerror=alert(2)>`];
    const [a, b] = readdirSync(trials).sort();
    renameSync(join(trials, a!), join(trials, names[0]!));
    renameSync(join(trials, b!), join(trials, names[1]!));
    const attempts = (n: string) => readdirSync(join(trials, n)).length;
    const file = join(tmp, "hostile.html");
    const r = await run(["score", corpus, "--quiet", "--format", "html", "--out", file]);
    expect(r.code, r.stderr).toBe(0);
    const h = await browser.open(file);
    try {
      for (const n of names) {
        await h.page.fill("#f-text", n.slice(0, 6));
        expect(await matching(h)).toBe(attempts(n));
        for (const r of await visibleRows(h)) expect(r["path"]).toContain(`synth-native/${n}/`);
      }
      expect(await h.page.locator("img").count()).toBe(0);
      expect(await h.page.locator("script").count()).toBe(2);
      clean(h);
    } finally {
      await h.page.close();
    }
  });

  it("shows a trial its schedule makes invalid as invalid, with its code and no victory, and the validity filter finds it", async () => {
    const corpus = join(tmp, "scheduled");
    writeCorpus(corpus, { n: 6, seed: "sched", faults: false });
    const first = await run(["score", corpus, "--quiet", "--format", "json"]);
    const bundles = (JSON.parse(first.stdout) as Results).bundles;
    const won = new Set(bundles.filter((b) => b.victory === true).map((b) => b.trial!));
    expect(won.size).toBeGreaterThan(0);
    // The schedule agrees on every trial's seed but the winners': each of those is SEED_MISMATCH.
    const seeds = new Map(bundles.map((b) => [b.trial!, won.has(b.trial!) ? "0".repeat(32) : b.seed!]));
    const schedule = join(tmp, "sched.json");
    writeFileSync(
      schedule,
      JSON.stringify({
        format: "assay.schedule/1",
        experiment: bundles[0]!.experiment,
        trials: [...seeds].map(([trial, seed]) => ({ trial, seed })),
      }),
    );
    const file = join(tmp, "scheduled.html");
    const r = await run(["score", corpus, "--quiet", "--schedule", schedule, "--format", "html", "--out", file]);
    expect(r.code, r.stderr).toBe(0);
    const h = await browser.open(file);
    try {
      // A game corpus: its victory column and attempts, no reward or pass column (no Harbor job, no world here).
      const cols = (await trialColumns(h)).map((c) => c.name);
      expect(cols).toEqual(expect.arrayContaining(["victory", "attempt", "path"]));
      expect(cols).not.toContain("reward");
      expect(cols).not.toContain("pass");
      await h.page.selectOption("#f-validity", "invalid");
      expect(await matching(h)).toBe(bundles.filter((b) => won.has(b.trial!)).length);
      for (const row of await visibleRows(h)) {
        expect(row["validity"]).toBe("invalid (trial: SEED_MISMATCH)");
        expect(row["victory"]).toBe("no credit");
        expect(row["codes"]).toContain("SEED_MISMATCH");
      }
      await h.page.selectOption("#f-validity", "valid");
      for (const row of await visibleRows(h)) expect(row["victory"]).not.toBe("victory");
      clean(h);
    } finally {
      await h.page.close();
    }
  });

  it("opens a 100,000-bundle document's page and filters it in reasonable time", { timeout: 180_000 }, async () => {
    const N = 100_000;
    // Entries made as they are read (twice: the page takes problem rows first), never held whole.
    const entry = (i: number): BundleEntry => ({
      path: `/big/b${String(i).padStart(6, "0")}`,
      ...blankEntry({
        validity: i % 10 === 0 ? "invalid" : "valid",
        errors: i % 10 === 0 ? [{ code: "SCHEMA", file: "journal.jsonl", line: 1, message: "m" }] : [],
        profile: "native-game",
        experiment: "big",
        trial: `t${i}`,
        attempt: 1,
        status: "completed",
        victory: i % 3 === 0,
      }),
    });
    const bundles = {
      *[Symbol.iterator]() {
        for (let i = 0; i < N; i++) yield entry(i);
      },
    };
    const tally = { ...emptyTally(), bundles: N, valid: N - N / 10, invalid: N / 10 };
    const doc: ResultsView = {
      format: "assay.results/1",
      run: {
        tool_version: "t",
        scoring_version: 1,
        started_at: "2026-01-01T00:00:00Z",
        complete: true,
        shard: null,
        roots: ["/big"],
        options: {
          invalid: "count",
          resource_bound: "default",
          errors: "exclude",
          schedules: [],
          hmac_key: null,
          filters: null,
        },
        jobs: [],
        unrecognised: { count: 0, paths: [] },
      },
      bundles,
      tally,
      experiments: [
        {
          ...blankExperiment("big", "native-game", N),
          accuracy: {
            value: 1 / 3,
            victories: N / 3,
            scored: N,
            wilson95: [0.33, 0.34],
            interval: null,
            interval_reason: null,
          },
          completion: { value: 1, completed: N, scheduled: N, interval: null, interval_reason: null },
          raw_record: { values: [], mean: 1 / 3 },
          retry: [],
        },
      ],
    };
    const file = join(tmp, "big.html");
    let t = Date.now();
    writeOutput(file, await render(doc));
    const renderMs = Date.now() - t;
    t = Date.now();
    const big = await browser.open(file);
    const openMs = Date.now() - t;
    try {
      expect(await matching(big)).toBe(MAX_ROWS);
      expect(await big.page.getAttribute("#trial-cap", "data-left-out")).toBe(String(N - MAX_ROWS));
      expect((await visibleRows(big)).length).toBeLessThan(200); // only the rows in view (and a margin) are in the document
      t = Date.now();
      await big.page.fill("#f-text", "t12345");
      const filterMs = Date.now() - t;
      expect((await visibleRows(big)).map((r) => r["trial"])).toEqual(["t12345"]);
      console.log(
        `100,000 bundles: page rendered in ${renderMs} ms, opened in ${openMs} ms, filtered in ${filterMs} ms`,
      );
      expect(openMs).toBeLessThan(30_000);
      expect(filterMs).toBeLessThan(5_000);
      clean(big);
    } finally {
      await big.page.close();
    }
  });
});

// Done when (issue 23): the real Harbor jobs' page shows each job's result in its first table,
// every row of it above the first section, and its trial table cuts no cell and has no column
// a Harbor trial lacks.
describe.skipIf(!HAVE_CHROMIUM || !HAVE_SHARED)("the real Harbor jobs' HTML report in Chromium", () => {
  it(
    "shows each job's result in the experiments table, above every section; the trial table cuts nothing and has no game or world column",
    { timeout: 120_000 },
    async () => {
      const { dir: tmp } = scratchInTest("assay-html-real-", SCRATCH);
      const browser = await launch();
      try {
        const file = join(tmp, "jobs.html");
        const json = await run(["score", join(SHARED_DIR, "real-world/harbor-jobs"), "--quiet", "--format", "json"]);
        const doc = JSON.parse(json.stdout) as Results;
        const r = await run([
          "score",
          join(SHARED_DIR, "real-world/harbor-jobs"),
          "--quiet",
          "--format",
          "html",
          "--out",
          file,
        ]);
        expect(r.code, r.stderr).toBe(0);
        const h = await browser.open(file);
        expect(doc.experiments.length).toBeGreaterThan(10);
        expect(await h.page.locator("#survey tbody tr").count()).toBe(doc.experiments.length);
        expect(await surveyBelowSections(h)).toBe(0);
        // Each job's row names it and says its result as the table does: a figure (n/a where nothing was counted) beside its metric, or "none", and the claim's check where Harbor claims one.
        const figures = await h.page.$$eval("#survey tbody td.figure", (tds) => tds.map((td) => td.textContent ?? ""));
        for (const f of figures) expect(f).toMatch(/^((\d\.\d{3}|\d+\.\d%|n\/a) .+|none)$/);
        const cols = await trialColumns(h);
        expect(cols.map((c) => c.name)).toContain("reward");
        for (const absent of ["victory", "pass", "attempt"]) expect(cols.map((c) => c.name)).not.toContain(absent);
        expect(cols.filter((c) => !c.filled)).toEqual([]);
        expect(await cutCells(h)).toEqual([]);
        clean(h);
      } finally {
        await browser.close();
      }
    },
  );
});
