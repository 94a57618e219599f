// A real browser for the HTML report's tests: Debian's chromium driven by playwright-core (no
// bundled browser is downloaded). Every request but the page's own file is refused and counted;
// console errors, page errors and dialogs are recorded. Absent chromium the tests skip visibly;
// under CI=true its absence is a failure (.ci/run installs it).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { SCRATCH } from "./shared.js";

export const CHROMIUM = "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const REQUIRE_CHROMIUM = process.env["CI"] === "true";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Opened {
  page: Page;
  /** Requests other than the page's own file (each refused). */
  refused: string[];
  consoleErrors: string[];
  pageErrors: string[];
  dialogs: string[];
}

export interface Browser {
  open(file: string, o?: { width?: number; height?: number; colorScheme?: "light" | "dark" }): Promise<Opened>;
  close(): Promise<void>;
}

/** A fresh browser with a profile of its own in a temp folder (removed on close). */
export async function launch(): Promise<Browser> {
  const profile = mkdtempSync(join(SCRATCH, "assay-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  return {
    async open(file, o = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width: o.width ?? 1200, height: o.height ?? 900 });
      await page.emulateMedia({ colorScheme: o.colorScheme ?? "light" });
      const own = pathToFileURL(file).href;
      const opened: Opened = { page, refused: [], consoleErrors: [], pageErrors: [], dialogs: [] };
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (url === own) return route.continue();
        opened.refused.push(url);
        return route.abort();
      });
      page.on("console", (m) => void (m.type() === "error" && opened.consoleErrors.push(m.text())));
      page.on("pageerror", (e) => void opened.pageErrors.push(e.message));
      page.on("dialog", (d) => void (opened.dialogs.push(d.message()), d.dismiss()));
      await page.goto(own, { waitUntil: "load" });
      return opened;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
