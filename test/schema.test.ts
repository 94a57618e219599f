import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resultsJsonSchema } from "../src/cli/commands/schema.js";
import { SCORING_VERSION, TOOL_VERSION } from "../src/version.js";

describe("shipped JSON Schema", () => {
  it("is the one generated from the zod schemas (run `npm run schema` after changing them)", () => {
    const shipped = readFileSync(new URL("../src/report/results.schema.json", import.meta.url), "utf8");
    expect(shipped).toBe(resultsJsonSchema());
  });
  it("describes the §10 document: bundles and experiments with their required fields", () => {
    const s = JSON.parse(resultsJsonSchema());
    expect(s.required).toEqual(expect.arrayContaining(["format", "run", "bundles", "experiments"]));
    const entry = s.properties.bundles.items;
    expect(entry.required).toEqual(
      expect.arrayContaining(["path", "digest", "validity", "errors", "warnings", "victory", "late", "advisory"]),
    );
    expect(entry.properties.validity.enum).toEqual(["valid", "invalid", "error"]);
  });
});

describe("versions", () => {
  it("the tool version is package.json's; the scoring version is a positive integer", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(TOOL_VERSION).toBe(pkg.version);
    expect(Number.isInteger(SCORING_VERSION) && SCORING_VERSION > 0).toBe(true);
  });
});
