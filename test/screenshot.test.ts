// `npm run screenshot`: docs/report.png, the demo's HTML report as the README shows it, taken with
// the browser the tests use (Debian's chromium through playwright-core, a dev dependency, which is
// why this lives in test/ and not in src/). Skipped in the suite: it runs only when
// ASSAY_SCREENSHOT names the file to write.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { HAVE_CHROMIUM, launch } from "./helpers/browser.js";
import { demoReport } from "./helpers/demo.js";
import { SCRATCH, scratchInTest } from "./helpers/shared.js";

const TARGET = process.env["ASSAY_SCREENSHOT"];

describe.runIf(TARGET !== undefined)("the README's screenshot", () => {
  it("is taken of the demo's report", async () => {
    expect(HAVE_CHROMIUM, "/usr/bin/chromium is needed").toBe(true);
    const { dir: tmp } = scratchInTest("assay-screenshot-", SCRATCH);
    const demo = await demoReport(tmp);
    const browser = await launch();
    try {
      const o = await browser.open(demo.htmlFile, { width: 1280, height: 1500 });
      // The page as it opens: the experiments table (each one's result), then the first sections.
      await o.page.screenshot({ path: resolve(TARGET!) });
      expect(o.refused).toEqual([]);
      expect(o.consoleErrors).toEqual([]);
    } finally {
      await browser.close();
      demo.cleanup();
    }
  });
});
