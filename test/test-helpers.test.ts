// The shared test helpers' own rules (test/helpers/shared.ts, cli.ts, fake-anthropic.ts): a scratch
// folder lives exactly as long as its block or test, ../shared's tests run when it is there or
// under CI, a started CLI is watched to its end, a fake made for a block listens only during it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startCli } from "./helpers/cli.js";
import { FakeMessagesApi } from "./helpers/fake-anthropic.js";
import { expectShared, REQUIRE_SHARED, runsWithShared, scratch, scratchInTest } from "./helpers/shared.js";

const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
  .version;

describe("scratch folders", () => {
  let blocks = "";
  let tests = "";
  describe("a block's", () => {
    const { dir, at, fresh } = scratch("assay-helpers-");
    blocks = dir;
    it("is there for the block's tests, at() inside it", () => {
      writeFileSync(at("f"), "x");
      expect([existsSync(dir), existsSync(`${dir}/f`)]).toEqual([true, true]);
    });
    it("fresh() makes a new folder inside it at each call, under one name or another", () => {
      const made = [fresh("job"), fresh("job"), fresh("corpus")];
      expect(new Set(made).size).toBe(3);
      for (const f of made) expect([f.startsWith(`${dir}/`), existsSync(f)]).toEqual([true, true]);
    });
  });
  it("is gone after the block", () => expect(existsSync(blocks)).toBe(false));
  it("a test's is there during the test", () => {
    tests = scratchInTest("assay-helpers-test-").dir;
    expect(existsSync(tests)).toBe(true);
  });
  it("and gone after it", () => expect(existsSync(tests)).toBe(false));
});

describe("../shared", () => {
  const here = new URL("../package.json", import.meta.url).pathname;
  const absent = "/nonexistent/assay-shared/SOURCES.md";
  it("a part that is there runs; one that is absent runs only under CI=true", () => {
    expect([runsWithShared(here), runsWithShared(absent)]).toEqual([true, REQUIRE_SHARED]);
  });
  it("expectShared fails naming what is missing, and passes what is there", () => {
    expect(() => expectShared(absent)).toThrow(`CI=true but ${absent} is missing`);
    expect(() => expectShared(here)).not.toThrow();
  });
});

describe("startCli", () => {
  it("gathers what the CLI writes, and its exit, once it has ended", async () => {
    const r = startCli(["--version"]);
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect([r.stdout(), r.stderr()]).toEqual([`${VERSION}\n`, ""]);
  });
  it("a killed CLI ends with the signal and no code", async () => {
    const r = startCli(["--version"]);
    r.child.kill("SIGKILL");
    expect(await r.exited).toEqual({ code: null, signal: "SIGKILL" });
  });
});

describe("FakeMessagesApi.forTests", () => {
  let closed = "";
  describe("a block's fake", () => {
    const fake = FakeMessagesApi.forTests();
    let before: unknown;
    try {
      void fake.url;
    } catch (err) {
      before = err;
    }
    it("has no address before the block's tests, and one during them", async () => {
      expect(String(before)).toMatch(/not listening yet/);
      expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      closed = fake.url;
      expect((await fetch(`${fake.url}/v1/models`)).status).toBe(404);
    });
  });
  it("is closed after the block", async () => {
    await expect(fetch(`${closed}/v1/models`)).rejects.toThrow();
  });
});
