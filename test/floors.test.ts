// The floors of src/ (.dependency-cruiser.cjs, run by `npm run lint` before every test run): the
// tree as it is has no violation, and each rule fires on a small tree that breaks it, and only there.

import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { cruise, type ICruiseResult, type IConfiguration } from "dependency-cruiser";
import { describe, expect, it } from "vitest";
import { scratchInTest } from "./helpers/shared.js";

const ROOT = new URL("..", import.meta.url).pathname;
const config = createRequire(import.meta.url)(join(ROOT, ".dependency-cruiser.cjs")) as IConfiguration;

/** The violations (rule name, from → to) of the tree below `base`'s src/. */
async function violations(base: string): Promise<string[]> {
  const cwd = process.cwd();
  process.chdir(base); // the rules' paths are relative to the tree's root, as `npm run lint` runs them
  try {
    const r = await cruise(["src"], {
      ruleSet: config as never,
      validate: true,
      tsPreCompilationDeps: true,
      doNotFollow: { path: "node_modules" },
    });
    const out = r.output as ICruiseResult;
    return out.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  } finally {
    process.chdir(cwd);
  }
}

function tree(base: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, p)), { recursive: true });
    writeFileSync(join(base, p), text);
  }
}

describe("the floors of src/", () => {
  it("hold on the tree as it is", { timeout: 60_000 }, async () => {
    expect(await violations(ROOT)).toEqual([]);
  });

  it("each rule fires where it is broken, and not beside it", { timeout: 60_000 }, async () => {
    const { dir: tmp } = scratchInTest("assay-floors-");
    tree(tmp, {
      // core: another core module, a declaration and node:crypto are allowed; a kind's face, the pipeline and node:fs are not
      "src/core/ok.ts":
        'import "./leaf.js";\nimport "../kinds/k/declaration.js";\nimport "node:crypto";\nexport const ok = 1;\n',
      "src/core/leaf.ts": "export const leaf = 1;\n",
      "src/core/bad.ts":
        'import "../kinds/k/kind.js";\nimport "../pipeline/p.js";\nimport "node:fs";\nexport const bad = 1;\n',
      // a kind: core, io and its own folder are allowed; the pipeline and another kind are not
      "src/kinds/k/declaration.ts": 'export const declaration = { name: "k" } as const;\n',
      "src/kinds/k/kind.ts":
        'import "../../core/leaf.js";\nimport "../../io/read.js";\nimport "./declaration.js";\nimport "../../pipeline/p.js";\nimport "../j/kind.js";\nexport const kind = 1;\n',
      "src/kinds/j/kind.ts": "export const kind = 2;\n",
      "src/kinds/j/declaration.ts": 'import "../../io/read.js";\nexport const declaration = 1;\n',
      "src/io/read.ts": "export const read = 1;\n",
      // only the list imports a kind's folder; the pipeline goes through it
      "src/kinds/list.ts": 'export const LIST = [() => import("./k/kind.js"), () => import("./j/kind.js")];\n',
      "src/pipeline/p.ts": 'import "../kinds/list.js";\nimport "../kinds/k/kind.js";\nexport const p = 1;\n',
      // a runtime circle is refused; one through a type-only import is not
      "src/report/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/report/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
      "src/report/c.ts": 'import type { D } from "./d.js";\nexport type C = { d?: D };\n',
      "src/report/d.ts": 'import type { C } from "./c.js";\nexport type D = { c?: C };\n',
    });
    tree(tmp, {
      "tsconfig.json": JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true },
        include: ["src"],
      }),
    });
    expect(await violations(tmp)).toEqual(
      [
        "a-declaration-is-data: src/kinds/j/declaration.ts → src/io/read.ts",
        "a-kind-stands-on-core: src/kinds/k/kind.ts → src/kinds/j/kind.ts",
        "a-kind-stands-on-core: src/kinds/k/kind.ts → src/pipeline/p.ts",
        "core-has-no-effects: src/core/bad.ts → fs",
        "core-is-the-ground-floor: src/core/bad.ts → fs",
        "core-is-the-ground-floor: src/core/bad.ts → src/kinds/k/kind.ts",
        "core-is-the-ground-floor: src/core/bad.ts → src/pipeline/p.ts",
        // one line per circle: report/a ⇄ report/b, and kinds/k/kind → pipeline/p → kinds/k/kind
        "no-runtime-circle: src/kinds/k/kind.ts → src/pipeline/p.ts",
        "no-runtime-circle: src/report/a.ts → src/report/b.ts",
        "one-list-names-the-kinds: src/core/bad.ts → src/kinds/k/kind.ts",
        "one-list-names-the-kinds: src/pipeline/p.ts → src/kinds/k/kind.ts",
      ].sort(),
    );
  });
});
